"""Simultaneous moves: matrix games by LP, and sequential games with simultaneous nodes.

Values are checked against known answers and against OpenSpiel's own solvers
(``lp_solver.solve_zero_sum_matrix_game``, and ``value_iteration``, which solves
each simultaneous node of a perfect-information game with that LP).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from simgames import DuelThenShoot, Goofspiel, MatrixGame, OshiZumo, SpielSimultaneous

from solver.exact import solve
from solver.game import CHANCE, SIMULTANEOUS, IllegalMoveError
from solver.limits import Limits
from solver.matrix_game import (
    as_matrix,
    is_equilibrium,
    mixed_equilibrium,
    pure_equilibria,
    solve_zero_sum,
)
from solver.simgame import SimultaneousGame, joint_moves, joint_name, node_kind, parse_move_of
from solver.simultaneous import solve_simultaneous

RPS = [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
PENNIES = [[1, -1], [-1, 1]]
# A security game in the spirit of the course notes' smallpox exercise: the defender picks a
# defence (rows), the attacker a way to attack (columns); entries are the defender's costs.
DEFENCES = ("stockpile", "vaccinate", "quarantine")
ATTACKS = ("airport", "city", "border")
COSTS = [[2, 9, 5], [8, 3, 6], [7, 6, 1]]


def rps_game() -> MatrixGame:
    names = ("rock", "paper", "scissors")
    return MatrixGame("rps", names, names, RPS)


# ------------------------------------------------------------------ OpenSpiel, when it is there


def openspiel_lp():
    """OpenSpiel's LP solver (needs cvxpy and ECOS), or skip."""
    pyspiel = pytest.importorskip("pyspiel")
    lp_solver = pytest.importorskip("open_spiel.python.algorithms.lp_solver")
    try:
        answer = lp_solver.solve_zero_sum_matrix_game(pyspiel.load_game("matrix_mp"))
    except Exception as error:  # a missing cvxpy back end shows up only when solving
        pytest.skip(f"OpenSpiel's LP solver does not run here: {error}")
    if answer is None or answer[0] is None:
        pytest.skip("OpenSpiel's LP solver does not run here")
    return pyspiel, lp_solver


def openspiel_values(name: str, params: dict):
    """OpenSpiel's game and its value of every non-chance state (by ``str(state)``)."""
    pyspiel, _ = openspiel_lp()
    from open_spiel.python.algorithms import value_iteration

    if name not in pyspiel.registered_names():
        pytest.skip(f"this pyspiel has no {name}")
    game = pyspiel.load_game(name, params)
    return game, value_iteration.value_iteration(game, -1, 1e-10)


def openspiel_value(state, values: dict) -> float:
    """A state's value from OpenSpiel's table (chance nodes are not in it: their expectation)."""
    if state.is_chance_node():
        total = 0.0
        for action, p in state.chance_outcomes():
            child = state.clone()
            child.apply_action(action)
            total += p * openspiel_value(child, values)
        return total
    return values[str(state)]


# ------------------------------------------------------------------ matrix games


def test_rock_paper_scissors_value_0_one_third_each() -> None:
    solution = solve_zero_sum(RPS)
    assert solution.value == pytest.approx(0, abs=1e-9)
    assert solution.row == pytest.approx((1 / 3,) * 3, abs=1e-9)
    assert solution.col == pytest.approx((1 / 3,) * 3, abs=1e-9)
    assert solution.saddle_point is None
    result = solve_simultaneous(rps_game())
    assert result.exact and not result.stopped
    assert result.value == pytest.approx((0, 0), abs=1e-9)
    for player in (0, 1):
        assert result.strategies[player] == pytest.approx({"rock": 1 / 3, "paper": 1 / 3, "scissors": 1 / 3},
                                                          abs=1e-9)
    assert result.best_moves == () and result.principal_variation == ()


def test_matching_pennies_value_0_one_half_each() -> None:
    solution = solve_zero_sum(PENNIES)
    assert solution.value == pytest.approx(0, abs=1e-9)
    assert solution.row == pytest.approx((0.5, 0.5), abs=1e-9)
    assert solution.col == pytest.approx((0.5, 0.5), abs=1e-9)


