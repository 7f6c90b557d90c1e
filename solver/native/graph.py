"""Backward induction, value iteration and retrograde analysis over the state graph in C (``graph.c``,
``retrograde.c``).

The same methods as :mod:`solver.graph`, :mod:`solver.backward` and :mod:`solver.value_iteration` (Bellman
1957, one strongly connected component at a time in Tarjan's order, Dai & Goldsmith 2007), for a game with a
C back end: one value per state in a one-player or
two-player zero-sum game (with Newton steps), else one per player (max^n, plain sweeps), chosen as the Python
solver chooses. :func:`solver.exact.solve` runs it in place of the Python graph methods when it fits; the
answer is the same :class:`~solver.solution.Solution`. A deterministic two-player zero-sum game with cycles is
solved by the retrograde analysis in C (:func:`solve_retrograde_native`): :mod:`solver.retrograde`'s values and
optimal moves.

Both phases run in C in slices of states, between which Python checks the budget (time, nodes, the table
cap, progress about every 0.1 s) and sees Ctrl-C. A graph small enough is copied out and finished by the
Python code; a larger one's table is read out of C only when first used. The distance to the end is computed in
C too (``remoteness.c``: :mod:`solver.remoteness`'s, to the last bit, some 50 times faster than copying the graph
out for it).

With symmetric keys the C graph is :class:`solver.graph.StateGraph`'s: a state is identified by its key (the
canonical image) and the state first found with that key is the one expanded; as in :func:`solver.solution.finish`,
the table stores no move but the root's (a move belongs to one image), and the principal variation is played on
the real states, each move the first that keeps the value (and, with the distance, is one ply nearer the end).
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Hashable
from dataclasses import replace
from itertools import pairwise
from typing import Any

from solver.auto import Algorithm, exact_method, is_deterministic_duel
from solver.game import CHANCE, TERMINAL, Game, State
from solver.graph import STATE_BYTES, StateGraph, Values
from solver.limits import TIE_TOLERANCE, Budget, Limits, SearchStopped, StopReason, entry_bytes
from solver.native import FIRST_SLICE, NativeHandle, dead_end_after, handle_of, next_slice
from solver.native.search import lazy_table
from solver.remoteness import one_less
from solver.solution import Solution, finish, played_line
from solver.table import SolvedTable, has_symmetric_keys
from solver.value_iteration import best_moves

GR_DONE, GR_SLICE, GR_FULL, GR_DEAD_END, GR_ERROR, GR_MEMORY, GR_NOT_SCALAR = range(7)
SLICE_SECONDS = 0.05
"""A slice of C work lasts about this long: the budget is checked (and Ctrl-C seen) that often."""
MOST_STATES = 2**31 - 2
"""The graph numbers its states with 32-bit integers."""
PV_LIMIT = 10_000
EXPORT_STATES = 2_000_000
"""The largest graph explored in C and copied out for a Python graph method: backward induction of a duel whose
graph is acyclic after all, or the Python exploration's graph when the C analysis declines the game."""
RG_FIRST_SLICE = 1 << 14
"""The retrograde analysis's first slice, in units of work (a state or an edge); the smallest slice too."""
SERIAL_STATES = 65_536
"""With more than one thread, the exploration's first states are expanded on one (a small graph needs no other);
their time decides whether the others join (explore.c's ``gr_adding_dominates``: not when adding the children to
the graph was most of it, as in Pig, where a second thread made the exploration slower)."""
PLIES_STATES = 0
"""The largest graph copied out and finished by the Python code (:func:`solver.solution.finish`,
:mod:`solver.remoteness`) for its distance to the end; a larger one's is computed in C (``remoteness.c``). None
are: the answer is the same, field for field, and C is much faster; the tests raise it to compare the two."""
RM_FIRST_SLICE = 1 << 14
"""The distance pass's first slice, in units of work (a state or an edge); the smallest slice too."""


def fits(game: Game, method: Algorithm) -> bool:
    """Whether the C graph solves ``game`` by ``method`` (auto, backward or value iteration)."""
    if method not in (Algorithm.AUTO, Algorithm.BACKWARD, Algorithm.VALUE_ITERATION):
        return False
    if method == Algorithm.AUTO and is_deterministic_duel(game):
        return False  # alpha-beta, then retrograde analysis: not graph methods the C graph has
    return handle_of(game) is not None


