"""Checks of a rule file: the static ones of the compiler, then the rules run on every state or at random.

Static checks come from compiling the file in checked mode (every index and
assignment range-checked). Dynamic checks run that checked game and report
what only running the rules can show:

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
never-ends         (explored games) an end rule that ends the game in no
                   reachable state, a warning
never-legal        (explored games) a move legal in no reachable state, a warning
endless-cycle      (explored games) a reachable cycle that never ends the game,
                   an info: the solvers score endless play 0
no-end             (sampled games) a playout did not end within ``max_plies``
                   plies, a warning: either a state repeated (the game can
                   cycle; nothing for a one-player puzzle that cycles, which
                   search solves), or the game is longer than ``max_plies``
                   (its first plies are checked)
=================  ==========================================================

Every dynamic diagnostic carries the move sequence that reproduces it, names
joined by commas (``gdl solve FILE --moves ...`` replays it), as a note.

First, :class:`Explorer` visits every reachable state breadth-first, if there
are at most ``max_states`` and the search fits ``explore_time`` CPU seconds
(``gdl check`` gives each file ``DEFAULT_EXPLORE_TIME``). Then the findings
are certain and each comes with the shortest move sequence that reaches it.
Otherwise the game is *sampled*: random playouts, as follows, besides what
the exploration found before it stopped.

How much random play a file gets: at most ``playouts`` games of at most
``max_plies`` plies each, and, with a ``time_budget`` (``gdl check`` gives each
file ``DEFAULT_TIME_BUDGET`` seconds of CPU time, so that a busy machine plays
as much as an idle one), no more once the budget is spent, except
that the first ``MIN_PLAYOUTS`` playouts always run (or fewer, when one of them
reaches ``max_plies``). A playout cut by the budget is abandoned, not reported.
With the same seed, a larger budget plays the same games and then more.

>>> from gdl.check import check_source
>>> report = check_source(open("games/tictactoe.gdl").read(), "tictactoe.gdl", explore_time=None)
>>> report.errors, report.warnings, report.complete, report.explored, report.playouts
(0, 0, True, 765, 0)
>>> report = check_source(open("games/tictactoe.gdl").read(), "tictactoe.gdl", playouts=50, max_states=0)
>>> report.errors, report.warnings, report.complete, report.playouts
(0, 0, False, 50)
"""

from __future__ import annotations

import contextlib
import math
import numbers
import random
import re
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gdl import ast
from gdl.compiler import compile_rules
from gdl.diagnostics import Diagnostic, ParameterError, RuleFileError, Span, source_lines
from gdl.loader import read_source
from gdl.parser import parse
from gdl.runtime import CompiledGame, explain_runtime_error, rule_budget
from solver.game import CHANCE, TERMINAL
from solver.limits import SearchStopped
from solver.value_iteration import components

MOVES_NOTE = "reproduce with the moves: "
"""Prefix of the note that lists a reproducing move sequence."""

PROBABILITY_TOLERANCE = 1e-9

DEFAULT_PLAYOUTS = 200
"""Most random playouts per file."""

DEFAULT_MAX_PLIES = 10_000
"""A playout that reaches this many plies stops there (``no-end``)."""

DEFAULT_TIME_BUDGET = 0.04
"""Seconds of random play per file for ``gdl check`` (``--time``); the library default is no budget."""

MIN_PLAYOUTS = 10
"""Playouts played whatever the time budget (unless one reaches ``max_plies`` first)."""

ENDLESS_STOP = 3
"""Playouts stop after this many reach ``max_plies``: endless games are slow to play out; three are evidence."""

DEFAULT_MAX_STATES = 200_000
"""The exhaustive pass explores every reachable state if there are at most this many (``--max-states``)."""

DEFAULT_EXPLORE_TIME = 0.25
"""CPU seconds of exhaustive exploration per file (``--explore-time``); a game that needs more is sampled."""

CHECK_EVERY = 256
"""The exploration reads the clock every this many states (after ``FIRST_CHECK``, then twice as many, ...)."""
FIRST_CHECK = 64

MORE_PLACES = 2
"""Besides the nearest dead end, a ``dead-end`` diagnostic lists the moves to this many more."""

OUTCOME_LISTS_KEPT = 256
"""Chance outcome lists remembered as checked (a game's constant distributions are a few such lists)."""

LOOP_SEARCH_FACTOR = 8
"""The moves around an endless cycle are searched among at most this many states per state of the cycle."""

DEAD_END = "dead-end"
"""A decision state, not terminal, with no legal move (the code the solvers' dead-end errors use too)."""
ENDLESS_CYCLE = "endless-cycle"
NEVER_ENDS = "never-ends"
NEVER_LEGAL = "never-legal"


