"""Shared vocabulary of the compiler passes: limits, the compiled-expression record (:class:`Code`), symbols, scopes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from gdl import ast
from gdl.compiler import ir
from gdl.compiler.ir import NOT_CONST, Reads
from gdl.compiler.program import StateVar as StateVar  # (the runtime's too: defined with the program)
from gdl.types import Type

UNKNOWN_READS = Reads(dynamic=True)



WIN, LOSE, DRAW = 1, -1, 0


RESERVED = {"mover", "turn", "win", "lose", "draw", "true", "false", "none"}


MAX_DOMAIN = 1_000_000  # a move parameter or loop over more values than this is refused


MAX_STATE = 1_000_000  # slots


UNROLL_MOVES = 128  # moves with at most this many parameter combinations get one specialised function each


UNROLL_QUANTIFIER = 128  # aggregates over at most this many constant values are written out in full


INLINE_LIMIT = 4000  # operations (Code.size) a def's body may have to be inlined (an aggregate's: 4 times that)


UNROLL_BUDGET = 20_000  # aggregate bodies written out per rule file (nested unrolling multiplies them)


INLINE_BUDGET = 20_000  # def bodies inlined per rule file (defs that call defs twice double them per level)


MAX_EVALUATIONS = 100_000_000  # a move's parameter combinations, or the def calls one call makes, at most
# (each is a rule evaluation of its own: a move over 10^12 pairs, or a def that calls another twice forty levels
# deep, cannot be evaluated in any reasonable time, whatever the budget: `too-large` at load time)

MAX_DEF_DEPTH = 40  # defs calling defs, nested (a deeper chain would exhaust Python's recursion)


MAX_BLOCK_DEPTH = 40  # `if`/`for` blocks nested in one move (Python refuses 100 levels of indentation)


MAX_LOOP_DEPTH = 15  # `for` loops, or move parameters, nested (Python refuses 20 nested loops)


MAX_ERRORS = 100  # errors reported per rule file; checking stops at the 100th


MAX_FRACTION_BITS = 1024  # numerator or denominator of a fraction computed at load time


POLL_WEIGHT = 100_000


UNKNOWN_SIZE = 1_000


SMALL_NUMBER = 1 << 62  # a product proved within this needs no run-time check of its size (see runtime._big)


VALUE_ERRORS = ("index-out-of-range", "division-by-zero", "out-of-domain", "too-large", "empty", "bad-probability",
                "empty-chance")


@dataclass(slots=True, init=False)
class Code:
    """A compiled expression: its type, its value when known at load time, its facts, and its IR.

    The facts are built with the code, from the facts of its parts (:func:`derived`), never read back
    from text: which state it reads, whether it may raise a rule error, whether it calls a def. It has no
    Python text: the Python emitter writes the module from the IR.
    """

    type: Type
    const: Any = NOT_CONST
    terms: tuple[Code, ...] | None = None
    """For a disjunction: each disjunct (end rules are re-checked term by term)."""
    bounds: tuple[Any, Any] | None = None
    """Low and high of a number's possible values, when known (an assignment inside them needs no check)."""
    reads: Reads = UNKNOWN_READS
    """The state it reads (unknown, so every slot, unless the code that built it said)."""
    may_fail: bool = True
    """Evaluating it may raise a rule error (a check, a call, an index, a division, a product)."""
    calls_def: bool = False
    """It calls a def (one that was not inlined): a def whose body does counts toward the rule budget."""
    slot: int | None = None
    """It is a plain read of this fixed state slot."""
    slot_test: tuple[int, int] | None = None
    """It is ``slot != value`` for a fixed slot and a small whole number (the value)."""
    rows: int | None = None
    """A lookup in a board table of sequences: the longest of them (a loop over it sees at most that many)."""
    long_range: bool = False
    """A range computed at run time and not proved short (loops over it count toward the rule budget)."""
    simple: bool = False
    """A plain local name (an inlined def may substitute it for its parameter)."""
    size: int = 1
    """How many operations it is made of (a leaf is one): what inlining and unrolling budget, counted as the
    code is built from its parts, never measured on the generated text."""
    node: ir.Expr | Callable[[], ir.Expr] | None = None
    """The same expression in the typed IR (what the back ends read, the Python emitter included), or how
    to make it: it is made only when asked for (:func:`node`)."""

    def __init__(self, type: Type, const: Any = NOT_CONST, terms: tuple[Code, ...] | None = None,
                 bounds: tuple[Any, Any] | None = None, reads: Reads = UNKNOWN_READS, may_fail: bool = True,
                 calls_def: bool = False, slot: int | None = None, slot_test: tuple[int, int] | None = None,
                 rows: int | None = None, long_range: bool = False, simple: bool = False,
                 node: ir.Expr | Callable[[], ir.Expr] | None = None, size: int = 1) -> None:
        # (written out, not generated: one call instead of two for each of the many codes a compile makes)
        self.type = type
        self.const = const
        self.terms = terms
        self.bounds = bounds
        if const is not NOT_CONST:  # (its IR, an ir.Const, is made when asked for: see node())
            reads, may_fail = Reads.NOTHING, False
        self.reads = reads
        self.may_fail = may_fail
        self.calls_def = calls_def
        self.slot = slot
        self.slot_test = slot_test
        self.rows = rows
        self.long_range = long_range
        self.simple = simple
        self.node = node
        self.size = size

    @property
    def is_const(self) -> bool:
        return self.const is not NOT_CONST


def node(code: Code) -> ir.Expr:
    """The IR of compiled code (every Code has one; a constant's is made here, on first use)."""
    made = code.node
    if made is None:
        assert code.const is not NOT_CONST, code
        made = code.node = ir.Const(code.type, value=code.const)
    elif not isinstance(made, ir.Expr):
        made = code.node = made()
    return made


