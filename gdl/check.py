"""Checks of a rule file: the static ones of the compiler, then random playouts.

Static checks come from compiling the file in checked mode (every index and
assignment range-checked). Dynamic checks play random games on that checked
game and report what only running the rules can show:

=================  ==========================================================
code               problem
=================  ==========================================================
runtime-error      a rule raised while the game ran (index out of range, ...)
no-moves           a state that is neither terminal nor chance has no legal move
no-chance          a chance state with no outcome
no-end             a playout did not end within ``max_plies`` plies, a warning:
                   either a state repeated (the game can cycle; nothing for a
                   one-player puzzle that cycles, which search solves), or the
                   game is longer than ``max_plies`` (its first plies are checked)
bad-probability    chance probabilities that are negative or do not sum to 1
bad-utility        a terminal state whose utilities are not one number per
                   player, or fall outside the declared bounds
not-zero-sum       a game declared zero-sum whose utilities do not sum to 0
duplicate-move     two legal moves with the same name (names must be unique)
bad-turn           ``to_move`` returned something that is not a player index
=================  ==========================================================

Every dynamic diagnostic carries the move sequence that reproduces it, names
joined by commas (``gdl solve FILE --moves ...`` replays it), as a note.

How much random play a file gets: at most ``playouts`` games of at most
``max_plies`` plies each, and, with a ``time_budget`` (``gdl check`` gives each
file ``DEFAULT_TIME_BUDGET`` seconds of CPU time, so that a busy machine plays
as much as an idle one), no more once the budget is spent, except
that the first ``MIN_PLAYOUTS`` playouts always run (or fewer, when one of them
reaches ``max_plies``). A playout cut by the budget is abandoned, not reported.
With the same seed, a larger budget plays the same games and then more.

>>> from gdl.check import check_source
>>> report = check_source(open("games/tictactoe.gdl").read(), "tictactoe.gdl", playouts=50)
>>> report.errors, report.warnings, report.playouts
(0, 0, 50)
"""

from __future__ import annotations

