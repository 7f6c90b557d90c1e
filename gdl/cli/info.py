"""``gdl info``: a game described, with statistics of random playouts."""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.table import Table
from rich.text import Text

from gdl.cli.args import add_command, game_options, load_game, parse_params, seconds
from gdl.cli.backend import add_backend_option
from gdl.cli.errors import EXIT_OK, UsageError
from gdl.cli.output import dump_json, game_label, json_value, param_text
from gdl.cli.progress import DelayedProgress
from gdl.cli.rule_errors import rule_errors
from gdl.cli.values import reads_as_probability
from gdl.console import format_number, make_console, plural
from gdl.runtime import CompiledGame
from gdl.steps import STEPS, TIME, StepBudget, stop_reason
from gdl.view import rules_text
from solver.game import CHANCE, TERMINAL, DeadEndError
from solver.limits import SearchStopped

EXAMPLES = """examples:
  gdl info tictactoe
  gdl info connect4 -p cols=5 -p rows=4 --playouts 500"""


def register(sub: Any) -> None:
    p = add_command(sub, "info", "Describe a game: players, parameters, state size, branching factor, length, value.",
                    EXAMPLES)
    game_options(p)
    p.add_argument("--playouts", type=int, default=200, metavar="N", help="random playouts for the statistics")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--steps", type=int, default=INFO_STEPS, metavar="N",
                   help=f"the playouts stop after this many steps (a ply is a step, more for a state of many cells "
                        f"or much rule work; counted, not timed: the same on any machine; default {INFO_STEPS:,}, "
                        "some seconds of CPU; 0 for no limit)")
    p.add_argument("--time", type=seconds, default=0.0, metavar="SECONDS",
                   help="also stop the playouts after this many wall-clock seconds (default 0: no time limit). "
                        "Unlike `gdl check --time`, which counts CPU seconds")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_backend_option(p)
    p.set_defaults(run=cmd_info)


INFO_STEPS = 2_000_000
"""Most steps of ``gdl info``'s playouts (``--steps``; :mod:`gdl.steps`): every bundled game plays its 200 playouts
well within them (the eight puzzle, whose random games rarely end, takes the most)."""


def playout_statistics(game: CompiledGame, playouts: int, seed: int | None, max_plies: int = 10_000,
                       progress: Callable[[int], None] | None = None,
                       deadline: float | None = None, steps: int | None = None) -> dict[str, Any]:
    """Branching factor, game length and results of random playouts: at most ``playouts``, of at most
    ``max_plies`` plies each, stopped once ``steps`` steps are spent (:mod:`gdl.steps`) or at ``deadline``
    (``time.monotonic``); ``stopped_by`` says which (a playout cut short is left out)."""
    rng = random.Random(seed)
    lengths: list[int] = []
    branching: list[int] = []
    chance_nodes = 0
    endings: dict[str, int] = {}
    unfinished = 0
    budget = StepBudget(steps)
    stopped_by: str | None = None
    with budget.rules():  # one rule evaluation that outlasts the steps is stopped too
        for number in range(playouts):
            try:
                played = _playout(game, rng, max_plies, budget, deadline)
            except _Cut as cut:
                stopped_by = cut.reason
                break
            if played.ending is None:
                unfinished += 1
            else:
                endings[played.ending] = endings.get(played.ending, 0) + 1
                lengths.append(played.plies)
            branching.extend(played.branching)
            chance_nodes += played.chance_nodes
            if progress is not None:
                progress(number + 1)
    return {
        "playouts": len(lengths) + unfinished,
        "finished": len(lengths),
        "mean_length": statistics.fmean(lengths) if lengths else None,
        "min_length": min(lengths) if lengths else None,
        "max_length": max(lengths) if lengths else None,
        "mean_branching": statistics.fmean(branching) if branching else None,
        "max_branching": max(branching) if branching else None,
        "chance_nodes_per_game": chance_nodes / max(1, len(lengths) + unfinished),
        "endings": dict(sorted(endings.items(), key=lambda item: -item[1])),
        "stopped_by": stopped_by,
    }


