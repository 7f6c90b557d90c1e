"""Combining compiled expressions by their facts: short-circuit folding, disjunct terms, slot scans."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gdl import types as T
from gdl.compiler import ir
from gdl.compiler.common import Code, derived, node
from gdl.compiler.ir import Reads


def _cannot_fail(code: Code) -> bool:
    """Whether evaluating ``code`` surely raises no rule error: a constant, or only slot reads, locals,
    numbers and operators (no call, no index but a fixed slot). Such code may be left out unevaluated."""
    return code.is_const or not code.may_fail



def _deciding_node(op: str, kept: list[Code], deciding: bool) -> Callable[[], ir.Expr]:
    """The IR of ``kept`` joined by ``op`` and then the constant that decides it (made when asked for)."""
    return lambda: ir.BoolOp(T.BOOL, op=op, operands=(*(node(c) for c in kept), ir.Const(T.BOOL, value=deciding)))


def _short_circuit(op: str, codes: list[Code], *, terms: bool = False) -> Code:
    """``codes`` joined by ``and``/``or`` evaluated left to right, folding what load time decides.

    A constant that decides the result drops the operands after it (they never run), but not the ones
    before it: those run first and may be a rule error (`x or true` still evaluates `x`). With ``terms``,
    a disjunction records its disjuncts (for the end rules' incremental check)."""
    deciding = op == "or"
    before: list[Code] = []
    for code in codes:
        if code.is_const and bool(code.const) == deciding:
            kept = [c for c in before if not _cannot_fail(c)]
            if not kept:
                return Code(T.BOOL, deciding)
            return derived(T.BOOL, kept, node=_deciding_node(op, kept, deciding))
        if not code.is_const:
            before.append(code)
    if not before:
        return Code(T.BOOL, not deciding)
    if len(before) == 1:
        return before[0]
    return derived(T.BOOL, before, terms=_disjuncts(before) if terms else None,
                   node=lambda: ir.BoolOp(T.BOOL, op=op, operands=tuple(node(c) for c in before)))


def _slice_scan(conds: list[Code]) -> Code | None:
    """``all c in cell: board[c] != none`` over consecutive slots as one C-level scan: ``-1 not in s[a:b]``."""
    if len(conds) < 4:
        return None
    tests = [c.slot_test for c in conds]
    if any(t is None for t in tests):
        return None
    slots = [t[0] for t in tests if t is not None]
    values = {t[1] for t in tests if t is not None}
    if len(values) != 1 or slots != list(range(slots[0], slots[0] + len(slots))):
        return None
    # (in the IR it stays the conjunction it is, marked: the Python emitter scans the slice, `-1 not in s[a:b]`;
    # another back end may scan the slots its own way)
    return Code(T.BOOL, reads=Reads(frozenset(slots)), may_fail=False, size=3,
                node=lambda: ir.BoolOp(T.BOOL, op="and", operands=tuple(node(c) for c in conds), scan=True))


def _disjuncts(codes: Sequence[Code]) -> tuple[Code, ...]:
    out: list[Code] = []
    for code in codes:
        out.extend(code.terms or (code,))
    return tuple(out)
