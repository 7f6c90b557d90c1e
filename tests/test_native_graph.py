"""The state graph in C (solver/native/graph.c): backward induction and value iteration give the Python
graph methods' answer -- values, optimal moves, line, table, statistics -- and report budgets, dead ends
and rule errors the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gdl
import solver.exact
import solver.native.graph
from gdl.rule_helpers import RuleRuntimeError
from solver import exact
from solver.auto import Algorithm
from solver.game import DeadEndError
from solver.graph import StateGraph
from solver.limits import Budget, Limits
from solver.native.graph import fits, solve_retrograde_native
from tests.graph_strategy import chance_graphs, graphs

GAMBLER = """game Gambler "bet a coin at a time: reach 4 to win, 0 to lose"
players A
state money: 0..4 = 2
move bet:
    chance:
        up with 2/5: money += 1
        down with 3/5: money -= 1
move wait: money = money
win A when money == 4
lose A when money == 0
"""
"""One player, chance and cycles; `wait` ties with itself, which makes Newton steps redo a component from 0."""

SHUTTLE_DICE = """game ShuttleDice "push a token with a die; A wins at 6, B at 0"
players A, B
state pos: 0..6 = 3
move push:
    chance d in 1..2:
        if mover == A: pos = min(pos + d, 6)
        else: pos = max(pos - d, 0)
move pass: pos = pos
win A when pos == 6
win B when pos == 0
"""
"""Two players, zero-sum, chance and cycles that neither player need leave."""

CRASH = """game Crash
players A, B
state n: 0..3 = 0
move step:
    chance d in 1..2: n = n + d
win A when n == 3
"""
"""n = 2, then d = 2: a value outside n's domain, a rule error two plies in."""

STUCK = """game Stuck
players A, B
state n: 0..3 = 0
move step when n < 2:
    chance d in 1..2: n = n + d
win A when n == 3
"""
"""n = 2 has no move and is not the end: a dead end."""

SHARED = """game Shared "two players' own scores (general sum), chance and cycles"
players A, B
state pos: 0..4 = 2
state bonus: bool = false
move step:
    chance:
        up with 1/2: pos = min(pos + 1, 4)
        down with 1/2: pos = max(pos - 1, 0)
move wait: bonus = not bonus
terminal when pos == 0 or pos == 4
utility p: (3 if pos == 4 else 1) + (1 if bonus and p == A else 0)
"""
"""A value per player (max^n) in C, as in Python's vector solver."""

CASES: list[tuple[str, dict[str, str], str]] = [
    ("pig", {"goal": "10"}, "auto"), ("pig", {"goal": "12", "variant": "openspiel"}, "auto"),
    ("race", {"goal": "10"}, "auto"), ("nim", {}, "backward"), ("dots_and_boxes", {}, "value_iteration"),
    ("kalah", {"pits": "3", "seeds": "2"}, "backward"),
    (GAMBLER, {}, "auto"), (SHUTTLE_DICE, {}, "auto"), (SHUTTLE_DICE, {}, "value_iteration"),
    ("takeaway3", {}, "auto"), ("takeaway3", {}, "value_iteration"), (SHARED, {}, "auto"),
]


def _load(name: str, params: dict[str, str], backend: str) -> gdl.CompiledGame:
    if "\n" in name:
        return gdl.load_source(name, "case.gdl", params, backend=backend)
    return gdl.load(name, params, backend=backend)


