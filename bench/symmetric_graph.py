"""The graph methods on games with symmetric keys: the C state graph against the Python graph, in one run.

A measurement, not a test: ``python bench/symmetric_graph.py [--rounds N]``. For each case, the same
``solver.exact.solve(game, method=...)`` call (no distance to the end) three ways, interleaved round by round,
best of N: the Python back end; the C back end with the graph methods in Python over the C rules (what games
with symmetries had before the C graph took them: ``solver.exact``'s C graph entry points switched off); the C
back end with the C graph. The values and root moves must be equal. The C graph's solved table is read out of C
when first used: the last column times the solve and that read (``len(result.table)``) together.
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
import solver.exact  # noqa: E402
from solver.exact import solve  # noqa: E402

CASES: list[tuple[str, dict[str, str], str]] = [
    ("tictactoe", {}, "backward"), ("tictactoe", {}, "value_iteration"), ("tictactoe", {}, "retrograde"),
    ("hexapawn", {"rows": "4", "cols": "4"}, "backward"), ("hexapawn", {"rows": "4", "cols": "4"}, "retrograde"),
    ("connect4", {"cols": "4", "rows": "4"}, "backward"), ("connect4", {"cols": "4", "rows": "4"}, "value_iteration"),
    ("connect4", {"cols": "4", "rows": "4"}, "retrograde"), ("mnk", {"m": "4", "n": "4", "k": "4"}, "backward"),
]


def _python_graph_only() -> Any:
    """``solver.exact`` with its C graph entry points off: the graph methods run in Python (over the C rules)."""
    saved = (solver.exact.c_graph_fits, solver.exact.c_retrograde_fits, solver.exact.explored_in_c)
    solver.exact.c_graph_fits = lambda game, method: False  # type: ignore[assignment]
    solver.exact.c_retrograde_fits = lambda game, method: False  # type: ignore[assignment]
    solver.exact.explored_in_c = lambda *args: None  # type: ignore[assignment]
    return saved


def _restore(saved: Any) -> None:
    solver.exact.c_graph_fits, solver.exact.c_retrograde_fits, solver.exact.explored_in_c = saved


def timed(name: str, params: dict[str, str], method: str, backend: str, c_graph: bool) -> tuple[float, float, Any]:
    game = gdl.load(name, params, backend=backend)
    saved = None if c_graph else _python_graph_only()
    try:
        start = time.perf_counter()
        result = solve(game, method=method)
        seconds = time.perf_counter() - start
        assert result.table is not None and len(result.table) == result.stats.tt_size
        with_table = time.perf_counter() - start
    finally:
        if saved is not None:
            _restore(saved)
    return seconds, with_table, (result.value, [str(m) for m in result.best_moves], result.stats.tt_size)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--skip-slow", action="store_true", help="leave out the cases whose Python solve is over 20 s")
    args = ap.parse_args()
    print("| game | parameters | method | states | Python back end (s) | C rules, Python graph (s) | C graph (s) "
          "| C graph vs Python graph | C graph vs Python back end | C graph with its table read (s) |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    arms = (("python", True), ("c", False), ("c", True))
    for name, params, method in CASES:
        if args.skip_slow and name == "mnk":
            continue
        gdl.load(name, params, backend="c")  # (built before timing)
        best = [float("inf")] * len(arms)
        table = float("inf")
        answers = []
        for _ in range(args.rounds if name != "mnk" else 1):
            for j, (backend, c_graph) in enumerate(arms):
                seconds, with_table, answer = timed(name, params, method, backend, c_graph)
                best[j] = min(best[j], seconds)
                answers.append(answer)
            table = min(table, with_table)
        assert all(a == answers[0] for a in answers), answers
        shown = " ".join(f"{k}={v}" for k, v in params.items())
        print(f"| {name} | {shown} | {method} | {answers[0][2]:,} | {best[0]:.3f} | {best[1]:.3f} | {best[2]:.4f} "
              f"| {best[1] / best[2]:.0f}x | {best[0] / best[2]:.0f}x | {table:.3f} |", flush=True)


if __name__ == "__main__":
    main()
