"""The C state graph explored on several threads (solver/native/explore.c) is the graph one thread explores:
the same states in the same order, the same edges, distributions, parents, slices, caps and first failure."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gdl
import solver.native.graph
from gdl.rule_helpers import RuleRuntimeError
from solver import exact
from solver.game import DeadEndError
from solver.limits import Limits
from solver.native.graph import GR_SLICE, _Graph
from tests.test_native_graph import CHASE, GRAPH, SHARED, _graph_root, _load, _same_solution

THREADS = (2, 3, 5)


@pytest.fixture(autouse=True)
def _threads_from_the_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """The workers from the first state on (by default a graph's first 65,536 states are explored on one thread),
    so that small graphs go through the threads' path too."""
    monkeypatch.setattr(solver.native.graph, "SERIAL_STATES", 0)


def _explored(game: gdl.CompiledGame, threads: int, root: Any = None, cap: int | None = None,
              slices: tuple[int, ...] = ()) -> tuple[_Graph, list[tuple[int, ...]]]:
    """The graph of ``game`` explored on ``threads`` threads, and after each call (of ``slices`` states, then
    4,096) its status, states and states expanded."""
    handle = game.native()
    assert handle is not None
    graph = _Graph(game, handle, cap, threads)
    lib, ffi = graph.lib, graph.ffi
    start = ffi.new("int64_t[]", list(handle.cells(game.initial_state() if root is None else root)))
    seen: list[tuple[int, ...]] = []
    status, sizes = GR_SLICE, list(slices)
    while status == GR_SLICE:
        status = int(lib.gdl_gr_explore(graph.ctx, start if not seen else ffi.NULL, sizes.pop(0) if sizes else 4096))
        stats = graph._read()
        seen.append((status, int(stats[0]), int(stats[1]), int(stats[2]), int(stats[7])))
    return graph, seen


def _export(graph: _Graph) -> tuple[Any, ...]:
    """Everything the graph holds: per state its turn, edges, values, cells, parent and move from it; per edge
    its child, move code and probability."""
    ffi, lib = graph.ffi, graph.lib
    stats = graph._read()
    n, edges, width = int(stats[0]), int(stats[2]), graph.handle.state_len
    players = len(graph.game.players)
    player, first, vals = ffi.new("int32_t[]", n), ffi.new("int64_t[]", n + 1), ffi.new("double[]", n * players)
    cells = ffi.new("int64_t[]", n * width)
    succ, codes, probs = ffi.new("int32_t[]", edges), ffi.new("int32_t[]", edges), ffi.new("double[]", edges)
    assert lib.gdl_gr_export(graph.ctx, player, first, vals, cells, succ, codes, probs) == 0
    via = ffi.new("int32_t *")
    parents = [(int(lib.gdl_gr_parent(graph.ctx, i, via)), int(via[0])) for i in range(n)]
    return (ffi.unpack(player, n), ffi.unpack(first, n + 1), ffi.unpack(vals, n * players),
            ffi.unpack(cells, n * width), ffi.unpack(succ, edges), ffi.unpack(codes, edges),
            ffi.unpack(probs, edges), parents)


GAMES: list[tuple[str, dict[str, str]]] = [
    ("pig", {"goal": "30"}), ("pig", {"goal": "12", "variant": "openspiel"}), ("race", {"goal": "30"}),
    ("kalah", {"pits": "3", "seeds": "3"}), ("dots_and_boxes", {}), ("connect4", {"cols": "4", "rows": "4"}),
    ("takeaway3", {}), (CHASE, {"size": "24"}), (SHARED, {}),
]
"""Chance, cycles, one value or one per player (three players, general sum), symmetric keys (connect4), and
graphs of 28 to 100,978 states."""


@pytest.mark.parametrize(("name", "params"), GAMES,
                         ids=[f"{n.split()[1] if chr(10) in n else n}-{len(p)}" for n, p in GAMES])
def test_the_graph_is_the_same_on_any_number_of_threads(name: str, params: dict[str, str]) -> None:
    game = _load(name, params, "c")
    one, one_seen = _explored(game, 1)
    expected = _export(one)
    for threads in THREADS:
        graph, seen = _explored(game, threads)
        assert seen == one_seen, threads
        assert _export(graph) == expected, threads


def test_slices_end_after_the_same_states() -> None:
    """However small the slices, each call ends where one thread's call ends (Python checks the budget there)."""
    game = _load("pig", {"goal": "20"}, "c")
    slices = (1, 1, 16, 17, 5, 100, 3, 1000, 1, 64) * 3
    one, one_seen = _explored(game, 1, slices=slices)
    assert len(one_seen) > len(slices)
    for threads in THREADS:
        graph, seen = _explored(game, threads, slices=slices)
        assert seen == one_seen
        assert _export(graph) == _export(one)


def test_the_table_cap_stops_at_the_same_state() -> None:
    game = _load(CHASE, {"size": "24"}, "c")
    for cap in (1, 17, 1000, 5003):
        one = _explored(game, 1, cap=cap)[1]
        assert one[-1][0] == solver.native.graph.GR_FULL and one[-1][1] == cap
        for threads in THREADS:
            assert _explored(game, threads, cap=cap)[1] == one


WALK = """game Walk "a walk up and right over a grid; rule errors and dead ends side by side on one level"
players A, B
param size = 40
state x: 0..size = 0
state y: 0..size = 0
def last = x + y == 40
move right when x < size and not (last and x % 7 == 0): x = x + (99 if last and x % 5 == 3 else 1)
move up when y < size and not (last and x % 7 == 0): y = y + (99 if last and x % 5 == 1 else 1)
win A when x == size and y == size
"""
"""The states (x, y) with x + y = k are the k-th level, added in the order of x from the highest: on level 40,
x = 38, 33, ... fail moving right and x = 36, 31, ... moving up (a value out of its domain), and x = 35, 28, ...
are dead ends, so each block of sixteen states there has several failures; one thread meets x = 38 first."""


def _error(game: gdl.CompiledGame, threads: int) -> str:
    with pytest.raises((RuleRuntimeError, DeadEndError)) as caught:
        exact.solve(game, method="value_iteration", limits=Limits(threads=threads))
    kind = "RuleRuntimeError" if isinstance(caught.value, RuleRuntimeError) else type(caught.value).__name__
    return f"{kind}: {caught.value}"  # (the C back end's rule error is a subclass: gdl.native.game.NativeRuleError)


def test_the_first_failure_is_reported_as_on_one_thread() -> None:
    no_errors, no_dead_end = WALK.replace("99 if", "1 if"), WALK.replace("not (last and x % 7 == 0)", "true")
    for rules, kind in ((WALK, "RuleRuntimeError"), (no_errors, "DeadEndError"), (no_dead_end, "RuleRuntimeError"),
                        (no_errors.replace("x % 7 == 0", "x % 7 == 3"), "DeadEndError")):
        game = _load(rules, {}, "c")
        one = _error(game, 1)
        assert one.startswith(kind)
        for threads in THREADS:
            assert _error(game, threads) == one


def test_solving_on_threads_gives_the_one_thread_answer() -> None:
    """The whole solve (value iteration, the distance to the end, the table) with the threads of the limits."""
    for name, params in (("pig", {"goal": "12"}), (CHASE, {"size": "16"})):
        game = _load(name, params, "c")
        method = "retrograde" if "\n" in name else "auto"
        one = exact.solve(game, method=method, plies=True, limits=Limits(threads=1))
        for threads in THREADS:
            _same_solution(exact.solve(game, method=method, plies=True, limits=Limits(threads=threads)), one)


def test_budgets_stop_the_threads_as_one_thread() -> None:
    game = _load("pig", {"goal": "20"}, "c")
    for limits in (Limits(table_entries=3000), Limits(nodes=1000), Limits(nodes=17)):
        one = exact.solve(game, limits=limits)
        assert one.stopped
        for threads in THREADS:
            ours = exact.solve(game, limits=Limits(table_entries=limits.table_entries, nodes=limits.nodes,
                                                   threads=threads))
            assert (ours.stopped, ours.stop_reason, ours.stats.nodes, ours.stats.tt_size) == (
                one.stopped, one.stop_reason, one.stats.nodes, one.stats.tt_size)


LONG_GRAPH = GRAPH.replace("state node: N = 0", "state node: N = 0\nstate step: 0..40 = 0").replace(
    "    node = succ[node, k]", "    node = succ[node, k]\n    step = (step + 1) % 41")
"""tests/test_native_graph.py's GRAPH with a step counter (mod 41): random graphs of up to 328 states."""


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_random_graphs_are_the_same_on_any_number_of_threads(data: st.DataObject) -> None:
    from tests.graph_strategy import graphs

    nodes = data.draw(graphs())
    game = _load(LONG_GRAPH, {}, "c")
    root = _graph_root(nodes)
    root = (root[0], 0, *root[1:])  # (LONG_GRAPH's step: the second cell)
    one, one_seen = _explored(game, 1, root=root, slices=(5, 16, 33))
    threads = data.draw(st.sampled_from(THREADS))
    graph, seen = _explored(game, threads, root=root, slices=(5, 16, 33))
    assert seen == one_seen and _export(graph) == _export(one)


@pytest.mark.parametrize(("name", "params", "method"), [("pig", {"goal": "25"}, "value_iteration"),
                                                        ("connect4", {"cols": "4", "rows": "4"}, "backward")])
def test_after_the_serial_phase_the_threads_or_this_one_alone_give_the_one_thread_graph(
        monkeypatch: pytest.MonkeyPatch, name: str, params: dict[str, str], method: str) -> None:
    """With the default serial phase, the workers join or not by its timing (explore.c's gr_adding_dominates: Pig's
    cheap rules, no; Connect-Four's, yes): either way the graph and the answer are one thread's."""
    monkeypatch.setattr(solver.native.graph, "SERIAL_STATES", 4096)  # (both graphs are larger)
    game = _load(name, params, "c")
    one = exact.solve(game, method=method, plies=True, limits=Limits(threads=1))
    _same_solution(exact.solve(game, method=method, plies=True, limits=Limits(threads=2)), one)
