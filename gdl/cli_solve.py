"""``gdl solve``, ``gdl play`` and ``gdl match``: the commands that run the solver suite."""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from typing import Any

from rich.text import Text

from gdl.check import split_moves
from gdl.cli import EXIT_OK, UsageError, game_label, load_game, parse_params, replay
from gdl.console import board_text, format_number, make_console
from solver.game import CHANCE, TERMINAL, AmbiguousMoveError, IllegalMoveError, MoveError, UnknownMoveError

# ================================================================== agents


class RandomAgent:
    """Picks a legal move uniformly at random (seeded)."""

    name = "random"

    def __init__(self, game: Any, seed: int | None = None) -> None:
        self.game = game
        self.rng = random.Random(seed)

    def choose(self, state: Any) -> Any:
        return self.rng.choice(list(self.game.legal_moves(state)))


def make_agent(spec: str, game: Any, seed: int | None) -> Any:
    """An agent from a spec such as ``random``, ``alphabeta:depth=6`` or ``perfect:table=t.sqlite``.

    :raises UsageError: an unknown agent or a bad option.
    """
    name = spec.split(":", 1)[0].strip()
    if name == "random" and ":" not in spec:
        return RandomAgent(game, seed)
    raise UsageError(f"unknown agent {spec!r} (agents: random)")


# ================================================================== moves


def match_move(game: Any, state: Any, text: str) -> Any:
    """The legal move named ``text``, or named by an unambiguous prefix or by its arguments alone.

    ``place(b2)`` may be typed ``place(b2)``, ``b2`` or ``pl`` (if only one move starts so).

    :raises UnknownMoveError: no move of the game has that name.
    :raises IllegalMoveError: the move exists but is not legal here.
    :raises AmbiguousMoveError: several legal moves match.
    """
    wanted = "".join(text.split())
    if not wanted:
        raise UnknownMoveError("type a move, or `moves` to list them")
    legal = list(game.legal_moves(state))
    names = {str(m): m for m in legal}
    if wanted in names:
        return names[wanted]
    by_args = [m for name, m in names.items() if "(" in name and name[name.index("(") + 1 : -1] == wanted]
    if len(by_args) == 1:
        return by_args[0]
    prefixed = [m for name, m in names.items() if name.startswith(wanted)]
    if len(prefixed) == 1:
        return prefixed[0]
    if len(prefixed) > 1:
        shown = ", ".join(str(m) for m in prefixed[:8]) + (", ..." if len(prefixed) > 8 else "")
        raise AmbiguousMoveError(f"{text!r} could be {len(prefixed)} moves: {shown}")
    return game.parse_move(state, text)  # raises the precise error (unknown or illegal)


# ================================================================== play


def add_play_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--vs", action="append", metavar="AGENT",
                   help="the opponent: random, alphabeta:depth=6, mcts:iterations=2000, perfect, "
                        "perfect:table=FILE (default perfect); repeat to give each agent seat its own")
    p.add_argument("--as", dest="human", metavar="PLAYER",
                   help="the player you play (name or number, default the first); `none` to watch agents")
    p.add_argument("--moves", metavar="M1,M2,...", help="start from the position after these moves")
    p.add_argument("--seed", type=int, default=None, help="random seed for chance events and agents")
    p.add_argument("--delay", type=float, default=0.0, metavar="SECONDS", help="pause after each agent move")


def _human_seat(game: Any, text: str | None) -> int | None:
    if text is None:
        return 0
    if text.lower() in ("none", "nobody", "-"):
        return None
    if text in game.players:
        return game.players.index(text)
    lowered = [p.lower() for p in game.players]
    if text.lower() in lowered:
        return lowered.index(text.lower())
    if text.isdigit() and 1 <= int(text) <= len(game.players):
        return int(text) - 1
    raise UsageError(f"--as: {text!r} is not a player of {game.name} (players: {', '.join(game.players)})")


PLAY_HELP = """commands:
  MOVE      play a move by name, an unambiguous prefix, or its arguments alone (b2 for place(b2))
  moves     list the legal moves
  hint      ask the solver for a good move
  undo      take back your last move (and the replies to it)
  board     draw the board again
  quit      leave the game"""


