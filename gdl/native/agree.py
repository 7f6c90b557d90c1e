"""Do the two back ends play the same game? Seeded random playouts in lockstep, compared state by state.

The Python back end is the reference, and the reference interpreter (:class:`gdl.interpreter.Interpreter`,
optional here) the oracle of both. Along each playout, at every state: the same state tuple, the same
player to move, the same key, the same heuristic; in a decision state the same legal moves in the same
order; in a chance state the same outcomes with the same probabilities; at the end the same utilities.
Both games then take the same (seeded random) move or outcome. ``gdl check --backend c`` runs this.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gdl.interpreter import InterpreterError
from gdl.rule_helpers import RuleRuntimeError
from gdl.steps import StepBudget
from solver.game import CHANCE, TERMINAL, Game

ORACLE_WEIGHT = 10
"""A state the reference interpreter also runs counts this many times its steps (it is that much slower)."""

RULE_ERRORS = (RuleRuntimeError, InterpreterError)
"""A rule that fails: the back ends' own error, and the reference interpreter's."""


@dataclass
class Agreement:
    """What a lockstep run compared: playouts, states, and the first disagreement (None: they agree)."""

    playouts: int = 0
    states: int = 0
    disagreement: str | None = None
    moves: list[str] = field(default_factory=list)  # the line from the initial state to the disagreement
    failure: BaseException | None = None
    """The other back end's rule error, when the disagreement is that it failed alone (a C number past 64 bits
    is one: gdl.native.game.NativeRuleError.past_64_bits)."""
    out_of_budget: str | None = None
    """``"steps"`` or ``"time"``: that budget ended the playouts before all were played."""

    @property
    def agree(self) -> bool:
        return self.disagreement is None


def agree(reference: Game[Any, Any], other: Game[Any, Any], playouts: int = 2000, seed: int = 0,
          max_plies: int = 1000, oracle: Any = None, oracle_playouts: int | None = None,
          time_budget: float | None = None, progress: Callable[[int], object] | None = None,
          steps: int | None = None) -> Agreement:
    """Play ``playouts`` seeded random games on both back ends at once (``oracle``: a third, the reference
    interpreter, compared on the player to move, the moves and the utilities, in the first
    ``oracle_playouts`` playouts, all by default: it is slow). A rule error must happen in both at the
    same point (the playout ends there). Stops at the first disagreement, or, between two playouts, once
    ``steps`` steps (:mod:`gdl.steps`: each state compared, more for big states, rule work and the
    interpreter, :data:`ORACLE_WEIGHT`) or
    ``time_budget`` CPU seconds are spent."""
    rng = random.Random(seed)
    result = Agreement()
    budget = StepBudget(steps, time_budget)
    for _ in range(playouts):
        result.out_of_budget = budget.reason()
        if result.out_of_budget is not None:
            break
        result.playouts += 1
        third = oracle if oracle_playouts is None or result.playouts <= oracle_playouts else None
        a, b = reference.initial_state(), other.initial_state()
        o = third.initial_state() if third is not None else None
        line: list[str] = []
        for _ply in range(max_plies):
            result.states += 1
            budget.add(a, 1 if third is None else ORACLE_WEIGHT)
            seen, theirs = _observe(reference, a), _observe(other, b)
            what = _differs(seen, theirs)
            if what is None and third is not None:
                what = _differs(seen, _observe(third, o), oracle=True)
            if what is not None:
                result.disagreement, result.moves = what, line
                result.failure = None if seen.error else theirs.failure
                return result
            if seen.error or not seen.choices:
                break  # the end, or a rule error in every back end
            i = rng.choices(range(len(seen.choices)), [p for _, p in seen.choices])[0]
            move = seen.choices[i][0]
            line.append(str(move))
            (a, _), (b, failure) = _step(reference, a, move), _step(other, b, move)
            if (a is None) != (b is None):
                which = "Python" if a is None else "other"
                result.disagreement, result.moves = f"a rule error in the {which} back end only", line
                result.failure = failure
                return result
            if a is None:
                break
            if third is not None:
                o, _ = _step(third, o, move)
                if o is None:
                    result.disagreement, result.moves = "a rule error in the reference interpreter only", line
                    return result
        if progress is not None:
            progress(result.playouts)
    return result


@dataclass
class _Seen:
    """What one back end says about a state (``error``: a rule failed while asking)."""

    state: tuple[Any, ...] = ()
    player: int = 0
    key: Any = None
    heuristic: tuple[float, ...] | None = None
    utilities: tuple[float, ...] | None = None
    choices: list[tuple[Any, float]] = field(default_factory=list)
    error: bool = False
    failure: BaseException | None = None


def _observe(game: Any, state: Any) -> _Seen:
    seen = _Seen(tuple(state) if isinstance(state, tuple) else ())  # (the interpreter's states are its own)
    try:
        seen.player = game.to_move(state)
        seen.key = game.key(state) if hasattr(game, "key") else None
        seen.heuristic = _floats(game.heuristic(state)) if hasattr(game, "heuristic") else None
        if seen.player == TERMINAL:
            seen.utilities = _floats(game.utilities(state))
        elif seen.player == CHANCE:
            seen.choices = [(m, round(float(p), 12)) for m, p in game.chance_outcomes(state)]
        else:
            seen.choices = [(m, 1.0) for m in game.legal_moves(state)]
    except RULE_ERRORS as error:
        seen.error, seen.failure = True, error
    return seen


def _differs(ours: _Seen, theirs: _Seen, oracle: bool = False) -> str | None:
    """How two back ends' views of one state differ (None: they do not). The oracle (the reference
    interpreter) is compared on the player to move, the moves, the outcomes and the utilities only."""
    if ours.error != theirs.error:
        return f"a rule error in the {'Python' if ours.error else 'other'} back end only"
    if ours.error:
        return None
    checks = [("the player to move differs", ours.player == theirs.player),
              ("the moves, outcomes or probabilities differ",
               [(str(m), p) for m, p in ours.choices] == [(str(m), p) for m, p in theirs.choices]),
              ("the utilities differ", ours.utilities == theirs.utilities)]
    if not oracle:
        checks = [("the states differ", ours.state == theirs.state), *checks,
                  ("the keys differ", ours.key == theirs.key),
                  ("the heuristic differs", ours.heuristic == theirs.heuristic)]
    for what, same in checks:
        if not same:
            return what
    return None


def _step(game: Any, state: Any, move: Any) -> tuple[Any, BaseException | None]:
    """The state after ``move`` (named as another back end names it); None and the error on a rule error."""
    try:
        return game.apply(state, _same_move(game, state, move)), None
    except RULE_ERRORS as error:
        return None, error


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
