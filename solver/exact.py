"""Exact solving: the game-theoretic value of a state, all its optimal moves, and a solved table.

:func:`solve` picks the method that fits the game (``method="auto"``, :mod:`solver.auto`):

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

Where each part lives: the choice of method, :mod:`solver.auto`; the state graph and its
components, :mod:`solver.graph`; the methods, :mod:`solver.exact_alphabeta` (over
:mod:`solver.alphabeta` and :mod:`solver.mtdf`), :mod:`solver.backward`,
:mod:`solver.retrograde` and :mod:`solver.value_iteration`; the result,
:mod:`solver.solution`; the guess of a stopped solve, :mod:`solver.guess`. This module
only runs them in order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from solver.alphabeta import CycleFound, TooDeep
from solver.auto import (
    EXACT_METHODS,
    Algorithm,
    check_exact_method,
    check_players,
    exact_method,
    search_first,
)
from solver.backward import backward
from solver.exact_alphabeta import PLIES_FACTOR, PLIES_MIN_SECONDS, solve_alphabeta
from solver.game import DeadEndError, Game, State
from solver.graph import STATE_BYTES, Best, StateGraph, Values
from solver.guess import GUESS_NODES, GUESS_SECONDS
from solver.guess import stopped as _stopped
from solver.limits import Budget, Limits, SearchStats, SearchStopped, StopReason, entry_bytes
from solver.native.graph import explored_in_c, solve_graph_native, solve_retrograde_native
from solver.native.graph import fits as c_graph_fits
from solver.native.graph import retrograde_fits as c_retrograde_fits
from solver.retrograde import retrograde
from solver.solution import Solution, finish
from solver.value_iteration import solve_graph

METHODS = (Algorithm.AUTO, *EXACT_METHODS)

StuckStateError = DeadEndError
"""The former name of :class:`solver.game.DeadEndError` (a non-terminal state with no move)."""


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
    move_values: bool = False,
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

    ``move_values=True`` also gives every root move's exact value (``Solution.move_values``): the
    alpha-beta path searches each with its own warm table (the graph methods have them in ``table``).

    ``limits.threads``: the alpha-beta path of a game with a C back end searches with that many threads
    sharing its table (lazy SMP, :mod:`solver.native.search`), and its state graph is explored on that many
    (``solver/native/explore.c``: the same graph); the other paths use one.

    ``limits`` may bound time, nodes, ``table_entries`` (states kept) and ``memory_bytes`` (states kept, at
    what each table's entries cost: :meth:`~solver.limits.Limits.entries`);
    ``limits.iterations`` bounds value-iteration sweeps. When a budget runs
    out (or on Ctrl-C) the result has ``stopped=True`` and ``exact=False``.

    :raises ValueError: an unknown ``method``, or one that does not fit the game.
    """
    check_players(game, "the exact solver")
    chosen = check_exact_method(game, method)
    limits = limits or Limits()
    root = game.initial_state() if state is None else state
    budget = Budget(limits, progress)
    graph: StateGraph | None = None
    try:
        if chosen == Algorithm.ALPHABETA or (chosen == Algorithm.AUTO and search_first(game)):
            try:
                return solve_alphabeta(game, root, budget, limits, all_best, plies, plies_seconds, move_values)
            except CycleFound:
                if chosen == Algorithm.ALPHABETA:
                    raise ValueError(f"{game.name} has cycles: alpha-beta cannot solve it; use retrograde") from None
            except TooDeep:
                if chosen == Algorithm.ALPHABETA:
                    raise ValueError(f"{game.name} is too long for a recursive search; use backward") from None
        if c_graph_fits(game, chosen):  # the graph in C: the same methods, the same answer
            solved = solve_graph_native(game, root, budget, limits, chosen, tolerance, plies)
            if solved is not None:
                return solved
        if c_retrograde_fits(game, chosen):  # retrograde analysis in C: the same answer
            answer = solve_retrograde_native(game, root, budget, limits, chosen, plies)
            if isinstance(answer, Solution):
                return answer
            graph = answer  # acyclic (auto): the graph for backward induction, if copied out
        if graph is None:
            graph = explored_in_c(game, root, budget, limits) or StateGraph.explore(
                game, root, budget, limits.entries(entry_bytes(STATE_BYTES, root, copies=2)))
        order = graph.topological_order()
        if chosen == Algorithm.BACKWARD and order is None:
            raise ValueError(f"{game.name} has cycles: backward induction cannot solve it; use value_iteration")
        if chosen == Algorithm.AUTO:
            chosen = exact_method(game, acyclic=order is not None)
        if chosen == Algorithm.BACKWARD and order is not None:
            return finish(game, graph, budget, backward(graph, order), chosen, True, None, plies, order)
        if chosen == Algorithm.RETROGRADE:
            return finish(game, graph, budget, retrograde(graph), chosen, True, None, plies)
        values, best, converged = _value_iteration(graph, budget, tolerance, limits.iterations)
        solution = finish(game, graph, budget, (values, best), Algorithm.VALUE_ITERATION, converged,
                           None if converged else StopReason.ITERATIONS, plies)
        if converged:
            return solution
        sweeps = f"{budget.iterations:,} sweep" + ("" if budget.iterations == 1 else "s")
        return replace(solution, note=f"estimate: value iteration stopped after {sweeps} before it converged; "
                                      "the best move by the estimate")
    except SearchStopped as stop:
        if stop.partial is not None and graph is not None:  # value iteration's values at the stop
            solution = finish(game, graph, budget, stop.partial, Algorithm.VALUE_ITERATION, False, stop.reason)
            return replace(solution, note="estimate: value iteration stopped before it converged; the best "
                                          "move by the estimate")
        if stop.reason == StopReason.TABLE and limits.table_entries is not None:
            budget.tt_size = max(budget.tt_size, limits.table_entries)  # the table filled up
        return _stopped(game, root, budget, stop.reason, limits)
    except KeyboardInterrupt:
        return _stopped(game, root, budget, StopReason.INTERRUPT, limits)


def _value_iteration(graph: StateGraph, budget: Budget, tolerance: float,
                     max_sweeps: int | None) -> tuple[Values, Best, bool]:
    """Value iteration from 0, one strongly connected component at a time (:mod:`solver.value_iteration`).

    Returns values, optimal moves (within ``TIE_TOLERANCE``) and whether every component converged.
    """
    return solve_graph(graph, budget, tolerance, max_sweeps)


def solve_value(game: Game, state: State | None = None, **options: Any) -> tuple[float, ...]:
    """Shorthand: the exact value vector of ``state``."""
    return solve(game, state, **options).value


__all__ = ["GUESS_NODES", "GUESS_SECONDS", "METHODS", "PLIES_FACTOR", "PLIES_MIN_SECONDS", "Solution", "StateGraph",
           "StuckStateError", "solve", "solve_value"]
