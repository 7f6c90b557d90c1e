"""The native module as translation units: one (a standalone program), or two compiled at once (a built module).

One unit is the ABI header, the game and every solver source (:data:`solver.native.SOURCES`): the compiler may
inline the rules into every search loop. A C compiler spends seconds on a game and the solvers together, on one
core; so a module is built from two units, compiled in parallel by two compiler processes and then linked:

* the **game unit**: the header, the game, :data:`SHARED_SOURCES`, :data:`GAME_UNIT_SOURCES` (the entry points
  and the searches whose inner loops are the rules: alpha-beta, MCTS, ...), where the rules are inlined as in one
  unit; then :data:`EXPORTS`: each ABI function the other unit calls, as a function with external linkage and
  hidden visibility (``gdl_game_<name>``; seen by the other unit at link time, never outside the module);
* the **solver unit**: the header, the game's declarations (its macros, its cell type, its constant tables
  ``g_lo``, ``g_hi``, ``g_pack_*``), :data:`SHARED_SOURCES` and :data:`SOLVER_UNIT_SOURCES`, which call the
  game's functions through those exports. The game's own text is included whole (a hand-written game is any C
  that defines the ABI), its functions renamed out of the way (:data:`HIDE`): unused static functions, which the
  compiler drops without optimising them.

A solver belongs in the solver unit when the game's functions are not in its inner loops (the graph's sweeps,
retrograde analysis, the distances to the end) or a call through a hidden symbol costs it nothing measurable;
``bench/first_build.py`` and the solves in ``docs/backends.md`` measure both units' compile times and the cost.
A solver unit's function sees the game's data only through the ABI's constant tables and functions: a game's
mutable static data (tables ``g_setup`` fills) is the game unit's alone.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
HEADER = "gdl_abi.h"
SHARED_SOURCES = ("cells.c", "memory.c")
"""Static helpers that both units use (key packing, checked import and export; the large tables' memory)."""
GAME_UNIT_SOURCES = ("glue.c", "negamax.c", "mcts.c", "expectimax.c")
"""The entry points and the searches that call the rules in their inner loops: compiled with the game."""
SOLVER_UNIT_SOURCES = ("graph.c", "explore.c", "retrograde.c", "remoteness.c", "remoteness_chance.c", "puzzle.c")
"""The state graph and what runs over it: a unit of their own."""
SOURCES = SHARED_SOURCES + GAME_UNIT_SOURCES + SOLVER_UNIT_SOURCES
"""Every solver source, in the order one unit has them after a game's own source."""

ABI_FUNCTIONS = (
    ("int", "g_to_move", "const g_cell *s, gdl_error *e", "s, e"),
    ("int", "g_legal", "const g_cell *s, int32_t *moves, gdl_error *e", "s, moves, e"),
    ("int", "g_chance", "const g_cell *s, int32_t *outcomes, double *probs, gdl_error *e", "s, outcomes, probs, e"),
    ("int", "g_apply", "g_cell *s, int32_t move, gdl_error *e", "s, move, e"),
    ("int", "g_utilities", "const g_cell *s, double *u, gdl_error *e", "s, u, e"),
    ("int", "g_heuristic", "const g_cell *s, double *h, gdl_error *e", "s, h, e"),
    ("int", "g_key", "const g_cell *s, uint64_t *words, gdl_error *e", "s, words, e"),
)
"""The game's functions that the solver unit calls (``g_setup`` and ``g_initial``: only the entry points):
(result type, name, parameters, arguments)."""

_HIDDEN = '__attribute__((visibility("hidden")))'


def _export_name(name: str) -> str:
    return "gdl_game_" + name.removeprefix("g_")


EXPORTS = "\n".join(
    ["/* The game's functions the solver unit calls (solver/native/units.py): hidden, so never outside the module */",
     *(f"{_HIDDEN} {kind} {_export_name(name)}({params});\n"
       f"{kind} {_export_name(name)}({params}) {{ return {name}({args}); }}"
       for kind, name, params, args in ABI_FUNCTIONS)])
"""Appended to the game unit: each function of :data:`ABI_FUNCTIONS` with external linkage."""
HIDE = "\n".join(
    ["/* The game's functions are the game unit's: its text here gives the declarations; its functions are renamed",
     "   out of the way, unused (solver/native/units.py) */",
     *(f"#define {name} {name}_in_game_unit" for _, name, _, _ in ABI_FUNCTIONS)])
"""Before the game's text in the solver unit."""
IMPORTS = "\n".join(
    ["/* ... and called here through the game unit's exports */",
     *(f"#undef {name}\n#define {name} {_export_name(name)}\n{_HIDDEN} {kind} {_export_name(name)}({params});"
       for kind, name, params, _ in ABI_FUNCTIONS)])
"""After the game's text in the solver unit."""


def _read(names: tuple[str, ...]) -> list[str]:
    return [(HERE / name).read_text(encoding="utf-8") for name in names]


def header_text() -> str:
    """The ABI header, to put before a game's source."""
    return (HERE / HEADER).read_text(encoding="utf-8")


def one_unit(game_source: str) -> str:
    """The whole module as one translation unit: the header, the game, every solver source."""
    return "\n".join([header_text(), game_source, *_read(SOURCES)])


def split_units(game_source: str) -> tuple[str, str]:
    """The game unit and the solver unit (the module docstring): compiled apart, linked together."""
    header = header_text()
    shared = _read(SHARED_SOURCES)
    game_unit = "\n".join([header, game_source, *shared, *_read(GAME_UNIT_SOURCES), EXPORTS])
    solver_unit = "\n".join([header, HIDE, game_source, IMPORTS, *shared, *_read(SOLVER_UNIT_SOURCES)])
    return game_unit, solver_unit
