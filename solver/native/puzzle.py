"""Breadth-first search and A* for puzzles with their inner loop in C (``puzzle.c``).

:func:`solver.shortest_path.solve_puzzle` runs them when the game has a C back end: the same states expanded
in the same order as its Python loops (so the same shortest line), in slices between which Python checks
the caps (states, seconds), reports progress and sees Ctrl-C.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from solver.game import Game, State
from solver.limits import SearchStats, StopReason
from solver.native import FIRST_SLICE, NativeHandle, dead_end_after, next_slice


class PuzzleBudget(Protocol):
    """What the search reads and writes of :class:`solver.shortest_path.PuzzleBudget`."""

    max_nodes: int | None
    max_seconds: float | None
    progress: Callable[[SearchStats], Any] | None
    started: float
    nodes: int
    stop: StopReason | None

PZ_DONE, PZ_SLICE, _, PZ_DEAD_END, PZ_ERROR, PZ_MEMORY, _, PZ_CHANCE = range(8)
SLICE_SECONDS = 0.05
"""A slice of C search lasts about this long."""


def native_puzzle_search(game: Game, handle: NativeHandle, start: State, astar: bool, target: float | None,
                         budget: PuzzleBudget, puzzle_error: type[Exception]) -> tuple[float | None, tuple[Any, ...]]:
    """The best terminal's utility reached (None: none) and the line to it; ``budget`` gets the states
    expanded and why the search stopped (None: it ran to its end).

    :raises DeadEndError: a state without moves that is not the end, with the moves that reach it.
    :raises puzzle_error: a chance node (:class:`solver.shortest_path.PuzzleError`).
    """
    ffi, lib = handle.ffi, handle.lib
    error = ffi.new("gdl_error *")
    root = ffi.new("int64_t[]", list(handle.cells(start)))
    ctx = lib.gdl_pz_new(root, int(astar), int(target is not None), float(target or 0.0), error)
    if ctx == ffi.NULL:
        raise MemoryError("no memory for the puzzle search")
    ctx = ffi.gc(ctx, lib.gdl_pz_free)
    stats, best_utility = ffi.new("int64_t[4]"), ffi.new("double *")
    size = FIRST_SLICE
    try:
        while True:
            if budget.max_nodes is not None:
                lib.gdl_pz_stats(ctx, stats, best_utility)
                left = budget.max_nodes - int(stats[0])
                if left <= 0:
                    budget.stop = StopReason.NODES
                    break
                size = min(size, left)
            began = time.perf_counter()
            status = lib.gdl_pz_run(ctx, size, error)
            elapsed = time.perf_counter() - began
            lib.gdl_pz_stats(ctx, stats, best_utility)
            budget.nodes = int(stats[0])
            if status == PZ_DONE:
                break
            if status != PZ_SLICE:
                _fail(game, handle, ctx, status, int(stats[3]), start, error, puzzle_error)
            if budget.progress is not None:
                budget.progress(SearchStats(nodes=budget.nodes, seconds=time.perf_counter() - budget.started))
            if budget.max_seconds is not None and time.perf_counter() - budget.started >= budget.max_seconds:
                budget.stop = StopReason.TIME
                break
            size = next_slice(size, elapsed, 1, SLICE_SECONDS)
    except KeyboardInterrupt:
        budget.stop = StopReason.INTERRUPT
        return None, ()
    lib.gdl_pz_stats(ctx, stats, best_utility)
    best = int(stats[2])
    if best < 0:
        return None, ()
    return float(best_utility[0]), _line(handle, ctx, best)


def _line(handle: NativeHandle, ctx: Any, state: int) -> tuple[Any, ...]:
    cap = 1 << 22
    codes = handle.ffi.new("int32_t[]", cap)
    n = handle.lib.gdl_pz_line(ctx, state, codes, cap)
    return tuple(handle.move(int(code)) for code in reversed(list(codes[0:n])))


def _fail(game: Game, handle: NativeHandle, ctx: Any, status: int, state: int, start: State, error: Any,
          puzzle_error: type[Exception]) -> None:
    if status == PZ_MEMORY:
        raise MemoryError("no memory for the puzzle search")
    line = _line(handle, ctx, state) if state >= 0 else ()
    if status == PZ_CHANCE:
        raise puzzle_error("a chance node in a puzzle")
    if status == PZ_ERROR:
        raise handle.error(error[0], line)
    raise dead_end_after(game, start, line)
