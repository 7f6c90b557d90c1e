"""Search algorithms against brute-force oracles: alpha-beta = minimax, Star1/Star2 = expectimax, MCTS optimal."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from refgames import ConnectFour, Nim, Pig, Ring, Takeaway3, TicTacToe, TreeGame

from solver.alphabeta import alphabeta
from solver.exact import solve
from solver.expectimax import expectimax
from solver.game import GameBase, play_moves
from solver.limits import Budget, Limits
from solver.mcts import _UCT, Node, mcts
from solver.minimax import minimax

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ------------------------------------------------------------------ random trees


def trees(players: int = 2, chance: bool = False, zero_sum: bool = True, max_depth: int = 4) -> st.SearchStrategy:
    """Random game trees: decision nodes of random players, optional chance nodes, integer utilities."""

    def leaf() -> st.SearchStrategy:
        if zero_sum:
            return st.integers(-3, 3).map(lambda u: ("T", (float(u), float(-u))))
        return st.tuples(*[st.integers(0, 3)] * players).map(lambda us: ("T", tuple(map(float, us))))

    def extend(children: st.SearchStrategy) -> st.SearchStrategy:
        decision = st.tuples(st.just("D"), st.integers(0, players - 1),
                             st.lists(children, min_size=1, max_size=3).map(tuple))
        if not chance:
            return decision
        weighted = st.lists(st.tuples(st.integers(1, 4), children), min_size=1, max_size=3).map(
            lambda pairs: ("C", tuple((w / sum(x for x, _ in pairs), c) for w, c in pairs)))
        return st.one_of(decision, weighted)

    return st.recursive(leaf(), extend, max_leaves=24)


def as_game(tree: tuple, players: int = 2, zero_sum: bool = True) -> TreeGame:
    return TreeGame(tree, players, zero_sum, (-3.0, 3.0) if zero_sum else (0.0, 3.0))


@FAST
@given(trees())
def test_alphabeta_equals_minimax_on_random_trees(tree: tuple) -> None:
    game = as_game(tree)
    expected = minimax(game).value
    for use_tt in (True, False):
        for ordering in (True, False):
            for iterative in (True, False):
                result = alphabeta(game, use_tt=use_tt, ordering=ordering, iterative=iterative)
                assert result.value == expected
                assert result.exact or game.to_move(()) < 0


@FAST
@given(trees(chance=True))
def test_star1_and_star2_equal_plain_expectimax(tree: tuple) -> None:
    game = as_game(tree)
    plain = expectimax(game, pruning="none")
    assert plain.value[0] == pytest.approx(minimax(game).value[0], abs=1e-12)
    for pruning in ("star1", "star2"):
        for use_tt in (True, False):
            pruned = expectimax(game, pruning=pruning, use_tt=use_tt)
            assert pruned.value[0] == pytest.approx(plain.value[0], abs=1e-12)


@FAST
@given(trees(chance=True))
def test_star2_prunes_at_least_as_star1_values_equal_at_depth_limits(tree: tuple) -> None:
    game = as_game(tree)
    for depth in (1, 2):
        plain = expectimax(game, limits=Limits(depth=depth), pruning="none").value[0]
        assert expectimax(game, limits=Limits(depth=depth), pruning="star2").value[0] == pytest.approx(plain, abs=1e-12)


@FAST
@given(trees(players=3, chance=True, zero_sum=False))
def test_exact_solver_equals_brute_force_maxn(tree: tuple) -> None:
    game = as_game(tree, players=3, zero_sum=False)
    oracle = minimax(game)
    solution = solve(game)
    assert solution.exact
    assert solution.value == pytest.approx(oracle.value, abs=1e-12)
    if game.to_move(()) >= 0:
        assert set(solution.best_moves) == set(oracle.best_moves)
        assert solution.best_moves[0] == oracle.best_moves[0]  # the tie-break rule: first in game order


@pytest.mark.slow
@FAST
@given(trees())
def test_exact_alphabeta_lists_every_optimal_move(tree: tuple) -> None:
    game = as_game(tree)
    solution = solve(game)
    assert solution.algorithm == "alphabeta"
    oracle = minimax(game)
    assert solution.value == oracle.value
    if game.to_move(()) >= 0:
        assert set(solution.best_moves) == set(oracle.best_moves)


@settings(max_examples=25, deadline=None)
@given(trees(max_depth=3))
def test_mcts_finds_an_optimal_move_on_small_trees(tree: tuple) -> None:
    game = as_game(tree)
    if game.to_move(()) < 0:
        return
    result = mcts(game, limits=Limits(iterations=3000), seed=7)
    assert result.best_move in solve(game).best_moves


# ------------------------------------------------------------------ depth-limited search with a heuristic


@pytest.mark.parametrize("moves", [[], ["place(b2)"], ["place(a1)", "place(b2)", "place(c3)"]])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_depth_limited_alphabeta_equals_minimax(moves: list[str], depth: int) -> None:
    game = TicTacToe()
    state = play_moves(game, moves)
    expected = minimax(game, state, Limits(depth=depth))
    for use_tt in (True, False):
        result = alphabeta(game, state, Limits(depth=depth), use_tt=use_tt)
        assert result.value == pytest.approx(expected.value)
        assert not result.exact


def test_alphabeta_with_tt_searches_far_fewer_nodes_than_the_full_tree() -> None:
    # The full tic-tac-toe game tree has 549,946 nodes; minimax visits all of them.
    game = TicTacToe()
    assert minimax(game).stats.nodes + 1 == 549_946  # every node below the root, plus the root
    result = alphabeta(game)
    assert result.value == (0.0, 0.0) and result.exact
    assert result.stats.nodes < 549_946 // 50  # ~6,000 nodes with TT, killers and history
    assert result.stats.tt_hits > 0 and result.stats.tt_size > 0


def test_alphabeta_finds_the_winning_move() -> None:
    game = TicTacToe()
    state = play_moves(game, ["place(a1)", "place(a2)", "place(b1)", "place(b2)"])
    result = alphabeta(game, state)
    assert result.value == (1.0, -1.0)
    assert str(result.best_move) == "place(c1)"
    assert [str(m) for m in result.principal_variation] == ["place(c1)"]


def test_alphabeta_preconditions_name_what_is_unmet() -> None:
    with pytest.raises(ValueError, match="3 players"):
        alphabeta(Takeaway3())
    with pytest.raises(ValueError, match="chance"):
        alphabeta(Pig(10))
    with pytest.raises(ValueError, match=r"star2.*zero-sum"):
        expectimax(Takeaway3(), pruning="star2")
    with pytest.raises(ValueError, match="unknown pruning"):
        expectimax(Pig(10), pruning="star3")


def test_paranoid_search_for_three_players() -> None:
    game = Takeaway3(5)
    result = alphabeta(game, paranoid=True)
    assert result.exact and result.algorithm == "paranoid"
    # Paranoid value of P1 is a lower bound on what P1 gets whatever the others do.
    assert result.value[0] <= solve(game).value[0]


def test_minimax_without_depth_refuses_a_cycle() -> None:
    with pytest.raises(ValueError, match="cycle"):
        minimax(Ring(6, 3))


def test_depth_limited_search_on_a_cyclic_game() -> None:
    result = alphabeta(Ring(6, 3), limits=Limits(depth=8))
    assert not result.exact and result.best_move is not None


# ------------------------------------------------------------------ budgets, progress, interrupts


def test_node_budget_stops_with_the_best_move_so_far() -> None:
    game = ConnectFour(7, 6)
    result = alphabeta(game, limits=Limits(nodes=3000))
    assert result.stopped and result.stop_reason == "nodes" and not result.exact
    assert result.best_move in game.legal_moves(game.initial_state())
    assert result.stats.nodes >= 3000


def test_keyboard_interrupt_returns_a_stopped_result() -> None:
    def interrupt(stats: object) -> None:
        raise KeyboardInterrupt

    game = ConnectFour(7, 6)
    seen = []
    result = alphabeta(game, limits=Limits(nodes=50_000), progress=lambda s: seen.append(s.nodes) or interrupt(s))
    assert result.stopped and result.stop_reason == "interrupt"
    assert seen and result.best_move is not None
    stopped = mcts(game, limits=Limits(iterations=10**6), progress=interrupt)
    assert stopped.stopped and stopped.stop_reason == "interrupt" and stopped.best_move is not None
    solved = solve(ConnectFour(5, 4), progress=interrupt)
    assert solved.stopped and not solved.exact


def test_progress_is_called_with_statistics() -> None:
    calls = []
    alphabeta(TicTacToe(), progress=calls.append)
    minimax(TicTacToe(), progress=calls.append)
    assert calls and all(c.nodes > 0 for c in calls)


# ------------------------------------------------------------------ MCTS


def test_mcts_is_reproducible_with_a_seed() -> None:
    game = TicTacToe()
    a = mcts(game, limits=Limits(iterations=300), seed=3)
    b = mcts(game, limits=Limits(iterations=300), seed=3)
    assert a.children == b.children and a.best_move == b.best_move
    assert sum(c.visits for c in a.children) == 300


def test_mcts_solver_proves_a_win() -> None:
    game = TicTacToe()
    state = play_moves(game, ["place(a1)", "place(a2)", "place(b1)", "place(b2)"])
    result = mcts(game, state, Limits(iterations=5000), seed=1)
    assert result.exact and result.value == (1.0, -1.0)
    assert str(result.best_move) == "place(c1)"
    assert result.stats.iterations < 5000  # stops once the root is proven


def test_mcts_with_chance_nodes_and_three_players() -> None:
    pig = mcts(Pig(10), limits=Limits(iterations=500), seed=1)
    assert str(pig.best_move) == "roll"
    three = mcts(Takeaway3(7), limits=Limits(iterations=2000), seed=1)
    assert three.exact and three.value == solve(Takeaway3(7)).value


def test_mcts_heuristic_rollouts_and_bad_options() -> None:
    result = mcts(TicTacToe(), limits=Limits(iterations=200), rollout="heuristic", seed=1)
    assert result.best_move is not None
    with pytest.raises(ValueError, match="rollout"):
        mcts(TicTacToe(), rollout="greedy")


def test_nim_alphabeta_value() -> None:
    assert alphabeta(Nim((1, 2, 3))).value == (-1.0, 1.0)
    assert math.isclose(alphabeta(Nim((1, 2, 4))).value[0], 1.0)


# ------------------------------------------------------------------ expectimax: transposition table and node counts


class DagGame(GameBase):
    """A two-player zero-sum game on a random acyclic graph with chance nodes and a heuristic.

    ``nodes[i]`` is ``("T", u0)``, ``("D", player, successors, h0)`` or
    ``("C", ((probability, successor), ...), h0)``; successors have larger
    indexes. Unlike a tree, a state is reached along several paths and at
    several depths, so a transposition table is exercised (and a table that
    mixes depths shows).
    """

    name = "dag"
    players = ("p0", "p1")
    zero_sum = True
    utility_bounds = (-3.0, 3.0)
    has_chance = True

    def __init__(self, nodes: list[tuple]) -> None:
        self.nodes = nodes
        self.parameters = {"nodes": repr(nodes)}

    def initial_state(self) -> int:
        return 0

    def to_move(self, state: int) -> int:
        node = self.nodes[state]
        return -2 if node[0] == "T" else -1 if node[0] == "C" else node[1]

    def legal_moves(self, state: int) -> list[int]:
        return list(range(len(self.nodes[state][2])))

    def chance_outcomes(self, state: int) -> list[tuple[int, float]]:
        return [(k, p) for k, (p, _) in enumerate(self.nodes[state][1])]

    def apply(self, state: int, move: int) -> int:
        node = self.nodes[state]
        return node[2][move] if node[0] == "D" else node[1][move][1]

    def utilities(self, state: int) -> tuple[float, float]:
        u = self.nodes[state][1]
        return (u, -u)

    def heuristic(self, state: int) -> tuple[float, float]:
        h = self.nodes[state][-1]
        return (h, -h)

    def key(self, state: int) -> int:
        return state


@st.composite
def dags(draw: st.DrawFn) -> list[tuple]:
    n = draw(st.integers(2, 12))
    nodes: list[tuple] = [()] * n
    values = st.integers(-3, 3).map(float)  # utilities and heuristic values within the bounds Star1 relies on
    for i in reversed(range(n)):
        later = list(range(i + 1, n))
        kind = draw(st.sampled_from("TDDC")) if later else "T"
        if kind == "T":
            nodes[i] = ("T", draw(values))
            continue
        successors = draw(st.lists(st.sampled_from(later), min_size=1, max_size=3))
        if kind == "D":
            nodes[i] = ("D", draw(st.integers(0, 1)), tuple(successors), draw(values))
        else:
            weights = draw(st.lists(st.integers(1, 4), min_size=len(successors), max_size=len(successors)))
            nodes[i] = ("C", tuple((w / sum(weights), s) for w, s in zip(weights, successors, strict=True)),
                        draw(values))
    return nodes


@FAST
@given(dags())
# State 2 is first searched with 2 plies left and reaches the end; reached again with 1 ply left, it hits
# the horizon at state 3. A table that reused the first answer at the other depth returned 3 instead of -3.
@example([("D", 1, (2, 1), 0.0), ("D", 0, (2,), 0.0), ("D", 0, (3,), 0.0), ("D", 0, (4,), -3.0), ("T", 3.0)])
def test_expectimax_table_on_equals_table_off_at_every_depth(nodes: list[tuple]) -> None:
    game = DagGame(nodes)
    full = expectimax(game, pruning="none", use_tt=False)
    for depth in (1, 2, 3, None):
        plain = expectimax(game, limits=Limits(depth=depth), pruning="none", use_tt=False)
        for pruning in ("none", "star1", "star2"):
            for use_tt, cap in ((False, None), (True, None), (True, 2)):
                result = expectimax(game, limits=Limits(depth=depth, table_entries=cap), pruning=pruning,
                                    use_tt=use_tt)
                assert result.value[0] == pytest.approx(plain.value[0], abs=1e-12)
                if result.exact:  # no horizon leaf mattered: the value is the game's
                    assert result.value[0] == pytest.approx(full.value[0], abs=1e-12)
                if cap is not None:
                    assert result.stats.tt_size <= cap


@pytest.mark.parametrize("variant", ["standard", "openspiel"])
def test_expectimax_on_the_pig_rule_file_equals_plain_expectimax(variant: str) -> None:
    import gdl

    game = gdl.load("pig", params={"goal": "6", "variant": variant})
    for depth in (1, 2, 4, 6):
        plain = expectimax(game, limits=Limits(depth=depth), pruning="none", use_tt=False).value[0]
        for pruning in ("none", "star1", "star2"):
            for use_tt in (True, False):
                result = expectimax(game, limits=Limits(depth=depth), pruning=pruning, use_tt=use_tt)
                assert result.value[0] == pytest.approx(plain, abs=1e-12)


def test_expectimax_nodes_are_searched_states_not_table_hits() -> None:
    import gdl

    game = gdl.load("pig", params={"goal": "10", "variant": "openspiel"})
    # Without table or pruning every state of the tree is a node: the count OpenSpiel's expectiminimax makes
    # (its 665,626 calls include the root, which our root loop does not count).
    full = expectimax(game, limits=Limits(depth=8), pruning="none", use_tt=False)
    assert full.stats.nodes == 665_625 and full.stats.tt_hits == 0
    # With the table each (state, depth left) is searched once; hits are not nodes.
    for pruning in ("none", "star1", "star2"):
        result = expectimax(game, limits=Limits(depth=8), pruning=pruning)
        assert result.value[0] == pytest.approx(full.value[0], abs=1e-12)
        assert result.stats.nodes < 10_000 and result.stats.tt_hits > 0

    class Counting:
        """The game, counting expansions (each expanded state asks for its moves or outcomes once)."""

        def __init__(self) -> None:
            self.expansions = 0

        def __getattr__(self, name: str) -> object:
            return getattr(game, name)

        def legal_moves(self, state: tuple) -> object:
            self.expansions += 1
            return game.legal_moves(state)

        def chance_outcomes(self, state: tuple) -> object:
            self.expansions += 1
            return game.chance_outcomes(state)

    counting = Counting()
    tabled = expectimax(counting, limits=Limits(depth=8), pruning="none")  # type: ignore[arg-type]
    # Without pruning every entry is exact, so each (state, depth left) is expanded once and stored once
    # (the root's moves are asked for by the root loop, which stores nothing).
    assert counting.expansions - 1 == tabled.stats.tt_size
    assert tabled.stats.nodes > tabled.stats.tt_size  # the rest are terminals and horizon leaves


# ------------------------------------------------------------------ MCTS: the fast paths equal the textbook forms


@FAST
@given(st.lists(st.tuples(st.integers(1, 50), st.integers(-50, 50)), min_size=1, max_size=8),
       st.sampled_from([(-1.0, 1.0), (0.0, 3.0), (-3.0, 3.0)]), st.sampled_from([0.0, 0.5, math.sqrt(2)]),
       st.integers(0, 1))
def test_mcts_best_child_is_textbook_ucb1_on_scaled_returns(children: list[tuple[int, int]],
                                                            bounds: tuple[float, float], c: float,
                                                            player: int) -> None:
    low, high = bounds
    game = TreeGame(("T", (0.0, 0.0)), 2, True, bounds)
    search = _UCT(game, Budget(), random.Random(0), c, "random", 10, False)
    parent = Node((), player, None, None, 2)
    for i, (visits, total) in enumerate(children):
        child = Node((i,), 1 - player, i, parent, 2)
        child.visits = visits
        child.totals[player] = max(low * visits, min(high * visits, float(total)))  # a mean within the bounds
        parent.children[i] = child
        parent.visits += visits

    def ucb1(child: Node) -> float:  # Kocsis & Szepesvari: mean scaled into [0, 1] + c * sqrt(ln N / n)
        mean = (child.totals[player] / child.visits - low) / (high - low)
        return mean + c * math.sqrt(math.log(parent.visits) / child.visits)

    picked = search.best_child(parent)
    assert ucb1(picked) == pytest.approx(max(map(ucb1, parent.children.values())), abs=1e-9)


def test_mcts_playout_choice_stays_in_range_at_the_largest_random_value() -> None:
    class Extreme(random.Random):
        def random(self) -> float:  # the largest float random() can return
            return math.nextafter(1.0, 0.0)

    game = ConnectFour(7, 6)
    result = mcts(game, limits=Limits(iterations=50), rng=Extreme(0), solver=False)
    assert sum(c.visits for c in result.children) == 50
    # Every playout took the last legal move: no index ran past the list.
    assert result.stats.nodes > 50
