"""Terminal output for the CLI: diagnostics, boards, tables, progress, all through ``rich``.

Colour and live displays appear only on a terminal; when stdout is a pipe or a
file the same text comes out plain (and ``NO_COLOR`` is honoured by rich).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleOptions, ConsoleRenderable, RenderHook
from rich.segment import Segment
from rich.text import Text

from gdl.check import MOVES_NOTE
from gdl.diagnostics import Diagnostic, Span, has_controls, visible
from gdl.lines import format_number as format_number  # (re-exported: commands format values with it)
from gdl.lines import plural as plural
from gdl.runtime import CompiledGame

SEVERITY_STYLES = {"error": "bold red", "warning": "bold yellow"}
MAX_NOTE_MOVES = 16
"""A reproducing move list longer than this is shown elided (``--json`` keeps it whole)."""


def make_console(stderr: bool = False) -> Console:
    """A console on stdout (or stderr); highlighting off so that numbers in messages stay plain.

    Everything it prints goes through :class:`EscapeControls`: text from a rule file (titles, meta,
    render strings, source lines) or the command line reaches the terminal as text, never as escape
    sequences. Emoji codes (``:smile:``) are not replaced.
    """
    width = None
    if not (sys.stderr if stderr else sys.stdout).isatty():
        width = terminal_width(os.environ.get("COLUMNS"))
    console = Console(stderr=stderr, highlight=False, soft_wrap=True, width=width, emoji=False)
    console.push_render_hook(EscapeControls())
    return console


def terminal_width(columns: str | None, default: int = 100) -> int:
    """``$COLUMNS`` if it is a sensible width (20..1000), else ``default``; never an error."""
    if columns is None or not columns.strip().isdigit():
        return default
    return min(1000, max(20, int(columns)))


class _Escaped:
    """A renderable whose text segments have their control characters shown escaped."""

    def __init__(self, renderable: Any) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterable[Segment]:
        for segment in console.render(self.renderable, options):
            if segment.control or not has_controls(segment.text, keep="\n"):
                yield segment  # rich's own cursor movements, or plain text
            else:
                yield Segment(visible(segment.text, keep="\n"), segment.style)


class EscapeControls(RenderHook):
    """Escape control characters in everything printed (the style codes rich adds are not text)."""

    def process_renderables(self, renderables: list[ConsoleRenderable]) -> list[ConsoleRenderable]:
        return [_Escaped(renderable) for renderable in renderables]


def elide_moves(note: str, limit: int = MAX_NOTE_MOVES) -> str:
    """Shorten a long ``reproduce with the moves: ...`` note, keeping both ends."""
    if not note.startswith(MOVES_NOTE):
        return note
    from gdl.check import join_moves, split_moves

    names = split_moves(note[len(MOVES_NOTE):])
    if len(names) <= limit:
        return note
    half = limit // 2
    return (MOVES_NOTE + join_moves(names[:half]) + f", ... {len(names) - 2 * half} more ..., "
            + join_moves(names[-half:]) + f" ({len(names)} moves; --json lists them all)")


def diagnostic_text(diagnostic: Diagnostic, source: str | None) -> Text:
    """``file:line:col: error[code]: message``, the source line with a gutter, carets, hint and notes."""
    span = diagnostic.span
    text = Text()
    text.append(f"{diagnostic.file}:{span.line}:{span.column}: ", style="bold")
    style = SEVERITY_STYLES.get(diagnostic.severity, "bold")
    text.append(diagnostic.severity, style=style)
    text.append(f"[{diagnostic.code}]", style=style.replace("bold ", ""))
    text.append(": ")
    text.append(diagnostic.message, style="bold")
    for line in _excerpt(source, span):
        text.append("\n")
        text.append_text(line)
    if diagnostic.hint:
        text.append("\n")
        text.append("hint", style="bold cyan")
        text.append(f": {diagnostic.hint}")
    for note in diagnostic.notes:
        text.append("\n")
        text.append("note", style="bold blue")
        text.append(f": {elide_moves(note)}")
    return text


def _excerpt(source: str | None, span: Span) -> list[Text]:
    from gdl.diagnostics import excerpt

    plain = excerpt(source, span)
    if not plain:
        return []
    gutter = f"{span.line:>4} | "
    blank = " " * (len(gutter) - 2) + "| "
    code_line, carets = plain[0][4:], plain[1][4:]
    from gdl.highlight import highlight_line  # colours only: a console without colour prints it plain

    return [Text(gutter, style="blue") + highlight_line(code_line),
            Text(blank, style="blue") + Text(carets, style="bold red")]


def print_diagnostics(console: Console, diagnostics: list[Diagnostic], source: str | None) -> None:
    for diagnostic in diagnostics:
        console.print(diagnostic_text(diagnostic, source))
        console.print()


# ------------------------------------------------------------------ boards


def board_text(game: CompiledGame, state: Any) -> Text:
    """The game's drawing of ``state`` in colour: see :func:`gdl.cli.render.board_text` (kept here for callers
    outside the CLI)."""
    from gdl.cli.render import board_text as draw

    return draw(game, state)
