"""End-to-end: the real ``gdl`` executable in a subprocess (or a pseudo-terminal). Kept few and small."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess

import pexpect
import pytest
from busy import wait_until_busy

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


@pytest.mark.slow
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


PLAY_AGENT = "perfect"
PLAY_OUTCOMES = {"draw", "O wins"}  # the human cannot beat the perfect player


def test_solve_tictactoe_json():
    result = gdl("solve", "tictactoe", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)  # exactly one JSON object, nothing else on stdout
    assert report["game"] == "TicTacToe" and report["players"] == ["X", "O"]
    assert report["value"] == {"X": 0, "O": 0}
    assert report["exact"] is True
    assert len(report["best_moves"]) == 9 and len(report["principal_variation"]) == 9
    assert report["stats"]["nodes"] > 0 and report["stats"]["seconds"] >= 0
    assert report["parameters"] == {}


@pytest.mark.slow
def test_solve_connect4_4x4_is_a_draw():
    result = gdl("solve", "connect4", "-p", "cols=4", "-p", "rows=4", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["value"] == {"Red": 0, "Yellow": 0}
    assert report["parameters"] == {"cols": 4, "rows": 4, "k": 4}


LONG_SOLVE = ("solve", "connect4", "-p", "cols=6", "-p", "rows=4")  # tens of seconds: interrupted long before the end


def test_long_solve_shows_progress_on_a_terminal_and_stops_cleanly_on_ctrl_c():
    child = pexpect.spawn(GDL, list(LONG_SOLVE), env=ENV, encoding="utf-8", timeout=30, dimensions=(40, 120))
    try:
        child.expect(r"solving ConnectFour.*?([\d,]+) nodes")  # the live spinner
        child.kill(signal.SIGINT)
        child.expect(r"interrupted: the best result so far")
        child.expect(r"nodes in")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 130
    assert "Traceback" not in (child.before or "")


@pytest.mark.slow
def test_long_solve_without_a_terminal_has_no_progress_and_stops_on_sigint():
    process = subprocess.Popen([GDL, *LONG_SOLVE], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=ENV)
    wait_until_busy(process)  # well into the search, whatever the machine's load
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, out + err
    assert "solving ConnectFour" not in out + err  # no live display when stdout is not a terminal
    assert "\x1b[" not in out
    assert "interrupted: the best result so far" in out
    assert "Traceback" not in out + err


def test_match_of_three_agents_prints_a_three_way_table():
    result = gdl("match", "tictactoe", "random", "mcts", "alphabeta:depth=2", "--games", "6")
    assert result.returncode == 0, result.stdout + result.stderr
    first_table = result.stdout.split("└")[0]
    rows = [line for line in first_table.splitlines() if line.startswith("│")]
    labels = [row.split("│")[1].strip() for row in rows]
    assert labels == ["random", "mcts:iterations=1000", "alphabeta:depth=2"]  # settings in every label
    for row in rows:  # each agent played 4 games: 2 as X and 2 as O
        cells = [c.strip() for c in row.split("│")[1:-1]]
        assert sum(map(int, cells[1].split("-"))) == 4
        assert [sum(map(int, c.split("-"))) for c in cells[-2:]] == [2, 2]
    assert "round robin of 3 agents" in result.stdout and "Elo 95% CI" in result.stdout
    assert "head to head" in result.stdout


def test_a_quit_game_record_replays(tmp_path):
    record = tmp_path / "game.json"
    child = pexpect.spawn(GDL, ["play", "tictactoe", "--vs", "random", "--seed", "5", "--record", str(record)],
                          env=ENV, encoding="utf-8", timeout=30, dimensions=(40, 100))
    try:
        child.expect(r"X> ")
        child.sendline("b2")
        child.expect(r"O plays \S*?(place\(\w+\))")
        reply = child.match.group(1)
        child.expect(r"X> ")
        child.sendline("quit")
        child.expect(r"game recorded in")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    entry = json.loads(record.read_text())["games"][0]
    assert [m["move"] for m in entry["moves"]] == ["place(b2)", reply] and entry["result"]["end"] == "quit"

    replay = gdl("replay", str(record))  # not a terminal: every position in turn
    assert replay.returncode == 0, replay.stderr
    assert "1. X: place(b2)" in replay.stdout and f"2. O: {reply}" in replay.stdout
    assert "quit after 2 moves" in replay.stdout

    child = pexpect.spawn(GDL, ["replay", str(record)], env=ENV, encoding="utf-8", timeout=30, dimensions=(40, 100))
    try:  # on a terminal: Enter steps, q stops
        child.expect(r"\[move 1/2\] Enter: next, q: quit")
        child.sendline("")
        child.expect(r"1\. X: \S*place\(b2\)")
        child.expect(r"\[move 2/2\]")
        child.sendline("q")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
