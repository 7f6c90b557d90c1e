"""The typed intermediate representation: what checking produces and every back end reads.

A checked rule file is a :class:`Program`: the state layout, the defs, the moves (parameters with
their domains, guard, effects), the chance points with their probabilities, the end rules, the
utility, the heuristic and the render table. Every expression node carries its **facts**, computed
once when the node is built (from its children, never from generated text):

* ``type`` -- a :class:`gdl.types.Type` (``int``, ``real``, ``bool``, ``player``, ``cell``, ``dir``,
  an enumeration, ``none``, or a sequence of one of these);
* ``bounds`` -- the interval of its values when known (an :data:`Interval`; numbers only);
* ``const`` -- its value when known at load time (:data:`NOT_CONST` otherwise); a constant node is a
  :class:`Const`;
* ``reads`` -- the state slots it reads (:class:`Reads`: fixed slots, plus whether it reads the turn
  or slots known only at run time);
* ``free`` -- its free variables (the :class:`Var` ids it uses and does not bind);
* ``may_fail`` -- whether evaluating it may raise a rule error (a run-time check, a division, a call).

A back end needs nothing else: a C emitter (:mod:`gdl.native`) walks these nodes and asks the checker
nothing. The passes build the IR of every expression and statement as they check it (folded, unrolled
and inlined), and the Python back end's module is written from it (:mod:`gdl.compiler.emit_py`,
:mod:`gdl.compiler.emit_py_stmt`); a compiled game's IR is ``game.program.ir``.
``tests/ir_eval.py`` is a plain evaluator of it, played against the generated code. Nodes are immutable.

Lowering choices a back end may rely on: ``+=`` and friends become ``x = x + v`` (``op`` is ``=``) with
the domain :class:`Check` around the new value; the ``after every move`` block is compiled into each
move's :class:`Effect` (``Program.after_every`` stays empty); ``turn = p`` and ``again`` are
:class:`SetTurn`; after an effect the turn is the next player unless it set one, then the end rules
are tested in order (the first that holds sets the status, and the turn becomes TERMINAL).

State layout (:class:`StateLayout`): a flat array of integers. Each :class:`StateSlotVar` occupies
``size`` consecutive slots from ``offset`` (row-major over its dimensions), every slot holding a value in
``lo..hi`` (``none`` is -1, a boolean 0/1). After the variables: the turn (a player index, CHANCE=-1,
TERMINAL=-2), the status (0 while the game runs, else the end rule's status code), and, in a chance
state only, the chance point, the mover, the turn assigned so far and the move's saved locals
(``max_saved`` of them at most) -- so a C back end can pack every state into ``layout.max_slots`` ints.

Stability: other back ends build on this module. Changes are additive only (new node kinds, new optional
fields with defaults); each is noted on the project's status board.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from gdl.compiler.ir_expr import (  # noqa: F401 (the IR is one namespace: `from gdl.compiler import ir`)
    CHANCE,
    NOT_CONST,
    TERMINAL,
    Aggregate,
    AssignLocal,
    AssignSlot,
    Binary,
    BoolOp,
    Break,
    Builtin,
    Call,
    Check,
    Compare,
    Const,
    Evaluate,
    Expr,
    For,
    If,
    IfExpr,
    Index,
    Interval,
    Let,
    Local,
    Mover,
    NoMoves,
    Number,
    Range,
    Reads,
    SeqLit,
    SetTurn,
    Slot,
    Stmt,
    Suspend,
    Table,
    Turn,
    Unary,
    Var,
    substitute,
    union_free,
    union_reads,
    walk,
)
from gdl.diagnostics import Span
from gdl.types import Type

# ---------------------------------------------------------------------------------- declarations


@dataclass(frozen=True, slots=True)
class StateSlotVar:
    """One state variable: ``size`` slots from ``offset``; ``dims`` (low index, size) per dimension."""

    name: str
    type: Type
    offset: int
    dims: tuple[tuple[int, int], ...]
    index_types: tuple[Type, ...]
    lo: int
    hi: int
    values: frozenset[int] | None = None  # the values allowed when lo..hi has gaps

    @property
    def size(self) -> int:
        return math.prod(size for _, size in self.dims)


@dataclass(frozen=True, slots=True)
class StateLayout:
    vars: tuple[StateSlotVar, ...]
    nvars: int  # slots of the variables; the turn is slot nvars, the status nvars + 1
    has_chance: bool = False
    max_saved: int = 0  # the most locals a chance state saves

    @property
    def turn_slot(self) -> int:
        return self.nvars

    @property
    def status_slot(self) -> int:
        return self.nvars + 1

    @property
    def extra_base(self) -> int:
        """Where a chance state's extras start: point, mover, turn so far, then the saved locals."""
        return self.nvars + 2

    @property
    def max_slots(self) -> int:
        return self.nvars + 2 + (3 + self.max_saved if self.has_chance else 0)


