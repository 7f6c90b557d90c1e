"""``gdl solve``: the value of a game or position under optimal play, the best moves, the principal variation."""

from __future__ import annotations

import argparse
import os
from typing import Any

import gdl.cli.engine as engine
from gdl.cli.args import add_command, finite_number, game_options, load_game, parse_params, replay
from gdl.cli.backend import add_backend_option
from gdl.cli.errors import EXIT_INTERRUPTED, EXIT_OK, Problem, UsageError
from gdl.cli.output import dump_json, game_label, json_value
from gdl.cli.plain import console
from gdl.cli.progress import SearchDisplay
from gdl.cli.rule_errors import PYTHON_INSTEAD, PythonInstead, rule_errors
from gdl.cli.values import (
    bounds_json,
    decisions_before_chance,
    plies_cell,
    plies_json,
    plies_text,
    probability_text,
    reads_as_probability,
    value_dict,
    value_kind,
    verdict,
    win_probability,
)
from gdl.lines import Line, format_number
from gdl.runtime import CompiledGame
from solver.limits import Limits

EXAMPLES = """examples:
  gdl solve tictactoe
  gdl solve connect4 -p cols=4 -p rows=4 --json
  gdl solve tictactoe --moves 'place(b2),place(a1)'
  gdl solve connect4 --depth 8            # heuristic search, not exact
  gdl solve breakthrough --depth 2 --quiescence 4   # and on past the horizon until it is quiet
  gdl solve pig -p goal=10 --save pig10.sqlite"""


def register(sub: Any) -> None:
    p = add_command(sub, "solve", "Solve a game: the value under optimal play, the best moves, the principal "
                                  "variation.", EXAMPLES)
    game_options(p)
    add_solve_options(p)
    add_backend_option(p)
    p.set_defaults(run=cmd_solve)


def add_solve_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--moves", metavar="M1,M2,...", help="solve the position after these moves")
    p.add_argument("--algorithm", default="auto", choices=engine.ALGORITHMS,
                   help="auto (default): the exact solver that fits the game")
    p.add_argument("--depth", type=int, metavar="N", help="heuristic search to this depth instead of solving")
    p.add_argument("--quiescence", type=int, default=0, metavar="N", help="with --depth or --time: search up to N "
                   "plies past the horizon from positions the rule file's `quiet when` says are not quiet")
    p.add_argument("--time", type=finite_number, metavar="SECONDS", help="search for at most this long (heuristic "
                   "unless it finishes)")
    p.add_argument("--max-nodes", type=int, metavar="N", help="stop after visiting this many states "
                   "(the result so far is reported)")
    p.add_argument("--max-table", type=int, metavar="ENTRIES", help="memory cap: at most this many "
                   "states in the solver's tables")
    p.add_argument("--memory", type=finite_number, metavar="MB", help="memory cap in megabytes for the solver's "
                   "tables: each turns it into entries by the size of its own (a C alpha-beta entry is some 40 "
                   "bytes, a C graph's state 130-250, a Python one 500-800: docs/solvers.md); combined with "
                   "--max-table, the smaller wins")
    p.add_argument("--threads", type=int, metavar="N", help="with --backend c: the exact alpha-beta search uses N "
                   "threads sharing its table (lazy SMP), and the state graph is explored on N (default: every "
                   "core); the Python back end uses one")
    p.add_argument("--save", metavar="FILE.sqlite", help="store the solved values in an SQLite table")
    p.add_argument("--no-symmetry", action="store_true", help="ignore the rule file's `symmetry` line "
                   "(every mirror image is solved on its own; for comparison)")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object")
    p.add_argument("--value-only", action="store_true",
                   help="the value and one best move only: no other move's value, no distance to the end (quicker)")


MOST_MEGABYTES = 1e12
"""``--memory`` above this is taken as this (an exabyte: no table is that big, and 1e305 MB is no overflow)."""