def retrograde_fits(game: Game, method: Algorithm) -> bool:
    """Whether the C graph's retrograde analysis solves ``game`` (auto or retrograde; a deterministic duel with a C
    back end)."""
    return (method in (Algorithm.AUTO, Algorithm.RETROGRADE) and is_deterministic_duel(game)
            and handle_of(game) is not None)


def _explored(game: Game, root: State, budget: Budget, limits: Limits, retrograde: bool) -> _Graph | None:
    """The C graph of ``game`` from ``root``, explored (for the retrograde analysis, or not); None when its values
    turn out not to be scalar."""
    handle = handle_of(game)
    assert handle is not None
    graph = _Graph(game, handle, most_states(game, handle, limits, retrograde), limits.threads)
    return graph if graph.explore(root, budget) else None


def most_states(game: Game, handle: NativeHandle, limits: Limits, retrograde: bool = False) -> int | None:
    """The most states the C graph of ``game`` may keep (solved by the retrograde analysis, or not):
    ``limits.table_entries``, or as many as ``limits.memory_bytes`` holds at C's cost of a state
    (``gdl_gr_state_bytes``), the smaller; None: no cap."""
    return limits.entries(_state_bytes(game, handle, retrograde))


def _state_bytes(game: Game, handle: NativeHandle, retrograde: bool = False) -> int:
    return int(handle.lib.gdl_gr_state_bytes(1 if _vector(game) else 0, 1 if retrograde else 0))


def _vector(game: Game) -> bool:
    """Whether the graph keeps a value per player (max^n): not one player, nor two in a zero-sum game."""
    players = len(game.players)
    return not (players == 1 or (players == 2 and game.zero_sum))


def solve_retrograde_native(game: Game, root: State, budget: Budget, limits: Limits, method: Algorithm,
                            plies: bool = False) -> Solution | StateGraph | None:
    """Retrograde analysis of ``root``'s graph in C (``retrograde.c``): :func:`solver.retrograde.retrograde`'s
    values and optimal moves, then :func:`solver.solution.finish`'s answer.

    ``auto`` first checks for cycles: an acyclic graph is returned as a :class:`StateGraph` for the Python graph
    methods (backward induction), or None when it has more than :data:`EXPORT_STATES` states. ``plies``: the
    distance to the end too, computed in C (``remoteness.c``; a graph of at most :data:`PLIES_STATES` states is
    copied out with its values and optimal moves and finished by the Python code instead). None also when the
    values turn out not to be scalar (the Python path then runs).

    :raises SearchStopped: a budget ran out (the table cap: reason ``table``).
    """
    graph = _explored(game, root, budget, limits, retrograde=True)
    if graph is None:
        return None
    explored = budget.nodes
    check = method == Algorithm.AUTO
    if graph.retrograde(budget, check):
        # (copied out, a state costs what a Python one does)
        most = limits.entries(entry_bytes(STATE_BYTES, root, copies=2))
        return graph.state_graph()[0] if budget.tt_size <= min(EXPORT_STATES, most or EXPORT_STATES) else None
    budget.nodes = explored
    method = Algorithm.RETROGRADE
    if plies and budget.tt_size <= PLIES_STATES:
        exported, values = graph.state_graph()
        return finish(game, exported, budget, (values, graph.retrograde_best()), method, True, None, True)
    if plies:
        graph.distance(budget)
    return graph.retrograde_solution(root, budget, method)


def solve_graph_native(game: Game, root: State, budget: Budget, limits: Limits, method: Algorithm,
                       tolerance: float, plies: bool = False) -> Solution | None:
    """Solve ``root`` over the C state graph; None when the game's values turn out not to be scalar.

    ``plies``: the distance to the end too (when the values converged), computed in C (``remoteness.c``; a graph
    of at most :data:`PLIES_STATES` states is copied into a :class:`solver.graph.StateGraph` and finished by the
    Python code, :func:`solver.solution.finish`, instead). Either way the answer is the Python back end's to the
    last field.

    :raises SearchStopped: a budget ran out (the table cap: reason ``table``).
    :raises ValueError: ``backward`` asked for a game with cycles.
    """
    graph = _explored(game, root, budget, limits, retrograde=False)
    if graph is None:
        return None
    explored = budget.nodes
    acyclic = graph.solve(budget, tolerance, limits.iterations)
    if method == Algorithm.BACKWARD and not acyclic:
        raise ValueError(f"{game.name} has cycles: backward induction cannot solve it; use value_iteration")
    if method == Algorithm.AUTO:
        method = exact_method(game, acyclic)
    if method == Algorithm.BACKWARD:
        budget.nodes = explored  # (the Python back end counts backward induction's states once, as explored)
    if plies and budget.tt_size <= PLIES_STATES:
        return graph.finished_in_python(root, budget, method)
    if plies and graph.converged:
        graph.distance(budget)
    return graph.solution(root, budget, method)


