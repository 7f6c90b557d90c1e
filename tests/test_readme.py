"""The README's promises: its Python session runs as shown, its `gdl list` and `gdl info` samples are what
those commands print, and its Quick start matches CI."""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```(\w+)[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


def blocks(language: str) -> list[str]:
    return [m.group(2) for m in FENCE.finditer(README) if m.group(1) == language]


def test_every_python_block_of_the_readme_runs_as_shown() -> None:
    sessions = [b for b in blocks("python") if ">>>" in b]
    assert sessions, "the README has a Python API section"
    for number, session in enumerate(sessions):
        test = doctest.DocTestParser().get_doctest(session, {}, f"README.md python block {number}", "README.md", 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        assert runner.summarize(verbose=False).failed == 0


def test_quick_start_is_two_one_line_commands_in_a_venv() -> None:
    quick = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = [line for line in blocks_in(quick, "sh")[0].splitlines() if line.strip()]
    assert len(commands) == 2
    assert all(c.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install ") for c in commands)
    assert "python 3.10" in quick.lower()


def test_quick_start_tests_the_way_ci_does() -> None:
    quick = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    test_command = blocks_in(quick, "sh")[0].splitlines()[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    install = re.search(r"pip install (-e '[^']+')", test_command)
    assert install and install.group(1) in ci
    assert test_command.endswith("python -m pytest")
    assert re.search(r"^python -m pytest(\s+#.*)?$", ci, re.MULTILINE), "CI runs the whole suite, slow tests too"
    assert 'python -m pytest -m "not slow"' in quick  # the documented fast subset


def blocks_in(text: str, language: str) -> list[str]:
    return [m.group(2) for m in FENCE.finditer(text) if m.group(1) == language]


SAMPLE_COLUMNS = "96"
"""The width the README's command samples were pasted at (its "A session with each command" says so)."""
CHECKED_SAMPLES = ("gdl list", "gdl info games/pig.gdl")
"""The samples whose output does not depend on the machine (no timings): each is run and compared."""


def sample(command: str) -> str:
    """The output the README shows for ``$ command`` (the rest of its console block)."""
    block = next(b for b in blocks("console") if b.startswith(f"$ {command}\n"))
    return block.split("\n", 1)[1]


@pytest.mark.parametrize("command", CHECKED_SAMPLES)
def test_command_samples_are_what_the_command_prints(command: str) -> None:
    # the README showed 14 games of 18 and another path than `gdl info` prints: samples are checked now
    argv = command.split()[1:]
    if argv[0] == "info":
        argv += ["--time", "3600"]  # (the sample's 200 playouts, however busy the machine: the default is 10 s)
    env = {**os.environ, "COLUMNS": SAMPLE_COLUMNS, "NO_COLOR": "1"}
    env.pop("FORCE_COLOR", None)
    result = subprocess.run([sys.executable, "-m", "gdl", *argv], capture_output=True, text=True, cwd=ROOT,
                            env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    printed = "\n".join(line.rstrip() for line in result.stdout.splitlines()) + "\n"
    assert printed == sample(command), f"README.md's `{command}` sample differs from what it prints"


def test_the_readme_says_the_width_of_its_samples() -> None:
    assert f"{SAMPLE_COLUMNS} columns wide" in README