def solve_limits(args: argparse.Namespace) -> Limits:
    """The budget of ``gdl solve`` from its options.

    :raises UsageError: a negative or zero budget.
    """
    if args.depth is not None and args.depth < 1:
        raise UsageError("--depth must be at least 1")
    if args.threads is not None and args.threads < 1:
        raise UsageError("--threads must be at least 1")
    if args.quiescence < 0:
        raise UsageError("--quiescence must not be negative")
    if args.quiescence and args.depth is None and args.time is None:
        raise UsageError("--quiescence needs --depth or --time: an exact solve has no horizon to search past")
    if args.time is not None and not args.time > 0:
        raise UsageError("--time must be positive")
    if args.max_nodes is not None and args.max_nodes < 1:
        raise UsageError("--max-nodes must be at least 1")
    if args.max_table is not None and args.max_table < 1:
        raise UsageError("--max-table must be at least 1")
    memory_bytes = None
    if args.memory is not None:
        if not args.memory > 0:
            raise UsageError("--memory must be positive (megabytes)")
        memory_bytes = max(1, int(min(args.memory, MOST_MEGABYTES) * 1e6))  # (each table makes entries of it)
    threads = args.threads if args.threads is not None else os.cpu_count() or 1
    return Limits(depth=args.depth, seconds=args.time, nodes=args.max_nodes, table_entries=args.max_table,
                  quiescence=args.quiescence, threads=threads, memory_bytes=memory_bytes)


STOP_REASONS = {"interrupt": "interrupted", "time": "out of time (--time)", "nodes": "out of nodes (--max-nodes)",
                "table": "out of table space (--max-table/--memory)", "iterations": "out of iterations",
                "depth": "stopped at the deepest depth it can search"}


def cmd_solve(args: argparse.Namespace) -> int:
    out = console()
    game = load_game(args.game, parse_params(args.param), symmetry=not args.no_symmetry, backend=args.backend)
    if args.backend != "auto" or game.backend != "c":
        return _solve(args, out, game)
    token = PYTHON_INSTEAD.set(True)  # `auto` chose C: where its 64-bit numbers cannot hold the game's, Python can
    try:
        return _solve(args, out, game)
    except PythonInstead as instead:
        python, reason = instead.python, instead.reason
    finally:
        PYTHON_INSTEAD.reset(token)
    console(stderr=True).print(f"note: using the Python back end: {reason}", markup=False, highlight=False)
    return _solve(args, out, python)


