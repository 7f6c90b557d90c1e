"""Checks on a rule file's text before it is parsed: characters that some programs take for line breaks, and a
budget of tokens (Lark builds a tree of every token before any later check can refuse the file)."""

from __future__ import annotations

import re

from gdl.diagnostics import Diagnostic, Span

MAX_TOKENS = 50_000
"""The most tokens a rule file may have (words, numbers, strings, symbols; comments are not counted). The bundled
games have 100 to 513; Lark takes some 30 microseconds and 1 KB a token, so a file at the limit is parsed (or
refused as too deep) in about 1.5 s and 50 MB. A 5 MB file (the loader's cap) of ``1 + 1 + ...`` took a minute
and 2 GB before it was refused as too deep; now 0.5 s."""

_TOKEN = re.compile(r"""#[^\n]*|"(?:[^"\\\n]|\\.)*"|\w+|[=!<>]=|\.\.|//|\*\*|->|[^\s\\]""")
"""A comment (skipped), a string, a word or number, a two-character operator, or any other visible character:
as many tokens as Lark's lexer makes, or a few more."""


def token_budget_diagnostics(source: str, filename: str = "<string>") -> list[Diagnostic]:
    """A `too-large` error at the first token past :data:`MAX_TOKENS` (none when the file is within it)."""
    count = 0
    for match in _TOKEN.finditer(source):
        if match.group().startswith("#"):
            continue
        count += 1
        if count > MAX_TOKENS:
            line, column = _position(source, match.start())
            return [Diagnostic("error", "too-large", f"more than {MAX_TOKENS:,} tokens in a rule file",
                               Span(line, column, line, column + 1), filename,
                               hint="a game's rules take a few hundred; generate a smaller file")]
    return []


def _position(source: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of ``offset``."""
    return source.count("\n", 0, offset) + 1, offset - (source.rfind("\n", 0, offset) + 1) + 1


_ODD_BREAK = re.compile("\r(?!\n)|[\x0b\x0c\x85\u2028\u2029]")
_BREAK_NAMES = {"\r": "a carriage return (\\r) not followed by \\n", "\x0b": "a vertical tab (\\v)",
                "\x0c": "a form feed (\\f)", "\x85": "a next-line character (U+0085)",
                "\u2028": "a line separator (U+2028)", "\u2029": "a paragraph separator (U+2029)"}
MAX_BREAK_DIAGNOSTICS = 20


def line_break_diagnostics(source: str, filename: str = "<string>") -> list[Diagnostic]:
    """An error at each character that some programs show as a line break and gdl does not.

    Lines end only with ``\\n`` or ``\\r\\n``. A lone ``\\r`` in a comment would make ``cat`` or an
    editor show a line of code that gdl ignores, and the others shift line numbers in tools that
    count them as breaks; so they are refused wherever they are, strings and comments included.
    """
    found: list[Diagnostic] = []
    for match in _ODD_BREAK.finditer(source):
        if len(found) == MAX_BREAK_DIAGNOSTICS:
            break
        line, column = _position(source, match.start())
        found.append(Diagnostic(
            "error", "line-break", f"{_BREAK_NAMES[match.group()]} in a rule file; lines end only with \\n or \\r\\n",
            Span(line, column, line, column + 1), filename,
            hint="remove it, or end the line with a plain newline"))
    return found
