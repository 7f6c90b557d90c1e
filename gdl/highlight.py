"""Syntax highlighting of rule files: a Pygments lexer (registered as ``gdl``) and rich text for the CLI.

The word lists are written out here so that ``pygmentize -l gdl`` stays cheap (no grammar is loaded);
tests/test_highlight.py checks them against the Lark grammar (every keyword) and the compiler's
builtins, and the TextMate grammar in editors/vscode/ against the same lists, so the three cannot
drift apart.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace
from rich.syntax import Syntax
from rich.text import Text as RichText

KEYWORDS = (
    "after", "again", "and", "board", "break", "chance", "def", "draw", "elif", "else", "enum", "every",
    "for", "game", "heuristic", "if", "in", "let", "lose", "meta", "move", "not", "or", "otherwise", "param",
    "pass", "players", "quiet", "render", "setup", "simultaneous", "state", "symmetry", "terminal", "utility",
    "weight", "when", "where", "win", "with", "zero_sum",
)
"""Every keyword of grammars/gdl.lark (``x`` of ``board R x C`` and the shapes are contextual, below)."""
CONSTANTS = ("true", "false", "none")
SHAPES = ("hex", "square")
QUANTIFIERS = ("any", "all", "count", "sum", "min", "max", "first", "select")
"""Aggregates: keywords only in ``any x in D: ...`` (``min``, ``max`` and ``sum`` are also functions)."""
BUILTIN_FUNCTIONS = (
    "abs", "cell", "cells_in_column", "cells_in_row", "col", "connected", "len", "lines", "max", "min",
    "neighbors", "next", "opponent", "ray", "row", "step", "sum",
)
BUILTIN_NAMES = (
    "bool", "cell", "cols", "column", "diagonal", "dir", "mover", "orthogonal", "player", "row", "rows", "turn",
    "north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest",
)
"""Types, the player to move, board sizes and directions."""

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"


def _call_name(lexer: RegexLexer, match: re.Match[str]) -> Iterator[tuple[int, Any, str]]:
    """A name before `(`: a builtin function or a def/move of the file."""
    text = match.group(1)
    kind = Name.Builtin if text in BUILTIN_FUNCTIONS else Name.Function
    yield match.start(1), kind, text


class GdlLexer(RegexLexer):
    """The gdl rule language (games/*.gdl)."""

    name = "gdl"
    aliases = ["gdl"]  # noqa: RUF012 (Pygments' interface)
    filenames = ["*.gdl"]  # noqa: RUF012
    mimetypes = ["text/x-gdl"]  # noqa: RUF012
    url = "https://github.com/"  # the project's docs/language.md describes the language

    tokens = {  # noqa: RUF012
        "root": [
            (r"\n", Whitespace),
            (r"[\t \f]+", Whitespace),
            (r"\\\n", Text),
            (r"#.*?$", Comment.Single),
            (r'"([^"\\\n]|\\.)*"', String),
            (r"[0-9]+\.[0-9]+", Number.Float),
            (r"[0-9]+", Number.Integer),
            # `board R x C [hex|square]`: `x` and the shape are keywords only on a board line.
            # A `board` declaration starts a line; elsewhere `board` may be a state variable's name.
            (r"^board(?=[ \t]+[^\s\[=+*-])", Keyword.Declaration, "board"),
            (r"(" + "|".join(QUANTIFIERS) + r")(\s+)(" + _NAME + r")(\s+)(in)\b",
             bygroups(Keyword, Whitespace, Name.Variable, Whitespace, Keyword)),
            (words(("game", "meta", "param", "players", "enum", "state", "def", "move", "setup", "after",
                    "win", "lose", "draw", "terminal", "utility", "heuristic", "render", "zero_sum", "symmetry",
                    "simultaneous", "quiet"),
                   suffix=r"\b"), Keyword.Declaration),
            (words(CONSTANTS, suffix=r"\b"), Keyword.Constant),
            (words(tuple(k for k in KEYWORDS if k != "board"), suffix=r"\b"), Keyword),
            (r"(" + _NAME + r")(?=\s*\()", _call_name),
            (words(BUILTIN_NAMES, suffix=r"\b"), Name.Builtin),
            (_NAME, Name),
            (r"\.\.|==|!=|<=|>=|\+=|-=|\*=|//|[-+*/%<>=?]", Operator),
            (r"[()\[\]{},:;]", Punctuation),
            (r".", Text),
        ],
        "board": [
            (r"[\t \f]+", Whitespace),
            (r"\bx\b", Keyword),
            (words(SHAPES, suffix=r"\b"), Keyword),
            (r"\n", Whitespace, "#pop"),
            (r"#.*?$", Comment.Single),
            (r"[0-9]+", Number.Integer),
            (_NAME, Name),
            (r"[-+*/%()]", Operator),
            (r".", Text),
        ],
    }


@functools.cache
def _syntax() -> Syntax:
    return Syntax("", GdlLexer(), theme="ansi_dark", background_color="default")


def highlight(code: str) -> RichText:
    """``code`` as rich text with colours (a console prints it plain when colour is off)."""
    text = _syntax().highlight(code)
    text.rstrip()
    return text


def highlight_line(line: str) -> RichText:
    """One source line, highlighted, without a trailing newline."""
    text = highlight(line)
    text.remove_suffix("\n")
    return text
