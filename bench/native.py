"""The native back end's benchmark rows (issue 14), measured in one run and written to bench/RESULTS.md.

    python bench/native.py            # measure, print, and replace the native section of bench/RESULTS.md
    python bench/native.py --print    # measure and print only

Rows:

* exact solve, C back end against the Python back end (same rule file, same solver API);
* exact solve, C back end against the hand-written C reference solvers of bench/ref/ (whole command
  against whole command: a new process each, the module already in the cache);
* MCTS simulations per second, C back end against OpenSpiel's C++ ``pyspiel.MCTSBot`` (random
  rollouts, same simulation count, solver off), single-threaded.

Until the compiler builds the IR from rule files, the C back end's games come from the hand-written
IR of tests/native_ir.py (tic-tac-toe, Connect-Four); the rows say so. Games without IR are listed as
not measured.
"""

from __future__ import annotations

import math
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gdl  # noqa: E402
from bench.ref.run import build as build_ref  # noqa: E402
from gdl.native.game import NativeGame, compile_native  # noqa: E402
from solver.exact import solve  # noqa: E402
from solver.limits import Limits  # noqa: E402
from solver.mcts import mcts  # noqa: E402
from tests import native_ir  # noqa: E402

DOMINEERING = str(ROOT / "tests" / "solvefiles" / "domineering.gdl")
MARK_BEGIN = "<!-- native back end: begin -->"
MARK_END = "<!-- native back end: end -->"


def native_game(name: str, params: dict[str, str]) -> tuple[NativeGame, gdl.CompiledGame]:
    python = gdl.load(name, params)
    if name == "tictactoe":
        program = native_ir.tictactoe()
    elif name == DOMINEERING:
        program = native_ir.domineering(int(params["n"]))
    else:
        program = native_ir.connect4(int(params.get("cols", "7")), int(params.get("rows", "6")))
    return compile_native(python, program), python


def timed(fn) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def solve_rows() -> list[str]:
    rows = []
    for name, params, python_too in [("tictactoe", {}, True), ("connect4", {"cols": "4", "rows": "4"}, True),
                                     ("connect4", {"cols": "5", "rows": "4"}, True),
                                     ("connect4", {"cols": "6", "rows": "4"}, False),
                                     ("connect4", {"cols": "5", "rows": "5"}, False),
                                     (DOMINEERING, {"n": "5"}, True)]:
        native, python = native_game(name, params)
        c_time, c_result = timed(lambda n=native: solve(n))
        label = f"{Path(name).stem} {' '.join(f'{k}={v}' for k, v in params.items())}".strip()
        if python_too:
            p_time, p_result = timed(lambda p=python: solve(p))
            assert p_result.value == c_result.value  # type: ignore[attr-defined]
            rows.append(f"| exact solve {label} | Python back end | {c_time:.3f} s | {p_time:.3f} s | "
                        f"{p_time / c_time:.1f}x | value {c_result.value} on both |")  # type: ignore[attr-defined]
        else:
            rows.append(f"| exact solve {label} | (C only; the Python back end takes 13-18 s here, bench/RESULTS.md) "
                        f"| {c_time:.3f} s | — | — | value {c_result.value}, {c_result.stats.nodes:,} nodes |")  # type: ignore[attr-defined]
    return rows


