"""Distance to the end (Gamesman's remoteness): every exact solver agrees, and with brute-force oracles."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from refgames import ConnectFour, GraphGame, Nim, Pig, Ring, Takeaway3, TicTacToe, TreeGame
from test_solver_exact import graphs, horizon_value
from test_solver_search import as_game, trees

import gdl
from solver.exact import solve
from solver.game import CHANCE, TERMINAL, GameBase, Move
from solver.table import load_table, save_table

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DUEL_METHODS = ("alphabeta", "backward", "retrograde", "value_iteration")


# ------------------------------------------------------------------ oracles


def tree_oracle(game: TreeGame, path: tuple = ()) -> tuple[tuple[float, ...], float]:
    """(value vector, plies) by the definition: max^n with the first best move, then the winner's fewest
    plies (or a draw's) and the loser's most, among the children with the state's value; chance averages."""
    node = game.nodes[path]
    if node[0] == "T":
        return tuple(node[1]), 0.0
    if node[0] == "C":
        results = [tree_oracle(game, (*path, i)) for i in range(len(node[1]))]
        probs = [p for p, _ in node[1]]
        value = tuple(sum(p * v[j] for p, (v, _) in zip(probs, results, strict=True)) for j in range(len(game.players)))
        return value, 1.0 + sum(p * d for p, (_, d) in zip(probs, results, strict=True))
    player = node[1]
    results = [tree_oracle(game, (*path, i)) for i in range(len(node[2]))]
    top = max(v[player] for v, _ in results)
    value = next(v for v, _ in results if v[player] >= top - 1e-12)
    kept = [d for v, d in results if all(abs(a - b) <= 1e-9 for a, b in zip(v, value, strict=True))]
    return value, 1.0 + (min(kept) if value[player] >= 0 else max(kept))


def graph_oracle(game: GraphGame) -> list[float]:
    """Plies per node of a two-player zero-sum graph: bounded value iteration from 'never ends' (inf).

    After k rounds a node holds the distance the hurrying side can force within k plies (inf if none);
    optimal play never repeats a node, so len(nodes) + 1 rounds are enough.
    """
    nodes = game.nodes
    depth = 4 * len(nodes) + 4
    value = [horizon_value(game, i, depth) for i in range(len(nodes))]
    plies = [0.0 if n[0] == "T" else math.inf for n in nodes]
    for _ in range(len(nodes) + 1):
        new = list(plies)
        for i, n in enumerate(nodes):
            if n[0] == "T":
                continue
            kept = [plies[c] for c in n[2] if value[c] == value[i]]
            mover = value[i] if n[1] == 0 else -value[i]
            new[i] = 1.0 + (min(kept) if mover >= 0 else max(kept))
        plies = new
    return plies


def dags() -> st.SearchStrategy:
    """Random acyclic two-player zero-sum graphs with transpositions (edges only to later nodes)."""

    @st.composite
    def build(draw: st.DrawFn) -> list:
        n = draw(st.integers(2, 9))
        nodes = []
        for i in range(n - 1):
            if i > 0 and draw(st.booleans()) and draw(st.booleans()):
                nodes.append(("T", draw(st.integers(-2, 2))))
            else:
                succ = tuple(draw(st.lists(st.integers(i + 1, n - 1), min_size=1, max_size=3)))
                nodes.append(("D", draw(st.integers(0, 1)), succ))
        nodes.append(("T", draw(st.integers(-2, 2))))
        return nodes

    return build()


def replay_length(game: object, moves: tuple) -> tuple[int, object]:
    state = game.initial_state()  # type: ignore[attr-defined]
    for move in moves:
        state = game.apply(state, move)  # type: ignore[attr-defined]
    return len(moves), state


# ------------------------------------------------------------------ random games


@FAST
@given(trees())
def test_every_duel_solver_agrees_with_the_definition_on_random_trees(tree: tuple) -> None:
    game = as_game(tree)
    value, plies = tree_oracle(game)
    for method in DUEL_METHODS:
        solution = solve(game, method=method, plies=True)
        assert solution.value == pytest.approx(value)
        assert solution.plies == plies, method
        if game.to_move(()) >= 0:
            assert solution.fastest_moves and set(solution.fastest_moves) <= set(solution.best_moves)
            assert len(solution.principal_variation) == plies  # the line lasts as long as promised
            _, end = replay_length(game, solution.principal_variation)
            assert game.to_move(end) == TERMINAL and game.utilities(end)[0] == value[0]


@FAST
@given(trees(chance=True))
def test_expected_plies_with_chance_agree_with_the_definition(tree: tuple) -> None:
    game = as_game(tree)
    _, plies = tree_oracle(game)
    for method in ("auto", "backward", "value_iteration"):
        solution = solve(game, method=method, plies=True)
        assert solution.plies == pytest.approx(plies), method


@FAST
@given(trees(players=3, chance=True, zero_sum=False))
def test_three_player_plies_agree_with_the_definition(tree: tuple) -> None:
    game = as_game(tree, players=3, zero_sum=False)
    _, plies = tree_oracle(game)
    for method in ("backward", "value_iteration"):
        assert solve(game, method=method, plies=True).plies == pytest.approx(plies), method


@FAST
@given(dags())
def test_every_duel_solver_agrees_on_random_graphs_with_transpositions(nodes: list) -> None:
    game = GraphGame(nodes)
    expected = graph_oracle(game)[0]
    for method in DUEL_METHODS:
        solution = solve(game, method=method, plies=True)
        assert solution.plies == expected, method
        assert len(solution.principal_variation) == expected


@settings(max_examples=80, deadline=None)
@given(graphs())
def test_retrograde_and_value_iteration_agree_on_random_cyclic_graphs(nodes: list) -> None:
    game = GraphGame(nodes)
    oracle = graph_oracle(game)
    for method in ("retrograde", "value_iteration"):
        solution = solve(game, method=method, plies=True)
        assert solution.plies == oracle[0], method
        table = solution.table
        assert table is not None
        for state, distance in table.plies.items():
            assert distance == oracle[state], (method, state)
        if math.isfinite(oracle[0]) and game.to_move(0) >= 0:
            # the line follows the distance to the end and ends there: a winner makes progress
            length, end = replay_length(game, solution.principal_variation)
            assert length == oracle[0] and game.to_move(end) == TERMINAL


# ------------------------------------------------------------------ known games


def test_tictactoe_lasts_nine_plies_by_every_method() -> None:
    for method in DUEL_METHODS:
        solution = solve(TicTacToe(), method=method, plies=True)
        assert solution.plies == 9.0 and len(solution.principal_variation) == 9


def test_bundled_games_agree_on_plies_across_methods() -> None:
    for name, params in [("tictactoe", {}), ("nim", {"heaps": "1,2,3"}), ("hexapawn", {}),
                         ("clobber", {"rows": "2", "cols": "3"}), ("takeaway3", {})]:
        game = gdl.load(name, params)
        methods = DUEL_METHODS if len(game.players) == 2 else ("backward", "value_iteration")
        found = {m: solve(game, method=m, plies=True).plies for m in methods}
        assert len(set(found.values())) == 1 and None not in found.values(), (name, found)


@pytest.mark.slow
def test_reference_games_agree_on_plies() -> None:
    for game in (Nim((1, 2, 3)), ConnectFour(4, 3)):
        found = {m: solve(game, method=m, plies=True).plies for m in DUEL_METHODS}
        assert len(set(found.values())) == 1, found
    assert solve(Takeaway3(7), plies=True).plies == 4.0  # take(2) x 2, then the piles of 3: 4 moves in all
    assert solve(Ring(6, 3), plies=True).plies == math.inf  # a draw by endless play never ends


class Doomed(GameBase):
    """A loses from the start: A may resign at once (``resign``) or ``wait`` up to ``n`` times first."""

    name = "doomed"
    players = ("A", "B")
    zero_sum = True
    utility_bounds = (-1.0, 1.0)

    def __init__(self, n: int = 3) -> None:
        self.n = n

    def initial_state(self) -> tuple:
        return (0, 0)

    def to_move(self, state: tuple) -> int:
        return TERMINAL if state[1] < 0 else state[1]

    def legal_moves(self, state: tuple) -> list[Move]:
        if state[1] == 1:
            return [Move("pass")]
        return [Move("resign")] + ([Move("wait")] if state[0] < self.n else [])

    def apply(self, state: tuple, move: object) -> tuple:
        if move == "resign":
            return (state[0], -1)
        return (state[0] + (move == "wait"), 1 - state[1])

    def utilities(self, state: tuple) -> tuple[float, ...]:
        return (-1.0, 1.0)


def test_the_loser_holds_out_as_long_as_it_can() -> None:
    for method in DUEL_METHODS:
        solution = solve(Doomed(3), method=method, plies=True)
        assert solution.value == (-1.0, 1.0)
        assert {str(m) for m in solution.best_moves} == {"resign", "wait"}  # both lose: both optimal by value
        assert [str(m) for m in solution.fastest_moves] == ["wait"]
        assert [str(m) for m in solution.principal_variation] == ["wait", "pass"] * 3 + ["resign"]
        assert solution.plies == 7.0


class ChanceGraph(GameBase):
    """A two-player zero-sum game on an explicit graph with chance nodes and cycles.

    ``nodes[i]``: ``("T", u0)``, ``("D", player, (successor, ...))`` or ``("C", (successor, ...))``, the
    last with equally likely outcomes ``o(k)``.
    """

    name = "chance-graph"
    players = ("p0", "p1")
    zero_sum = True
    has_chance = True
    utility_bounds = (-2.0, 2.0)

    def __init__(self, nodes: list) -> None:
        self.nodes = nodes

    def initial_state(self) -> int:
        return 0

    def to_move(self, state: int) -> int:
        node = self.nodes[state]
        return TERMINAL if node[0] == "T" else CHANCE if node[0] == "C" else node[1]

    def legal_moves(self, state: int) -> list[Move]:
        return [Move("e", (k,)) for k in range(len(self.nodes[state][2]))]

    def chance_outcomes(self, state: int) -> list[tuple[Move, float]]:
        succ = self.nodes[state][1]
        return [(Move("o", (k,)), 1 / len(succ)) for k in range(len(succ))]

    def apply(self, state: int, move: object) -> int:
        node = self.nodes[state]
        return (node[1] if node[0] == "C" else node[2])[move.args[0]]  # type: ignore[attr-defined]

    def utilities(self, state: int) -> tuple[float, ...]:
        return (float(self.nodes[state][1]), -float(self.nodes[state][1]))


def chance_graphs() -> st.SearchStrategy:
    @st.composite
    def build(draw: st.DrawFn) -> list:
        n = draw(st.integers(2, 7))
        nodes: list = []
        for i in range(n):
            kind = draw(st.sampled_from("TDC")) if i > 0 else draw(st.sampled_from("DC"))
            succ = tuple(draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3)))
            if kind == "T":
                nodes.append(("T", draw(st.integers(-2, 2))))
            elif kind == "D":
                nodes.append(("D", draw(st.integers(0, 1)), succ))
            else:
                nodes.append(("C", succ))
        return nodes

    return build()


