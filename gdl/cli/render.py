"""Boards on the terminal, coloured from the game's structure (:mod:`gdl.view`), not from the drawn text.

A mark is in its player's colour because the state says whose piece it is (a ``player`` value),
whatever symbol the rule file draws it with; the labels are dim and the status line is bold, with the
player to move in their colour. Without colour (a pipe, ``NO_COLOR``) the text is the game's own
:meth:`~gdl.runtime.CompiledGame.render`, but for state that is no single cell array:

- **edges between dots**: two two-dimensional ``bool`` arrays shaped ``(R+1) x C`` (the lines across) and
  ``R x (C+1)`` (the lines down) are drawn as the lines of an ``R x C`` grid of dots, the first index
  from the top, with an ``R x C`` array (the boxes' owners, say) written inside the boxes.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from gdl.runtime import CompiledGame
from gdl.view import Item, StateView, VariableView, board_lines, variable_text

PLAYER_STYLES = ("bold red", "bold yellow", "bold blue", "bold green", "bold magenta", "bold cyan")


def player_style(player: int) -> str:
    """The colour of player ``player`` (by seat: the first player red, the second yellow, ...)."""
    return PLAYER_STYLES[player % len(PLAYER_STYLES)]


def board_text(game: CompiledGame, state: tuple) -> Text:
    """The state as the game draws it, each player's pieces in that player's colour."""
    return view_rich_text(game.view(state))


def view_rich_text(view: StateView) -> Text:
    """:func:`gdl.view.view_text` with styles: marks by owner, labels dim, the status bold."""
    text = Text()
    if view.board is not None:
        width = view.board.width
        for label, indent, marks in board_lines(view.board):
            text.append(label, style="dim")
            text.append(indent)
            for number, mark in enumerate(marks):
                if number:
                    text.append(" ")
                text.append_text(_item(mark, mark.text.ljust(width)))
            text.append("\n")
        text.append("   " + " ".join(c.ljust(width) for c in view.board.column_labels), style="dim")
        text.append("\n")
    grid = edge_grid(view.variables)
    if grid is not None:
        text.append_text(grid.text())
    for variable in view.variables:
        if grid is not None and variable in grid.drawn:
            continue
        text.append(f"{variable.name}: ")
        if any(item.owner is not None or item.seat is not None for item in variable.items) and \
                len(variable.shape) <= 1:
            text.append_text(_items(variable.items, view.players))
        else:
            text.append(variable_text(variable, view.players))
        text.append("\n")
    text.append_text(_status(view))
    return text


def _item(item: Item, shown: str) -> Text:
    return Text(shown, style=player_style(item.owner) if item.owner is not None else "")


def _items(items: tuple[Item, ...], players: tuple[str, ...]) -> Text:
    """A single value or a one-dimensional array: a player value in its colour, ``A=3`` with ``A`` in A's."""
    text = Text()
    for number, item in enumerate(items):
        if item.seat is not None:
            if number:
                text.append("  ")
            text.append(players[item.seat], style=player_style(item.seat))
            text.append("=")
        elif number:
            text.append(" ")
        text.append_text(_item(item, item.text))
    return text


def _status(view: StateView) -> Text:
    """``to move: X`` with ``X`` in its colour; ``game over: ...`` and ``chance: ...`` bold."""
    if view.to_move >= 0:  # the status of a decision state names the player to move
        return Text("to move: ", style="bold") + Text(view.players[view.to_move], style=player_style(view.to_move))
    return Text(view.status, style="bold")


# ------------------------------------------------------------------ edges between dots


@dataclass(frozen=True)
class EdgeGrid:
    """Lines between the dots of an ``R x C`` grid of boxes: ``across`` is ``(R+1) x C``, ``down`` ``R x (C+1)``."""

    across: VariableView
    down: VariableView
    boxes: VariableView | None
    """An ``R x C`` array shown inside the boxes, or None."""

    @property
    def drawn(self) -> tuple[VariableView, ...]:
        """The variables the grid shows (they are not listed again below it)."""
        return (self.across, self.down) if self.boxes is None else (self.across, self.down, self.boxes)

    def text(self) -> Text:
        rows, cols = self.down.shape[0], self.across.shape[1]
        text = Text()
        for r in range(rows + 1):
            text.append("   +")
            for c in range(cols):
                text.append("---" if self.across.items[r * cols + c].value else "   ")
                text.append("+")
            text.append("\n")
            if r == rows:
                break
            text.append("   ")
            for c in range(cols + 1):
                text.append("|" if self.down.items[r * (cols + 1) + c].value else " ")
                if c < cols:
                    text.append_text(self._box(r * cols + c))
            text.append("\n")
        return text

    def _box(self, index: int) -> Text:
        if self.boxes is None:
            return Text("   ")
        item = self.boxes.items[index]
        if self.boxes.kind == "player" and item.owner is None:
            return Text("   ")  # nobody's box
        shown = item.text if len(item.text) <= 3 else item.text[:1]
        return _item(item, shown.center(3))


def edge_grid(variables: tuple[VariableView, ...]) -> EdgeGrid | None:
    """The first pair of ``bool`` arrays shaped as the lines of a grid of dots, with the boxes' array if any."""
    flags = [v for v in variables if v.kind == "bool" and len(v.shape) == 2]
    for across in flags:
        for down in flags:
            if across.shape[0] == down.shape[0] + 1 and down.shape[1] == across.shape[1] + 1:
                inside = (down.shape[0], across.shape[1])
                boxes = next((v for v in variables if v.shape == inside and v is not across and v is not down), None)
                return EdgeGrid(across, down, boxes)
    return None