@pytest.mark.parametrize("name", ["matrix_rps", "matrix_mp"])
def test_matrix_games_agree_with_openspiel_lp(name: str) -> None:
    pyspiel, lp_solver = openspiel_lp()
    game = pyspiel.load_game(name)
    payoff = [[game.player_utility(0, r, c) for c in range(game.num_cols())] for r in range(game.num_rows())]
    theirs = lp_solver.solve_zero_sum_matrix_game(game)
    ours = solve_zero_sum(payoff)
    assert ours.value == pytest.approx(float(theirs[2]), abs=1e-6)
    assert ours.row == pytest.approx(tuple(theirs[0]), abs=1e-6)
    assert ours.col == pytest.approx(tuple(theirs[1]), abs=1e-6)


def test_security_game_mixed_strategy_beats_every_pure_strategy() -> None:
    costs = np.array(COSTS, dtype=float)
    # No saddle point: the best pure defence's worst cost exceeds the attacker's best pure guarantee.
    pure_defence = costs.max(axis=1).min()
    pure_attack = costs.min(axis=0).max()
    assert pure_defence > pure_attack
    game = MatrixGame("security", DEFENCES, ATTACKS, (-costs).tolist())  # the defender maximises -cost
    result = solve_simultaneous(game)
    expected_cost = -result.value[0]
    defence = np.array([result.strategies[0][d] for d in DEFENCES])
    attack = np.array([result.strategies[1][a] for a in ATTACKS])
    # The mixed defence's worst expected cost is the value, and it is strictly below every pure defence's.
    assert max(defence @ costs) == pytest.approx(expected_cost, abs=1e-9)
    for row in costs:
        assert row.max() > expected_cost + 1e-6
    # And the attacker's mixed attack forces that cost: the value is a true equilibrium.
    assert min(costs @ attack) == pytest.approx(expected_cost, abs=1e-9)
    assert pure_attack < expected_cost < pure_defence
    assert defence.sum() == pytest.approx(1) and attack.sum() == pytest.approx(1)
    assert all(p > 0 for p in defence)  # every defence is used: no pure strategy is optimal


def test_security_game_agrees_with_openspiel_lp() -> None:
    pyspiel, lp_solver = openspiel_lp()
    payoff = (-np.array(COSTS, dtype=float)).tolist()
    theirs = lp_solver.solve_zero_sum_matrix_game(pyspiel.create_matrix_game(payoff, (-np.array(payoff)).tolist()))
    ours = solve_zero_sum(payoff)
    assert ours.value == pytest.approx(float(theirs[2]), abs=1e-6)
    assert ours.row == pytest.approx(tuple(theirs[0]), abs=1e-5)


@pytest.mark.parametrize(
    ("payoff", "value"),
    [
        ([[1, 1], [1, 1]], 1.0),  # every cell a saddle point
        ([[5]], 5.0),
        ([[1, 2, 3]], 1.0),  # the row player has no choice
        ([[3], [1], [2]], 3.0),
        ([[3, 1], [2, 4]], 2.5),  # mixed: (1/2, 1/2) against (3/4, 1/4)
        ([[3, 1], [3, 1], [2, 4]], 2.5),  # a repeated row
        ([[3, 1], [2, 4], [0, 0]], 2.5),  # a dominated row
        ([[0.1, 0.3], [0.2, 0.1]], 1 / 6),  # (ad - bc) / (a + d - b - c)
    ],
)
def test_degenerate_and_tied_matrices(payoff: list[list[float]], value: float) -> None:
    solution = solve_zero_sum(payoff)
    assert solution.value == pytest.approx(value, abs=1e-9)
    check_optimal(np.array(payoff, dtype=float), solution.row, solution.col, solution.value)


def test_mixed_values_are_exact() -> None:
    solution = solve_zero_sum([[3, 1], [2, 4]])
    assert solution.row == pytest.approx((0.5, 0.5), abs=1e-12)
    assert solution.col == pytest.approx((0.75, 0.25), abs=1e-12)
    assert solution.value == pytest.approx(2.5, abs=1e-12)