def jacobi_plies(game: ChanceGraph, values: dict, rounds: int = 4000) -> list[float | None]:
    """Expected plies by plain Jacobi rounds from 0 (the least fixed point); None where not settled.

    ``values``: the solved values of the reachable states (the others are never read).
    """
    nodes = game.nodes
    value = {i: v[0] for i, v in values.items()}
    plies = [0.0] * len(nodes)
    last = plies
    for _ in range(rounds):
        last, plies = plies, list(plies)
        for i, node in enumerate(nodes):
            if i not in value:
                continue
            if node[0] == "C":
                plies[i] = 1.0 + sum(last[c] for c in node[1]) / len(node[1])
            elif node[0] == "D":
                kept = [last[c] for c in node[2] if abs(value[c] - value[i]) <= 1e-7]
                mover = value[i] if node[1] == 0 else -value[i]
                plies[i] = 1.0 + (min(kept) if mover >= -1e-9 else max(kept))
    return [p if abs(p - q) <= 1e-9 * max(1.0, p) else None for p, q in zip(plies, last, strict=True)]


@settings(max_examples=60, deadline=None)
@given(chance_graphs())
def test_expected_plies_in_cyclic_chance_games_agree_with_plain_iteration(nodes: list) -> None:
    game = ChanceGraph(nodes)
    solution = solve(game, method="value_iteration", plies=True)
    table = solution.table
    assert table is not None and solution.exact
    oracle = jacobi_plies(game, table.values)
    for state, expected in enumerate(oracle):
        if state not in table.values:
            continue
        assert table.plies.get(state) is not None  # always known: a number, or inf for play that may not end
        if expected is not None:
            assert table.plies[state] == pytest.approx(expected, rel=1e-6), (state, table.plies)