@dataclass(frozen=True, slots=True)
class Def:
    """A def that stays a function (it was not inlined everywhere, or is called with run-time args)."""

    name: str
    params: tuple[Var, ...]
    body: Expr
    span: Span
    calls_defs: bool = False  # its body calls defs: each call counts toward the rule budget


@dataclass(frozen=True, slots=True)
class Param:
    """A move parameter and its domain (a Const when known at load time)."""

    var: Var
    domain: Expr
    poll: bool = False
    span: Span | None = None  # the parameter's span, when known
    domain_span: Span | None = None  # its domain's own span (where a polled loop's budget error points)


@dataclass(frozen=True, slots=True)
class Effect:
    """A move's effects (or ``setup``), up to its first chance point. ``single_write``: it writes at most
    one state slot, so the end rules are re-checked only where that slot can make them true."""

    body: tuple[Stmt, ...]
    single_write: bool = False


@dataclass(frozen=True, slots=True)
class Move:
    """``move name(params) when guard: effects``; ``otherwise`` moves are legal only when no other is.
    ``specialised``: for a few constant parameter combinations, one (values, guard, effect) each."""

    name: str
    index: int
    params: tuple[Param, ...]
    guard: Expr | None
    effect: Effect | None
    span: Span
    otherwise: bool = False
    specialised: tuple[tuple[tuple[Any, ...], Expr | None, Effect], ...] | None = None
    specialised_ids: tuple[int, ...] = ()
    """Each specialised combination's place among all the constant combinations (those whose guard is always
    false are left out of ``specialised``): the Python back end names its move and effect by it."""


@dataclass(frozen=True, slots=True)
class Continuation:
    """What runs after nature picks: restore ``saved`` locals, bind ``bind`` to the pick, run ``body``."""

    bind: Var | None
    body: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class ChancePoint:
    """A chance point ``point``: either ``var in domain`` (weighted by ``weight``, an expression of
    ``var``; uniform when None) or labelled ``branches`` with probabilities. ``distribution``: the
    outcomes and exact probabilities when known at load time."""

    point: int
    saved: tuple[Var, ...]
    span: Span
    var: Var | None = None
    domain: Expr | None = None
    weight: Expr | None = None
    labels: tuple[str, ...] = ()
    probabilities: tuple[Expr, ...] = ()
    continuations: tuple[Continuation, ...] = ()
    distribution: tuple[tuple[Any, Fraction], ...] | None = None
    weight_span: Span | None = None  # the weight's own span, when known


@dataclass(frozen=True, slots=True)
class EndRule:
    """``kind who when condition`` (kind ``win lose draw terminal``): when ``condition`` holds after a
    move, the game ends with ``status`` (an Expr of the player for ``win p``/``lose p``)."""

    kind: str
    condition: Expr
    status: Expr
    span: Span
    terms: tuple[Expr, ...] = ()
    """The disjunct terms of ``condition`` (it holds when one of them does), when it has several: after a move
    that wrote one slot, only the terms that read it can have become true (the incremental end check)."""
    term_slots: tuple[tuple[int, ...] | None, ...] = ()
    """The slots each term (``terms``, else the condition alone) reads, in order, as the checker counted them when
    it compiled the rule (None: the turn, or slots known only at run time): coarser than the nodes' own ``reads``
    where a def is called (any slot, where the node knows the def's body). The Python back end's incremental end
    check follows it."""


@dataclass(frozen=True, slots=True)
class Scoring:
    """``utility p: expr`` or ``heuristic p: expr``: a number per player ``var``."""

    var: Var
    expr: Expr
    span: Span
    decl_span: Span | None = None  # the whole declaration's span, when known


@dataclass(frozen=True, slots=True)
class Program:
    """A checked rule file for one set of parameters, ready for any back end."""

    name: str
    players: tuple[str, ...]
    layout: StateLayout
    initial: tuple[Any, ...]
    setup: Effect
    defs: tuple[Def, ...]
    moves: tuple[Move, ...]
    chance: tuple[ChancePoint, ...]
    ends: tuple[EndRule, ...]
    end_utilities: tuple[tuple[float, ...] | None, ...]  # per status code; None: the `utility` scores it
    utility: Scoring | None
    utility_bounds: tuple[float, float] | None
    heuristic: Scoring | None
    after_every: tuple[Stmt, ...] = ()
    render: tuple[str, dict[int, str]] | None = None
    zero_sum: bool = False
    parameters: dict[str, Any] = field(default_factory=dict)
    board: Any = None  # the gdl.board.Board, when the rules declare one (its geometry: cell_at, tables)
    simultaneous: bool = False  # `simultaneous`: each decision state is a round, every player picks at once
    quiet: Expr | None = None  # `quiet when`: the positions a depth-limited search may score (None: all)
