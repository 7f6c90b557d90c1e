"""Every bundled game's exact solve, C back end against Python back end, in one run.

A measurement, not a test: ``python bench/backends.py [--out PATH]``. For each bundled game the C
emitter translates (at parameters small enough to solve in seconds), the same ``solver.exact.solve``
call on ``gdl.load(name, params)`` and on ``gdl.load(name, params, backend="c")`` (the C module
already built: the build is timed apart), alternating, median of 3; the values must be equal. The
games the emitter does not translate yet are listed with the reason.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gdl  # noqa: E402
from gdl.native.select import c_backend_or_reason  # noqa: E402
from solver.exact import solve  # noqa: E402
from solver.files import replace_text  # noqa: E402

GAMES: list[tuple[str, dict[str, str]]] = [
    ("tictactoe", {}), ("connect4", {"cols": "4", "rows": "4"}), ("connect4", {"cols": "5", "rows": "4"}),
    ("nim", {}), ("takeaway3", {"pile": "30"}), ("clobber", {"rows": "3", "cols": "4"}),
    ("clobber", {"rows": "4", "cols": "4"}), ("dots_and_boxes", {}), ("kalah", {"pits": "3", "seeds": "3"}),
    ("othello", {"size": "4"}), ("breakthrough", {"rows": "4", "cols": "3"}), ("hexapawn", {}),
    ("pig", {"goal": "20"}), ("pig", {"goal": "40"}), ("race", {"goal": "20"}), ("hex", {"size": "3"}),
    ("mnk", {"m": "4", "n": "3", "k": "3"}),
]
NOT_TRANSLATED: list[str] = []
# (eight_puzzle translates too; its exact solve, a breadth-first search in Python, takes 8 s on either back end)


def timed_solve(game: object) -> tuple[float, tuple[float, ...]]:
    start = time.perf_counter()
    result = solve(game)  # type: ignore[arg-type]
    return time.perf_counter() - start, tuple(result.value)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="also write the table to this file")
    ap.add_argument("--results", action="store_true", help="replace this table's section of bench/RESULTS.md")
    args = ap.parse_args()
    started = time.perf_counter()
    rows = ["| game | parameters | value | C build (s) | Python solve (s) | C solve (s) | C speed-up |",
            "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for name, params in GAMES:
        python = gdl.load(name, params)
        start = time.perf_counter()
        native, reason = c_backend_or_reason(python)
        build = time.perf_counter() - start
        assert native is not None, reason
        py_times, c_times = [], []
        for _ in range(3):
            t, v_py = timed_solve(gdl.load(name, params))
            py_times.append(t)
            t, v_c = timed_solve(native)
            c_times.append(t)
            assert v_py == v_c, (name, params, v_py, v_c)
        py, c = statistics.median(py_times), statistics.median(c_times)
        shown = " ".join(f"{k}={v}" for k, v in params.items()) or "—"
        rows.append(f"| {name} | {shown} | {v_py} | {build:.2f} | {py:.3f} | {c:.4f} | {py / c:.1f}x |")
        print(rows[-1], flush=True)
    for name in NOT_TRANSLATED:
        _, reason = c_backend_or_reason(gdl.load(name))
        rows.append(f"| {name} | — | — | — | — | — | not translated: {reason} |")
    text = "\n".join(rows)
    print(text)
    if args.out:
        replace_text(args.out, text + "\n", "a benchmark report")  # only over a regular file
    if args.results:
        write_section(text, time.perf_counter() - started)


MARK_BEGIN = "<!-- bundled games, C against Python: begin -->"
MARK_END = "<!-- bundled games, C against Python: end -->"


HOW = ("The same `solver.exact.solve` call on both back ends (the C module built first, its build time apart), "
       "alternating, median of 3; the values must be equal (they are, to the last bit). The games at parameters "
       "that solve in seconds; the simultaneous ones are solved by an LP per round in Python over either back "
       "end's rules and are left out.")


def write_section(table: str, seconds: float) -> None:
    """The table as its own section of bench/RESULTS.md (replacing the last run's)."""
    from bench.native import write_results_section

    write_results_section(MARK_BEGIN, MARK_END, "Every bundled game's exact solve, C against Python",
                          "python bench/backends.py --results", seconds, HOW, table)


if __name__ == "__main__":
    main()
