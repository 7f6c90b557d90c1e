"""The checks of one state, shared by the random playouts and the exhaustive exploration of ``gdl check``.

=================  ==========================================================
code               problem
=================  ==========================================================
runtime-error      a rule raised while the game ran (index out of range, ...)
dead-end           a state that is neither terminal nor chance has no legal move
no-chance          a chance state with no outcome
bad-probability    chance probabilities that are negative or do not sum to 1
bad-utility        a terminal state whose utilities are not one number per
                   player, or fall outside the declared bounds
not-zero-sum       a game declared zero-sum whose utilities do not sum to 0
duplicate-move     two legal moves with the same name (names must be unique)
bad-turn           ``to_move`` returned something that is not a player index
=================  ==========================================================

A check that fails raises :class:`ProblemFound` with its diagnostic: a playout ends there, and the
exploration does not expand the state.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Sequence
from typing import Any

from gdl.diagnostics import Diagnostic, Span, source_lines
from gdl.runtime import CompiledGame
from solver.game import SIMULTANEOUS, Move
from solver.limits import SearchStopped

PROBABILITY_TOLERANCE = 1e-9

OUTCOME_LISTS_KEPT = 256
"""Chance outcome lists remembered as checked (a game's constant distributions are a few such lists)."""

DEAD_END = "dead-end"
"""A decision state, not terminal, with no legal move (the code the solvers' dead-end errors use too)."""


class ProblemFound(Exception):
    """A problem found in a state (ends a playout there; the exploration does not expand the state)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def problem_key(diagnostic: Diagnostic) -> tuple[object, ...]:
    """What makes two diagnostics of the dynamic checks the same problem.

    The rule that fails (a runtime error at one place is one problem, whatever value it
    met); for a dead end also who is stuck, which the message says.
    """
    if diagnostic.code == DEAD_END:
        return (diagnostic.code, diagnostic.span, diagnostic.message)
    return (diagnostic.code, diagnostic.span)


def _line_of(source: str, pattern: str) -> Span:
    """The span of the first line matching ``pattern`` (a regex), or line 1: a place for whole-game problems."""
    regex = re.compile(pattern)
    for number, line in enumerate(source_lines(source), 1):
        match = regex.match(line)
        if match:
            stripped = line.rstrip()
            return Span(number, 1, number, max(2, len(stripped) + 1))
    return Span(1, 1, 1, 2)



class StateChecks:
    """The checks of one state that the random playouts and the exhaustive exploration both run.

    The ``_check_*`` methods and :meth:`_decision_moves` raise :class:`ProblemFound` with the problem.
    """

    def __init__(self, game: CompiledGame) -> None:
        self.game = game
        source = game.source
        self.span_moves = _line_of(source, r"\s*move\b")
        self.span_ends = _line_of(source, r"\s*(win|lose|draw|terminal)\b")
        self.span_utility = _line_of(source, r"\s*(utility|win|lose|draw)\b")
        self.span_zero_sum = _line_of(source, r"\s*zero_sum\b")
        self._checked_outcomes: dict[int, object] = {}

    def _diag(self, code: str, message: str, span: Span, hint: str | None = None,
              severity: str = "error") -> Diagnostic:
        return Diagnostic(severity, code, message, span, self.game.filename, hint)

    def _explain(self, error: BaseException) -> Diagnostic:
        """The diagnostic of an exception that running the rules raised."""
        if isinstance(error, SearchStopped):  # not a problem of the rules: the time budget ran out inside them
            raise error
        if type(error).__name__ == "_NoUtility":
            return self._diag("bad-utility", "the game ended, but no rule gives the players a utility",
                              self.span_ends, "end the game with `win`, `lose` or `draw` rules, "
                              "or add a `utility p: ...` line")
        return self.game.explain(error)

    def _decision_moves(self, state: tuple[Any, ...], player: object) -> Sequence[Move]:
        """The legal moves of a decision state: a real player to move, some move, distinct names."""
        game = self.game
        if player == SIMULTANEOUS and game.simultaneous:  # every player must have a move, each named once
            for who in range(len(game.players)):
                self._decision_moves_of(state, game.legal_moves(state, who), who)
            return game.legal_moves(state)  # the joint moves
        if not isinstance(player, int) or not 0 <= player < len(game.players):
            raise ProblemFound(self._diag("bad-turn", f"the turn is {player!r}, not a player", Span(1, 1, 1, 2)))
        return self._decision_moves_of(state, game.legal_moves(state), player)

    def _decision_moves_of(self, state: tuple[Any, ...], moves: Sequence[Move], player: int) -> Sequence[Move]:
        game = self.game
        if not moves:
            raise ProblemFound(self._diag(
                DEAD_END, f"{game.players[player]} is to move but has no legal move, and the game is not over",
                self.span_moves,
                "end the game when the mover is stuck (`lose turn when no_moves`, `draw when no_moves`), "
                "or add a pass move (`move pass otherwise`)"))
        names = [str(m) for m in moves]
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise ProblemFound(self._diag("duplicate-move", f"several legal moves are named {twice[0]!r}",
                                    self.span_moves, "give each move distinct parameters or an explicit name"))
        return moves

    def _check_outcomes(self, outcomes: Sequence[tuple[object, float]]) -> None:
        if not outcomes:
            raise ProblemFound(self._diag("no-chance", "a chance state has no outcome", Span(1, 1, 1, 2)))
        if self._checked_outcomes.get(id(outcomes)) is outcomes:
            return  # a constant distribution (a die) is one list, met in every chance state that rolls it
        probabilities = [p for _, p in outcomes]
        bad = [p for p in probabilities if not _is_number(p) or p < 0]
        if bad:
            raise ProblemFound(self._diag("bad-probability", f"a chance outcome has probability {bad[0]!r}",
                                    Span(1, 1, 1, 2)))
        total = math.fsum(probabilities)
        if abs(total - 1) > PROBABILITY_TOLERANCE:
            shown = ", ".join(f"{o}: {p:.6g}" for o, p in outcomes[:8])
            raise ProblemFound(self._diag("bad-probability", f"the chance probabilities add up to {total:.12g}, not 1",
                                    Span(1, 1, 1, 2), f"outcomes: {shown}"))
        if len(self._checked_outcomes) < OUTCOME_LISTS_KEPT:  # kept alive here, so an id is not reused
            self._checked_outcomes[id(outcomes)] = outcomes

    def _check_terminal(self, state: tuple[Any, ...]) -> None:
        game = self.game
        utilities = game.utilities(state)
        n = len(game.players)
        ok = isinstance(utilities, (tuple, list)) and len(utilities) == n and all(map(_is_number, utilities))
        if not ok:
            raise ProblemFound(self._diag("bad-utility", f"a terminal state has utilities {utilities!r}, "
                                    f"not one number per player ({n})", self.span_utility))
        bounds = game.utility_bounds
        if bounds is not None and any(not bounds[0] - 1e-9 <= u <= bounds[1] + 1e-9 for u in utilities):
            raise ProblemFound(self._diag("bad-utility", f"utilities {_show(utilities)} fall outside the declared "
                                    f"bounds {float(bounds[0]):g}..{float(bounds[1]):g}", self.span_utility,
                                    "widen the bounds of the `utility` line: solvers prune with them"))
        if game.zero_sum and abs(math.fsum(utilities)) > 1e-9:
            raise ProblemFound(self._diag("not-zero-sum", f"the game is declared zero-sum, but the utilities "
                                    f"{_show(utilities)} add up to {math.fsum(utilities):g}", self.span_zero_sum,
                                    "remove `zero_sum`, or make the utilities sum to 0"))


def _show(utilities: Sequence[float]) -> str:
    return "(" + ", ".join(f"{float(u):g}" for u in utilities) + ")"


def _is_number(value: object) -> bool:
    """A finite real number: an int, a float or a fraction (the docs allow fractions), not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