def command_time(args: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Wall-clock and CPU (user + system) seconds of a whole command, and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = subprocess.run(args, capture_output=True, text=True, check=True, env=env).stdout
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out.strip()


def ref_rows(directory: Path) -> list[str]:
    rows = []
    c4 = build_ref("connect4", directory)
    for cols, rows_ in (("5", "5"), ("6", "4")):
        ref_wall, ref_cpu, ref_out = command_time([str(c4), cols, rows_])
        script = ("import sys; sys.path.insert(0, sys.argv[1]); from bench.native import native_game; "
                  "from solver.exact import solve; g, _ = native_game('connect4', {'cols': sys.argv[2], "
                  "'rows': sys.argv[3]}); print(solve(g).value)")
        native_game("connect4", {"cols": cols, "rows": rows_})  # the module is in the cache before the timed run
        wall, cpu, out = command_time([sys.executable, "-c", script, str(ROOT), cols, rows_])
        rows.append(f"| Connect-Four {cols}x{rows_} exact, whole command, CPU time | bench/ref/connect4.c (cc -O2) | "
                    f"{cpu:.2f} s | {ref_cpu:.2f} s | {ref_cpu / cpu:.2f}x | wall: ours {wall:.2f} s, ref "
                    f"{ref_wall:.2f} s; ours {out} (Python start-up, load, cached module, solve with all optimal "
                    f"root moves); ref: {ref_out} |")
    dom = build_ref("domineering", directory)
    ref_wall, ref_cpu, ref_out = command_time([str(dom), "6", "6", "v"])
    script = ("import sys; sys.path.insert(0, sys.argv[1]); from bench.native import native_game, DOMINEERING; "
              "from solver.exact import solve; g, _ = native_game(DOMINEERING, {'n': '6'}); print(solve(g).value)")
    native_game(DOMINEERING, {"n": "6"})
    wall, cpu, out = command_time([sys.executable, "-c", script, str(ROOT)])
    rows.append(f"| Domineering 6x6 (Vertical first, as the rule file) exact, whole command, CPU time | "
                f"bench/ref/domineering.c 6 6 v | {cpu:.2f} s | {ref_cpu:.2f} s | {ref_cpu / cpu:.2f}x | wall: ours "
                f"{wall:.2f} s, ref {ref_wall:.2f} s; ours {out}; ref: {ref_out} |")
    rows.append("| m,n,k (4,4,4) exact, whole command | bench/ref/mnk.c | not measured | — | — | no rule file and "
                "no IR for it yet |")
    return rows


def mcts_rows() -> list[str]:
    try:
        import pyspiel
    except ImportError:
        return ["| MCTS | pyspiel.MCTSBot | not measured | — | — | OpenSpiel is not installed |"]
    rows = []
    threads = os.cpu_count() or 1
    for name, os_name, sims in [("tictactoe", "tic_tac_toe", 200_000), ("connect4", "connect_four", 50_000)]:
        native, _ = native_game(name, {})
        c_time, result = timed(lambda n=native, k=sims: mcts(n, limits=Limits(iterations=k), seed=0, solver=False))
        ours = result.stats.iterations / c_time  # type: ignore[attr-defined]
        t_time, t_result = timed(lambda n=native, k=sims: mcts(n, limits=Limits(iterations=k), seed=0, solver=False,
                                                               threads=threads))
        parallel = t_result.stats.iterations / t_time  # type: ignore[attr-defined]
        game = pyspiel.load_game(os_name)
        per_step = 1000
        bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 0), math.sqrt(2), per_step, 1000, False, 0,
                              False)
        state = game.new_initial_state()
        steps = max(1, sims // per_step)
        os_time, _ = timed(lambda b=bot, s=state, k=steps: [b.step(s) for _ in range(k)])
        theirs = steps * per_step / os_time
        rows.append(f"| MCTS simulations/s, {name}, random rollouts, one thread | pyspiel.MCTSBot (C++) | "
                    f"{ours:,.0f}/s | {theirs:,.0f}/s | {ours / theirs:.2f}x | ours one search of {sims:,} "
                    f"simulations; OpenSpiel {steps} searches of {per_step} from the initial state; solver off on "
                    "both |")
        rows.append(f"| MCTS simulations/s, {name}, random rollouts, {threads} threads (root parallel) | "
                    f"pyspiel.MCTSBot (C++, one thread) | {parallel:,.0f}/s | {theirs:,.0f}/s | "
                    f"{parallel / theirs:.2f}x | {threads} trees sharing {sims:,} simulations |")
    return rows


def main() -> None:
    import tempfile

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as temp:
        rows = solve_rows() + ref_rows(Path(temp)) + mcts_rows()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    header = [
        MARK_BEGIN,
        "## Native back end (issue 14)",
        "",
        f"`python bench/native.py` on CPython {platform.python_version()}, {platform.machine()}, "
        f"{time.strftime('%Y-%m-%d %H:%M')}, in {time.perf_counter() - started:.0f} s; load average at the end "
        f"{load:.1f} on {os.cpu_count()} cores (a shared machine: ratios measured in this one run). The C back end's "
        "games come from the hand-written IR of tests/native_ir.py until the compiler builds the IR. Ratio = "
        "reference time / ours (> 1: ours faster); for MCTS, ours / theirs in simulations per second.",
        "",
        "| workload | reference | ours | reference | ratio | notes |",
        "| --- | --- | ---: | ---: | ---: | --- |",
    ]
    section = "\n".join([*header, *rows, MARK_END]) + "\n"
    print(section)
    if "--print" in sys.argv:
        return
    results = ROOT / "bench" / "RESULTS.md"
    text = results.read_text(encoding="utf-8")
    if MARK_BEGIN in text:
        text = text[:text.index(MARK_BEGIN)] + section + text[text.index(MARK_END) + len(MARK_END) + 1:]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    results.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
