"""Bugs in a rule file met while a command runs: dead ends and run-time rule errors.

Every command (``solve`` with each algorithm, ``play``, ``match``, ``info``) prints one
diagnostic like ``gdl check`` does (file:line:col, caret, the moves that reach it), exits 1,
and never prints a traceback or a value. The solvers raise one error type for a dead end.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import gdl
from gdl.cli import main
from solver import alphabeta, exact, expectimax, mcts, minimax
from solver.agents import RandomAgent
from solver.game import DeadEndError
from solver.limits import Limits
from solver.match import play_game
from solver.shortest_path import solve_puzzle
from tests.native_games import skip_reason as native_skip_reason

HERE = Path(__file__).parent / "deadends"
STUCK = str(HERE / "second_player_stuck.gdl")  # B has no move after A's only move `a`
SIX_NINES = str(HERE / "six_nines.gdl")  # only pick(9) six times in a row reaches the dead end
CHANCE_STUCK = str(HERE / "chance_stuck.gdl")  # B has no move after the roll d=3
OVERFLOW = str(HERE / "overflow.gdl")  # the docs' mistake: n += k leaves 0..5
NEAR_AND_FAR = str(HERE / "near_and_far.gdl")  # B stuck after `jump`, and after `step,step,step` (searched first)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def strict_json(text: str) -> object:
    def refuse(name: str) -> object:
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


def assert_one_diagnostic(err: str, code: str, moves: str | None) -> None:
    assert "Traceback" not in err
    assert err.count(f"error[{code}]") == 1, err
    assert "^" in err  # the caret under the rule
    if moves is not None:
        assert f"note: reproduce with the moves: {moves}\n" in err, err


# ------------------------------------------------------------------ the solvers


SEARCHES = {
    "exact": lambda g: exact.solve(g),
    "backward": lambda g: exact.solve(g, method="backward"),
    "value_iteration": lambda g: exact.solve(g, method="value_iteration"),
    "alphabeta depth 4": lambda g: alphabeta.alphabeta(g, limits=Limits(depth=4)),
    "minimax": lambda g: minimax.minimax(g),
    "expectimax": lambda g: expectimax.expectimax(g),
    "expectimax depth 3": lambda g: expectimax.expectimax(g, limits=Limits(depth=3)),
    "mcts": lambda g: mcts.mcts(g, limits=Limits(iterations=500), seed=1),
    "random match": lambda g: play_game(g, [RandomAgent(g, 1), RandomAgent(g, 2)], (0, 1), random.Random(0)),
}


@pytest.mark.parametrize("name", SEARCHES)
def test_every_algorithm_raises_the_dead_end_with_its_line(name):
    game = gdl.load(STUCK)
    with pytest.raises(DeadEndError) as caught:
        SEARCHES[name](game)
    assert caught.value.player == 1 and caught.value.who == "B"
    assert [str(m) for m in caught.value.moves] == ["a"]


@pytest.mark.parametrize("name", ["exact", "backward", "value_iteration", "minimax", "expectimax", "mcts"])
def test_a_dead_end_behind_chance(name):
    game = gdl.load(CHANCE_STUCK)
    with pytest.raises(DeadEndError) as caught:
        SEARCHES[name](game)
    assert [str(m) for m in caught.value.moves] == ["roll", "d=3"]


@pytest.mark.parametrize("name", ["backward", "value_iteration", "minimax", "expectimax"])
def test_a_dead_end_one_line_reaches(name):
    game = gdl.load(SIX_NINES)
    with pytest.raises(DeadEndError) as caught:
        SEARCHES[name](game)
    assert [str(m) for m in caught.value.moves] == ["pick(9)", "pass"] * 5 + ["pick(9)"]


def test_a_puzzle_dead_end():
    source = """game Stuck "a puzzle that gets stuck"
