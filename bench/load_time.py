"""Load time of each bundled game: parse, check + compile, and build (exec + setup), in milliseconds.

A measurement, not a test: ``python bench/load_time.py [--repeat N] [game ...]``.
Each phase is timed ``N`` times (after a garbage collection) and the best time
is shown; ``load`` is the best time of the whole ``gdl.load_source`` (the
number ``bench/run.py`` reports, from :func:`measure` too) and ``first`` its
first call in this process. The Lark tables are built (or read from gdl's
private JSON cache, :mod:`gdl.parser_cache`) before any game is timed; ``cold
parse`` is that first parse.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gdl.compiler import compile_rules
from gdl.loader import bundled_games, load_source, read_source, resolve
from gdl.parser import parse
from gdl.runtime import CompiledGame


@dataclass
class LoadTime:
    """Seconds to load one game: best of ``repeat`` per phase and for the whole load, and the first load."""

    name: str
    lines: int
    parse: float
    compile: float
    build: float
    load: float
    first: float


def best_of(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The best time of ``repeat`` calls, each after a garbage collection, and the last result."""
    best = float("inf")
    result = None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def cold_parse(paths: Sequence[Path]) -> float:
    """Build the Lark tables (or read them from the parser cache) with a first parse; its seconds."""
    start = time.perf_counter()
    parse(read_source(paths[0]), str(paths[0]))
    return time.perf_counter() - start


def measure(paths: Sequence[Path], repeat: int = 5) -> list[LoadTime]:
    """Load times of the rule files ``paths``; the Lark tables are built first, untimed."""
    cold_parse(paths)
    rows = []
    for path in paths:
        source, name = read_source(path), str(path)
        first, _ = best_of(lambda: load_source(source, name), 1)  # noqa: B023
        load, _ = best_of(lambda: load_source(source, name), repeat)  # noqa: B023
        parse_s, rules = best_of(lambda: parse(source, name), repeat)  # noqa: B023
        compile_s, (program, warnings) = best_of(
            lambda: compile_rules(rules, source, name, {}, False), repeat)  # noqa: B023
        build_s, _ = best_of(lambda: CompiledGame(program, name, source, warnings), repeat)  # noqa: B023
        rows.append(LoadTime(path.stem, source.count("\n"), parse_s, compile_s, build_s, load, first))
    return rows


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", help="bundled names or paths (default: every bundled game)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    paths = [resolve(g) for g in args.games] or bundled_games()
    print(f"cold parse of {paths[0].stem} (Lark tables, maybe cached): {cold_parse(paths) * 1000:.1f} ms")
    header = f"{'game':<16} {'lines':>5} {'parse':>8} {'compile':>8} {'build':>8} {'load':>8} {'first':>8}"
    print(f"{header}  (ms, best of {args.repeat}; first: the first load in this process)")
    for row in measure(paths, args.repeat):
        print(f"{row.name:<16} {row.lines:>5} " + " ".join(
            f"{t * 1000:>8.2f}" for t in (row.parse, row.compile, row.build, row.load, row.first)))


if __name__ == "__main__":
    main()