@dataclass
class CheckReport:
    """What checking one rule file found."""

    file: str
    source: str | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    playouts: int = 0
    plies: int = 0
    out_of_time: bool = False
    """The time budget stopped the playouts before ``playouts`` were played."""
    explored: int = 0
    """States the exhaustive pass found (all reachable states when ``complete``)."""
    complete: bool = False
    """The exhaustive pass explored every reachable state: the dynamic checks are proofs, no playout ran."""
    stopped_by: str | None = None
    """Why the exhaustive pass stopped before the end: ``"states"`` or ``"time"`` (None: it did not)."""

    @property
    def errors(self) -> int:
        return sum(d.is_error for d in self.diagnostics)

    @property
    def warnings(self) -> int:
        return sum(d.severity == "warning" for d in self.diagnostics)

    @property
    def infos(self) -> int:
        return sum(d.severity == "info" for d in self.diagnostics)


def join_moves(names: Sequence[str]) -> str:
    """Move names joined by commas: ``place(a1),place(b2)`` (see :func:`split_moves`)."""
    return ",".join(names)


def split_moves(text: str) -> list[str]:
    """Split ``take(0,3),take(1,2)`` into move names at commas outside brackets.

    >>> split_moves("take(0,3), take(1,2),roll")
    ['take(0,3)', 'take(1,2)', 'roll']
    >>> split_moves("")
    []
    """
    names: list[str] = []
    depth = 0
    current: list[str] = []
    for char in text:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        if char == "," and depth == 0:
            names.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    names.append("".join(current).strip())
    return [name for name in names if name]


def moves_note(names: Sequence[str]) -> str:
    if not names:
        return "it happens in the initial state"
    return MOVES_NOTE + join_moves(names)


def _line_of(source: str, pattern: str) -> Span:
    """The span of the first line matching ``pattern`` (a regex), or line 1: a place for whole-game problems."""
    regex = re.compile(pattern)
    for number, line in enumerate(source_lines(source), 1):
        match = regex.match(line)
        if match:
            stripped = line.rstrip()
            return Span(number, 1, number, max(2, len(stripped) + 1))
    return Span(1, 1, 1, 2)


# ------------------------------------------------------------------ static


def compile_checked(source: str, filename: str,
                    params: dict[str, str] | None = None) -> tuple[CompiledGame | None, list[Diagnostic]]:
    """Compile in checked mode: the game (None on errors) and every static diagnostic.

    A rule that fails while the initial state is built (``setup``) becomes a
    ``runtime-error`` diagnostic rather than an exception.

    :raises ParameterError: a parameter override is unknown or invalid.
    """
    try:
        rules = parse(source, filename)
        program, warnings = compile_rules(rules, source, filename, dict(params or {}), True)
    except RuleFileError as error:
        return None, [d if d.file != "<string>" else d.located(filename) for d in error.diagnostics]
    try:
        game = CompiledGame(program, filename, source, warnings)
    except RuleFileError as error:  # a budget of the load (too-large setup, too-deep generated code)
        return None, [*warnings, *error.diagnostics]
    except RecursionError as error:
        return None, [*warnings, explain_runtime_error(error, program, filename)]
    except Exception as error:  # a rule failed while building the initial state
        diagnostic = explain_runtime_error(error, program, filename)
        return None, [*warnings, _with_notes(diagnostic, "while building the initial state (setup)")]
    return game, list(warnings)


def _with_notes(diagnostic: Diagnostic, *notes: str, code: str | None = None) -> Diagnostic:
    return Diagnostic(diagnostic.severity, code or diagnostic.code, diagnostic.message, diagnostic.span,
                      diagnostic.file, diagnostic.hint, (*diagnostic.notes, *notes))


# ----------------------------------------------------------------- dynamic


