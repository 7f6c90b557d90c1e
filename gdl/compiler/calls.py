"""Pass: calls of defs -- argument checks, constant results, inlining, and the def functions themselves."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from gdl import ast
from gdl import types as T
from gdl.compiler import ir
from gdl.compiler.base import CompilerBase
from gdl.compiler.builtins import BUILTIN_FUNCTIONS
from gdl.compiler.common import (
    INLINE_BUDGET,
    INLINE_LIMIT,
    MAX_DEF_DEPTH,
    MAX_EVALUATIONS,
    POLL_WEIGHT,
    UNKNOWN_READS,
    UNKNOWN_SIZE,
    Code,
    CompileFailed,
    Ctx,
    DefInfo,
    Local,
    _bounds,
    _domain_bounds,
    _hashable,
    _q,
    _show,
    derived,
    node,
)
from gdl.compiler.facts import _cannot_fail
from gdl.diagnostics import Span, did_you_mean
from gdl.types import Type


class CallPass(CompilerBase):
    """Calls of defs -- argument checks, constant results, inlining, and the def functions themselves."""

    def expr_Call(self, e: ast.Call, ctx: Ctx) -> Code:
        if ctx.lookup(e.func) is None and e.func in self.defs:
            info = self.defs[e.func]
            if len(e.args) != len(info.decl.params):
                raise self.fail("arity", f"{_q(e.func)} takes {len(info.decl.params)} argument(s), "
                                f"not {len(e.args)}", e.span)
            args = [self.expr(a, ctx) for a in e.args]
            return self.call_def(info, args, e.span, ctx, e.args)
        builtin = BUILTIN_FUNCTIONS.get(e.func)
        if builtin is None:
            raise self.fail("undefined-function", f"{_q(e.func)} is not a function", e.func_span,
                            did_you_mean(e.func, list(self.defs) + list(BUILTIN_FUNCTIONS)))
        args = [self.expr(a, ctx) for a in e.args]
        return builtin(self, e, args)

    def call_def(self, info: DefInfo, args: list[Code], span: Span, ctx: Ctx,
                 arg_exprs: Sequence[ast.Expr] = ()) -> Code:
        info.used = True
        self.compile_def(info)
        if info.result is None:
            raise CompileFailed()
        if not info.result.is_const and info.decl.params:
            # A call costs what the calls in its body cost (a constant costs nothing; a def without parameters is a
            # value of the state, and a number that doubles its digits at each level stops at MAX_NUMBER_BITS).
            if info.cost > MAX_EVALUATIONS:
                raise self.fail("too-large", f"calling {_q(info.decl.name)} makes more than {MAX_EVALUATIONS:,} "
                                "def calls", span, "defs that call another def twice double the work at "
                                "each level: compute the value once (`let`) or in a state variable")
            self.def_calls = min(self.def_calls + info.cost, MAX_EVALUATIONS + 1)
        if info.reads_turn:
            self.turn_reads += 1  # the caller reads `turn` through this def
            if ctx.game_over:
                raise self.fail("turn-in-utility", f"`turn` has no value in `utility`, and {_q(info.decl.name)} "
                                "reads it: the game is over and nobody is to move", span,
                                "keep the player who moved last in a state variable, or say who won with an end "
                                "rule such as `win opponent(turn) when ...`")
        for i, (code, ptype) in enumerate(zip(args, info.param_types, strict=True)):
            where = arg_exprs[i].span if arg_exprs else span
            if not T.assignable(code.type.with_optional(False), ptype):
                raise self.fail("type", f"argument {i + 1} of {_q(info.decl.name)} must be {ptype}, "
                                f"not {code.type}", where)
            args[i] = self.within_domain(self.coerce(code, ptype, where), info.param_bounds[i], info, i, where)
        if info.result.is_const:
            # The arguments are still evaluated (and checked against their domains) first, unless they
            # surely cannot fail: `one(n + 5)` is a rule error when 5 is outside `x: 0..3`.
            evaluated = [a for a in args if not _cannot_fail(a)]
            if evaluated:
                const = info.result.const
                bounds = (const, const) if isinstance(const, int) and not isinstance(const, bool) else None
                return derived(info.result.type, evaluated, bounds=bounds,
                               node=ir.Evaluate(info.result.type, first=tuple(node(a) for a in evaluated),
                                                value=node(info.result)))
            return Code(info.result.type, info.result.const)
        counted = self.def_calls
        inlined = self.inline_def(info, args)
        self.def_calls = counted  # (an inlined body's calls are in the cost added above, once)
        if inlined is not None:
            return inlined
        # (the def reads the state passed to it: which slots is not known here)
        def_reads = info.body.reads if info.body is not None else UNKNOWN_READS
        return derived(info.result.type, args, fails=True, reads=UNKNOWN_READS,
                       calls_def=True, node=ir.Call(info.result.type, name=info.decl.name,
                                                    args=tuple(node(a) for a in args), def_reads=def_reads))

    def within_domain(self, arg: Code, bounds: tuple[int, int] | None, info: DefInfo, i: int, span: Span) -> Code:
        """An argument kept inside its parameter's range: an error if it is a constant outside,
        a run-time check unless its bounds prove it (the body may index a table with it)."""
        if bounds is None:
            return arg
        lo, hi = bounds
        if arg.is_const:
            if not lo <= arg.const <= hi:
                raise self.fail("out-of-domain", f"argument {i + 1} of {_q(info.decl.name)} is {_show(arg.const)}, "
                                f"outside its domain {lo}..{hi}", span)
            return arg
        known = _bounds(arg)
        if known is not None and lo <= known[0] and known[1] <= hi:
            return arg
        return derived(arg.type, [arg], fails=True,
                       bounds=bounds, node=ir.Check(arg.type, kind="domain", value=node(arg), lo=lo, hi=hi, span=span))

    def inline_def(self, info: DefInfo, args: list[Code]) -> Code | None:
        """The def's body with the arguments substituted, when they are constants or plain names.

        Inlining lets constant arguments fold through the body (a win test for a fixed player
        becomes a chain of slot comparisons), and saves a Python call per use.
        """
        if self.dead_depth or not all(a.is_const or a.simple for a in args):
            return None  # code that never runs is only type-checked: keep it small
        # The same def with the same arguments inlines to the same code: a def calling another twice
        # would otherwise compile 2^n bodies. Past INLINE_BUDGET, calls stay calls.
        key = (info.decl.name, min(self.loop_weight, POLL_WEIGHT + 1), *(self.argument_key(a) for a in args))
        if key in self.inline_memo:
            cached, first = self.inline_memo[key]
            if cached is None or all(a is b for a, b in zip(first, args, strict=True)):
                return cached
            # The same name may be another local here (`p` of a def, `p` of `heuristic p:`): the same code,
            # with this call's locals in the IR in place of the first call's, made when asked for.
            swaps = {old: arg for old, new, arg in
                     zip(map(_local_id, first), map(_local_id, args), args, strict=True)
                     if old is not None and old != new}
            return _rebound(cached, swaps) if swaps else cached
        if self.inlined >= INLINE_BUDGET:  # (`inline_body` counts the inlinings)
            return None
        result = self.inline_body(info, args)
        self.inline_memo[key] = (result, tuple(args))
        return result

    def argument_key(self, arg: Code) -> Hashable:
        """What an inlined body depends on of an argument (a constant or a plain name): the constant's type and
        value, or the local's name (a local of another scope with the same name shares the body: see
        :func:`_rebound`), or ``mover``."""
        if arg.is_const:
            value = arg.const
            return ("const", type(value), value) if _hashable(value) else ("object", id(arg))
        local = _local_id(arg)
        if local is not None:
            return ("local", self.local_pynames[local])
        assert isinstance(node(arg), ir.Mover)  # (the one plain name that is not a local)
        return ("mover",)

    def inline_body(self, info: DefInfo, args: list[Code]) -> Code | None:
        ctx = Ctx([{}])
        for p, ptype, arg in zip(info.decl.params, info.param_types, args, strict=True):
            # (no Python name: the parameter reads as the argument's IR, or folds as its constant)
            ctx.scopes[-1][p.name] = Local("", ptype, False, arg.const, line=p.span.line,
                                           node=None if arg.is_const else node(arg))
        mark = len(self.diagnostics)
        # Hygiene: an argument may be a caller's binder (`all k in D: above(k)`), so the body's own
        # binders get names no other code uses (`L3_k`), and cannot capture it.
        self.inlined += 1
        outer_tag, self.binder_tag = self.binder_tag, str(self.inlined)
        try:
            body = self.expr(info.decl.body, ctx)
        except CompileFailed:
            del self.diagnostics[mark:]  # the def itself was checked; fall back to calling it
            return None
        finally:
            self.binder_tag = outer_tag
        if body.size > INLINE_LIMIT:
            return None
        return body

    def compile_def(self, info: DefInfo) -> None:
        if info.result is not None:
            return
        decl = info.decl
        if info.in_progress:
            raise self.fail("recursive-def", f"{_q(decl.name)} calls itself; functions cannot be recursive",
                            decl.span, "write a bounded loop in a move, or use an aggregate like `any`")
        if self.def_depth >= MAX_DEF_DEPTH:
            raise self.fail("too-deep", f"{_q(decl.name)} is reached through more than {MAX_DEF_DEPTH} defs "
                            "that call one another", decl.span, "call fewer defs inside defs")
        info.in_progress = True
        self.def_depth += 1
        saved_calls, self.def_calls = self.def_calls, 0
        saved_weight, self.loop_weight = self.loop_weight, UNKNOWN_SIZE  # a def may be called inside loops
        try:
            ctx = Ctx([{}])
            variables: list[ir.Var] = []
            for p in decl.params:
                ptype = self.param_type(p, ctx)
                info.param_types.append(ptype)
                bounds = _domain_bounds(self.expr(p.type.domain, ctx)) if ptype.kind == "int" else None
                info.param_bounds.append(bounds)
                local = self.declare_local(ctx, p.name, Local(f"L_{p.name}", ptype, False, bounds=bounds), p.span)
                variables.append(self.local_var(local, p.name))
            reads_before = self.turn_reads
            body = self.expr(decl.body, ctx)
            info.cost = 1 + self.def_calls
            info.reads_turn = self.turn_reads > reads_before
            if body.is_const:
                info.result = body
                return
            function = ir.Def(decl.name, tuple(variables), node(body), decl.span, body.calls_def)
            self.splice(self.statements.def_function(function))  # (in the module before its callers)
            info.result = Code(body.type, calls_def=True)  # (a call of it is an ir.Call: see call_def)
            info.body = body
            self.ir_defs.append(function)
        finally:
            info.in_progress = False
            self.def_depth -= 1
            self.def_calls = saved_calls
            self.loop_weight = saved_weight

    def param_type(self, p: ast.Param, ctx: Ctx) -> Type:
        dom = self.expr(p.type.domain, ctx)
        if dom.type.kind != "seq":
            raise self.fail("bad-type", f"the parameter {_q(p.name)} needs a type or a set", p.type.span)
        elem = dom.type.elem or T.INT
        return elem.with_optional(p.type.optional) if elem.is_entity else elem


def _local_id(arg: Code) -> int | None:
    """The IR variable of an argument that is a local (two locals of different scopes may share a name)."""
    if not arg.simple:
        return None
    value = node(arg)
    return value.var.id if isinstance(value, ir.Local) and value.var is not None else None


def _rebound(code: Code, swaps: dict[int, Code]) -> Code:
    """``code`` whose IR reads the locals of ``swaps``' values where it read those of its keys."""
    def made() -> ir.Expr:
        return ir.substitute(node(code), {old: node(arg) for old, arg in swaps.items()})

    copy = Code(code.type, code.const, None, code.bounds, code.reads, code.may_fail, code.calls_def,
                code.slot, code.slot_test, code.rows, code.long_range, code.simple,
                node=None if code.is_const else made, size=code.size)
    if code.terms is not None:
        copy.terms = tuple(_rebound(term, swaps) for term in code.terms)
    return copy
