"""Retrograde analysis of a deterministic two-player zero-sum game graph with cycles.

Sources:

* Ströhlein (1970), "Untersuchungen über kombinatorische Spiele" (thesis, TU München):
  the first endgame tables, computed backwards from the final positions.
* Thompson (1986), "Retrograde analysis of certain endgames", ICCA Journal 9: the
  backward sweep with a counter of unrefuted moves per position.
* Zielonka (1998), "Infinite games on finitely coloured graphs": the attractor of a set
  of states for a player, the states from which it can force a visit.

Pseudo-code (one attractor)::

    rank[t] := 0 for the targets t; queue := targets
    unrefuted[s] := number of moves of s
    while queue: c := pop
        for each predecessor s of c not yet ranked:
            if s is the attracting player's: rank[s] := rank[c] + 1; push s
            else: unrefuted[s] -= 1; if unrefuted[s] = 0: rank[s] := rank[c] + 1; push s

Endless play (a cycle that neither player leaves) is worth 0 to both players. In a
cyclic game an optimal move of a winning player must also make progress (a lower rank),
else "optimal" play could circle forever; ``best`` lists only such moves there.
"""

from __future__ import annotations

from collections import deque

from solver.graph import Best, StateGraph, Values


def retrograde(graph: StateGraph) -> tuple[Values, Best]:
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


__all__ = ["retrograde"]
