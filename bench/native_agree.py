"""The C back end against the Python back end on generated rule files: the fuzz and grammar corpora.

    python bench/native_agree.py --generator grammar --cases 200 --playouts 200
    python bench/native_agree.py --generator scoped --cases 100
    python bench/native_agree.py --generator docs          # the complete games in docs/*.md

Each case is a rule file from the generators of bench/fuzz.py (``grammar``, ``mixed``) or
bench/scoped.py (``scoped``), or a game of the docs. A case the checker refuses is skipped; one the C
emitter does not translate yet is counted by its reason (``gdl.native.select``: ``auto`` keeps Python for
it). Every other case plays ``--playouts`` seeded random games in lockstep on both back ends
(:func:`gdl.native.agree.agree`, the reference interpreter as the oracle of the first few): the same
states, player to move, keys, heuristic, legal moves in order, chance outcomes and probabilities, utilities,
and rule errors at the same point. Exit status 1 if any case disagreed; one reproducer per distinct first
disagreement goes to ``--out``. Building each case's C takes about a second (the system compiler).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT), str(ROOT / "tests")]

from differential import generated_cases  # noqa: E402

import gdl  # noqa: E402
from gdl.interpreter import Interpreter  # noqa: E402
from gdl.native.agree import agree  # noqa: E402
from gdl.native.select import c_backend_or_reason  # noqa: E402
from gdl.parser import parse  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--generator", choices=("grammar", "mixed", "scoped", "docs", "bundled"), default="grammar")
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--playouts", type=int, default=200)
    parser.add_argument("--plies", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20.0,
                        help="most CPU seconds of lockstep play per case (0: no limit, every case plays --playouts)")
    parser.add_argument("--out", default="native-disagreements", help="folder for one reproducer per message")
    args = parser.parse_args(argv)
    stats: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    found: dict[str, list[str]] = {}
    started = time.perf_counter()
    fewest: tuple[int, str] | None = None  # the fewest playouts an agreeing case reached (a budget ended it)
    for label, text, params in generated_cases(args.generator, args.start, args.cases):
        stats["cases"] += 1
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                python = gdl.load_source(text, f"{label}.gdl", params)
        except Exception:  # refused by the checker (or a parameter problem): not a case for the back ends
            continue
        stats["accepted"] += 1
        native, reason = c_backend_or_reason(python)
        if native is None:
            reasons[re.sub(r"\d+", "N", reason or "?")] += 1
            continue
        stats["translated"] += 1
        oracle = Interpreter(parse(text, f"{label}.gdl"), python.parameters)
        result = agree(python, native, playouts=args.playouts, seed=stats["cases"], max_plies=args.plies,
                       oracle=oracle, oracle_playouts=5, time_budget=args.seconds or None)
        stats["playouts"] += result.playouts
        stats["states"] += result.states
        if result.agree and (fewest is None or result.playouts < fewest[0]):
            fewest = (result.playouts, label)
        if result.agree:
            continue
        key = re.sub(r"\d+", "N", result.disagreement or "?")
        first = key not in found
        found.setdefault(key, []).append(label)
        if first:
            out = Path(args.out)
            out.mkdir(parents=True, exist_ok=True)
            (out / f"disagreement{len(found):03d}.gdl").write_text(
                f"# {label}: {result.disagreement} after {','.join(result.moves)}\n{text}", encoding="utf-8")
            print(f"[{stats['cases']}] {label}: {result.disagreement} after {','.join(result.moves)}", flush=True)
    seconds = time.perf_counter() - started
    print(f"\n{stats['cases']} cases, {stats['accepted']} accepted by the checker, {stats['translated']} translated "
          f"to C, {stats['playouts']:,} lockstep playouts ({stats['states']:,} states) in {seconds:.0f} s")
    if fewest is not None:
        print(f"every agreeing case played at least {fewest[0]:,} playouts (the fewest: {fewest[1]})")
    print(f"{sum(len(v) for v in found.values())} disagreeing cases, {len(found)} distinct messages")
    for key, labels in sorted(found.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(labels):5d}  {key}  (first: {labels[0]})")
    if reasons:
        print("not translated yet (Python only):")
        for reason, n in reasons.most_common():
            print(f"  {n:5d}  {reason}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
