"""The exact solver's alpha-beta path: MTD(f) to the value, then every root move tested, a proven line, plies.

For a deterministic two-player zero-sum game (:func:`solver.auto.search_first`) the exact
solver runs negamax with an unbounded transposition table (:mod:`solver.alphabeta`) driven by
MTD(f) (:mod:`solver.mtdf`): the value first, then each root move tested against it with a
null window (all the optimal moves, not just one), then a principal variation whose every
move is proven (:func:`_proven_line`). With ``plies`` a post-order walk of the optimal moves
gives the distance to the end (:func:`_plies_walk`, the idea of :mod:`solver.remoteness` on
the transposition table instead of a full graph). A stopped search reports the proven bounds
of the root (:func:`_alphabeta_so_far`), or a heuristic guess (:mod:`solver.guess`).

Sources: Knuth & Moore (1975); Plaat, Schaeffer, Pijls & de Bruin (1996), MTD(f) and the
enhanced transposition cutoff.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Hashable
from dataclasses import replace
from typing import Any

from solver.alphabeta import INF, PLIES_FACTOR, PLIES_MIN_SECONDS, NegamaxSearch, walk_line
from solver.auto import Algorithm
from solver.game import TERMINAL, DeadEndError, Game, State, dead_end
from solver.guess import stopped
from solver.limits import (
    PYTHON_ENTRY_BYTES,
    TIE_TOLERANCE,
    UNLIMITED_DEPTH,
    Budget,
    Limits,
    SearchStopped,
    StopReason,
    entry_bytes,
)
from solver.mtdf import at_least, at_most, mtdf
from solver.native.search import NativeSearch, native_search
from solver.remoteness import one_less
from solver.solution import Solution
from solver.table import SolvedTable, has_symmetric_keys


def solve_alphabeta(game: Game, root: State, budget: Budget, limits: Limits, all_best: bool = True,
                     plies: bool = False, plies_seconds: float | None = None, move_values: bool = False) -> Solution:
    """Negamax to the end with a full TT; then every root move is tested against the value (null windows);
    with ``move_values``, each root move's exact value (MTD(f) on its child, the table warm)."""
    if game.to_move(root) == TERMINAL:
        value = tuple(game.utilities(root))
        table = SolvedTable.for_game(game, Algorithm.ALPHABETA, complete=False)
        table.values[game.key(root)] = value
        if plies:
            table.plies[game.key(root)] = 0.0
        return Solution(value, (), (), True, budget.stats(), Algorithm.ALPHABETA, table=table,
                        plies=0.0 if plies else None)
    # what solve_negamax does, keeping the searcher; the TT never holds more than the cap (checked below)
    native = native_search(game, budget, limits)  # C: a fixed table, never full
    cap = limits.entries(entry_bytes(PYTHON_ENTRY_BYTES, root))
    search = native or NegamaxSearch(game, budget, detect_cycles=True, table_entries=cap)
    if cap is not None and native is None:
        # An exact search cannot go on with a full table (it would redo work forever): stop at the cap.
        most, budget_check = cap, budget.check

        def check(nodes: int) -> int:
            budget.tt_size = len(search.tt)
            if budget.tt_size >= most:
                raise SearchStopped(StopReason.TABLE)
            return budget_check(nodes)

        budget.check = check  # type: ignore[method-assign]
    player = game.to_move(root)
    side = search.sides[player]
    score: float | None = None
    best_moves: list[Any] = []
    try:
        score = mtdf(search, root, 0.0)
        value_seconds = budget.seconds
        moves = list(game.legal_moves(root))
        if search.root_best in moves:  # likeliest optimal: test it first
            moves.remove(search.root_best)
            moves.insert(0, search.root_best)
        for move in moves:
            child = game.apply(root, move)
            # The mover's best: player 0 wants a child >= score, player 1 a child <= score.
            try:
                optimal = at_least(search, child, score) if side == 1 else at_most(search, child, score)
            except DeadEndError as error:
                raise error.prepend(move) from None
            if optimal:
                best_moves.append(move)
                if not all_best:
                    break
    except (SearchStopped, KeyboardInterrupt) as stop:
        reason = stop.reason if isinstance(stop, SearchStopped) else StopReason.INTERRUPT
        return _alphabeta_so_far(game, root, budget, limits, search, score, best_moves, reason)
    if all_best:
        order = {m: i for i, m in enumerate(game.legal_moves(root))}
        best_moves.sort(key=order.__getitem__)  # in the game's move order, as documented
    table = _table_from_tt(game, search)
    key = game.key(root)
    table.values[key] = (score + 0.0, 0.0 - score)
    table.best[key] = tuple(str(m) for m in best_moves)
    if not best_moves:  # the game interface's contract: a decision state has a legal move
        raise dead_end(game, root, player)
    if plies and plies_seconds is None:  # (before the move values: the walk's time is not a multiple of theirs)
        plies_seconds = search.plies_seconds(value_seconds, budget.seconds)
    values = _root_move_values(game, search, root, score, best_moves) if move_values else ()
    if plies:
        assert plies_seconds is not None
        solution = _alphabeta_with_plies(game, root, search, score, tuple(best_moves), table, plies_seconds)
        return replace(solution, move_values=values)
    pv = _proven_line(game, search, root, score, best_moves[0])
    stats = search.stats(len(pv))
    return Solution((score + 0.0, 0.0 - score), tuple(best_moves), pv, True, stats, Algorithm.ALPHABETA, table=table,
                    move_values=values)


