"""The answer of an exact solve stopped before it learned anything about the root: a quick heuristic guess.

The search that guesses is the one :func:`solver.auto.fallback` names for the game
(MCTS for a game without a heuristic; expectimax with chance, alpha-beta for a deterministic
two-player zero-sum game, max^n otherwise), within ``GUESS_NODES`` (and a share of ``--time``, when the
solve had one); the result says in its ``note`` that the move is a guess.
"""

from __future__ import annotations

from solver.auto import Algorithm, fallback
from solver.game import DeadEndError, Game, State
from solver.limits import Budget, Limits, StopReason, cells, iterative_deepening
from solver.solution import Solution

GUESS_NODES = 20_000
"""Most nodes of the heuristic search that guesses a move when a stopped solve knows nothing of the root (a tenth of
``limits.nodes`` when that is smaller, but at least 1,000; MCTS: its playouts' plies, in at least 500 playouts),
fewer for a state of many cells (:data:`GUESS_CELLS`). Counted, not timed, so that the guess and its note are the
same on a busy machine: a second or two of Python on the bundled games."""
GUESS_CELLS = 32
"""A state of more cells than this counts as one node more for each such many cells (a copy of it costs that)."""
GUESS_SECONDS = 1.0
"""After a solve stopped by ``--time``, the guess also stops at a tenth of it, at most this many seconds."""


def stopped(game: Game, root: State, budget: Budget, reason: str, limits: Limits | None = None) -> Solution:
    """A solve stopped before it learned anything about the root: a move from a brief depth-limited search.

    That search (alpha-beta, expectimax with chance, max^n for N players, deepening
    within ``GUESS_NODES``, and ``GUESS_SECONDS`` after a ``--time``) gives a heuristic guess,
    said so in ``note``; after Ctrl-C, or at a terminal state, there is no move.
    """
    zeros = (0.0,) * len(game.players)
    stats = budget.stats()
    limits = limits or Limits()
    if reason == StopReason.INTERRUPT or game.to_move(root) < 0:
        return Solution(zeros, (), (), False, stats, Algorithm.EXACT, True, reason)
    seconds = None if limits.seconds is None else min(GUESS_SECONDS, max(0.05, limits.seconds / 10))
    weight = max(1, cells(root) // GUESS_CELLS)
    cap = max(1, (GUESS_NODES if limits.nodes is None else min(GUESS_NODES, max(1_000, limits.nodes // 10))) // weight)
    entries = None if limits.table_entries is None else min(limits.table_entries, cap)
    slice_ = Limits(seconds=seconds, nodes=cap, table_entries=entries, memory_bytes=limits.memory_bytes)
    try:
        algorithm = fallback(game, root)
        # (each search is imported here: every exact solve imports this module, few stop without an answer)
        if algorithm == Algorithm.MCTS:  # seeded: the same position gets the same guess
            from solver.mcts import mcts

            guess = mcts(game, root, Limits(seconds=seconds, iterations=max(500, cap // 2),
                                            nodes=max(1, GUESS_NODES // weight)), seed=0)
        elif algorithm == Algorithm.EXPECTIMAX:
            from solver.expectimax import expectimax

            guess = iterative_deepening(lambda lim: expectimax(game, root, lim), slice_, max_depth=50)
        elif algorithm == Algorithm.ALPHABETA:
            from solver.alphabeta import alphabeta

            guess = alphabeta(game, root, slice_)
        else:
            from solver.minimax import minimax

            guess = iterative_deepening(lambda lim: minimax(game, root, lim), slice_, max_depth=50)
    except DeadEndError:
        raise  # a bug in the rules: no guess hides it
    except (ValueError, RecursionError, KeyboardInterrupt):
        return Solution(zeros, (), (), False, stats, Algorithm.EXACT, True, reason)
    if guess.best_move is None:
        return Solution(zeros, (), (), False, stats, Algorithm.EXACT, True, reason)
    if algorithm == Algorithm.MCTS:
        how = (f"MCTS ({guess.stats.iterations:,} random playouts: the game has no heuristic for a depth-limited "
               "search)")
    else:
        how = f"a depth-{guess.stats.depth} {guess.algorithm} search ({guess.stats.nodes:,} more nodes)"
    note = (f"heuristic guess: the solver stopped before it learned anything about this position; {how} chose "
            f"{guess.best_move} (value not proven)")
    return Solution(tuple(guess.value), (guess.best_move,), tuple(guess.principal_variation), False, stats,
                    Algorithm.EXACT, True, reason, note=note)


__all__ = ["GUESS_NODES", "GUESS_SECONDS", "stopped"]
