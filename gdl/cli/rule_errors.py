"""Rule-file mistakes found while a command runs, as the diagnostics ``gdl check`` prints.

A command that runs the rules (``solve``, ``play``, ``match``, ``info``) may meet
two kinds of bug in them: a *dead end* (a state where the player to move has no
legal move and the game is not over; the solvers raise
:class:`solver.game.DeadEndError`) and a *run-time rule error* (a value outside
its domain, an index out of range, a division by zero: a
:class:`gdl.runtime.RuleRuntimeError` or a Python error raised inside the
generated code). :func:`rule_errors` turns either into a :class:`gdl.cli.errors.Problem`
holding one diagnostic (``file:line:col``, caret, the moves that reach it), so
the command exits 1 without a traceback.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from gdl.check import MOVES_NOTE, join_moves
from gdl.check.states import DEAD_END
from gdl.cli.errors import Problem
from gdl.diagnostics import Diagnostic, Span
from gdl.runtime import GENERATED_FILENAME, CompiledGame, RuleRuntimeError
from gdl.steps import StepBudget
from solver.game import CHANCE, TERMINAL, DeadEndError, dead_end
from solver.limits import SearchStopped

REPRODUCE_STATES = 200_000
"""Most states the search for the shortest line to a run-time error visits ..."""
REPRODUCE_STEPS = 2_000_000
"""... and most steps it takes (:mod:`gdl.steps`: each state expanded and each successor made, more for big states
and rule work; some seconds of CPU): counted, so that a busy machine reports the same line."""

PYTHON_INSTEAD: ContextVar[bool] = ContextVar("gdl_python_instead", default=False)
"""Set by a command that can run its work again on the Python back end (``gdl solve --backend auto``): a number
past 64 bits in the C rules then raises :class:`PythonInstead` instead of a diagnostic."""


class PythonInstead(Exception):
    """The C rules met a number past 64 bits, which the Python back end computes: the work is to be done again on
    ``python`` (the C back end's reference game); ``reason`` says where, in one line."""

    def __init__(self, python: CompiledGame, reason: str) -> None:
        super().__init__(reason)
        self.python, self.reason = python, reason


DEAD_END_HINT = ("end the game when the mover is stuck (`lose turn when no_moves`, `draw when no_moves`), "
                 "or add a pass move (`move pass otherwise`)")


def is_rule_error(error: BaseException) -> bool:
    """A run-time rule error: raised by the rules' helpers or inside the code generated from them."""
    if isinstance(error, RuleRuntimeError):
        return True
    if not isinstance(error, Exception) or isinstance(error, DeadEndError):
        return False
    import traceback  # (something failed: not needed on the way there)

    return any(frame.f_code.co_filename == GENERATED_FILENAME for frame, _ in traceback.walk_tb(error.__traceback__))


@contextmanager
def rule_errors(game: CompiledGame, start: Any = None, prefix: Sequence[str] = (),
                line: Callable[[], Sequence[str]] | None = None) -> Iterator[None]:
    """Turn a dead end or a run-time rule error raised inside into a :class:`Problem` (exit status 1).

    ``start`` is the state the work began from (default: the initial state) and ``prefix``
    the moves that reached it. When ``line()`` is given it returns the moves played from
    ``start`` when the error was raised (``play``): they reproduce it. Otherwise the shortest
    line that meets the same problem is searched for, as ``gdl check`` reports it (the line a
    search happened on depends on its move order, and differs between the back ends): to a dead
    end from ``start`` (the search's own line if none is found), to a run-time error from the
    initial state.
    """
    try:
        yield
    except DeadEndError as error:
        moves = [*prefix, *map(str, error.moves)]
        diagnostic = dead_end_diagnostic(game, error)
        if line is None:
            shortest = shortest_line(game, diagnostic, start=start)
            if shortest is not None:
                moves = [*prefix, *shortest]
        raise problem(game, with_moves(diagnostic, moves), moves) from None
    except Exception as error:
        if isinstance(error, Problem) or not is_rule_error(error):
            raise
        diagnostic = game.explain(error)
        python = _reference(game)
        if python is not None and PYTHON_INSTEAD.get() and getattr(error, "past_64_bits", False):
            where = f"{diagnostic.file}:{diagnostic.span.line}:{diagnostic.span.column}"
            raise PythonInstead(python, f"the C back end met a number past 64 bits at {where}, which it does "
                                "not compute") from None
        if line is not None:
            found: list[str] | None = [*prefix, *line()]
        else:
            found = shortest_line(game, diagnostic)
        if found is not None:
            diagnostic = reference_diagnostic(game, found, diagnostic)
        raise problem(game, with_moves(diagnostic, found), found) from None


def problem(game: CompiledGame, diagnostic: Diagnostic, moves: Sequence[str] | None) -> Problem:
    return Problem("", [diagnostic], game.source, moves)


def dead_end_diagnostic(game: CompiledGame, error: DeadEndError) -> Diagnostic:
    """The ``dead-end`` diagnostic: who is to move, at the game's first move rule (the moves that reach it: a note
    :func:`with_moves` adds)."""
    source = game.source
    span = _first_line(source, ("move ", "move\t")) if error.player != CHANCE else _first_line(source, ("chance",))
    return Diagnostic("error", DEAD_END, error.message, span, game.filename,
                      DEAD_END_HINT if error.player != CHANCE else None)


def _reference(game: CompiledGame) -> CompiledGame | None:
    """The Python back end a C back end's game runs beside (gdl.native.game.NativeGame.python); None for Python's."""
    return None if game.backend == "python" else game.python


def reference_diagnostic(game: CompiledGame, moves: Sequence[str], diagnostic: Diagnostic) -> Diagnostic:
    """The Python back end's own diagnostic of the run-time error that ``moves`` reach on the C back end, when the
    Python rules fail at the same place there (they name the values: "value 4 is outside the variable's domain
    0..3", where C knows only its kind); else ``diagnostic`` (64-bit overflow fails in C alone)."""
    python = _reference(game)
    if python is None:
        return diagnostic
    try:
        state = python.initial_state()
        for name in moves:
            chosen = {str(m): m for m in _moves(python, state)}.get(name)
            if chosen is None:
                return diagnostic  # (not the same game: keep C's)
            state = python.apply(state, chosen)
        _moves(python, state)
    except Exception as error:
        if not is_rule_error(error):
            return diagnostic
        ours = python.explain(error)
        if (ours.span.line, ours.span.column) == (diagnostic.span.line, diagnostic.span.column):
            return ours
    return diagnostic


def with_moves(diagnostic: Diagnostic, moves: Sequence[str] | None) -> Diagnostic:
    """``diagnostic`` with a note of the moves that reach it (or that they are not known)."""
    if moves is None:
        note = ("found during the search; the moves that reach it were not found (run `gdl check "
                f"{diagnostic.file}` to find them)")
    elif moves:
        note = MOVES_NOTE + join_moves(moves)
    else:
        note = "it happens in the initial state"
    return Diagnostic(diagnostic.severity, diagnostic.code, diagnostic.message, diagnostic.span, diagnostic.file,
                      diagnostic.hint, (*diagnostic.notes, note))


def _first_line(source: str, starts: tuple[str, ...]) -> Span:
    for number, text in enumerate(source.split("\n"), 1):
        if text.lstrip().startswith(starts):
            return Span(number, 1, number, max(2, len(text.rstrip()) + 1))
    return Span(1, 1, 1, 2)


def shortest_line(game: CompiledGame, target: Diagnostic, states: int = REPRODUCE_STATES,
                  steps: int = REPRODUCE_STEPS, start: Any = None) -> list[str] | None:
    """The shortest move sequence from ``start`` (default: the initial state) after which running the rules
    raises ``target``, or which reaches a dead end of ``target``'s (a ``dead-end`` diagnostic: the same player
    stuck, as ``gdl check`` finds it).

    Breadth-first over the states, running every rule a command may run on each (whose turn,
    legal moves or chance outcomes, each move, utilities, heuristic); None if the error is not
    met within ``states`` states and ``steps`` steps.
    """
    if start is None:
        try:
            start = game.initial_state()
        except Exception as error:  # the same error, before any move
            return [] if _same(game, error, (target.message, target.span)) else None
    budget = StepBudget(steps)
    try:
        with budget.rules():  # one rule evaluation that outlasts the steps is stopped too
            return _breadth_first(game, target, start, states, budget)
    except SearchStopped:
        return None


def _breadth_first(game: CompiledGame, target: Diagnostic, start: Any, states: int,
                   budget: StepBudget) -> list[str] | None:
    """:func:`shortest_line`'s search from ``start``, within ``states`` and ``budget``."""
    from solver.shortest_path import line_to  # (only when a rule failed)

    wanted = (target.message, target.span)
    parents: dict[Any, tuple[Any, str] | None] = {game.key(start): None}
    queue = deque([start])
    while queue and len(parents) <= states and budget.reason() is None:
        state = queue.popleft()
        here = game.key(state)
        try:
            moves = _moves(game, state)
        except SearchStopped:
            raise
        except Exception as error:  # a rule failed: is it the one we look for?
            if _same(game, error, wanted):
                return list(line_to(parents, here))
            continue
        if not moves and target.code == DEAD_END and _stuck(game, state) == target.message:
            return list(line_to(parents, here))
        budget.add(state, 1 + len(moves))
        for move in moves:
            try:
                child = game.apply(state, move)
            except SearchStopped:
                raise
            except Exception as error:  # the move itself fails
                if _same(game, error, wanted):
                    return [*line_to(parents, here), str(move)]
                continue
            k = game.key(child)
            if k not in parents:
                parents[k] = (here, str(move))
                queue.append(child)
    return None


def _moves(game: CompiledGame, state: Any) -> list[Any]:
    """The moves (or outcomes) of ``state``, after running every rule a command may run on it."""
    player = game.to_move(state)
    if player == TERMINAL:
        game.utilities(state)
        return []
    if player == CHANCE:
        return [outcome for outcome, _ in game.chance_outcomes(state)]
    game.heuristic(state)
    return list(game.legal_moves(state))


def _stuck(game: CompiledGame, state: Any) -> str | None:
    """What the solvers say of ``state`` when it is a dead end (no move, not over), else None."""
    player = game.to_move(state)
    return None if player == TERMINAL else dead_end(game, state, player).message


def _same(game: CompiledGame, error: BaseException, wanted: tuple[str, Span]) -> bool:
    if not is_rule_error(error) and not isinstance(error, RecursionError):
        return False
    diagnostic = game.explain(error)
    return (diagnostic.message, diagnostic.span) == wanted

