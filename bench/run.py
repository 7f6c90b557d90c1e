"""The benchmark suite: gdl's solvers on rule files against reference implementations.

A measurement, not a test. ``python bench/run.py [--quick] [--only SUBSTRING] [--out PATH]``
writes ``bench/RESULTS.md`` (see bench/README.md).

Paired workloads run ours and the reference alternately (A B A B ...) in one
process; the ratio is computed pair by pair and its median is reported, so
drift in machine speed hits both sides alike. Every pair's computed value is
asserted equal between the two sides (a fast wrong answer is a failure).
The long single-sided workloads run each in a fresh subprocess (for peak memory).
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import gdl  # noqa: E402
from solver.exact import solve  # noqa: E402
from solver.expectimax import expectimax  # noqa: E402
from solver.files import replace_text  # noqa: E402
from solver.limits import Limits  # noqa: E402
from solver.mcts import mcts  # noqa: E402

# ----------------------------------------------------------------------------- helpers


@dataclass
class Row:
    workload: str
    reference: str
    target: str
    ours_s: float
    ref_s: float | None = None
    ratio: float | None = None  # median of ref/ours, pair by pair (> 1: we are faster)
    nodes: int | None = None
    ref_nodes: int | None = None
    runs: int = 1
    met: str = ""
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def nps(self) -> float | None:
        return self.nodes / self.ours_s if self.nodes and self.ours_s else None

    @property
    def ref_nps(self) -> float | None:
        return self.ref_nodes / self.ref_s if self.ref_nodes and self.ref_s else None


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    gc.collect()
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def paired(ours: Callable[[], Any], ref: Callable[[], Any], runs: int,
           same: Callable[[Any, Any], bool]) -> tuple[float, float, float, Any, Any]:
    """Alternate ours and the reference ``runs`` times; medians of each time and of the pairwise ratio."""
    ours_times, ref_times, ratios = [], [], []
    a = b = None
    for _ in range(runs):
        t_a, a = timed(ours)
        t_b, b = timed(ref)
        if not same(a, b):
            raise AssertionError(f"values differ: ours {a!r}, reference {b!r}")
        ours_times.append(t_a)
        ref_times.append(t_b)
        ratios.append(t_b / t_a)
    return statistics.median(ours_times), statistics.median(ref_times), statistics.median(ratios), a, b


def close(x: float, y: float) -> bool:
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9)


def fresh(name: str, symmetry: bool = True, **params: Any) -> Any:
    return gdl.load(name, params={k: str(v) for k, v in params.items()}, symmetry=symmetry)


# ----------------------------------------------------------------------------- tic-tac-toe


def ttt_rows(runs: int) -> list[Row]:
    import pyspiel
    from easyAI import AI_Player, Negamax
    from easyAI.AI import TranspositionTable
    from easyAI.AI.solving import solve_with_depth_first_search
    from easyAI.games import TicTacToe as EasyTicTacToe
    from open_spiel.python.algorithms import minimax as os_minimax
    from refgames import TicTacToe as HandTicTacToe

    rows = []
    rule = fresh("tictactoe")
    plain = fresh("tictactoe", symmetry=False)  # the same work as the hand-written game: no symmetry
    hand = HandTicTacToe()

    def ours_plain() -> tuple[float, int]:
        r = solve(plain)
        return r.value[0], r.stats.nodes

    def ours_hand() -> tuple[float, int]:
        r = solve(hand)
        return r.value[0], r.stats.nodes

    o, h, ratio, a, b = paired(ours_plain, ours_hand, runs, lambda a, b: a == b)
    rows.append(Row("tic-tac-toe exact solve (rule file, symmetry off)", "hand-written Python game, same solver",
                    "rule file within 1.25x of hand-written (ratio ≥ 0.8)", o, h, ratio, a[1], b[1], runs,
                    "yes" if ratio >= 0.8 else "no", "all optimal root moves on both sides"))

    def ours() -> tuple[float, int]:
        # As the references compute: the value and one optimal move (the bundled file declares `symmetry all`).
        r = solve(rule, all_best=False)
        return r.value[0], r.stats.nodes

    os_game = pyspiel.load_game("tic_tac_toe")

    def openspiel() -> tuple[float, int]:
        value, _ = os_minimax.alpha_beta_search(os_game)
        return value, 0

    o, r, ratio, a, b = paired(ours, openspiel, runs, lambda a, b: close(a[0], b[0]))
    rows.append(Row("tic-tac-toe exact solve", "OpenSpiel minimax.alpha_beta_search (C++ game)",
                    "≥ 4x faster", o, r, ratio, a[1], count_openspiel(lambda: os_minimax.alpha_beta_search(os_game)),
                    runs, "yes" if ratio >= 4 else "no", "value and one optimal move on both sides"))

    class KeyedTicTacToe(EasyTicTacToe):  # easyAI's TT needs a key; its examples add this method
        def ttentry(self) -> tuple:
            return (*self.board, self.current_player)

    def easy() -> tuple[float, int]:
        game = KeyedTicTacToe([AI_Player(Negamax(9)), AI_Player(Negamax(9))])
        result = solve_with_depth_first_search(game, win_score=90, tt=TranspositionTable())
        return float(result), 0

    o, r, ratio, a, b = paired(ours, easy, runs, lambda a, b: close(a[0], b[0]))
    rows.append(Row("tic-tac-toe exact solve", "easyAI solve_with_depth_first_search + TranspositionTable",
                    "≥ 8x faster", o, r, ratio, a[1], None, runs, "yes" if ratio >= 8 else "no",
                    "easyAI computes the value only"))
    return rows


def count_openspiel(run: Callable[[], Any], name: str = "_alpha_beta") -> int:
    """Nodes visited by an OpenSpiel Python search: count calls of its recursive function (not timed)."""
    from open_spiel.python.algorithms import minimax as os_minimax

    original = getattr(os_minimax, name)
    calls = 0

    def counting(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return original(*args, **kwargs)

    setattr(os_minimax, name, counting)
    try:
        run()
    finally:
        setattr(os_minimax, name, original)
    return calls


# ----------------------------------------------------------------------------- connect four


def c4_4x4_rows(runs: int) -> list[Row]:
    import pyspiel
    from open_spiel.python.algorithms import minimax as os_minimax

    rule = fresh("connect4", cols=4, rows=4)
    os_game = pyspiel.load_game("connect_four", {"rows": 4, "columns": 4})

    def ours() -> tuple[float, int]:
        # As the reference computes: the value and one optimal move (the bundled file declares `symmetry mirror`).
        r = solve(rule, all_best=False)
        return r.value[0], r.stats.nodes

    def openspiel() -> tuple[float, int]:
        value, _ = os_minimax.alpha_beta_search(os_game)
        return value, 0

    o, r, ratio, a, _ = paired(ours, openspiel, runs, lambda a, b: close(a[0], b[0]))
    return [Row("connect-four 4x4 exact solve", "OpenSpiel alpha_beta_search, connect_four rows=4 columns=4",
                "≥ 3x faster", o, r, ratio, a[1], count_openspiel(lambda: os_minimax.alpha_beta_search(os_game)),
                runs, "yes" if ratio >= 3 else "no", "value and one optimal move on both sides")]


CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
import gdl
from solver.exact import solve
game = gdl.load({name!r}, params={params!r})
start = time.perf_counter()
r = solve(game)
seconds = time.perf_counter() - start
print(json.dumps({{"seconds": seconds, "nodes": r.stats.nodes, "value": r.value[0], "algorithm": r.algorithm,
                  "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def solo(workload: str, name: str, params: dict[str, str], target: str, limit: float, expect: float,
         runs: int, tolerance: float = 1e-9, timeout: float = 200) -> Row:
    """Ours only, each run in a fresh process (peak memory is the process's max RSS)."""
    results = []
    for _ in range(runs):
        code = CHILD.format(root=str(ROOT), name=name, params=params)
        try:
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                 timeout=timeout)
        except subprocess.TimeoutExpired:
            return Row(workload, "(ours only)", target, float(timeout), runs=1, met="no",
                       note=f"stopped after {timeout} s (not finished)")
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
        if abs(results[-1]["value"] - expect) > tolerance:
            raise AssertionError(f"{workload}: value {results[-1]['value']} but the known value is {expect}")
    seconds = statistics.median(r["seconds"] for r in results)
    row = Row(workload, f"(ours only; known value {expect:g})", target, seconds, nodes=results[0]["nodes"],
              runs=runs, met="yes" if seconds <= limit else "no")
    row.note = f"{results[0]['algorithm']}, peak RSS {max(r['maxrss_mb'] for r in results):.0f} MB"
    return row


