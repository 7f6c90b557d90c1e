"""The IR's expressions and statements, each expression with its facts (see :mod:`gdl.compiler.ir`)."""


from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar, TypeAlias

from gdl.diagnostics import Span
from gdl.types import Type

NOT_CONST: Any = object()
"""The ``const`` of a node whose value is not known at load time."""

Number: TypeAlias = int | Fraction
Interval: TypeAlias = tuple[Number, Number]
"""Inclusive low and high of a number's values."""

CHANCE, TERMINAL = -1, -2
"""The turn slot's values in a chance state and in a terminal state."""


# ------------------------------------------------------------------------------------------ facts


@dataclass(slots=True, unsafe_hash=True)
class Reads:  # (immutable by convention: a frozen dataclass is slow to make, and compiling makes many)
    """The state an expression reads: fixed slots, and whether it reads the turn or a slot known only
    at run time (an index computed from a variable). ``slots_if_known`` is None unless all are fixed."""

    slots: frozenset[int] = frozenset()
    turn: bool = False
    dynamic: bool = False

    NOTHING: ClassVar[Reads]

    def __or__(self, other: Reads) -> Reads:
        """The union (a new object only when it differs from both: compiling makes many of these)."""
        if other is self or not (other.slots or other.turn or other.dynamic):
            return self
        if not (self.slots or self.turn or self.dynamic):
            return other
        if self.dynamic and other.dynamic and not other.slots and (self.turn or not other.turn):
            return self  # (unknown already: nothing to add)
        return Reads(self.slots | other.slots, self.turn or other.turn, self.dynamic or other.dynamic)

    @property
    def slots_if_known(self) -> frozenset[int] | None:
        """The fixed slots read, or None when the turn or a run-time slot is read too."""
        return None if self.turn or self.dynamic else self.slots

    @property
    def anything(self) -> bool:
        return bool(self.slots) or self.turn or self.dynamic


Reads.NOTHING = Reads()


def union_reads(nodes: Sequence[Expr | None]) -> Reads:
    out = Reads.NOTHING
    for node in nodes:
        if node is not None:
            out = out | node.reads
    return out


def union_free(nodes: Sequence[Expr | None]) -> frozenset[int]:
    out: frozenset[int] = frozenset()
    for node in nodes:
        if node is not None and node.free:
            out = out | node.free
    return out


# ------------------------------------------------------------------------------------ expressions


@dataclass(slots=True, eq=False)
class Var:
    """A local: a move parameter, a `let`, a loop or aggregate variable, a def parameter, a chance
    variable, the player of `win p when` / `utility p:`. ``id`` is unique in the program (two locals
    with one rule-file name are two Vars); ``name`` is the rule-file name (for messages only)."""

    id: int
    name: str
    type: Type
    bounds: Interval | None = None
    mutable: bool = False  # a `let` (assignable); every other local is fixed once bound
    span: Span | None = None


@dataclass(slots=True, eq=False)
class Expr:
    """An expression. The facts are fields; subclasses fill them in ``__post_init__`` from their
    children unless the builder gave them (a pass that knows better bounds passes them in)."""

    type: Type

    children: ClassVar[tuple[str, ...]] = ()
    """Names of the fields holding sub-expressions (an Expr, a tuple of Expr, or None)."""

    @property
    def const(self) -> Any:
        return NOT_CONST

    @property
    def is_const(self) -> bool:
        return self.const is not NOT_CONST

    @property
    def bounds(self) -> Interval | None:
        return None

    @property
    def reads(self) -> Reads:
        return union_reads(list(self.subexpressions()))

    @property
    def free(self) -> frozenset[int]:
        return union_free(list(self.subexpressions()))

    @property
    def may_fail(self) -> bool:
        return _children_may_fail(self)

    def subexpressions(self) -> Iterator[Expr]:
        for name in self.children:
            value = getattr(self, name)
            if isinstance(value, Expr):
                yield value
            elif isinstance(value, tuple):
                yield from (v for v in value if isinstance(v, Expr))


def _children_may_fail(node: Expr) -> bool:
    return any(e.may_fail for e in node.subexpressions())


@dataclass(slots=True, eq=False)
class Const(Expr):
    """A value known at load time: a number (``int`` or exact ``Fraction``), a boolean, -1 for ``none``,
    an entity index, or a sequence (a ``tuple``/``range`` of those)."""

    value: Any = None

    @property
    def const(self) -> Any:
        return self.value

    @property
    def bounds(self) -> Interval | None:
        if isinstance(self.value, int | Fraction) and not isinstance(self.value, bool):
            return (self.value, self.value)
        return None

    @property
    def reads(self) -> Reads:
        return Reads.NOTHING

    @property
    def free(self) -> frozenset[int]:
        return frozenset()

    @property
    def may_fail(self) -> bool:
        return False