def _root_move_values(game: Game, search: NegamaxSearch, root: State, score: float,
                      best_moves: list[Any]) -> tuple[tuple[Any, tuple[float, ...]], ...]:
    """Every root move with its exact value (player 0's, then player 1's), in move order: an optimal move has
    the root's value, a terminal child its utilities, any other child its MTD(f) value from the same table.
    Stopped (budget or Ctrl-C) before all are known: the ones known so far (the root's value stands)."""
    optimal = set(best_moves)
    values: list[tuple[Any, tuple[float, ...]]] = []
    try:
        for move in game.legal_moves(root):
            child = game.apply(root, move)
            if move in optimal:
                value = score
            elif game.to_move(child) == TERMINAL:
                value = float(game.utilities(child)[0])
            else:
                value = mtdf(search, child, score)
            values.append((move, (value + 0.0, 0.0 - value)))
    except (SearchStopped, KeyboardInterrupt):
        pass
    return tuple(values)


def _proven_line(game: Game, search: NegamaxSearch, root: State, score: float, first: Any,
                 limit: int = 10_000) -> tuple[Any, ...]:
    """The principal variation of a solved root: moves that each keep the value ``score``, to the end.

    Each move is checked with a null-window search (cheap: the transposition table holds the
    proof), so the line replays to the stated value and runs to the end of the game, also when
    symmetric keys make the table's stored moves belong to another image of the position (the
    table's own line then stopped after one move). The walk is :func:`solver.alphabeta.walk_line`.
    """
    low, high = game.utility_bounds or (-INF, INF)

    def proven(state: State, key: Hashable) -> Any:
        side = search.sides[game.to_move(state)]
        moves = list(game.legal_moves(state))
        entry = search.tt.get(key)
        if entry is not None and entry[3] in moves:  # the stored move first: likeliest, and proven cheaply
            moves.remove(entry[3])
            moves.insert(0, entry[3])
        if (score <= low if side == 1 else score >= high):
            return moves[0]  # the mover is lost: every move keeps the value
        keeps = at_least if side == 1 else at_most  # player 0 maximises
        return next((m for m in moves if keeps(search, game.apply(state, m), score)), None)

    return walk_line(game, root, first, proven, limit, {game.key(root)})