# ----------------------------------------------------------------------------- MCTS


def mcts_rows(runs: int, sims: int) -> list[Row]:
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts as os_mcts

    rows = []
    for label, name, params, os_name in (("tic-tac-toe", "tictactoe", {}, "tic_tac_toe"),
                                         ("connect-four 7x6", "connect4", {}, "connect_four")):
        rule = fresh(name, **params)
        os_game = pyspiel.load_game(os_name)

        def ours(rule: Any = rule) -> tuple[int, int]:
            r = mcts(rule, limits=Limits(iterations=sims), solver=False, seed=1)
            return r.stats.iterations, r.stats.nodes

        def openspiel(os_game: Any = os_game) -> tuple[int, int]:
            rng = np.random.RandomState(1)
            bot = os_mcts.MCTSBot(os_game, math.sqrt(2), sims, os_mcts.RandomRolloutEvaluator(1, rng),
                                  solve=False, random_state=rng)
            root = bot.mcts_search(os_game.new_initial_state())
            return root.explore_count, 0

        o, r, ratio, _a, _b = paired(ours, openspiel, runs, lambda a, b: a[0] == b[0] == sims)
        row = Row(f"MCTS {sims} simulations, {label}, random rollouts",
                  "OpenSpiel mcts.MCTSBot + RandomRolloutEvaluator (C++ game)", "≥ 3x faster", o, r, ratio,
                  None, None, runs, "yes" if ratio >= 3 else "no")
        row.note = f"ours {sims / o:,.0f} sims/s, OpenSpiel {sims / r:,.0f} sims/s; solver off on both sides"
        rows.append(row)
    return rows


