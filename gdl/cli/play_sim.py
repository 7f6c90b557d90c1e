"""``gdl play`` at a simultaneous move: every seat chooses without seeing the others' choices, then all are shown.

Agents choose first and their choices stay hidden until every human's is in. With several humans at one
terminal (``--as all``), each types a move that is not echoed (``getpass``), so the next one cannot read it.
"""

from __future__ import annotations

import getpass
from collections.abc import Callable
from typing import Any

from rich.text import Text

from gdl.runtime import CompiledGame
from solver.game import AmbiguousMoveError, IllegalMoveError, Move, MoveError, UnknownMoveError

EVERY_SEAT = -4
"""``--as all``: every seat is a human at this terminal (a simultaneous-move game only)."""

ROUND_HELP = """at a simultaneous move every player chooses at once:
  MOVE      your move by name (any case); no one sees it until every choice is in
  moves     list your legal moves
  quit      leave the game"""


def humans_of(game: CompiledGame, human: int | None) -> list[int]:
    """The seats a person plays, in seat order."""
    if human == EVERY_SEAT:
        return list(range(len(game.players)))
    return [] if human is None else [human]


def play_round(out: Any, game: CompiledGame, state: Any, human: int | None, agents: dict[int, Any],
               read: Callable[[str], str] = input, read_hidden: Callable[[str], str] = getpass.getpass) -> Move | None:
    """One simultaneous round: the joint move (a move named ``a|b`` that ``game.apply`` plays), or None when
    a person quits (or input ends)."""
    chosen: dict[int, Move] = {}
    for seat, agent in sorted(agents.items()):
        chosen[seat] = agent.choose_for(state, seat)
    waiting = [game.players[s] for s in sorted(agents)]
    if waiting:
        out.print(Text(f"{', '.join(waiting)} {'has' if len(waiting) == 1 else 'have'} chosen "
                       "(hidden until every choice is in)", style="dim"))
    people = humans_of(game, human)
    hide = len(people) > 1  # another person at this terminal chooses after: do not echo
    for seat in people:
        move = _ask(out, game, state, seat, read_hidden if hide else read)
        if move is None:
            return None
        chosen[seat] = move
        if hide:
            out.print(Text(f"{game.players[seat]} has chosen (hidden)", style="dim"))
    joint = [chosen[p] for p in range(len(game.players))]
    out.print(Text("revealed: ", style="bold") + Text(", ".join(f"{game.players[p]} {m}"
                                                                for p, m in enumerate(joint)), style="bold cyan"))
    return game.parse_move(state, "|".join(map(str, joint)))


def read_command(out: Any, read: Callable[[str], str], prompt: str) -> str | None:
    """A person's next line, stripped; None when they leave (end of input, or quit/exit/q), said with a bye."""
    try:
        command = read(prompt).strip()
    except EOFError:
        out.print()
        command = "quit"
    if command in ("quit", "exit", "q"):
        out.print("[dim]bye[/]")
        return None
    return command


def _ask(out: Any, game: CompiledGame, state: Any, seat: int, read: Callable[[str], str]) -> Move | None:
    while True:
        command = read_command(out, read, f"{game.players[seat]} (hidden)> " if read is not input
                               else f"{game.players[seat]}> ")
        if command is None:
            return None
        if not command:
            continue
        if command in ("help", "?"):
            out.print(ROUND_HELP)
            continue
        if command == "moves":
            out.print(Text("legal moves: " + ", ".join(map(str, game.legal_moves(state, seat)))))
            continue
        try:
            return game.parse_move(state, command, seat)  # type: ignore[call-arg]
        except (UnknownMoveError, IllegalMoveError, AmbiguousMoveError, MoveError) as error:
            out.print(Text("error: ", style="bold red") + Text(str(error)) + Text(" (try again; `moves` lists "
                                                                                 "the legal moves)", style="dim"))
