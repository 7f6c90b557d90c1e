"""Backward induction over an acyclic state graph: expectimax at chance nodes, max^n at decision nodes.

Sources:

* Zermelo (1913), "Über eine Anwendung der Mengenlehre auf die Theorie des Schachspiels":
  the value of a finite game of perfect information, computed from the ends backwards.
* Luckhardt & Irani (1986), "An algorithmic solution of N-person games", AAAI: max^n,
  each player maximising its own entry of a value vector.
* Michie (1966), "Game-playing and game-learning automata": expectiminimax, the
  probability-weighted mean at chance nodes.

Pseudo-code::

    for s in the states, every child before its parents:       # a reverse topological order
        if s is terminal:  V[s] := utilities(s)
        elif s is chance:  V[s] := sum over outcomes o of p(o) * V[child(s, o)]
        else:              V[s] := V[the first child c maximising V[c][mover(s)]]

**Tie-break rule** (max^n): among the moves that give the player to move the same best
value (within ``TIE_TOLERANCE``), the first in the game's move order is taken, and its value
vector is the state's; ``best`` lists all of them.
"""

from __future__ import annotations

from collections.abc import Sequence

from solver.game import CHANCE, TERMINAL
from solver.graph import Best, StateGraph, Values
from solver.limits import TIE_TOLERANCE


def backward(graph: StateGraph, order: list[int]) -> tuple[Values, Best]:
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
            values[i] = mix(graph.probs[i], [values[c] for c in children])
        else:
            values[i], best[i] = choose(player, [values[c] for c in children], TIE_TOLERANCE)
    return values, best


def mix(probs: Sequence[float], vectors: Sequence[tuple[float, ...]]) -> tuple[float, ...]:
    total = [0.0] * len(vectors[0])
    for p, vector in zip(probs, vectors, strict=True):
        for j, x in enumerate(vector):
            total[j] += p * x
    return tuple(total)


def choose(player: int, vectors: Sequence[tuple[float, ...]],
            tolerance: float) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """The tie-break rule: the first vector best for ``player``; and the positions of all the best ones."""
    top = max(v[player] for v in vectors)
    best = tuple(j for j, v in enumerate(vectors) if v[player] >= top - tolerance)
    return vectors[best[0]], best


__all__ = ["backward", "choose", "mix"]
