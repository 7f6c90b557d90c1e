"""MTD(f): the exact value of a state by null-window alpha-beta searches, and the null-window tests it is made of.

Source: Plaat, Schaeffer, Pijls & de Bruin (1996), "Best-first fixed-depth minimax
algorithms", Artificial Intelligence 87 (MTD(f), "memory-enhanced test driver").

Pseudo-code::

    function MTDF(root, f)
        g := f; upper := +inf; lower := -inf
        while lower < upper:
            beta := max(g, lower + 1)               # here: lower + epsilon, values being real numbers
            g := AlphaBetaWithMemory(root, beta - 1, beta)
            if g < beta: upper := g else: lower := g
        return g

Every search here is to the end of the game (``UNLIMITED_DEPTH``), with the searcher's
transposition table (:class:`solver.alphabeta.NegamaxSearch`) keeping the bounds between
the passes, so each pass is cheap.
"""

from __future__ import annotations

from solver.alphabeta import NegamaxSearch
from solver.game import TERMINAL, Game, State
from solver.limits import TIE_TOLERANCE, UNLIMITED_DEPTH, Budget


def solve_negamax(game: Game, state: State, budget: Budget, *, table_entries: int | None = None,
                  detect_cycles: bool = True) -> tuple[NegamaxSearch, float]:
    """An exact search to the end of the game (no iterative deepening); for the exact solver.

    Returns the searcher (its TT holds the exact values found) and the score
    for player 0.

    :raises CycleFound: the game graph has a cycle (``detect_cycles``).
    :raises TooDeep: the game is longer than the recursion limit allows.
    """
    search = NegamaxSearch(game, budget, table_entries=table_entries, detect_cycles=detect_cycles)
    return search, mtdf(search, state, 0.0)


def mtdf(search: NegamaxSearch, state: State, guess: float) -> float:
    """MTD(f) (Plaat, Schaeffer, Pijls & de Bruin 1996): the exact value for player 0 by null-window searches.

    Each null-window search answers "is the value >= beta?" and, being fail-soft,
    returns a bound that moves ``lower`` or ``upper``; with a transposition table
    the repeated searches are cheap, and each is much smaller than one
    full-window search (a proof that the value is below 0 needs no exact values).
    Values closer than ``TIE_TOLERANCE`` (relative) are not told apart.
    """
    game = search.game
    player = game.to_move(state)
    side = search.sides[player]
    low, high = search.window(1)
    lower, upper = low, high
    g = min(max(guess, lower), upper)
    while lower < upper:
        epsilon = TIE_TOLERANCE * max(1.0, abs(g))
        beta = g + epsilon if g <= lower else g
        if side == 1:
            g = search.negamax(state, player, UNLIMITED_DEPTH, beta - epsilon, beta, 0)
        else:
            g = -search.negamax(state, player, UNLIMITED_DEPTH, -beta, -beta + epsilon, 0)
        if g < beta:
            upper = g
        else:
            lower = g
    return lower


def at_least(search: NegamaxSearch, state: State, target: float, epsilon: float = TIE_TOLERANCE) -> bool:
    """Is the exact value of ``state`` (for player 0) at least ``target`` (within ``epsilon``)? A null window."""
    return _value_bound(search, state, target - epsilon, target) >= target - epsilon


def at_most(search: NegamaxSearch, state: State, target: float, epsilon: float = TIE_TOLERANCE) -> bool:
    """Is the exact value of ``state`` (for player 0) at most ``target`` (within ``epsilon``)? A null window."""
    return _value_bound(search, state, target, target + epsilon) <= target + epsilon


def _value_bound(search: NegamaxSearch, state: State, alpha: float, beta: float) -> float:
    """A fail-soft search of ``state`` with the window (alpha, beta) for player 0."""
    game = search.game
    player = game.to_move(state)
    if player == TERMINAL:
        return float(game.utilities(state)[0])
    if search.sides[player] == 1:
        return search.negamax(state, player, UNLIMITED_DEPTH, alpha, beta, 0)
    return -search.negamax(state, player, UNLIMITED_DEPTH, -beta, -alpha, 0)


__all__ = ["at_least", "at_most", "mtdf", "solve_negamax"]
