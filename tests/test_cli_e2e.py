"""End-to-end: the real ``gdl`` executable in a subprocess (or a pseudo-terminal). Kept few and small."""

from __future__ import annotations

import os
import shutil
import subprocess

import pexpect
import pytest

GDL = shutil.which("gdl")
pytestmark = pytest.mark.skipif(GDL is None, reason="the gdl console script is not installed (pip install -e .)")
ENV = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}


def gdl(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GDL, *args], capture_output=True, text=True, timeout=timeout, env=ENV)


def test_check_bundled_games_exit_zero():
    result = gdl("check", "tictactoe", "connect4", "pig", "--playouts", "20")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 files checked: 0 errors" in result.stdout
    assert result.stderr == ""


def test_user_mistakes_never_print_a_traceback(tmp_path):
    latin = tmp_path / "latin.gdl"
    latin.write_bytes(b"game T\n\xe9\n")
    for args, status in [
        (("solve", "nosuchgame"), 2),
        (("info", "connect4", "-p", "cols=x"), 2),
        (("check", str(tmp_path / "missing.gdl")), 2),
        (("check", str(tmp_path)), 2),
        (("check", str(latin)), 1),
        (("play", "tictactoe", "--moves", "place(z9)"), 2),
        (("list", "--frobnicate"), 2),
    ]:
        result = gdl(*args)
        assert result.returncode == status, (args, result.stdout, result.stderr)
        assert "Traceback" not in result.stdout + result.stderr, args


def _prompt(child: pexpect.spawn) -> str:
    """Wait for the human's prompt or the end of the game; returns which."""
    index = child.expect([r"X> ", r"game over: (draw|\w+ wins)"])
    return "prompt" if index == 0 else child.match.group(1)


def test_play_tictactoe_in_a_pseudo_terminal():
    child = pexpect.spawn(GDL, ["play", "tictactoe", "--vs", PLAY_AGENT, "--seed", "1"], env=ENV,
                          encoding="utf-8", timeout=30, dimensions=(40, 100))
    try:
        assert _prompt(child) == "prompt"
        child.sendline("nonsense")
        child.expect(r"error: 'nonsense' is not a move of TicTacToe")
        child.expect(r"X> ")
        child.sendline("b2")
        assert _prompt(child) == "prompt"
        child.sendline("place(b2)")  # taken: illegal, and the game goes on
        child.expect(r"error: 'place\(b2\)' is not legal here")
        result = _prompt(child)
        while result == "prompt":
            child.sendline("moves")
            child.expect(r"legal moves: ([^\r\n]*)")
            first = child.match.group(1).split(", ")[0]
            child.expect(r"X> ")
            child.sendline(first)
            result = _prompt(child)
        assert result in PLAY_OUTCOMES
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


PLAY_AGENT = "random"
PLAY_OUTCOMES = {"draw", "O wins", "X wins"}
