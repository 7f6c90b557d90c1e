"""Typed AST of a rule file: frozen dataclasses with tuple fields and a span.

Built by :mod:`gdl.parser` from the Lark tree; checked and compiled by
:mod:`gdl.compiler`. Nodes never hold Lark objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from gdl.diagnostics import Span

# ---------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True)
class Expr:
    span: Span


@dataclass(frozen=True, slots=True)
class Num(Expr):
    value: int | Fraction


@dataclass(frozen=True, slots=True)
class Bool(Expr):
    value: bool


@dataclass(frozen=True, slots=True)
class NoneLit(Expr):
    pass


@dataclass(frozen=True, slots=True)
class Str(Expr):
    value: str


@dataclass(frozen=True, slots=True)
class Name(Expr):
    id: str


@dataclass(frozen=True, slots=True)
class Neg(Expr):
    operand: Expr


@dataclass(frozen=True, slots=True)
class Not(Expr):
    operand: Expr


@dataclass(frozen=True, slots=True)
class BoolOp(Expr):
    op: str  # "and" / "or"
    values: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Binary(Expr):
    op: str  # + - * / // %
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Compare(Expr):
    """A chain ``a < b <= c`` meaning ``a < b and b <= c`` (as in Python)."""

    first: Expr
    ops: tuple[str, ...]  # == != < <= > >= in "not in"
    rest: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Range(Expr):
    lo: Expr
    hi: Expr


@dataclass(frozen=True, slots=True)
class IfExpr(Expr):
    test: Expr
    then: Expr
    orelse: Expr


@dataclass(frozen=True, slots=True)
class Quantifier(Expr):
    """``any x in D where F: body`` and its siblings all, count, sum, min, max, first."""

    kind: str
    var: str
    var_span: Span
    domain: Expr
    filter: Expr | None
    body: Expr


@dataclass(frozen=True, slots=True)
class Call(Expr):
    func: str
    func_span: Span
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Index(Expr):
    base: Expr
    indices: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class ListLit(Expr):
    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class SetLit(Expr):
    items: tuple[Expr, ...]


# ----------------------------------------------------------------- statements


@dataclass(frozen=True, slots=True)
class Stmt:
    span: Span


@dataclass(frozen=True, slots=True)
class Assign(Stmt):
    name: str
    name_span: Span
    indices: tuple[Expr, ...]
    op: str  # = += -= *=
    value: Expr


@dataclass(frozen=True, slots=True)
class Let(Stmt):
    name: str
    value: Expr


@dataclass(frozen=True, slots=True)
class Again(Stmt):
    pass


@dataclass(frozen=True, slots=True)
class Break(Stmt):
    pass


@dataclass(frozen=True, slots=True)
class Pass(Stmt):
    """``pass``: do nothing (a branch that must be written but has no effect)."""


@dataclass(frozen=True, slots=True)
class If(Stmt):
    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    orelse: tuple[Stmt, ...] | None


@dataclass(frozen=True, slots=True)
class For(Stmt):
    var: str
    domain: Expr
    body: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class Chance(Stmt):
    """``chance d in D [weight W]`` -- with a body, or binding ``d`` for the rest of the block."""

    var: str
    domain: Expr
    weight: Expr | None
    body: tuple[Stmt, ...] | None


@dataclass(frozen=True, slots=True)
class ChanceBranch:
    span: Span
    label: str
    probability: Expr
    body: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class ChanceBranches(Stmt):
    branches: tuple[ChanceBranch, ...]


# --------------------------------------------------------------- declarations


@dataclass(frozen=True, slots=True)
class Decl:
    span: Span


@dataclass(frozen=True, slots=True)
class TypeExpr:
    span: Span
    domain: Expr
    optional: bool


@dataclass(frozen=True, slots=True)
class Param:
    span: Span
    name: str
    type: TypeExpr


@dataclass(frozen=True, slots=True)
class GameDecl(Decl):
    name: str
    description: str | None


@dataclass(frozen=True, slots=True)
class MetaDecl(Decl):
    key: str
    value: str


@dataclass(frozen=True, slots=True)
class ParamDecl(Decl):
    name: str
    domain: Expr | None
    default: Expr


@dataclass(frozen=True, slots=True)
class PlayersDecl(Decl):
    names: tuple[tuple[str, Span], ...]


@dataclass(frozen=True, slots=True)
class BoardDecl(Decl):
    rows: Expr
    cols: Expr
    shape: str | None  # None (square) or "hex"
    shape_span: Span | None


@dataclass(frozen=True, slots=True)
class EnumDecl(Decl):
    name: str
    members: tuple[tuple[str, Span], ...]


@dataclass(frozen=True, slots=True)
class StateDecl(Decl):
    name: str
    indices: tuple[Expr, ...]
    type: TypeExpr
    init: Expr | None


@dataclass(frozen=True, slots=True)
class DefDecl(Decl):
    name: str
    params: tuple[Param, ...]
    body: Expr


@dataclass(frozen=True, slots=True)
class MoveDecl(Decl):
    name: str
    params: tuple[Param, ...]
    guard: Expr | None
    otherwise: bool
    body: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class SetupDecl(Decl):
    body: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class AfterDecl(Decl):
    """``after every move:`` -- effects appended to every move's own."""

    body: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class EndDecl(Decl):
    """``win X when C``, ``lose X when C``, ``draw when C`` or ``terminal when C``."""

    kind: str
    who: Expr | None
    condition: Expr


@dataclass(frozen=True, slots=True)
class UtilityDecl(Decl):
    var: str
    bounds: Expr | None
    expr: Expr


@dataclass(frozen=True, slots=True)
class HeuristicDecl(Decl):
    var: str
    expr: Expr


@dataclass(frozen=True, slots=True)
class QuietDecl(Decl):
    """``quiet when expr``: the positions where a depth-limited search may stop and trust the heuristic."""

    expr: Expr


@dataclass(frozen=True, slots=True)
class RenderDecl(Decl):
    name: str
    symbols: tuple[tuple[Expr, str], ...]


@dataclass(frozen=True, slots=True)
class ZeroSumDecl(Decl):
    pass


@dataclass(frozen=True, slots=True)
class SimultaneousDecl(Decl):
    """``simultaneous``: at every decision all players choose at once (the moves apply in player order)."""


@dataclass(frozen=True, slots=True)
class SymmetryDecl(Decl):
    """``symmetry mirror, rotate90``: board symmetries that leave the rules unchanged."""

    names: tuple[tuple[str, Span], ...]


@dataclass(frozen=True, slots=True)
class RuleFile:
    decls: tuple[Decl, ...]
