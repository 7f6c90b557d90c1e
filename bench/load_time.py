"""Load time of each bundled game: parse, check + compile, and build (exec + setup), in milliseconds.

A measurement, not a test: ``python bench/load_time.py [--repeat N] [game ...]``.
Each phase is timed ``N`` times and the best time is shown (the Lark tables are
built once, before the first measurement; ``cold parse`` is that first parse).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gdl.compiler import compile_rules
from gdl.loader import bundled_games, read_source, resolve
from gdl.parser import parse
from gdl.runtime import CompiledGame


def best_ms(fn, repeat: int) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    best = float("inf")
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best * 1000, result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", help="bundled names or paths (default: every bundled game)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    paths = [resolve(g) for g in args.games] or bundled_games()
    start = time.perf_counter()
    parse(read_source(paths[0]), str(paths[0]))
    print(f"cold parse of {paths[0].stem} (Lark tables, maybe cached): {(time.perf_counter() - start) * 1000:.1f} ms")
    header = f"{'game':<16} {'lines':>5} {'parse':>8} {'compile':>8} {'build':>8} {'total':>8}"
    print(f"{header}  (ms, best of {args.repeat})")
    for path in paths:
        source = read_source(path)
        parse_ms, rules = best_ms(lambda: parse(source, str(path)), args.repeat)  # noqa: B023
        compile_ms, (program, warnings) = best_ms(
            lambda: compile_rules(rules, source, str(path), {}, False), args.repeat)  # noqa: B023
        build_ms, _ = best_ms(lambda: CompiledGame(program, str(path), source, warnings), args.repeat)  # noqa: B023
        total = parse_ms + compile_ms + build_ms
        print(f"{path.stem:<16} {source.count(chr(10)):>5} {parse_ms:>8.2f} {compile_ms:>8.2f} {build_ms:>8.2f} "
              f"{total:>8.2f}")


if __name__ == "__main__":
    main()