def _solve(args: argparse.Namespace, out: Any, game: CompiledGame) -> int:
    state, played = replay(game, args.moves)
    limits = solve_limits(args)
    if game.simultaneous:  # every player chooses at once: an LP per simultaneous node (gdl/cli/solve_sim.py)
        from gdl.cli.solve_sim import solve_simultaneous_game  # (SciPy's LP solver loads only for these games)

        return solve_simultaneous_game(args, out, game, state, played, limits)
    try:
        with rule_errors(game, state, played), SearchDisplay(out, f"solving {game_label(game)}") as display:
            if args.value_only:
                result = engine.search(game, state, args.algorithm, limits, display.update, plies=False,
                                       all_best=False)
                solution = engine.Solution(result, game.to_move(state))
            else:
                solution = engine.solve_with_moves(game, state, args.algorithm, limits, display.update)
    except engine.EngineError as error:
        if args.algorithm == "auto":
            raise Problem(str(error)) from None  # no solver fits: the work found a problem
        raise UsageError(str(error)) from None
    result = solution.result
    interrupted = result.stopped and result.stop_reason == "interrupt"
    stats = result.stats
    kind = value_kind(game, result)
    report: dict[str, Any] = {
        "game": game.name,
        "parameters": {k: json_value(v) for k, v in game.parameters.items()},
        "players": list(game.players),
        "value": value_dict(game, result.value) if kind in ("proven", "estimated") else None,
        "value_kind": kind,
        "best_moves": [str(m) for m in solution.best_moves],
        "principal_variation": decisions_before_chance(game, state, result.principal_variation)[0],
        "exact": bool(result.exact),
        "stats": {
            "nodes": int(stats.nodes),
            "seconds": round(float(stats.seconds), 6),
            "nodes_per_second": round(stats.nodes_per_second, 1),
            "tt_size": int(stats.tt_size),
            "depth": int(stats.depth),
            "quiescence": int(limits.quiescence),
        },
        "algorithm": result.algorithm,
        "moves": played,
        "move_values": {str(m): (value_dict(game, v) if v is not None else None) for m, v in solution.move_values},
        "stopped": bool(result.stopped),
        "stop_reason": result.stop_reason,
        "bounds": bounds_json(result.bounds),
        "note": result.note,
        "plies_to_end": plies_json(result.plies),
    }
    if kind == "proven" and reads_as_probability(game):
        report["win_probability"] = {p: round(win_probability(v), 12) for p, v in report["value"].items()}
    if result.stopped and result.stop_reason != "interrupt":
        from gdl.cli.estimate import size_estimate

        report["estimate"] = size_estimate(game, state, stats.tt_size or stats.nodes,  # distinct states kept
                                           stats.seconds, limits.seconds)
    if args.save:
        from solver.table import TableError, save_table

        try:
            save_table(engine.table_from_solution(game, state, solution), args.save)
        except (TableError, OSError) as error:
            raise UsageError(f"--save: {error}") from None
        report["saved"] = args.save
    if args.json:
        print(dump_json(report))
    else:
        _print_solution(out, game, state, solution, report, value_only=args.value_only)
    return EXIT_INTERRUPTED if interrupted else EXIT_OK


