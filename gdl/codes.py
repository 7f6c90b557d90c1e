"""The registry of diagnostic codes: every code gdl reports, once, with its severity and what it means.

A :class:`gdl.diagnostics.Diagnostic` made with a code that is not registered here, or with
another severity than the registered one, raises :class:`UnregisteredCode`: a bug in gdl, not in
the rule file. ``docs/language.md`` ("Diagnostics") documents every code, and
``tests/diagnostics/<code>.gdl`` holds a rule file that produces each code the compiler reports
(``tests/test_diagnostics.py`` and ``tests/test_docs.py`` check both against this registry).

Where a code comes from (:class:`Stage`): the parser and compiler (``gdl.load`` reports it), a rule
that fails while the game runs, the dynamic checks of ``gdl check``, or reading the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum


class Severity(str, Enum):
    """How bad a diagnostic is: an error stops the game from loading (or a check from passing)."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Stage(str, Enum):
    """Where a diagnostic is found."""

    COMPILE = "compile"
    """Parsing and compiling the rule file (``gdl.load``, ``gdl.loader.check_source``)."""
    RUN = "run"
    """A rule that fails while the game runs (``game.explain(error)``), or a load-time budget of the game."""
    CHECK = "check"
    """The dynamic checks of ``gdl check`` (:mod:`gdl.check`): the rules run on every state or at random."""
    FILE = "file"
    """Reading the file (``gdl check`` on a file that is not UTF-8 text, or cannot be read)."""


@dataclass(frozen=True)
class Code:
    """One registered diagnostic code."""

    name: str
    """Stable and kebab-case, e.g. ``undefined-name``: tools match on it."""
    severity: Severity
    description: str
    """One line: what the problem is."""
    stages: frozenset[Stage]


class UnregisteredCode(LookupError):
    """A diagnostic made with an unknown code, or with another severity than its code's (a bug in gdl)."""


CODES: dict[str, Code] = {}
"""Every code by name, in registration order."""


def register(name: str, severity: Severity, description: str, *stages: Stage) -> Code:
    """Register a code once; registering a name twice is a bug."""
    if name in CODES:
        raise UnregisteredCode(f"diagnostic code {name!r} is registered twice")
    code = CODES[name] = Code(name, severity, description, frozenset(stages))
    return code


def lookup(name: str, severity: str | None = None) -> Code:
    """The registered code ``name``, checked against ``severity`` when given.

    :raises UnregisteredCode: no such code, or it has another severity.
    """
    code = CODES.get(name)
    if code is None:
        raise UnregisteredCode(f"diagnostic code {name!r} is not registered in gdl.codes")
    if severity is not None and severity != code.severity:
        raise UnregisteredCode(f"diagnostic code {name!r} is registered as {code.severity.value}, not {severity}")
    return code


def codes_of(stage: Stage) -> Iterator[Code]:
    """The codes found at ``stage``."""
    return (code for code in CODES.values() if stage in code.stages)


ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
COMPILE, RUN, CHECK, FILE = Stage.COMPILE, Stage.RUN, Stage.CHECK, Stage.FILE

# ------------------------------------------------------------------ the parser
register("syntax", ERROR, "the text does not follow the grammar", COMPILE)
register("indentation", ERROR, "a line's indentation matches no enclosing block", COMPILE)
register("line-break", ERROR, "a line-break character other than \\n or \\r\\n (lone \\r, form feed, ...)", COMPILE)
register("too-deep", ERROR, "expressions, blocks, loops or defs nested deeper than gdl allows", COMPILE, RUN)
register("unknown-aggregate", ERROR, "`name x in D: ...` with a name that is not an aggregate", COMPILE)

# ------------------------------------------------------------------ names and types
register("undefined-name", ERROR, "a name that is not declared", COMPILE)
register("undefined-function", ERROR, "a call of something that is not a `def` or a builtin", COMPILE)
register("duplicate", ERROR, "a name, move, board, setup, utility, heuristic, render or label declared twice",
         COMPILE)
register("reserved-name", ERROR, "declaring a reserved word (`mover`, `turn`, `win`, ...)", COMPILE)
register("redeclared", ERROR, "a local named like a local still visible there", COMPILE)
register("type", ERROR, "a value of the wrong type", COMPILE)
register("bad-type", ERROR, "a state, parameter or move parameter type that is not a set of values", COMPILE)
register("bad-index-domain", ERROR, "an array dimension that is not a non-empty contiguous range or type", COMPILE)
register("arity", ERROR, "a function or array used with the wrong number of arguments or indexes", COMPILE)
register("recursive-def", ERROR, "a `def` that calls itself, directly or not", COMPILE)