@dataclass(slots=True, eq=False)
class Local(Expr):
    """The value of a local variable."""

    var: Var | None = None

    @property
    def bounds(self) -> Interval | None:
        return self.var.bounds if self.var else None

    @property
    def free(self) -> frozenset[int]:
        return frozenset((self.var.id,)) if self.var else frozenset()


@dataclass(slots=True, eq=False)
class Slot(Expr):
    """A read of one state slot: ``index`` is the flat slot (a Const for a fixed slot). ``var`` names
    the state variable (its layout entry says the slot's bounds); ``checked`` index arithmetic is in
    ``index`` itself (a :class:`Check`)."""

    var: str = ""
    index: Expr | None = None
    value_bounds: Interval | None = None

    children: ClassVar[tuple[str, ...]] = ("index",)

    @property
    def bounds(self) -> Interval | None:
        return self.value_bounds

    @property
    def reads(self) -> Reads:
        assert self.index is not None
        if self.index.is_const:
            return Reads(frozenset((int(self.index.const),)))
        return Reads(dynamic=True) | self.index.reads


@dataclass(slots=True, eq=False)
class Turn(Expr):
    """The player to move (in `utility`/`heuristic` also CHANCE or TERMINAL: ``bounds`` says so)."""

    value_bounds: Interval | None = None

    @property
    def bounds(self) -> Interval | None:
        return self.value_bounds

    @property
    def reads(self) -> Reads:
        return Reads(turn=True)


@dataclass(slots=True, eq=False)
class Mover(Expr):
    """Inside a move's effects: the player who moves (``mover``, and ``turn`` there)."""


@dataclass(slots=True, eq=False)
class NoMoves(Expr):
    """``no_moves``: the player to move has no legal move (end rules, utility, heuristic only)."""

    @property
    def reads(self) -> Reads:
        return Reads(turn=True, dynamic=True)

    @property
    def may_fail(self) -> bool:
        return True


@dataclass(slots=True, eq=False)
class Unary(Expr):
    """``-x`` (op ``"-"``) or ``not x`` (op ``"not"``)."""

    op: str = "-"
    operand: Expr | None = None
    value_bounds: Interval | None = None

    children: ClassVar[tuple[str, ...]] = ("operand",)

    @property
    def bounds(self) -> Interval | None:
        return self.value_bounds


@dataclass(slots=True, eq=False)
class Binary(Expr):
    """Arithmetic: ``+ - * / // %``. ``checked``: a zero divisor (for ``/ // %``) or a result too large
    (for ``+ - *``) is a rule error at ``span`` (the Python emitter calls ``_arith``/``_big``; a C emitter
    tests before it computes). ``/`` is exact (a Fraction at load time); ``//`` and ``%`` floor."""

    op: str = "+"
    left: Expr | None = None
    right: Expr | None = None
    checked: bool = False
    span: Span | None = None
    value_bounds: Interval | None = None
    chained: bool = False
    """``left`` is a link of the same sum of many terms (an unrolled ``count`` or ``sum`` is such a chain)."""

    children: ClassVar[tuple[str, ...]] = ("left", "right")

    @property
    def bounds(self) -> Interval | None:
        return self.value_bounds

    @property
    def may_fail(self) -> bool:
        return self.checked or self.op in ("/", "//", "%", "*") or _children_may_fail(self)


@dataclass(slots=True, eq=False)
class Compare(Expr):
    """A chain of comparisons ``a < b <= c`` (ops ``== != < <= > >= in``, ``not in``)."""

    ops: tuple[str, ...] = ()
    operands: tuple[Expr, ...] = ()

    children: ClassVar[tuple[str, ...]] = ("operands",)


@dataclass(slots=True, eq=False)
class BoolOp(Expr):
    """``and`` / ``or`` of two or more operands, evaluated left to right. ``implication``: an ``or`` of
    ``not filter`` and ``body``, the implication ``filter -> body`` (a term of an unrolled ``all ... where``).
    ``scan``: a conjunction of ``s[i] != v`` over consecutive fixed slots that an unrolled ``all`` built (the
    Python back end tests it as one scan of the slice, ``v not in s[a:b]``)."""

    op: str = "and"
    operands: tuple[Expr, ...] = ()
    implication: bool = False
    scan: bool = False

    children: ClassVar[tuple[str, ...]] = ("operands",)

    def disjuncts(self) -> tuple[Expr, ...]:
        """The terms of a disjunction, flattened (end rules are re-checked term by term)."""
        if self.op != "or":
            return (self,)
        out: list[Expr] = []
        for operand in self.operands:
            out.extend(operand.disjuncts() if isinstance(operand, BoolOp) else (operand,))
        return tuple(out)


