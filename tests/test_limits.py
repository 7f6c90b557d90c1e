"""Budgets and bad input: every search stops with a clear message, long games never overflow the stack,
and a wrong command line is one line of error with exit 2."""

from __future__ import annotations

import json
import random

import pytest

import gdl
from gdl.cli import main
from solver.exact import solve
from solver.game import CHANCE, TERMINAL
from solver.limits import Limits

LONG = """\
game LongWalk "a walk of 12000 steps"
players A, B
state n: 0..12000 = 0
move step: n += 1
move skip when n % 7 == 3: n += 1
win A when n == 12000
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ---------------------------------------------------------------- budgets of `gdl solve`


@pytest.mark.parametrize("option", [["--max-nodes", "3000"], ["--max-table", "3000"], ["--memory", "1"]])
def test_solve_caps_stop_with_an_estimate(capsys, option):
    code, out, _ = run(capsys, "solve", "connect4", *option, "--json")
    assert code == 0
    report = json.loads(out)
    assert report["stopped"] and not report["exact"]
    assert report["stop_reason"] in ("nodes", "table")
    assert report["estimate"]["log10_encodings"] > 15  # connect four: far too big
    assert 0 < report["estimate"]["states_explored"] < 10_000


def test_solve_cap_text_says_why_and_how_big(capsys):
    code, out, _ = run(capsys, "solve", "connect4", "--max-nodes", "2000")
    assert code == 0
    assert "out of nodes (--max-nodes)" in out
    assert "encodings" in out and "too big to solve exactly" in out
    assert "no value" in out


def test_solve_time_limit_gives_a_heuristic_answer(capsys):
    code, out, _ = run(capsys, "solve", "connect4", "--time", "0.3", "--json")
    assert code == 0
    assert json.loads(out)["best_moves"]


def test_small_game_within_caps_is_exact(capsys):
    code, out, _ = run(capsys, "solve", "tictactoe", "--max-nodes", "10000000", "--memory", "500", "--json")
    assert code == 0 and json.loads(out)["exact"]


def test_library_table_cap_stops_the_alphabeta_path():
    result = solve(gdl.load("connect4"), limits=Limits(table_entries=2000))
    assert result.stopped and result.stop_reason == "table" and not result.exact


# ---------------------------------------------------------------- long games, no RecursionError


def test_long_game_is_solved_without_recursion_error():
    game = gdl.load_source(LONG, "long.gdl")
    result = solve(game)
    assert result.exact and result.value == (1.0, -1.0)


def test_long_game_is_played_to_the_end():
    game = gdl.load_source(LONG, "long.gdl", checked=True)
    rng = random.Random(1)
    state, plies = game.initial_state(), 0
    while game.to_move(state) != TERMINAL:
        assert game.to_move(state) != CHANCE
        state = game.apply(state, rng.choice(game.legal_moves(state)))
        plies += 1
    assert plies > 10_000 and game.utilities(state) == (1, -1)


def test_long_game_cli_solve_and_check(capsys, tmp_path):
    path = tmp_path / "long.gdl"
    path.write_text(LONG)
    code, out, _ = run(capsys, "solve", str(path), "--json")
    assert code == 0 and json.loads(out)["exact"]
    code, out, err = run(capsys, "check", str(path), "--max-plies", "20000")
    assert code == 0, out + err
    assert "RecursionError" not in out + err


def test_long_game_watched_through_play(capsys, tmp_path):
    path = tmp_path / "long.gdl"
    path.write_text(LONG)
    code, out, err = run(capsys, "play", str(path), "--vs", "random", "--as", "none", "--seed", "3")
    assert code == 0, err
    assert "utilities: A 1, B -1" in out


# ---------------------------------------------------------------- bad command lines: one line, exit 2


@pytest.mark.parametrize("argv, words", [
    (["solve", "nosuchgame"], "no rule file or bundled game"),
    (["solve", "pig", "-p", "goal=abc"], "whole number"),
    (["solve", "pig", "-p", "goal=999"], "1..200"),
    (["solve", "pig", "-p", "nosuch=1"], "nosuch"),
    (["solve", "tictactoe", "--moves", "place(a1),fly(b2)"], "fly"),
    (["solve", "tictactoe", "--moves", "place(a1),place(a1)"], "place(a1)"),
    (["play", "tictactoe", "--moves", "nonsense", "--as", "none"], "nonsense"),
    (["solve", "tictactoe", "--max-nodes", "0"], "--max-nodes"),
    (["solve", "tictactoe", "--max-table", "-5"], "--max-table"),
    (["solve", "tictactoe", "--memory", "0"], "--memory"),
    (["solve", "tictactoe", "--time", "-1"], "--time"),
    (["info", "nosuchgame"], "no rule file"),
    (["check", "/no/such/file.gdl"], "file.gdl"),
])
def test_bad_input_is_one_line_with_exit_2(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    text = (err or out).strip()
    assert code == 2, (code, out, err)
    assert words in text
    assert "Traceback" not in out + err
    assert len(text.splitlines()) == 1, text
