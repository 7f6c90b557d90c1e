"""Boards on the terminal, coloured from the game's structure (:mod:`gdl.view`), not from the drawn text.

A mark is in its player's colour because the state says whose piece it is (a ``player`` value),
whatever symbol the rule file draws it with; the labels are dim and the status line is bold, with the
player to move in their colour. Without colour (a pipe, ``NO_COLOR``) the text is the game's own
:meth:`~gdl.runtime.CompiledGame.render`.
"""

from __future__ import annotations

from rich.text import Text

from gdl.runtime import CompiledGame
from gdl.view import Item, StateView, board_lines, variable_text

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
    for variable in view.variables:
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