@dataclass(slots=True, eq=False)
class IfExpr(Expr):
    test: Expr | None = None
    then: Expr | None = None
    orelse: Expr | None = None

    children: ClassVar[tuple[str, ...]] = ("test", "then", "orelse")

    @property
    def bounds(self) -> Interval | None:
        a = self.then.bounds if self.then else None
        b = self.orelse.bounds if self.orelse else None
        return (min(a[0], b[0]), max(a[1], b[1])) if a and b else None


@dataclass(slots=True, eq=False)
class Range(Expr):
    """``lo..hi`` computed at run time (a constant range is a Const). ``long``: not proved short, so
    loops over it are polled and it is refused past ``gdl.rule_helpers.MAX_RANGE`` values."""

    lo: Expr | None = None
    hi: Expr | None = None
    long: bool = False

    children: ClassVar[tuple[str, ...]] = ("lo", "hi")


@dataclass(slots=True, eq=False)
class SeqLit(Expr):
    """A list or set literal with run-time items (``unique``: a set keeps the first of equal items)."""

    items: tuple[Expr, ...] = ()
    unique: bool = False

    children: ClassVar[tuple[str, ...]] = ("items",)


@dataclass(slots=True, eq=False)
class Index(Expr):
    """``seq[i]`` of a run-time sequence: an index outside it is a rule error at ``span``."""

    seq: Expr | None = None
    index: Expr | None = None
    span: Span | None = None

    children: ClassVar[tuple[str, ...]] = ("seq", "index")

    @property
    def may_fail(self) -> bool:
        return True


@dataclass(slots=True, eq=False)
class Table(Expr):
    """A lookup in a constant table (board geometry: ``row``, ``step``, ``ray``, ``neighbors`` ...):
    ``table[a][b]...``. ``checked[i]``: argument i is tested against the table's size (else proved in
    range). The rows' longest length bounds a loop over the result."""

    name: str = ""
    table: Any = ()
    args: tuple[Expr, ...] = ()
    checked: tuple[bool, ...] = ()
    span: Span | None = None
    arg_spans: tuple[Span | None, ...] = ()
    """Each argument's own span (where a checked argument's rule error points), when the builder knows it."""

    children: ClassVar[tuple[str, ...]] = ("args",)

    @property
    def may_fail(self) -> bool:
        return any(self.checked) or _children_may_fail(self)

    def longest_row(self) -> int | None:
        """The most values an element of this table holds (for a table of sequences), else None."""
        rows = [self.table]
        try:
            for _ in self.args:
                rows = [row for table in rows for row in table]
            return max((len(row) for row in rows), default=0)
        except TypeError:
            return None


@dataclass(slots=True, eq=False)
class Builtin(Expr):
    """A built-in function computed at run time: ``abs min max len sum next opponent connected
    cell_at`` (with ``min_of``/``max_of`` of one sequence, which fail when it is empty)."""

    name: str = ""
    args: tuple[Expr, ...] = ()
    span: Span | None = None
    value_bounds: Interval | None = None

    children: ClassVar[tuple[str, ...]] = ("args",)

    @property
    def bounds(self) -> Interval | None:
        return self.value_bounds

    @property
    def may_fail(self) -> bool:
        return self.name in ("min_of", "max_of", "next") or _children_may_fail(self)


@dataclass(slots=True, eq=False)
class Check(Expr):
    """A run-time check that keeps a value in range, else a rule error at ``span``:

    * ``"index"``: ``lo <= value <= hi`` for an array index (``_ix``);
    * ``"domain"``: ``lo <= value <= hi`` for a value stored or passed to a def (``_dom``);
    * ``"among"``: ``value in allowed`` (a state whose values have gaps, ``_among``);
    * ``"some"``: ``value != none`` (``_some``);
    * ``"number"``: a utility a float can hold (``_num``); ``"float"``: a heuristic (``_flt``).
    """

    kind: str = "domain"
    value: Expr | None = None
    lo: int = 0
    hi: int = 0
    allowed: frozenset[int] | None = None
    span: Span | None = None

    children: ClassVar[tuple[str, ...]] = ("value",)

    @property
    def bounds(self) -> Interval | None:
        return (self.lo, self.hi) if self.kind in ("index", "domain") else self.value.bounds if self.value else None

    @property
    def may_fail(self) -> bool:
        return True


@dataclass(slots=True, eq=False)
class Aggregate(Expr):
    """``kind var in domain where filter: body`` for kind ``any all count sum min max first select``,
    computed at run time (a small constant domain is unrolled into the operators instead). ``poll``:
    the loop may be long, so it counts toward the rule budget."""

    kind: str = "any"
    var: Var | None = None
    domain: Expr | None = None
    filter: Expr | None = None
    body: Expr | None = None
    poll: bool = False
    span: Span | None = None
    domain_span: Span | None = None
    """The domain's own span (where a polled loop's budget error points), when the builder knows it."""

    children: ClassVar[tuple[str, ...]] = ("domain", "filter", "body")

    @property
    def free(self) -> frozenset[int]:
        inner = union_free([self.filter, self.body])
        if self.var is not None:
            inner = inner - {self.var.id}
        return union_free([self.domain]) | inner

    @property
    def may_fail(self) -> bool:
        return self.kind in ("min", "max") or _children_may_fail(self)