@pytest.mark.parametrize("bad", [[], [[]], [[1, 2], [3]], [[1, float("nan")]], [[float("inf")]]])
def test_bad_matrices_are_value_errors(bad: list) -> None:
    with pytest.raises(ValueError):
        solve_zero_sum(bad)


def test_pure_equilibria_of_general_sum_games() -> None:
    assert pure_equilibria([[3, 0], [5, 1]], [[3, 5], [0, 1]]) == [(1, 1)]  # prisoner's dilemma
    assert pure_equilibria([[3, 0], [0, 2]], [[2, 0], [0, 3]]) == [(0, 0), (1, 1)]  # battle of the sexes
    assert pure_equilibria(PENNIES, (-np.array(PENNIES)).tolist()) == []
    assert pure_equilibria([[1, 1], [1, 1]], [[0, 0], [0, 0]]) == [(0, 0), (0, 1), (1, 0), (1, 1)]  # all tied


def test_mixed_equilibrium_when_there_is_no_pure_one() -> None:
    a = [[2, 0], [0, 1]]
    b = [[0, 1], [2, 0]]
    assert pure_equilibria(a, b) == []
    eq = mixed_equilibrium(a, b)
    assert eq.row == pytest.approx((2 / 3, 1 / 3), abs=1e-9)  # makes the column player indifferent
    assert eq.col == pytest.approx((1 / 3, 2 / 3), abs=1e-9)
    assert eq.values == pytest.approx((2 / 3, 2 / 3), abs=1e-9)
    assert is_equilibrium(a, b, eq.row, eq.col)


def test_mixed_equilibrium_of_a_degenerate_game() -> None:
    # Column 1 is a best response to every row strategy on {0, 1}: unequal supports are needed.
    a = [[1, 0, 0], [0, 1, 0], [0, 0, 0]]
    b = [[0, 1, 0], [1, 0, 0], [0, 0, -1]]
    eq = mixed_equilibrium(a, b)
    assert is_equilibrium(a, b, eq.row, eq.col)
    assert sum(eq.row) == pytest.approx(1) and sum(eq.col) == pytest.approx(1)


def test_shape_mismatch_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="differ in shape"):
        pure_equilibria([[1, 2]], [[1], [2]])
    assert as_matrix([[1, 2]]).shape == (1, 2)


def check_optimal(a: np.ndarray, row: tuple[float, ...], col: tuple[float, ...], value: float) -> None:
    x, y = np.array(row), np.array(col)
    assert x.min() >= 0 and y.min() >= 0
    assert x.sum() == pytest.approx(1, abs=1e-12) and y.sum() == pytest.approx(1, abs=1e-12)
    assert (x @ a).min() >= value - 1e-9  # the row strategy guarantees the value against every column
    assert (a @ y).max() <= value + 1e-9  # the column strategy concedes at most the value against every row


small_matrices = st.integers(1, 5).flatmap(
    lambda m: st.integers(1, 5).flatmap(
        lambda n: st.lists(st.lists(st.integers(-20, 20), min_size=n, max_size=n), min_size=m, max_size=m)))
small_float_matrices = st.integers(1, 4).flatmap(
    lambda m: st.integers(1, 4).flatmap(
        lambda n: st.lists(st.lists(st.floats(-100, 100, allow_nan=False), min_size=n, max_size=n),
                           min_size=m, max_size=m)))


@settings(max_examples=150, deadline=None)
@given(small_matrices)
def test_property_zero_sum_strategies_are_optimal(payoff: list[list[int]]) -> None:
    solution = solve_zero_sum(payoff)
    check_optimal(np.array(payoff, dtype=float), solution.row, solution.col, solution.value)


@settings(max_examples=100, deadline=None)
@given(small_float_matrices)
def test_property_zero_sum_strategies_are_optimal_for_real_payoffs(payoff: list[list[float]]) -> None:
    solution = solve_zero_sum(payoff)
    check_optimal(np.array(payoff, dtype=float), solution.row, solution.col, solution.value)


