"""Do the two back ends play the same game? Seeded random playouts in lockstep, compared state by state.

The Python back end is the reference, and the reference interpreter (:class:`gdl.interpreter.Interpreter`,
optional here) the oracle of both. Along each playout, at every state: the same state tuple, the same
player to move, the same key, the same heuristic; in a decision state the same legal moves in the same
order; in a chance state the same outcomes with the same probabilities; at the end the same utilities.
Both games then take the same (seeded random) move or outcome. ``gdl check --backend c`` runs this.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from solver.game import CHANCE, TERMINAL, Game


@dataclass
class Agreement:
    """What a lockstep run compared: playouts, states, and the first disagreement (None: they agree)."""

    playouts: int = 0
    states: int = 0
    disagreement: str | None = None
    moves: list[str] = field(default_factory=list)  # the line from the initial state to the disagreement

    @property
    def agree(self) -> bool:
        return self.disagreement is None


def agree(reference: Game[Any, Any], other: Game[Any, Any], playouts: int = 2000, seed: int = 0,
          max_plies: int = 1000, oracle: Any = None, oracle_playouts: int | None = None,
          time_budget: float | None = None, progress: Callable[[int], object] | None = None) -> Agreement:
    """Play ``playouts`` seeded random games on both back ends at once (``oracle``: a third, the reference
    interpreter, compared on the player to move, the moves and the utilities, in the first
    ``oracle_playouts`` playouts, all by default: it is slow). Stops at the first disagreement, or when
    ``time_budget`` CPU seconds are spent."""
    rng = random.Random(seed)
    result = Agreement()
    start = time.process_time()
    for _ in range(playouts):
        if time_budget is not None and time.process_time() - start > time_budget:
            break
        result.playouts += 1
        third = oracle if oracle_playouts is None or result.playouts <= oracle_playouts else None
        a, b = reference.initial_state(), other.initial_state()
        o = third.initial_state() if third is not None else None
        line: list[str] = []
        for _ply in range(max_plies):
            result.states += 1
            what, choices = _compare(reference, other, a, b, third, o)
            if what is not None:
                result.disagreement, result.moves = what, line
                return result
            if not choices:
                break
            i = rng.choices(range(len(choices)), [p for _, p in choices])[0]
            line.append(str(choices[i][0]))
            a = reference.apply(a, choices[i][0])
            b = other.apply(b, _same_move(other, b, choices[i][0]))
            if third is not None:
                o = third.apply(o, _same_move(third, o, choices[i][0]))
        if progress is not None:
            progress(result.playouts)
    return result


def _compare(reference: Game[Any, Any], other: Game[Any, Any], a: Any, b: Any, oracle: Any, o: Any
             ) -> tuple[str | None, list[tuple[Any, float]]]:
    """What differs between the two states (None: nothing), and the choices to continue with."""
    if tuple(a) != tuple(b):
        return "the states differ", []
    player = reference.to_move(a)
    if other.to_move(b) != player or (oracle is not None and oracle.to_move(o) != player):
        return "the player to move differs", []
    if reference.key(a) != other.key(b):
        return "the keys differ", []
    if _floats(reference.heuristic(a)) != _floats(other.heuristic(b)):
        return "the heuristic differs", []
    if player == TERMINAL:
        ours = _floats(reference.utilities(a))
        if _floats(other.utilities(b)) != ours or (oracle is not None and _floats(oracle.utilities(o)) != ours):
            return "the utilities differ", []
        return None, []
    if player == CHANCE:
        choices = [(m, float(p)) for m, p in reference.chance_outcomes(a)]
        theirs = [(str(m), float(p)) for m, p in other.chance_outcomes(b)]
        if [(str(m), p) for m, p in choices] != theirs:
            return "the chance outcomes or their probabilities differ", []
        return None, choices
    moves = list(reference.legal_moves(a))
    names = [str(m) for m in moves]
    if [str(m) for m in other.legal_moves(b)] != names or (
            oracle is not None and [str(m) for m in oracle.legal_moves(o)] != names):
        return "the legal moves differ", []
    return None, [(m, 1.0) for m in moves]


def _same_move(game: Any, state: Any, move: Any) -> Any:
    """``game``'s own move named as ``move`` (moves are their names)."""
    player = game.to_move(state)
    options = [m for m, _ in game.chance_outcomes(state)] if player == CHANCE else game.legal_moves(state)
    for option in options:
        if str(option) == str(move):
            return option
    return move


def _floats(values: Any) -> tuple[float, ...] | None:
    return None if values is None else tuple(round(float(v), 12) for v in values)
