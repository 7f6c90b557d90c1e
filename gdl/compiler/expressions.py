"""Pass: type-checking and folding of operators, comparisons, indexing and literals."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from fractions import Fraction

from gdl import ast
from gdl import types as T
from gdl.compiler import ir
from gdl.compiler.base import CompilerBase
from gdl.compiler.common import (
    MAX_DOMAIN,
    POLL_WEIGHT,
    SMALL_NUMBER,
    Code,
    Ctx,
    StateVar,
    _arith,
    _arith_bounds,
    _bounds,
    _compare,
    _q,
    _show,
    _var_bounds,
    derived,
    node,
)
from gdl.compiler.facts import _short_circuit
from gdl.compiler.ir import Reads
from gdl.diagnostics import Span
from gdl.types import Type


class ExpressionPass(CompilerBase):
    """Type-checking and folding of operators, comparisons, indexing and literals."""

    def expr_Num(self, e: ast.Num, ctx: Ctx) -> Code:
        if isinstance(e.value, Fraction):
            if max(abs(e.value.numerator), e.value.denominator) >= 10**30:  # (see parser.HUGE_LITERAL)
                raise self.fail("too-large", "numbers in rule files are limited to 15 digits", e.span)
            return self.folded(e.value, T.REAL)
        if abs(e.value) > 10**15:
            raise self.fail("too-large", "numbers in rule files are limited to 15 digits", e.span)
        return self.folded(e.value, T.INT)

    def expr_Bool(self, e: ast.Bool, ctx: Ctx) -> Code:
        return Code(T.BOOL, e.value)

    def expr_NoneLit(self, e: ast.NoneLit, ctx: Ctx) -> Code:
        return Code(T.NONE, -1)

    def expr_Str(self, e: ast.Str, ctx: Ctx) -> Code:
        raise self.fail("type", "strings are only allowed in `game`, `meta` and `render` lines", e.span)

    def expr_Neg(self, e: ast.Neg, ctx: Ctx) -> Code:
        code = self.expr(e.operand, ctx)
        self.require_number(code, e.operand.span)
        if code.is_const:
            return self.folded(-code.const, code.type)
        return derived(code.type, [code],
                       node=lambda: ir.Unary(code.type, op="-", operand=node(code)))

    def expr_Not(self, e: ast.Not, ctx: Ctx) -> Code:
        code = self.expr(e.operand, ctx)
        self.require(code, T.BOOL, e.operand.span)
        if code.is_const:
            return Code(T.BOOL, not code.const)
        return derived(T.BOOL, [code], node=lambda: ir.Unary(T.BOOL, op="not", operand=node(code)))

    def expr_BoolOp(self, e: ast.BoolOp, ctx: Ctx) -> Code:
        parts = []
        for i, value in enumerate(e.values):
            code = self.expr(value, ctx)
            self.require(code, T.BOOL, value.span)
            parts.append(code)
            if code.is_const and bool(code.const) == (e.op == "or"):
                # Short-circuit known at load time (`step(c, d) != none and board[step(c, d)] ...`):
                # the rest is never evaluated, so its constant-folding errors do not count.
                for rest in e.values[i + 1 :]:
                    with self.dead_code():
                        self.expr(rest, ctx)
                break
        return _short_circuit(e.op, parts)

    def expr_Binary(self, e: ast.Binary, ctx: Ctx) -> Code:
        left = self.expr(e.left, ctx)
        right = self.expr(e.right, ctx)
        self.require_number(left, e.left.span)
        self.require_number(right, e.right.span)
        # `//` always gives a whole number (floor division), so fractions can be rounded into the state.
        typ = T.INT if e.op == "//" else T.REAL if e.op == "/" or T.REAL in (left.type, right.type) else T.INT
        if left.is_const and right.is_const:
            try:
                value = _arith(e.op, left.const, right.const)
            except ZeroDivisionError:
                raise self.fail("division-by-zero", "division by zero", e.span) from None
            if isinstance(value, int) and abs(value) > 10**15:
                raise self.fail("too-large", "this number is too large (over 15 digits)", e.span)
            self.check_fraction(value, e.span)
            return self.folded(value, typ)
        op = e.op
        if op in ("/", "//", "%") and right.is_const and right.const == 0:
            raise self.fail("division-by-zero", "division by zero", e.span)
        if op == "/" or (op in ("//", "%") and (self.checked or not right.is_const)):
            # Division by a value known only at run time: a zero divisor is a rule error at this line.
            # `/` is exact at run time as it is when folded (Python's `/` on two ints gives a float).
            code = derived(typ, [left, right], fails=True,
                           node=lambda: ir.Binary(typ, op=op, left=node(left), right=node(right), checked=True,
                                                      span=e.span))
            if op == "//" and T.REAL in (left.type, right.type):
                return derived(T.INT, [code],
                               node=lambda: ir.Builtin(T.INT, name="int", args=(node(code),), span=e.span))
            return code
        if op == "//" and T.REAL in (left.type, right.type):
            quotient = ir.Binary(typ, op=op, left=node(left), right=node(right), span=e.span)
            return derived(T.INT, [left, right], fails=True,
                           node=lambda: ir.Builtin(T.INT, name="int", args=(quotient,), span=e.span))
        bounds = _arith_bounds(op, _bounds(left), _bounds(right))
        if (op == "*" or typ == T.REAL) and (bounds is None or max(-bounds[0], bounds[1]) > SMALL_NUMBER):
            # Squaring a number again and again doubles its digits: one multiplication of two huge
            # numbers outlasts any budget (it cannot be interrupted), so each such result is bounded.
            return derived(typ, [left, right], fails=True, bounds=bounds,
                           node=lambda: ir.Binary(typ, op=op, left=node(left), right=node(right), checked=True,
                                                  span=e.span, value_bounds=bounds))
        # (`*`, `/` and `//` may fail at run time; `+`, `-` and `%` by a nonzero constant cannot)
        return derived(typ, [left, right], fails=op in ("*", "/", "//"),
                       bounds=bounds,
                       node=lambda: ir.Binary(typ, op=op, left=node(left), right=node(right), span=e.span,
                                                     value_bounds=bounds))

    def expr_Compare(self, e: ast.Compare, ctx: Ctx) -> Code:
        codes = [self.expr(e.first, ctx)] + [self.expr(x, ctx) for x in e.rest]
        exprs = [e.first, *e.rest]
        for i, op in enumerate(e.ops):
            a, b = codes[i], codes[i + 1]
            if op in ("in", "not in"):
                if b.type.kind != "seq":
                    raise self.fail("type", f"`{op}` needs a set on its right, not {b.type}", exprs[i + 1].span)
                if b.type.elem is not None and not T.comparable(a.type, b.type.elem):
                    raise self.fail("type", f"cannot look for {a.type} among {b.type.elem.plural()}", e.span)
            elif op in ("==", "!="):
                if not T.comparable(a.type, b.type):
                    raise self.fail("type", f"cannot compare {a.type} with {b.type}", e.span)
            else:
                self.require_number(a, exprs[i].span)
                self.require_number(b, exprs[i + 1].span)
        if all(c.is_const for c in codes):
            value = _compare(e.ops, [c.const for c in codes])
            return Code(T.BOOL, value)
        right = codes[-1]
        slot_test = None
        if tuple(e.ops) == ("!=",) and codes[0].slot is not None and right.is_const and type(right.const) is int \
                and abs(right.const) < 10**15:
            slot_test = (codes[0].slot, right.const)  # (a candidate for a slice scan: see facts._slice_scan)
        return derived(T.BOOL, codes, slot_test=slot_test,
                       node=lambda: ir.Compare(T.BOOL, ops=tuple(e.ops), operands=tuple(node(c) for c in codes)))

    def expr_Range(self, e: ast.Range, ctx: Ctx) -> Code:
        lo = self.expr(e.lo, ctx)
        hi = self.expr(e.hi, ctx)
        self.require(lo, T.INT, e.lo.span)
        self.require(hi, T.INT, e.hi.span)
        if lo.is_const and hi.is_const:
            if hi.const - lo.const > MAX_DOMAIN:
                raise self.fail("too-large", f"the range {lo.const}..{hi.const} is too large", e.span)
            value = range(lo.const, hi.const + 1)
            return self.folded(value, T.seq(T.INT))
        low, high = _bounds(lo), _bounds(hi)
        if low is None or high is None or high[1] - low[0] >= POLL_WEIGHT:
            # its loops are counted, and refused past MAX_RANGE values
            return derived(T.seq(T.INT), [lo, hi], fails=True, long_range=True,
                           node=lambda: ir.Range(T.seq(T.INT), lo=node(lo), hi=node(hi), long=True))
        return derived(T.seq(T.INT), [lo, hi], fails=True,
                       node=lambda: ir.Range(T.seq(T.INT), lo=node(lo), hi=node(hi)))

    def expr_IfExpr(self, e: ast.IfExpr, ctx: Ctx) -> Code:
        test = self.expr(e.test, ctx)
        self.require(test, T.BOOL, e.test.span)
        if test.is_const:  # the branch not taken is only type-checked (see dead_code)
            chosen = self.expr(e.then if test.const else e.orelse, ctx)
            with self.dead_code():
                other = self.expr(e.orelse if test.const else e.then, ctx)
                both = T.unify(chosen.type, other.type)
                if both is None:
                    raise self.fail("type", f"the two branches differ: {chosen.type} and {other.type}", e.span)
                return dataclasses.replace(chosen, type=both)
            return chosen
        then = self.expr(e.then, ctx)
        orelse = self.expr(e.orelse, ctx)
        typ = T.unify(then.type, orelse.type)
        if typ is None:
            raise self.fail("type", f"the two branches differ: {then.type} and {orelse.type}", e.span)
        if test.is_const:
            chosen = then if test.const else orelse
            return dataclasses.replace(chosen, type=typ)
        return derived(typ, [test, then, orelse],
                       node=lambda: ir.IfExpr(typ, test=node(test), then=node(then), orelse=node(orelse)))

    def expr_Index(self, e: ast.Index, ctx: Ctx) -> Code:
        if isinstance(e.base, ast.Name) and ctx.lookup(e.base.id) is None and e.base.id in self.state:
            var = self.state[e.base.id]
            var.used = True
            slot = self.slot(var, e.indices, ctx, e.span)
            def read() -> ir.Expr:
                return ir.Slot(var.type, var=var.name, index=node(slot), value_bounds=_var_bounds(var))

            if slot.is_const:
                return Code(var.type, bounds=_var_bounds(var), reads=Reads(frozenset((slot.const,))),
                            may_fail=False, slot=slot.const, node=read)
            return derived(var.type, [slot], fails=True, reads=Reads(dynamic=True),
                           bounds=_var_bounds(var), node=read)
        base = self.expr(e.base, ctx)
        if base.type.kind != "seq":
            raise self.fail("type", f"only arrays, lists and sets can be indexed, not {base.type}", e.base.span)
        if len(e.indices) != 1:
            raise self.fail("arity", "a list takes one index", e.span)
        index = self.expr(e.indices[0], ctx)
        self.require(index, T.INT, e.indices[0].span)
        elem = base.type.elem or T.INT
        if base.is_const and index.is_const:
            seq = tuple(base.const)
            if not 0 <= index.const < len(seq):
                raise self.fail("index-out-of-range", f"index {index.const} is outside 0..{len(seq) - 1}",
                                e.indices[0].span)
            value = seq[index.const]
            return self.folded(value, elem)
        return derived(elem, [base, index], fails=True,
                       node=lambda: ir.Index(elem, seq=node(base), index=node(index), span=e.span))

    def slot(self, var: StateVar, indices: Sequence[ast.Expr], ctx: Ctx, span: Span) -> Code:
        """The flat slot of ``var[indices]``, a constant when the indices are (bounds-checked in checked mode)."""
        if len(indices) != len(var.dims):
            raise self.fail("arity", f"{_q(var.name)} takes {len(var.dims)} index(es), not {len(indices)}", span)
        nodes: list[ir.Expr] = []  # the flat slot as IR: the offset plus each index's term
        parts: list[Code] = []
        checked = False
        const_part = var.offset
        stride = var.size
        for index_expr, (low, size), itype in zip(indices, var.dims, var.index_types, strict=True):
            stride //= size
            code = self.expr(index_expr, ctx)
            if not T.assignable(code.type.with_optional(False), itype) and not (
                code.type.kind == "int" and itype.kind == "int"
            ):
                raise self.fail("type", f"{_q(var.name)} is indexed by {itype.plural()}, not {code.type}",
                                index_expr.span)
            if code.is_const:
                if not low <= code.const < low + size:
                    raise self.fail("index-out-of-range", f"index {_show(code.const)} is outside "
                                    f"{_q(var.name)}'s {low}..{low + size - 1}", index_expr.span)
                const_part += (code.const - low) * stride
                continue
            term = node(code)
            # An index of the dimension's own entity type is in range by construction; anything
            # else is checked, because a wrong flat slot would silently corrupt another variable.
            safe = code.type.is_entity and not code.type.optional and code.type.kind == itype.kind and (
                code.bounds is None or (low <= code.bounds[0] and code.bounds[1] < low + size))
            parts.append(code)
            if self.checked or not safe:
                checked = True
                term = ir.Check(T.INT, kind="index", value=term, lo=low, hi=low + size - 1, span=index_expr.span)
            if low:
                term = ir.Binary(T.INT, op="-", left=term, right=ir.Const(T.INT, value=low))
            if stride != 1:
                term = ir.Binary(T.INT, op="*", left=term, right=ir.Const(T.INT, value=stride))
            nodes.append(term)
        if not nodes:
            return Code(T.INT, const_part)
        flat: ir.Expr = ir.Const(T.INT, value=const_part)
        for term in nodes:
            flat = ir.Binary(T.INT, op="+", left=flat, right=term)
        return derived(T.INT, parts, fails=checked,
                       node=lambda: flat)

    def expr_ListLit(self, e: ast.ListLit, ctx: Ctx) -> Code:
        return self.sequence_literal(e.items, e.span, ctx, tuple)

    def expr_SetLit(self, e: ast.SetLit, ctx: Ctx) -> Code:
        return self.sequence_literal(e.items, e.span, ctx, lambda values: tuple(dict.fromkeys(values)))

    def sequence_literal(self, items: Sequence[ast.Expr], span: Span, ctx: Ctx, build: Callable) -> Code:
        codes = [self.expr(i, ctx) for i in items]
        elem: Type | None = None
        for item, code in zip(items, codes, strict=True):
            elem = code.type if elem is None else T.unify(elem, code.type)
            if elem is None:
                raise self.fail("type", "the items of a list must all have the same type", item.span)
        if all(c.is_const for c in codes):
            value = build([c.const for c in codes])
            return self.folded(value, T.seq(elem or T.INT))
        typ = T.seq(elem or T.INT)
        return derived(typ, codes,
                       node=lambda: ir.SeqLit(typ, items=tuple(node(c) for c in codes), unique=build is not tuple))