class _Found(Exception):
    """A problem found in a state (ends a playout there; the exploration does not expand the state)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class StateChecks:
    """The checks of one state that the random playouts and the exhaustive exploration both run.

    The ``_check_*`` methods and :meth:`_decision_moves` raise :class:`_Found` with the problem.
    """

    def __init__(self, game: CompiledGame) -> None:
        self.game = game
        source = game.source
        self._span_moves = _line_of(source, r"\s*move\b")
        self._span_ends = _line_of(source, r"\s*(win|lose|draw|terminal)\b")
        self._span_utility = _line_of(source, r"\s*(utility|win|lose|draw)\b")
        self._span_zero_sum = _line_of(source, r"\s*zero_sum\b")
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
                              self._span_ends, "end the game with `win`, `lose` or `draw` rules, "
                              "or add a `utility p: ...` line")
        return self.game.explain(error)

    def _decision_moves(self, state: tuple, player: object) -> Sequence[Any]:
        """The legal moves of a decision state: a real player to move, some move, distinct names."""
        game = self.game
        if not isinstance(player, int) or not 0 <= player < len(game.players):
            raise _Found(self._diag("bad-turn", f"the turn is {player!r}, not a player", Span(1, 1, 1, 2)))
        moves = game.legal_moves(state)
        if not moves:
            raise _Found(self._diag(
                DEAD_END, f"{game.players[player]} is to move but has no legal move, and the game is not over",
                self._span_moves,
                "end the game when the mover is stuck (`lose turn when no_moves`, `draw when no_moves`), "
                "or add a pass move (`move pass otherwise`)"))
        names = [str(m) for m in moves]
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise _Found(self._diag("duplicate-move", f"several legal moves are named {twice[0]!r}",
                                    self._span_moves, "give each move distinct parameters or an explicit name"))
        return moves

    def _check_outcomes(self, outcomes: Sequence[tuple[object, float]]) -> None:
        if not outcomes:
            raise _Found(self._diag("no-chance", "a chance state has no outcome", Span(1, 1, 1, 2)))
        if self._checked_outcomes.get(id(outcomes)) is outcomes:
            return  # a constant distribution (a die) is one list, met in every chance state that rolls it
        probabilities = [p for _, p in outcomes]
        bad = [p for p in probabilities if not _is_number(p) or p < 0]
        if bad:
            raise _Found(self._diag("bad-probability", f"a chance outcome has probability {bad[0]!r}",
                                    Span(1, 1, 1, 2)))
        total = math.fsum(probabilities)
        if abs(total - 1) > PROBABILITY_TOLERANCE:
            shown = ", ".join(f"{o}: {p:.6g}" for o, p in outcomes[:8])
            raise _Found(self._diag("bad-probability", f"the chance probabilities add up to {total:.12g}, not 1",
                                    Span(1, 1, 1, 2), f"outcomes: {shown}"))
        if len(self._checked_outcomes) < OUTCOME_LISTS_KEPT:  # kept alive here, so an id is not reused
            self._checked_outcomes[id(outcomes)] = outcomes

    def _check_terminal(self, state: tuple) -> None:
        game = self.game
        utilities = game.utilities(state)
        n = len(game.players)
        ok = isinstance(utilities, (tuple, list)) and len(utilities) == n and all(map(_is_number, utilities))
        if not ok:
            raise _Found(self._diag("bad-utility", f"a terminal state has utilities {utilities!r}, "
                                    f"not one number per player ({n})", self._span_utility))
        bounds = game.utility_bounds
        if bounds is not None and any(not bounds[0] - 1e-9 <= u <= bounds[1] + 1e-9 for u in utilities):
            raise _Found(self._diag("bad-utility", f"utilities {_show(utilities)} fall outside the declared "
                                    f"bounds {float(bounds[0]):g}..{float(bounds[1]):g}", self._span_utility,
                                    "widen the bounds of the `utility` line: solvers prune with them"))
        if game.zero_sum and abs(math.fsum(utilities)) > 1e-9:
            raise _Found(self._diag("not-zero-sum", f"the game is declared zero-sum, but the utilities "
                                    f"{_show(utilities)} add up to {math.fsum(utilities):g}", self._span_zero_sum,
                                    "remove `zero_sum`, or make the utilities sum to 0"))


class Playouts(StateChecks):
    """Random playouts over a checked game, collecting one diagnostic per distinct problem.

    For each problem the shortest reproducing move sequence seen is kept.
    ``time_budget`` (seconds, None for none) stops the playouts once spent,
    but not before ``MIN_PLAYOUTS`` have finished or one reached ``max_plies``.
    """

    def __init__(self, game: CompiledGame, seed: int | None = 0, max_plies: int = DEFAULT_MAX_PLIES,
                 time_budget: float | None = None) -> None:
        super().__init__(game)
        self.rng = random.Random(seed)
        self.max_plies = max_plies
        self.time_budget = time_budget
        self.deadline: float | None = None
        self.out_of_time = False
        self.found: dict[tuple[object, ...], tuple[int, Diagnostic]] = {}
        self.plies = 0
        self.playouts = 0
        self.endless = 0

    def run(self, count: int, progress: Callable[[int], None] | None = None) -> list[Diagnostic]:
        if self.time_budget is not None:
            self.deadline = time.process_time() + self.time_budget
        # One rule evaluation that outlasts the budget is stopped too (it would never reach `_spent`).
        bounded = (rule_budget(deadline=self.deadline, clock=time.process_time) if self.deadline is not None
                   else contextlib.nullcontext())
        with bounded:
            for i in range(count):
                if self.endless >= ENDLESS_STOP or self._spent(self.playouts):
                    break
                self.playout()
                if self.out_of_time:
                    break
                if progress is not None:
                    progress(i + 1)
        return self.diagnostics()

    def _spent(self, finished: int) -> bool:
        """Whether the time budget is spent and the minimum of play is done (then remembered)."""
        if self.deadline is None or (finished < MIN_PLAYOUTS and not self.endless):
            return False
        if time.process_time() < self.deadline:
            return False
        self.out_of_time = True
        return True

    def diagnostics(self) -> list[Diagnostic]:
        return [d for _, d in sorted(self.found.values(), key=lambda item: (item[1].span.line, item[0]))]

    def _record(self, diagnostic: Diagnostic, history: list[str], *extra_notes: str) -> None:
        key = (diagnostic.code, diagnostic.message, diagnostic.span)
        length = len(history)
        previous = self.found.get(key)
        if previous is not None and previous[0] <= length:
            return
        self.found[key] = (length, _with_notes(diagnostic, *extra_notes, moves_note(history)))

    def playout(self) -> None:
        """One random game from the initial state; records any problem and stops there."""
        self.playouts += 1
        history: list[str] = []
        game = self.game
        try:
            state = game.initial_state()
            seen: dict[Hashable, int] = {}
            cycle: tuple[int, int] | None = None
            for ply in range(self.max_plies + 1):
                if not ply & 255 and ply and self._spent(self.playouts - 1):
                    self.playouts -= 1  # abandoned unfinished: it found nothing so far
                    return
                move = self._step(state, history)
                if move is None:
                    return
                if ply == self.max_plies:  # not over after max_plies plies
                    self._no_end(history, cycle)
                    return
                if cycle is None:
                    first = seen.setdefault(state, ply)
                    if first != ply:
                        cycle = (first, ply)
                history.append(str(move))  # before apply: a failing move belongs to the reproduction
                state = game.apply(state, move)
                self.plies += 1
        except _Found as found:
            self._record(found.diagnostic, history)
        except SearchStopped:  # a single rule evaluation outlasted the time budget
            self.out_of_time = True
            self.playouts -= 1  # abandoned unfinished
        except RecursionError as error:
            self._record(game.explain(error), history)
        except Exception as error:
            self._record(self._explain(error), history)

    def _step(self, state: tuple, history: list[str]) -> object | None:
        """Check ``state`` and pick a random move; None at a (checked) terminal state."""
        game = self.game
        player = game.to_move(state)
        if player == TERMINAL:
            self._check_terminal(state)
            return None
        if player == CHANCE:
            outcomes = game.chance_outcomes(state)
            self._check_outcomes(outcomes)
            moves = [outcome for outcome, _ in outcomes]
            return self.rng.choices(moves, [p for _, p in outcomes])[0]
        moves = self._decision_moves(state, player)
        return self.rng.choice(moves)

    def _no_end(self, history: list[str], cycle: tuple[int, int] | None) -> None:
        self.endless += 1
        if cycle is not None and len(self.game.players) == 1:
            return  # a puzzle is solved by search, not by random play: wandering in circles is expected
        if cycle is not None:
            # Games may cycle (the exact solvers handle cycles): worth a warning, not an error.
            diagnostic = self._diag(
                "no-end", f"a random game did not end within {self.max_plies} plies: the game can cycle",
                self._span_ends, "fine for exact solvers, but random playouts, MCTS and unbounded searches may "
                "not end; add a move limit or a draw by repetition if the game should always end",
                severity="warning")
            notes = [f"the state after {cycle[0]} plies comes back after {cycle[1]} plies"]
        else:
            # No state repeated: the game may just be long (it ends if its states are finite), so a warning.
            diagnostic = self._diag(
                "no-end", f"a random game did not end within {self.max_plies} plies, and no state repeated",
                self._span_ends, "fine if the game is meant to be this long; otherwise check that every move "
                "brings the end closer, or add a move limit", severity="warning")
            notes = [f"only the first {self.max_plies} plies of a random game are checked "
                     "(`gdl check --max-plies N` plays longer games)"]
        self._record(diagnostic, history, *notes)


def _show(utilities: Sequence[float]) -> str:
    return "(" + ", ".join(f"{float(u):g}" for u in utilities) + ")"


def _is_number(value: object) -> bool:
    """A finite real number: an int, a float or a fraction (the docs allow fractions), not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


