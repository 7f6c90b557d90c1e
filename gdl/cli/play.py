"""``gdl play``: a game in the terminal against agents, or agents watched playing each other."""

from __future__ import annotations

import argparse
import functools
import random
import time
from collections.abc import Sequence
from typing import Any

from rich.text import Text

import gdl.cli.engine as engine
from gdl.cli.agents import AGENT_HELP, choose_or_stop, make_agent
from gdl.cli.args import MAX_DELAY, add_command, delay_seconds, game_options, load_game, parse_params, replay
from gdl.cli.backend import add_backend_option
from gdl.cli.errors import EXIT_OK, UsageError
from gdl.cli.output import game_label
from gdl.cli.play_sim import EVERY_SEAT, RoundCommand, humans_of, play_round, print_rules, read_command, take_back
from gdl.cli.progress import SearchDisplay
from gdl.cli.record import recorded
from gdl.cli.render import board_text
from gdl.cli.rule_errors import rule_errors
from gdl.cli.values import reads_as_probability, value_kind, win_probability
from gdl.console import format_number, make_console
from gdl.moves import match_move
from gdl.runtime import CompiledGame
from solver.game import (
    CHANCE,
    SIMULTANEOUS,
    TERMINAL,
    AmbiguousMoveError,
    IllegalMoveError,
    MoveError,
    UnknownMoveError,
    dead_end,
)
from solver.limits import Limits
from solver.solution import Solution as ExactSolution

EXAMPLES = """examples:
  gdl play tictactoe                      # you play X against the perfect player
  gdl play connect4 --vs alphabeta:depth=6 --as Yellow
  gdl play pig --vs mcts:iterations=2000
  gdl play tictactoe --as none --vs random --vs perfect   # watch two agents"""


def register(sub: Any) -> None:
    p = add_command(sub, "play", "Play a game in the terminal against an agent, or watch agents play each other.",
                    EXAMPLES)
    game_options(p)
    add_play_options(p)
    add_backend_option(p)
    p.set_defaults(run=cmd_play)


class ChanceTape:
    """The chance outcomes of one game, from its seed: ply ``n`` always gets the ``n``-th draw.

    So a move taken back with ``undo`` and played again meets the same outcome (a player cannot undo until
    the dice please them), and the same seed plays the same outcomes for the same moves.
    """

    def __init__(self, seed: int | None) -> None:
        self.seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
        self.rng = random.Random(self.seed)
        self.draws: list[float] = []

    def outcome(self, ply: int, outcomes: Sequence[tuple[Any, float]]) -> tuple[Any, float]:
        """The outcome (and its probability) of the chance node at ``ply``."""
        while len(self.draws) <= ply:
            self.draws.append(self.rng.random())
        draw, total = self.draws[ply], 0.0
        for outcome, probability in outcomes:
            total += probability
            if draw < total:
                return outcome, probability
        return outcomes[-1]  # the probabilities' rounding left the draw just above their sum


def add_play_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--vs", action="append", metavar="AGENT",
                   help="the opponent (default perfect); repeat to give each agent seat its own. " + AGENT_HELP)
    p.add_argument("--as", dest="human", metavar="PLAYER",
                   help="the player you play (name or number, default the first); `none` to watch agents")
    p.add_argument("--moves", metavar="M1,M2,...", help="start from the position after these moves")
    p.add_argument("--seed", type=int, default=None, help="random seed for chance events and agents")
    p.add_argument("--delay", type=delay_seconds, default=0.0, metavar="SECONDS",
                   help=f"pause after each agent move (at most {MAX_DELAY:g})")
    p.add_argument("--max-plies", type=int, default=DEFAULT_PLAY_PLIES, metavar="N",
                   help=f"stop a game that has not ended after this many plies (default {DEFAULT_PLAY_PLIES:,})")
    p.add_argument("--record", metavar="FILE.json", help="write the game (moves, chance outcomes, result) to this "
                   "record file when it ends, also on quit or Ctrl-C (docs/records.md; `gdl replay FILE`)")


DEFAULT_PLAY_PLIES = 100_000
"""``gdl play`` stops a game after this many plies (long games, such as a 12,000-ply walk, still end)."""


def _human_seat(game: CompiledGame, text: str | None) -> int | None:
    if text is None:
        return 0
    if text.lower() in ("none", "nobody", "-"):
        return None
    if text.lower() == "all" and game.simultaneous:  # several people at one terminal, choices hidden
        return EVERY_SEAT
    if text in game.players:
        return game.players.index(text)
    lowered = [p.lower() for p in game.players]
    if text.lower() in lowered:
        return lowered.index(text.lower())
    if text.isdigit() and 1 <= int(text) <= len(game.players):
        return int(text) - 1
    raise UsageError(f"--as: {text!r} is not a player of {game.name} (players: {', '.join(game.players)})")


