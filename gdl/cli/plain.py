"""The console a command prints on: rich's on a terminal, a plain writer of lines elsewhere.

A command that prints :class:`gdl.lines.Line` objects through :func:`console` loads ``rich`` only where rich
would style the output (a terminal) or for what a line is not (a table, a board, markup, characters beyond
printable ASCII): :class:`PlainOutput` writes a plain line itself, byte for byte as rich's console writes it
there, and hands everything else to a rich console (:func:`gdl.console.make_console`) made when first needed.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from gdl.lines import Line


def console(stderr: bool = False) -> Any:
    """The console a command prints on (stdout, or stderr): a :class:`PlainOutput` where rich would print
    plain text, else :func:`gdl.console.make_console`'s."""
    if rich_would_style(sys.stderr if stderr else sys.stdout):
        from gdl.console import make_console

        return make_console(stderr=stderr)
    return PlainOutput(stderr)


def rich_would_style(stream: Any) -> bool:
    """Whether rich could treat ``stream`` as a terminal (styles, live displays). False only where it surely
    would not: no ``FORCE_COLOR`` or ``TTY_COMPATIBLE`` in the environment (they make rich style a pipe), no
    IPython, and a stream that says it is not a terminal."""
    if os.environ.get("FORCE_COLOR") is not None or os.environ.get("TTY_COMPATIBLE") or "IPython" in sys.modules:
        return True
    isatty = getattr(stream, "isatty", None)
    try:
        return isatty is None or bool(isatty())
    except ValueError:  # a closed stream: rich's to decide
        return True


class PlainOutput:
    """A console for output that is not a terminal: ``print(line)`` of a :class:`Line` of printable ASCII
    writes it and a line break and flushes, as rich's console does there (with no style to write); anything
    else is printed by a rich console (:func:`gdl.console.make_console`), made when first needed, which
    also answers every other attribute."""

    is_terminal = False

    def __init__(self, stderr: bool = False) -> None:
        self.stderr = stderr
        self._rich: Any = None
        self._quiet = False

    @property
    def rich(self) -> Any:
        if self._rich is None:
            from gdl.console import make_console

            self._rich = make_console(stderr=self.stderr)
        return self._rich

    def print(self, *objects: Any, **options: Any) -> None:
        text = objects[0].plain if len(objects) == 1 and not options and isinstance(objects[0], Line) else None
        if text is None or not (text.isascii() and text.isprintable()):
            self.rich.print(*objects, **options)
            return
        if self._quiet:
            return
        stream = sys.stderr if self.stderr else sys.stdout
        try:
            stream.write(text + "\n")
            stream.flush()
        except BrokenPipeError:  # what rich's console does (Console.on_broken_pipe): quiet from now on, exit 1
            self._quiet = True
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise SystemExit(1) from None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.rich, name)