# -------------------------------------------------------------- exhaustive


@dataclass
class Exploration:
    """What the exhaustive pass found: every reachable state, or as many as the budget allowed."""

    states: int = 0
    """States found (when ``complete``: every reachable state, counted by the game's keys)."""
    complete: bool = False
    stopped_by: str | None = None
    """Why an incomplete exploration stopped: ``"states"`` (``max_states``) or ``"time"`` (the time budget)."""
    diagnostics: list[Diagnostic] = field(default_factory=list)


@dataclass
class _Problem:
    """One problem of the exhaustive pass: its diagnostic and where it happens, nearest first."""

    diagnostic: Diagnostic
    places: list[tuple[int, Any]]
    """``(state index, failing move or None)``, at most ``1 + MORE_PLACES`` of them."""
    count: int = 1


class _OverBudget(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _problem_key(diagnostic: Diagnostic) -> tuple[object, ...]:
    """What makes two diagnostics of the dynamic checks the same problem.

    The rule that fails (a runtime error at one place is one problem, whatever value it
    met); for a dead end also who is stuck, which the message says.
    """
    if diagnostic.code == DEAD_END:
        return (diagnostic.code, diagnostic.span, diagnostic.message)
    return (diagnostic.code, diagnostic.span)


class Explorer(StateChecks):
    """Every reachable state, breadth-first from the initial one, through chance outcomes, with the game's keys.

    Each state gets the checks the playouts run; a state with a problem is not
    expanded. BFS parents give each problem the shortest move sequence that
    reaches it. When every state was explored, what only the whole graph shows
    is reported too: end rules that never end the game, moves never legal, and
    cycles that never end (see :meth:`run`).

    The budget: at most ``max_states`` states, and ``time_budget`` CPU seconds
    (None for none). An exploration that cannot finish within the time budget
    stops as soon as that is clear: when expanding the states already found
    would outlast it at the speed so far, or, at the end of a breadth-first
    level, when the next level and one more growing as fast would.
    """

    def __init__(self, game: CompiledGame, max_states: int = DEFAULT_MAX_STATES,
                 time_budget: float | None = None) -> None:
        super().__init__(game)
        self.max_states = max_states
        self.time_budget = time_budget
        self.states: list[Any] = []
        self.parent: list[int] = []
        self.via: list[Any] = []
        """The move from the parent (None for the initial state)."""
        self.succ: list[tuple[int, ...]] = []
        self.index: dict[Hashable, int] = {}
        self.problems: dict[tuple[object, ...], _Problem] = {}
        self.statuses: set[int] = set()
        self.actions: set[str] = set()
        self.key = _state_key(game)
        self._heuristic = game.heuristic if getattr(game, "has_heuristic", False) else None
        program = getattr(game, "program", None)
        # The status slot follows the variables and the turn (the layout in gdl.compiler's docstring).
        self._status_slot: int | None = program.nvars + 1 if program is not None else None

    # ---------------------------------------------------------------- search
    def run(self) -> Exploration:
        """Explore; the diagnostics of every problem, and of the whole graph when complete."""
        result = Exploration()
        try:
            self._search()
        except _OverBudget as stop:
            result.stopped_by = stop.reason
        result.states = len(self.states)
        result.complete = result.stopped_by is None and len(self.succ) == len(self.states)
        found = [self._diagnostic(problem) for problem in self.problems.values()]
        if result.complete and not any(d.is_error for d in found):
            # An error cuts the exploration short where it happens: what lies beyond is unknown.
            found.extend(self._graph_diagnostics())
        result.diagnostics = sorted(found, key=lambda d: (d.span.line, d.span.column, d.code))
        return result

    def _search(self) -> None:
        game = self.game
        try:
            root = game.initial_state()
            root_key = self.key(root)
        except Exception as error:  # gdl.check.compile_checked reports a failing setup; a Python game may fail
            self._record(self._explain(error), -1, None)
            return
        self._add(root, root_key, -1, None)
        start = time.process_time()
        level_start, level_end = 0, 1  # the breadth-first level being expanded: states [level_start, level_end)
        done = 0
        next_check = FIRST_CHECK
        # One rule evaluation that outlasts the budget is stopped too (it would never reach `_clock`).
        bounded = (rule_budget(deadline=start + self.time_budget, clock=time.process_time)
                   if self.time_budget is not None else contextlib.nullcontext())
        try:
            with bounded:
                while done < len(self.states):
                    if done == level_end:
                        self._level_done(start, done, level_end - level_start, len(self.states) - done)
                        level_start, level_end = done, len(self.states)
                    elif done == next_check:
                        self._clock(start, done, len(self.states) - done)
                        next_check += min(next_check, CHECK_EVERY)  # soon at first: some games take 1 ms a state
                    self.succ.append(self._expand(done))
                    done += 1
        except SearchStopped:
            raise _OverBudget("time") from None

    def _clock(self, start: float, done: int, frontier: int) -> None:
        """Stop when the time budget is spent, or expanding the states found so far would outlast it."""
        if self.time_budget is None:
            return
        elapsed = time.process_time() - start
        if elapsed > self.time_budget or elapsed + frontier * elapsed / done > self.time_budget:
            raise _OverBudget("time")

    def _level_done(self, start: float, done: int, size: int, following: int) -> None:
        """At the end of a level: stop if the next one, and two more growing as fast, would outlast the budget.

        A guess (levels stop growing some time), but a wrong one only means sampling a game
        that would have fit; on the bundled games it stops big ones after a few thousand states.
        """
        if self.time_budget is None or done < FIRST_CHECK:
            return  # too few states to tell the speed
        growth = following / size
        projected = following * (1 + growth + growth * growth) if growth > 1 else following
        elapsed = time.process_time() - start
        if elapsed > self.time_budget or elapsed + projected * elapsed / done > self.time_budget:
            raise _OverBudget("time")

    def _add(self, state: Any, key: Hashable, parent: int, move: Any) -> int:
        i = len(self.states)
        if i >= self.max_states:
            raise _OverBudget("states")
        self.index[key] = i
        self.states.append(state)
        self.parent.append(parent)
        self.via.append(move)
        return i

    def _expand(self, i: int) -> tuple[int, ...]:
        """Check state ``i``; the indexes of its children (none at a terminal state or a problem)."""
        game = self.game
        state = self.states[i]
        try:
            player = game.to_move(state)
            if player == TERMINAL:
                self._check_terminal(state)
                if self._status_slot is not None:
                    self.statuses.add(state[self._status_slot])
                return ()
            if player == CHANCE:
                pairs = game.chance_outcomes(state)
                self._check_outcomes(pairs)
                moves: Sequence[Any] = [outcome for outcome, _ in pairs]
            else:
                moves = self._decision_moves(state, player)
                self.actions.update([getattr(move, "action", str(move)) for move in moves])
        except _Found as found:
            self._record(found.diagnostic, i, None)
            return ()
        except Exception as error:  # RecursionError too
            self._record(self._explain(error), i, None)
            return ()
        if self._heuristic is not None:
            try:
                self._heuristic(state)
            except Exception as error:
                self._record(self._explain(error), i, None)
        return self._children(i, state, moves)

    def _children(self, i: int, state: Any, moves: Sequence[Any]) -> tuple[int, ...]:
        apply, key, index = self.game.apply, self.key, self.index
        children = []
        for move in moves:
            try:
                child = apply(state, move)
                k = key(child)
            except Exception as error:
                self._record(self._explain(error), i, move)
                continue
            j = index.get(k)
            children.append(self._add(child, k, i, move) if j is None else j)
        return tuple(children)

    def _record(self, diagnostic: Diagnostic, i: int, move: Any) -> None:
        """A problem in state ``i`` (after ``move`` from it): the first place found is the nearest (BFS)."""
        key = _problem_key(diagnostic)
        problem = self.problems.get(key)
        if problem is None:
            self.problems[key] = _Problem(diagnostic, [(i, move)])
            return
        problem.count += 1
        if len(problem.places) <= MORE_PLACES:
            problem.places.append((i, move))

    # ---------------------------------------------------------------- report
    def path(self, i: int) -> list[str]:
        """The names of the moves (and chance outcomes) from the initial state to state ``i``."""
        names: list[str] = []
        while i > 0:
            names.append(str(self.via[i]))
            i = self.parent[i]
        names.reverse()
        return names

    def _place_note(self, place: tuple[int, Any]) -> str:
        i, move = place
        names = self.path(i) if i >= 0 else []
        return moves_note([*names, str(move)] if move is not None else names)

    def _diagnostic(self, problem: _Problem) -> Diagnostic:
        notes = [self._place_note(problem.places[0])]
        if problem.diagnostic.code == DEAD_END:
            # Every dead end is a bug; each may need its own fix, so the nearest few are listed.
            if problem.count > 1:
                listed = len(problem.places)
                notes.append(f"{problem.count} reachable states are such dead ends"
                             + (f"; the nearest {listed} are listed" if listed < problem.count else ""))
            notes.extend(self._place_note(place) for place in problem.places[1:])
        elif problem.count > 1:
            notes.append(f"{problem.count} reachable states (or moves) meet this problem; the nearest is shown")
        return _with_notes(problem.diagnostic, *notes)

    def _graph_diagnostics(self) -> list[Diagnostic]:
        """What only the whole reachable graph shows: never-ending rules and moves, endless cycles."""
        found: list[Diagnostic] = []
        spans = _declaration_spans(self.game)
        if spans is not None:
            found.extend(self._never_ending_rules(spans[0]))
            found.extend(self._never_legal_moves(spans[1]))
        cycle = self._endless_cycle()
        if cycle is not None:
            found.append(cycle)
        return found

    def _never_ending_rules(self, ends: list[tuple[str, Span, bool]]) -> list[Diagnostic]:
        """End rules no reachable terminal state ended by (the status names the rule that fired)."""
        program = self.game.program
        n = len(self.game.players)
        if len(program.end_descriptions) != 1 + len(ends) * (n + 1):
            return []  # not the layout gdl.compiler documents: say nothing rather than something wrong
        found = []
        for rule, (text, span, report) in enumerate(ends):
            base = 1 + rule * (n + 1)  # each end rule has n + 1 statuses, in file order, from 1
            if report and not any(base <= status <= base + n for status in self.statuses):
                found.append(self._diag(
                    NEVER_ENDS, f"`{text}` never ends the game: it holds in none of the {len(self.states):,} "
                    "reachable states, or only where an earlier end rule ends the game first", span,
                    "check its condition; end rules are tried in file order", severity="warning"))
        return found

    def _never_legal_moves(self, moves: list[tuple[str, Span]]) -> list[Diagnostic]:
        return [self._diag(NEVER_LEGAL, f"move `{name}` is never legal in any of the {len(self.states):,} "
                           "reachable states", span, "check its condition, or remove the move",
                           severity="warning")
                for name, span in moves if name not in self.actions]

    def _endless_cycle(self) -> Diagnostic | None:
        """The cycle of non-terminal states nearest the start, if play can go on forever."""
        cyclic = [members for members, feedback in components(self.succ) if feedback]
        if not cyclic:
            return None
        entry = min(min(members) for members in cyclic)  # BFS order: the smallest index is the nearest
        members = next(m for m in cyclic if entry in m)
        path = self.path(entry)
        notes = [moves_note(path) if path else "the initial state lies on such a cycle"]
        try:
            loop = self._loop(entry, set(members))
        except Exception:  # a rule that fails only in a mirror image: the cycle stands, unshown
            loop = None
        if loop is not None:
            notes.append(f"from there, the moves {join_moves(loop)} come back to the same state"
                         + (" (or a symmetric one)" if getattr(self.game, "symmetries", ()) else ""))
        on_cycles = sum(len(m) for m in cyclic)
        notes.append(f"{on_cycles:,} of the {len(self.states):,} reachable states lie on cycles")
        diagnostic = self._diag(ENDLESS_CYCLE, "the game can go on forever: play can cycle without reaching an "
                                "end (solvers score endless play 0)", self._span_ends,
                                "fine if intended (a puzzle may wander); otherwise add a move limit or a draw by "
                                "repetition", severity="info")
        return _with_notes(diagnostic, *notes)

    def _loop(self, entry: int, members: set[int]) -> list[str] | None:
        """The fewest moves from state ``entry`` back to it, played on real states (keys may merge images)."""
        game, key, index = self.game, self.key, self.index
        start = self.states[entry]
        queue: list[tuple[Any, list[str]]] = [(start, [])]
        seen = {start}
        limit = LOOP_SEARCH_FACTOR * len(members)
        for state, names in queue:
            if len(queue) > limit:
                return None
            player = game.to_move(state)
            moves = [o for o, _ in game.chance_outcomes(state)] if player == CHANCE else game.legal_moves(state)
            for move in moves:
                child = game.apply(state, move)
                j = index.get(key(child))
                if j == entry:
                    return [*names, str(move)]
                if j in members and child not in seen:
                    seen.add(child)
                    queue.append((child, [*names, str(move)]))
        return None


def _state_key(game: CompiledGame) -> Callable[[Any], Hashable]:
    """The game's keys; the states themselves when it has none, or its declared symmetry is broken."""
    try:
        return game.key
    except Exception:  # symmetry-broken, or a rule failed during the symmetry check: symmetry_diagnostics says
        return _identity


def _identity(state: Any) -> Hashable:
    return state


def _declaration_spans(game: CompiledGame) -> tuple[list[tuple[str, Span, bool]], list[tuple[str, Span]]] | None:
    """The end rules (their text) and the moves (their names) of a compiled game's file, with their spans.

    A move's span is its condition, where the compiler's own ``never-legal`` warning points.
    Not to report: a rule (its flag is False; every rule is listed, in file order) or a move
    whose condition mentions a true/false parameter (directly or through a ``def``), such as
    nim's ``misere``: a variant switch, which another value turns on.
    """
    source, filename = getattr(game, "source", None), getattr(game, "filename", "<string>")
    if getattr(game, "program", None) is None or source is None:
        return None
    try:
        rules = parse(source, filename)
    except RuleFileError:
        return None
    switches = {name for name, value in game.parameters.items() if isinstance(value, bool)}
    defs = {d.name: d.body for d in rules.decls if isinstance(d, ast.DefDecl)}
    lines = source_lines(source)
    ends = [(_first_line(lines, d.span), d.span, not _mentions(d.condition, switches, defs))
            for d in rules.decls if isinstance(d, ast.EndDecl)]
    moves = [(d.name, d.guard.span if d.guard is not None else d.span) for d in rules.decls
             if isinstance(d, ast.MoveDecl) and not (d.guard is not None and _mentions(d.guard, switches, defs))]
    return ends, moves


def _mentions(node: object, names: set[str], defs: dict[str, ast.Expr], seen: set[str] | None = None) -> bool:
    """Whether an expression reads one of ``names``, looking through the ``def`` bodies it calls."""
    if not names:
        return False
    seen = set() if seen is None else seen
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, (ast.Name, ast.Call)):
            name = item.id if isinstance(item, ast.Name) else item.func
            if name in names:
                return True
            if name in defs and name not in seen:
                seen.add(name)
                stack.append(defs[name])
        if isinstance(item, (tuple, list)):
            stack.extend(item)
        elif hasattr(item, "__dataclass_fields__"):
            stack.extend(getattr(item, f) for f in item.__dataclass_fields__)
    return False