# ----------------------------------------------------------------------------- Pig


def pig_rows(runs: int, depth: int) -> list[Row]:
    import pyspiel
    from open_spiel.python.algorithms import minimax as os_minimax

    rule = fresh("pig", goal=10, variant="openspiel")
    os_game = pyspiel.load_game("pig", {"winscore": 10})

    def ours() -> tuple[float, int]:
        r = expectimax(rule, limits=Limits(depth=depth))
        return r.value[0], r.stats.nodes

    def search() -> Any:
        return os_minimax.expectiminimax(os_game.new_initial_state(), depth, lambda s: 0.0, 0)

    def openspiel() -> tuple[float, int]:
        return search()[0], 0

    o, r, ratio, a, _ = paired(ours, openspiel, runs, lambda a, b: close(a[0], b[0]))
    row = Row(f"Pig goal 10 expectiminimax, depth {depth}", "OpenSpiel minimax.expectiminimax (C++ pig, winscore 10)",
              "≥ 1.5x (nodes/s)", o, r, ratio, a[1], count_openspiel(search, "expectiminimax"), runs)
    nps_ratio = row.nps / row.ref_nps if row.nps and row.ref_nps else 0.0
    row.met = "yes" if nps_ratio >= 1.5 else "no"

    # Our nodes are the states searched (a transposition-table hit is not a node), so with the table
    # ours searches a few thousand states where OpenSpiel visits the whole tree, and nodes/s compares
    # unlike work. Per-node speed on the same tree: ours without table and pruning (665,625 nodes).
    def full_tree() -> tuple[float, int]:
        r = expectimax(rule, limits=Limits(depth=depth), pruning="none", use_tt=False)
        return r.value[0], r.stats.nodes

    full_s, ref_s, full_ratio, (_, full_nodes), _ = paired(full_tree, openspiel, 3, lambda a, b: close(a[0], b[0]))
    row.note = (f"time ratio {ratio:.1f}x, nodes/s ratio {nps_ratio:.2f}: ours is Star2 + a table per depth "
                f"(TT hits are not nodes), OpenSpiel searches the full tree. Same full tree without table or "
                f"pruning (paired, 3 runs): ours {fmt_s(full_s)}, {full_nodes / full_s:,.0f} nodes/s, "
                f"OpenSpiel {fmt_s(ref_s)}: nodes/s ratio {full_ratio * full_nodes / (row.ref_nodes or 1):.2f}")
    return [row]