def _alphabeta_with_plies(game: Game, root: State, search: NegamaxSearch, score: float, best_moves: tuple[Any, ...],
                          table: SolvedTable, seconds: float) -> Solution:
    """The alpha-beta solution with the distance to the end, from a walk of the optimal moves (see ``_plies_walk``).

    The walk stops after ``seconds`` (or at the solve's own budget, or on Ctrl-C): the (already
    exact) value then comes without plies.
    """
    value = (score + 0.0, 0.0 - score)
    budget = search.budget
    deadline = time.perf_counter() + seconds
    check = budget.check

    def bounded(nodes: int) -> int:
        if time.perf_counter() >= deadline:
            raise SearchStopped(StopReason.PLIES)
        return check(nodes)

    budget.check = bounded  # type: ignore[method-assign]
    try:
        walked = _plies_walk(game, search, root, score, deadline)
    except (SearchStopped, KeyboardInterrupt):
        pv = search.principal_variation(root, best_moves[0], 10_000)
        return Solution(value, best_moves, pv, True, search.stats(len(pv)), Algorithm.ALPHABETA, table=table)
    finally:
        budget.check = check  # type: ignore[method-assign]
    for key, (v0, distance) in walked.items():
        table.values[key] = (v0 + 0.0, 0.0 - v0)
        table.plies[key] = distance
    here = walked[game.key(root)][1]
    fastest = tuple(m for m in best_moves if one_less(_child_plies(game, root, m, walked), here)) or best_moves
    pv = _plies_line(game, root, fastest[0], walked)
    return Solution(value, best_moves, pv, True, search.stats(len(pv)), Algorithm.ALPHABETA, table=table,
                    plies=here, fastest_moves=fastest)


def _child_plies(game: Game, state: State, move: Any, walked: dict[Hashable, tuple[float, float]]) -> float | None:
    child = game.apply(state, move)
    if game.to_move(child) == TERMINAL:
        return 0.0
    known = walked.get(game.key(child))
    return None if known is None else known[1]


def _plies_walk(game: Game, search: NegamaxSearch, root: State, score: float,
                deadline: float = math.inf) -> dict[Hashable, tuple[float, float]]:
    """Per state on an optimal line from ``root``: (value for player 0, plies to the end).

    An iterative depth-first walk over the optimal moves only: a child is optimal when its value
    equals the state's, which the searcher's transposition table usually answers at once (else two
    null-window searches, :func:`at_least` and :func:`at_most`). Alpha-beta's game is acyclic, so
    a post-order walk sees every optimal child before its parent.

    :raises SearchStopped: past ``deadline`` (``time.perf_counter()``), reason ``"plies"``.
    """
    key, to_move, apply, legal, utilities = game.key, game.to_move, game.apply, game.legal_moves, game.utilities
    sides, tt = search.sides, search.tt
    walked: dict[Hashable, tuple[float, float]] = {}
    close = TIE_TOLERANCE * max(1.0, abs(score))

    def keeps(child: State, k: Hashable) -> bool:
        if k in walked:  # only optimal states are walked: they have the value
            return True
        entry = tt.get(k)
        if entry is not None and entry[0] == UNLIMITED_DEPTH and entry[1] == entry[2]:
            return abs(entry[4] * entry[1] - score) <= close  # an exact entry, stored for its side to move
        return at_least(search, child, score) and at_most(search, child, score)

    def optimal(state: State) -> list[tuple[State, Hashable | None]]:
        children: list[tuple[State, Hashable | None]] = []
        for move in legal(state):
            child = apply(state, move)
            if to_move(child) == TERMINAL:
                if abs(float(utilities(child)[0]) - score) <= close:
                    children.append((child, None))
                continue
            k = key(child)
            try:
                if keeps(child, k):
                    children.append((child, k))
            except DeadEndError as error:  # met below ``child``: the line from ``state``
                raise error.prepend(move) from None
        return children

    stack: list[tuple[State, Hashable, list[tuple[State, Hashable | None]]]] = [(root, key(root), optimal(root))]
    steps = 0
    while stack:
        steps += 1
        if not steps & 255 and time.perf_counter() >= deadline:
            raise SearchStopped(StopReason.PLIES)
        state, k, children = stack[-1]
        pending = next((c for c, ck in children if ck is not None and ck not in walked), None)
        if pending is not None:
            try:
                stack.append((pending, key(pending), optimal(pending)))
            except DeadEndError as error:  # the walk's own line from the root to ``pending`` comes first
                for parent, child in reversed(list(itertools.pairwise([s for s, _, _ in stack] + [pending]))):
                    error.prepend(next(m for m in legal(parent) if key(apply(parent, m)) == key(child)))
                raise
            continue
        stack.pop()
        distances = [0.0 if ck is None else walked[ck][1] for _, ck in children]
        mover = sides[to_move(state)] * score  # the mover's own value
        walked[k] = (score, 1.0 + (min if mover >= -TIE_TOLERANCE else max)(distances))
    return walked