EXACT_FACTORS = (2.0**-40, 2.0**40, 1e12, 2.0**900)
"""Factors that multiply small whole payoffs without rounding."""
factors = st.sampled_from((1e-12, 1e-300, 0.37, 3.0, 1e285, *EXACT_FACTORS)) | st.floats(1e-12, 1e12)


@settings(max_examples=150, deadline=None)
@given(small_matrices, factors)
def test_property_scaling_the_payoffs_scales_the_value_and_keeps_the_strategies(payoff: list[list[int]],
                                                                                 factor: float) -> None:
    # Every tolerance is relative to the payoffs' scale: at 1e-12 the LP's absolute tolerance made pure rock
    # "optimal" in rock-paper-scissors. A game with many optimal strategies may get another of them when the
    # scaling rounds its payoffs; they stay optimal in the unscaled game, and are the same when it does not round.
    base = solve_zero_sum(payoff)
    scaled = solve_zero_sum([[v * factor for v in line] for line in payoff])
    largest = max(abs(v) for line in payoff for v in line)
    assert scaled.value == pytest.approx(base.value * factor, rel=1e-9, abs=1e-12 * largest * factor)
    check_optimal(np.array(payoff, dtype=float), scaled.row, scaled.col, base.value)
    if factor in EXACT_FACTORS:
        assert (scaled.row, scaled.col) == (base.row, base.col)


def test_a_payoff_far_below_the_largest_is_still_seen() -> None:
    # the LP sees 6e-8 against 60 as noise (its tolerances are relative now); the exact pivoting does not
    a = [[5.960464477539063e-08, 0.0], [-60.0, 1.0]]
    solution = solve_zero_sum(a)
    assert solution.exact and solution.value == pytest.approx(1 / 1023410177 * 1.0, rel=1e-12)
    check_optimal(np.array(a), solution.row, solution.col, solution.value)


@pytest.mark.parametrize("factor", [1e-12, 1e285])
def test_a_general_sum_game_at_tiny_and_huge_scales_keeps_its_equilibrium(factor: float) -> None:
    # at 1e-12 the absolute tolerance took the first pure strategy pair of matching pennies as an equilibrium
    a = [[2 * factor, 0], [0, factor]]  # (the game of test_mixed_equilibrium_when_there_is_no_pure_one, scaled)
    b = [[0, factor], [2 * factor, 0]]
    eq = mixed_equilibrium(a, b)
    assert (eq.row, eq.col) == ((2 / 3, 1 / 3), (1 / 3, 2 / 3)) and eq.exact
    assert eq.values == pytest.approx((2 / 3 * factor, 2 / 3 * factor), rel=1e-15)
    assert pure_equilibria(a, b) == []


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), factors, factors, st.data())
def test_property_scaling_each_players_payoffs_keeps_an_equilibrium(m: int, n: int, factor_a: float, factor_b: float,
                                                                    data: st.DataObject) -> None:
    cells = st.lists(st.lists(st.integers(-5, 5), min_size=n, max_size=n), min_size=m, max_size=m)
    a, b = data.draw(cells), data.draw(cells)
    eq = mixed_equilibrium([[v * factor_a for v in line] for line in a], [[v * factor_b for v in line] for line in b])
    assert is_equilibrium(a, b, eq.row, eq.col)
    x, y = np.array(eq.row), np.array(eq.col)
    assert eq.values == pytest.approx((x @ np.array(a) @ y * factor_a, x @ np.array(b) @ y * factor_b), rel=1e-9,
                                      abs=1e-12 * max(factor_a, factor_b))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.data())
def test_property_general_sum_equilibria(m: int, n: int, data: st.DataObject) -> None:
    cells = st.lists(st.lists(st.integers(-5, 5), min_size=n, max_size=n), min_size=m, max_size=m)
    a, b = data.draw(cells), data.draw(cells)
    eq = mixed_equilibrium(a, b)
    assert is_equilibrium(a, b, eq.row, eq.col)
    pure = set(pure_equilibria(a, b))
    for i in range(m):
        for j in range(n):
            unit_row = [1.0 if k == i else 0.0 for k in range(m)]
            unit_col = [1.0 if k == j else 0.0 for k in range(n)]
            assert ((i, j) in pure) == is_equilibrium(a, b, unit_row, unit_col, tolerance=0.0)


