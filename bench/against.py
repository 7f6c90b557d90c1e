"""Every bundled game, this checkout against an earlier commit: loading, random playouts and an exact solve.

A measurement, not a test: ``python bench/against.py COMMIT [--pairs N] [--only GAME]`` (also
``python bench/run.py --against COMMIT``). The commit is checked out in a temporary git worktree; each
workload runs in a fresh subprocess, the two sides alternating (old, new, old, new, ...) so that drift in
the machine's speed hits both alike, and the median of the pairwise ratios (old time / new time; > 1:
this checkout is faster) is reported. Both sides must compute the same thing: the playouts' checksum and
the solved value are compared, and a difference is reported as FAILED (a fast wrong answer is a failure).

Workloads per game (its test-sized parameters):

* ``load``: the best of 5 ``gdl.load`` calls (parse, check, compile, build) in one process;
* ``playouts``: 300 seeded random playouts through the public game interface (legal moves, apply,
  chance outcomes, keys, utilities), repeated for half a second after one untimed run;
* ``solve``: ``solver.exact.solve`` of the start position (likewise repeated), for the games small enough
  to solve in seconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

GAMES: dict[str, tuple[dict[str, str], bool]] = {
    # name: (parameters, solve it)
    "breakthrough": ({"rows": "4", "cols": "3"}, True),
    "clobber": ({"rows": "3", "cols": "4"}, True),
    "connect4": ({"cols": "4", "rows": "4"}, True),
    "dots_and_boxes": ({"rows": "2", "cols": "2"}, True),
    "eight_puzzle": ({}, True),
    "hex": ({"size": "3"}, True),
    "hexapawn": ({}, True),
    "kalah": ({"pits": "3", "seeds": "3"}, True),
    "nim": ({}, True),
    "othello": ({"size": "4"}, False),
    "pig": ({"goal": "20"}, True),
    "race": ({"goal": "20"}, True),
    "takeaway3": ({"pile": "30"}, True),
    "tictactoe": ({}, True),
}

CHILD = r"""
import json, random, sys, time
tree, name, params, workload = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
sys.path.insert(0, tree)
import gdl
assert gdl.__file__.startswith(tree), (gdl.__file__, tree)
path = tree + "/games/" + name + ".gdl"
if workload == "load":
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        gdl.load(path, params)
        best = min(best, time.perf_counter() - start)
    print(json.dumps({"seconds": best, "check": None}))
    sys.exit(0)
game = gdl.load(path, params)
from solver.exact import solve


def playouts():
    rng = random.Random(7)
    total, plies = 0.0, 0
    for _ in range(300):
        state = game.initial_state()
        for _ in range(400):
            game.key(state)
            mover = game.to_move(state)
            if mover == -2:
                total += sum(game.utilities(state))
                break
            if mover == -1:
                outcomes = game.chance_outcomes(state)
                move = rng.choices([m for m, _ in outcomes], [p for _, p in outcomes])[0]
            else:
                move = rng.choice(list(game.legal_moves(state)))
            state = game.apply(state, move)
            plies += 1
    return [round(total, 9), plies]


def exact():
    return [round(v, 9) for v in solve(game).value]


work = playouts if workload == "playouts" else exact
check, runs = work(), 0  # (a first untimed run: lazy imports and caches warm up)
start = time.perf_counter()
while runs == 0 or time.perf_counter() - start < 0.5:
    assert work() == check
    runs += 1
print(json.dumps({"seconds": (time.perf_counter() - start) / runs, "check": check}))
"""


def run(tree: Path, name: str, params: dict[str, str], workload: str) -> tuple[float, object]:
    """Seconds and checksum of one workload in a fresh interpreter importing gdl from ``tree``."""
    out = subprocess.run([sys.executable, "-c", CHILD, str(tree), name, json.dumps(params), workload],
                         capture_output=True, text=True, cwd=tree, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{tree.name} {name} {workload}: {out.stderr.strip().splitlines()[-1:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return result["seconds"], result["check"]


def compare(old: Path, new: Path, name: str, params: dict[str, str], workload: str, pairs: int) -> str:
    """One row: the median old/new ratio over ``pairs`` alternating runs, or FAILED."""
    ratios, old_times, new_times = [], [], []
    for _ in range(pairs):
        t_old, c_old = run(old, name, params, workload)
        t_new, c_new = run(new, name, params, workload)
        if c_old != c_new:
            return f"| {name} | {workload} | | | FAILED: {c_old} before, {c_new} now |"
        old_times.append(t_old)
        new_times.append(t_new)
        ratios.append(t_old / t_new)
    ratio = statistics.median(ratios)
    verdict = "ok" if ratio >= 0.95 else "SLOWER by more than 5%"
    return (f"| {name} | {workload} | {statistics.median(old_times) * 1000:.1f} | "
            f"{statistics.median(new_times) * 1000:.1f} | {ratio:.2f}x {verdict} |")


def against(commit: str, pairs: int = 3, only: str = "") -> list[str]:
    """The table of every game and workload, this checkout against ``commit``."""
    with tempfile.TemporaryDirectory(prefix="gdl-against-") as tmp:
        old = Path(tmp) / "old"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(old), commit], check=True)
        try:
            rows = [f"this checkout against {commit}, median of {pairs} alternating pairs "
                    "(ratio = old time / new time: > 1 means faster now)", "",
                    "| game | workload | old ms | new ms | ratio |", "| --- | --- | ---: | ---: | --- |"]
            for name, (params, solvable) in GAMES.items():
                if only and only not in name:
                    continue
                for workload in ("load", "playouts") + (("solve",) if solvable else ()):
                    rows.append(compare(old, ROOT, name, params, workload, pairs))
                    print(rows[-1], flush=True)
            return rows
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)], check=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("commit", help="the earlier commit (e.g. cf69056, before the compiler split)")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--only", default="", help="only the games whose name contains this")
    args = ap.parse_args()
    rows = against(args.commit, args.pairs, args.only)
    print("\n".join(rows))
    if any("FAILED" in r or "SLOWER" in r for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
