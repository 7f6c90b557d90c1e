"""Lines of styled text, and the numbers in them, without loading ``rich``.

``rich`` costs some 30 ms of imports at every start-up, and where it would print without colour (a pipe, a file:
what scripts and benchmarks read) a line of text needs none of it. :class:`Line` is the part of
``rich.text.Text`` the commands' plain lines use (a text with a style, styled pieces appended); on a rich
console it is the ``Text`` the same calls would have built. :mod:`gdl.cli.plain` prints lines on a pipe or a
file without rich.
"""

from __future__ import annotations

from typing import Any


class Line:
    """``rich.text.Text``'s ``Text(text, style=...)``, ``append``, ``+`` and ``plain``, without ``rich``:
    ``__rich__`` replays the calls on a ``Text``, so rich prints the line as it printed the ``Text``."""

    __slots__ = ("_first", "_pieces", "style")

    def __init__(self, text: str = "", style: str = "") -> None:
        self._first = text
        self.style = style
        self._pieces: list[tuple[str | Line, str | None]] = []

    def append(self, text: str | Line, style: str | None = None) -> Line:
        """Add a piece (a string with its style, or a line with its own); returns this line."""
        self._pieces.append((text, style))
        return self

    def copy(self) -> Line:
        line = Line(self._first, self.style)
        line._pieces = list(self._pieces)
        return line

    def __add__(self, other: object) -> Line:
        if not isinstance(other, str | Line):
            return NotImplemented
        return self.copy().append(other)

    @property
    def plain(self) -> str:
        return self._first + "".join(piece if isinstance(piece, str) else piece.plain for piece, _ in self._pieces)

    def __str__(self) -> str:
        return self.plain

    def __rich__(self) -> Any:
        """The ``rich.text.Text`` of the same calls."""
        from rich.text import Text

        text = Text(self._first, style=self.style)
        for piece, style in self._pieces:
            if isinstance(piece, Line):
                text.append(piece.__rich__())
            else:
                text.append(piece, style)
        return text


def format_number(value: float) -> str:
    """``1``, ``-0.5``, ``0.709424``, ``1e+285`` (at most 6 significant digits; integers without a point, up to
    16 digits)."""
    value = float(value)  # a Fraction from a library caller formats as a float does
    if value.is_integer() and abs(value) < 1e16:  # (past that, a float's digits are no longer the number's)
        return str(int(value))
    return f"{value:.6g}"


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"