# ------------------------------------------------------------------ the interface


def test_the_interface_helpers() -> None:
    game = rps_game()
    state = game.initial_state()
    assert isinstance(game, SimultaneousGame)
    assert game.to_move(state) == SIMULTANEOUS and node_kind(game, state) == "simultaneous"
    assert len(list(joint_moves(game, state))) == 9
    assert joint_name(("rock", "paper")) == "rock|paper"
    assert parse_move_of(game, state, 1, " paper ") == "paper"
    assert game.parse_move(state, "scissors", 0) == "scissors"
    with pytest.raises(IllegalMoveError):
        game.parse_move(state, "lizard", 0)
    with pytest.raises(IllegalMoveError, match="which player"):
        game.parse_move(state, "rock")
    assert node_kind(game, game.apply_joint(state, ("rock", "paper"))) == "terminal"


@pytest.mark.parametrize("game", [rps_game(), Goofspiel(3), OshiZumo(3, 1, 4)])
def test_turn_based_searches_refuse_simultaneous_games(game) -> None:
    with pytest.raises(ValueError, match="simultaneous"):
        solve(game)


# ------------------------------------------------------------------ sequential games


def test_mixed_game_of_turns_chance_and_simultaneous_moves() -> None:
    game = DuelThenShoot()
    result = solve_simultaneous(game)
    assert result.value == pytest.approx((1.0, -1.0), abs=1e-9)  # stake 2: 0.5 * 0 + 0.5 * 2 * 1
    assert result.best_moves == ("stake2",)
    assert result.strategies[0] == {"stake1": 0.0, "stake2": 1.0} and result.strategies[1] == {}
    assert result.principal_variation == ("stake2", "heads")  # up to the simultaneous node
    coin = game.apply(game.initial_state(), "stake1")
    assert game.to_move(coin) == CHANCE
    assert solve_simultaneous(game, coin).value[0] == pytest.approx(0.5, abs=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize(("cards", "order"), [(3, "random"), (3, "descending"), (4, "random"), (4, "descending")])
def test_goofspiel_value_is_zero_by_symmetry(cards: int, order: str) -> None:
    result = solve_simultaneous(Goofspiel(cards, order))
    assert result.exact
    assert result.value == pytest.approx((0.0, 0.0), abs=1e-9)
    if order == "descending":  # the root is a bidding node: both players' strategies are the same by symmetry
        first, second = result.strategies
        assert sum(first.values()) == pytest.approx(1, abs=1e-12)
        assert list(first) == list(range(1, cards + 1))
        assert list(second.values()) == pytest.approx(list(first.values()), abs=1e-9)


def our_goofspiel_value(game: Goofspiel, actions: list) -> float:
    state = game.initial_state()
    for action in actions:
        state = game.apply(state, action + 1) if game.to_move(state) == CHANCE else game.apply_joint(
            state, tuple(a + 1 for a in action))
    return solve_simultaneous(game, state).value[0]


def their_state(game, actions: list):
    state = game.new_initial_state()
    for action in actions:
        if isinstance(action, tuple):
            state.apply_actions(list(action))
        else:
            state.apply_action(action)
    return state


@pytest.mark.slow
@pytest.mark.parametrize(("cards", "order"), [(3, "random"), (3, "descending"), (4, "descending")])
def test_goofspiel_agrees_with_openspiel_in_every_first_round(cards: int, order: str) -> None:
    theirs, values = openspiel_values("goofspiel", {"num_cards": cards, "points_order": order})
    ours = Goofspiel(cards, order)
    deals = [[p] for p in range(cards)] if order == "random" else [[]]
    checked = 0
    for deal in deals:
        for bid0 in range(cards):
            for bid1 in range(cards):
                line = [*deal, (bid0, bid1)]
                expected = openspiel_value(their_state(theirs, line), values)
                assert our_goofspiel_value(ours, line) == pytest.approx(expected, abs=1e-6), line
                checked += 1
    assert our_goofspiel_value(ours, []) == pytest.approx(openspiel_value(theirs.new_initial_state(), values),
                                                          abs=1e-6)
    assert checked >= cards * cards


@pytest.mark.slow
@pytest.mark.parametrize(("coins", "size"), [(4, 1), (5, 2)])
def test_oshi_zumo_agrees_with_openspiel_after_every_first_bid(coins: int, size: int) -> None:
    # OpenSpiel's value iteration keys states by str(state), which omits the round number: with
    # min_bid=1 every round costs coins, so the game ends before a horizon of 2 * coins + 1 binds
    # and the string does identify the state.
    params = {"coins": coins, "size": size, "horizon": 2 * coins + 1, "min_bid": 1}
    theirs, values = openspiel_values("oshi_zumo", params)
    ours = OshiZumo(**params)
    root = ours.initial_state()
    result = solve_simultaneous(ours)
    assert result.value[0] == pytest.approx(values[str(theirs.new_initial_state())], abs=1e-6)
    differing = set()
    for bid0 in range(1, coins + 1):
        for bid1 in range(1, coins + 1):
            expected = values[str(their_state(theirs, [(bid0, bid1)]))]
            mine = solve_simultaneous(ours, ours.apply_joint(root, (bid0, bid1))).value[0]
            assert mine == pytest.approx(expected, abs=1e-6), (bid0, bid1)
            differing.add(round(mine, 6))
    assert len(differing) > 2  # the comparison is not all zeros


def test_oshi_zumo_known_values() -> None:
    game = OshiZumo(coins=4, size=1, horizon=6)
    result = solve_simultaneous(game)
    assert result.value == pytest.approx((0.0, 0.0), abs=1e-9)  # symmetric start
    assert sum(result.strategies[0].values()) == pytest.approx(1)
    ahead = game.apply_joint(game.initial_state(), (1, 0))  # player 0 pushed once, for one coin
    assert solve_simultaneous(game, ahead).value[0] > 0


# ------------------------------------------------------------------ budgets and refusals


def test_node_budget_stops_the_solve() -> None:
    result = solve_simultaneous(Goofspiel(4), limits=Limits(nodes=50))
    assert result.stopped and result.stop_reason == "nodes" and not result.exact
    assert result.stats.nodes == 50
    assert result.note and "no value" in result.note


def test_table_budget_stops_the_solve() -> None:
    result = solve_simultaneous(Goofspiel(4), limits=Limits(table_entries=100))
    assert result.stopped and result.stop_reason == "table"
    assert len(result.table) <= 100


def test_depth_limit_uses_the_heuristic_and_is_not_exact() -> None:
    game = OshiZumo(coins=4, size=1, horizon=6)
    result = solve_simultaneous(game, limits=Limits(depth=1))
    assert not result.exact and not result.stopped
    assert result.note and "depth-1" in result.note
    assert result.value == pytest.approx((0.0, 0.0), abs=1e-9)  # no heuristic: every horizon state is 0
    deep = solve_simultaneous(game, limits=Limits(depth=50))
    assert deep.exact and deep.value == pytest.approx(solve_simultaneous(game).value, abs=1e-12)


def test_general_sum_simultaneous_node_takes_one_equilibrium() -> None:
    game = MatrixGame("sexes", ("opera", "match"), ("opera", "match"), [[3, 0], [0, 2]], [[2, 0], [0, 3]])
    result = solve_simultaneous(game)
    assert result.value == (3.0, 2.0)  # the first pure equilibrium
    assert result.note and "one subgame-perfect equilibrium" in result.note


def test_cycles_are_refused() -> None:
    class Forever(MatrixGame):
        def apply_joint(self, state, moves):
            return None  # back to the start whatever is played

    with pytest.raises(ValueError, match="cycles"):
        solve_simultaneous(Forever("forever", ("a",), ("b", "c"), [[0, 0]]))


def test_a_player_without_choice_leaves_a_turn_node_in_disguise() -> None:
    game = MatrixGame("one row", ("only",), ("a", "b"), [[1, -2]])
    result = solve_simultaneous(game)
    assert result.value == (-2.0, 2.0)
    assert result.strategies == ({"only": 1.0}, {"a": 0.0, "b": 1.0})


class ThreeChoose(MatrixGame):
    """Three players pick 0 or 1 at once; the odd one out wins."""

    players = ("A", "B", "C")
    zero_sum = False

    def __init__(self) -> None:
        self.name = "odd one out"

    def legal_moves(self, state, player=None):
        return (0, 1)

    def apply_joint(self, state, moves):
        return tuple(moves)

    def utilities(self, state):
        return tuple(1.0 if state.count(bit) == 1 else 0.0 for bit in state)


def test_three_players_choosing_at_once_is_refused() -> None:
    with pytest.raises(ValueError, match="more than two players"):
        solve_simultaneous(ThreeChoose())


@pytest.mark.parametrize(
    ("name", "params", "mirror"),
    [
        ("matrix_rps", {}, None),
        ("goofspiel", {"num_cards": 3}, Goofspiel(3)),
        ("goofspiel", {"num_cards": 3, "points_order": "descending"}, Goofspiel(3, "descending")),
        ("oshi_zumo", {"coins": 3, "size": 1, "horizon": 5}, OshiZumo(3, 1, 5)),
    ],
)
def test_openspiel_games_through_the_interface(name: str, params: dict, mirror) -> None:
    """OpenSpiel's own games, wrapped in the interface, solve to the values of the hand-written ones."""
    pyspiel = pytest.importorskip("pyspiel")
    if name not in pyspiel.registered_names():
        pytest.skip(f"this pyspiel has no {name}")
    wrapped = SpielSimultaneous(pyspiel.load_game(name, params))
    result = solve_simultaneous(wrapped)
    assert result.exact
    if mirror is None:  # rock-paper-scissors
        assert result.value == pytest.approx((0, 0), abs=1e-9)
        assert list(result.strategies[0].values()) == pytest.approx([1 / 3] * 3, abs=1e-9)
        return
    assert result.value == pytest.approx(solve_simultaneous(mirror).value, abs=1e-9)
    # Every state one joint move (and deal) in agrees too, not only the symmetric root.
    state, ours = wrapped.initial_state(), mirror.initial_state()
    if wrapped.to_move(state) == CHANCE:
        state, ours = wrapped.apply(state, 0), mirror.apply(ours, 1)  # deal the lowest prize card
    offset = 1 if name == "goofspiel" else 0  # goofspiel's action a bids card a + 1
    for joint in joint_moves(wrapped, state):
        theirs = solve_simultaneous(wrapped, wrapped.apply_joint(state, joint)).value
        mine = solve_simultaneous(mirror, mirror.apply_joint(ours, tuple(a + offset for a in joint))).value
        assert theirs == pytest.approx(mine, abs=1e-9), joint


class PushHeuristic(OshiZumo):
    """Oshi-Zumo with a heuristic: how far player 0 has pushed the wrestler."""

    def heuristic(self, state):
        lead = float(state[2] - (self.size + 1))
        return (lead, -lead)


def test_depth_limit_solves_the_matrix_of_heuristic_values() -> None:
    game = PushHeuristic(coins=4, size=2, horizon=8)
    state = game.apply_joint(game.initial_state(), (0, 1))  # player 1 pushed once, for one coin
    result = solve_simultaneous(game, state, Limits(depth=1))
    assert not result.exact
    bids0, bids1 = game.legal_moves(state, 0), game.legal_moves(state, 1)
    expected = solve_zero_sum([[game.heuristic(game.apply_joint(state, (b0, b1)))[0] for b1 in bids1]
                               for b0 in bids0])
    assert result.value[0] == pytest.approx(expected.value, abs=1e-9)
    assert [result.strategies[0][b] for b in bids0] == pytest.approx(list(expected.row), abs=1e-9)