def derived(typ: Type, parts: Sequence[Code | None], *, fails: bool = False, reads: Reads | None = None,
            bounds: tuple[Any, Any] | None = None, **facts: Any) -> Code:
    """Code made of ``parts``: it reads what they read (and ``reads``), and may fail if one of them may
    (or ``fails``: the code adds a check, a call, an index or a division of its own)."""
    union = Reads.NOTHING if reads is None else reads
    calls_def = bool(facts.pop("calls_def", False))
    size = 1
    for part in parts:  # (one pass: this runs for every operator of every unrolled body)
        if part is not None:
            union = union | part.reads
            fails = fails or part.may_fail
            calls_def = calls_def or part.calls_def
            size += part.size
    return Code(typ, bounds=bounds, reads=union, may_fail=fails, calls_def=calls_def, size=size, **facts)


@dataclass(slots=True)
class DefInfo:
    decl: ast.DefDecl
    pyname: str
    param_types: list[Type] = field(default_factory=list)
    param_bounds: list[tuple[int, int] | None] = field(default_factory=list)  # of a whole-number range domain
    result: Code | None = None  # set once compiled
    in_progress: bool = False
    used: bool = False
    reads_turn: bool = False  # its body reads `turn`, directly or through defs it calls (not in `utility`)
    body: Code | None = None  # its compiled body, when it is not a constant
    cost: int = 1  # the def calls one call of it makes at run time, itself included (1 + its callees' costs)


@dataclass(slots=True)
class Local:
    pyname: str
    type: Type
    mutable: bool
    const: Any = NOT_CONST  # a loop or parameter value fixed at load time (unrolled code)
    bounds: tuple[Any, Any] | None = None  # the values it can take, for a number
    line: int = 0  # where it is declared (for `redeclared`)
    used: bool = False  # read somewhere (for `unused-binder`); set while compiling, never from generated text
    node: ir.Expr | None = None  # its IR: an ir.Local of its own ir.Var, or (an inlined def's parameter) the argument


@dataclass(slots=True)
class Ctx:
    """Where an expression is compiled: which locals are visible, which extras are."""

    scopes: list[dict[str, Local]]
    in_effect: bool = False  # inside a move's effects (mover, assignment allowed)
    in_move: bool = False  # inside a move's guard or effects (mover allowed)
    in_loop: bool = False
    in_setup: bool = False
    in_end: bool = False  # end rules, utility, heuristic: `no_moves` is allowed
    track_write: bool = False  # the effect writes the state once: record the slot in `_w`
    scoring: bool = False  # utility, heuristic: the state may be terminal or chance, `turn` -2 or -1
    game_over: bool = False  # utility: nobody is to move, so `turn` means nothing

    def lookup(self, name: str) -> Local | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def child(self, **changes: Any) -> Ctx:
        ctx = Ctx([*self.scopes, {}], self.in_effect, self.in_move, self.in_loop, self.in_setup, self.in_end,
                  self.track_write, self.scoring, self.game_over)
        for key, value in changes.items():
            setattr(ctx, key, value)
        return ctx

    def all_locals(self) -> list[tuple[str, Local]]:
        seen: dict[str, Local] = {}
        for scope in self.scopes:
            seen.update(scope)
        return list(seen.items())


class CompileFailed(Exception):
    """Raised inside the walk to abandon one declaration after reporting a diagnostic."""


class TooManyErrors(Exception):
    """Raised by the ``MAX_ERRORS``-th error: the rest of the file is not checked (each error costs a hint)."""


def _bounds(code: Code) -> tuple[Any, Any] | None:
    """The interval of a number's values: a constant's own, else what the compiler derived."""
    if code.is_const and isinstance(code.const, int | Fraction) and not isinstance(code.const, bool):
        return (code.const, code.const)
    return code.bounds


def _var_bounds(var: StateVar) -> tuple[Any, Any] | None:
    return (var.lo, var.hi) if var.type.kind == "int" and not var.type.optional else None  # none is -1


def _domain_bounds(domain: Code) -> tuple[Any, Any] | None:
    """The interval of a loop or chance variable over a domain known at load time."""
    if not domain.is_const or not (domain.type.elem and domain.type.elem.kind == "int"):
        return None
    values = list(domain.const)
    return (min(values), max(values)) if values else None


def _arith_bounds(op: str, a: tuple[Any, Any] | None, b: tuple[Any, Any] | None) -> tuple[Any, Any] | None:
    """Interval arithmetic for ``+``, ``-`` and ``*`` (None for other operators or unknown operands)."""
    if a is None or b is None:
        return None
    if op == "+":
        return (a[0] + b[0], a[1] + b[1])
    if op == "-":
        return (a[0] - b[1], a[1] - b[0])
    if op == "*":
        corners = [x * y for x in a for y in b]
        return (min(corners), max(corners))
    return None


def _q(name: str) -> str:
    return f"`{name}`"


def _json_exact(value: Any) -> Any:
    """A parameter value for the fingerprint: a fraction exactly (``1/3``), a sequence as a list."""
    return str(value) if isinstance(value, Fraction) else list(value)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _show(value: Any) -> str:
    if isinstance(value, Fraction):
        return str(value)
    return repr(value)


def _arith(op: str, a: Any, b: Any) -> Any:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return Fraction(a) / Fraction(b)
    if op == "//":
        return int(a // b)
    return a % b


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "in": lambda a, b: a in tuple(b),
    "not in": lambda a, b: a not in tuple(b),
}


def _compare(ops: Sequence[str], values: list[Any]) -> bool:
    return all(_COMPARE[op](a, b) for op, a, b in zip(ops, values, values[1:], strict=False))