PLAY_HELP = """commands:
  MOVE      play a move by name (any case), an unambiguous prefix, or its arguments alone (b2 for
            place(b2), d for drop(d)); --moves reads moves the same way
  moves     list the legal moves
  hint      ask the solver for a good move
  undo      take back your last move (and the replies to it); played again, it meets the same
            chance outcome
  board     draw the board again
  rules     the rules, as the rule file tells them
  quit      leave the game"""


def cmd_play(args: argparse.Namespace) -> int:
    return recorded(args, _play)  # with --record, the game is written however it ends


def _play(args: argparse.Namespace, watch: Any = None) -> int:
    out = make_console()
    game = load_game(args.game, parse_params(args.param), backend=args.backend)
    state, played = replay(game, args.moves)
    human = _human_seat(game, args.human)
    dice = ChanceTape(args.seed)
    specs = args.vs or ["perfect"]
    seats = [p for p in range(len(game.players)) if p not in humans_of(game, human)]
    if len(specs) not in (1, len(seats)):
        raise UsageError(f"--vs: give one agent, or one per agent seat ({len(seats)})")
    agents: dict[int, Any] = {}
    for number, seat in enumerate(seats):
        spec = specs[number] if len(specs) > 1 else specs[0]
        agents[seat] = make_agent(spec, game, None if args.seed is None else args.seed + number)
    if watch is not None:  # the recorder reads `played` when the game ends (undo rebinds it)
        watch(game, lambda: played, {p: agents[p].name if p in agents else "you" for p in range(len(game.players))})
    out.print(Text(game_label(game), style="bold") + Text(f"  {game.description}", style="dim"))
    for seat in range(len(game.players)):
        who = getattr(agents[seat], "name", specs[0]) if seat in agents else "you"
        out.print(Text(f"  {game.players[seat]}: {who}"))  # an agent spec is user text, not markup
    if game.has_chance:
        out.print(f"[dim]  chance outcomes from seed {dice.seed} (--seed {dice.seed} gives the same ones)[/]")
    if human is not None:
        out.print("[dim]type a move, `moves`, `hint`, `undo`, `rules`, `help` or `quit`[/]")
    history: list[tuple[Any, list[str]]] = []  # (state, played) before each human move
    with rule_errors(game, line=lambda: played):  # a rule that fails as the game goes on: the moves so far
        return _play_loop(out, game, state, played, human, agents, specs, dice, history, args)


