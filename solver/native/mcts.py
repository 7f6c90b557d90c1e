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
from dataclasses import replace
from typing import Any

from solver.auto import Algorithm
from solver.game import Game, State, dead_end
from solver.limits import Budget, ChildStats, Limits, SearchResult, SearchStopped, StopReason
from solver.native import NativeHandle, dead_end_after, next_slice

MC_DONE, MC_PROVEN, MC_ERROR, MC_DEAD_END, MC_MEMORY, MC_NODES = range(6)
SLICE_SECONDS = 0.02


def native_mcts(game: Game, handle: NativeHandle, root: State, limits: Limits, budget: Budget, rng: random.Random,
                exploration: float, rollout: str, max_rollout: int, solver: bool, threads: int = 1) -> SearchResult:
    """:func:`solver.mcts.mcts` for a game with a native handle (``limits`` already has a default).

    ``threads > 1``: root parallelisation (Chaslot, Winands & van den Herik 2008): that many independent
    trees, each with its own seed, searched at once (the C calls run without the GIL), their root
    statistics added up.
    """
    ffi, lib = handle.ffi, handle.lib
    players = len(game.players)
    if game.to_move(root) < -1:  # terminal: nothing to search
        return SearchResult(tuple(game.utilities(root)), (), (), True, budget.stats(), Algorithm.MCTS)
    if threads > 1:
        return _root_parallel(game, handle, root, limits, budget, rng, exploration, rollout, max_rollout, solver,
                              threads)
    ctx = _new_tree(handle, root, exploration, max_rollout, solver, rng, rollout)
    stats = ffi.new("int64_t[3]")
    step = 1  # (one iteration is a whole playout: thousands of plies of a big state may take seconds)
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
                stop_reason = StopReason.NODES
                budget.nodes = int(stats[1])
                break
            if status != MC_DONE:
                _fail(game, handle, ctx, status, root)
            budget.check(int(stats[1]))
            spent = time.perf_counter() - started
            step = min(1 << 20, next_slice(step, spent, 1, SLICE_SECONDS))
    except SearchStopped as stop:
        stop_reason = stop.reason
    except KeyboardInterrupt:
        stop_reason = StopReason.INTERRUPT
    return _result(game, handle, ctx, root, players, budget, stop_reason)


def _new_tree(handle: NativeHandle, root: State, exploration: float, max_rollout: int, solver: bool,
              rng: random.Random, rollout: str) -> Any:
    ffi, lib = handle.ffi, handle.lib
    error = ffi.new("gdl_error *")
    cells = ffi.new("int64_t[]", list(handle.cells(root)))
    ctx = lib.gdl_mc_new(cells, exploration, max(1, max_rollout), int(solver), rng.getrandbits(64),
                         int(rollout == "heuristic"), error)
    if ctx == ffi.NULL:
        if error.code:
            raise handle.error(error[0], ())
        raise MemoryError("no memory for the search tree")
    return ffi.gc(ctx, lib.gdl_mc_free)


def _root_parallel(game: Game, handle: NativeHandle, root: State, limits: Limits, budget: Budget,
                   rng: random.Random, exploration: float, rollout: str, max_rollout: int, solver: bool,
                   threads: int) -> SearchResult:
    """Independent trees searched at once; ``limits.iterations`` is shared out among them."""
    from concurrent.futures import ThreadPoolExecutor

    lib, ffi = handle.lib, handle.ffi
    trees = [_new_tree(handle, root, exploration, max_rollout, solver, rng, rollout) for _ in range(threads)]
    quota = None if limits.iterations is None else [limits.iterations // threads + (i < limits.iterations % threads)
                                                    for i in range(threads)]
    stats = [ffi.new("int64_t[3]") for _ in trees]
    finished = [False] * threads
    stop_reason = None
    step = 1  # (one iteration is a whole playout: thousands of plies of a big state may take seconds)

    def run(i: int) -> int:
        lib.gdl_mc_stats(trees[i], stats[i])
        n = step if quota is None else min(step, quota[i] - int(stats[i][0]))
        if n <= 0:
            return MC_PROVEN
        return int(lib.gdl_mc_run(trees[i], n, 0))

    with ThreadPoolExecutor(threads) as pool:
        try:
            while not all(finished):
                started = time.perf_counter()
                active = [i for i in range(threads) if not finished[i]]
                for i, status in zip(active, pool.map(run, active), strict=True):
                    if status == MC_PROVEN:
                        finished[i] = True
                    elif status != MC_DONE:
                        _fail(game, handle, trees[i], status, root)
                for i in range(threads):
                    lib.gdl_mc_stats(trees[i], stats[i])
                budget.iterations = sum(int(s[0]) for s in stats)
                budget.tt_size = sum(int(s[2]) for s in stats)
                nodes = sum(int(s[1]) for s in stats)
                if limits.nodes is not None and nodes >= limits.nodes:
                    stop_reason = StopReason.NODES
                    break
                budget.check(nodes)
                if any(finished) and solver and _proven_root(handle, trees, players=len(game.players)):
                    break
                spent = time.perf_counter() - started
                step = min(1 << 20, next_slice(step, spent, 1, SLICE_SECONDS))
        except SearchStopped as stop:
            stop_reason = stop.reason
        except KeyboardInterrupt:
            stop_reason = StopReason.INTERRUPT
    return _merge(game, handle, trees, root, budget, stop_reason)


