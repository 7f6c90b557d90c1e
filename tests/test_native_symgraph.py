"""The state graph in C for games with symmetric keys (solver/native/graph.c): a state is its canonical image, the
state first found with it is expanded, and the answer is the Python graph's field by field -- values, root moves,
line (played on the real states), table (values for every key, a move for the root only), statistics, the
distance to the end -- for backward induction, value iteration and retrograde analysis; and the C puzzle search
(solver/native/puzzle.c), which keeps its states in the same storage, expands the states Python expands."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gdl
import solver.native.graph
from solver import exact
from solver.auto import Algorithm
from solver.game import CHANCE, TERMINAL
from solver.graph import StateGraph
from solver.limits import Budget, Limits
from solver.native.graph import explored_in_c, fits, retrograde_fits
from solver.shortest_path import solve_puzzle
from tests.graph_strategy import graphs
from tests.test_native_graph import _load, _same_solution, _solve_in_c

MIRROR_DICE = """game MirrorDice "push a counter up with a die or pull one down; the board's two ends play alike"
players A, B
board 1 x 3
symmetry mirror
state level[cell]: 0..3 = 0
move push(c: cell) when level[c] < 3:
    chance d in 1..2:
        level[c] = min(level[c] + d, 3)
move pull(c: cell) when level[c] > 0: level[c] -= 1
win B when level[b1] == 3
win A when (count c in cell: level[c] == 3) >= 2
"""
"""Two players, zero-sum, chance and cycles, with a mirror symmetry (a1 and c1 trade places)."""

MIRROR_GAMBLER = """game MirrorGambler "two purses: bet from either, win when one holds 3, lose when both are empty"
players A
board 1 x 2
symmetry mirror
state money[cell]: 0..3 = 1
move bet(c: cell) when money[c] > 0 and money[c] < 3:
    chance:
        up with 2/5: money[c] += 1
        down with 3/5: money[c] -= 1
move wait: money[a1] = money[a1]
win A when any c in cell: money[c] == 3
lose A when all c in cell: money[c] == 0
"""
"""One player, chance and cycles (`wait` ties with itself: Newton steps redo a component from 0), symmetric."""

MIRROR_THREE = """game MirrorThree "three players fill a row of three; the middle cell's owner is paid most"
players A, B, C
board 1 x 3
symmetry mirror
state level[cell]: 0..2 = 0
move push(c: cell) when level[c] < 2:
    chance:
        up with 1/2: level[c] += 1
        stay with 1/2: level[c] = level[c]
move wait: level[b1] = level[b1]
terminal when (sum c in cell: level[c]) >= 4
utility p: (count c in cell: level[c] == 2) + (2 if p == A and level[b1] == 2 else 0)
"""
"""Three players, general sum (a value per player: max^n), chance and cycles, symmetric."""

TWO_TOKENS = """game TwoTokens "two tokens walk one graph held in the state: a move takes either token along an edge"
players A, B
board 1 x 2
symmetry mirror
def N = 0..7
def K = 0..2
state pos[cell]: N = 0
state deg[N]: 0..3 = 1
state succ[N, K]: N = 0
state util[N]: -2..2 = 0
state end[N]: bool = false
move go(c: cell, k: K) when k < deg[pos[c]]:
    pos[c] = succ[pos[c], k]
