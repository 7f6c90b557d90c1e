"""Plain textbook alpha-beta: the oracle the tests hold the optimised search (:mod:`solver.alphabeta`) to.

Source: Knuth & Moore (1975), "An analysis of alpha-beta pruning", Artificial Intelligence 6:
their fail-soft procedure F2, written in minimax form rather than negamax so that a player may
move twice in a row. Nothing else: no transposition table, no move ordering, no null windows, no
enhanced transposition cutoff, no cycle detection. Slow and obviously right.

Pseudo-code (player 0 maximises player 0's utility, player 1 minimises it)::

    function alphabeta(node, depth, alpha, beta)
        if node is terminal: return utility of player 0
        if depth = 0: return heuristic of player 0 (0 without one)
        if player 0 moves:
            value := -inf
            for each child: value := max(value, alphabeta(child, depth - 1, alpha, beta))
                            alpha := max(alpha, value); if alpha >= beta: break     # beta cut-off
        else:
            value := +inf
            for each child: value := min(value, alphabeta(child, depth - 1, alpha, beta))
                            beta := min(beta, value); if alpha >= beta: break       # alpha cut-off
        return value

With the full window (-inf, +inf) at the root the result is the minimax value.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

from solver.auto import is_deterministic_duel
from solver.game import CHANCE, TERMINAL, Game, State, dead_end


def textbook_alphabeta(game: Game[Any, Any], state: State, depth: int | None = None, alpha: float = -math.inf,
                       beta: float = math.inf) -> float:
    """Player 0's minimax value of ``state`` searched ``depth`` plies deep (None: to the end), within (alpha, beta).

    :raises ValueError: the game is not a deterministic two-player zero-sum game.
    :raises DeadEndError: a decision state without a legal move.
    """
    if not is_deterministic_duel(game):
        raise ValueError(f"textbook alpha-beta needs a deterministic two-player zero-sum game; {game.name} is not")
    return _value(game, state, depth, alpha, beta)


def _value(game: Game[Any, Any], state: State, depth: int | None, alpha: float, beta: float) -> float:
    player = game.to_move(state)
    if player == TERMINAL:
        return float(game.utilities(state)[0])
    if depth == 0:
        h = game.heuristic(state)
        return 0.0 if h is None else float(h[0])
    if player == CHANCE:
        raise ValueError("textbook alpha-beta met a chance node")
    moves = game.legal_moves(state)
    if not moves:
        raise dead_end(game, state, player)
    below = None if depth is None else depth - 1
    if player == 0:
        value = -math.inf
        for move in moves:
            value = max(value, _value(game, game.apply(state, move), below, alpha, beta))
            alpha = max(alpha, value)
            if alpha >= beta:
                break
        return value
    value = math.inf
    for move in moves:
        value = min(value, _value(game, game.apply(state, move), below, alpha, beta))
        beta = min(beta, value)
        if alpha >= beta:
            break
    return value


def textbook_best_moves(game: Game[Any, Any], state: State, depth: int | None = None) -> list[Hashable]:
    """Every move of ``state`` whose child has the state's value (each child searched with the full window)."""
    value = textbook_alphabeta(game, state, depth)
    below = None if depth is None else depth - 1
    return [m for m in game.legal_moves(state) if textbook_alphabeta(game, game.apply(state, m), below) == value]


__all__ = ["textbook_alphabeta", "textbook_best_moves"]
