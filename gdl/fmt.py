"""``gdl fmt``: one canonical layout for rule files.

The formatter works on the token stream of the real parse (the Lark grammar with every token kept),
never on the text: it only decides the whitespace between tokens, so it cannot change what a file
means. After formatting, the output is parsed again and its token stream (including the
indentation tokens) compared with the input's; a difference is an internal error, never a silent
change.

The layout:

* blocks are indented by four spaces per level (tabs and other widths are re-indented);
* one space around binary operators, keywords, ``=`` and after ``,``/``;``/``:``, none inside
  brackets, before ``(`` of a call or ``[`` of an index, after a unary ``-``; a fraction of two
  numbers is written tight, ``1/6``; a range is written
  tight, ``0..n-1``, including the arithmetic of its bounds (``0..2*pits+1``, ``-(n*n)..n*n``);
* line breaks inside brackets and backslash continuations are kept where the author put them;
  a continuation line is indented one level more per bracket line still open (a line that starts
  with closing brackets lines up with the line that opened them);
* comments are kept, a trailing comment two spaces after the code; a comment line takes the
  indentation of the block it sits in;
* at most one blank line in a row, none at the start of the file, one newline at the end.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from lark import Lark, Token, Tree

from gdl.parser import GdlIndenter, grammar_path, parse

INDENT = "    "
NL, INDENT_TOK, DEDENT_TOK = GdlIndenter.NL_type, GdlIndenter.INDENT_type, GdlIndenter.DEDENT_type
WORD_TYPES = frozenset({"NAME", "INT", "DECIMAL", "STRING"})
OPENERS = frozenset("([{")
CLOSERS = frozenset(")]}")
NO_SPACE_BEFORE = frozenset({",", ";", ":", ")", "]", "}", "?"})
NO_SPACE_AFTER = frozenset({"(", "[", "{"})
COMMENT = re.compile(r"#[^\n]*")


class FormatError(Exception):
    """The formatter would have changed the tokens of a file (a bug in the formatter, never the user's)."""


@dataclass(frozen=True)
class Tok:
    """A token of the parse with the rules it sits in (innermost last)."""

    type: str
    text: str
    start: int
    end: int
    parents: tuple[str, ...]
    fraction: bool = False  # the `/` of a literal fraction such as 1/2

    @property
    def punct(self) -> str | None:
        """The literal text of a punctuation or keyword token; None for names, numbers and strings."""
        return None if self.type in WORD_TYPES else self.text


@functools.cache
def _full_parser() -> Lark:
    """The project's grammar, with every token kept in the tree (punctuation, newlines, indentation)."""
    return Lark(
        grammar_path().read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        postlex=GdlIndenter(),
        propagate_positions=True,
        maybe_placeholders=True,
        keep_all_tokens=True,
        cache=True,
    )


def tokens(source: str) -> list[Tok]:
    """Every token of ``source`` in order, with its enclosing rules.

    :raises RuleFileError: the file does not parse (the parser's diagnostic).
    """
    text = source if source.endswith("\n") else source + "\n"
    parse(text)  # the user's diagnostics for a file that does not parse
    tree = _full_parser().parse(text)
    out: list[Tok] = []
    fractions: set[int] = set()
    stack: list[tuple[Tree[Any] | Token | None, tuple[str, ...]]] = [(tree, ())]
    while stack:
        node, parents = stack.pop()
        if isinstance(node, Tree):
            inner = (*parents, str(node.data))
            if _is_fraction(node):
                fractions.add(id(node.children[1]))
            stack.extend((child, inner) for child in reversed(node.children))
        elif isinstance(node, Token):
            start = node.start_pos if node.start_pos is not None else (out[-1].end if out else 0)
            end = node.end_pos if node.end_pos is not None else start
            out.append(Tok(node.type, str(node), start, end, parents, id(node) in fractions))
    return out


def _is_fraction(node: Tree[Any]) -> bool:
    """``1/2``: a division of two number literals, written tight like the fraction it is."""
    if node.data != "binary" or len(node.children) != 3 or str(node.children[1]) != "/":
        return False
    return all(isinstance(c, Tree) and c.data == "int_lit" for c in (node.children[0], node.children[2]))


def _signature(toks: list[Tok]) -> list[tuple[str, str]]:
    """What the formatter must preserve: every token but newlines, indentation tokens by kind (their text is layout).

    Newlines are left out because a leading blank line is a newline token of its own.
    """
    return [(t.type, "" if t.type in (INDENT_TOK, DEDENT_TOK) else t.text) for t in toks if t.type != NL]


def format_source(source: str) -> str:
    """The canonical layout of ``source``.

    :raises RuleFileError: the file does not parse.
    :raises FormatError: the result would not have the same tokens (a formatter bug).
    """
    source = source.removeprefix("\ufeff")
    toks = tokens(source)
    text = source if source.endswith("\n") else source + "\n"
    result = _Formatter(text, toks).run()
    if _signature(tokens(result)) != _signature(toks):
        raise FormatError("formatting would change the tokens of this file; please report it")
    return result


# ------------------------------------------------------------------ spacing


def _tight_operator(tok: Tok) -> bool:
    """An arithmetic operator inside a bound of a range: ``0..n-1`` rather than ``0..n - 1``.

    Grouping parentheses keep the bound tight (``-(rows*cols)..rows*cols``); a call or an index
    starts a new expression, spaced as usual.
    """
    if tok.type not in ("ADD_OP", "MUL_OP") or not tok.parents or tok.parents[-1] != "binary":
        return False
    for rule in reversed(tok.parents):
        if rule == "range":
            return True
        if rule not in ("binary", "neg", "atom"):
            return False
    return False


def _space(a: Tok, b: Tok) -> str:
    """The whitespace between two tokens on one line."""
    ap, bp = a.punct, b.punct
    if bp in NO_SPACE_BEFORE or ap in NO_SPACE_AFTER:
        return ""
    if ap == ".." or bp == "..":
        return ""
    if ap == "-" and a.parents and a.parents[-1] == "neg":
        return ""
    if bp == "(" and b.parents and b.parents[-1] in ("call", "params"):
        return ""
    if bp == "[" and b.parents and b.parents[-1] in ("index", "target", "state_decl"):
        return ""
    if _tight_operator(a) or _tight_operator(b) or a.fraction or b.fraction:
        return ""
    return " "


# ------------------------------------------------------------------ layout


@dataclass
class _Gap:
    """What lies between two tokens of one logical line in the original text."""

    breaks: bool  # a newline: the author broke the line here
    backslash: bool
    trailing: str | None  # a comment at the end of the line before the break
    comments: list[str]  # comment lines between the two


def _gap(text: str) -> _Gap:
    pieces = text.split("\n")
    first = COMMENT.search(pieces[0])
    middle = [m.group(0).rstrip() for piece in pieces[1:-1] if (m := COMMENT.search(piece))]
    return _Gap(len(pieces) > 1, "\\" in text, first.group(0).rstrip() if first else None, middle)


def _width(indentation: str) -> int:
    """Indentation width as the indenter counts it."""
    return indentation.count(" ") + indentation.count("\t") * GdlIndenter.tab_len


MAX_COMMENT_COLUMN = 80


def _align_trailing_comments(lines: list[str], trailing: dict[int, int]) -> list[str]:
    """Trailing comments on consecutive lines start in one column, two spaces after the longest code.

    ``trailing`` maps a line's index to the length of its code before the comment. Authors line such
    comments up by hand; the formatter keeps them lined up (as gofmt does) so that a table of declarations
    with comments stays a table. A column past 80 falls back to two spaces.
    """
    out = list(lines)
    i = 0
    while i < len(out):
        if i not in trailing:
            i += 1
            continue
        j = i
        while j < len(out) and j in trailing:
            j += 1
        column = max(trailing[k] for k in range(i, j)) + 2
        if column <= MAX_COMMENT_COLUMN:
            for k in range(i, j):
                code, comment = out[k][: trailing[k]], out[k][trailing[k]:].lstrip(" ")
                out[k] = code.ljust(column) + comment
        i = j
    return out


class _Formatter:
    def __init__(self, text: str, toks: list[Tok]) -> None:
        self.text = text
        self.toks = toks
        self.lines: list[str] = []
        self.level = 0
        self.widths = [0]  # original indentation width of each open block level
        self.trailing: dict[int, int] = {}  # line index -> length of its code before a trailing comment

    def run(self) -> str:
        line: list[Tok] = []
        for i, tok in enumerate(self.toks):
            if tok.type == INDENT_TOK or tok.type == DEDENT_TOK:
                continue  # levels are taken from the lookahead in _newline
            if tok.type == NL:
                if line:
                    self._logical_line(line)
                    line = []
                self._newline(tok, i, at_start=not self.lines)
            else:
                line.append(tok)
        if line:
            self._logical_line(line)
        while self.lines and not self.lines[-1]:
            self.lines.pop()
        return "\n".join(_align_trailing_comments(self.lines, self.trailing)) + "\n"

    def _blank(self) -> None:
        if self.lines and self.lines[-1]:
            self.lines.append("")

    def _newline(self, tok: Tok, index: int, at_start: bool) -> None:
        """The end of a logical line: its trailing comment, then blank and comment lines, then the new level."""
        next_level = self.level
        j = index + 1
        while j < len(self.toks) and self.toks[j].type in (INDENT_TOK, DEDENT_TOK):
            next_level += 1 if self.toks[j].type == INDENT_TOK else -1
            j += 1
        pieces = tok.text.replace("\r\n", "\n").split("\n")
        head = pieces[0].strip()
        if head.startswith("#"):
            if at_start and not self.lines:
                self.lines.append(head.rstrip())
            elif self.lines:
                self.trailing[len(self.lines) - 1] = len(self.lines[-1])
                self.lines[-1] += "  " + head.rstrip()
        if next_level > self.level:
            self.widths.append(_width(pieces[-1]))
        for piece in pieces[1:-1] if len(pieces) > 1 else ():
            body = piece.strip(" \t")
            if not body:
                self._blank()
                continue
            level = self._comment_level(_width(piece[: len(piece) - len(piece.lstrip(" \t"))]), next_level)
            self.lines.append(INDENT * level + body.rstrip())
        del self.widths[next_level + 1:]
        self.level = next_level

    def _comment_level(self, width: int, next_level: int) -> int:
        """A comment line belongs to the deepest open block it is indented into, at least the next line's."""
        if next_level >= self.level:
            return next_level
        for level in range(self.level, next_level, -1):
            if level < len(self.widths) and self.widths[level] <= width:
                return level
        return next_level

    def _logical_line(self, line: list[Tok]) -> None:
        base = INDENT * self.level
        current = base + line[0].text
        open_lines: list[int] = []  # for each open bracket, the physical line (index in self.lines) it opened on
        backslash = False
        physical = len(self.lines)
        for k in range(1, len(line)):
            a, b = line[k - 1], line[k]
            if a.punct in OPENERS:
                open_lines.append(physical)
            elif a.punct in CLOSERS and open_lines:
                open_lines.pop()
            gap = _gap(self.text[a.end:b.start])
            if not gap.breaks:
                current += _space(a, b) + b.text
                continue
            # The author broke the line here: keep the break, re-indent the continuation.
            backslash = backslash or (gap.backslash and not open_lines)
            if gap.backslash and not open_lines:
                current += " \\"
            if gap.trailing:
                self.trailing[len(self.lines)] = len(current)
                current += "  " + gap.trailing
            self.lines.append(current)
            physical += 1
            depth = _continuation_depth(open_lines, line[k:], backslash)
            for comment in gap.comments:
                self.lines.append(base + INDENT * depth + comment)
                physical += 1
            current = base + INDENT * depth + b.text
        self.lines.append(current)


def _continuation_depth(open_lines: list[int], rest: list[Tok], backslash: bool) -> int:
    """Levels of indentation of a continuation line made of the tokens ``rest``.

    One level per physical line that opened a bracket still open after the closing brackets the
    line starts with, plus one after a backslash continuation.
    """
    still_open = list(open_lines)
    for tok in rest:
        if tok.punct not in CLOSERS or not still_open:
            break
        still_open.pop()
    return len(set(still_open)) + (1 if backslash else 0)