def _play_loop(out: Any, game: CompiledGame, state: Any, played: list[str], human: int | None, agents: dict[int, Any],
               specs: list[str], dice: ChanceTape, history: list[tuple[Any, list[str]]],
               args: argparse.Namespace) -> int:
    _setup_completion(game, lambda: state)
    shown = None
    if args.max_plies < 1:
        raise UsageError("--max-plies must be at least 1")
    plies = 0
    while True:
        if plies >= args.max_plies and game.to_move(state) != TERMINAL:
            out.print(Text(f"stopped: the game has not ended after {plies:,} {'ply' if plies == 1 else 'plies'} "
                           f"(--max-plies {args.max_plies})",
                           style="bold yellow"))
            return EXIT_OK
        player = game.to_move(state)
        if shown is not state and player != CHANCE:  # a chance state is one line: its outcome, below
            out.print()
            out.print(board_text(game, state))
            shown = state
        if player == TERMINAL:
            utilities = ", ".join(f"{p} {format_number(u)}" for p, u in zip(game.players, game.utilities(state),
                                                                             strict=False))
            out.print(Text(f"utilities: {utilities}", style="dim"))
            out.print(Text(f"moves: {','.join(played)}", style="dim"))
            return EXIT_OK
        if player in (CHANCE, human):  # an agent's move checks this within its time (choose_or_stop)
            _check_not_stuck(game, state, player, played)
        if player == CHANCE:
            outcome, probability = dice.outcome(len(played), game.chance_outcomes(state))
            out.print(Text("chance: ", style="bold magenta") + Text(f"{outcome}", style="bold")
                      + Text(f"  (probability {probability:.4g})", style="dim"))
            played.append(str(outcome))
            state = game.apply(state, outcome)
            plies += 1
            continue
        if player == SIMULTANEOUS:  # every seat chooses at once, unseen (gdl/cli/play_sim.py)
            joint = play_round(out, game, state, human, agents, played, bool(history))
            if joint is None:
                return EXIT_OK
            if joint is RoundCommand.UNDO:
                restored = take_back(out, history, played, "round")
                state = state if restored is None else restored
                continue
            if human is not None:
                history.append((state, list(played)))
            played.append(str(joint))
            state = game.apply(state, joint)
            plies += 1
            continue
        if player != human:
            agent = agents[player]
            # A rule error met in the agent's search is somewhere below this state: searched for from the start.
            with rule_errors(game, state, list(played)), \
                    SearchDisplay(out, f"{game.players[player]} is thinking") as display:
                if hasattr(agent, "progress"):
                    agent.progress = display.update
                move = choose_or_stop(agent, state,  # the line so far is added by rule_errors
                                      functools.partial(_check_not_stuck, game, state, player, []))
            out.print(Text(f"{game.players[player]} plays ", style="bold") + Text(str(move), style="bold cyan"))
            last = getattr(agent, "last", None)
            if last is not None and last.stopped and last.note:
                out.print(Text(last.note, style="dim yellow"))
            played.append(str(move))
            state = game.apply(state, move)
            plies += 1
            if args.delay:
                time.sleep(args.delay)
            continue
        command = read_command(out, input, f"{game.players[player]}> ")
        if command is None:
            return EXIT_OK
        if not command:
            continue
        if command in ("help", "?"):
            out.print(PLAY_HELP)
            continue
        if command == "board":
            shown = None
            continue
        if command == "rules":
            print_rules(out, game)
            continue
        if command == "moves":
            out.print(Text("legal moves: " + ", ".join(str(m) for m in game.legal_moves(state))))
            continue
        if command == "undo":
            restored = take_back(out, history, played, "move")
            state = state if restored is None else restored
            continue
        if command == "hint":
            with rule_errors(game, state, list(played)):
                _hint(out, game, state)
            continue
        try:
            move = match_move(game, state, command)
        except (UnknownMoveError, IllegalMoveError, AmbiguousMoveError, MoveError) as error:
            out.print(Text("error: ", style="bold red") + Text(str(error)) + Text(" (try again; `moves` lists "
                                                                                 "the legal moves)", style="dim"))
            continue
        history.append((state, list(played)))
        played.append(str(move))  # before applying it: a rule failing in the move is reached by it
        state = game.apply(state, move)
        plies += 1


def _check_not_stuck(game: CompiledGame, state: Any, player: int, played: list[str]) -> None:
    """:raises DeadEndError: a decision state without a legal move (or a chance state without an outcome)."""
    stuck = not game.chance_outcomes(state) if player == CHANCE else not game.legal_moves(state)
    if stuck:
        error = dead_end(game, state, player)
        for name in reversed(played):
            error.prepend(name)
        raise error


def _hint(out: Any, game: CompiledGame, state: Any) -> None:
    """The solver's move for the human: exact if it finishes in a few seconds, else the best found."""
    try:
        with SearchDisplay(out, "thinking") as display:
            result = engine.search(game, state, "auto", Limits(seconds=3.0), display.update)
    except engine.EngineError as error:
        out.print(Text(f"no hint: {error}", style="yellow"))
        return
    if not result.best_moves:
        out.print("[yellow]no hint available[/]")
        return
    player = game.to_move(state)
    kind = value_kind(game, result)
    # The optimal move that also brings the end nearest (the exact solver finds it).
    fastest = result.fastest_moves if isinstance(result, ExactSolution) else ()
    if kind is None or kind == "bounds":
        about = "the solver's guess; value unknown"
    elif kind == "proven" and reads_as_probability(game):
        about = (f"the solver proves: {game.players[player]} wins with probability "
                 f"{format_number(win_probability(result.value[player]))}")
    else:
        how = "the solver proves" if kind == "proven" else "the solver's best guess"
        about = f"{how}: value {format_number(result.value[player])} for {game.players[player]}"
    out.print(Text("hint: ", style="bold green") + Text(str((fastest or result.best_moves)[0]), style="bold")
              + Text(f"  ({about})", style="dim"))


def _setup_completion(game: CompiledGame, current: Any) -> None:
    """Tab completion of legal move names at the prompt (where readline exists)."""
    try:
        import readline
    except ImportError:  # pragma: no cover - Windows without pyreadline
        return
    words = ["moves", "hint", "undo", "board", "rules", "help", "quit"]

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
