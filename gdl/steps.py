"""Work counted in steps, not seconds: the budgets that decide what a command reports.

A budget in seconds makes a report depend on the machine and on its load (``gdl check games/pig.gdl`` said
"explored" in one run and "sampled" in the next). The budgets that choose what is printed count *steps*:

* a state made or expanded is a step, and one more for every :data:`CELLS_PER_STEP` cells it holds (a state
  of 10,000 cells is copied, keyed and scanned: it costs as much as hundreds of small ones);
* :data:`RULE_WORK_PER_STEP` units of the rule work the evaluations counted (:func:`gdl.rule_helpers.rule_work`:
  iterations of long loops, calls of defs that call defs) are a step too (Othello's moves do hundreds a ply).

A step costs some microseconds on the bundled games (bench/RESULTS.md has the measurements). A user's own
``--time`` still bounds the same work by the clock (:class:`StepBudget`'s ``seconds``), when given.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gdl.rule_helpers import rule_budget, rule_work
from solver.limits import SearchStopped, cells

CELLS_PER_STEP = 32
"""A state counts one step more for every this many cells."""

RULE_WORK_PER_STEP = 16
"""Units of rule work that count as one step."""

RULE_SLACK = 4
"""The slack of ``gdl check``'s playouts (:meth:`StepBudget.rules`): their first ten may run past the budget, a
single rule evaluation not past four times it."""

STEPS = "steps"
TIME = "time"
"""Why a :class:`StepBudget` is spent: its steps, or the user's seconds."""


def state_steps(state: Any) -> int:
    """The steps of making or expanding ``state``: one, and one for every :data:`CELLS_PER_STEP` cells."""
    return 1 + cells(state) // CELLS_PER_STEP


class StepBudget:
    """Steps spent against a budget of ``steps``, and, when the user gave them, ``seconds`` of CPU time (either
    None for no limit). The rule work counts from the moment the budget is made.

    >>> budget = StepBudget(100)
    >>> budget.add((0,) * 64, 10)   # ten states of 64 cells: three steps each
    >>> budget.spent, budget.reason()
    (30, None)
    """

    def __init__(self, steps: int | None, seconds: float | None = None) -> None:
        self.steps = steps
        self.seconds = seconds
        self.made = 0
        self._work = rule_work()
        self._started = time.process_time() if seconds is not None else 0.0

    def add(self, state: Any, count: int = 1) -> None:
        """``count`` states as big as ``state``, made or expanded."""
        self.made += count * state_steps(state)

    @property
    def spent(self) -> int:
        """Steps spent: the states counted, and the rule work done since the budget was made."""
        return self.made + (rule_work() - self._work) // RULE_WORK_PER_STEP

    def _shares(self) -> list[tuple[float, str]]:
        """The share of each budget used so far, with its name."""
        shares = []
        if self.steps is not None:
            shares.append((self.spent / max(1, self.steps), STEPS))
        if self.seconds is not None:
            shares.append(((time.process_time() - self._started) / max(1e-9, self.seconds), TIME))
        return shares

    def reason(self) -> str | None:
        """``"steps"`` or ``"time"`` once a budget is spent, else None."""
        return self.projected(0, 1)

    def projected(self, more: int, done: int) -> str | None:
        """Which budget ``more`` units of work as costly as the ``done`` so far would outlast (None: neither)."""
        for share, name in self._shares():
            if share >= 1 or share + more * share / max(1, done) > 1:
                return name
        return None

    @contextmanager
    def rules(self, slack: int = 1) -> Iterator[None]:
        """Bound every rule evaluation inside the block (one evaluation can outlast any budget, and would never
        reach the caller's own look at it): past ``slack`` times what is left of the steps, or past the
        seconds, it raises :class:`SearchStopped`. (A slack lets a caller finish a minimum of work past its
        budget: ``gdl check``'s first ten playouts get :data:`RULE_SLACK`.)"""
        work = None if self.steps is None else max(0, slack * self.steps - self.spent) * RULE_WORK_PER_STEP
        deadline = None if self.seconds is None else self._started + self.seconds
        with rule_budget(work=work, deadline=deadline, clock=time.process_time):
            yield


def stop_reason(stop: SearchStopped) -> str:
    """The budget a :class:`StepBudget`'s rule bound stopped at: ``"time"`` or ``"steps"``."""
    return TIME if stop.reason == "time" else STEPS


__all__ = ["CELLS_PER_STEP", "RULE_SLACK", "RULE_WORK_PER_STEP", "STEPS", "TIME", "StepBudget", "state_steps",
           "stop_reason"]