terminal when any c in cell: end[pos[c]]
utility p in -4..4: (sum c in cell: util[pos[c]]) if p == A else 0 - (sum c in cell: util[pos[c]])
zero_sum
"""
"""Any graph of tests/graph_strategy.py walked by two tokens at once, the players taking turns: the two cells of
the board trade places under `mirror`, so (x, y) and (y, x) are one state and their moves name other cells."""

CASES: list[tuple[str, dict[str, str], str]] = [
    ("tictactoe", {}, "backward"), ("tictactoe", {}, "value_iteration"), ("tictactoe", {}, "retrograde"),
    ("hexapawn", {}, "backward"), ("hexapawn", {"rows": "4", "cols": "3"}, "retrograde"),
    ("connect4", {"cols": "4", "rows": "3"}, "value_iteration"), ("clobber", {"rows": "2", "cols": "3"}, "backward"),
    ("mnk", {"m": "3", "n": "4", "k": "3"}, "retrograde"),
    (MIRROR_DICE, {}, "auto"), (MIRROR_DICE, {}, "value_iteration"), (MIRROR_GAMBLER, {}, "auto"),
    (MIRROR_THREE, {}, "auto"),
]
SLOW = {"mnk"}
"""Cases of a second or more (m,n,k 3x4 with k = 3: 5 s, most of it the Python solve): in the full suite only."""
OVER_CASES = pytest.mark.parametrize(("name", "params", "method"), [
    pytest.param(n, p, m, id=f"{n.split()[1] if chr(10) in n else n}-{m}",
                 marks=[pytest.mark.slow] if n in SLOW else []) for n, p, m in CASES])


def _same(ours: exact.Solution, theirs: exact.Solution, python: gdl.CompiledGame) -> None:
    """The C answer is the Python answer, field by field but the time; the root moves' values are the Python
    table's values of the root's children."""
    _same_solution(ours, theirs)
    root = python.initial_state()
    if python.to_move(root) >= 0:
        assert [(str(m), v) for m, v in ours.move_values] == [
            (str(m), theirs.table.values[python.key(python.apply(root, m))]) for m in python.legal_moves(root)]


@pytest.mark.parametrize("plies", [False, True])
@OVER_CASES
def test_the_c_graph_of_a_symmetric_game_gives_the_python_answer(name: str, params: dict[str, str], method: str,
                                                                 plies: bool) -> None:
    python, native = _load(name, params, "python"), _load(name, params, "c")
    assert python.symmetries and native.symmetries
    theirs = exact.solve(python, method=method, plies=plies)
    ours = _solve_in_c(native, method=method, plies=plies)
    assert ours.exact and (ours.plies is not None) == plies
    assert theirs.table is not None and len(theirs.table.best) <= 1  # (only the root's moves: see has_symmetric_keys)
    _same(ours, theirs, python)


def test_a_symmetric_graph_copied_out_gives_the_same_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The graph copied into Python for the distance (the path :data:`solver.native.graph.PLIES_STATES` opens) gives
    the answer the distance in C gives: the Python one, its states the states first found."""
    monkeypatch.setattr(solver.native.graph, "PLIES_STATES", 10**9)
    for name, params, method in (("tictactoe", {}, "backward"), (MIRROR_DICE, {}, "auto"),
                                 ("hexapawn", {}, "retrograde")):
        python, native = _load(name, params, "python"), _load(name, params, "c")
        theirs = exact.solve(python, method=method, plies=True)
        ours = _solve_in_c(native, method=method, plies=True)
        _same(ours, theirs, python)


def test_the_state_first_found_is_expanded() -> None:
    """The C graph keeps a state's canonical image as its key and the state first found with it as its state, as
    the Python graph does: the root is the root itself, with its own moves, though another image is smaller."""
    python, native = _load("hexapawn", {}, "python"), _load("hexapawn", {}, "c")
    start = python.initial_state()
    root = python.apply(start, python.legal_moves(start)[-1])
    assert python.key(root) != root  # advance(c1): its key is advance(a1)'s position
    graph = explored_in_c(native, root, Budget(Limits()), Limits())
    assert graph is not None
    theirs = StateGraph.explore(python, root, Budget(Limits()))
    assert graph.states == theirs.states and graph.keys == theirs.keys and graph.succ == theirs.succ
    assert [[str(m) for m in ms] for ms in graph.moves] == [[str(m) for m in ms] for ms in theirs.moves]
    ours = _solve_in_c(native, state=root, method="backward")
    python_answer = exact.solve(python, root, method="backward")
    assert [str(m) for m in ours.principal_variation] == [str(m) for m in python_answer.principal_variation]


def test_a_chance_state_is_its_own_key_in_c_as_in_python() -> None:
    """The symmetries map the decision slots only: a chance state keeps the cell its move was made on (here `c`,
    a1), so its mirror image is no image of it (pushing a1 from (0, 0, 1) is not pushing a1 from (1, 0, 0))."""
    python, native = _load(MIRROR_DICE, {}, "python"), _load(MIRROR_DICE, {}, "c")
    start = python.apply(python.initial_state(), python.legal_moves(python.initial_state())[0])  # push(a1)
    pushed = python.apply(start, python.chance_outcomes(start)[0][0])  # d=1: (1, 0, 0), B to move
    chance = python.apply(pushed, python.legal_moves(pushed)[0])  # B pushes a1
    assert python.to_move(chance) == CHANCE and python.key(chance) == chance
    assert native.key(chance) == chance
    assert python.key(pushed) == native.key(pushed) != pushed  # (a decision state's key is its smallest image)


def test_symmetric_games_take_the_c_graph() -> None:
    native = _load("tictactoe", {}, "c")
    assert native.symmetries
    assert all(fits(native, Algorithm(m)) for m in ("backward", "value_iteration"))
    assert retrograde_fits(native, Algorithm.RETROGRADE)


