"""Checks of a rule file: the static ones of the compiler, then the rules run on every state or at random.

Static checks come from compiling the file in checked mode (every index and
assignment range-checked). Dynamic checks run that checked game and report
what only running the rules can show: the checks of each state
(:mod:`gdl.check.states`: ``runtime-error``, ``dead-end``, ``bad-utility``, ...),
what only the whole graph shows (:mod:`gdl.check.graph`: ``never-ends``,
``never-legal``, ``endless-cycle``) and the playouts' ``no-end``
(:mod:`gdl.check.playouts`).

Every dynamic diagnostic carries the move sequence that reproduces it, names
joined by commas (``gdl solve FILE --moves ...`` replays it), as a note
(:mod:`gdl.check.moves`).

First, :class:`Explorer` (:mod:`gdl.check.explore`) visits every reachable state
breadth-first, if there are at most ``max_states`` and the search fits
``explore_steps`` steps (``DEFAULT_EXPLORE_STEPS``; :mod:`gdl.steps` counts them, the
same on any machine). Then the findings are certain and each comes with the
shortest move sequence that reaches it. Otherwise the game is *sampled*: random
playouts (:class:`Playouts`), besides what the exploration found before it
stopped. :func:`check_source` (:mod:`gdl.check.checker`) runs it all for one file.

>>> from gdl.check import check_source
>>> report = check_source(open("games/tictactoe.gdl").read(), "tictactoe.gdl")
>>> report.errors, report.warnings, report.complete, report.explored, report.playouts
(0, 0, True, 765, 0)
>>> report = check_source(open("games/tictactoe.gdl").read(), "tictactoe.gdl", playouts=50, max_states=0)
>>> report.errors, report.warnings, report.complete, report.playouts
(0, 0, False, 50)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gdl.lazy import lazy_names
from gdl.loader import read_source

read_rule_file = read_source
"""The text of a rule file (the same reader as :func:`gdl.load`; see :func:`gdl.loader.read_source`)."""

if TYPE_CHECKING:
    from gdl.check.checker import CheckReport, check_source, compile_checked, symmetry_diagnostics
    from gdl.check.explore import DEFAULT_EXPLORE_STEPS, DEFAULT_MAX_STATES, Exploration, Explorer
    from gdl.check.moves import MOVES_NOTE, join_moves, moves_note, split_moves
    from gdl.check.playouts import DEFAULT_MAX_PLIES, DEFAULT_PLAYOUT_STEPS, DEFAULT_PLAYOUTS, MIN_PLAYOUTS, Playouts
    from gdl.check.states import DEAD_END, StateChecks
    from gdl.diagnostics import ParameterError


__all__ = [
    "DEAD_END",
    "DEFAULT_EXPLORE_STEPS",
    "DEFAULT_MAX_PLIES",
    "DEFAULT_MAX_STATES",
    "DEFAULT_PLAYOUTS",
    "DEFAULT_PLAYOUT_STEPS",
    "MIN_PLAYOUTS",
    "MOVES_NOTE",
    "CheckReport",
    "Exploration",
    "Explorer",
    "ParameterError",
    "Playouts",
    "StateChecks",
    "check_source",
    "compile_checked",
    "join_moves",
    "moves_note",
    "read_rule_file",
    "split_moves",
    "symmetry_diagnostics",
]

__getattr__ = lazy_names(globals(), ("gdl.check.moves", "gdl.check.checker", "gdl.check.explore", "gdl.check.playouts",
                                     "gdl.check.states", "gdl.diagnostics"))
