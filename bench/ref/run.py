"""Build the hand-written C reference solvers (bench/ref/*.c) and time them, whole command against whole command.

    python bench/ref/run.py            # every case below
    python bench/ref/run.py connect4   # the cases of one solver

Each program is compiled with ``cc -O2`` into a temporary directory; the time is the wall-clock
time of the whole run (start-up, solve, exit). The cases are the ones issue 14 compares against.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES: list[tuple[str, list[str]]] = [
    ("connect4", ["5", "5"]),
    ("connect4", ["6", "4"]),
    ("domineering", ["6", "6", "v"]),
    ("domineering", ["6", "6", "h"]),
    ("mnk", ["4", "4", "4"]),
]


def build(name: str, directory: Path) -> Path:
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        raise SystemExit("no C compiler found")
    out = directory / name
    subprocess.run([compiler, "-O2", "-o", str(out), str(HERE / f"{name}.c")], check=True)
    return out


def run(only: str | None = None) -> list[tuple[str, str, float]]:
    """``(case, output, seconds)`` for every case (of the solver ``only``)."""
    rows = []
    with tempfile.TemporaryDirectory() as temp:
        programs: dict[str, Path] = {}
        for name, args in CASES:
            if only and name != only:
                continue
            if name not in programs:
                programs[name] = build(name, Path(temp))
            started = time.perf_counter()
            out = subprocess.run([str(programs[name]), *args], capture_output=True, text=True, check=True).stdout
            rows.append((f"{name} {' '.join(args)}", out.strip(), time.perf_counter() - started))
    return rows


def main() -> None:
    for case, output, seconds in run(sys.argv[1] if len(sys.argv) > 1 else None):
        print(f"{case:24} {seconds:8.2f} s   {output}")


if __name__ == "__main__":
    main()