def _first_line(lines: list[str], span: Span) -> str:
    text = lines[span.line - 1].strip() if 0 < span.line <= len(lines) else ""
    return text if len(text) <= 60 else text[:57] + "..."


# ------------------------------------------------------------------ a file


def check_source(source: str, filename: str = "<string>", *, playouts: int = DEFAULT_PLAYOUTS,
                 seed: int | None = 0, max_plies: int = DEFAULT_MAX_PLIES, time_budget: float | None = None,
                 params: dict[str, str] | None = None,
                 progress: Callable[[int], None] | None = None, max_states: int = DEFAULT_MAX_STATES,
                 explore_time: float | None = DEFAULT_EXPLORE_TIME) -> CheckReport:
    """Static and dynamic checks of rule-file text.

    The dynamic checks run only when the static checks find no error and
    ``playouts`` is positive. First every reachable state is explored, if
    there are at most ``max_states`` and the exploration fits ``explore_time``
    CPU seconds (None for no limit; ``max_states=0`` skips it). If it did not
    finish, random playouts sample the game, bounded by ``time_budget`` as
    :class:`Playouts` says; the problems the exploration found on the way stay.

    :raises ParameterError: a parameter override is unknown or invalid.
    """
    report = CheckReport(filename, source)
    game, report.diagnostics = compile_checked(source, filename, params)
    if game is None or playouts <= 0:
        return report
    # The symmetry check comes first: the exploration's keys use the symmetries once verified.
    symmetry = symmetry_diagnostics(game, seed)
    dynamic: list[Diagnostic] = []
    if max_states > 0:
        exploration = Explorer(game, max_states, explore_time).run()
        report.explored, report.complete, report.stopped_by = (exploration.states, exploration.complete,
                                                               exploration.stopped_by)
        dynamic.extend(exploration.diagnostics)
    if report.complete:
        if progress is not None:
            progress(playouts)  # nothing left to sample
    else:
        runner = Playouts(game, seed, max_plies, time_budget)
        dynamic.extend(runner.run(playouts, progress))
        report.playouts = runner.playouts
        report.plies = runner.plies
        report.out_of_time = runner.out_of_time
    seen = {_problem_key(d) for d in report.diagnostics}  # a move the compiler already calls never legal
    for diagnostic in [*dynamic, *symmetry]:  # one diagnostic per problem: the first, the exploration's nearest
        key = _problem_key(diagnostic)
        if key not in seen:
            seen.add(key)
            report.diagnostics.append(diagnostic)
    return report


