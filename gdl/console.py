"""Terminal output for the CLI: diagnostics, boards, tables, progress, all through ``rich``.

Colour and live displays appear only on a terminal; when stdout is a pipe or a
file the same text comes out plain (and ``NO_COLOR`` is honoured by rich).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from rich.console import Console
from rich.text import Text

from gdl.check import MOVES_NOTE
from gdl.diagnostics import Diagnostic, Span

PLAYER_STYLES = ("bold red", "bold yellow", "bold blue", "bold green", "bold magenta", "bold cyan")
SEVERITY_STYLES = {"error": "bold red", "warning": "bold yellow"}
MAX_NOTE_MOVES = 16
"""A reproducing move list longer than this is shown elided (``--json`` keeps it whole)."""


def make_console(stderr: bool = False) -> Console:
    """A console on stdout (or stderr); highlighting off so that numbers in messages stay plain."""
    width = None
    if not (sys.stderr if stderr else sys.stdout).isatty():
        width = int(os.environ.get("COLUMNS", "0") or 0) or 100
    return Console(stderr=stderr, highlight=False, soft_wrap=True, width=width)


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


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


# ------------------------------------------------------------------ boards


def board_text(game: Any, state: Any) -> Text:
    """The game's own rendering with each player's pieces in that player's colour."""
    rendered = game.render(state)
    program = getattr(game, "program", None)
    symbols: dict[str, str] = {}
    if program is not None:
        for value, symbol in getattr(program, "render_symbols", {}).items():
            if isinstance(value, int) and value >= 0 and symbol.strip() and symbol != ".":
                symbols[symbol] = PLAYER_STYLES[value % len(PLAYER_STYLES)]
    text = Text()
    lines = rendered.split("\n")
    for index, line in enumerate(lines):
        if index:
            text.append("\n")
        stripped = line.lstrip()
        is_board_row = stripped[:1].isdigit() and " " in stripped and symbols
        if is_board_row:
            number, _, rest = line.partition(stripped.split(" ", 1)[0])
            text.append(number + stripped.split(" ", 1)[0], style="dim")
            for char in rest:
                text.append(char, style=symbols.get(char))
        elif line.startswith("   ") and line.strip().replace(" ", "").isalpha():
            text.append(line, style="dim")  # the column letters
        elif line.startswith(("to move:", "game over:", "chance:")):
            text.append(line, style="bold")
        else:
            text.append(line)
    return text


def format_number(value: float) -> str:
    """``1``, ``-0.5``, ``0.709424`` (at most 6 significant digits; integers without a point)."""
    value = float(value)  # a Fraction from a library caller formats as a float does
    if value.is_integer():
        return str(int(value))
    return f"{value:.6g}"
