"""The distance to the end over the C state graph: computed in C (``solver/native/remoteness.c``) against the graph
copied out and finished by the Python code (``solver/remoteness.py``), and against the solve without it.

A measurement, not a test: ``python bench/distance.py [--runs N] [--no-copy] [CASE ...]``, cases named
``game:param=value,...:method`` (default: the cops-and-robber chase of ``tests/test_native_graph.py`` at sizes 24
and 60, retrograde analysis, and Pig at goals 40 and 100, value iteration). For each case, in one process, the
three ways are interleaved ``--runs`` times and the best of each kept (the machine is shared: the ratios of
interleaved bests are what to read): ``values`` (``plies=False``), ``C distance`` (``plies=True`` with nothing copied
out) and ``copied out`` (``plies=True`` with the graph copied into Python whatever its size; ``--no-copy`` skips it,
as for Pig goal 100, whose copy would need gigabytes). The distance step's own time is read around
``_Graph.distance``; reading the whole table's distances afterwards is timed apart (the C answer's table is read
out of C then; the copied-out one is built by the solve). Each answer's distance is checked against the
copied-out one where both exist.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gdl  # noqa: E402
import solver.native.graph as native_graph  # noqa: E402
from solver import exact  # noqa: E402
from tests.test_native_graph import CHASE  # noqa: E402

DEFAULT = ["chase:size=24:retrograde", "chase:size=60:retrograde", "pig:goal=40:auto", "pig:goal=100:auto"]
HUGE = 10**12


def load(case: str) -> tuple[Any, str]:
    name, params, method = case.split(":")
    values = dict(p.split("=") for p in params.split(",") if p)
    if name == "chase":
        return gdl.load_source(CHASE, "chase.gdl", values, backend="c"), method
    return gdl.load(name, values, backend="c"), method


def timed(game: Any, method: str, plies: bool, most: int) -> tuple[float, float, Any]:
    """The solve's seconds, then reading its whole table's distances (read out of C when first asked for)."""
    native_graph.PLIES_STATES = most
    started = time.perf_counter()
    solution = exact.solve(game, method=method, plies=plies)
    solved = time.perf_counter()
    _ = len(solution.table.plies) if plies else 0
    return solved - started, time.perf_counter() - solved, solution


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=DEFAULT)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-copy", action="store_true", help="skip the copied-out way (huge graphs)")
    args = parser.parse_args()
    steps: dict[str, float] = {}
    original = native_graph._Graph.distance

    def distance(self: Any, budget: Any) -> None:
        started = time.perf_counter()
        original(self, budget)
        steps["last"] = time.perf_counter() - started

    native_graph._Graph.distance = distance  # type: ignore[method-assign]
    for case in args.cases:
        game, method = load(case)
        copy = not args.no_copy and "goal=100" not in case
        best: dict[str, float] = {}
        table: dict[str, float] = {}
        step = float("inf")
        answers: dict[str, Any] = {}
        for _ in range(args.runs):
            ways = [("values", False, 0), ("C distance", True, 0)] + ([("copied out", True, HUGE)] if copy else [])
            for way, plies, most in ways:
                seconds, reading, solution = timed(game, method, plies, most)
                best[way] = min(best.get(way, float("inf")), seconds)
                table[way] = min(table.get(way, float("inf")), reading)
                answers[way] = solution
                if way == "C distance":
                    step = min(step, steps["last"])
        states = answers["values"].stats.tt_size
        row = ", ".join(f"{way} {seconds:.3f} s" for way, seconds in best.items())
        reads = ", ".join(f"{way} {table[way]:.3f} s" for way in best if way != "values")
        print(f"{case}: {states:,} states; best of {args.runs}: {row}; the C distance step alone {step:.3f} s; "
              f"then the whole table's distances read: {reads}")
        if "copied out" in answers:
            same = answers["C distance"].plies == answers["copied out"].plies
            print(f"  plies {answers['C distance'].plies} (copied out: {answers['copied out'].plies}; "
                  f"{'the same' if same else 'DIFFERENT'}); copied out / C distance: "
                  f"{best['copied out'] / best['C distance']:.1f}x")
        else:
            print(f"  plies {answers['C distance'].plies}")


if __name__ == "__main__":
    main()
