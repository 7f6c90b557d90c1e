"""The exhaustive pass of ``gdl check``: every reachable state, breadth-first, each one checked.

When the game is small enough (``max_states``) and the search fits its steps (:mod:`gdl.steps`), the findings
are certain and each comes with the shortest move sequence that reaches it (the breadth-first
parents); then the whole graph is looked at too (:mod:`gdl.check.graph`). Otherwise the exploration
stops early, keeps what it found, and random playouts sample the rest (:mod:`gdl.check.playouts`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gdl.check.graph import graph_diagnostics
from gdl.check.moves import moves_note
from gdl.check.states import DEAD_END, ProblemFound, StateChecks, problem_key
from gdl.diagnostics import Diagnostic
from gdl.runtime import CompiledGame
from gdl.steps import StepBudget, stop_reason
from solver.game import CHANCE, SIMULTANEOUS, TERMINAL
from solver.limits import SearchStopped
from solver.shortest_path import line_to

DEFAULT_MAX_STATES = 200_000
"""The exhaustive pass explores every reachable state if there are at most this many (``--max-states``)."""

DEFAULT_EXPLORE_STEPS = 100_000
"""Steps of exhaustive exploration per file (``--explore-steps``; :mod:`gdl.steps`: each state expanded and each
successor made, more for big states and rule work): a game that needs more is sampled. About a quarter of a
second of CPU on the bundled games; counted, not timed, so that the verdict is the same on a busy machine."""

CHECK_EVERY = 256
"""The exploration looks at its budget every this many states (after ``FIRST_CHECK``, then twice as many, ...)."""
FIRST_CHECK = 64

MORE_PLACES = 2
"""Besides the nearest dead end, a ``dead-end`` diagnostic lists the moves to this many more."""


@dataclass
class Exploration:
    """What the exhaustive pass found: every reachable state, or as many as the budget allowed."""

    states: int = 0
    """States found (when ``complete``: every reachable state, counted by the game's keys)."""
    complete: bool = False
    stopped_by: str | None = None
    """Why an incomplete exploration stopped: ``"states"`` (``max_states``), ``"steps"`` (the step budget) or
    ``"time"`` (the user's time budget)."""
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


class Explorer(StateChecks):
    """Every reachable state, breadth-first from the initial one, through chance outcomes, with the game's keys.

    Each state gets the checks the playouts run; a state with a problem is not
    expanded. BFS parents give each problem the shortest move sequence that
    reaches it. When every state was explored, what only the whole graph shows
    is reported too: end rules that never end the game, moves never legal, and
    cycles that never end (see :meth:`run`).

    The budget: at most ``max_states`` states, ``steps`` steps (:mod:`gdl.steps`)
    and ``time_budget`` CPU seconds (None for none; the steps decide the same on
    any machine, the seconds are the user's). An exploration that cannot finish
    within them stops as soon as that is clear: when expanding the states
    already found would outlast them at the cost per state so far, or, at the
    end of a breadth-first level, when the next level and one more growing as
    fast would.
    """

    def __init__(self, game: CompiledGame, max_states: int = DEFAULT_MAX_STATES,
                 time_budget: float | None = None, steps: int | None = DEFAULT_EXPLORE_STEPS) -> None:
        super().__init__(game)
        self.max_states = max_states
        self.time_budget = time_budget
        self.steps = steps
        self.states: list[Any] = []
        self.parents: dict[Hashable, tuple[Hashable, Any] | None] = {}
        """``{state index: (parent index, move from it)}``, None for the initial state (breadth-first parents)."""
        self.succ: list[tuple[int, ...]] = []
        self.index: dict[Hashable, int] = {}
        self.problems: dict[tuple[object, ...], _Problem] = {}
        self.statuses: set[int] = set()
        self.actions: set[str] = set()
        self.key = game.key  # the symmetric keys once `gdl check` verified the symmetries, else the states
        self._heuristic = game.heuristic if game.has_heuristic else None
        # The status slot follows the variables and the turn (the layout in gdl.compiler's docstring).
        self._status_slot = game.program.nvars + 1

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
            found.extend(graph_diagnostics(self))
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
        budget = StepBudget(self.steps, self.time_budget)
        level_start, level_end = 0, 1  # the breadth-first level being expanded: states [level_start, level_end)
        done = 0
        next_check = FIRST_CHECK
        try:
            with budget.rules():  # one rule evaluation that outlasts the budget is stopped too
                while done < len(self.states):
                    if done == level_end:
                        self._level_done(budget, done, level_end - level_start, len(self.states) - done)
                        level_start, level_end = done, len(self.states)
                    elif done == next_check:
                        self._over(budget, done, len(self.states) - done)
                        next_check += min(next_check, CHECK_EVERY)  # soon at first: some games take 1 ms a state
                    self.succ.append(self._expand(done, budget))
                    done += 1
        except SearchStopped as stop:
            raise _OverBudget(stop_reason(stop)) from None

    @staticmethod
    def _over(budget: StepBudget, done: int, frontier: int) -> None:
        """Stop when the budget is spent, or expanding the states found so far would outlast it."""
        reason = budget.projected(frontier, done)
        if reason is not None:
            raise _OverBudget(reason)

    def _level_done(self, budget: StepBudget, done: int, size: int, following: int) -> None:
        """At the end of a level: stop if the next one, and two more growing as fast, would outlast the budget.

        A guess (levels stop growing some time), but a wrong one only means sampling a game
        that would have fit; on the bundled games it stops big ones after a few thousand states.
        """
        if done < FIRST_CHECK:
            return  # too few states to tell the cost of one
        growth = following / size
        self._over(budget, done, int(following * (1 + growth + growth * growth)) if growth > 1 else following)

    def _add(self, state: Any, key: Hashable, parent: int, move: Any) -> int:
        i = len(self.states)
        if i >= self.max_states:
            raise _OverBudget("states")
        self.index[key] = i
        self.states.append(state)
        self.parents[i] = None if parent < 0 else (parent, move)
        return i

    def _expand(self, i: int, budget: StepBudget) -> tuple[int, ...]:
        """Check state ``i``; the indexes of its children (none at a terminal state or a problem).

        ``budget`` counts the state and its successors (as big as it)."""
        game = self.game
        state = self.states[i]
        budget.add(state)
        try:
            player = game.to_move(state)
            if player == TERMINAL:
                self._check_terminal(state)
                self.statuses.add(state[self._status_slot])
                return ()
            if player == CHANCE:
                pairs = game.chance_outcomes(state)
                self._check_outcomes(pairs)
                moves: Sequence[Any] = [outcome for outcome, _ in pairs]
            else:
                moves = self._decision_moves(state, player)
                if player == SIMULTANEOUS:  # a joint move stands for one move of each player
                    self.actions.update(m.action for who in range(len(game.players))
                                        for m in game.legal_moves(state, who))
                else:
                    self.actions.update(move.action for move in moves)
        except ProblemFound as found:
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
        budget.add(state, len(moves))
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
        key = problem_key(diagnostic)
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
        return [str(move) for move in line_to(self.parents, i)]

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
        return problem.diagnostic.with_notes(*notes)