# ----------------------------------------------------------------------------- loading


def load_rows() -> list[Row]:
    """Loading each bundled game in this process (``bench/load_time.py``'s measurement), and `gdl check`.

    `gdl check` runs in fresh processes like a user's, after one untimed run that writes the bytecode and
    Lark's table cache, as an installed package has them (``PYTHONDONTWRITEBYTECODE`` is dropped for it).
    """
    import os

    sys.path.insert(0, str(ROOT / "bench"))
    from load_time import measure

    from gdl.check import DEFAULT_EXPLORE_STEPS, DEFAULT_PLAYOUT_STEPS
    from gdl.loader import bundled_games

    runs = 5
    times = measure(bundled_games(), runs)
    worst = max(times, key=lambda t: t.load)
    first = max(times, key=lambda t: t.first)
    row = Row("load (parse + check + compile) each bundled game, worst", "—", "≤ 50 ms each", worst.load,
              met="yes" if worst.load <= 0.05 else "no", runs=runs)
    row.note = (f"worst: {worst.name}; " + ", ".join(f"{t.name} {t.load * 1000:.1f}" for t in times)
                + f" ms (best of {runs}); the first load in the process is at most {first.first * 1000:.1f} ms "
                f"({first.name}); `python bench/load_time.py` shows the phases")
    games = [str(p) for p in bundled_games()]
    check = [sys.executable, "-m", "gdl.cli", "check", *games]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def run_check() -> None:
        subprocess.run(check, capture_output=True, cwd=ROOT, env=env, check=True)

    cold = timed(run_check)[0]
    times_s = [timed(run_check)[0] for _ in range(3)]
    t = statistics.median(times_s)
    row2 = Row(f"`gdl check` all {len(games)} bundled games (new process)", "—", "≤ 1 s in all", t, runs=3,
               met="yes" if t <= 1 else "no")
    row2.note = (f"median of 3 after an untimed first run ({cold:.2f} s: bytecode and Lark cache written); "
                 f"default budgets: `--explore-steps` {DEFAULT_EXPLORE_STEPS:,}, `--playout-steps` "
                 f"{DEFAULT_PLAYOUT_STEPS:,} per file")
    return [row, row2]


# ----------------------------------------------------------------------------- report


def fmt_s(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x * 1000:.1f} ms" if x < 1 else f"{x:.2f} s"


def fmt_n(x: float | None) -> str:
    return "—" if not x else f"{x:,.0f}"


