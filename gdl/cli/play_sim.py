"""``gdl play`` at a simultaneous move: every seat chooses without seeing the others' choices, then all are shown.

Agents choose first and their choices stay hidden until every human's is in. With several humans at one
terminal (``--as all``), each types a move that is not echoed (``getpass``), so the next one cannot read it.
A person types what the turn-based prompt takes (:mod:`gdl.cli.play`): a move by name, prefix or arguments alone
(:func:`gdl.moves.match_move` for the person's own seat), ``moves``, ``hint`` (the equilibrium strategy of the
position, from :mod:`solver.simultaneous`), ``undo`` (back a round), ``board``, ``rules``, ``help`` and ``quit``.
Here too are the helpers both prompts share: :func:`read_command`, :func:`print_rules`, :func:`take_back`.
"""

from __future__ import annotations

import enum
import getpass
from collections.abc import Callable, Sequence
from typing import Any

from rich.text import Text

from gdl.cli.render import board_text
from gdl.cli.rule_errors import rule_errors
from gdl.console import format_number
from gdl.moves import match_move
from gdl.runtime import CompiledGame
from gdl.view import rules_text
from solver.game import Move, MoveError
from solver.limits import Limits
from solver.simultaneous import solve_simultaneous

EVERY_SEAT = -4
"""``--as all``: every seat is a human at this terminal (a simultaneous-move game only)."""

HINT_STATES = 5_000
"""``hint`` at a simultaneous move solves the position if it has at most this many states to the end."""

ROUND_HELP = """at a simultaneous move every player chooses at once:
  MOVE      your move by name (any case), an unambiguous prefix, or its arguments alone (rock for
            play(rock)); no one sees it until every choice is in
  moves     list your legal moves
  hint      your optimal mixed strategy here and its value (play each move with its probability)
  undo      take back the last round (every player chooses again)
  board     draw the board again
  rules     the rules, as the rule file tells them
  quit      leave the game"""


class RoundCommand(enum.Enum):
    """What a person asked for at a simultaneous move, instead of a move, that the play loop carries out."""

    UNDO = "undo"
    """Take back the last round."""


def humans_of(game: CompiledGame, human: int | None) -> list[int]:
    """The seats a person plays, in seat order."""
    if human == EVERY_SEAT:
        return list(range(len(game.players)))
    return [] if human is None else [human]


def play_round(out: Any, game: CompiledGame, state: Any, human: int | None, agents: dict[int, Any],
               played: Sequence[str] = (), can_undo: bool = False, read: Callable[[str], str] | None = None,
               read_hidden: Callable[[str], str] = getpass.getpass) -> Move | RoundCommand | None:
    """One simultaneous round: the joint move (a move named ``a|b`` that ``game.apply`` plays),
    :data:`RoundCommand.UNDO` when a person takes back the last round (``can_undo``: there is one), or None when
    a person quits (or input ends). ``played`` are the moves that reached ``state`` (for a rule error met in a
    search from here). ``read`` defaults to ``input`` (looked up when called, as the turn-based prompt does)."""
    chosen: dict[int, Move] = {}
    with rule_errors(game, state, list(played)):  # a rule error below: the shortest line to it
        for seat, agent in sorted(agents.items()):
            chosen[seat] = agent.choose_for(state, seat)
    waiting = [game.players[s] for s in sorted(agents)]
    if waiting:
        out.print(Text(f"{', '.join(waiting)} {'has' if len(waiting) == 1 else 'have'} chosen "
                       "(hidden until every choice is in)", style="dim"))
    people = humans_of(game, human)
    hide = len(people) > 1  # another person at this terminal chooses after: do not echo
    for seat in people:
        move = _ask(out, game, state, seat, played, can_undo, read_hidden if hide else read or input, hide)
        if move is None or isinstance(move, RoundCommand):
            return move
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


def print_rules(out: Any, game: CompiledGame) -> None:
    """The rules in prose (the comment at the top of the rule file), one paragraph after another."""
    paragraphs = rules_text(game.source)
    if not paragraphs:
        out.print(Text("no rules written: the rule file has no comment at its top", style="yellow"))
    for paragraph in paragraphs:
        out.print(Text(paragraph))


def take_back(out: Any, history: list[tuple[Any, list[str]]], played: list[str], what: str) -> Any | None:
    """``undo``: the state before the person's last ``what`` (``move``, ``round``), with ``played`` cut back to
    it in place (the play loop's error guard reads that list); None, said, when there is nothing to undo."""
    if not history:
        out.print("[yellow]nothing to undo[/]")
        return None
    state, before = history.pop()
    played[:] = before
    out.print(f"[dim]took back your last {what}[/]")
    return state


def _ask(out: Any, game: CompiledGame, state: Any, seat: int, played: Sequence[str], can_undo: bool,
         read: Callable[[str], str], hidden: bool) -> Move | RoundCommand | None:
    while True:
        command = read_command(out, read, f"{game.players[seat]} (hidden)> " if hidden else f"{game.players[seat]}> ")
        if command is None:
            return None
        if not command:
            continue
        if command in ("help", "?"):
            out.print(ROUND_HELP)
        elif command == "moves":
            out.print(Text("legal moves: " + ", ".join(map(str, game.legal_moves(state, seat)))))
        elif command == "board":
            out.print(board_text(game, state))
        elif command == "rules":
            print_rules(out, game)
        elif command == "undo":
            if can_undo:
                return RoundCommand.UNDO
            out.print("[yellow]nothing to undo[/]")  # (and the round goes on: no one chooses again)
        elif command == "hint":
            with rule_errors(game, state, list(played)):
                _hint(out, game, state, seat)
        else:
            try:
                return match_move(game, state, command, seat)  # as the turn-based prompt reads it: `rock`, `b2`
            except MoveError as error:
                out.print(Text("error: ", style="bold red") + Text(str(error))
                          + Text(" (try again; `moves` lists the legal moves)", style="dim"))


def _hint(out: Any, game: CompiledGame, state: Any, seat: int) -> None:
    """The seat's equilibrium strategy at ``state`` and its value, when the position solves within
    :data:`HINT_STATES` states (a count, not seconds: the same position always gets the same answer)."""
    result = solve_simultaneous(game, state, Limits(nodes=HINT_STATES))
    if result.stopped:
        out.print(Text(f"no hint: the position has more than {HINT_STATES:,} states to the end", style="yellow"))
        return
    player = game.players[seat]
    mix = [(move, p) for move, p in result.strategies[seat].items() if p > 0]
    shown = ", ".join(f"{move} {format_number(p)}" for move, p in mix)
    how = "the solver proves" if result.note is None else "one equilibrium of possibly several"  # (general sum)
    advice = "play it" if len(mix) == 1 else "pick one at random with these probabilities"
    out.print(Text("hint: ", style="bold green") + Text(shown, style="bold")
              + Text(f"  ({advice}; {how}: value {format_number(result.value[seat])} for {player})", style="dim"))