def _print_solution(out: Any, game: CompiledGame, state: Any, solution: engine.Solution,
                    report: dict[str, Any], value_only: bool = False) -> None:
    result = solution.result
    title = Line(game_label(game), style="bold")
    if report["moves"]:
        title.append(f"  after {','.join(report['moves'])}", style="dim")
    out.print(title)
    if report["moves"]:
        from gdl.cli.render import board_text  # (rich: the board is drawn in colour)

        out.print(board_text(game, state))
    if result.stopped:
        reason = STOP_REASONS.get(result.stop_reason or "", result.stop_reason or "stopped")
        out.print(Line(f"{reason}: the best result so far", style="bold yellow"))
        if "estimate" in report:
            from gdl.cli.estimate import estimate_text

            out.print(Line(estimate_text(report["estimate"]), style="yellow"))
    if engine.unsolvable(result):
        out.print(Line(result.note or "no solution", style="bold yellow"))
        stats = report["stats"]
        out.print(Line(f"{stats['nodes']:,} nodes in {stats['seconds']:.3f} s, {result.algorithm}", style="dim"))
        return
    if result.note:
        out.print(Line(result.note, style="yellow"))
    if result.stopped and not result.best_moves and not result.exact:
        out.print(Line("no value: the search stopped before it found a move", style="bold yellow"))
        stats = report["stats"]
        out.print(Line(f"{stats['nodes']:,} nodes in {stats['seconds']:.3f} s, TT {stats['tt_size']:,} entries",
                       style="dim"))
        return
    if report["value_kind"] is None:
        out.print(Line("value unknown: ", style="bold yellow") + Line(
            "the game has no heuristic, so a depth-limited search proves nothing short of the end; the move "
            "below is a guess", style="yellow"))
    else:
        _print_value(out, game, result, report)
        distance = plies_text(game, result.value, result.plies) if result.exact else None
        if distance:
            out.print(Line(distance, style="bold"))
        elif value_only:
            pass  # (not asked for)
        elif result.exact and result.algorithm == "alphabeta" and result.best_moves:
            out.print(Line("distance to the end: not computed (walking every optimal line took too long)",
                           style="dim"))
    player = game.to_move(state)
    as_probability = "win_probability" in report
    if solution.move_values and player >= 0:
        from rich.table import Table

        table = Table(header_style="bold", box=None, padding=(0, 2))
        table.add_column("move", style="cyan")
        table.add_column(f"win probability for {game.players[player]}" if as_probability
                         else f"value for {game.players[player]}", justify="right")
        distances = solution.move_plies
        with_plies = any(d is not None for d in distances.values())
        if with_plies:
            table.add_column("plies then", justify="right")  # the distance to the end after the move
        table.add_column("")
        best = {str(m) for m in solution.best_moves}
        for move, value in sorted(solution.move_values, key=lambda mv: -(mv[1][player] if mv[1] else -1e18)):
            shown = "?" if value is None else format_number(win_probability(value[player]) if as_probability
                                                            else value[player])
            mark = Line("best", style="bold green").__rich__() if str(move) in best else ""
            if with_plies:
                table.add_row(str(move), shown, plies_cell(distances.get(str(move))), mark)
            else:
                table.add_row(str(move), shown, mark)
        out.print(table)
    elif report["best_moves"]:
        out.print(Line("best move: ", style="bold") + Line(", ".join(report["best_moves"]), style="cyan"))
    if report["principal_variation"] and len(game.players) == 1 and result.exact:
        # A puzzle's principal variation is its shortest solution.
        moves = report["principal_variation"]
        out.print(Line(f"shortest solution ({len(moves)} moves): ", style="bold") + Line(",".join(moves)))
    elif report["principal_variation"] or result.principal_variation:
        line = Line("principal variation: ", style="bold") + Line(",".join(report["principal_variation"]))
        _, chance = decisions_before_chance(game, state, result.principal_variation)
        if chance:  # where nature moves the line stops: which face comes up is not part of optimal play
            line.append((", then " if report["principal_variation"] else "") + f"chance ({chance})", style="dim")
        out.print(line)
    stats = report["stats"]
    work = (f"{stats['nodes']:,} nodes in {stats['seconds']:.3f} s ({stats['nodes_per_second']:,.0f} nodes/s)"
            f", TT {stats['tt_size']:,} entries, {result.algorithm}")
    if not result.exact and stats["depth"] and result.algorithm in ("alphabeta", "paranoid", "expectimax",
                                                                     "minimax") and result.bounds is None:
        work += f", depth {stats['depth']}"
        if stats["quiescence"]:
            work += f" (+ up to {stats['quiescence']} plies of quiescence)"
    out.print(Line(work, style="dim"))
    if report.get("saved"):
        out.print(Line(f"saved to {report['saved']}", style="dim"))


def _print_value(out: Any, game: CompiledGame, result: Any, report: dict[str, Any]) -> None:
    """The root value line, saying which kind of answer it is (exact, proven, bounds, estimated)."""
    bounds = result.bounds
    if result.exact:
        kind = "exact value"
    elif bounds is not None and bounds[0] == bounds[1]:
        kind = "proven value (not every move checked)"
    elif bounds is not None:
        kind = "value so far (not proven)"
    elif result.algorithm == "value_iteration":
        kind = "estimated value (value iteration, not converged)"
    else:
        kind = "estimated value (heuristic search)"
    if bounds is not None and bounds[0] != bounds[1]:
        values = f"{game.players[0]} between {format_number(bounds[0])} and {format_number(bounds[1])}"
    else:
        values = ", ".join(f"{p} {format_number(v)}" for p, v in (report["value"] or {}).items())
    proven = report["value_kind"] == "proven"
    if "win_probability" in report:  # the probability first; the utilities it comes from, explained, after
        out.print(Line(f"{kind}: ", style="bold") + Line(probability_text(game, result.value), style="bold green"))
        out.print(Line(f"  (as utilities, a win 1 and a loss -1: {values}, which is 2p - 1)", style="dim"))
        return
    out.print(Line(f"{kind}: ", style="bold") + Line(values, style="bold green" if proven else "bold yellow")
              + Line(f"  ({verdict(game, result.value)})" if proven else "", style="dim"))
