"""The native module as translation units: one (a standalone program), or two compiled at once (a built module).

One unit is the ABI header, the game and every solver source (:data:`SOURCES`): the compiler may inline the rules
into every search loop. A C compiler spends seconds on a game and the solvers together, on one core; so a module
is built from two units, compiled in parallel by two compiler processes and then linked:

* the **game unit**: the header, the game, :data:`SHARED_SOURCES` and :data:`GAME_UNIT_SOURCES`: the entry points
  and every search that calls the rules in its inner loops (alpha-beta, MCTS, expectimax, exploring the state
  graph, the puzzle searches), which inline them as in one unit;
* the **solver unit**: the header, the game's text for its declarations (its macros, its cell type, its constant
  tables ``g_lo``, ``g_hi``, ``g_pack_*``), :data:`SHARED_SOURCES` and :data:`SOLVER_UNIT_SOURCES`: what runs over
  the explored graph alone (solving it, retrograde analysis, the distances to the end). The game's functions are
  unused static functions there, which the compiler drops without compiling them (a hand-written game is any C that
  defines the ABI, so its text is included whole); after the game's text they are poisoned (:data:`POISON`), so
  a solver there that called one fails to compile instead of compiling the game a second time. One exception,
  the game's own: the functions it marks ``GDL_APART`` (the emitter's end tests, one per written slot, always
  called out of line: most of Connect-Four's compile) are defined here with hidden visibility and only declared
  in the game unit (:data:`GAME_UNIT_MACROS`), which calls them as before, through a call.

The solvers of the two units call each other only through the graph's external entry points (``gdl_gr_*``), and
share the static helpers and types of :data:`SHARED_SOURCES`, each unit compiling its own copies. Calling the
rules from the solver unit through exported symbols was measured and rejected: without the rules inlined, BFS over
the 8-puzzle's 181,440 states took 10% longer and a retrograde solve of Nim 4% longer (``docs/backends.md``).

The balance, in compiler CPU at ``-O2``, game unit / solver unit against one unit: Connect-Four 7x6 1.5 / 1.76 s
against 3.1 s; othello 2.0 / 0.9 s against 2.8 s; breakthrough 1.2 / 0.9 s against 2.0 s.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
HEADER = "gdl_abi.h"
SHARED_SOURCES = ("cells.c", "memory.c", "graph_types.c")
"""Static helpers and types that both units use (key packing, checked import and export; the large tables' memory;
the state graph's types)."""
GAME_UNIT_SOURCES = ("glue.c", "negamax.c", "mcts.c", "graph.c", "explore.c", "puzzle.c", "expectimax.c")
"""The entry points, and every search that calls the rules in its inner loops: compiled with the game."""
SOLVER_UNIT_SOURCES = ("graph_solve.c", "retrograde.c", "remoteness.c", "remoteness_chance.c")
"""What runs over the explored state graph alone (backward induction and value iteration, retrograde analysis, the
distances to the end): a unit of its own."""
SOURCES = SHARED_SOURCES + GAME_UNIT_SOURCES + SOLVER_UNIT_SOURCES
"""Every solver source, in the order one unit has them after a game's own source."""

RULES = ("g_setup", "g_initial", "g_to_move", "g_legal", "g_chance", "g_apply", "g_utilities", "g_heuristic", "g_key")
"""The game's functions (gdl_abi.h): in the solver unit, poisoned after the game's text (:data:`POISON`)."""
POISON = ("/* The rules are the game unit's: a solver here that called one would compile the game again (or call it "
          "through a symbol,\n   without inlining); its place is the game unit (solver/native/units.py) */\n"
          f"#pragma GCC poison {' '.join(RULES)}")
"""After the game's text in the solver unit: a later use of a rule is a compile error (GCC and Clang)."""


GAME_UNIT_MACROS = "#define GDL_SPLIT 1\n#define GDL_GAME_UNIT 1"
SOLVER_UNIT_MACROS = "#define GDL_SPLIT 1"
"""Before the game's text in each unit: a game's functions marked ``GDL_APART`` (gdl/native/c_runtime.py: the
emitter's end tests, called out of line) are defined in the solver unit and only declared in the game unit."""


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
    game_unit = "\n".join([header, GAME_UNIT_MACROS, game_source, *shared, *_read(GAME_UNIT_SOURCES)])
    solver_unit = "\n".join([header, SOLVER_UNIT_MACROS, game_source, POISON, *shared, *_read(SOLVER_UNIT_SOURCES)])
    return game_unit, solver_unit