class _Cut(Exception):
    """A budget of the playouts ran out (``reason``: ``"steps"`` or ``"time"``) during one: it is left out."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class _Played:
    """One random game: its plies, how it ended (None: cut at ``max_plies``), its branching and chance nodes."""

    plies: int = 0
    ending: str | None = None
    branching: list[int] = field(default_factory=list)
    chance_nodes: int = 0


def _playout(game: CompiledGame, rng: random.Random, max_plies: int, budget: StepBudget,
             deadline: float | None) -> _Played:
    """One random game from the initial state, within the budgets (:class:`_Cut` when one runs out).

    :raises DeadEndError: a dead end, a bug in the rules, with the line that reached it.
    """
    played = _Played()
    line: list[Any] = []  # this playout's moves: the line to a dead end
    state = game.initial_state()
    try:
        while True:
            if not played.plies & 255:  # (at the start, then every 256 plies of a long playout)
                reason = _stopped(budget, deadline)
                if reason is not None:
                    raise _Cut(reason)
            player = game.to_move(state)
            if player == TERMINAL:
                played.ending = game.describe_end(state)
                return played
            if played.plies >= max_plies:
                return played
            if player == CHANCE:
                played.chance_nodes += 1
                outcomes = game.chance_outcomes(state)
                moves = [o for o, _ in outcomes]
                move = rng.choices(moves, [p for _, p in outcomes])[0] if moves else None
            else:
                moves = game.legal_moves(state)
                played.branching.append(len(moves))
                move = rng.choice(moves) if moves else None
            if move is None:
                raise DeadEndError(state, player, game.players[player] if player >= 0 else "", line)
            line.append(move)
            state = game.apply(state, move)
            budget.add(state)
            played.plies += 1
    except SearchStopped as stop:  # a single rule evaluation outlasted the budget
        raise _Cut(stop_reason(stop)) from None


def _stopped(budget: StepBudget, deadline: float | None) -> str | None:
    """``"steps"`` or ``"time"`` once that budget of the playouts is spent, else None."""
    if deadline is not None and time.monotonic() > deadline:
        return TIME
    return budget.reason()


def state_space(game: CompiledGame) -> dict[str, Any]:
    """Slots in the state tuple and an upper bound on distinct encodings (from the variables' domains)."""
    slots = len(game.initial_state())
    log10 = 0.0
    variables = []
    for var in game.state_variables():
        domain = max(1, var.high - var.low + 1)
        log10 += var.size * math.log10(domain)
        shape = "x".join(str(size) for size in var.shape)
        variables.append(f"{var.name}[{shape}]" if shape else var.name)
    return {"slots": slots, "variables": variables, "log10_encodings": log10}


def cmd_info(args: argparse.Namespace) -> int:
    out = make_console()
    err = make_console(stderr=True)
    game = load_game(args.game, parse_params(args.param), backend=args.backend)
    if args.playouts < 0 or args.steps < 0:
        raise UsageError("--playouts and --steps must be >= 0")
    with rule_errors(game), DelayedProgress(err, "random playouts", args.playouts, enabled=not args.json) as progress:
        stats = playout_statistics(game, args.playouts, args.seed, progress=progress.update,
                                   deadline=time.monotonic() + args.time if args.time else None,
                                   steps=args.steps or None)
    space = state_space(game)
    meta = dict(game.meta)

    info: dict[str, Any] = {
        "game": game.name,
        "file": game.filename,
        "description": game.description,
        "rules": rules_text(game.source),
        "players": list(game.players),
        "parameters": {k: json_value(v) for k, v in game.parameters.items()},
        "moves": list(game.actions),
        "state": space,
        "chance": game.has_chance,
        "zero_sum": game.zero_sum,
        "simultaneous": bool(game.simultaneous),
        "symmetries": 1 + len(game.symmetries),
        "utility_bounds": json_value(list(game.utility_bounds)) if game.utility_bounds else None,
        "heuristic": game.has_heuristic,
        "values_as_probabilities": reads_as_probability(game),
        "known_value": meta.get("value"),
        "meta": meta,
        "random_playouts": stats,
    }
    if args.json:
        print(dump_json(info, indent=2))
        return EXIT_OK
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    table.add_row("game", Text(game_label(game), style="bold") + Text(f"  {info['description']}"))
    table.add_row("file", Text(str(info["file"])))  # user text is Text: never parsed as markup
    table.add_row("players", Text(", ".join(game.players)))
    if info["rules"]:  # the rules proper; source, known values and parameters follow in `rules` (gdl play)
        more = len(info["rules"]) - 1
        table.add_row("rules", Text(info["rules"][0]) + Text(f" (+{plural(more, 'paragraph')}: `rules` in gdl "
                                                            "play)" if more else "", style="dim"))
    else:
        table.add_row("rules", Text("not written (the comment at the top of the rule file)", style="dim"))
    params = " ".join(f"{k}={param_text(v)}" for k, v in game.parameters.items())
    table.add_row("parameters", Text(params or "none"))
    if info["moves"]:
        table.add_row("moves", Text(", ".join(info["moves"])))
    state_desc = f"{space['slots']} slots"
    if "variables" in space:
        state_desc += f" ({', '.join(space['variables'])})"
        state_desc += f"; at most {_big(space['log10_encodings'])} encodings"
    table.add_row("state", Text(state_desc))
    if info["symmetries"] > 1:
        table.add_row("symmetry", f"{info['symmetries']} images of each position share one key "
                                  f"({', '.join(game.declared_symmetries)})")
    table.add_row("chance", "yes" if game.has_chance else "no")
    if game.simultaneous:
        table.add_row("moves", "simultaneous: every player chooses at once (branching counts joint moves)")
    table.add_row("zero-sum", "yes" if game.zero_sum else "no")
    if game.utility_bounds:
        table.add_row("utilities", f"{format_number(game.utility_bounds[0])}..{format_number(game.utility_bounds[1])}")
    table.add_row("heuristic", "yes" if info["heuristic"] else "no")
    if info["values_as_probabilities"]:
        table.add_row("values", "win or loss only: solve and hint show win probabilities p (a value is 2p - 1)")
    table.add_row("known value", Text(meta["value"]) if meta.get("value")
                  else Text("not declared (meta value = ...)", style="dim"))
    for key, value in meta.items():
        if key != "value":
            table.add_row(Text(key), Text(value))
    if stats["playouts"] or stats["stopped_by"]:
        ended = {STEPS: f"; --steps {args.steps:,} ended them", TIME: f"; --time {args.time:g} ended them"}
        table.add_row("playouts", f"{stats['playouts']} random games (seed {args.seed}"
                                  f"{ended.get(stats['stopped_by'] or '', '')})")
        if stats["mean_branching"] is not None:
            table.add_row("branching", f"{stats['mean_branching']:.2f} moves on average (at most "
                          f"{stats['max_branching']})")
        if stats["mean_length"] is not None:
            table.add_row("length", f"{stats['mean_length']:.1f} plies on average "
                          f"({stats['min_length']}..{stats['max_length']})")
        if game.has_chance:
            table.add_row("chance nodes", f"{stats['chance_nodes_per_game']:.1f} per game")
        total = sum(stats["endings"].values())
        if total:
            table.add_row("random play", ", ".join(f"{ending} {100 * count / total:.0f}%"
                                                    for ending, count in stats["endings"].items()))
        if stats["finished"] < stats["playouts"]:
            table.add_row("unfinished", Text(f"{stats['playouts'] - stats['finished']} playouts did not end",
                                             style="yellow"))
    out.print(table)
    return EXIT_OK


def _big(log10: float) -> str:
    if log10 < 15:
        return f"{round(10 ** log10):,}"
    return f"10^{log10:.1f}"
