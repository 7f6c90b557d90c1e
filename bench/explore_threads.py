"""The C state graph's exploration on one thread and on two, in one run (issue 14's "all cores").

A measurement, not a test: ``python bench/explore_threads.py [--rounds N]``. For each game, the exploration alone
(``solver/native/graph.py``'s ``_Graph.explore``: every reachable state, its edges and its distribution; the graph
methods' first pass) with ``threads=1`` and ``threads=2``, interleaved round by round, best of N, each on a fresh
graph; then the whole solve (``solver.exact.solve(game, method=...)``, backward induction or value iteration: the
exploration and the serial passes after it) the same way. The graphs must be equal (the same number of states;
``tests/test_native_explore.py`` proves them identical). Run it on an otherwise idle machine: with another process
on the second core, a second thread only takes turns with it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gdl  # noqa: E402
from solver.exact import solve  # noqa: E402
from solver.limits import Budget, Limits  # noqa: E402
from solver.native import handle_of  # noqa: E402
from solver.native.graph import _Graph  # noqa: E402

CASES: list[tuple[str, dict[str, str], str]] = [
    ("connect4", {"cols": "5", "rows": "4"}, "backward"),  # mirror symmetry
    ("mnk", {"m": "4", "n": "4", "k": "4"}, "backward"),  # eight symmetries
    ("pig", {"goal": "100"}, "value_iteration"),  # chance, cycles, cheap rules
]


def explore_seconds(game: Any, threads: int) -> tuple[float, int]:
    """One exploration from the initial state on a fresh graph: its seconds and its states."""
    graph = _Graph(game, handle_of(game), None, threads)
    started = time.perf_counter()
    graph.explore(game.initial_state(), Budget(Limits()))
    return time.perf_counter() - started, int(graph._read()[0])


def solve_seconds(game: Any, method: str, threads: int) -> float:
    started = time.perf_counter()
    solve(game, method=method, limits=Limits(threads=threads))
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    print(f"python bench/explore_threads.py --rounds {args.rounds}; load average before: "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    print("| game | states | explore, 1 thread | 2 threads | ratio | solve, 1 thread | 2 threads | ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, params, method in CASES:
        game = gdl.load(name, params, backend="c")
        explore: dict[int, float] = {1: float("inf"), 2: float("inf")}
        whole: dict[int, float] = {1: float("inf"), 2: float("inf")}
        sizes = set()
        for _ in range(args.rounds):
            for threads in (1, 2):
                seconds, states = explore_seconds(game, threads)
                explore[threads] = min(explore[threads], seconds)
                sizes.add(states)
                whole[threads] = min(whole[threads], solve_seconds(game, method, threads))
        assert len(sizes) == 1, sizes
        label = name + "".join(f" {k}={v}" for k, v in params.items()) + f", {method}"
        print(f"| {label} | {sizes.pop():,} | {explore[1]:.3f} s | {explore[2]:.3f} s | {explore[1] / explore[2]:.2f}x "
              f"| {whole[1]:.3f} s | {whole[2]:.3f} s | {whole[1] / whole[2]:.2f}x |")
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
