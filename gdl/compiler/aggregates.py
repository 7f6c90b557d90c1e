"""Pass: aggregates (``any``/``all``/``count``/``sum``/``min``/``max``/``first``/``select``), unrolled when small."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gdl import ast
from gdl import types as T
from gdl.compiler import ir
from gdl.compiler.base import CompilerBase, local_var
from gdl.compiler.common import (
    INLINE_LIMIT,
    UNROLL_BUDGET,
    UNROLL_QUANTIFIER,
    Code,
    Ctx,
    Local,
    _domain_bounds,
    derived,
    node,
)
from gdl.compiler.facts import _short_circuit, _slice_scan
from gdl.types import Type


def _if_node(typ: Type, test: Code, then: Code | ir.Expr, orelse: Code | ir.Expr) -> Callable[[], ir.Expr]:
    """The IR of ``then if test else orelse``, made when asked for (its parts bound now, not at that time)."""
    def build() -> ir.Expr:
        return ir.IfExpr(typ, test=node(test), then=then if isinstance(then, ir.Expr) else node(then),
                         orelse=orelse if isinstance(orelse, ir.Expr) else node(orelse))
    return build

class AggregatePass(CompilerBase):
    """Aggregates (``any``/``all``/``count``/``sum``/``min``/``max``/``first``/``select``), unrolled when small."""

    def expr_Quantifier(self, e: ast.Quantifier, ctx: Ctx) -> Code:
        domain = self.expr(e.domain, ctx)
        if domain.type.kind != "seq":
            raise self.fail("type", f"`{e.kind} {e.var} in ...` needs a set to range over, not {domain.type}",
                            e.domain.span)
        general = self.general_quantifier(e, domain, ctx)
        if (domain.is_const and len(domain.const) <= UNROLL_QUANTIFIER and not self.dead_depth
                and self.unrolled + len(domain.const) <= UNROLL_BUDGET):
            self.unrolled += len(domain.const)  # nested unrolling multiplies: the budget stops it, not a hang
            unrolled = self.unrolled_quantifier(e, domain, ctx, general.type)
            if unrolled is not None:
                return unrolled
        return general

    def unrolled_quantifier(self, e: ast.Quantifier, domain: Code, ctx: Ctx, typ: Type) -> Code | None:
        """The aggregate written out value by value, so that each body folds its constants."""
        elem = domain.type.elem or T.INT
        terms: list[tuple[Code | None, Code, Any]] = []
        size = 0
        for value in domain.const:
            inner = ctx.child()
            self.declare_local(inner, e.var, Local(f"L_{e.var}", elem, False, value), e.var_span)
            filt = self.expr(e.filter, inner) if e.filter is not None else None
            if filt is not None and filt.is_const and not filt.const:
                continue
            body = self.expr(e.body, inner)
            terms.append((None if filt is None or filt.is_const else filt, body, value))
            size += body.size + (filt.size if filt is not None else 0)
            if size > INLINE_LIMIT * 4:
                return None
        kind = e.kind
        if kind == "select":
            conds = [self.conjoin(f, b) for f, b, _ in terms]
            if not all(c.is_const for c in conds):
                return None
            chosen = tuple(v for c, (_, _, v) in zip(conds, terms, strict=True) if c.const)
            return self.folded(chosen, typ)
        if kind in ("any", "all", "count", "first"):
            conds = [self.conjoin(f, b) for f, b, _ in terms]
            if kind == "any":
                return self.disjunction(conds)
            if kind == "all":
                scan = _slice_scan(conds) if all(f is None for f, _, _ in terms) else None
                if scan is not None:
                    return scan
                return self.conjunction([self.implication(f, b) for f, b, _ in terms])
            if kind == "count":
                return self.total([self.indicator(c) for c in conds], T.INT)
            chain = Code(typ, -1)
            for cond, (_, _, value) in reversed(list(zip(conds, terms, strict=True))):
                if cond.is_const:
                    chain = self.folded(value, typ) if cond.const else chain
                else:
                    self.constant(value)  # (named now: names follow the order of folding)
                    chain = derived(typ, [cond, chain], node=_if_node(typ, cond, ir.Const(typ, value=value), chain))
            return chain
        if kind == "sum":
            return self.total([b if f is None else derived(
                b.type, [f, b], node=_if_node(b.type, f, b, ir.Const(T.INT, value=0)))
                for f, b, _ in terms], typ)
        if any(f is not None for f, _, _ in terms) or not terms:
            return None  # min/max with a filter may be empty: the general form reports that
        bodies = [b for _, b, _ in terms]
        if all(b.is_const for b in bodies):
            value = (min if kind == "min" else max)(b.const for b in bodies)
            return self.folded(value, typ)
        if len(bodies) == 1:
            return bodies[0]
        return derived(typ, bodies, fails=True,
                       node=lambda: ir.Builtin(typ, name=kind, args=tuple(node(b) for b in bodies), span=e.span))

    def conjoin(self, filt: Code | None, body: Code) -> Code:
        return body if filt is None else self.conjunction([filt, body])

    def implication(self, filt: Code | None, body: Code) -> Code:
        if filt is None:
            return body
        if body.is_const:
            if body.const:
                return Code(T.BOOL, True)
            return derived(T.BOOL, [filt],
                           node=lambda: ir.Unary(T.BOOL, op="not", operand=node(filt)))
        return derived(T.BOOL, [filt, body],
                       node=lambda: ir.BoolOp(T.BOOL, op="or", operands=(
                           ir.Unary(T.BOOL, op="not", operand=node(filt)), node(body)), implication=True))

    def conjunction(self, codes: list[Code]) -> Code:
        return _short_circuit("and", codes)

    def disjunction(self, codes: list[Code]) -> Code:
        return _short_circuit("or", codes, terms=True)

    def indicator(self, cond: Code) -> Code:
        if cond.is_const:
            return Code(T.INT, int(bool(cond.const)))
        return derived(T.INT, [cond],
                       node=lambda: ir.IfExpr(T.INT, test=node(cond), then=ir.Const(T.INT, value=1),
                                      orelse=ir.Const(T.INT, value=0)))

    def total(self, codes: list[Code], typ: Type) -> Code:
        const = sum(c.const for c in codes if c.is_const)
        parts = [c for c in codes if not c.is_const]
        if not parts:
            return self.folded(const, typ)
        if const:
            self.constant(const)  # (named now: names follow the order of folding)
        def ir_total() -> ir.Expr:
            total = node(parts[0])
            for i, term in enumerate([*(node(c) for c in parts[1:]), *([ir.Const(typ, value=const)] if const else [])]):
                total = ir.Binary(typ, op="+", left=total, right=term, chained=i > 0)
            return total

        return derived(typ, parts, node=ir_total)

    def general_quantifier(self, e: ast.Quantifier, domain: Code, ctx: Ctx) -> Code:
        inner = ctx.child()
        pyname = f"L{self.binder_tag}_{e.var}"
        binder = self.declare_local(inner, e.var, Local(pyname, domain.type.elem or T.INT, False,
                                                        bounds=_domain_bounds(domain)), e.var_span)
        filt = None
        with self.loop_body(domain):
            if e.filter is not None:
                filt = self.expr(e.filter, inner)
                self.require(filt, T.BOOL, e.filter.span)
            body = self.expr(e.body, inner)
        poll = self.needs_poll(domain)
        kind = e.kind
        parts = [domain, filt, body]  # (every form below is a call: it may fail)
        var_ids, pynames = self.var_ids, self.local_pynames  # (not `self`: the IR must not keep the compiler alive)

        def aggregate(typ: Type) -> ir.Aggregate:
            return ir.Aggregate(typ, kind=kind, var=local_var(binder, e.var, var_ids, pynames), domain=node(domain),
                                filter=node(filt) if filt is not None else None, body=node(body), poll=poll,
                                span=e.span, domain_span=e.domain.span)

        if kind in ("any", "all", "count", "first", "select"):
            self.require(body, T.BOOL, e.body.span)
        if kind == "select":
            return derived(domain.type, parts, fails=True,
                           node=lambda: aggregate(domain.type))
        if kind == "any":
            return derived(T.BOOL, parts, fails=True, node=lambda: aggregate(T.BOOL))
        if kind == "all":
            return derived(T.BOOL, parts, fails=True, node=lambda: aggregate(T.BOOL))
        if kind == "count":
            return derived(T.INT, parts, fails=True, node=lambda: aggregate(T.INT))
        if kind == "first":
            elem = domain.type.elem or T.INT
            if not elem.is_entity:
                raise self.fail("type", f"`first` picks among players, cells, directions or named values, "
                                f"not {elem.plural()}", e.domain.span)
            return derived(elem.with_optional(), parts, fails=True,
                           node=lambda: aggregate(elem.with_optional()))
        self.require_number(body, e.body.span)
        if kind == "sum":
            return derived(body.type, parts, fails=True,
                           node=lambda: aggregate(body.type))
        return derived(body.type, parts, fails=True,
                       node=lambda: aggregate(body.type))