def explored_in_c(game: Game, root: State, budget: Budget, limits: Limits) -> StateGraph | None:
    """The reachable graph explored in C and copied into a :class:`StateGraph` for the Python graph methods
    (when the C retrograde analysis declined the game: values not scalar); None when the game has no C handle,
    or its graph is larger than :data:`EXPORT_STATES` (then the Python exploration runs).

    :raises SearchStopped: the most states ``limits`` allow were found (reason ``table``; a state counted at its
        cost in C and in Python, :data:`solver.graph.STATE_BYTES`), or another budget.
    """
    handle = handle_of(game)
    if handle is None:
        return None
    # (copied out, it is in both at once)
    cap = limits.entries(_state_bytes(game, handle) + entry_bytes(STATE_BYTES, root, copies=2))
    graph = _Graph(game, handle, min(cap, EXPORT_STATES) if cap is not None else EXPORT_STATES, limits.threads)
    try:
        if not graph.explore(root, budget):
            return None
    except SearchStopped as stop:
        if stop.reason == StopReason.TABLE and (cap is None or cap > EXPORT_STATES):
            return None  # too big to copy out: the Python exploration (slow, but the same answer)
        raise
    return graph.state_graph()[0]


def ply_sizes(game: Game, root: State, states: int, seconds: float | None = None) -> tuple[list[int], bool] | None:
    """How many states are first reached at each ply from ``root`` (breadth-first, one per key), explored in C
    until ``states`` states are found (or ``seconds`` pass, if given); and whether those are every reachable state (the
    plies cut short are left out). None when the game has no C handle. A measurement of a game's size
    (``gdl solve``'s estimate when a solve stops), some hundred times faster than stepping through the game
    from Python.

    :raises DeadEndError: the exploration met a dead end (or the rules' error).
    """
    handle = handle_of(game)
    if handle is None:
        return None
    graph = _Graph(game, handle, states)
    with contextlib.suppress(SearchStopped):  # (then the plies found so far)
        graph.explore(root, Budget(Limits(seconds=seconds)))
    return graph.levels()


def _sliced(run: Callable[[int], int], size: int, smallest: int, between: Callable[[int], int]) -> int:
    """Call ``run(size)`` until it returns something other than GR_SLICE (returned), sizing slices to last about
    SLICE_SECONDS (at least ``smallest``); after each, ``between(next size)`` checks the budget (it raises
    SearchStopped to stop) and returns the size to run next."""
    while True:
        started = time.perf_counter()
        status = run(size)
        if status != GR_SLICE:
            return status
        size = between(next_slice(size, time.perf_counter() - started, smallest, SLICE_SECONDS))


def _timed_slices(budget: Budget, run: Callable[[int], int], first: int) -> int:
    """:func:`_sliced` for the passes over an explored graph, which count no nodes: between slices the time
    budget, progress and Ctrl-C."""
    nodes = budget.nodes

    def between(size: int) -> int:
        if not budget.time_left():
            raise SearchStopped(StopReason.TIME)
        if budget.progress is not None:
            budget.progress(budget.stats())
        budget.nodes = nodes
        return size

    return _sliced(run, first, first, between)


