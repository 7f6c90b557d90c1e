"""Diagnostics: every problem in a rule file, with its place and a message in the user's words.

One shape for all of them (syntax, semantic, runtime), rendered as::

    games/pig.gdl:7:9: error[undefined-name]: `pott` is not defined
        pot = pott + d
              ^^^^
    hint: did you mean `pot`?
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True, slots=True)
class Span:
    """A place in a rule file: 1-based line and column, end column exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int

    @staticmethod
    def point(line: int, column: int) -> Span:
        return Span(line, column, line, column + 1)


NOWHERE = Span(1, 1, 1, 2)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found in a rule file."""

    severity: str  # "error", "warning" or "info": the one gdl.codes registers for the code
    code: str  # a stable kebab-case name, e.g. "undefined-name", registered in gdl.codes
    message: str
    span: Span = NOWHERE
    file: str = "<string>"
    hint: str | None = None
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        from gdl.codes import lookup  # (the registry loads with the first diagnostic)

        lookup(self.code, self.severity)  # a code missing from gdl.codes is a bug in gdl: fail here, loudly

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def located(self, file: str) -> Diagnostic:
        return Diagnostic(self.severity, self.code, self.message, self.span, file, self.hint, self.notes)

    def with_notes(self, *notes: str) -> Diagnostic:
        """The same diagnostic with ``notes`` added after its own."""
        return Diagnostic(self.severity, self.code, self.message, self.span, self.file, self.hint,
                          (*self.notes, *notes))

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        span = data.pop("span")
        return {
            "file": self.file,
            "line": span["line"],
            "column": span["column"],
            "end_line": span["end_line"],
            "end_column": span["end_column"],
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "hint": self.hint,
            "notes": list(self.notes),
        }

    def format(self, source: str | None = None) -> str:
        """The plain-text rendering: ``file:line:col: severity[code]: message``, the line, a caret."""
        # Messages may quote the file's text (a token, a string): control characters are shown escaped.
        head = f"{self.file}:{self.span.line}:{self.span.column}: {self.severity}[{self.code}]: {self.message}"
        lines = [visible(head), *excerpt(source, self.span)]
        if self.hint:
            lines.append(f"hint: {visible(self.hint)}")
        lines.extend(f"note: {visible(note)}" for note in self.notes)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()


def source_lines(source: str) -> list[str]:
    """The lines of a rule file as the parser counts them: only ``\n`` ends a line.

    (``str.splitlines`` also breaks at form feeds and Unicode separators, which would
    shift every line number after one.) The last file split is remembered: rendering
    a thousand diagnostics of one file splits it once, not a thousand times.
    """
    global _last_split
    if _last_split[0] is source:
        return _last_split[1]
    lines = [line.removesuffix("\r") for line in source.split("\n")]
    if len(lines) > 1 and not lines[-1]:
        lines.pop()
    _last_split = (source, lines)
    return lines


_last_split: tuple[str | None, list[str]] = (None, [])


def excerpt(source: str | None, span: Span) -> list[str]:
    """The source line of ``span`` and a row of carets under it (empty without source)."""
    if source is None:
        return []
    all_lines = source_lines(source)
    if not 1 <= span.line <= len(all_lines):
        return []
    text = all_lines[span.line - 1].replace("\t", " ")
    if len(text) > 200:  # a 1 MB line must not flood the terminal
        start = max(0, span.column - 80)
        text = ("..." if start else "") + text[start : start + 160] + "..."
        column = span.column - start + (3 if start else 0)
    else:
        column = span.column
    end = span.end_column if span.end_line == span.line else len(text) + 1
    end = min(end, len(text) + 1)
    # Control characters are shown escaped (never sent to the terminal raw); the carets follow.
    start_shown, end_shown = len(visible(text[: column - 1])) + 1, len(visible(text[: max(column, end) - 1])) + 1
    width = max(1, end_shown - start_shown)
    return ["    " + visible(text), "    " + " " * (start_shown - 1) + "^" * width]


_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def has_controls(text: str, keep: str = "") -> bool:
    """Whether :func:`visible` would change ``text``."""
    return any(char not in keep for char in _CONTROL.findall(text))


def visible(text: str, keep: str = "") -> str:
    r"""``text`` with control characters escaped, safe to write to a terminal as it is.

    C0 and C1 controls (escape sequences, carriage return, bell...), DEL, the Unicode line and paragraph
    separators and the bidirectional controls become ``\x1b``, ``\u202e``...; tab and the characters of
    ``keep`` (e.g. ``"\n"``) stay.

    >>> visible("a\x1b]52;c;aGk=\x07b")
    'a\\x1b]52;c;aGk=\\x07b'
    >>> visible("x\ny", keep="\n")
    'x\ny'
    """
    def escape(match: re.Match[str]) -> str:
        char = match.group()
        if char in keep:
            return char
        return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"

    return _CONTROL.sub(escape, text)


class GdlError(Exception):
    """Base of every error gdl raises on purpose."""


class RuleFileError(GdlError, ValueError):
    """A rule file with errors; ``diagnostics`` lists every problem found."""

    def __init__(self, diagnostics: Iterable[Diagnostic], source: str | None = None) -> None:
        self.diagnostics = list(diagnostics)
        self.source = source
        super().__init__(self.format())

    def format(self) -> str:
        return "\n".join(d.format(self.source) for d in self.diagnostics)


class ParameterError(GdlError, ValueError):
    """A bad ``-p name=value`` override: unknown name, wrong type or out of range."""


HINT_CANDIDATES = 500
"""The most names one hint compares (a file with thousands of names must not make each error slow)."""


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A "did you mean `x`?" hint for a misspelt name, or None."""
    # Never suggest the name itself (it is "visible" as a builtin, yet not usable here). A name whose
    # length is under 3/7 or over 7/3 of this one's cannot reach the 0.6 similarity: skip it unread.
    low, high = len(name) * 3 / 7, len(name) * 7 / 3
    near = [c for c in candidates if c != name and low <= len(c) <= high]
    if len(near) > HINT_CANDIDATES:  # prefer names that start alike, then keep the first ones
        near = ([c for c in near if c[:1] == name[:1]] + [c for c in near if c[:1] != name[:1]])[:HINT_CANDIDATES]
    import difflib  # (a hint is for a mistake: a load without one needs no difflib)

    close = difflib.get_close_matches(name, near, n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None