def cmd_play(args: argparse.Namespace) -> int:
    out = make_console()
    game = load_game(args.game, parse_params(args.param))
    state, played = replay(game, args.moves)
    human = _human_seat(game, args.human)
    rng = random.Random(args.seed)
    specs = args.vs or ["perfect"]
    seats = [p for p in range(len(game.players)) if p != human]
    if len(specs) not in (1, len(seats)):
        raise UsageError(f"--vs: give one agent, or one per agent seat ({len(seats)})")
    agents: dict[int, Any] = {}
    for number, seat in enumerate(seats):
        spec = specs[number] if len(specs) > 1 else specs[0]
        agents[seat] = make_agent(spec, game, None if args.seed is None else args.seed + number)
    _setup_completion(game, lambda: state)
    out.print(Text(game_label(game), style="bold") + Text(f"  {getattr(game, 'description', '')}", style="dim"))
    for seat in range(len(game.players)):
        who = "you" if seat == human else getattr(agents[seat], "name", specs[0])
        out.print(f"  {game.players[seat]}: {who}")
    if human is not None:
        out.print("[dim]type a move, `moves`, `hint`, `undo`, `help` or `quit`[/]")
    history: list[tuple[Any, list[str]]] = []  # (state, played) before each human move
    shown = None
    while True:
        if shown is not state:
            out.print()
            out.print(board_text(game, state))
            shown = state
        player = game.to_move(state)
        if player == TERMINAL:
            ending = game.describe_end(state) if hasattr(game, "describe_end") else "game over"
            utilities = ", ".join(f"{p} {format_number(u)}" for p, u in zip(game.players, game.utilities(state),
                                                                             strict=False))
            out.print(Text(f"game over: {ending}", style="bold green") + Text(f"  ({utilities})", style="dim"))
            out.print(f"[dim]moves: {','.join(played)}[/]")
            return EXIT_OK
        if player == CHANCE:
            outcomes = game.chance_outcomes(state)
            outcome, probability = rng.choices(outcomes, [p for _, p in outcomes])[0]
            out.print(Text("chance: ", style="bold magenta") + Text(f"{outcome}", style="bold")
                      + Text(f"  (probability {probability:.4g})", style="dim"))
            state = game.apply(state, outcome)
            played.append(str(outcome))
            continue
        if player != human:
            agent = agents[player]
            move = agent.choose(state)
            out.print(Text(f"{game.players[player]} plays ", style="bold") + Text(str(move), style="bold cyan"))
            state = game.apply(state, move)
            played.append(str(move))
            if args.delay:
                time.sleep(args.delay)
            continue
        try:
            line = input(f"{game.players[player]}> ")
        except EOFError:
            out.print()
            out.print("[dim]bye[/]")
            return EXIT_OK
        command = line.strip()
        if not command:
            continue
        if command in ("quit", "exit", "q"):
            out.print("[dim]bye[/]")
            return EXIT_OK
        if command in ("help", "?"):
            out.print(PLAY_HELP)
            continue
        if command == "board":
            shown = None
            continue
        if command == "moves":
            out.print("legal moves: " + ", ".join(str(m) for m in game.legal_moves(state)))
            continue
        if command == "undo":
            if not history:
                out.print("[yellow]nothing to undo[/]")
                continue
            state, played = history.pop()
            out.print("[dim]took back your last move[/]")
            continue
        if command == "hint":
            _hint(out, game, state)
            continue
        try:
            move = match_move(game, state, command)
        except (UnknownMoveError, IllegalMoveError, AmbiguousMoveError, MoveError) as error:
            out.print(Text("error: ", style="bold red") + Text(str(error)) + Text(" (try again; `moves` lists "
                                                                                 "the legal moves)", style="dim"))
            continue
        history.append((state, list(played)))
        state = game.apply(state, move)
        played.append(str(move))


def _hint(out: Any, game: Any, state: Any) -> None:
    out.print("[yellow]no hint: the solver is not available[/]")


def _setup_completion(game: Any, current: Any) -> None:
    """Tab completion of legal move names at the prompt (where readline exists)."""
    try:
        import readline
    except ImportError:  # pragma: no cover - Windows without pyreadline
        return
    words = ["moves", "hint", "undo", "board", "help", "quit"]

    def complete(text: str, index: int) -> str | None:
        try:
            names = [str(m) for m in game.legal_moves(current())] + words
        except Exception:
            return None
        matches = [n for n in names if n.startswith(text)]
        return matches[index] if index < len(matches) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" \t\n,")
    readline.parse_and_bind("tab: complete")


# ================================================================== solve


def add_solve_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--moves", metavar="M1,M2,...", help="solve the position after these moves")
    p.add_argument("--algorithm", default="auto", help="auto (default: the exact solver that fits the game)")
    p.add_argument("--depth", type=int, metavar="N", help="heuristic search to this depth instead of solving")
    p.add_argument("--time", type=float, metavar="SECONDS", help="heuristic search for this long instead")
    p.add_argument("--save", metavar="FILE.sqlite", help="store the solved table in an SQLite file")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object")


def cmd_solve(args: argparse.Namespace) -> int:
    raise UsageError("gdl solve: the solver suite is not available yet")


# ================================================================== match


def add_match_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("agents", nargs=2, metavar="AGENT", help="two agent specs (random, alphabeta:depth=6, ...)")
    p.add_argument("--games", type=int, default=10, metavar="N", help="games to play (default 10)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def cmd_match(args: argparse.Namespace) -> int:
    raise UsageError("gdl match: the solver suite is not available yet")


__all__: Sequence[str] = ["cmd_match", "cmd_play", "cmd_solve", "match_move", "split_moves"]
