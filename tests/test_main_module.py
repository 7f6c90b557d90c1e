"""`python -m gdl` and `python -m gdl.cli` behave like the `gdl` command."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("module", ["gdl", "gdl.cli"])
def test_module_entry_points_give_one_line_errors(module: str) -> None:
    run = subprocess.run([sys.executable, "-m", module, "solve", "nosuchgame"], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr and run.stderr.count("\n") == 1
    assert "no rule file or bundled game named 'nosuchgame'" in run.stderr


def test_module_entry_point_solves() -> None:
    run = subprocess.run([sys.executable, "-m", "gdl", "solve", "tictactoe", "--json"], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0 and '"X": 0.0' in run.stdout