@dataclass(slots=True, eq=False)
class Evaluate(Expr):
    """Evaluate ``first`` (for the rule errors they may raise, in order), then give ``value``: a def whose
    result is a constant still checks its arguments (`one(n + 5)` fails when 5 is outside its domain)."""

    first: tuple[Expr, ...] = ()
    value: Expr | None = None

    children: ClassVar[tuple[str, ...]] = ("first", "value")

    @property
    def const(self) -> Any:
        return NOT_CONST

    @property
    def bounds(self) -> Interval | None:
        return self.value.bounds if self.value else None


@dataclass(slots=True, eq=False)
class Call(Expr):
    """A call of a def that was not inlined (``def_reads``: what its body reads, from :class:`Def`)."""

    name: str = ""
    args: tuple[Expr, ...] = ()
    def_reads: Reads = field(default_factory=Reads)

    children: ClassVar[tuple[str, ...]] = ("args",)

    @property
    def reads(self) -> Reads:
        return self.def_reads | union_reads(list(self.args))

    @property
    def may_fail(self) -> bool:
        return True


# ------------------------------------------------------------------------------------- statements


@dataclass(slots=True, eq=False)
class Stmt:
    span: Span | None


@dataclass(slots=True, eq=False)
class AssignSlot(Stmt):
    """``state[...] = value`` (``op`` ``=``, or ``+ - * ...`` for ``+=`` ...): the value is already
    wrapped in the :class:`Check` that keeps it in the variable's domain when that is not proved."""

    var: str
    slot: Expr
    op: str
    value: Expr
    augmented: bool = False
    """Written ``x op= v``: ``value`` is ``Binary(op, x, v)`` (inside its domain :class:`Check`, if any)."""
    track_write: bool = False
    """The move's only write to the state: the Python back end keeps its slot (``_w``) for the incremental
    end check (``Effect.single_write``)."""


@dataclass(slots=True, eq=False)
class AssignLocal(Stmt):
    var: Var
    op: str
    value: Expr
    augmented: bool = False
    """Written ``x op= v``: ``value`` is ``Binary(op, x, v)``."""


@dataclass(slots=True, eq=False)
class Let(Stmt):
    var: Var
    value: Expr


@dataclass(slots=True, eq=False)
class SetTurn(Stmt):
    """``turn = p`` in a move: who moves next (``again`` is ``SetTurn(Mover)``)."""

    value: Expr


@dataclass(slots=True, eq=False)
class If(Stmt):
    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    orelse: tuple[Stmt, ...] | None
    test_spans: tuple[Span, ...] = ()
    """Each branch's test's own span (where the Python back end maps its ``if``/``elif`` line), when known."""


@dataclass(slots=True, eq=False)
class For(Stmt):
    var: Var
    domain: Expr
    body: tuple[Stmt, ...]
    poll: bool = False
    domain_span: Span | None = None
    """The domain's own span (where a polled loop's budget error points), when known."""


@dataclass(slots=True, eq=False)
class Break(Stmt):
    pass


@dataclass(slots=True, eq=False)
class Suspend(Stmt):
    """A chance point inside a move: the move stops here in a chance state (``saved`` locals kept in
    it), and :class:`ChancePoint` ``point`` resumes it with nature's pick."""

    point: int
    saved: tuple[Var, ...]


def substitute(expr: Expr, mapping: dict[int, Expr]) -> Expr:
    """``expr`` with every :class:`Local` of a variable in ``mapping`` (by id) replaced by its expression; the
    nodes above a replacement are rebuilt (their facts follow), the rest shared."""
    if isinstance(expr, Local) and expr.var is not None and expr.var.id in mapping:
        return mapping[expr.var.id]
    changes: dict[str, Any] = {}
    for name in expr.children:
        value = getattr(expr, name)
        if isinstance(value, Expr):
            new = substitute(value, mapping)
            if new is not value:
                changes[name] = new
        elif isinstance(value, tuple):
            items = tuple(substitute(v, mapping) if isinstance(v, Expr) else v for v in value)
            if any(a is not b for a, b in zip(items, value, strict=True)):
                changes[name] = items
    return dataclasses.replace(expr, **changes) if changes else expr


def walk(expr: Expr) -> Iterator[Expr]:
    """``expr`` and every expression inside it, depth first."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.subexpressions())