def test_a_coin_until_heads_lasts_two_plies_on_average() -> None:
    game = ChanceGraph([("C", (1, 0)), ("T", 1)])  # heads ends it, tails tosses again
    assert solve(game, plies=True).plies == pytest.approx(2.0)
    stuck = ChanceGraph([("C", (0, 0))])  # tails and tails: the coin is tossed forever
    assert solve(stuck, plies=True).plies == math.inf


def test_pig_expected_plies_newton_equals_plain_sweeps(monkeypatch: pytest.MonkeyPatch) -> None:
    import solver.remoteness as remoteness

    fast = solve(Pig(8), plies=True)
    monkeypatch.setattr(remoteness, "NEWTON_MAX_FEEDBACK", -1)
    slow = solve(Pig(8), plies=True)
    assert fast.plies is not None and fast.plies == pytest.approx(slow.plies, rel=1e-8)
    assert fast.table is not None and slow.table is not None
    for key, distance in fast.table.plies.items():
        assert distance == pytest.approx(slow.table.plies[key], rel=1e-8)


def test_tables_store_plies(tmp_path: Path) -> None:
    solution = solve(TicTacToe(), method="backward", plies=True)
    assert solution.table is not None
    path = tmp_path / "t.sqlite"
    save_table(solution.table, path)
    loaded = load_table(path, TicTacToe())
    assert loaded.plies == solution.table.plies
    assert loaded.plies[TicTacToe().key(TicTacToe().initial_state())] == 9.0
    without = solve(TicTacToe(), method="backward")
    assert without.plies is None and without.table is not None and not without.table.plies