players Solo
state n: 0..3 = 0
move step() when n < 2: n += 1
win Solo when n == 3
"""
    game = gdl.load_source(source, "stuck_puzzle.gdl")
    with pytest.raises(DeadEndError) as caught:
        solve_puzzle(game, game.initial_state())
    assert [str(m) for m in caught.value.moves] == ["step", "step"]


def test_the_dead_end_error_is_a_value_error_and_is_cheap_to_carry():
    error = DeadEndError((0,), 1, "B")
    error.prepend("b").prepend("a")
    assert isinstance(error, ValueError)
    assert error.moves == ["a", "b"]
    assert "B is to move but has no legal move" in str(error) and "a,b" in str(error)


# ------------------------------------------------------------------ the commands


@pytest.mark.parametrize("algorithm", ["auto", "alphabeta", "backward", "retrograde", "value_iteration",
                                       "expectimax", "minimax"])
def test_solve_reports_the_second_player_stuck(capsys, algorithm):
    code, out, err = run(capsys, "solve", STUCK, "--algorithm", algorithm)
    assert code == 1 and out == ""
    assert_one_diagnostic(err, "dead-end", "a")
    assert "B is to move but has no legal move" in err and "inf" not in err


@pytest.mark.parametrize("extra", [["--depth", "3"], ["--time", "1"], ["--max-nodes", "100"]])
def test_solve_with_a_budget_reports_the_dead_end(capsys, extra):
    code, _, err = run(capsys, "solve", STUCK, *extra)
    assert code == 1
    assert_one_diagnostic(err, "dead-end", "a")


def test_solve_json_reports_the_dead_end_as_one_error_object(capsys):
    code, out, err = run(capsys, "solve", STUCK, "--json")
    assert code == 1
    report = strict_json(out)
    assert isinstance(report, dict) and set(report) == {"schema_version", "error"}
    error = report["error"]
    assert error["code"] == "dead-end" and error["moves"] == ["a"]
    assert error["diagnostics"][0]["code"] == "dead-end"
    assert "error[dead-end]" in err


@pytest.mark.parametrize("algorithm", ["auto", "alphabeta", "backward", "value_iteration", "minimax", "expectimax"])
def test_solve_finds_the_six_nines(capsys, algorithm):
    # alpha-beta proves A's win by its first move without visiting the dead end; the sweep after it finds it
    code, _, err = run(capsys, "solve", SIX_NINES, "--algorithm", algorithm)
    assert code == 1
    assert_one_diagnostic(err, "dead-end", ",".join(["pick(9)", "pass"] * 5 + ["pick(9)"]))


@pytest.mark.parametrize("backend", ["python", pytest.param("c", marks=pytest.mark.skipif(
    native_skip_reason() is not None, reason=native_skip_reason() or ""))])
@pytest.mark.parametrize("algorithm", ["auto", "alphabeta", "backward", "minimax"])
def test_solve_reports_the_nearest_dead_end_as_check_does(capsys, backend, algorithm):
    """Alpha-beta meets `step,step,step` first; the report is the nearest dead end, `jump`, on both back ends."""
    code, _, err = run(capsys, "solve", NEAR_AND_FAR, "--algorithm", algorithm, "--backend", backend)
    assert code == 1
    assert_one_diagnostic(err, "dead-end", "jump")
    code, out, _ = run(capsys, "check", NEAR_AND_FAR)
    assert code == 1 and "note: reproduce with the moves: jump\n" in out


def test_solve_finds_the_six_nines_on_a_slow_machine(capsys, monkeypatch):
    """The sweep for dead ends after a pruned solve is bounded in states, not seconds: a machine whose clocks run
    fast (a busy one, tests/warp.py) finds the same dead end (its clock stopped the sweep there, and the solve
    printed A's win as if the rules had no bug)."""
    from warp import warp_clocks

    expected = run(capsys, "solve", SIX_NINES)
    assert expected[0] == 1
    assert_one_diagnostic(expected[2], "dead-end", ",".join(["pick(9)", "pass"] * 5 + ["pick(9)"]))
    warp_clocks(monkeypatch, 5.0)
    assert run(capsys, "solve", SIX_NINES) == expected


SIXTH_PICK = ('game Sixth "the sixth pick overflows the round counter"\nplayers A, B\nstate total: 0..100 = 0\n'
              "state rounds: 0..5 = 0\nmove pick(d: 0..9):\n    total += d\n    rounds += 1\nwin A when total > 200\n")
"""A run-time error six plies deep behind some hundred states: the shortest line is searched for after the solve."""


def test_solve_finds_the_shortest_line_to_a_runtime_error_on_a_slow_machine(capsys, monkeypatch, tmp_path):
    """The search for the shortest line to a run-time error is bounded in steps, not seconds: a machine whose
    clocks run fast (tests/warp.py) reports the same line (its 10 seconds ran out there: "the moves that reach
    it were not found")."""
    from warp import warp_clocks

    path = tmp_path / "sixth.gdl"
    path.write_text(SIXTH_PICK)
    expected = run(capsys, "solve", str(path))
    assert expected[0] == 1
    assert_one_diagnostic(expected[2], "runtime-error", ",".join(["pick(0)"] * 6))
    warp_clocks(monkeypatch, 0.5)
    assert run(capsys, "solve", str(path)) == expected


def test_solve_after_moves_gives_the_whole_line(capsys):
    code, _, err = run(capsys, "solve", SIX_NINES, "--moves", "pick(9),pass", "--algorithm", "backward")
    assert code == 1
    assert_one_diagnostic(err, "dead-end", ",".join(["pick(9)", "pass"] * 5 + ["pick(9)"]))


def test_solve_chance_dead_end(capsys):
    code, _, err = run(capsys, "solve", CHANCE_STUCK)
    assert code == 1
    assert_one_diagnostic(err, "dead-end", "roll,d=3")


def test_play_reports_the_dead_end(capsys):
    code, out, err = run(capsys, "play", STUCK, "--as", "none", "--vs", "random")
    assert code == 1
    assert_one_diagnostic(err, "dead-end", "a")
    assert "utilities" not in out


def test_play_against_perfect_reports_the_dead_end(capsys, monkeypatch):
    monkeypatch.setattr("builtins.input", lambda prompt="": "a")
    code, _, err = run(capsys, "play", STUCK)
    assert code == 1
    assert_one_diagnostic(err, "dead-end", "a")


@pytest.mark.parametrize("agents", [("random", "random"), ("perfect", "random"), ("mcts:iterations=50", "random"),
                                    ("alphabeta:depth=2", "minimax:depth=2")])
def test_match_reports_the_dead_end(capsys, agents):
    code, _, err = run(capsys, "match", STUCK, *agents, "--games", "2")
    assert code == 1
    assert_one_diagnostic(err, "dead-end", "a")


def test_info_reports_the_dead_end(capsys):
    code, _, err = run(capsys, "info", STUCK)
    assert code == 1
    assert_one_diagnostic(err, "dead-end", "a")


# ------------------------------------------------------------------ run-time rule errors


def test_solve_reports_the_runtime_error_where_it_searches(capsys):
    code, out, err = run(capsys, "solve", OVERFLOW, "--algorithm", "backward")
    assert code == 1 and out == ""
    assert_one_diagnostic(err, "runtime-error", "add(3),add(3)")
    assert "overflow.gdl:4:25" in err and "outside the variable's domain 0..5" in err


def test_plain_solve_reports_the_runtime_error_it_pruned(capsys):
    # alpha-beta wins by add(2) from n = 3 and never applies add(3) there; the sweep after the solve does
    code, out, err = run(capsys, "solve", OVERFLOW)
    assert code == 1 and out == ""
    assert_one_diagnostic(err, "runtime-error", "add(3),add(3)")
    assert "winner" not in err and "wins" not in err


def test_solve_moves_reports_the_runtime_error(capsys):
    code, _, err = run(capsys, "solve", OVERFLOW, "--moves", "add(3),add(3)")
    assert code == 1
    assert_one_diagnostic(err, "runtime-error", "add(3),add(3)")


def test_solve_json_reports_the_runtime_error(capsys):
    code, out, _ = run(capsys, "solve", OVERFLOW, "--algorithm", "minimax", "--json")
    assert code == 1
    error = strict_json(out)["error"]  # type: ignore[index]
    assert error["code"] == "runtime-error" and error["line"] == 4 and error["column"] == 25
    assert error["moves"]


def test_play_reports_the_runtime_error_with_the_moves_played(capsys, monkeypatch):
    answers = iter(["add(3)", "add(3)"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    code, _, err = run(capsys, "play", OVERFLOW, "--as", "A", "--vs", "random", "--seed", "1")
    assert code == 1
    assert_one_diagnostic(err, "runtime-error", None)
    assert "note: reproduce with the moves: add(3)," in err


def test_match_reports_the_runtime_error(capsys):
    code, _, err = run(capsys, "match", OVERFLOW, "random", "random", "--games", "20")
    assert code == 1
    assert_one_diagnostic(err, "runtime-error", None)
    assert "note: reproduce with the moves: " in err


def test_info_reports_the_runtime_error(capsys):
    code, _, err = run(capsys, "info", OVERFLOW)
    assert code == 1
    assert_one_diagnostic(err, "runtime-error", "add(3),add(3)")


def test_an_error_while_the_initial_state_is_built(capsys, tmp_path):
    path = tmp_path / "setup.gdl"
    path.write_text('game Setup "setup fails"\nplayers A, B\nstate n: 0..5 = 0\nsetup:\n    n = 9\n'
                    "move m(): n = 1\nwin A when n == 1\n")
    code, _, err = run(capsys, "solve", str(path))
    assert code == 1
    assert "Traceback" not in err and "error[" in err


@pytest.mark.parametrize("argv", [["solve"], ["solve", "--depth", "3"], ["play", "--as", "none", "--vs", "perfect"]])
def test_a_stuck_puzzle_in_the_cli(capsys, tmp_path, argv):
    path = tmp_path / "stuck_puzzle.gdl"
    path.write_text('game StuckPuzzle "a puzzle that gets stuck"\nplayers Solo\nstate n: 0..3 = 0\n'
                    "move step() when n < 2: n += 1\nwin Solo when n == 3\n")
    code, _, err = run(capsys, argv[0], str(path), *argv[1:])
    assert code == 1
    assert_one_diagnostic(err, "dead-end", "step,step")
    assert "Solo is to move" in err
