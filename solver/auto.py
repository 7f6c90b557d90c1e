"""Which algorithm fits a game: the one home of that decision (the exact solver, the agents and the CLI ask here).

The exact solver (:func:`solver.exact.solve`, ``method="auto"``):

========================================  =====================================================
game                                      method
========================================  =====================================================
deterministic, two-player zero-sum        ``alphabeta``: MTD(f) over negamax with an unbounded
                                          transposition table (:mod:`solver.exact_alphabeta`);
                                          if it meets a cycle or the game is too long to
                                          recurse, the graph methods below
any game whose state graph is acyclic     ``backward``: backward induction (:mod:`solver.backward`)
deterministic two-player zero-sum,        ``retrograde``: retrograde analysis (:mod:`solver.retrograde`)
with cycles
chance nodes or N players, with cycles    ``value_iteration`` (:mod:`solver.value_iteration`)
========================================  =====================================================

A heuristic search (a depth or time limit, and the guess after a stopped exact solve):
expectimax with chance nodes, alpha-beta for a deterministic two-player zero-sum game,
max^n (``minimax``) otherwise. A puzzle (one player, no chance) is searched for its shortest
solution (:mod:`solver.shortest_path`).

Algorithm names are :class:`Algorithm` members; being ``str`` subclasses they compare equal to
their names (``Algorithm.ALPHABETA == "alphabeta"``) and print and serialise as them.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from solver.game import Game


class Algorithm(str, Enum):
    """The name of an algorithm, as results report it (``SearchResult.algorithm``) and the CLI takes it."""

    AUTO = "auto"
    """Let this module choose."""
    EXACT = "exact"
    """The exact solver, choosing its method (:func:`exact_method`)."""
    ALPHABETA = "alphabeta"
    PARANOID = "paranoid"
    BACKWARD = "backward"
    RETROGRADE = "retrograde"
    VALUE_ITERATION = "value_iteration"
    EXPECTIMAX = "expectimax"
    MINIMAX = "minimax"
    MCTS = "mcts"
    PUZZLE = "puzzle"
    ASTAR = "astar"
    BFS = "bfs"

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:  # shown as the name it stands for, as results showed before there was an enum
        return repr(self.value)


EXACT_METHODS = (Algorithm.ALPHABETA, Algorithm.BACKWARD, Algorithm.RETROGRADE, Algorithm.VALUE_ITERATION)
"""The methods of the exact solver."""
HEURISTIC_SEARCHES = (Algorithm.ALPHABETA, Algorithm.EXPECTIMAX, Algorithm.MINIMAX)
"""The depth-limited searches (a heuristic value at the horizon)."""
PUZZLE_SEARCHES = (Algorithm.ASTAR, Algorithm.BFS, Algorithm.PUZZLE)
"""The shortest-path searches of a puzzle (and the name that asks for either)."""


# ------------------------------------------------------------------ what a game is


def check_players(game: Game[Any, Any], what: str) -> None:
    """Every search needs at least one player; only :mod:`solver.simultaneous` solves simultaneous moves.

    :raises ValueError: naming ``what`` cannot search the game.
    """
    if not game.players:
        raise ValueError(f"{what} needs a game with at least one player; {game.name} has none")
    if game.simultaneous:
        raise ValueError(f"{what} cannot search {game.name}: its players move simultaneously "
                         "(use the simultaneous-move solver)")


def is_two_player_zero_sum(game: Game[Any, Any]) -> bool:
    return len(game.players) == 2 and game.zero_sum


def is_deterministic_duel(game: Game[Any, Any]) -> bool:
    """Two players, zero-sum, no chance: what alpha-beta, MTD(f) and retrograde analysis need."""
    return is_two_player_zero_sum(game) and not game.has_chance


def is_puzzle(game: Game[Any, Any]) -> bool:
    """One player and no chance: a shortest-path search finds its best solution."""
    return len(game.players) == 1 and not game.has_chance


# ------------------------------------------------------------------ choices


def search_first(game: Game[Any, Any]) -> bool:
    """Whether the exact solver tries alpha-beta (MTD(f)) before exploring the whole state graph."""
    return is_deterministic_duel(game)


def exact_method(game: Game[Any, Any], acyclic: bool) -> Algorithm:
    """The graph method of the exact solver, once the graph is explored and known to be acyclic or not."""
    if acyclic:
        return Algorithm.BACKWARD
    return Algorithm.RETROGRADE if is_deterministic_duel(game) else Algorithm.VALUE_ITERATION


def check_exact_method(game: Game[Any, Any], method: str) -> Algorithm:
    """``method`` (a name, or ``auto``) as an :class:`Algorithm`, if the exact solver has it and it fits the game.

    :raises ValueError: an unknown method, or alpha-beta or retrograde analysis for a game that is not a
        deterministic two-player zero-sum game.
    """
    names = (Algorithm.AUTO, *EXACT_METHODS)
    if method not in names:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(names)}")
    chosen = Algorithm(method)
    if chosen in (Algorithm.ALPHABETA, Algorithm.RETROGRADE) and not is_deterministic_duel(game):
        raise ValueError(f"{chosen} needs a deterministic two-player zero-sum game; {game.name} is not")
    return chosen


def heuristic_search(game: Game[Any, Any]) -> Algorithm:
    """The depth-limited search that fits the game: expectimax with chance, alpha-beta for a duel, else max^n.

    Also the fallback after a stopped exact solve (the guess of a move, :func:`solver.exact.solve`).
    """
    if game.has_chance:
        return Algorithm.EXPECTIMAX
    return Algorithm.ALPHABETA if is_two_player_zero_sum(game) else Algorithm.MINIMAX


def fallback(game: Game[Any, Any], state: Any = None) -> Algorithm:
    """The search that guesses a move when an exact solve stopped before it learned anything about ``state``.

    MCTS for a game without a heuristic (``game.heuristic(state)`` is None): a depth-limited search of
    such a game sees nothing short of the end, every move scores the horizon's 0 and it would play the
    first legal move, where random playouts (Kocsis & Szepesvári 2006) still tell a move that wins or
    blocks from one that does not. Otherwise the depth-limited search that fits (:func:`heuristic_search`).
    """
    if state is not None and game.to_move(state) >= 0 and game.heuristic(state) is None:
        return Algorithm.MCTS
    return heuristic_search(game)


def choose(game: Game[Any, Any], *, heuristic: bool = False, depth: bool = False) -> Algorithm:
    """The algorithm for ``game``: puzzle search for one player (unless ``depth``), the exact solver, or
    (``heuristic``: a depth or time limit) the depth-limited search that fits it (:func:`heuristic_search`)."""
    if is_puzzle(game) and not depth:
        return Algorithm.PUZZLE  # shortest-path search takes time and node limits itself, cycles and all
    if heuristic:
        return heuristic_search(game)
    return Algorithm.EXACT


__all__ = ["EXACT_METHODS", "HEURISTIC_SEARCHES", "PUZZLE_SEARCHES", "Algorithm", "check_exact_method",
           "check_players", "choose", "exact_method", "fallback", "heuristic_search", "is_deterministic_duel",
           "is_puzzle", "is_two_player_zero_sum", "search_first"]