SYMMETRY_PLAYOUTS = 20
SYMMETRY_STATES = 400
SYMMETRY_WORK = 2000  # successors made: about 60 ms for othello, whose moves cost most
SYMMETRY_SECONDS = 2.0  # CPU seconds, should a single rule evaluation be long


def symmetry_diagnostics(game: CompiledGame, seed: int | None) -> list[Diagnostic]:
    """Each declared symmetry compared with the rules at up to ``SYMMETRY_STATES`` states of random play."""
    if not game.symmetries:
        return []
    try:
        with rule_budget(seconds=SYMMETRY_SECONDS, clock=time.process_time):
            game.check_symmetry(SYMMETRY_PLAYOUTS, SYMMETRY_STATES, SYMMETRY_WORK, seed=seed or 0)
    except SearchStopped:  # one rule evaluation outlasted the comparison's budget: nothing found
        return []
    except RuleFileError as error:
        return list(error.diagnostics)
    except Exception as error:  # a rule failed in a state the comparison reached (RecursionError included)
        return [_with_notes(game.explain(error), "while comparing the declared symmetries with the rules")]
    return []


read_rule_file = read_source
"""The text of a rule file (the same reader as :func:`gdl.load`; see :func:`gdl.loader.read_source`)."""


__all__ = [
    "DEAD_END",
    "DEFAULT_EXPLORE_TIME",
    "DEFAULT_MAX_PLIES",
    "DEFAULT_MAX_STATES",
    "DEFAULT_PLAYOUTS",
    "DEFAULT_TIME_BUDGET",
    "MIN_PLAYOUTS",
    "MOVES_NOTE",
    "CheckReport",
    "Exploration",
    "Explorer",
    "ParameterError",
    "Playouts",
    "check_source",
    "compile_checked",
    "join_moves",
    "read_rule_file",
    "split_moves",
]
