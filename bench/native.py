"""The native back end's benchmark rows (issue 14), measured in one run and written to bench/RESULTS.md.

    python bench/native.py            # measure, print, and replace the native section of bench/RESULTS.md
    python bench/native.py --print    # measure and print only
    python bench/native.py --big      # also Connect-Four 6x5, 7x5 and 6x6 (minutes each; 15 minutes at most)
    python bench/native.py --only m,n,k   # only the reference rows whose label has this text; printed only

Rows:

* exact solve, C back end against the hand-written C reference solvers of bench/ref/ (whole command
  against whole command: a new process each, the module already in the cache);
* (``--big``) ``gdl solve connect4 -p cols=C -p rows=R --backend c`` for the boards issue 14 names;
* Pig with goal 100, solved exactly: the C state graph against the Python back end, in one run;
* Pig (goal 20), expectimax with Star2 pruning to a depth: the C search against the Python back end's, in one run;
* MCTS simulations per second, C back end against OpenSpiel's C++ ``pyspiel.MCTSBot`` (random
  rollouts, same simulation count, solver off), single-threaded.

The C back end's games are compiled from their rule files (``gdl.load(..., backend="c")``). The
reference rows give two ratios: the whole command (``gdl solve ... --backend c``: Python start-up, loading,
the solve, every root move's value, the walk for the distance to the end, printing) against the whole
reference program, and the search alone (``solver.exact.solve(game, all_best=False)`` in this process, the
module loaded) against the same reference program.
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
from solver.exact import solve  # noqa: E402
from solver.files import replace_text  # noqa: E402
from solver.limits import Limits  # noqa: E402
from solver.mcts import mcts  # noqa: E402

DOMINEERING = str(ROOT / "tests" / "solvefiles" / "domineering.gdl")
MARK_BEGIN = "<!-- native back end: begin -->"
MARK_END = "<!-- native back end: end -->"


def native_game(name: str, params: dict[str, str]) -> tuple[gdl.CompiledGame, gdl.CompiledGame]:
    """The C and the Python back end of one rule file (a bundled game's name or a path)."""
    return gdl.load(name, params, backend="c"), gdl.load(name, params)


def timed(fn) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def user_env() -> dict[str, str]:
    """The environment of a user's shell: Python keeps its byte-code caches (an installed package has them;
    a machine that sets PYTHONDONTWRITEBYTECODE would compile every module at every start-up instead)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def command_time(args: list[str], env: dict[str, str] | None = None,
                 timeout: float | None = None, warm: bool = False) -> tuple[float, float, str]:
    """Wall-clock and CPU (user + system) seconds of a whole command, and its output. ``warm``: run it once
    untimed first (byte-code and build caches filled, as on a user's second run)."""
    if warm:
        subprocess.run(args, capture_output=True, text=True, check=True, env=env, timeout=timeout)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = subprocess.run(args, capture_output=True, text=True, check=True, env=env, timeout=timeout).stdout
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out.strip()


REF_CASES: list[tuple[str, str, dict[str, str], list[str]]] = [
    ("Connect-Four 5x5", "connect4", {"cols": "5", "rows": "5"}, ["5", "5"]),
    ("Connect-Four 6x4", "connect4", {"cols": "6", "rows": "4"}, ["6", "4"]),
    ("Domineering 6x6 (Vertical first, as the rule file)", "domineering", {"n": "6"}, ["6", "6", "v"]),
    ("m,n,k (4,4,4)", "mnk", {"m": "4", "n": "4", "k": "4"}, ["4", "4", "4"]),
]
"""(label, reference program, our parameters, its arguments): the reference solvers of issue 14."""


def ref_rows(directory: Path, only: str | None = None) -> list[str]:
    rows = []
    for label, program, params, argv in REF_CASES:
        if only is not None and only not in label:
            continue
        name = DOMINEERING if program == "domineering" else program
        ref_wall, ref_cpu, ref_out = command_time([str(build_ref(program, directory)), *argv])
        native, _ = native_game(name, params)  # the module is in the cache before the timed command
        search_time, result = timed(lambda n=native: solve(n, all_best=False))
        command = [sys.executable, "-m", "gdl", "solve", name, *(f"-p{k}={v}" for k, v in params.items()),
                   "--backend", "c", "--json"]
        wall, cpu, out = command_time(command, env=user_env(), warm=True)
        import json

        answer = json.loads(out)
        assert tuple(answer["value"].values()) == result.value  # type: ignore[attr-defined]
        rows.append(f"| {label} exact, whole command, CPU time | bench/ref/{program}.c (cc -O2) | {cpu:.2f} s | "
                    f"{ref_cpu:.2f} s | {ref_cpu / cpu:.2f}x | wall: ours {wall:.2f} s, ref {ref_wall:.2f} s; ours "
                    f"value {result.value} (`gdl solve ... --backend c`: start-up, load, solve, every root move's "  # type: ignore[attr-defined]
                    f"value, the distance walk); ref: {ref_out} |")
        quick_wall, quick_cpu, _ = command_time([*command, "--value-only", "--threads", "1"], env=user_env(),
                                                warm=True)
        rows.append(f"| {label} exact, `--value-only --threads 1`, CPU time | bench/ref/{program}.c (cc -O2) | "
                    f"{quick_cpu:.2f} s | {ref_cpu:.2f} s | {ref_cpu / quick_cpu:.2f}x | wall: ours "
                    f"{quick_wall:.2f} s; the same work as the reference program: the value and one best move, "
                    "one thread |")
        rows.append(f"| {label} exact, the search alone | bench/ref/{program}.c, whole program | {search_time:.2f} s | "
                    f"{ref_cpu:.2f} s | {ref_cpu / search_time:.2f}x | `solver.exact.solve(game, all_best=False)`, "
                    f"{result.stats.nodes:,} nodes (ref: {ref_out.split('nodes')[-1].strip()} nodes) |")  # type: ignore[attr-defined]
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


def pig_rows() -> list[str]:
    """Pig with goal 100 (Neller & Presser 2004: the first player wins with probability 0.530593), solved
    exactly by value iteration: the C state graph against the Python back end's, in this process."""
    native, python = native_game("pig", {"goal": "100"})
    c_time, ours = timed(lambda: solve(native))
    py_time, theirs = timed(lambda: solve(python))
    assert abs(ours.value[0] - theirs.value[0]) < 1e-9  # type: ignore[attr-defined]
    win = (1 + ours.value[0]) / 2  # type: ignore[attr-defined]
    command = [sys.executable, "-m", "gdl", "solve", "pig", "-pgoal=100", "--backend", "c", "--json"]
    wall, cpu, _ = command_time(command, env=user_env(), warm=True)
    stats = ours.stats  # type: ignore[attr-defined]
    return [f"| Pig goal 100 exact (value iteration), the solve | the Python back end, same process | "
            f"{c_time:.2f} s | {py_time:.2f} s | {py_time / c_time:.1f}x | first player wins with probability "
            f"{win:.6f} (published 0.530593); {stats.tt_size:,} states, {stats.nodes:,} nodes, "
            f"{stats.iterations} sweeps at most; the whole command `gdl solve pig -p goal=100 --backend c` "
            f"{wall:.2f} s wall, {cpu:.2f} s CPU |"]


def expectimax_rows() -> list[str]:
    """Depth-limited expectimax with Star2 pruning on Pig (goal 20, the default): the C search against the Python
    search on the Python back end, in this process; the two results are equal field by field."""
    from solver.expectimax import expectimax

    native, python = native_game("pig", {})
    rows = []
    for depth, use_tt in ((12, True), (8, False)):
        limits = Limits(depth=depth)
        c_time, ours = timed(lambda d=limits, t=use_tt: expectimax(native, limits=d, pruning="star2", use_tt=t))
        py_time, theirs = timed(lambda d=limits, t=use_tt: expectimax(python, limits=d, pruning="star2", use_tt=t))
        assert ours.value == theirs.value and ours.stats.nodes == theirs.stats.nodes  # type: ignore[attr-defined]
        table = "with the table" if use_tt else "no table"
        rows.append(f"| Pig goal 20, expectimax Star2 depth {depth}, {table} | the Python back end, same process | "
                    f"{c_time:.2f} s | {py_time:.2f} s | {py_time / c_time:.1f}x | "
                    f"{ours.stats.nodes:,} nodes on both |")  # type: ignore[attr-defined]
    return rows


BIG_BOARDS = [("6", "5", "draw"), ("7", "5", "draw"), ("6", "6", "second player wins")]
BIG_SECONDS = 900


def big_rows() -> list[str]:
    rows = []
    for cols, rows_, known in BIG_BOARDS:
        command = [sys.executable, "-m", "gdl", "solve", "connect4", f"-pcols={cols}", f"-prows={rows_}", "--backend",
                   "c", "--json"]
        try:
            wall, cpu, out = command_time(command, timeout=BIG_SECONDS)
        except subprocess.TimeoutExpired:
            rows.append(f"| Connect-Four {cols}x{rows_} exact, whole command | (known: {known}) | not solved in "
                        f"{BIG_SECONDS} s | — | — | stopped |")
            continue
        import json

        answer = json.loads(out)
        rows.append(f"| Connect-Four {cols}x{rows_} exact, whole command | (known: {known}) | {wall:.0f} s wall, "
                    f"{cpu:.0f} s CPU | — | — | value {answer['value']}, {answer['stats']['nodes']:,} nodes |")
    return rows


def main() -> None:
    import tempfile

    started = time.perf_counter()
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv[:-1] else None
    with tempfile.TemporaryDirectory() as temp:
        if only is not None:  # some reference rows, printed only (a partial table would replace the whole one)
            print("\n".join(ref_rows(Path(temp), only)))
            return
        rows = (ref_rows(Path(temp)) + pig_rows() + expectimax_rows() + mcts_rows()
                + (big_rows() if "--big" in sys.argv else []))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    header = [
        MARK_BEGIN,
        "## Native back end (issue 14)",
        "",
        f"`python bench/native.py` on CPython {platform.python_version()}, {platform.machine()}, "
        f"{time.strftime('%Y-%m-%d %H:%M')}, in {time.perf_counter() - started:.0f} s; load average at the end "
        f"{load:.1f} on {os.cpu_count()} cores (a shared machine: ratios measured in this one run). The C back end's "
        "games are compiled from their rule files. Ratio = "
        "reference time / ours (> 1: ours faster); for MCTS, ours / theirs in simulations per second.",
        "",
        "| workload | reference | ours | reference | ratio | notes |",
        "| --- | --- | ---: | ---: | ---: | --- |",
    ]
    section = "\n".join([*header, *rows, MARK_END]) + "\n"
    print(section)
    if "--print" in sys.argv:
        return
    replace_section(ROOT / "bench" / "RESULTS.md", MARK_BEGIN, MARK_END, section)


def write_results_section(begin: str, end: str, title: str, command: str, seconds: float, how: str,
                          table: str) -> None:
    """A table as its own section of bench/RESULTS.md, headed by the command, when and where it ran, and
    ``how`` it measures (replacing the last run's section)."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    section = "\n".join([
        begin, f"## {title}", "",
        f"`{command}` on CPython {platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M')}, in {seconds:.0f} s; "
        f"load average at the end {load:.1f} on {os.cpu_count()} cores. {how}", "", table, end]) + "\n"
    replace_section(ROOT / "bench" / "RESULTS.md", begin, end, section)


def replace_section(results: Path, begin: str, end: str, section: str) -> None:
    """Put ``section`` (from the ``begin`` marker to the ``end`` one) in ``results`` in place of the last
    run's, or at its end (bench/backends.py writes its own section the same way)."""
    text = results.read_text(encoding="utf-8")
    if begin in text:
        text = text[:text.index(begin)] + section + text[text.index(end) + len(end) + 1:]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    replace_text(results, text, "a results file")  # only over a regular file (solver/files.py)


if __name__ == "__main__":
    main()
