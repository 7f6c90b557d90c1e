"""The OpenSpiel adapter with SIMULTANEOUS dynamics, both directions, against OpenSpiel's own solvers:
``lp_solver.solve_zero_sum_matrix_game`` on matrix games and ``value_iteration`` (an LP at each simultaneous
node) on goofspiel and oshi_zumo."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import gdl
from gdl.openspiel import register_pyspiel_game
from gdl.openspiel_sim import OpenSpielSimultaneousGame
from solver.game import SIMULTANEOUS
from solver.simultaneous import solve_simultaneous

pyspiel = pytest.importorskip("pyspiel")


def _algorithm(name: str) -> Any:
    """OpenSpiel's ``open_spiel.python.algorithms.<name>``, imported when a test first needs it: both import
    cvxpy, 1.6 s that every pytest-xdist worker would otherwise spend collecting this file."""
    return pytest.importorskip(f"open_spiel.python.algorithms.{name}")


def openspiel_value(game, state) -> float:
    """Player 0's value of ``state`` by OpenSpiel's value iteration (solved from ``state``'s game)."""
    values = _algorithm("value_iteration").value_iteration(game, depth_limit=-1, threshold=1e-10)

    def value(s) -> float:
        if s.is_chance_node():  # (value iteration keeps decision states only)
            return sum(p * value(s.child(a)) for a, p in s.chance_outcomes())
        return values[str(s)]

    return value(state)


@pytest.mark.parametrize("name", ["matrix_rps", "matrix_mp"])
def test_openspiel_matrix_games_through_the_adapter_agree_with_its_lp(name: str) -> None:
    theirs = _algorithm("lp_solver").solve_zero_sum_matrix_game(pyspiel.load_game(name))
    game = OpenSpielSimultaneousGame(pyspiel.load_game(name))
    assert game.to_move(game.initial_state()) == SIMULTANEOUS
    ours = solve_simultaneous(game)
    assert ours.value[0] == pytest.approx(float(theirs[2]), abs=1e-7)
    assert list(ours.strategies[0].values()) == pytest.approx(list(np.asarray(theirs[0]).ravel()), abs=1e-6)
    assert list(ours.strategies[1].values()) == pytest.approx(list(np.asarray(theirs[1]).ravel()), abs=1e-6)


@pytest.mark.parametrize(("name", "params"), [
    ("goofspiel", {"num_cards": 3, "points_order": "descending", "imp_info": False}),
    ("goofspiel", {"num_cards": 3, "points_order": "random", "imp_info": False}),
    pytest.param("oshi_zumo", {"coins": 4, "size": 1, "horizon": 6}, marks=pytest.mark.slow),
])
@pytest.mark.slow
def test_openspiel_sequential_simultaneous_games_agree_with_its_value_iteration(name: str, params: dict) -> None:
    their_game = pyspiel.load_game(name, params)
    game = OpenSpielSimultaneousGame(their_game)
    assert solve_simultaneous(game).value[0] == pytest.approx(
        openspiel_value(their_game, their_game.new_initial_state()), abs=1e-6)


def test_our_goofspiel_is_openspiels_after_every_first_round() -> None:
    ours = gdl.load("goofspiel", {"cards": "3"})
    theirs = pyspiel.load_game("goofspiel", {"num_cards": 3, "points_order": "descending", "imp_info": False})
    their_values = _algorithm("value_iteration").value_iteration(theirs, depth_limit=-1, threshold=1e-10)
    start = ours.initial_state()
    for a, b in itertools.product(range(1, 4), repeat=2):
        joint = (ours.parse_move(start, f"play({a})", 0), ours.parse_move(start, f"play({b})", 1))
        after = ours.apply_joint(start, joint)
        their_state = theirs.new_initial_state()
        their_state.apply_actions([a - 1, b - 1])  # goofspiel's bid actions are card - 1
        assert solve_simultaneous(ours, after).value[0] == pytest.approx(their_values[str(their_state)], abs=1e-6)


@pytest.mark.parametrize(("rule_file", "params", "expected"), [
    ("rps", {}, 0.0), ("security", {}, -5.5), ("goofspiel", {"cards": "3"}, 0.0),
])
@pytest.mark.slow
def test_our_rule_files_as_pyspiel_games_solved_by_openspiel(rule_file: str, params: dict, expected: float) -> None:
    compiled = gdl.load(rule_file, params)
    register_pyspiel_game(compiled, f"gdl_sim_{rule_file}")
    game = pyspiel.load_game(f"gdl_sim_{rule_file}")
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    state = game.new_initial_state()
    assert state.is_simultaneous_node()
    assert [state.action_to_string(0, a) for a in state.legal_actions(0)] == [
        str(m) for m in compiled.legal_moves(compiled.initial_state(), 0)]
    assert openspiel_value(game, state) == pytest.approx(expected, abs=1e-6)
    assert solve_simultaneous(compiled).value[0] == pytest.approx(expected, abs=1e-6)
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)


def test_the_security_game_through_pyspiel_agrees_with_openspiels_lp() -> None:
    compiled = gdl.load("security")
    register_pyspiel_game(compiled, "gdl_sim_security_lp")
    game = pyspiel.load_game("gdl_sim_security_lp")
    root = game.new_initial_state()
    rows, cols = root.legal_actions(0), root.legal_actions(1)
    payoff = []
    for a in rows:  # the payoff matrix read through OpenSpiel's interface
        row = []
        for b in cols:
            child = root.clone()
            child.apply_actions([a, b])
            row.append(child.returns()[0])
        payoff.append(row)
    matrix = pyspiel.create_matrix_game(payoff, (-np.array(payoff)).tolist())
    theirs = _algorithm("lp_solver").solve_zero_sum_matrix_game(matrix)
    ours = solve_simultaneous(compiled)
    assert ours.value[0] == pytest.approx(float(theirs[2]), abs=1e-7) == pytest.approx(-5.5)
    pure_best = max(min(row) for row in payoff)
    assert pure_best == -9.0 < ours.value[0]


@pytest.mark.slow
def test_goofspiel_with_four_cards_agrees_with_openspiels_value_iteration() -> None:
    """The issue's case: `gdl solve goofspiel -p cards=4` is 0, as OpenSpiel's own solver finds for its goofspiel."""
    theirs = pyspiel.load_game("goofspiel", {"num_cards": 4, "points_order": "descending", "imp_info": False})
    their_value = _algorithm("value_iteration").value_iteration(theirs, depth_limit=-1, threshold=1e-10)[
        str(theirs.new_initial_state())]
    ours = solve_simultaneous(gdl.load("goofspiel", {"cards": "4"}))
    assert ours.exact and ours.value[0] == pytest.approx(their_value, abs=1e-6) == pytest.approx(0.0, abs=1e-6)