class _Graph:
    """The C graph of one solve, with the Python side of its answers."""

    def __init__(self, game: Game, handle: NativeHandle, cap: int | None, threads: int = 1) -> None:
        self.game, self.handle = game, handle
        self.symmetric = has_symmetric_keys(game)  # (keys are canonical images: see the module's docstring)
        ffi, lib = handle.ffi, handle.lib
        self.ffi, self.lib = ffi, lib
        ctx = lib.gdl_gr_new(min(cap, MOST_STATES) if cap is not None else MOST_STATES)
        if ctx == ffi.NULL:
            raise MemoryError("no memory for the state graph")
        self.ctx = ffi.gc(ctx, lib.gdl_gr_free)
        lib.gdl_gr_threads(self.ctx, threads, SERIAL_STATES)  # (explore.c: the same graph on any number of threads)
        self.stats = ffi.new("int64_t[9]")
        self.converged = True
        self.rg: Any = None  # the retrograde analysis (retrograde.c), once run
        self.rm: Any = None  # the distance to the end (remoteness.c), once computed
        self.cells = ffi.new("int64_t[]", handle.state_len)
        self.row = ffi.new("double[]", len(game.players))
        if _vector(game) and lib.gdl_gr_vector(self.ctx) != 0:
            raise MemoryError("no memory for the state graph")
        # (a value per player, max^n; a two-player game whose every end pays (u, -u) is found to be scalar)

    def _read(self) -> Any:
        self.lib.gdl_gr_stats(self.ctx, self.stats)
        return self.stats

    def explore(self, root: State, budget: Budget) -> bool:
        """Every state reachable from ``root``; False when the values are not scalar after all."""
        lib, ffi, ctx = self.lib, self.ffi, self.ctx
        if self.symmetric:
            self.game.key(root)  # the game's check of its declared symmetries, before C relies on them (as Python's
            # exploration, whose first act is this call)
        start = [ffi.new("int64_t[]", list(self.handle.cells(root)))]

        def run(size: int) -> int:
            status = lib.gdl_gr_explore(ctx, start[0] if start else ffi.NULL, size)
            start.clear()
            return int(status)

        status = self._slices(budget, run, lambda stats: int(stats[1]))
        if status == GR_NOT_SCALAR:
            return False
        if status == GR_FULL:
            budget.nodes = budget.tt_size = int(self._read()[0])
            raise SearchStopped(StopReason.TABLE)
        if status != GR_DONE:
            self._fail(status, root)
        stats = self._read()
        budget.nodes = int(stats[1])
        budget.tt_size = int(stats[0])
        return True

    def levels(self, most: int = 1 << 16) -> tuple[list[int], bool]:
        """The sizes of the plies explored so far (``gdl_gr_levels``), and whether no ply follows."""
        sizes, complete = self.ffi.new("int64_t[]", most), self.ffi.new("int32_t *")
        count = int(self.lib.gdl_gr_levels(self.ctx, sizes, most, complete))
        return [int(sizes[i]) for i in range(count)], bool(complete[0])

    def solve(self, budget: Budget, tolerance: float, max_sweeps: int | None) -> bool:
        """Values of every state; whether the graph is acyclic (each component one state without a loop)."""
        lib, ctx = self.lib, self.ctx
        explored = budget.nodes
        status = self._slices(budget, lambda size: int(lib.gdl_gr_solve(ctx, tolerance, max_sweeps or 0, size)),
                              lambda stats: explored + int(stats[5]))
        if status == GR_MEMORY:
            raise MemoryError("no memory to solve the state graph")
        stats = self._read()
        budget.nodes = explored + int(stats[5])
        budget.iterations = int(stats[4])
        self.converged = not stats[6]
        return int(stats[4]) == 0  # no component needed a sweep: none has a cycle

    def retrograde(self, budget: Budget, check_cycles: bool) -> bool:
        """Retrograde analysis in C (the values into the graph); with ``check_cycles``, first whether the graph
        is acyclic: then True, and nothing more is computed. Between slices, the time budget, progress and
        Ctrl-C (the node budget counts the exploration only, as for the Python analysis)."""
        lib, ffi = self.lib, self.ffi
        rg = lib.gdl_rg_new(self.ctx, 1 if check_cycles else 0)
        if rg == ffi.NULL:
            raise MemoryError("no memory for the retrograde analysis")
        self.rg = ffi.gc(rg, lib.gdl_rg_free)
        _timed_slices(budget, lambda size: int(lib.gdl_rg_run(self.rg, size)), RG_FIRST_SLICE)
        stats = ffi.new("int64_t[3]")
        lib.gdl_rg_stats(self.rg, stats)
        return int(stats[1]) == 1

    def distance(self, budget: Budget) -> None:
        """The distance to the end of every state, in C (``remoteness.c``, over the values already in the graph),
        in slices between which the time budget, progress and Ctrl-C are checked."""
        lib, ffi = self.lib, self.ffi
        rm = lib.gdl_rm_new(self.ctx)
        if rm == ffi.NULL:
            raise MemoryError("no memory for the distance to the end")
        rm = ffi.gc(rm, lib.gdl_rm_free)
        if _timed_slices(budget, lambda size: int(lib.gdl_rm_run(rm, size)), RM_FIRST_SLICE) == GR_MEMORY:
            raise MemoryError("no memory for the distance to the end")
        self.rm = rm

    def plies(self) -> list[float | None]:
        """Every state's distance to the end (None: unknown), once :meth:`distance` has run."""
        n = int(self._read()[0])
        out = self.ffi.new("double[]", n)
        if self.lib.gdl_rm_plies(self.rm, 0, n, out) != 0:
            raise RuntimeError("the distance to the end is not computed")
        return [None if d != d else d for d in self.ffi.unpack(out, n)]  # (NaN: unknown)

    def plies_at(self, i: int) -> float | None:
        out = self.ffi.new("double[]", 1)
        if self.lib.gdl_rm_plies(self.rm, i, 1, out) != 0:
            raise RuntimeError("the distance to the end is not computed")
        return None if out[0] != out[0] else float(out[0])

    def _plies_of(self, key: Hashable) -> float | None:
        """One state's distance to the end (None: not in the graph, or unknown); LookupError: not a state."""
        try:
            self.cells[0:self.handle.state_len] = list(self.handle.cells(key))
        except (TypeError, ValueError, OverflowError) as error:
            raise LookupError(key) from error
        i = int(self.lib.gdl_gr_find(self.ctx, self.cells))
        return None if i < 0 else self.plies_at(i)

    def fastest(self, i: int, best: tuple[int, ...]) -> tuple[int, ...]:
        """:func:`solver.remoteness.fastest`: state i's optimal moves one ply nearer the end, else ``best``."""
        cap = 64
        while True:
            positions = self.ffi.new("int32_t[]", cap)
            k = int(self.lib.gdl_rm_fastest(self.rm, i, positions, cap))
            if k <= cap:
                return tuple(positions[0:k]) or best
            cap = k

    def _rg_best(self, i: int, positions: Any, cap: int) -> tuple[Any, int]:
        """State i's optimal positions (``positions``, grown past ``cap`` when needed) and how many."""
        k = int(self.lib.gdl_rg_best(self.rg, i, positions, cap))
        if k > cap:
            cap = k
            positions = self.ffi.new("int32_t[]", cap)
            k = int(self.lib.gdl_rg_best(self.rg, i, positions, cap))
        return positions, k

    def retrograde_best(self) -> list[tuple[int, ...]]:
        """Every state's optimal moves (positions in move order), as :func:`solver.retrograde.retrograde` gives."""
        ffi, lib = self.ffi, self.lib
        stats = self._read()
        n, edges = int(stats[0]), int(stats[2])
        flags, first = ffi.new("int8_t[]", max(edges, 1)), ffi.new("int64_t[]", n + 1)
        if lib.gdl_rg_flags(self.rg, flags, first) != 0:
            raise RuntimeError("the retrograde analysis is not done")
        marks, starts = ffi.unpack(flags, edges), ffi.unpack(first, n + 1)
        return [tuple(j for j in range(b - a) if marks[a + j]) for a, b in pairwise(starts)]

    def _node(self, i: int, cap: int = 1 << 12) -> tuple[int, list[int], list[int]]:
        """State i's turn, its moves' codes and its children."""
        ffi, lib = self.ffi, self.lib
        value, player = ffi.new("double *"), ffi.new("int32_t *")
        while True:
            codes, children = ffi.new("int32_t[]", cap), ffi.new("int64_t[]", cap)
            edges = int(lib.gdl_gr_node(self.ctx, i, value, player, codes, children, cap))
            if edges < 0:
                raise RuntimeError("the state graph's moves changed between two calls")  # (the rules are pure)
            if edges <= cap:
                return int(player[0]), ffi.unpack(codes, edges), ffi.unpack(children, edges)
            cap = edges

    def retrograde_solution(self, root: State, budget: Budget, method: Algorithm) -> Solution:
        """:func:`solver.solution.finish`'s answer, read out of C: the root's value and optimal moves, the principal
        variation (first optimal moves, or with the distance the first that follow it; stops on a repetition), the
        distance to the end when :meth:`distance` has run, and a table filled when first read."""
        game, handle = self.game, self.handle
        positions = self.ffi.new("int32_t[]", 64)
        player, codes, children = self._node(0)
        positions, k = self._rg_best(0, positions, 64)
        root_moves = tuple(handle.move(codes[positions[j]]) for j in range(k))
        move_values = tuple((handle.move(code), self._values_at(child)) for code, child in zip(codes, children,
                                                                                                strict=True))
        fastest: tuple[Any, ...] = ()
        if self.rm is not None and k:
            fastest = tuple(handle.move(codes[j]) for j in self.fastest(0, tuple(positions[0:k])))
        line: list[Any] = []
        i, seen = 0, {0}
        if self.symmetric:
            line = list(played_line(self.game, root, (fastest or root_moves or (None,))[0], self._keeps, PV_LIMIT))
            player = TERMINAL  # (the loop below follows the graph's own moves: not with symmetries)
        while len(line) < PV_LIMIT and player >= 0:
            positions, k = self._rg_best(i, positions, 64)
            if k == 0:
                break
            j = positions[0] if self.rm is None else self.fastest(i, tuple(positions[0:k]))[0]
            line.append(handle.move(codes[j]))
            i = children[j]
            if i in seen:
                break
            seen.add(i)
            player, codes, children = self._node(i)
        budget.tt_size = int(self._read()[0])
        budget.depth = len(line)
        table = lazy_table(SolvedTable.for_game(game, method, complete=True), self._retrograde_filler(method),
                           None if self.rm is None else self._plies_of)
        return Solution(self._values_at(0), root_moves, tuple(line), True, budget.stats(), method, False, None,
                        table=table, move_values=move_values, **self._distance_fields(fastest))

    def _distance_fields(self, fastest: tuple[Any, ...]) -> dict[str, Any]:
        """The solution's ``plies`` and ``fastest_moves`` (none before :meth:`distance`)."""
        return {} if self.rm is None else {"plies": self.plies_at(0), "fastest_moves": fastest}

    def _values_at(self, i: int) -> tuple[float, ...]:
        self.lib.gdl_gr_values(self.ctx, i, self.row)
        return tuple(self.row[0:len(self.game.players)])

    def _retrograde_filler(self, method: Algorithm) -> Any:
        """What reads every state's values and optimal moves (retrograde analysis) out of C, when first read."""
        game, handle, ffi, lib = self.game, self.handle, self.ffi, self.lib
        width = handle.state_len

        def fill() -> SolvedTable:
            table = SolvedTable.for_game(game, method, complete=True)
            cells, positions = ffi.new("int64_t[]", width), ffi.new("int32_t[]", 64)
            plies = self.plies() if self.rm is not None else []
            for i in range(int(self._read()[0])):
                lib.gdl_gr_cells(self.ctx, i, cells)
                key = handle.key_of_cells(list(cells[0:width]))
                table.values[key] = self._values_at(i)
                distance = plies[i] if plies else None
                if distance is not None:
                    table.plies[key] = distance
                if self.symmetric and i:
                    continue  # (a move belongs to the image expanded: only the root's, which is the state itself)
                positions, k = self._rg_best(i, positions, 64)
                if k:
                    codes = self._node(i)[1]
                    table.best[key] = tuple(str(handle.move(codes[positions[j]])) for j in range(k))
            return table

        return fill

    def _slices(self, budget: Budget, run: Callable[[int], int], count: Callable[[Any], int]) -> int:
        """Call ``run(size)`` until it returns something other than GR_SLICE, sizing slices to last about
        SLICE_SECONDS and checking the budget after each (``count(stats)``: the nodes so far)."""
        size = FIRST_SLICE
        if budget.limits.nodes is not None:  # (the first slice too)
            size = max(1, min(size, budget.limits.nodes - count(self._read())))

        def between(size: int) -> int:
            nodes = count(self._read())
            if budget.limits.nodes is not None:
                size = max(1, min(size, budget.limits.nodes - nodes))
            budget.check(nodes)
            return size

        return _sliced(run, size, 1, between)

    def _fail(self, status: int, root: State) -> None:
        """Raise what the exploration met, with the line of moves from ``root`` to the state."""
        if status == GR_MEMORY:
            raise MemoryError("no memory for the state graph")
        handle, lib = self.handle, self.lib
        bad = int(self._read()[7])
        via = self.ffi.new("int32_t *")
        codes: list[int] = []
        i = bad
        while i > 0:
            i = int(lib.gdl_gr_parent(self.ctx, i, via))
            codes.append(int(via[0]))
        line = [handle.move(code) for code in reversed(codes)]
        if status == GR_ERROR:
            error = self.ffi.new("gdl_error *")
            lib.gdl_gr_error(self.ctx, error)
            raise handle.error(error[0], line)
        raise dead_end_after(self.game, root, line)

    # ------------------------------------------------------------------------------ answers

    def _index(self, state: State) -> int:
        """The index of a state of the graph."""
        self.cells[0:self.handle.state_len] = list(self.handle.cells(state))
        i = int(self.lib.gdl_gr_find(self.ctx, self.cells))
        if i < 0:
            raise KeyError(state)
        return i

    def values_of(self, state: State) -> tuple[float, ...]:
        """The values (one per player) of a state of the graph."""
        self.lib.gdl_gr_values(self.ctx, self._index(state), self.row)
        return tuple(self.row[0:len(self.game.players)])

    def best(self, state: State, player: int) -> tuple[list[Any], list[tuple[float, ...]], tuple[int, ...]]:
        """A decision state's moves, their values and the positions of those within TIE_TOLERANCE of the
        best for the mover (player 1's value in a scalar game is 0 - player 0's: the same test)."""
        game = self.game
        moves = list(game.legal_moves(state))
        vs = [self.values_of(game.apply(state, m)) for m in moves]
        top = max(v[player] for v in vs) - TIE_TOLERANCE
        return moves, vs, tuple(j for j, v in enumerate(vs) if v[player] >= top)

    def line(self, root: State) -> tuple[Any, ...]:
        """The principal variation: first optimal moves (with the distance, the first that follow it), likeliest
        chance outcomes; stops on a repetition."""
        game = self.game
        line: list[Any] = []
        state, seen = root, {game.key(root)}
        while len(line) < PV_LIMIT:
            player = game.to_move(state)
            if player == TERMINAL:
                break
            if player == CHANCE:
                outcomes = list(game.chance_outcomes(state))
                move = max(outcomes, key=lambda pair: pair[1])[0]
            else:
                moves, _, best = self.best(state, player)
                move = moves[best[0] if self.rm is None else self.fastest(self._index(state), best)[0]]
            line.append(move)
            state = game.apply(state, move)
            key = game.key(state)
            if key in seen:
                break
            seen.add(key)
        return tuple(line)

    def _keeps(self, state: State, move: Any, player: int) -> bool:
        """Whether ``move`` keeps ``state``'s value for ``player`` and follows the distance (solver.solution's)."""
        child = self.game.apply(state, move)
        if abs(self.values_of(child)[player] - self.values_of(state)[player]) > TIE_TOLERANCE:
            return False
        here = None if self.rm is None else self.plies_at(self._index(state))
        return here is None or here == math.inf or one_less(self.plies_at(self._index(child)), here)

    def solution(self, root: State, budget: Budget, method: Algorithm) -> Solution:
        game = self.game
        value = self.values_of(root)
        player = game.to_move(root)
        root_moves: tuple[Any, ...] = ()
        move_values: tuple[tuple[Hashable, tuple[float, ...]], ...] = ()
        fastest: tuple[Any, ...] = ()
        if player >= 0:
            moves, vs, best = self.best(root, player)
            root_moves = tuple(moves[j] for j in best)
            move_values = tuple(zip(moves, vs, strict=True))
            if self.rm is not None:
                fastest = tuple(moves[j] for j in self.fastest(0, best))
        pv = (played_line(game, root, (fastest or root_moves or (None,))[0], self._keeps, PV_LIMIT) if self.symmetric
              else self.line(root))
        budget.depth = len(pv)
        table = lazy_table(SolvedTable.for_game(game, method, complete=True), self._table_filler(method),
                           None if self.rm is None else self._plies_of)
        reason = None if self.converged else StopReason.ITERATIONS
        note = None
        if not self.converged:
            sweeps = f"{budget.iterations:,} sweep" + ("" if budget.iterations == 1 else "s")
            note = (f"estimate: value iteration stopped after {sweeps} before it converged; "
                    "the best move by the estimate")
        return Solution(value, root_moves, pv, self.converged, budget.stats(), method, not self.converged, reason,
                        note=note, table=table, move_values=move_values, **self._distance_fields(fastest))

    def finished_in_python(self, root: State, budget: Budget, method: Algorithm) -> Solution:
        """The graph copied into a :class:`StateGraph`, the values and optimal moves as the Python solver
        gives them, then :func:`solver.solution.finish` (table, distance, fastest moves, line)."""
        game = self.game
        graph, values = self.state_graph()
        scalar = not self._read()[8]  # (as solver.value_iteration decides: its best moves follow)
        best = best_moves(graph, values, [v[0] for v in values] if scalar else None, TIE_TOLERANCE)
        order = graph.topological_order() if method == Algorithm.BACKWARD else None
        reason = None if self.converged else StopReason.ITERATIONS
        solution = finish(game, graph, budget, (values, best), method, self.converged, reason, True, order)
        if not self.converged:
            sweeps = f"{budget.iterations:,} sweep" + ("" if budget.iterations == 1 else "s")
            solution = replace(solution, note=f"estimate: value iteration stopped after {sweeps} before it "
                                              "converged; the best move by the estimate")
        return solution

    def state_graph(self) -> tuple[StateGraph, Values]:
        """The graph as a :class:`StateGraph` (states, keys, turns, moves, children, probabilities, utilities)
        and every state's values (0 before solving, but at the ends)."""
        game, handle, ffi = self.game, self.handle, self.ffi
        stats = self._read()
        n, edges, width = int(stats[0]), int(stats[2]), handle.state_len
        width_v = len(game.players)
        player, first, val = ffi.new("int32_t[]", n), ffi.new("int64_t[]", n + 1), ffi.new("double[]", n * width_v)
        cells = ffi.new("int64_t[]", n * width)
        succ, codes, probs = ffi.new("int32_t[]", edges), ffi.new("int32_t[]", edges), ffi.new("double[]", edges)
        if self.lib.gdl_gr_export(self.ctx, player, first, val, cells, succ, codes, probs) != 0:
            raise RuntimeError("the state graph's moves changed between two calls")  # (the rules are pure)
        graph = StateGraph(game)
        flat, firsts, children, moves, chances = (ffi.unpack(cells, n * width), ffi.unpack(first, n + 1),
                                                   ffi.unpack(succ, edges), ffi.unpack(codes, edges),
                                                   ffi.unpack(probs, edges))
        found = flat  # each state as first found: its key's image, but with symmetries
        if self.symmetric:
            states = ffi.new("int64_t[]", n * width)
            self.lib.gdl_gr_states(self.ctx, states)
            found = ffi.unpack(states, n * width)
        values: Values = []
        flat_values = ffi.unpack(val, n * width_v)
        for i in range(n):
            key = handle.key_of_cells(flat[i * width:(i + 1) * width])
            graph.states.append(key if found is flat else handle.key_of_cells(found[i * width:(i + 1) * width]))
            graph.keys.append(key)
            p = int(player[i])
            graph.player.append(p)
            a, b = firsts[i], firsts[i + 1]
            graph.succ.append(tuple(children[a:b]))
            graph.moves.append([handle.move(code) for code in moves[a:b]])
            graph.probs.append(tuple(chances[a:b]) if p == CHANCE else ())
            values.append(tuple(flat_values[i * width_v:(i + 1) * width_v]))
            if p == TERMINAL:
                graph.utilities[i] = values[i]
        return graph, values

    def _table_filler(self, method: Algorithm) -> Any:
        """What reads every state's values and optimal moves out of C, when the table is first read."""
        game, handle, ffi, lib, ctx = self.game, self.handle, self.ffi, self.lib, self.ctx
        width, players = handle.state_len, len(game.players)

        def fill() -> SolvedTable:
            table = SolvedTable.for_game(game, method, complete=True)
            n = int(self._read()[0])
            cells, row = ffi.new("int64_t[]", width), ffi.new("double[]", players)
            value, player = ffi.new("double *"), ffi.new("int32_t *")
            cap = 1 << 12
            codes, children = ffi.new("int32_t[]", cap), ffi.new("int64_t[]", cap)
            plies = self.plies() if self.rm is not None else []

            def values(i: int) -> tuple[float, ...]:
                lib.gdl_gr_values(ctx, i, row)
                return tuple(row[0:players])

            for i in range(n):
                lib.gdl_gr_cells(ctx, i, cells)
                key = handle.key_of_cells(list(cells[0:width]))
                table.values[key] = values(i)
                distance = plies[i] if plies else None
                if distance is not None:
                    table.plies[key] = distance
                if self.symmetric and i:
                    continue  # (with symmetries a move belongs to the image expanded: only the root's is stored)
                edges = int(lib.gdl_gr_node(ctx, i, value, player, codes, children, cap))
                p = int(player[0])
                if p < 0 or edges > cap:
                    continue
                vs = [values(children[j])[p] for j in range(edges)]
                top = max(vs) - TIE_TOLERANCE
                table.best[key] = tuple(str(handle.move(int(codes[j]))) for j, v in enumerate(vs) if v >= top)
            return table

        return fill