def _proven_root(handle: NativeHandle, trees: list[Any], players: int) -> bool:
    value, visits = handle.ffi.new("double[]", players), handle.ffi.new("int64_t *")
    return any(handle.lib.gdl_mc_root(t, value, visits) for t in trees)


def _merge(game: Game, handle: NativeHandle, trees: list[Any], root: State, budget: Budget,
           stop_reason: str | None) -> SearchResult:
    """One result from the trees: a proof if a tree has one, else root statistics added up."""
    results = [_result(game, handle, t, root, len(game.players), Budget(budget.limits), stop_reason) for t in trees]
    proven = next((r for r in results if r.exact), None)
    budget.nodes = sum(r.stats.nodes for r in results)
    budget.iterations = sum(r.stats.iterations for r in results)
    budget.tt_size = sum(r.stats.tt_size for r in results)
    player = game.to_move(root)
    merged: dict[Hashable, list[Any]] = {}
    for r in results:
        for child in r.children:
            entry = merged.setdefault(child.move, [0, [0.0] * len(game.players), None])
            entry[0] += child.visits
            entry[1] = [a + child.visits * b for a, b in zip(entry[1], child.value, strict=True)]
            if child.proven:
                entry[2] = child.value
    children = tuple(ChildStats(m, v, tuple(p) if p is not None else tuple(x / v if v else 0.0 for x in s),
                                p is not None) for m, (v, s, p) in merged.items())
    if proven is not None:
        base = proven
    else:
        best = max(children, key=lambda c: (c.visits, c.value[player] if player >= 0 else 0.0), default=None)
        base = max(results, key=lambda r: next((c.visits for c in r.children if best and c.move == best.move), 0))
        if best is not None and player >= 0 and base.best_moves[:1] != (best.move,):
            base = replace(base, best_moves=(best.move,), principal_variation=(best.move,))
    total = sum(c.visits for c in children)
    value = base.value if proven is not None else tuple(
        sum(c.visits * c.value[i] for c in children) / total if total else 0.0 for i in range(len(game.players)))
    budget.depth = len(base.principal_variation)
    return replace(base, value=tuple(value), children=children, stats=budget.stats(), stopped=stop_reason is not None,
                   stop_reason=stop_reason)


def _fail(game: Game, handle: NativeHandle, ctx: Any, status: int, root: State) -> None:
    ffi, lib = handle.ffi, handle.lib
    cap = 1 << 16
    codes = ffi.new("int32_t[]", cap)
    cells = ffi.new("int64_t[]", handle.state_len)
    n = lib.gdl_mc_path(ctx, codes, cap, cells)
    line = [handle.move(int(c)) for c in codes[0:n]]
    if status == MC_ERROR:
        error = ffi.new("gdl_error *")
        lib.gdl_mc_error(ctx, error)
        raise handle.error(error[0], line)
    if status == MC_MEMORY:
        raise MemoryError("the search tree ran out of memory")
    raise dead_end_after(game, root, line)


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
    return SearchResult(tuple(value[0:players]), best, line, exact, budget.stats(), Algorithm.MCTS,
                        stop_reason is not None, stop_reason, children)
