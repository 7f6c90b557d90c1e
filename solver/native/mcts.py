"""MCTS with its loop in C (``mcts.c``): :func:`solver.mcts.mcts` calls :func:`native_mcts` for C-backed games.

The same algorithm as :mod:`solver.mcts` (UCT, N players, chance, random or heuristic playouts,
MCTS-Solver), run in slices of iterations: between slices Python checks the budget (time, nodes,
iterations), reports progress (about every 0.1 s) and sees Ctrl-C. The random numbers come from a
64-bit seed drawn from the caller's ``random.Random``, so a seeded search repeats exactly; they are
not the Python search's numbers, so the two searches agree in distribution, not move for move.
"""

from __future__ import annotations

import random
import time
from collections.abc import Hashable
from typing import Any

from solver.game import Game, State, dead_end
from solver.limits import Budget, ChildStats, Limits, SearchResult, SearchStopped
from solver.native import NativeHandle

MC_DONE, MC_PROVEN, MC_ERROR, MC_DEAD_END, MC_MEMORY, MC_NODES = range(6)
SLICE_SECONDS = 0.02


def native_mcts(game: Game, handle: NativeHandle, root: State, limits: Limits, budget: Budget, rng: random.Random,
                exploration: float, rollout: str, max_rollout: int, solver: bool) -> SearchResult:
    """:func:`solver.mcts.mcts` for a game with a native handle (``limits`` already has a default)."""
    ffi, lib = handle.ffi, handle.lib
    players = len(game.players)
    if game.to_move(root) < -1:  # terminal: nothing to search
        return SearchResult(tuple(game.utilities(root)), (), (), True, budget.stats(), "mcts")
    error = ffi.new("gdl_error *")
    cells = ffi.new("int32_t[]", list(handle.cells(root)))
    ctx = lib.gdl_mc_new(cells, exploration, max(1, max_rollout), int(solver), rng.getrandbits(64),
                         int(rollout == "heuristic"), error)
    if ctx == ffi.NULL:
        if error.code:
            raise handle.error(error[0], ())
        raise MemoryError("no memory for the search tree")
    ctx = ffi.gc(ctx, lib.gdl_mc_free)
    stats = ffi.new("int64_t[3]")
    step = 64
    stop_reason = None
    try:
        while True:
            lib.gdl_mc_stats(ctx, stats)
            done = int(stats[0])
            if limits.iterations is not None and done >= limits.iterations:
                break
            n = step if limits.iterations is None else min(step, limits.iterations - done)
            started = time.perf_counter()
            status = lib.gdl_mc_run(ctx, n, limits.nodes or 0)
            lib.gdl_mc_stats(ctx, stats)
            budget.iterations, budget.tt_size = int(stats[0]), int(stats[2])
            if status == MC_PROVEN:
                break
            if status == MC_NODES:
                stop_reason = "nodes"
                budget.nodes = int(stats[1])
                break
            if status != MC_DONE:
                _fail(game, handle, ctx, status, root)
            budget.check(int(stats[1]))
            spent = time.perf_counter() - started
            step = max(1, min(1 << 20, int(step * (1.5 if spent < SLICE_SECONDS else 0.7))))
    except SearchStopped as stop:
        stop_reason = stop.reason
    except KeyboardInterrupt:
        stop_reason = "interrupt"
    return _result(game, handle, ctx, root, players, budget, stop_reason)


def _fail(game: Game, handle: NativeHandle, ctx: Any, status: int, root: State) -> None:
    ffi, lib = handle.ffi, handle.lib
    cap = 1 << 16
    codes = ffi.new("int32_t[]", cap)
    cells = ffi.new("int32_t[]", handle.state_len)
    n = lib.gdl_mc_path(ctx, codes, cap, cells)
    line = [handle.move(int(c)) for c in codes[0:n]]
    if status == MC_ERROR:
        error = ffi.new("gdl_error *")
        lib.gdl_mc_error(ctx, error)
        raise handle.error(error[0], line)
    if status == MC_MEMORY:
        raise MemoryError("the search tree ran out of memory")
    state = root
    for move in line:
        state = game.apply(state, move)
    error_ = dead_end(game, state, game.to_move(state))
    for move in reversed(line):
        error_.prepend(move)
    raise error_


def _result(game: Game, handle: NativeHandle, ctx: Any, root: State, players: int, budget: Budget,
            stop_reason: str | None) -> SearchResult:
    ffi, lib = handle.ffi, handle.lib
    stats = ffi.new("int64_t[3]")
    lib.gdl_mc_stats(ctx, stats)
    budget.iterations, budget.nodes, budget.tt_size = int(stats[0]), int(stats[1]), int(stats[2])
    cap = 1 << 16
    line_codes = ffi.new("int32_t[]", cap)
    line: tuple[Hashable, ...] = tuple(handle.move(int(c)) for c in line_codes[0:lib.gdl_mc_line(ctx, line_codes, cap)])
    budget.depth = len(line)
    value = ffi.new("double[]", players)
    visits = ffi.new("int64_t *")
    exact = bool(lib.gdl_mc_root(ctx, value, visits))
    width = 1 << 16
    moves, counts = ffi.new("int32_t[]", width), ffi.new("int64_t[]", width)
    values, proven = ffi.new("double[]", width * players), ffi.new("int32_t[]", width)
    n = lib.gdl_mc_children(ctx, 0, moves, counts, values, proven, width)
    children = tuple(ChildStats(handle.move(int(moves[i])), int(counts[i]),
                                tuple(values[i * players:(i + 1) * players]), bool(proven[i])) for i in range(n))
    player = game.to_move(root)
    best: tuple[Hashable, ...] = ()
    if player >= 0:
        first = line[0] if line else next(iter(game.legal_moves(root)), None)
        if first is None:
            raise dead_end(game, root, player)
        best = (first,)
    return SearchResult(tuple(value[0:players]), best, line, exact, budget.stats(), "mcts", stop_reason is not None,
                        stop_reason, children)
