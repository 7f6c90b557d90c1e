"""Values in words: what kind of answer a search gave, win probabilities, distances to the end.

Shared by ``solve`` (the value line and the move table), ``play`` (``hint``) and ``info``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from gdl.lines import format_number
from gdl.runtime import CompiledGame
from solver.game import CHANCE


def bounds_json(bounds: Sequence[float] | None) -> list[float | None] | None:
    """The proven interval of player 0's value as JSON (an infinite end is null)."""
    if bounds is None:
        return None
    return [float(b) + 0.0 if math.isfinite(b) else None for b in bounds]


def value_dict(game: CompiledGame, value: Sequence[float] | None) -> dict[str, float] | None:
    """One number per player, or None when there is none or one is not finite (never Infinity/NaN in JSON)."""
    if value is None:
        return None
    numbers = [float(v) + 0.0 for v in value]
    if not all(math.isfinite(v) for v in numbers):
        return None
    return dict(zip(game.players, numbers, strict=False))


def value_kind(game: CompiledGame, result: Any) -> str | None:
    """What the root value is: ``proven``, ``bounds`` (only an interval is proven), ``estimated``, or None.

    None when the search learned nothing it could stand behind: stopped (or interrupted)
    before it found a move, or a depth-limited search of a game without a heuristic that
    proved nothing (its value would be the horizon's 0, a guess that means nothing in a game
    without draws).
    """
    bounds = result.bounds
    if result.exact or (bounds is not None and bounds[0] == bounds[1]):
        return "proven"
    if bounds is not None:
        return "bounds"
    if not result.best_moves:
        return None
    if result.algorithm not in ("mcts", "value_iteration", "puzzle", "astar", "bfs") and not game.has_heuristic:
        return None  # a depth-limited search (or the guess of a stopped solve) with no heuristic at its horizon
    return "estimated"


def plies_json(plies: float | None) -> int | float | None:
    """The distance to the end as JSON: a whole number of plies, an expected number, or null (not known,
    or endless play)."""
    if plies is None or not math.isfinite(plies):
        return None
    return int(plies) if float(plies).is_integer() else round(float(plies), 6)


def plies_text(game: CompiledGame, value: Sequence[float], plies: float | None) -> str | None:
    """``X wins in 7 plies``, ``draw (9 plies)``, ``solved in 2 moves``: the distance to the end in words."""
    if plies is None:
        return None
    if len(game.players) == 1 and not game.has_chance:
        return f"solved in {_count(plies, 'move')}" if math.isfinite(plies) else None
    if not math.isfinite(plies):
        return "the game never ends under optimal play (endless play is worth 0)"
    if game.has_chance:
        return f"expected length under optimal play: {format_number(plies)} plies"
    if len(game.players) == 2 and game.zero_sum:
        if abs(value[0]) <= 1e-9:
            return f"draw ({_count(plies, 'ply')})"
        return f"{game.players[0 if value[0] > 0 else 1]} wins in {_count(plies, 'ply')}"
    return f"the game lasts {_count(plies, 'ply')} under optimal play"


def plies_cell(distance: float | None) -> str:
    if distance is None:
        return "?"
    return format_number(distance) if math.isfinite(distance) else "endless"


def _count(n: float, word: str) -> str:
    plural = "plies" if word == "ply" else word + "s"
    return f"{int(n)} {word if n == 1 else plural}"


def verdict(game: CompiledGame, value: Sequence[float]) -> str:
    if len(game.players) == 2 and game.zero_sum:
        if abs(value[0]) <= 1e-9:
            return "a draw under perfect play"
        leader = 0 if value[0] > 0 else 1
        if game.has_chance:
            return f"{game.players[leader]} is favoured"
        return f"{game.players[leader]} wins under perfect play"
    if len(game.players) == 1:
        return "the best reachable utility"
    return "each player's utility under optimal play"


def reads_as_probability(game: CompiledGame) -> bool:
    """Two players, chance, and every end a win for one and a loss for the other (a value is then 2p - 1).

    The expected utility, with a win 1 and a loss -1, is ``p - (1 - p)`` for the probability ``p`` of winning:
    such values are shown as ``p``. (Without chance a proven value is a sure win or loss, said as such.)
    """
    return game.win_loss and game.has_chance and len(game.players) == 2


def win_probability(value: float) -> float:
    """The probability of winning behind a win/loss value ``2p - 1``."""
    return (1.0 + float(value)) / 2.0


def probability_text(game: CompiledGame, value: Sequence[float]) -> str:
    """``A wins with probability 0.709424, B with 0.290576``."""
    first, second = (format_number(win_probability(v)) for v in value)
    return f"{game.players[0]} wins with probability {first}, {game.players[1]} with {second}"


def decisions_before_chance(game: CompiledGame, state: Any, line: Sequence[Any]) -> tuple[list[str], str | None]:
    """The principal variation up to its first chance node, and that node's outcomes in brief (``d=1 ... d=6``).

    An exact solver follows one outcome of each chance node, an arbitrary one: the moves after it are no more
    the line of play than those after any other outcome, so they are left out.
    """
    moves: list[str] = []
    for move in line:
        if game.to_move(state) == CHANCE:
            outcomes = [str(o) for o, _ in game.chance_outcomes(state)]
            brief = ", ".join(outcomes) if len(outcomes) <= 3 else f"{outcomes[0]} ... {outcomes[-1]}"
            return moves, brief
        moves.append(str(move))
        state = game.apply(state, move)
    return moves, None
