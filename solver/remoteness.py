"""Distance to the end ("remoteness"): how many plies a game lasts under optimal play.

Source: the Gamesman project (Garcia et al., UC Berkeley; GamesmanClassic and
GamesmanUni) calls it *remoteness*: a solved position records its value and
the number of moves to the end of the game when the winner wins as fast as
possible and the loser loses as slowly as possible.

Definition used here (value first): at a decision state only the *optimal*
moves count, those whose child has the state's value vector. Among them the
player to move

* takes the **fewest** plies when its value is positive (a winner hurries)
  or zero (a draw: both sides take the shortest drawn line),
* takes the **most** plies when its value is negative (a loser holds out).

A terminal state is 0 plies from the end; a chance state is 1 plus the
expected plies of its outcomes; a decision state is 1 plus the chosen child's.
Every move and every chance outcome is one ply. Play that never ends along
optimal moves (a draw by endless play) is ``math.inf`` plies away.

This is a pass over values already solved (:func:`graph_plies` over a
:class:`solver.exact.StateGraph`; the alpha-beta path of the exact solver
walks the optimal moves with its transposition table instead): the value
search itself is untouched, so a solve that does not ask for plies costs
nothing more.

Pseudo-code (``graph_plies``; components sinks first, Tarjan 1972)::

    for C in components(graph), sinks first:
        if C is one state without a self-loop:
            plies[s] <- 0 if terminal, 1 + sum p * plies[child] if chance,
                        1 + (min or max) plies[optimal child] otherwise
        elif C has no chance state:                     # a cycle: retrograde, in order of distance
            seed a heap with every member's best move out of C (or 0 at a terminal)
            pop the nearest: a "min" state is done at its first child done;
            a "max" state once every optimal child is done (then 1 + the largest)
            members never done: inf (they can keep the game going forever)
        else:
            unknown (None): expected plies in cyclic chance games are not computed yet
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from solver.game import CHANCE, TERMINAL
from solver.value_iteration import components

if TYPE_CHECKING:
    from solver.exact import StateGraph

Plies = list[float | None]
"""Per state: plies to the end under optimal play, ``math.inf`` for endless play, None when unknown."""

TOLERANCE = 1e-9
"""Value vectors this close are equal (a child with the state's value is an optimal move)."""


def same_value(a: Sequence[float], b: Sequence[float], tolerance: float = TOLERANCE) -> bool:
    return a == b or all(abs(x - y) <= tolerance * max(1.0, abs(x), abs(y)) for x, y in zip(a, b, strict=True))


def hurries(value: Sequence[float], player: int) -> bool:
    """Whether ``player`` wants the game short: its value is positive or zero (a winner, or a draw)."""
    return value[player] >= -TOLERANCE


def optimal_children(graph: StateGraph, values: Sequence[Sequence[float]], s: int) -> list[int]:
    """The positions (in move order) of the moves of decision state ``s`` that keep its value."""
    here = values[s]
    return [j for j, c in enumerate(graph.succ[s]) if values[c] == here or same_value(values[c], here)]


def graph_plies(graph: StateGraph, values: Sequence[Sequence[float]], order: Sequence[int] | None = None) -> Plies:
    """Plies to the end of every state of ``graph``, given its exact values (see the module docstring).

    ``order``: the graph's topological order (children first) when it is acyclic and known.
    """
    plies: Plies = [None] * len(graph)
    if order is not None:
        for s in order:
            plies[s] = _acyclic(graph, values, plies, s)
        return plies
    for members, feedback in components(graph.succ):
        if not feedback:
            plies[members[0]] = _acyclic(graph, values, plies, members[0])
        elif all(graph.player[s] != CHANCE for s in members):
            _cyclic(graph, values, plies, members)
    return plies


def _acyclic(graph: StateGraph, values: Sequence[Sequence[float]], plies: Plies, s: int) -> float | None:
    player = graph.player[s]
    if player == TERMINAL:
        return 0.0
    children = graph.succ[s]
    if player == CHANCE:
        known = [plies[c] for c in children]
        if any(k is None for k in known):
            return None
        return 1.0 + sum(p * k for p, k in zip(graph.probs[s], known, strict=True))  # type: ignore[operator]
    known = [plies[children[j]] for j in optimal_children(graph, values, s)]
    if not known or any(k is None for k in known):
        return None
    return 1.0 + (min if hurries(values[s], player) else max)(known)  # type: ignore[type-var]


def _cyclic(graph: StateGraph, values: Sequence[Sequence[float]], plies: Plies, members: list[int]) -> None:
    """Retrograde distances inside one strongly connected component without chance states."""
    inside = set(members)
    heap: list[tuple[float, int]] = []
    waiting: dict[int, int] = {}  # a "max" state: optimal children inside the component not yet done
    worst: dict[int, float] = {}  # a "max" state: the largest distance among its optimal children so far
    parents: dict[int, list[int]] = {s: [] for s in members}
    for s in members:
        player = graph.player[s]
        if player == TERMINAL:
            heapq.heappush(heap, (0.0, s))
            continue
        children = graph.succ[s]
        optimal = [children[j] for j in optimal_children(graph, values, s)]
        outside = [plies[c] for c in optimal if c not in inside]
        if any(k is None for k in outside):
            continue  # unknown below: unknown here
        for c in optimal:
            if c in inside:
                parents[c].append(s)
        if hurries(values[s], player):
            if outside:
                heapq.heappush(heap, (1.0 + min(outside), s))  # type: ignore[type-var]
        else:
            waiting[s] = sum(1 for c in optimal if c in inside)
            worst[s] = max(outside, default=-math.inf)  # type: ignore[type-var,arg-type]
            if waiting[s] == 0:
                heapq.heappush(heap, (1.0 + worst[s], s))
    done: set[int] = set()
    while heap:
        distance, s = heapq.heappop(heap)
        if s in done:
            continue
        done.add(s)
        plies[s] = distance
        for parent in parents[s]:
            if parent in done:
                continue
            if parent not in waiting:
                heapq.heappush(heap, (distance + 1.0, parent))
            else:
                waiting[parent] -= 1
                worst[parent] = max(worst[parent], distance)
                if waiting[parent] == 0:
                    heapq.heappush(heap, (1.0 + worst[parent], parent))
    for s in members:
        if s not in done and graph.player[s] != TERMINAL:
            optimal = [graph.succ[s][j] for j in optimal_children(graph, values, s)]
            if all(plies[c] is not None or c in inside for c in optimal):
                plies[s] = math.inf


def one_less(child: float | None, here: float | None) -> bool:
    """Whether a child ``child`` plies from the end is one ply nearer than ``here`` (finite distances only)."""
    return child is not None and here is not None and math.isclose(child + 1.0, here, rel_tol=1e-9, abs_tol=1e-9)


def fastest(graph: StateGraph, values: Sequence[Sequence[float]], plies: Plies, s: int,
            best: Sequence[int]) -> tuple[int, ...]:
    """The optimal moves of decision state ``s`` that follow the distance to the end (positions in move order).

    A winner's moves bring the end one ply nearer at the fastest, a loser's at the slowest.
    With the distance unknown or endless, ``best`` (the solver's own optimal moves) is kept.
    """
    here = plies[s]
    if here is None or here == math.inf:
        return tuple(best)
    children = graph.succ[s]
    kept = tuple(j for j in optimal_children(graph, values, s) if one_less(plies[children[j]], here))
    return kept or tuple(best)
