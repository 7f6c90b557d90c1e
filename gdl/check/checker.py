"""Checking one rule file: the compiler's static checks, then the rules run on every state or at random.

Static checks come from compiling the file in checked mode (every index and assignment
range-checked). The dynamic checks run that checked game: first :class:`Explorer` visits every
reachable state breadth-first, if there are at most ``max_states`` and the search fits
``explore_steps`` steps (:mod:`gdl.steps`); otherwise :class:`Playouts` samples the game, besides what
the exploration found before it stopped. The declared symmetries are compared with the rules first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gdl.check.explore import DEFAULT_EXPLORE_STEPS, DEFAULT_MAX_STATES, Explorer
from gdl.check.playouts import DEFAULT_MAX_PLIES, DEFAULT_PLAYOUTS, Playouts
from gdl.check.states import problem_key
from gdl.compiler import compile_rules
from gdl.diagnostics import Diagnostic, RuleFileError
from gdl.parser import parse
from gdl.runtime import CompiledGame, explain_runtime_error
from gdl.steps import StepBudget
from solver.limits import SearchStopped

SYMMETRY_PLAYOUTS = 20
SYMMETRY_STATES = 400
SYMMETRY_WORK = 2000  # successors made: about 60 ms for othello, whose moves cost most
SYMMETRY_STEPS = 500_000
"""The comparison's rule work in steps (:mod:`gdl.steps`), should a single rule evaluation be long: 20 times what
Othello's comparison does, counted so that a busy machine compares as much."""


@dataclass
class CheckReport:
    """What checking one rule file found."""

    file: str
    source: str | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    playouts: int = 0
    plies: int = 0
    out_of_budget: str | None = None
    """The budget that stopped the playouts before ``playouts`` were played: ``"steps"`` or ``"time"``."""
    explored: int = 0
    """States the exhaustive pass found (all reachable states when ``complete``)."""
    complete: bool = False
    """The exhaustive pass explored every reachable state: the dynamic checks are proofs, no playout ran."""
    stopped_by: str | None = None
    """Why the exhaustive pass stopped before the end: ``"states"``, ``"steps"`` or ``"time"`` (None: it did not)."""

    @property
    def errors(self) -> int:
        return sum(d.is_error for d in self.diagnostics)

    @property
    def warnings(self) -> int:
        return sum(d.severity == "warning" for d in self.diagnostics)

    @property
    def infos(self) -> int:
        return sum(d.severity == "info" for d in self.diagnostics)


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
        return None, [*warnings, diagnostic.with_notes("while building the initial state (setup)")]
    return game, list(warnings)


def check_source(source: str, filename: str = "<string>", *, playouts: int = DEFAULT_PLAYOUTS,
                 seed: int | None = 0, max_plies: int = DEFAULT_MAX_PLIES, time_budget: float | None = None,
                 params: dict[str, str] | None = None,
                 progress: Callable[[int], None] | None = None, max_states: int = DEFAULT_MAX_STATES,
                 explore_steps: int | None = DEFAULT_EXPLORE_STEPS, explore_time: float | None = None,
                 playout_steps: int | None = None) -> CheckReport:
    """Static and dynamic checks of rule-file text.

    The dynamic checks run only when the static checks find no error and
    ``playouts`` is positive. First every reachable state is explored, if
    there are at most ``max_states`` and the exploration fits ``explore_steps``
    steps (:mod:`gdl.steps`) and ``explore_time`` CPU seconds (None for no
    limit; ``max_states=0`` skips it). If it did not finish, random playouts
    sample the game, bounded by ``playout_steps`` and ``time_budget`` as
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
        exploration = Explorer(game, max_states, explore_time, explore_steps).run()
        report.explored, report.complete, report.stopped_by = (exploration.states, exploration.complete,
                                                               exploration.stopped_by)
        dynamic.extend(exploration.diagnostics)
    if report.complete:
        if progress is not None:
            progress(playouts)  # nothing left to sample
    else:
        runner = Playouts(game, seed, max_plies, time_budget, playout_steps)
        dynamic.extend(runner.run(playouts, progress))
        report.playouts = runner.playouts
        report.plies = runner.plies
        report.out_of_budget = runner.out_of_budget
    seen = {problem_key(d) for d in report.diagnostics}  # a move the compiler already calls never legal
    for diagnostic in [*dynamic, *symmetry]:  # one diagnostic per problem: the first, the exploration's nearest
        key = problem_key(diagnostic)
        if key not in seen:
            seen.add(key)
            report.diagnostics.append(diagnostic)
    return report


def symmetry_diagnostics(game: CompiledGame, seed: int | None) -> list[Diagnostic]:
    """Each declared symmetry compared with the rules at up to ``SYMMETRY_STATES`` states of random play."""
    if not game.symmetries:
        return []
    try:
        with StepBudget(SYMMETRY_STEPS).rules():
            game.check_symmetry(SYMMETRY_PLAYOUTS, SYMMETRY_STATES, SYMMETRY_WORK, seed=seed or 0)
    except SearchStopped:  # one rule evaluation outlasted the comparison's budget: nothing found
        return []
    except RuleFileError as error:
        return list(error.diagnostics)
    except Exception as error:  # a rule failed in a state the comparison reached (RecursionError included)
        return [game.explain(error).with_notes("while comparing the declared symmetries with the rules")]
    return []