def test_perfect_play_from_a_table_follows_the_plies() -> None:
    game = Doomed(4)
    table = solve(game, method="backward", plies=True).table
    assert table is not None
    assert table.fastest_moves(game, game.initial_state()) == ("wait",)
    assert set(table.best_moves(game, game.initial_state()) or ()) == {"resign", "wait"}


def test_chance_state_counts_one_ply_per_outcome() -> None:
    tree = ("C", ((0.5, ("T", (1.0, -1.0))), (0.5, ("D", 0, (("T", (1.0, -1.0)),)))))
    game = as_game(tree)
    assert game.to_move(()) == CHANCE
    assert solve(game, plies=True).plies == pytest.approx(1.5)


@pytest.mark.parametrize("name, params", [("tictactoe", {}), ("hexapawn", {}), ("clobber", {"rows": "2", "cols": "3"})])
def test_principal_variations_with_symmetry_follow_the_plies_to_the_end(name: str, params: dict) -> None:
    game = gdl.load(name, params)  # these rule files have a `symmetry` line: one key per set of mirror images
    assert getattr(game, "symmetries", ())
    for method in ("alphabeta", "backward"):
        solution = solve(game, method=method, plies=True)
        line = solution.principal_variation
        assert len(line) == solution.plies, method
        state = game.initial_state()
        for move in line:
            state = game.apply(state, game.parse_move(state, str(move)))
        assert game.to_move(state) == TERMINAL and tuple(game.utilities(state)) == solution.value