def report(rows: list[Row], quick: bool, total: float) -> str:
    lines = [
        "# Benchmark results",
        "",
        f"`python bench/run.py{' --quick' if quick else ''}` on {platform.python_implementation()} "
        f"{platform.python_version()}, {platform.machine()}, {time.strftime('%Y-%m-%d %H:%M')}; "
        f"the whole run took {total:.0f} s.",
        "",
        "Ratio = reference time / our time, the median of the per-pair ratios (A B A B ...), so > 1 means we are "
        "faster. Values are asserted equal in every pair. Nodes: ours from `SearchStats`; OpenSpiel's by "
        "counting calls of its recursive search in an extra untimed run.",
        "",
        "| workload | reference | ours | reference time | ratio | target | met | nodes (ours) | nodes/s (ours) "
        "| nodes (ref) | nodes/s (ref) | runs | notes |",
        "| --- | --- | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in rows:
        ratio = "—" if r.ratio is None else f"{r.ratio:.2f}x"
        lines.append(f"| {r.workload} | {r.reference} | {fmt_s(r.ours_s)} | {fmt_s(r.ref_s)} | {ratio} | {r.target} "
                     f"| {r.met} | {fmt_n(r.nodes)} | {fmt_n(r.nps)} | {fmt_n(r.ref_nodes)} | {fmt_n(r.ref_nps)} "
                     f"| {r.runs} | {r.note} |")
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer runs; skip the long exact solves")
    ap.add_argument("--only", default="", help="run only the workload groups whose name contains this")
    ap.add_argument("--out", default=str(ROOT / "bench" / "RESULTS.md"))
    ap.add_argument("--against", metavar="COMMIT",
                    help="instead: every bundled game, this checkout against COMMIT (bench/against.py)")
    args = ap.parse_args()
    if args.against:
        from against import against

        rows = against(args.against, only=args.only)
        print("\n".join(rows))
        sys.exit(1 if any("FAILED" in r or "SLOWER" in r for r in rows) else 0)
    runs = 3 if args.quick else 7
    groups: list[tuple[str, Callable[[], list[Row]]]] = [
        ("tictactoe", lambda: ttt_rows(runs)),
        ("c4-4x4", lambda: c4_4x4_rows(runs)),
        ("c4-5x4", lambda: [solo("connect-four 5 cols x 4 rows exact solve", "connect4", {"cols": "5", "rows": "4"},
                                 "≤ 2 s", 2, 0.0, 1 if args.quick else 3)]),
        ("mcts", lambda: mcts_rows(runs, 300 if args.quick else 1000)),
        ("pig-depth", lambda: pig_rows(runs, 8)),
        ("load", load_rows),
    ]
    if not args.quick:
        groups += [
            ("c4-5x5", lambda: [solo("connect-four 5x5 exact solve", "connect4", {"cols": "5", "rows": "5"},
                                     "≤ 60 s", 60, 0.0, 1)]),
            ("c4-6x4", lambda: [solo("connect-four 6 cols x 4 rows exact solve", "connect4",
                                     {"cols": "6", "rows": "4"}, "≤ 60 s", 60, -1.0, 1)]),
            ("pig-100", lambda: [solo("Pig goal 100 exact solve", "pig", {"goal": "100"}, "≤ 60 s", 60,
                                      2 * 0.530593 - 1, 1, 2e-6)]),
        ]
    start = time.perf_counter()
    rows: list[Row] = []
    for name, group in groups:
        if args.only and args.only not in name:
            continue
        t0 = time.perf_counter()
        try:
            new = group()
        except AssertionError as error:
            new = [Row(name, "—", "—", 0.0, met="FAILED", note=str(error))]
        rows += new
        for r in new:
            ratio = "" if r.ratio is None else f" ratio {r.ratio:.2f}x"
            print(f"{r.workload}: ours {fmt_s(r.ours_s)} ref {fmt_s(r.ref_s)}{ratio} nodes {fmt_n(r.nodes)} "
                  f"met={r.met} {r.note}", flush=True)
        print(f"  [{name}: {time.perf_counter() - t0:.1f} s]", flush=True)
    text = report(rows, args.quick, time.perf_counter() - start)
    replace_text(args.out, text, "a benchmark report")  # only over a regular file (solver/files.py)
    print(f"wrote {args.out}")
    if any(r.met == "FAILED" for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
