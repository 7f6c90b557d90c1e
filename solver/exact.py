"""Exact solving: the game-theoretic value of a state, all its optimal moves, and a solved table.

:func:`solve` picks the method that fits the game (``method="auto"``):

========================================  =====================================================
game                                      method
========================================  =====================================================
deterministic, two-player zero-sum        ``alphabeta``: negamax with an unbounded transposition
                                          table (:mod:`solver.alphabeta`); if it meets a cycle,
                                          ``retrograde``; if the game is too long to recurse,
                                          the graph methods below
any game whose state graph is acyclic     ``backward``: backward induction over the reachable
                                          graph in reverse topological order (expectimax at
                                          chance nodes, max^n for N players)
deterministic two-player zero-sum,        ``retrograde``: retrograde analysis (Ströhlein 1970;
with cycles                               Thompson 1986) as attractor computations, one per
                                          utility level
chance nodes or N players, with cycles    ``value_iteration`` (Bellman 1957) to ``tolerance``
========================================  =====================================================

Conventions:

* Endless play (a cycle that neither player leaves) is worth 0 to every player.
* **Tie-break rule** (max^n and value iteration for N players / general sum):
  among the moves that give the player to move the same best value, the first
  in the game's move order is taken, and its value vector is the state's value.
  ``best_moves`` lists all of them.
* In a cyclic game, an optimal move of a player who is winning must also make
  progress (bring the win closer), else "optimal" play could circle forever;
  ``best_moves`` lists only such moves there.

Every search here is iterative (explicit queues and stacks), except the
alpha-beta path, whose depth is the game's length and which falls back to the
graph methods before Python's recursion limit.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from solver.alphabeta import INF, CycleFound, NegamaxSearch, TooDeep, at_least, at_most, mtdf
from solver.game import CHANCE, TERMINAL, DeadEndError, Game, State, dead_end
from solver.limits import (
    UNLIMITED_DEPTH,
    Budget,
    Limits,
    SearchResult,
    SearchStats,
    SearchStopped,
    check_players,
    is_two_player_zero_sum,
)
from solver.native.search import NativeSearch, native_search
from solver.remoteness import Plies, fastest, graph_plies, one_less
from solver.table import TIE_TOLERANCE, SolvedTable, has_symmetric_keys
from solver.value_iteration import components, solve_graph

METHODS = ("auto", "alphabeta", "backward", "retrograde", "value_iteration")
WIDE = 4096
"""Children made between two budget checks in a very wide state."""


@dataclass(frozen=True)
class Solution(SearchResult):
    """A :class:`SearchResult` from the exact solver, with the table of every state it solved."""

    table: SolvedTable | None = None
    fastest_moves: tuple[Hashable, ...] = ()
    """With ``plies``: the optimal root moves that follow the distance to the end (a winner's fastest, a
    loser's slowest; :mod:`solver.remoteness`), in move order; the moves a perfect player picks from."""


def solve(
    game: Game,
    state: State | None = None,
    limits: Limits | None = None,
    *,
    method: str = "auto",
    tolerance: float = 1e-12,
    progress: Callable[[SearchStats], Any] | None = None,
    all_best: bool = True,
    plies: bool = False,
    plies_seconds: float | None = None,
) -> Solution:
    """Solve ``state`` (default: the initial state) exactly.

    ``all_best=False`` settles for one optimal root move (the alpha-beta path then
    stops testing root moves at the first that keeps the value, as a plain
    alpha-beta search would); ``best_moves`` otherwise lists all of them.

    ``plies=True`` also computes the distance to the end (:mod:`solver.remoteness`)
    after the values: ``Solution.plies``, ``fastest_moves``, the table's ``plies``,
    and a principal variation that follows it. Without it no solver does that work.
    On the alpha-beta path that costs a walk of every optimal line, which ``plies_seconds``
    caps (default: ``PLIES_FACTOR`` times the value search's time, at least
    ``PLIES_MIN_SECONDS``; ``math.inf`` for no cap): past it the value comes without plies.

    ``limits`` may bound time, nodes and ``table_entries`` (states kept);
    ``limits.iterations`` bounds value-iteration sweeps. When a budget runs
    out (or on Ctrl-C) the result has ``stopped=True`` and ``exact=False``.

    :raises ValueError: an unknown ``method``, or one that does not fit the game.
    """
    check_players(game, "the exact solver")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    limits = limits or Limits()
    root = game.initial_state() if state is None else state
    budget = Budget(limits, progress)
    deterministic_duel = is_two_player_zero_sum(game) and not getattr(game, "has_chance", False)
    if method in ("alphabeta", "retrograde") and not deterministic_duel:
        raise ValueError(f"{method} needs a deterministic two-player zero-sum game; {game.name} is not")
    graph: StateGraph | None = None
    try:
        if method == "alphabeta" or (method == "auto" and deterministic_duel):
            try:
                return _solve_alphabeta(game, root, budget, limits, all_best, plies, plies_seconds)
            except CycleFound:
                if method == "alphabeta":
                    raise ValueError(f"{game.name} has cycles: alpha-beta cannot solve it; use retrograde") from None
            except TooDeep:
                if method == "alphabeta":
                    raise ValueError(f"{game.name} is too long for a recursive search; use backward") from None
        graph = StateGraph.explore(game, root, budget, limits.table_entries)
        order = graph.topological_order()
        if method == "backward" and order is None:
            raise ValueError(f"{game.name} has cycles: backward induction cannot solve it; use value_iteration")
        if method in ("auto", "backward") and order is not None:
            return _finish(game, graph, budget, _backward(graph, order), "backward", True, None, plies, order)
        if method == "retrograde" or (method == "auto" and deterministic_duel):
            return _finish(game, graph, budget, _retrograde(graph), "retrograde", True, None, plies)
        values, best, converged = _value_iteration(graph, budget, tolerance, limits.iterations)
        solution = _finish(game, graph, budget, (values, best), "value_iteration", converged,
                           None if converged else "iterations", plies)
        if converged:
            return solution
        sweeps = f"{budget.iterations:,} sweep" + ("" if budget.iterations == 1 else "s")
        return replace(solution, note=f"estimate: value iteration stopped after {sweeps} before it converged; "
                                      "the best move by the estimate")
    except SearchStopped as stop:
        if stop.partial is not None and graph is not None:  # value iteration's values at the stop
            solution = _finish(game, graph, budget, stop.partial, "value_iteration", False, stop.reason)
            return replace(solution, note="estimate: value iteration stopped before it converged; the best "
                                          "move by the estimate")
        if stop.reason == "table" and limits.table_entries is not None:
            budget.tt_size = max(budget.tt_size, limits.table_entries)  # the table filled up
        return _stopped(game, root, budget, stop.reason, limits)
    except KeyboardInterrupt:
        return _stopped(game, root, budget, "interrupt", limits)


GUESS_SECONDS = 1.0
"""Most seconds of the heuristic search that guesses a move when a stopped solve knows nothing of the root."""
GUESS_NODES = 20_000
"""Most nodes of that search (a tenth of ``limits.nodes`` when that is smaller, but at least 1,000)."""


def _stopped(game: Game, root: State, budget: Budget, reason: str, limits: Limits | None = None) -> Solution:
    """A solve stopped before it learned anything about the root: a move from a brief depth-limited search.

    That search (alpha-beta, expectimax with chance, max^n for N players, deepening
    within ``GUESS_SECONDS`` and ``GUESS_NODES``) gives a heuristic guess, said so in
    ``note``; after Ctrl-C, or at a terminal state, there is no move.
    """
    from solver.alphabeta import alphabeta
    from solver.expectimax import expectimax
    from solver.limits import iterative_deepening
    from solver.minimax import minimax

    zeros = (0.0,) * len(game.players)
    stats = budget.stats()
    limits = limits or Limits()
    if reason == "interrupt" or game.to_move(root) < 0:
        return Solution(zeros, (), (), False, stats, "exact", True, reason)
    seconds = GUESS_SECONDS if limits.seconds is None else min(GUESS_SECONDS, max(0.05, limits.seconds / 10))
    cap = GUESS_NODES if limits.nodes is None else min(GUESS_NODES, max(1_000, limits.nodes // 10))
    entries = None if limits.table_entries is None else min(limits.table_entries, cap)
    slice_ = Limits(seconds=seconds, nodes=cap, table_entries=entries)
    try:
        if getattr(game, "has_chance", False):
            guess = iterative_deepening(lambda lim: expectimax(game, root, lim), slice_, max_depth=50)
        elif is_two_player_zero_sum(game):
            guess = alphabeta(game, root, slice_)
        else:
            guess = iterative_deepening(lambda lim: minimax(game, root, lim), slice_, max_depth=50)
    except DeadEndError:
        raise  # a bug in the rules: no guess hides it
    except (ValueError, RecursionError, KeyboardInterrupt):
        return Solution(zeros, (), (), False, stats, "exact", True, reason)
    if guess.best_move is None:
        return Solution(zeros, (), (), False, stats, "exact", True, reason)
    note = (f"heuristic guess: the solver stopped before it learned anything about this position; a depth-"
            f"{guess.stats.depth} {guess.algorithm} search ({guess.stats.nodes:,} more nodes) chose "
            f"{guess.best_move} (value not proven)")
    return Solution(tuple(guess.value), (guess.best_move,), tuple(guess.principal_variation), False, stats, "exact",
                    True, reason, note=note)


# ------------------------------------------------------------------ alpha-beta


def _solve_alphabeta(game: Game, root: State, budget: Budget, limits: Limits, all_best: bool = True,
                     plies: bool = False, plies_seconds: float | None = None) -> Solution:
    """Negamax to the end with a full TT; then every root move is tested against the value (null windows)."""
    if game.to_move(root) == TERMINAL:
        value = tuple(game.utilities(root))
        table = SolvedTable.for_game(game, "alphabeta", complete=False)
        table.values[game.key(root)] = value
        if plies:
            table.plies[game.key(root)] = 0.0
        return Solution(value, (), (), True, budget.stats(), "alphabeta", table=table, plies=0.0 if plies else None)
    # what solve_negamax does, keeping the searcher; the TT never holds more than the cap (checked below)
    native = native_search(game, budget, limits.table_entries)  # C inner loop: a fixed-size table, never full
    search = native or NegamaxSearch(game, budget, detect_cycles=True, table_entries=limits.table_entries)
    if limits.table_entries is not None and native is None:
        # An exact search cannot go on with a full table (it would redo work forever): stop at the cap.
        cap, budget_check = limits.table_entries, budget.check

        def check(nodes: int) -> int:
            budget.tt_size = len(search.tt)
            if budget.tt_size >= cap:
                raise SearchStopped("table")
            return budget_check(nodes)

        budget.check = check  # type: ignore[method-assign]
    player = game.to_move(root)
    side = search.sides[player]
    score: float | None = None
    best_moves: list[Any] = []
    try:
        score = mtdf(search, root, 0.0)
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
        reason = stop.reason if isinstance(stop, SearchStopped) else "interrupt"
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
    if plies:
        if plies_seconds is None:
            plies_seconds = max(PLIES_MIN_SECONDS, PLIES_FACTOR * budget.seconds)
        return _alphabeta_with_plies(game, root, search, score, tuple(best_moves), table, plies_seconds)
    pv = _proven_line(game, search, root, score, best_moves[0])
    stats = search.stats(len(pv))
    return Solution((score + 0.0, 0.0 - score), tuple(best_moves), pv, True, stats, "alphabeta", table=table)


def _proven_line(game: Game, search: NegamaxSearch, root: State, score: float, first: Any,
                 limit: int = 10_000) -> tuple[Any, ...]:
    """The principal variation of a solved root: moves that each keep the value ``score``, to the end.

    Each move is checked with a null-window search (cheap: the transposition table holds the
    proof), so the line replays to the stated value and runs to the end of the game, also when
    symmetric keys make the table's stored moves belong to another image of the position (the
    table's own line then stopped after one move). It stops on a repetition (a cycle worth 0) or
    when the budget runs out.
    """
    low, high = getattr(game, "utility_bounds", None) or (-INF, INF)
    line: list[Any] = []
    state, seen, move = root, {game.key(root)}, first
    try:
        while move is not None and len(line) < limit:
            line.append(move)
            state = game.apply(state, move)
            key = game.key(state)
            if game.to_move(state) < 0 or key in seen:
                break
            seen.add(key)
            side = search.sides[game.to_move(state)]
            moves = list(game.legal_moves(state))
            entry = search.tt.get(key)
            if entry is not None and entry[3] in moves:  # the stored move first: likeliest, and proven cheaply
                moves.remove(entry[3])
                moves.insert(0, entry[3])
            if (score <= low if side == 1 else score >= high):
                move = moves[0]  # the mover is lost: every move keeps the value
                continue
            keeps = at_least if side == 1 else at_most  # player 0 maximises
            move = next((m for m in moves if keeps(search, game.apply(state, m), score)), None)
    except (SearchStopped, KeyboardInterrupt):
        pass  # the line so far
    return tuple(line)


PLIES_FACTOR = 2.0
"""The alpha-beta path's walk for the distance to the end gets this many times the value search's time ..."""
PLIES_MIN_SECONDS = 5.0
"""... and at least this many seconds (a drawn Connect-Four 5x4 takes 10x its value search: no plies then)."""


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
            raise SearchStopped("plies")
        return check(nodes)

    budget.check = bounded  # type: ignore[method-assign]
    try:
        walked = _plies_walk(game, search, root, score, deadline)
    except (SearchStopped, KeyboardInterrupt):
        pv = search.principal_variation(root, best_moves[0], 10_000)
        return Solution(value, best_moves, pv, True, search.stats(len(pv)), "alphabeta", table=table)
    finally:
        budget.check = check  # type: ignore[method-assign]
    for key, (v0, distance) in walked.items():
        table.values[key] = (v0 + 0.0, 0.0 - v0)
        table.plies[key] = distance
    here = walked[game.key(root)][1]
    fastest = tuple(m for m in best_moves if one_less(_child_plies(game, root, m, walked), here)) or best_moves
    pv = _plies_line(game, root, fastest[0], walked)
    return Solution(value, best_moves, pv, True, search.stats(len(pv)), "alphabeta", table=table,
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
    close = 1e-9 * max(1.0, abs(score))

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
            raise SearchStopped("plies")
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
        walked[k] = (score, 1.0 + (min if mover >= -1e-9 else max)(distances))
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
        return _stopped(game, root, budget, reason, limits)
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
    return Solution((value + 0.0, 0.0 - value), (move,), pv, False, search.stats(len(pv)), "alphabeta", True,
                    reason, bounds=(low + 0.0, high + 0.0), note=note, table=table)


def _table_from_tt(game: Game, search: Any) -> SolvedTable:
    """The exact entries of a finished exact search: values for player 0 and the one best move found.

    A bound that reaches a utility bound is exact too (a proven win found by a cut-off).
    """
    if isinstance(search, NativeSearch):  # maybe millions of C entries: converted when the table is first read
        return search.solved_table(game, lambda view: _table_from_tt(game, view))
    table = SolvedTable.for_game(game, "alphabeta", complete=False)
    low, high = getattr(game, "utility_bounds", None) or (float("-inf"), float("inf"))
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


# ------------------------------------------------------------------ the state graph


class StateGraph:
    """Every state reachable from a root, explored breadth-first (no recursion).

    ``player[i]`` is the turn of state i; ``succ[i]`` the indexes of its
    children in move order; ``moves[i]`` the moves (or chance outcomes);
    ``probs[i]`` the outcome probabilities of a chance state.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.states: list[State] = []
        self.keys: list[Hashable] = []
        self.player: list[int] = []
        self.moves: list[Sequence[Any]] = []
        self.succ: list[tuple[int, ...]] = []
        self.probs: list[tuple[float, ...]] = []
        self.utilities: dict[int, tuple[float, ...]] = {}

    @classmethod
    def explore(cls, game: Game, root: State, budget: Budget, cap: int | None = None) -> StateGraph:
        """:raises SearchStopped: out of time or nodes, or more than ``cap`` states (reason ``table``)."""
        graph = cls(game)
        index: dict[Hashable, int] = {}
        to_move, legal, outcomes, apply, key = (game.to_move, game.legal_moves, game.chance_outcomes,
                                                game.apply, game.key)

        def add(state: State) -> int:
            k = key(state)
            i = index.get(k)
            if i is None:
                i = index[k] = len(graph.states)
                if cap is not None and i >= cap:
                    budget.nodes = budget.tt_size = i  # the statistics of a stopped exploration: states found
                    raise SearchStopped("table")
                graph.states.append(state)
                graph.keys.append(k)
            return i

        add(root)
        index_get = index.get
        done = 0
        while done < len(graph.states):  # the list itself is the BFS queue
            state = graph.states[done]
            done += 1
            if done >= budget.next_check:
                budget.check(done)
            player = to_move(state)
            graph.player.append(player)
            if player == TERMINAL:
                graph.utilities[done - 1] = tuple(float(u) for u in game.utilities(state))
                moves: Sequence[Any] = ()
                probs: tuple[float, ...] = ()
            elif player == CHANCE:
                pairs = list(outcomes(state))
                moves = [o for o, _ in pairs]
                probs = tuple(p for _, p in pairs)
            else:
                moves = list(legal(state))
                probs = ()
            if not moves and player != TERMINAL:
                raise graph.dead_end(done - 1, player)
            graph.moves.append(moves)
            graph.probs.append(probs)
            if len(moves) <= WIDE:
                succ = []
                for m in moves:  # add() written out: this loop runs once per edge of the graph
                    child = apply(state, m)
                    k = key(child)
                    i = index_get(k)
                    succ.append(add(child) if i is None else i)
                graph.succ.append(tuple(succ))
            else:  # a huge fan-out (a chance over 10^5 outcomes) must not outlast the time budget
                succ = []
                for j, m in enumerate(moves):
                    if not j % WIDE:
                        budget.check(done)
                    succ.append(add(apply(state, m)))
                graph.succ.append(tuple(succ))
        budget.nodes = done
        budget.tt_size = len(graph.states)
        return graph

    def dead_end(self, i: int, player: int) -> DeadEndError:
        """The error for the dead end at index ``i``, with the moves that reach it from the root.

        The exploration is breadth-first, so the first state found with a child ``i`` is its
        parent on a shortest line; looked up only when a dead end is found (no parent pointers kept).
        """
        error = dead_end(self.game, self.states[i], player)
        seen = {i}
        while i != 0:
            parent = next(p for p, children in enumerate(self.succ) if i in children)
            error.prepend(self.moves[parent][self.succ[parent].index(i)])
            i = parent
            if i in seen:  # cannot happen with BFS parents; never loop
                break
            seen.add(i)
        return error

    def __len__(self) -> int:
        return len(self.states)

    def topological_order(self) -> list[int] | None:
        """States with every child before its parents, or None if the graph has a cycle.

        Tarjan's components come sinks first; the graph is acyclic when each is one state
        without a self-loop. On a cyclic graph the walk stops at the first cycle it closes
        (before that, it had explored only what lies below it), which matters for millions of states.
        """
        order = []
        for members, feedback in components(self.succ):
            if feedback:
                return None
            order.extend(members)
        return order

    def predecessors(self) -> list[list[int]]:
        preds: list[list[int]] = [[] for _ in range(len(self.states))]
        for i, children in enumerate(self.succ):
            for c in children:
                preds[c].append(i)  # once per edge: attractor counters count edges
        return preds


Values = list[tuple[float, ...]]
Best = list[tuple[int, ...]]  # per state, the positions (in move order) of its optimal moves


StuckStateError = DeadEndError
"""The former name of :class:`solver.game.DeadEndError` (a non-terminal state with no move)."""


def _backward(graph: StateGraph, order: list[int]) -> tuple[Values, Best]:
    """Backward induction: children first; chance nodes average, decision nodes take max^n (first best)."""
    n = len(graph)
    zeros = (0.0,) * len(graph.game.players)
    values: Values = [zeros] * n
    best: Best = [()] * n
    for i in order:
        player = graph.player[i]
        children = graph.succ[i]
        if player == TERMINAL:
            values[i] = graph.utilities[i]
        elif player == CHANCE:
            values[i] = _mix(graph.probs[i], [values[c] for c in children])
        else:
            values[i], best[i] = _choose(player, [values[c] for c in children], 1e-12)
    return values, best


def _mix(probs: Sequence[float], vectors: Sequence[tuple[float, ...]]) -> tuple[float, ...]:
    total = [0.0] * len(vectors[0])
    for p, vector in zip(probs, vectors, strict=True):
        for j, x in enumerate(vector):
            total[j] += p * x
    return tuple(total)


def _choose(player: int, vectors: Sequence[tuple[float, ...]],
            tolerance: float) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """The tie-break rule: the first vector best for ``player``; and the positions of all the best ones."""
    top = max(v[player] for v in vectors)
    best = tuple(j for j, v in enumerate(vectors) if v[player] >= top - tolerance)
    return vectors[best[0]], best


# ------------------------------------------------------------------ retrograde analysis


def _retrograde(graph: StateGraph) -> tuple[Values, Best]:
    """Retrograde analysis of a deterministic two-player zero-sum graph with cycles.

    For each utility level t (ascending) of player 0, the set of states worth
    at least t is an attractor: for t > 0, the states from which player 0 can
    force a terminal worth >= t; for t <= 0 (endless play is worth 0 >= t),
    the complement of the states from which player 1 can force a terminal
    worth < t. Each attractor is a backward breadth-first sweep with a counter
    of unrefuted moves per state (Thompson 1986), so its rank is the number of
    moves to force the outcome; ranks make winning moves progress.
    """
    n = len(graph)
    preds = graph.predecessors()
    terminal_value = {i: u[0] for i, u in graph.utilities.items()}
    levels = sorted(set(terminal_value.values()) | {0.0})
    value = [levels[0]] * n
    rank_up: list[int] = [-1] * n  # moves for player 0 to force its value (value > 0)
    rank_down: list[int] = [-1] * n  # moves for player 1 to force below the next level (next level <= 0)
    for t in levels[1:]:
        if t > 0:
            rank = _attractor(graph, preds, 0, [i for i, u in terminal_value.items() if u >= t])
            for i in range(n):
                if rank[i] >= 0:
                    value[i] = t
                    rank_up[i] = rank[i]
        else:
            rank = _attractor(graph, preds, 1, [i for i, u in terminal_value.items() if u < t])
            for i in range(n):
                if rank[i] < 0:
                    value[i] = t
                elif rank_down[i] < 0:
                    rank_down[i] = rank[i]  # the first (lowest) level it is kept below: its own value's next
    values: Values = [(v + 0.0, 0.0 - v) for v in value]
    best: Best = [()] * n
    for i in range(n):
        player = graph.player[i]
        if player < 0:
            continue
        children = graph.succ[i]
        if player == 0 and value[i] > 0:
            ranks = rank_up
        elif player == 1 and rank_down[i] >= 0:
            ranks = rank_down
        else:
            ranks = None  # holding the value is enough (no progress needed)
        best[i] = tuple(j for j, c in enumerate(children)
                        if value[c] == value[i] and (ranks is None or ranks[c] < ranks[i]))
    return values, best


def _attractor(graph: StateGraph, preds: list[list[int]], player: int, targets: list[int]) -> list[int]:
    """Rank (moves needed) at which ``player`` can force reaching ``targets``; -1 where it cannot."""
    rank = [-1] * len(graph)
    unrefuted = [len(children) for children in graph.succ]
    queue = deque(targets)
    for i in targets:
        rank[i] = 0
    while queue:
        c = queue.popleft()
        for i in preds[c]:
            if rank[i] >= 0:
                continue
            if graph.player[i] == player:
                rank[i] = rank[c] + 1
                queue.append(i)
            else:
                unrefuted[i] -= 1
                if unrefuted[i] == 0:  # every move of the opponent leads into the attractor
                    rank[i] = rank[c] + 1
                    queue.append(i)
    return rank


# ------------------------------------------------------------------ value iteration


def _value_iteration(graph: StateGraph, budget: Budget, tolerance: float,
                     max_sweeps: int | None) -> tuple[Values, Best, bool]:
    """Value iteration from 0, one strongly connected component at a time (:mod:`solver.value_iteration`).

    Components are solved sinks first; inside one, sweeps (with Newton steps
    on its few cycle-closing states where the values are scalar) go on until
    no value moves by ``tolerance``. ``max_sweeps`` bounds the sweeps of each
    component; ``budget.iterations`` reports the most any component took.
    Returns values, optimal moves (within ``TIE_TOLERANCE``) and whether
    every component converged.
    """
    return solve_graph(graph, budget, tolerance, max_sweeps, TIE_TOLERANCE)


# ------------------------------------------------------------------ results


def _finish(game: Game, graph: StateGraph, budget: Budget, solved: tuple[Values, Best], method: str,
            exact: bool, reason: str | None, plies: bool = False, order: list[int] | None = None) -> Solution:
    values, best = solved
    table = SolvedTable.for_game(game, method, complete=True)
    symmetric = has_symmetric_keys(game)  # the graph holds one of each set of mirror images: keep its moves out
    for i, k in enumerate(graph.keys):
        table.values[k] = values[i]
        if best[i] and (i == 0 or not symmetric):
            moves = graph.moves[i]
            table.best[k] = tuple(str(moves[j]) for j in best[i])
    root_moves = tuple(graph.moves[0][j] for j in best[0])
    distance: Plies | None = graph_plies(graph, values, order) if plies and exact else None
    if distance is None:
        follow = best
    else:
        follow = _Fastest(graph, values, distance, best)
        for i, k in enumerate(graph.keys):
            if distance[i] is not None:
                table.plies[k] = distance[i]
    pv = _symmetric_line(graph, values, follow, distance) if symmetric else _line(graph, follow)
    budget.tt_size = len(graph)
    budget.depth = len(pv)
    return Solution(values[0], root_moves, pv, exact, budget.stats(), method, not exact, reason, table=table,
                    plies=None if distance is None else distance[0],
                    fastest_moves=() if distance is None else tuple(graph.moves[0][j] for j in follow[0]))


class _Fastest:
    """Per state, the optimal moves that follow the distance to the end, computed when first asked for.

    Only the principal variation asks (a few states), so the whole graph is never scanned for them.
    """

    def __init__(self, graph: StateGraph, values: Values, distance: Plies, best: Best) -> None:
        self.graph, self.values, self.distance, self.best = graph, values, distance, best

    def __getitem__(self, i: int) -> tuple[int, ...]:
        best = self.best[i]
        return fastest(self.graph, self.values, self.distance, i, best) if best else ()


def _line(graph: StateGraph, best: Best | _Fastest, limit: int = 10_000) -> tuple[Any, ...]:
    """The principal variation: first optimal moves, likeliest chance outcomes; stops on a repetition."""
    line = []
    i = 0
    seen = {0}
    while len(line) < limit:
        player = graph.player[i]
        if player == TERMINAL:
            break
        if player == CHANCE:
            probs = graph.probs[i]
            j = max(range(len(probs)), key=probs.__getitem__)
        elif best[i]:
            j = best[i][0]
        else:
            break
        line.append(graph.moves[i][j])
        i = graph.succ[i][j]
        if i in seen:
            break
        seen.add(i)
    return tuple(line)


def _symmetric_line(graph: StateGraph, values: Values, best: Best | _Fastest, distance: Plies | None = None,
                    limit: int = 10_000) -> tuple[Any, ...]:
    """The principal variation of a game with symmetric keys, played on the real states.

    A graph node stands for all the mirror images of its state, so its moves may name other
    cells than the position reached: each move is found again as one whose child has the value
    (and, given ``distance``, is one ply nearer the end).
    """
    game = graph.game
    index = {k: i for i, k in enumerate(graph.keys)}
    state, line, seen = graph.states[0], [], {0}
    first = graph.moves[0][best[0][0]] if best[0] else None
    while len(line) < limit:
        i = index[game.key(state)]
        player = graph.player[i]
        if player == TERMINAL:
            break
        if player == CHANCE:
            move = max(game.chance_outcomes(state), key=lambda pair: pair[1])[0]
        elif first is not None:
            move, first = first, None
        else:
            move = next((m for m in game.legal_moves(state)
                         if _keeps(game, index, values, distance, state, m, i, player)), None)
            if move is None:
                break
        line.append(move)
        state = game.apply(state, move)
        j = index[game.key(state)]
        if j in seen:
            break
        seen.add(j)
    return tuple(line)


def _keeps(game: Game, index: dict[Hashable, int], values: Values, distance: Plies | None, state: State, move: Any,
           i: int, player: int) -> bool:
    """Whether ``move`` keeps the value of graph state ``i`` (``state``) for ``player``, and follows ``distance``."""
    j = index[game.key(game.apply(state, move))]
    if abs(values[j][player] - values[i][player]) > TIE_TOLERANCE:
        return False
    here = None if distance is None else distance[i]
    return here is None or here == math.inf or one_less(distance[j], here)  # type: ignore[index]


def solve_value(game: Game, state: State | None = None, **options: Any) -> tuple[float, ...]:
    """Shorthand: the exact value vector of ``state``."""
    return solve(game, state, **options).value


__all__ = ["METHODS", "Solution", "StateGraph", "solve", "solve_value"]
