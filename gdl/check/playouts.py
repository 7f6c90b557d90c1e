"""Random playouts of ``gdl check``: the sampled games, for a game too big to explore in full.

Each playout checks every state it meets (:class:`gdl.check.states.StateChecks`) and stops at the
first problem. One more finding is the playouts' own:

=================  ==========================================================
code               problem
=================  ==========================================================
no-end             a playout did not end within ``max_plies`` plies, a
                   warning: either a state repeated (the game can cycle;
                   nothing for a one-player puzzle that cycles, which search
                   solves), or the game is longer than ``max_plies`` (its
                   first plies are checked)
=================  ==========================================================

How much random play a file gets: at most ``playouts`` games of at most
``max_plies`` plies each, and no more once ``steps`` steps are spent (each ply
a step, more for big states and rule work: :mod:`gdl.steps`; ``gdl check`` gives
each file ``DEFAULT_PLAYOUT_STEPS``, so that a busy machine plays exactly what an
idle one does) or, with a ``time_budget`` (the user's ``--time``), its CPU
seconds, except that the first ``MIN_PLAYOUTS`` playouts always run (or fewer,
when one of them reaches ``max_plies``). A playout cut by the budget is
abandoned, not reported. With the same seed, a larger budget plays the same
games and then more.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from typing import Any

from gdl.check.moves import moves_note
from gdl.check.states import ProblemFound, StateChecks
from gdl.diagnostics import Diagnostic
from gdl.runtime import CompiledGame
from gdl.steps import RULE_SLACK, StepBudget, stop_reason
from solver.game import CHANCE, TERMINAL, Move
from solver.limits import SearchStopped

DEFAULT_PLAYOUTS = 200
"""Most random playouts per file."""

DEFAULT_MAX_PLIES = 10_000
"""A playout that reaches this many plies stops there (``no-end``)."""

DEFAULT_PLAYOUT_STEPS = 10_000
"""Steps of random play per file for ``gdl check`` (``--playout-steps``; :mod:`gdl.steps`): some hundredths of a
second of CPU on the bundled games; the library default is no budget."""

MIN_PLAYOUTS = 10
"""Playouts played whatever the budget (unless one reaches ``max_plies`` first)."""

ENDLESS_STOP = 3
"""Playouts stop after this many reach ``max_plies``: endless games are slow to play out; three are evidence."""


class Playouts(StateChecks):
    """Random playouts over a checked game, collecting one diagnostic per distinct problem.

    For each problem the shortest reproducing move sequence seen is kept.
    ``steps`` (:mod:`gdl.steps`) and ``time_budget`` (CPU seconds), None for
    none, stop the playouts once spent, but not before ``MIN_PLAYOUTS`` have
    finished or one reached ``max_plies``; ``out_of_budget`` then says which.
    """

    def __init__(self, game: CompiledGame, seed: int | None = 0, max_plies: int = DEFAULT_MAX_PLIES,
                 time_budget: float | None = None, steps: int | None = None) -> None:
        super().__init__(game)
        self.rng = random.Random(seed)
        self.max_plies = max_plies
        self.steps, self.time_budget = steps, time_budget
        self.budget: StepBudget | None = None
        """What :meth:`run` has spent (None before it runs)."""
        self.out_of_budget: str | None = None
        """``"steps"`` or ``"time"`` when that budget ended the playouts before ``count`` were played."""
        self.found: dict[tuple[object, ...], tuple[int, Diagnostic]] = {}
        self.plies = 0
        self.playouts = 0
        self.endless = 0

    def run(self, count: int, progress: Callable[[int], None] | None = None) -> list[Diagnostic]:
        self.budget = budget = StepBudget(self.steps, self.time_budget)  # counted from here
        with budget.rules(RULE_SLACK):  # one rule evaluation that outlasts the budget is stopped too
            for i in range(count):
                if self.endless >= ENDLESS_STOP or self._spent(self.playouts):
                    break
                self.playout()
                if self.out_of_budget:
                    break
                if progress is not None:
                    progress(i + 1)
        return self.diagnostics()

    def _spent(self, finished: int) -> bool:
        """Whether the budget is spent and the minimum of play is done (then remembered)."""
        if self.budget is None or (finished < MIN_PLAYOUTS and not self.endless):
            return False
        self.out_of_budget = self.budget.reason()
        return self.out_of_budget is not None

    def diagnostics(self) -> list[Diagnostic]:
        return [d for _, d in sorted(self.found.values(), key=lambda item: (item[1].span.line, item[0]))]

    def _record(self, diagnostic: Diagnostic, history: list[str], *extra_notes: str) -> None:
        key = (diagnostic.code, diagnostic.message, diagnostic.span)
        length = len(history)
        previous = self.found.get(key)
        if previous is not None and previous[0] <= length:
            return
        self.found[key] = (length, diagnostic.with_notes(*extra_notes, moves_note(history)))

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
                if self.budget is not None:
                    self.budget.add(state)
                self.plies += 1
        except ProblemFound as found:
            self._record(found.diagnostic, history)
        except SearchStopped as stop:  # a single rule evaluation outlasted the budget
            self.out_of_budget = stop_reason(stop)
            self.playouts -= 1  # abandoned unfinished
        except RecursionError as error:
            self._record(game.explain(error), history)
        except Exception as error:
            self._record(self._explain(error), history)

    def _step(self, state: tuple[Any, ...], history: list[str]) -> Move | None:
        """Check ``state`` and pick a random move; None at a (checked) terminal state."""
        game = self.game
        player = game.to_move(state)
        if player == TERMINAL:
            self._check_terminal(state)
            return None
        if player == CHANCE:
            outcomes = game.chance_outcomes(state)
            self._check_outcomes(outcomes)
            outcome: Move = self.rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
            return outcome
        return self.rng.choice(self._decision_moves(state, player))

    def _no_end(self, history: list[str], cycle: tuple[int, int] | None) -> None:
        self.endless += 1
        if cycle is not None and len(self.game.players) == 1:
            return  # a puzzle is solved by search, not by random play: wandering in circles is expected
        if cycle is not None:
            # Games may cycle (the exact solvers handle cycles): worth a warning, not an error.
            diagnostic = self._diag(
                "no-end", f"a random game did not end within {self.max_plies} plies: the game can cycle",
                self.span_ends, "fine for exact solvers, but random playouts, MCTS and unbounded searches may "
                "not end; add a move limit or a draw by repetition if the game should always end",
                severity="warning")
            notes = [f"the state after {cycle[0]} plies comes back after {cycle[1]} plies"]
        else:
            # No state repeated: the game may just be long (it ends if its states are finite), so a warning.
            diagnostic = self._diag(
                "no-end", f"a random game did not end within {self.max_plies} plies, and no state repeated",
                self.span_ends, "fine if the game is meant to be this long; otherwise check that every move "
                "brings the end closer, or add a move limit", severity="warning")
            notes = [f"only the first {self.max_plies} plies of a random game are checked "
                     "(`gdl check --max-plies N` plays longer games)"]
        self._record(diagnostic, history, *notes)
