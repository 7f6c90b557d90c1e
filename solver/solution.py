"""What the exact solver returns (:class:`Solution`), and how a solved state graph becomes one.

:func:`finish` turns the values and optimal moves of a graph method (backward induction,
retrograde analysis, value iteration) into a :class:`Solution`: its solved table, the root's
optimal moves, the distance to the end when asked (:mod:`solver.remoteness`), and a
principal variation (first optimal moves, likeliest chance outcomes; with symmetric keys,
replayed on the real states).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from solver.game import CHANCE, TERMINAL, Game, State
from solver.graph import Best, StateGraph, Values
from solver.limits import TIE_TOLERANCE, Budget, SearchResult
from solver.remoteness import Plies, fastest, graph_plies, one_less
from solver.table import SolvedTable, has_symmetric_keys


@dataclass(frozen=True)
class Solution(SearchResult):
    """A :class:`SearchResult` from the exact solver, with the table of every state it solved."""

    table: SolvedTable | None = None
    fastest_moves: tuple[Hashable, ...] = ()
    """With ``plies``: the optimal root moves that follow the distance to the end (a winner's fastest, a
    loser's slowest; :mod:`solver.remoteness`), in move order; the moves a perfect player picks from."""
    move_values: tuple[tuple[Hashable, tuple[float, ...]], ...] = ()
    """Every root move and its value, in move order (a decision at the root): the graph methods' always (their
    graph has every child), the alpha-beta path's with ``move_values`` (found by the same search: its
    transposition table holds most of each proof already)."""


def finish(game: Game, graph: StateGraph, budget: Budget, solved: tuple[Values, Best], method: str,
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
    follow: Best | _Fastest = best
    if distance is not None:
        follow = _Fastest(graph, values, distance, best)
        for k, d in zip(graph.keys, distance, strict=True):
            if d is not None:
                table.plies[k] = d
    pv = _symmetric_line(graph, values, follow, distance) if symmetric else _line(graph, follow)
    budget.tt_size = len(graph)
    budget.depth = len(pv)
    move_values = (tuple((move, values[child]) for move, child in zip(graph.moves[0], graph.succ[0], strict=True))
                   if graph.player[0] >= 0 else ())
    return Solution(values[0], root_moves, pv, exact, budget.stats(), method, not exact, reason, table=table,
                    plies=None if distance is None else distance[0],
                    fastest_moves=() if distance is None else tuple(graph.moves[0][j] for j in follow[0]),
                    move_values=move_values)


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
    line: list[Any] = []
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
    first = graph.moves[0][best[0][0]] if best[0] else None
    return played_line(game, graph.states[0], first, lambda state, move, player: _keeps(
        game, index, values, distance, state, move, index[game.key(state)], player), limit)


def played_line(game: Game, root: State, first: Any, keeps: Callable[[State, Any, int], bool],
                limit: int = 10_000) -> tuple[Any, ...]:
    """A principal variation played on the real states from ``root``: ``first``, then at each decision the first
    legal move that ``keeps(state, move, player)`` accepts, the likeliest chance outcomes; it stops at the end,
    on a repetition, or where no move is accepted (the Python graph's and the C graph's, with symmetric keys)."""
    state, seen = root, {game.key(root)}
    line: list[Any] = []
    while len(line) < limit:
        player = game.to_move(state)
        if player == TERMINAL:
            break
        if player == CHANCE:
            move = max(game.chance_outcomes(state), key=lambda pair: pair[1])[0]
        elif first is not None:
            move, first = first, None
        else:
            move = next((m for m in game.legal_moves(state) if keeps(state, m, player)), None)
            if move is None:
                break
        line.append(move)
        state = game.apply(state, move)
        key = game.key(state)
        if key in seen:
            break
        seen.add(key)
    return tuple(line)


def _keeps(game: Game, index: dict[Hashable, int], values: Values, distance: Plies | None, state: State, move: Any,
           i: int, player: int) -> bool:
    """Whether ``move`` keeps the value of graph state ``i`` (``state``) for ``player``, and follows ``distance``."""
    j = index[game.key(game.apply(state, move))]
    if abs(values[j][player] - values[i][player]) > TIE_TOLERANCE:
        return False
    here = None if distance is None else distance[i]
    return here is None or here == math.inf or one_less(distance[j], here)  # type: ignore[index]


__all__ = ["Solution", "finish"]