def _solve_in_c(game: gdl.CompiledGame, monkeypatch: pytest.MonkeyPatch | None = None,
                **options: Any) -> exact.Solution:
    """Solve with the Python graph and retrograde analysis made unavailable: the answer can only come from C."""
    def no_python_graph(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the Python state graph was used")

    def no_python_retrograde(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the Python retrograde analysis was used")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(solver.exact.StateGraph, "explore", no_python_graph)
        patch.setattr(solver.exact, "retrograde", no_python_retrograde)
        return exact.solve(game, **options)


def _copied_out(*args: Any) -> Any:
    raise AssertionError("the C graph was copied out")


OVER_CASES = pytest.mark.parametrize(("name", "params", "method"), CASES,
                                     ids=[f"{n.split()[1] if chr(10) in n else n}-{m}" for n, _, m in CASES])
"""Each case of CASES, named by its game (an inline rule file by its `game` line's name) and method."""


def _close(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= 1e-12 for x, y in zip(a, b, strict=True))


@pytest.mark.slow
@OVER_CASES
def test_the_c_graph_gives_the_python_answer(name: str, params: dict[str, str], method: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    python, native = _load(name, params, "python"), _load(name, params, "c")
    assert fits(native, Algorithm(method)) and not fits(python, Algorithm(method))
    theirs = exact.solve(python, method=method)
    ours = _solve_in_c(native, monkeypatch, method=method)
    assert _close(ours.value, theirs.value) and ours.exact and theirs.exact
    assert ours.algorithm == theirs.algorithm
    assert [str(m) for m in ours.best_moves] == [str(m) for m in theirs.best_moves]
    assert [str(m) for m in ours.principal_variation] == [str(m) for m in theirs.principal_variation]
    assert ours.stats.tt_size == theirs.stats.tt_size and ours.stats.depth == theirs.stats.depth
    assert ours.stats.nodes == theirs.stats.nodes and ours.stats.iterations == theirs.stats.iterations
    assert ours.table is not None and theirs.table is not None
    assert ours.table.values.keys() == theirs.table.values.keys()
    assert all(_close(ours.table.values[k], v) for k, v in theirs.table.values.items())
    assert dict(ours.table.best) == dict(theirs.table.best)
    assert ours.table.method == theirs.table.method and ours.table.complete


def test_every_root_move_is_valued_by_the_same_solve(monkeypatch: pytest.MonkeyPatch) -> None:
    python, native = _load(SHUTTLE_DICE, {}, "python"), _load(SHUTTLE_DICE, {}, "c")
    ours = _solve_in_c(native, monkeypatch)
    table = exact.solve(python).table
    assert table is not None
    root = python.initial_state()
    expected = [(str(m), table.values[python.key(python.apply(root, m))]) for m in python.legal_moves(root)]
    assert [(str(m), v) for m, v in ours.move_values] == expected


def test_a_rule_error_is_reported_as_in_python() -> None:
    for backend in ("python", "c"):
        with pytest.raises(RuleRuntimeError, match="domain") as caught:
            exact.solve(_load(CRASH, {}, backend))
    assert str(caught.value).startswith("case.gdl:5:27:")  # C names the place itself (Python: by its span)
    assert "step,d=2,step" in str(caught.value)


def test_a_dead_end_is_reported_with_the_moves_that_reach_it() -> None:
    errors = []
    for backend in ("python", "c"):
        with pytest.raises(DeadEndError) as caught:
            exact.solve(_load(STUCK, {}, backend))
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
    assert "step" in errors[1]


def test_budgets_stop_the_c_graph_as_they_stop_python() -> None:
    for limits, reason in ((Limits(table_entries=50), "table"), (Limits(nodes=100), "nodes")):
        results = [exact.solve(_load("pig", {"goal": "10"}, b), limits=limits) for b in ("python", "c")]
        for result in results:
            assert result.stopped and not result.exact and result.stop_reason == reason


def test_a_sweep_limit_gives_the_same_estimate() -> None:
    python, native = (_load(GAMBLER, {}, b) for b in ("python", "c"))
    theirs, ours = (exact.solve(g, limits=Limits(iterations=2)) for g in (python, native))
    assert not ours.exact and ours.stop_reason == theirs.stop_reason == "iterations"
    assert ours.note == theirs.note and _close(ours.value, theirs.value)


def test_backward_induction_refuses_a_cyclic_graph_in_c() -> None:
    with pytest.raises(ValueError, match="has cycles: backward induction cannot solve it"):
        exact.solve(_load(GAMBLER, {}, "c"), method="backward")


def test_progress_is_reported_from_the_c_graph() -> None:
    seen: list[int] = []
    result = exact.solve(_load("pig", {"goal": "40"}, "c"), progress=lambda stats: seen.append(stats.nodes))
    assert result.exact and seen and seen == sorted(seen)


def test_games_the_c_graph_does_not_take() -> None:
    assert not fits(_load("nim", {}, "c"), Algorithm.AUTO)  # alpha-beta first, then retrograde analysis
    assert not fits(_load("nim", {}, "c"), Algorithm.RETROGRADE)


@pytest.mark.slow
@OVER_CASES
def test_with_the_distance_the_c_graph_gives_the_python_answer(name: str, params: dict[str, str], method: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    python, native = _load(name, params, "python"), _load(name, params, "c")
    theirs = exact.solve(python, method=method, plies=True)
    ours = _solve_in_c(native, monkeypatch, method=method, plies=True)
    assert ours.plies == theirs.plies and theirs.plies is not None
    assert [str(m) for m in ours.fastest_moves] == [str(m) for m in theirs.fastest_moves]
    assert [str(m) for m in ours.principal_variation] == [str(m) for m in theirs.principal_variation]
    assert ours.table is not None and theirs.table is not None and ours.table.plies == theirs.table.plies
    assert _close(ours.value, theirs.value) and ours.stats.nodes == theirs.stats.nodes
    assert dict(ours.table.best) == dict(theirs.table.best)


def test_the_distance_from_c_is_read_a_state_at_a_time_and_printed(monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from gdl.cli import main

    assert main(["solve", "pig", "-p", "goal=10", "--backend", "python"]) == 0
    their_text = capsys.readouterr().out
    monkeypatch.setattr(solver.native.graph._Graph, "state_graph", _copied_out)
    python = _load("pig", {"goal": "10"}, "python")
    solution, theirs = exact.solve(_load("pig", {"goal": "10"}, "c"), plies=True), exact.solve(python, plies=True)
    assert solution.exact and solution.plies == theirs.plies
    assert solution.table is not None and theirs.table is not None
    state = python.initial_state()
    for move in python.legal_moves(state):  # one state's distance without reading the whole table out of C
        key = python.key(python.apply(state, move))
        assert solution.table.plies[key] == solution.table.plies.get(key) == theirs.table.plies[key]
        assert key in solution.table.plies
    assert not solution.table.plies.filled  # type: ignore[attr-defined]
    assert ("not", "a state") not in solution.table.plies  # (this one reads the table out)
    assert dict(solution.table.plies) == dict(theirs.table.plies)
    assert main(["solve", "pig", "-p", "goal=10", "--backend", "c"]) == 0
    our_text = capsys.readouterr().out
    assert "expected length under optimal play: 9.32498 plies" in our_text and "not computed" not in our_text
    assert our_text.splitlines()[:6] == their_text.splitlines()[:6]  # (value, distance, each move's plies, line)


SHUTTLE = str(Path(__file__).resolve().parent / "solvefiles" / "shuttle.gdl")

CHASE = """game Chase "two cops chase a robber round a ring; the robber escapes at cell 0"
param size = 8
players Cops, Robber
state c1: 0..size-1 = 1
state c2: 0..size-1 = 2
state r: 0..size-1 = size // 2
move one_left when turn == Cops: c1 = (c1 + size - 1) % size
move one_right when turn == Cops: c1 = (c1 + 1) % size
move two_left when turn == Cops: c2 = (c2 + size - 1) % size
move two_right when turn == Cops: c2 = (c2 + 1) % size
move run_left when turn == Robber: r = (r + size - 1) % size
move run_right when turn == Robber: r = (r + 1) % size
move hide when turn == Robber: r = r
win Cops when r == c1 or r == c2
win Robber when r == 0
"""
"""A cyclic duel with wins for both sides and endless play, thousands of states (size 24: 26k; 60: 421k)."""

GRAPH = """game Graph "a walk on a graph held in the state: node 0 starts; an end pays util to A"
players A, B
def N = 0..7
def K = 0..2
state node: N = 0
state deg[N]: 0..3 = 1
state succ[N, K]: N = 0
state owner[N]: player = A
state util[N]: -2..2 = 0
state end[N]: bool = false
move go(k: K) when k < deg[node]:
    node = succ[node, k]
    turn = owner[node]
terminal when end[node]
utility p in -2..2: util[node] if p == A else 0 - util[node]
zero_sum
"""
"""Any two-player zero-sum graph of at most 8 nodes and 3 moves a node, as a start state: one C module for all."""

CYCLE_CRASH = """game CycleCrash
players A, B
state n: 0..3 = 0
move up when n < 3: n = n + 1
move down when n > 0: n -= 1
move jump when n == 2: n = n + 2
win B when n == 3
"""
"""Cycles, and a rule error (4 is outside n's domain) once n = 2 is expanded."""


def _graph_root(nodes: list[tuple[Any, ...]]) -> tuple[Any, ...]:
    """GRAPH's state at node 0 of ``nodes``: ("T", utility) or ("D", player, children); node 0 is a decision."""
    deg, succ, owner, util, end = [], [], [], [], []
    for node in nodes + [("D", 0, (0,))] * (8 - len(nodes)):
        if node[0] == "T":
            deg.append(0); succ += [0, 0, 0]; owner.append(0); util.append(node[1]); end.append(True)  # noqa: E702
        else:
            children = list(node[2])
            deg.append(len(children)); succ += children + [0] * (3 - len(children))  # noqa: E702
            owner.append(node[1]); util.append(0); end.append(False)  # noqa: E702
    return (0, *deg, *succ, *owner, *util, *end, owner[0], 0)


def _same_solution(ours: exact.Solution, theirs: exact.Solution) -> None:
    """Field by field (but the time): the C answer is the Python answer."""
    assert (ours.value, ours.exact, ours.stopped, ours.stop_reason, ours.note, ours.plies, ours.algorithm) == (
        theirs.value, theirs.exact, theirs.stopped, theirs.stop_reason, theirs.note, theirs.plies, theirs.algorithm)
    for field in ("best_moves", "principal_variation", "fastest_moves"):
        assert [str(m) for m in getattr(ours, field)] == [str(m) for m in getattr(theirs, field)], field
    assert [(str(m), v) for m, v in ours.move_values] == [(str(m), v) for m, v in theirs.move_values]
    for stat in ("nodes", "depth", "tt_hits", "tt_size", "iterations"):
        assert getattr(ours.stats, stat) == getattr(theirs.stats, stat), stat
    assert ours.table is not None and theirs.table is not None
    assert dict(ours.table.values) == dict(theirs.table.values)
    assert dict(ours.table.best) == dict(theirs.table.best)
    assert dict(ours.table.plies) == dict(theirs.table.plies)
    assert (ours.table.method, ours.table.complete) == (theirs.table.method, theirs.table.complete)


RETROGRADE_CASES = [(SHUTTLE, {}, "auto"), (SHUTTLE, {}, "retrograde"), (CHASE, {}, "retrograde"),
                    (CHASE, {"size": "11"}, "retrograde")]
"""The cyclic duels (with ``auto``: one whose alpha-beta search meets a cycle; Chase's does not)."""


@pytest.mark.parametrize("plies", [False, True])
@pytest.mark.parametrize(("name", "params", "method"), RETROGRADE_CASES,
                         ids=["shuttle-auto", "shuttle", "chase", "chase-11"])
def test_retrograde_analysis_in_c_gives_the_python_answer(name: str, params: dict[str, str], method: str,
                                                          plies: bool) -> None:
    """A cyclic duel: retrograde analysis in C (with the distance: copied out and finished in Python)."""
    python, native = _load(name, params, "python"), _load(name, params, "c")
    theirs = exact.solve(python, method=method, plies=plies)
    ours = _solve_in_c(native, method=method, plies=plies)
    assert ours.algorithm == "retrograde" and ours.exact
    _same_solution(ours, theirs)


@settings(max_examples=60, deadline=None)
@given(graphs(), st.booleans())
def test_retrograde_analysis_in_c_on_random_graphs(nodes: list[tuple[Any, ...]], plies: bool) -> None:
    python, native = _load(GRAPH, {}, "python"), _load(GRAPH, {}, "c")
    root = _graph_root(nodes)
    theirs = exact.solve(python, root, method="retrograde", plies=plies)
    ours = _solve_in_c(native, state=root, method="retrograde", plies=plies)
    _same_solution(ours, theirs)


def test_an_acyclic_duel_is_handed_back_for_backward_induction() -> None:
    """``auto`` checks for cycles first: an acyclic graph goes to the Python backward induction, copied out."""
    native = _load(GRAPH, {}, "c")
    root = _graph_root([("D", 0, (1, 2)), ("D", 1, (2, 3)), ("T", 1), ("T", -1)])
    answer = solve_retrograde_native(native, root, Budget(), Limits(), Algorithm.AUTO)
    assert isinstance(answer, StateGraph) and len(answer) == 4 and answer.topological_order() is not None
    cyclic = _graph_root([("D", 0, (1, 2)), ("D", 1, (0, 3)), ("T", 1), ("T", -1)])
    assert isinstance(solve_retrograde_native(native, cyclic, Budget(), Limits(), Algorithm.AUTO), exact.Solution)


def test_a_rule_error_in_a_cyclic_duel_is_reported_as_in_python() -> None:
    errors = []
    for backend in ("python", "c"):
        with pytest.raises(RuleRuntimeError, match="domain") as caught:
            exact.solve(_load(CYCLE_CRASH, {}, backend), method="retrograde")
        errors.append(str(caught.value))
    assert errors[1] == "case.gdl:6:28: value out of its domain (after the moves up,up)"  # the line from the root


def test_budgets_stop_the_c_retrograde_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    native = _load(CHASE, {}, "c")
    for limits, reason in ((Limits(table_entries=50), "table"), (Limits(nodes=100), "nodes")):
        results = [exact.solve(_load(CHASE, {}, b), limits=limits, method="retrograde") for b in ("python", "c")]
        for result in results:
            assert result.stopped and not result.exact and result.stop_reason == reason
    monkeypatch.setattr(solver.native.graph, "RG_FIRST_SLICE", 64)  # many slices: Python sees each end

    def interrupt(stats: Any) -> None:
        raise KeyboardInterrupt

    stopped = exact.solve(native, method="retrograde", progress=interrupt)
    assert stopped.stopped and stopped.stop_reason == "interrupt" and not stopped.exact
    seen: list[int] = []
    done = exact.solve(native, method="retrograde", progress=lambda stats: seen.append(stats.nodes))
    assert done.exact and seen and set(seen) == {done.stats.nodes}  # (the analysis counts no nodes)
    monkeypatch.setattr(Budget, "time_left", lambda self: False)
    late = exact.solve(native, method="retrograde")
    assert late.stopped and late.stop_reason == "time" and not late.exact


CHANCE_GRAPH = """game ChanceGraph "a walk on a graph held in the state: decisions, weighted rolls and ends"
players A, B
def N = 0..7
def K = 0..2
state node: N = 0
state deg[N]: 0..3 = 1
state succ[N, K]: N = 0
state owner[N]: player = A
state random[N]: bool = false
state weight[N, K]: 0..3 = 1
state util[N]: -2..2 = 0
state end[N]: bool = false
move go(k: K) when not random[node] and k < deg[node]:
    node = succ[node, k]
    turn = owner[node]
move roll when random[node]:
    chance k in K weight (weight[node, k] if k < deg[node] else 0):
        node = succ[node, k]
        turn = owner[node]
terminal when end[node]
utility p in -2..2: util[node] if p == A else 0 - util[node]
zero_sum
"""
"""GRAPH with chance: a node may roll to its children, with weights; cycles through chance states."""


def _chance_graph_root(nodes: list[tuple[Any, ...]]) -> tuple[Any, ...]:
    """CHANCE_GRAPH's state at node 0 of ``nodes`` (tests/graph_strategy.py's :func:`chance_graphs`)."""
    deg, succ, owner, random, weight, util, end = [], [], [], [], [], [], []
    for node in nodes + [("D", 0, (0,))] * (8 - len(nodes)):
        if node[0] == "T":
            deg.append(0); succ += [0, 0, 0]; owner.append(0); random.append(False)  # noqa: E702
            weight += [1, 1, 1]; util.append(node[1]); end.append(True)  # noqa: E702
        else:
            children = list(node[2])
            weights = list(node[3]) if node[0] == "C" else [1] * len(children)
            deg.append(len(children)); succ += children + [0] * (3 - len(children))  # noqa: E702
            owner.append(node[1]); random.append(node[0] == "C"); util.append(0); end.append(False)  # noqa: E702
            weight += weights + [1] * (3 - len(weights))
    return (0, *deg, *succ, *owner, *random, *weight, *util, *end, owner[0], 0)


@pytest.mark.slow
@OVER_CASES
def test_the_distance_in_c_is_the_python_distance(name: str, params: dict[str, str], method: str) -> None:
    """The distance computed in C, and every other field, are those of the graph copied out and finished in Python
    (the threshold raised), and the Python back end's."""
    python, native = _load(name, params, "python"), _load(name, params, "c")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(solver.native.graph, "PLIES_STATES", 10**9)
        copied = _solve_in_c(native, method=method, plies=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(solver.native.graph._Graph, "state_graph", _copied_out)
        ours = _solve_in_c(native, method=method, plies=True)
    assert ours.plies is not None
    _same_solution(ours, copied)
    _same_solution(ours, exact.solve(python, method=method, plies=True))


@pytest.mark.parametrize(("name", "params", "method"), RETROGRADE_CASES,
                         ids=["shuttle-auto", "shuttle", "chase", "chase-11"])
def test_the_distance_in_c_after_retrograde_analysis(name: str, params: dict[str, str], method: str) -> None:
    """A cyclic duel: the distance computed in C, nothing copied out (in slices of 64 units of work: a cycle is
    left and taken up again many times)."""
    python, native = _load(name, params, "python"), _load(name, params, "c")
    theirs = exact.solve(python, method=method, plies=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(solver.native.graph._Graph, "state_graph", _copied_out)
        patch.setattr(solver.native.graph, "RM_FIRST_SLICE", 64)
        ours = _solve_in_c(native, method=method, plies=True)
    assert ours.plies is not None
    _same_solution(ours, theirs)


@settings(max_examples=60, deadline=None)
@given(graphs(), st.integers(0, 8))
def test_the_distance_after_retrograde_analysis_on_random_graphs(nodes: list[tuple[Any, ...]], most: int) -> None:
    """Graphs of 2-8 states on either side of the largest copied out (``most``)."""
    python, native = _load(GRAPH, {}, "python"), _load(GRAPH, {}, "c")
    root = _graph_root(nodes)
    theirs = exact.solve(python, root, method="retrograde", plies=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(solver.native.graph, "PLIES_STATES", most)
        patch.setattr(solver.native.graph, "RM_FIRST_SLICE", 1)  # (a slice of one state or edge, then the next)
        ours = _solve_in_c(native, state=root, method="retrograde", plies=True)
    _same_solution(ours, theirs)


@settings(max_examples=80, deadline=None)
@given(chance_graphs(), st.integers(0, 16))
def test_the_distance_in_c_on_random_chance_graphs(nodes: list[tuple[Any, ...]], most: int) -> None:
    """Value iteration with chance on the cycles (Newton steps, sweeps, endless play), graphs of up to 16 states on
    either side of the largest copied out (``most``)."""
    python, native = _load(CHANCE_GRAPH, {}, "python"), _load(CHANCE_GRAPH, {}, "c")
    root = _chance_graph_root(nodes)
    theirs = exact.solve(python, root, plies=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(solver.native.graph, "PLIES_STATES", most)
        ours = _solve_in_c(native, state=root, plies=True)
    _same_solution(ours, theirs)


def test_ctrl_c_and_the_time_budget_stop_the_c_distance(monkeypatch: pytest.MonkeyPatch) -> None:
    native = _load(CHASE, {"size": "16"}, "c")
    monkeypatch.setattr(solver.native.graph, "RM_FIRST_SLICE", 64)
    measuring = []
    distance = solver.native.graph._Graph.distance

    def measured(self: Any, budget: Budget) -> None:
        measuring.append(True)
        distance(self, budget)

    monkeypatch.setattr(solver.native.graph._Graph, "distance", measured)

    def interrupt(stats: Any) -> None:
        if measuring:
            raise KeyboardInterrupt

    stopped = exact.solve(native, method="retrograde", plies=True, progress=interrupt)
    assert measuring and stopped.stopped and stopped.stop_reason == "interrupt" and not stopped.exact
    monkeypatch.setattr(Budget, "time_left", lambda self: not measuring)
    measuring.clear()
    late = exact.solve(native, method="retrograde", plies=True)
    assert measuring and late.stopped and late.stop_reason == "time" and not late.exact
