"""``gdl solve`` for a simultaneous-move game: backward induction with an LP at each simultaneous node
(:mod:`solver.simultaneous`; von Neumann's minimax theorem, 1928, solved as a linear program after Dantzig).

Prints the value and each player's mixed strategy at the root ("Row: play(rock) 0.333, ..."); at a one-shot
matrix node of a two-player zero-sum game also each pure strategy's guaranteed value, which shows what mixing
gains. ``--depth D`` cuts the search at D rounds and values the horizon with the game's heuristic.
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Hashable, Mapping
from typing import Any

from rich.text import Text

from gdl.cli.errors import EXIT_INTERRUPTED, EXIT_OK, Problem, UsageError
from gdl.cli.output import dump_json, game_label, json_value
from gdl.cli.rule_errors import rule_errors
from gdl.cli.values import value_dict
from gdl.console import format_number
from gdl.runtime import CompiledGame
from solver.game import SIMULTANEOUS, State
from solver.limits import TIE_TOLERANCE, Limits
from solver.matrix_game import properly_mixed_equilibrium, pure_equilibria
from solver.simultaneous import SimultaneousSolution, solve_simultaneous

MIXING_GAIN = 1e-9
"""The text says "mixing guarantees more" when the mixed value beats every pure guarantee by more than this times
the largest magnitude among them and the value (relative: a game scaled by 1e-12 says it too)."""


def solve_simultaneous_game(args: argparse.Namespace, out: Any, game: CompiledGame, state: State,
                            played: list[str], limits: Limits) -> int:
    """Solve ``state`` of a simultaneous game and print (or, with ``--json``, dump) the answer."""
    if args.algorithm not in ("auto", "simultaneous"):
        raise UsageError(f"--algorithm {args.algorithm} cannot solve {game.name}: its players move "
                         "simultaneously (use --algorithm auto)")
    if limits.quiescence:
        raise UsageError(f"--quiescence is for games whose players take turns; {game.name}'s players move "
                         "simultaneously")
    try:
        with rule_errors(game, state, played):  # a rule that fails in a round: a diagnostic with its moves
            result = solve_simultaneous(game, state, limits)
    except ValueError as error:
        raise UsageError(str(error)) from None
    except ArithmeticError as error:  # the LP solver's own failure (the payoffs are scaled before it)
        raise Problem(f"the simultaneous-move solver failed on {game.name}: {error}") from None
    # Full precision in JSON: the solver's strategies and values are the floats nearest the exact rational
    # equilibrium when it verifies (solver/matrix_game.py), so 4/7 is 0.5714285714285714, not 0.571429.
    strategy = {game.players[p]: {str(m): float(q) + 0.0 for m, q in s.items()}
                for p, s in enumerate(result.strategies) if s}
    pure = pure_guarantees(game, state, result) if result.exact else {}
    equilibria = general_sum_equilibria(game, state, result) if result.exact else {}
    report: dict[str, Any] = {
        "game": game.name,
        "parameters": {k: json_value(v) for k, v in game.parameters.items()},
        "players": list(game.players),
        "value": None if result.stopped else value_dict(game, result.value),
        "value_kind": None if result.stopped else "proven" if result.exact else "estimated",
        "strategy": strategy,
        "pure_strategy_values": pure,
        "best_moves": [str(m) for m in result.best_moves],
        "principal_variation": [str(m) for m in result.principal_variation],
        "exact": bool(result.exact),
        "stats": {"nodes": int(result.stats.nodes), "seconds": round(float(result.stats.seconds), 6),
                  "nodes_per_second": round(result.stats.nodes_per_second, 1),
                  "tt_size": int(result.stats.tt_size), "depth": int(result.stats.depth), "quiescence": 0},
        "algorithm": result.algorithm,
        "moves": played,
        "move_values": {},
        "stopped": bool(result.stopped),
        "stop_reason": result.stop_reason,
        "bounds": None,
        "note": result.note,
        "plies_to_end": None,
        **equilibria,
    }
    if args.json:
        print(dump_json(report))
    else:
        _print(out, game, result, report)
    return EXIT_INTERRUPTED if result.stopped and result.stop_reason == "interrupt" else EXIT_OK


def _root_grid(game: CompiledGame, state: Any,
               result: SimultaneousSolution) -> tuple[list[list[Any]], dict[tuple[int, int], tuple[float, ...]]] | None:
    """At a two-player simultaneous root: each player's moves and the solved value of every pair of them (None
    elsewhere, or when the table lacks a pair)."""
    if game.to_move(state) != SIMULTANEOUS or len(game.players) != 2:
        return None
    moves = [list(game.legal_moves(state, p)) for p in range(2)]
    table: Mapping[Hashable, Any] = result.table
    values: dict[tuple[int, int], tuple[float, ...]] = {}
    for i, j in itertools.product(range(len(moves[0])), range(len(moves[1]))):
        child = game.apply_joint(state, (moves[0][i], moves[1][j]))
        key = child if game.symmetries else game.key(child)
        if key not in table:
            return None
        values[i, j] = tuple(float(v) for v in table[key].value)
    return moves, values


def pure_guarantees(game: CompiledGame, state: Any, result: SimultaneousSolution) -> dict[str, dict[str, float]]:
    """At a two-player zero-sum simultaneous root: per player, each pure move's worst-case value for that player
    (what the player can guarantee by always playing it). Empty elsewhere."""
    grid = _root_grid(game, state, result) if game.zero_sum else None
    if grid is None:
        return {}
    moves, values = grid
    rows = {str(m): min(values[i, j][0] for j in range(len(moves[1]))) for i, m in enumerate(moves[0])}
    cols = {str(m): min(-values[i, j][0] for i in range(len(moves[0]))) for j, m in enumerate(moves[1])}
    return {game.players[0]: {m: v + 0.0 for m, v in rows.items()},
            game.players[1]: {m: v + 0.0 for m, v in cols.items()}}


def general_sum_equilibria(game: CompiledGame, state: Any, result: SimultaneousSolution) -> dict[str, Any]:
    """At a two-player general-sum simultaneous root (the rounds after it solved): every pure Nash equilibrium and
    one equilibrium in which a player mixes (None if there is none). Empty elsewhere."""
    grid = None if game.zero_sum else _root_grid(game, state, result)
    if grid is None:
        return {}
    moves, values = grid
    rows, cols = range(len(moves[0])), range(len(moves[1]))
    a = [[values[i, j][0] for j in cols] for i in rows]
    b = [[values[i, j][1] for j in cols] for i in rows]
    names = game.players
    pure = [{"moves": {names[0]: str(moves[0][i]), names[1]: str(moves[1][j])},
             "value": {names[k]: values[i, j][k] + 0.0 for k in range(2)}}
            for i, j in pure_equilibria(a, b, TIE_TOLERANCE)]
    try:
        found = properly_mixed_equilibrium(a, b)
    except ValueError:  # too many moves to enumerate the supports of
        found = None
    mixed = None if found is None else {
        "strategy": {names[0]: {str(m): q + 0.0 for m, q in zip(moves[0], found.row, strict=True)},
                     names[1]: {str(m): q + 0.0 for m, q in zip(moves[1], found.col, strict=True)}},
        "value": {names[k]: found.values[k] + 0.0 for k in range(2)}}
    return {"pure_equilibria": pure, "mixed_equilibrium": mixed}


def _print(out: Any, game: CompiledGame, result: SimultaneousSolution, report: dict[str, Any]) -> None:
    title = Text(game_label(game), style="bold")
    if report["moves"]:
        title.append(f"  after {','.join(report['moves'])}", style="dim")
    out.print(title)
    if report["value"] is None:
        out.print(Text(f"no value: the solve stopped ({result.stop_reason})", style="bold yellow"))
        return
    kind = "exact value" if result.exact else "estimated value"
    out.print(Text(f"{kind}: ", style="bold") + Text(", ".join(f"{p} {format_number(v)}"
                                                               for p, v in report["value"].items())))
    if result.note:
        out.print(Text(result.note, style="yellow"))
    if report["strategy"]:
        heading = ("the equilibrium the solve followed" if "pure_equilibria" in report
                   else "optimal mixed strategies")
        out.print(Text(f"{heading} (all players choose at once):", style="bold"))
        for player, mix in report["strategy"].items():
            shown = ", ".join(f"{m} {q:.2f}" for m, q in mix.items())
            out.print(Text(f"  {player}: ", style="bold") + Text(shown, style="cyan"))
    for player, guarantees in report["pure_strategy_values"].items():
        best = max(guarantees.values())
        mixed = report["value"][player]
        scale = max([abs(mixed), *map(abs, guarantees.values())])
        line = ", ".join(f"{m} {format_number(v)}" for m, v in guarantees.items())
        out.print(Text(f"  {player} by a pure strategy guarantees at most {format_number(best)} ({line})"
                       + ("; mixing guarantees more" if mixed > best + MIXING_GAIN * scale else ""),
                       style="dim"))
    if "pure_equilibria" in report:
        _print_equilibria(out, report)
    if report["best_moves"]:
        out.print(Text("best move: ", style="bold") + Text(", ".join(report["best_moves"]), style="cyan"))
    stats = report["stats"]
    out.print(Text(f"{stats['nodes']:,} nodes in {stats['seconds']:.3f} s, {result.algorithm}"
                   " (backward induction, an LP at each simultaneous move)", style="dim"))


def _print_equilibria(out: Any, report: dict[str, Any]) -> None:
    pure, mixed = report["pure_equilibria"], report["mixed_equilibrium"]
    out.print(Text(f"pure equilibria (neither player gains by changing alone): {len(pure) or 'none'}", style="bold"))
    for eq in pure:
        values = ", ".join(f"{p} {format_number(v)}" for p, v in eq["value"].items())
        out.print(Text("  " + " | ".join(eq["moves"].values()), style="cyan") + Text(f": {values}"))
    if mixed is None:
        out.print(Text("no equilibrium in which a player mixes", style="dim"))
        return
    values = ", ".join(f"{p} {format_number(v)}" for p, v in mixed["value"].items())
    out.print(Text("a mixed equilibrium: ", style="bold") + Text(values))
    for player, mix in mixed["strategy"].items():
        out.print(Text(f"  {player}: ", style="bold") + Text(", ".join(f"{m} {q:.2f}" for m, q in mix.items()),
                                                            style="cyan"))