def _plies_line(game: Game, root: State, first: Any, walked: dict[Hashable, tuple[float, float]],
                limit: int = 10_000) -> tuple[Any, ...]:
    """The principal variation that follows the distance to the end: each move is one ply nearer the end."""
    line = [first]
    state = game.apply(root, first)
    while game.to_move(state) != TERMINAL and len(line) < limit:
        here = walked.get(game.key(state))
        if here is None:
            break
        move = next((m for m in game.legal_moves(state) if one_less(_child_plies(game, state, m, walked), here[1])
                     and _child_value(game, state, m, walked) == here[0]), None)
        if move is None:
            break
        line.append(move)
        state = game.apply(state, move)
    return tuple(line)


def _child_value(game: Game, state: State, move: Any, walked: dict[Hashable, tuple[float, float]]) -> float | None:
    child = game.apply(state, move)
    if game.to_move(child) == TERMINAL:
        return float(game.utilities(child)[0])
    known = walked.get(game.key(child))
    return None if known is None else known[0]


def _alphabeta_so_far(game: Game, root: State, budget: Budget, limits: Limits, search: NegamaxSearch,
                      score: float | None, best_moves: list[Any], reason: str) -> Solution:
    """A stopped MTD(f) solve: the root's proven bounds and the best move of the last completed pass.

    ``score`` is the proven value when MTD(f) finished and the stop came while the root
    moves were tested. Without a completed pass, a brief heuristic search guesses a move.
    """
    low, high = search.window(1)
    entry = search.tt.get(game.key(root))
    if score is not None:
        low = high = score
    elif entry is not None and entry[0] == UNLIMITED_DEPTH:
        e_low, e_high = (entry[1], entry[2]) if entry[4] == 1 else (-entry[2], -entry[1])
        low, high = max(low, e_low), min(high, e_high)
    else:
        search.stats(0)  # the budget's counters now hold the search's nodes and TT size
        return stopped(game, root, budget, reason, limits)
    legal = list(game.legal_moves(root))
    candidates = [*best_moves, entry[3] if entry is not None else None, search.root_best]
    move = next((m for m in candidates if m is not None and m in legal), legal[0])
    pv = search.principal_variation(root, move, 10_000)
    value = low if low == high else min(max(0.0, low), high)  # a point within the bounds (0: MTD(f)'s guess)
    table = _table_from_tt(game, search)
    names = game.players
    if low == high:
        proven = "proven" if score is not None else "proven by the last pass"
        note = (f"value {value:g} for {names[0]} ({proven}); not every move was checked; best move so far: {move}")
    else:
        note = f"value for {names[0]} between {low:g} and {high:g} (not proven); best move so far: {move}"
    return Solution((value + 0.0, 0.0 - value), (move,), pv, False, search.stats(len(pv)), Algorithm.ALPHABETA, True,
                    reason, bounds=(low + 0.0, high + 0.0), note=note, table=table)


def _table_from_tt(game: Game, search: NegamaxSearch) -> SolvedTable:
    """The exact entries of a finished exact search: values for player 0 and the one best move found.

    A bound that reaches a utility bound is exact too (a proven win found by a cut-off).
    """
    if isinstance(search, NativeSearch):  # maybe millions of C entries: converted when the table is first read
        return search.solved_table(game, lambda view: _table_from_tt(game, view))
    table = SolvedTable.for_game(game, Algorithm.ALPHABETA, complete=False)
    low, high = game.utility_bounds or (float("-inf"), float("inf"))
    values, best = table.values, table.best
    symmetric = has_symmetric_keys(game)  # a move found in one mirror image is wrong in another
    for key, (depth, lower, upper, move, side) in search.tt.items():
        if depth < UNLIMITED_DEPTH:
            continue
        if lower == upper or lower >= high or upper <= low:
            value = lower if lower == upper or lower >= high else upper
            v0 = side * value + 0.0
            values[key] = (v0, 0.0 - v0)
            if move is not None and lower > -INF and not symmetric:
                best[key] = (str(move),)
    return table


__all__ = ["PLIES_FACTOR", "PLIES_MIN_SECONDS", "solve_alphabeta"]
