"""Boards on the terminal, coloured from the game's structure (:mod:`gdl.view`), not from the drawn text.

A mark is in its player's colour because the state says whose piece it is (a ``player`` value),
whatever symbol the rule file draws it with; the labels are dim and the status line is bold, with the
player to move in their colour. Without colour (a pipe, ``NO_COLOR``) the text is the game's own
:meth:`~gdl.runtime.CompiledGame.render`, but for state that is no single cell array:

- **edges between dots**: two two-dimensional ``bool`` arrays shaped ``(R+1) x C`` (the lines across) and
  ``R x (C+1)`` (the lines down) are drawn as the lines of an ``R x C`` grid of dots, the first index
  from the top, with an ``R x C`` array (the boxes' owners, say) written inside the boxes.
- **pits and stores**: ``meta layout = "mancala VAR"`` declares the one-dimensional array ``VAR`` of a
  two-player game as a mancala board of ``2k + 2`` places: the first player's ``k`` pits and store, then
  the second player's. It is drawn as two rows of pits, the second player's right to left on top, each
  store at its owner's end, each row's pits numbered from its owner's first pit.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    return view_rich_text(game.view(state), game.meta.get("layout"))


def view_rich_text(view: StateView, layout: str | None = None) -> Text:
    """:func:`gdl.view.view_text` with styles: marks by owner, labels dim, the status bold; ``layout`` is the
    rule file's ``meta layout`` (``mancala VAR``)."""
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
    pits = mancala_board(view, layout)
    if pits is not None:
        text.append_text(pits_text(pits, view.players))
    for variable in view.variables:
        if (grid is not None and variable in grid.drawn) or variable is pits:
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


# ------------------------------------------------------------------ pits and stores


def mancala_board(view: StateView, layout: str | None) -> VariableView | None:
    """The array ``meta layout = "mancala VAR"`` names, if it fits: one dimension of ``2k + 2`` places, two players."""
    kind, _, name = (layout or "").partition(" ")
    if kind != "mancala" or len(view.players) != 2:
        return None
    board = next((v for v in view.variables if v.name == name.strip()), None)
    if board is None or len(board.shape) != 1 or board.shape[0] < 4 or board.shape[0] % 2:
        return None
    return board


def pits_text(board: VariableView, players: tuple[str, ...]) -> Text:
    """Two rows of pits with a store at each end: the second player's on top, right to left (sowing runs
    counter-clockwise), the first player's below; each pit numbered from its owner's first pit."""
    pits = board.shape[0] // 2 - 1
    items = board.items
    first, second = items[:pits], items[pits + 1 : 2 * pits + 1]
    width = max(len(item.text) for item in items)
    width = max(width, len(str(pits - 1)))
    names = max(len(p) for p in players)
    margin = " " * (names + 1)
    store = " " * (width + 2)  # the room a store takes: "[n]"

    def row(cells: Sequence[Item], player: int) -> Text:
        out = Text()
        for number, item in enumerate(cells):
            if number:
                out.append(" ")
            out.append(item.text.rjust(width), style=player_style(player).replace("bold ", ""))
        return out

    def labels(numbers: Sequence[int]) -> Text:
        return Text(margin + store + " " + " ".join(str(n).rjust(width) for n in numbers), style="dim")

    def stored(item: Item, player: int) -> Text:
        return Text("[") + Text(item.text.rjust(width), style=player_style(player)) + Text("]")

    text = labels(range(pits - 1, -1, -1)) + Text("\n")
    text.append(players[1].ljust(names), style=player_style(1))
    text.append(" ")
    text.append_text(stored(items[2 * pits + 1], 1) + Text(" ") + row(list(reversed(second)), 1) + Text("\n"))
    text.append(margin + store + " ")
    text.append_text(row(first, 0) + Text(" ") + stored(items[pits], 0) + Text(" "))
    text.append(players[0], style=player_style(0))
    text.append("\n")
    text.append_text(labels(range(pits)) + Text("\n"))
    return text