import contextlib
import math
import random
import re
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gdl.compiler import compile_rules
from gdl.diagnostics import Diagnostic, GdlError, ParameterError, RuleFileError, Span
from gdl.loader import MAX_FILE_BYTES
from gdl.parser import parse
from gdl.runtime import CompiledGame, explain_runtime_error, rule_budget
from solver.game import CHANCE, TERMINAL
from solver.limits import SearchStopped

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

    @property
    def errors(self) -> int:
        return sum(d.is_error for d in self.diagnostics)

    @property
    def warnings(self) -> int:
        return sum(not d.is_error for d in self.diagnostics)


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
    for number, line in enumerate(source.splitlines(), 1):
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
    """A problem found during a playout (ends the playout)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class Playouts:
    """Random playouts over a checked game, collecting one diagnostic per distinct problem.

    For each problem the shortest reproducing move sequence seen is kept.
    ``time_budget`` (seconds, None for none) stops the playouts once spent,
    but not before ``MIN_PLAYOUTS`` have finished or one reached ``max_plies``.
    """

    def __init__(self, game: CompiledGame, seed: int | None = 0, max_plies: int = DEFAULT_MAX_PLIES,
                 time_budget: float | None = None) -> None:
        self.game = game
        self.rng = random.Random(seed)
        self.max_plies = max_plies
        self.time_budget = time_budget
        self.deadline: float | None = None
        self.out_of_time = False
        self.found: dict[tuple[object, ...], tuple[int, Diagnostic]] = {}
        self.plies = 0
        self.playouts = 0
        self.endless = 0
        source = game.source
        self._span_moves = _line_of(source, r"\s*move\b")
        self._span_ends = _line_of(source, r"\s*(win|lose|draw|terminal)\b")
        self._span_utility = _line_of(source, r"\s*(utility|win|lose|draw)\b")
        self._span_zero_sum = _line_of(source, r"\s*zero_sum\b")

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

    def _diag(self, code: str, message: str, span: Span, hint: str | None = None,
              severity: str = "error") -> Diagnostic:
        return Diagnostic(severity, code, message, span, self.game.filename, hint)

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
            diagnostic = game.explain(error)
            if type(error).__name__ == "_NoUtility":
                diagnostic = self._diag("bad-utility", "the game ended, but no rule gives the players a utility",
                                        self._span_ends, "end the game with `win`, `lose` or `draw` rules, "
                                        "or add a `utility p: ...` line")
            self._record(diagnostic, history)

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
        if not isinstance(player, int) or not 0 <= player < len(game.players):
            raise _Found(self._diag("bad-turn", f"the turn is {player!r}, not a player", Span(1, 1, 1, 2)))
        moves = game.legal_moves(state)
        if not moves:
            raise _Found(self._diag(
                "no-moves", f"{game.players[player]} is to move but has no legal move, and the game is not over",
                self._span_moves,
                "end the game when the mover is stuck (`lose turn when no_moves`, `draw when no_moves`), "
                "or add a pass move (`move pass otherwise`)"))
        names = [str(m) for m in moves]
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise _Found(self._diag("duplicate-move", f"several legal moves are named {twice[0]!r}",
                                    self._span_moves, "give each move distinct parameters or an explicit name"))
        return self.rng.choice(moves)

    def _check_outcomes(self, outcomes: Sequence[tuple[object, float]]) -> None:
        if not outcomes:
            raise _Found(self._diag("no-chance", "a chance state has no outcome", Span(1, 1, 1, 2)))
        probabilities = [p for _, p in outcomes]
        bad = [p for p in probabilities
               if not isinstance(p, (int, float)) or isinstance(p, bool) or not math.isfinite(p) or p < 0]
        if bad:
            raise _Found(self._diag("bad-probability", f"a chance outcome has probability {bad[0]!r}",
                                    Span(1, 1, 1, 2)))
        total = math.fsum(probabilities)
        if abs(total - 1) > PROBABILITY_TOLERANCE:
            shown = ", ".join(f"{o}: {p:.6g}" for o, p in outcomes[:8])
            raise _Found(self._diag("bad-probability", f"the chance probabilities add up to {total:.12g}, not 1",
                                    Span(1, 1, 1, 2), f"outcomes: {shown}"))

    def _check_terminal(self, state: tuple) -> None:
        game = self.game
        utilities = game.utilities(state)
        n = len(game.players)
        ok = isinstance(utilities, (tuple, list)) and len(utilities) == n and all(
            isinstance(u, (int, float)) and not isinstance(u, bool) and math.isfinite(u) for u in utilities)
        if not ok:
            raise _Found(self._diag("bad-utility", f"a terminal state has utilities {utilities!r}, "
                                    f"not one number per player ({n})", self._span_utility))
        bounds = game.utility_bounds
        if bounds is not None and any(not bounds[0] - 1e-9 <= u <= bounds[1] + 1e-9 for u in utilities):
            raise _Found(self._diag("bad-utility", f"utilities {_show(utilities)} fall outside the declared "
                                    f"bounds {bounds[0]:g}..{bounds[1]:g}", self._span_utility,
                                    "widen the bounds of the `utility` line: solvers prune with them"))
        if game.zero_sum and abs(math.fsum(utilities)) > 1e-9:
            raise _Found(self._diag("not-zero-sum", f"the game is declared zero-sum, but the utilities "
                                    f"{_show(utilities)} add up to {math.fsum(utilities):g}", self._span_zero_sum,
                                    "remove `zero_sum`, or make the utilities sum to 0"))

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
    return "(" + ", ".join(f"{u:g}" for u in utilities) + ")"


# ------------------------------------------------------------------ a file


def check_source(source: str, filename: str = "<string>", *, playouts: int = DEFAULT_PLAYOUTS,
                 seed: int | None = 0, max_plies: int = DEFAULT_MAX_PLIES, time_budget: float | None = None,
                 params: dict[str, str] | None = None,
                 progress: Callable[[int], None] | None = None) -> CheckReport:
    """Static and dynamic checks of rule-file text.

    Playouts run only when the static checks find no error; ``time_budget``
    (seconds, None for none) bounds them as :class:`Playouts` says.

    :raises ParameterError: a parameter override is unknown or invalid.
    """
    report = CheckReport(filename, source)
    game, report.diagnostics = compile_checked(source, filename, params)
    if game is None or playouts <= 0:
        return report
    runner = Playouts(game, seed, max_plies, time_budget)
    report.diagnostics.extend(runner.run(playouts, progress))
    found = {(d.code, d.message, d.span) for d in report.diagnostics}  # a rule error the playouts met too
    report.diagnostics.extend(d for d in symmetry_diagnostics(game, seed) if (d.code, d.message, d.span) not in found)
    report.playouts = runner.playouts
    report.plies = runner.plies
    report.out_of_time = runner.out_of_time
    return report


SYMMETRY_PLAYOUTS = 20
SYMMETRY_STATES = 400
SYMMETRY_WORK = 2000  # successors made: about 60 ms for othello, whose moves cost most
SYMMETRY_SECONDS = 2.0  # CPU seconds, should a single rule evaluation be long


def symmetry_diagnostics(game: CompiledGame, seed: int | None) -> list[Diagnostic]:
    """Each declared symmetry compared with the rules at up to ``SYMMETRY_STATES`` states of random play."""
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


def read_rule_file(path: str | Path) -> str:
    """The text of a rule file.

    :raises GdlError: missing, a directory, unreadable, too large or not UTF-8 (a one-line message).
    """
    path = Path(path)
    try:
        if path.is_dir():
            raise GdlError(f"{path}: is a directory, not a rule file")
        if not path.exists():
            raise GdlError(f"{path}: no such file")
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise GdlError(f"{path}: {size} bytes is too large for a rule file (at most {MAX_FILE_BYTES})")
        data = path.read_bytes()
    except OSError as error:
        raise GdlError(f"{path}: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise GdlError(f"{path}:{line}: not a UTF-8 text file (byte 0x{data[error.start]:02x} "
                       f"at offset {error.start})") from None
    if "\x00" in text:
        raise GdlError(f"{path}: a binary file, not a rule file (it contains NUL bytes)")
    return text.removeprefix("\ufeff")


__all__ = [
    "DEFAULT_MAX_PLIES",
    "DEFAULT_PLAYOUTS",
    "DEFAULT_TIME_BUDGET",
    "MIN_PLAYOUTS",
    "MOVES_NOTE",
    "CheckReport",
    "ParameterError",
    "Playouts",
    "check_source",
    "compile_checked",
    "join_moves",
    "read_rule_file",
    "split_moves",
]