def _two_tokens_root(nodes: list[tuple[Any, ...]]) -> tuple[Any, ...]:
    """TWO_TOKENS' state with both tokens on node 0 of ``nodes`` (("T", utility) or ("D", player, children): the
    player is not used, the players take turns)."""
    deg, succ, util, end = [], [], [], []
    for node in nodes + [("D", 0, (0,))] * (8 - len(nodes)):
        if node[0] == "T":
            deg.append(0); succ += [0, 0, 0]; util.append(node[1]); end.append(True)  # noqa: E702
        else:
            children = list(node[2])
            deg.append(len(children)); succ += children + [0] * (3 - len(children))  # noqa: E702
            util.append(0); end.append(False)  # noqa: E702
    return (0, 0, *deg, *succ, *util, *end, 0, 0)


@settings(max_examples=40, deadline=None)
@given(graphs(), st.sampled_from(["retrograde", "value_iteration"]), st.booleans())
def test_the_c_graph_of_two_tokens_on_random_graphs(nodes: list[tuple[Any, ...]], method: str, plies: bool) -> None:
    python, native = _load(TWO_TOKENS, {}, "python"), _load(TWO_TOKENS, {}, "c")
    root = _two_tokens_root(nodes)
    theirs = exact.solve(python, root, method=method, plies=plies)
    ours = _solve_in_c(native, state=root, method=method, plies=plies)
    assert ours.exact == theirs.exact
    assert (ours.value, [str(m) for m in ours.best_moves], [str(m) for m in ours.principal_variation]) == (
        theirs.value, [str(m) for m in theirs.best_moves], [str(m) for m in theirs.principal_variation])
    assert ours.table is not None and theirs.table is not None
    assert dict(ours.table.values) == dict(theirs.table.values) and dict(ours.table.best) == dict(theirs.table.best)
    assert dict(ours.table.plies) == dict(theirs.table.plies) and ours.plies == theirs.plies
    assert ours.stats.nodes == theirs.stats.nodes and ours.stats.iterations == theirs.stats.iterations


SLIDER = """game Slider "walk a token along a row until every cell is seen"
param start: 0..6 = 1
players A
board 1 x 7
symmetry mirror
state at: cell? = a1
state seen[cell]: bool = false
setup:
    at = first c in cell: col(c) == start
move left when step(at, west) != none:
    seen[at] = true
    at = step(at, west)
move right when step(at, east) != none:
    seen[at] = true
    at = step(at, east)
win A when all c in cell: seen[c] or at == c
heuristic A: 0 - (count c in cell: not seen[c])
"""
"""A puzzle with a mirror symmetry: stepping left from b1 and right from f1 reach one key, whose moves differ."""


@pytest.mark.parametrize("start", ["1", "2", "5"])
@pytest.mark.parametrize("heuristic", [True, False], ids=["astar", "bfs"])
def test_a_symmetric_puzzle_is_searched_in_c_as_in_python(start: str, heuristic: bool) -> None:
    """The C puzzle search expands the state Python expands, not its key's image: the same line, which reaches the
    goal when replayed from the start (it did not when C expanded the canonical images)."""
    python, native = (_load(SLIDER, {"start": start}, b) for b in ("python", "c"))
    theirs, ours = (solve_puzzle(g, use_heuristic=heuristic) for g in (python, native))
    assert ours.solved and theirs.solved
    assert ([str(m) for m in ours.principal_variation], ours.stats.nodes, ours.value) == (
        [str(m) for m in theirs.principal_variation], theirs.stats.nodes, theirs.value)
    state = python.initial_state()
    for move in ours.principal_variation:
        state = python.apply(state, python.parse_move(state, str(move)))
    assert python.to_move(state) == TERMINAL and python.utilities(state) == (1.0,)


@pytest.mark.parametrize(("name", "params", "method"), [
    ("connect4", {"cols": "4", "rows": "3"}, "value_iteration"), (MIRROR_DICE, {}, "auto"),
    ("hexapawn", {"rows": "4", "cols": "3"}, "retrograde")], ids=["connect4", "MirrorDice", "hexapawn"])
def test_the_threads_expand_the_states_first_found(name: str, params: dict[str, str], method: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Explored on several threads (solver/native/explore.c, the workers from the first state on), the graph of a
    symmetric game is the one-thread graph: its states as first found, and the Python answer."""
    monkeypatch.setattr(solver.native.graph, "SERIAL_STATES", 0)
    python, native = _load(name, params, "python"), _load(name, params, "c")
    theirs = exact.solve(python, method=method, plies=True)
    expected = StateGraph.explore(python, python.initial_state(), Budget(Limits()))
    for threads in (2, 3):
        ours = _solve_in_c(native, method=method, plies=True, limits=Limits(threads=threads))
        _same(ours, theirs, python)
        graph = explored_in_c(native, native.initial_state(), Budget(Limits()), Limits(threads=threads))
        assert graph is not None and graph.states == expected.states and graph.keys == expected.keys