# ------------------------------------------------------------------ constants
register("not-constant", ERROR, "something that must be known at load time is not", COMPILE)
register("out-of-domain", ERROR, "a constant outside a variable's or parameter's range", COMPILE)
register("index-out-of-range", ERROR, "a constant index outside an array", COMPILE)
register("division-by-zero", ERROR, "a constant division by zero", COMPILE)
register("too-large", ERROR, "a number, range, state, chance or load-time fraction too large (or 100 errors)",
         COMPILE, RUN)
register("empty", ERROR, "`min`/`max` of an empty constant list", COMPILE)

# ------------------------------------------------------------------ statements and where things may appear
register("assign-to-constant", ERROR, "assigning something that is not a state variable or a local", COMPILE)
register("mover-outside-move", ERROR, "`mover` outside a move", COMPILE)
register("no-moves-here", ERROR, "`no_moves` outside end rules, `utility` and `heuristic`", COMPILE)
register("break-outside-loop", ERROR, "`break` outside a `for` loop", COMPILE)
register("again-in-setup", ERROR, "`again` in `setup`", COMPILE)
register("simultaneous-turn", ERROR, "`again` or an assignment to `turn` in a `simultaneous` game", COMPILE)
register("simultaneous-players", ERROR, "`simultaneous` in a game with fewer than two players", COMPILE)
register("chance-in-loop", ERROR, "a chance inside a `for` loop", COMPILE)
register("chance-in-setup", ERROR, "a chance in `setup`", COMPILE)
register("empty-chance", ERROR, "a chance over no outcomes", COMPILE)
register("turn-in-utility", ERROR, "`turn` read in a `utility` line, where nobody is to move", COMPILE)

# ------------------------------------------------------------------ the board
register("no-board", ERROR, "a board function without a `board` declaration", COMPILE)
register("board-size", ERROR, "a board outside 1..99 rows by 1..26 columns", COMPILE)
register("board-shape", ERROR, "an unknown board shape", COMPILE)
register("bad-symmetry", ERROR, "an unknown symmetry, or one the board does not have", COMPILE)

# ------------------------------------------------------------------ the game as a whole
register("missing-players", ERROR, "no `players` line", COMPILE)
register("too-many-players", ERROR, "more than 16 players", COMPILE)
register("missing-moves", ERROR, "no `move`", COMPILE)
register("missing-terminal", ERROR, "no end rule", COMPILE)
register("missing-utility", ERROR, "`terminal when` without `utility`", COMPILE)
register("bad-probability", ERROR, "chance probabilities that are negative or do not sum to 1", COMPILE, CHECK)
register("not-zero-sum", ERROR, "`zero_sum` for a game whose utilities do not sum to 0", COMPILE, CHECK)

# ------------------------------------------------------------------ warnings of the compiler
register("missing-game", WARNING, "no `game Name` line", COMPILE)
register("unknown-meta", WARNING, "a `meta` key gdl does not know", COMPILE)
register("unused", WARNING, "a state variable, function or parameter never used", COMPILE)
register("unused-binder", WARNING, "`win p when ...` whose condition does not mention `p`", COMPILE)
register("never-legal", WARNING, "a move that is never legal", COMPILE, CHECK)
register("quiet-without-heuristic", WARNING, "`quiet when` in a game without a `heuristic`", COMPILE)
register("shadowed-state", WARNING, "`let x` where `x` is also a state variable", COMPILE)
register("internal", ERROR, "a bug in gdl's compiler, not in the rule file", COMPILE)

# ------------------------------------------------------------------ running the rules
register("runtime-error", ERROR, "a rule failed while the game ran", RUN, CHECK)
register("symmetry-broken", ERROR, "a declared symmetry the rules do not have", RUN, CHECK)

# ------------------------------------------------------------------ gdl check
register("dead-end", ERROR, "a decision state, not terminal, where the player to move has no legal move", CHECK)
register("no-chance", ERROR, "a chance state with no outcome", CHECK)
register("bad-utility", ERROR, "a terminal state without one utility per player, or outside the declared bounds",
         CHECK)
register("duplicate-move", ERROR, "two legal moves with the same name", CHECK)
register("bad-turn", ERROR, "the turn is not a player", CHECK)
register("never-ends", WARNING, "an end rule that ends the game in no reachable state", CHECK)
register("endless-cycle", INFO, "play can cycle forever without reaching an end", CHECK)
register("no-end", WARNING, "a random game still going after `--max-plies` plies", CHECK)
register("backend-disagrees", ERROR,
         "the C back end plays the rules differently from the Python back end (a bug in gdl)", CHECK)
register("backend-untranslated", ERROR,
         "`gdl check --backend c`: a construct of the file the C emitter does not translate yet", CHECK)
register("backend-overflow", ERROR,
         "`gdl check --backend c`: the C back end met a number past 64 bits that the Python back end computes", CHECK)

# ------------------------------------------------------------------ reading the file
register("encoding", ERROR, "a rule file that is not UTF-8 text", FILE)
register("unreadable", ERROR, "a rule file that cannot be read", FILE)
