"""Pass: chance points -- suspending a move and resuming it in continuations, outcome distributions."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from gdl import ast
from gdl import types as T
from gdl.compiler import ir
from gdl.compiler.base import CompilerBase
from gdl.compiler.common import NOT_CONST, Code, Ctx, Local, _domain_bounds, _q, node
from gdl.diagnostics import Span
from gdl.rule_helpers import MAX_OUTCOMES, OutcomeFactory
from gdl.types import Type


class ChancePass(CompilerBase):
    """Chance points -- suspending a move and resuming it in continuations, outcome distributions."""

    def compile_chance(self, stmt: ast.Stmt, ctx: Ctx, after: list[tuple[list[ast.Stmt], Ctx]],
                       out: list[Any], pad: str) -> None:
        """Suspend the move here; nature's pick resumes it in a continuation function."""
        if ctx.in_loop:
            raise self.fail("chance-in-loop", "`chance` cannot appear inside a `for` loop", stmt.span,
                            "move the chance before or after the loop")
        if ctx.in_setup:  # (docs 2.13) the game would start at a chance state, before anyone has moved
            raise self.fail("chance-in-setup", "`chance` cannot appear in `setup`", stmt.span,
                            "give the state its starting value, or make the first move a chance")
        self.has_chance = True
        cid = self.chance_points
        self.chance_points += 1
        saved = [(n, loc) for n, loc in ctx.all_locals() if loc.const is NOT_CONST]
        extras = [f"{local.pyname}" for _, local in saved]
        # The chance state: variables, turn=CHANCE, status, then what the continuation needs.
        saved_src = "".join(", " + name for name in extras)
        out.append((f"{pad}s[_T] = -1", stmt.span))
        out.append((f"{pad}return tuple(s) + ({cid}, me, nt{saved_src})", stmt.span))
        saved_vars = tuple(self.local_var(local, name) for name, local in saved)
        self.ir_out.append(ir.Suspend(stmt.span, cid, saved_vars))
        self.max_saved = max(self.max_saved, len(saved_vars))
        restore = [f"    {name} = st[{self.extra_base + 3 + i}]" for i, name in enumerate(extras)]
        # Continuation: chance body, then the rest of every enclosing block.
        kctx = ctx.child()
        for name, local in saved:
            kctx.scopes[-1][name] = local
        if isinstance(stmt, ast.Chance):
            self.compile_chance_var(stmt, cid, ctx, kctx, restore, after)
        else:
            assert isinstance(stmt, ast.ChanceBranches)
            self.compile_chance_branches(stmt, cid, ctx, kctx, restore, after)
        # (the chance point's own pass did not know which locals the state keeps)
        self.ir_chance = [dataclasses.replace(c, saved=saved_vars) if c.point == cid else c for c in self.ir_chance]

    def emit_continuation(self, fn: str, restore: list[str], body: list[Any], span: Span,
                          bind: str | None = None) -> None:
        """``fn(outcome, st)``: restore the move's locals from the chance state, then bind the chance
        variable (after the restore, so that no saved local can overwrite nature's pick), then go on."""
        self.emit(f"def {fn}(_pick, st):", span)
        self.emit(f"    s = list(st[:{self.extra_base}])", span)
        self.emit(f"    me = st[{self.extra_base + 1}]; nt = st[{self.extra_base + 2}]", span)
        self.emit("    s[_T] = me", span)
        for line in restore:
            self.emit(line, span)
        if bind is not None:
            self.emit(f"    {bind} = _pick", span)
        self.splice(body)
        self.emit("    return _finish(s, me, nt)", span)

    def emit_chance_state(self, span: Span) -> None:
        """The start of ``_co<k>(st)``: the outcomes and weights are computed inside the move, so
        ``mover`` and ``turn`` are the mover there (the chance state's own turn slot says CHANCE)."""
        # A def's body reads `turn` from the state (it is compiled once, for every caller): in the move it
        # is the mover, so it must be here too, not the chance state's CHANCE.
        self.emit(f"    me = st[{self.extra_base + 1}]; s = list(st[:{self.extra_base}]); s[_T] = me", span)

    def continuation_body(self, first: Sequence[ast.Stmt], kctx: Ctx,
                          after: list[tuple[list[ast.Stmt], Ctx]], span: Span) -> list[Any]:
        """The code after a chance: ``first`` in ``kctx``, then the rest of each enclosing block, each in
        its own block's scope (a fresh child of it), so that a local of an inner block ends with that
        block here as it does in the code without chance."""
        body: list[Any] = []
        segments = [(list(first), kctx), *((list(rest), self.resumed_scope(rctx, kctx)) for rest, rctx in after)]
        for i, (stmts, sctx) in enumerate(segments):
            if self.compile_block(stmts, sctx, segments[i + 1:], body, 1, span):
                break  # a chance at this level: its continuation runs the segments after it
        return body

    @staticmethod
    def resumed_scope(block: Ctx, kctx: Ctx) -> Ctx:
        """``block``'s locals (all restored in the continuation) plus a new scope, with ``kctx``'s flags."""
        return Ctx([*block.scopes, {}], kctx.in_effect, kctx.in_move, kctx.in_loop, kctx.in_setup, kctx.in_end,
                   kctx.track_write)

    def compile_chance_var(self, stmt: ast.Chance, cid: int, ctx: Ctx, kctx: Ctx, restore: list[str],
                           after: list[tuple[list[ast.Stmt], Ctx]]) -> None:
        domain = self.expr(stmt.domain, ctx)
        if domain.type.kind != "seq":
            raise self.fail("type", f"`chance {stmt.var} in ...` needs a set of outcomes, not {domain.type}",
                            stmt.domain.span)
        if domain.is_const and len(domain.const) > MAX_OUTCOMES:
            # Each outcome is a move object made at load time: a million would take seconds and memory.
            raise self.fail("too-large", f"a chance over {len(domain.const):,} outcomes; at most {MAX_OUTCOMES:,}",
                            stmt.domain.span)
        elem = domain.type.elem or T.INT
        pyname = f"L_{stmt.var}"
        bound = self.declare_local(kctx, stmt.var, Local(pyname, elem, False, bounds=_domain_bounds(domain)),
                                   stmt.span)
        wctx = ctx.child()
        wctx.scopes[-1][stmt.var] = bound  # (the weights are a function of the same variable)
        weight = None
        if stmt.weight is not None:
            weight = self.expr(stmt.weight, wctx)
            self.require_number(weight, stmt.weight.span)
            if domain.is_const and weight.is_const:
                self.check_constant_weights([weight.const] * len(domain.const), stmt.weight.span)
        elif domain.is_const and len(domain.const) == 0:
            raise self.fail("empty-chance", "this chance has no outcomes", stmt.domain.span)
        fn = f"_k{cid}c"
        with self.collecting() as block:
            if stmt.body is None:  # `chance x in D`: x is visible to the end of the enclosing block
                body = self.continuation_body(after[0][0], kctx, after[1:], stmt.span)
            else:  # `chance x in D:` only in its body
                body = self.continuation_body(stmt.body, kctx, after, stmt.span)
        variable = self.local_var(bound, stmt.var)
        self.emit_continuation(fn, restore, body, stmt.span, bind=pyname)
        # Outcomes function: evaluated in the chance state.
        factory = OutcomeFactory(stmt.var, self.displayer(elem), fn)
        self.globals[f"_CT{cid}"] = factory.cache
        self.globals[f"_CK{cid}"] = factory
        self.factories.append(factory)
        sid = self.span_id(stmt.span)
        exact = self.constant_distribution(stmt, domain, ctx, elem)
        self.ir_chance.append(ir.ChancePoint(
            cid, (), stmt.span, var=variable, domain=node(domain), weight=node(weight) if weight else None,
            continuations=(ir.Continuation(variable, tuple(block)),),
            distribution=tuple(exact) if exact is not None else None))
        self.emit(f"def _co{cid}(st):", stmt.span)
        if exact is not None:
            fixed = [(v, float(p)) for v, p in exact]
            # Known at load time: one shared list of (outcome, probability), built once.
            self.distributions.append((f"_CD{cid}", factory, fixed))
            self.emit(f"    return _CD{cid}", stmt.span)
            return
        self.emit_chance_state(stmt.span)
        for line in restore:
            self.emit(line, stmt.span)
        self.emit(f"    dom = _outcomes({self.src(domain)}, {sid})", stmt.span)  # bounded before it is built
        if weight is None:
            self.emit(f"    return _uniform(dom, _CT{cid}, _CK{cid}, {sid})", stmt.span)
        else:
            self.emit(f"    ws = [{self.src(weight)} for {pyname} in dom]",
                      stmt.weight.span if stmt.weight else stmt.span)
            self.emit(f"    return _weighted(dom, ws, _CT{cid}, _CK{cid}, {sid})", stmt.span)

    def constant_distribution(self, stmt: ast.Chance, domain: Code, ctx: Ctx,
                              elem: Type) -> list[tuple[Any, Fraction]] | None:
        """The outcomes and exact probabilities of a chance whose domain and weights are constants."""
        if not domain.is_const:
            return None
        values = list(domain.const)
        if stmt.weight is None:
            weights: list[Any] = [1] * len(values)
        else:
            weights = []
            for value in values:
                wctx = ctx.child()
                wctx.scopes[-1][stmt.var] = Local(f"L_{stmt.var}", elem, False, value)
                weight = self.expr(stmt.weight, wctx)
                if not weight.is_const:
                    return None
                weights.append(Fraction(weight.const))
            self.check_constant_weights(weights, stmt.weight.span)
        total = sum(weights)
        return [(v, Fraction(w) / total) for v, w in zip(values, weights, strict=True) if w]

    def check_constant_weights(self, weights: list[Any], span: Span) -> None:
        if any(w < 0 for w in weights):
            raise self.fail("bad-probability", "a chance weight is negative", span)
        if sum(weights) == 0:
            raise self.fail("bad-probability", "the chance weights add up to 0", span)

    def compile_chance_branches(self, stmt: ast.ChanceBranches, cid: int, ctx: Ctx, kctx: Ctx,
                                restore: list[str], after: list[tuple[list[ast.Stmt], Ctx]]) -> None:
        probs = []
        labels: list[str] = []
        for branch in stmt.branches:
            if branch.label in labels:
                raise self.fail("duplicate", f"outcome {_q(branch.label)} appears twice", branch.span)
            labels.append(branch.label)
            prob = self.expr(branch.probability, ctx)
            self.require_number(prob, branch.probability.span)
            probs.append(prob)
        if all(p.is_const for p in probs):
            values = [Fraction(p.const) for p in probs]
            for branch, value in zip(stmt.branches, values, strict=True):
                if value < 0:
                    raise self.fail("bad-probability", f"probability {value} is negative", branch.probability.span)
            if sum(values) != 1:
                raise self.fail("bad-probability", f"the probabilities add up to {sum(values)}, not 1", stmt.span,
                                "write exact fractions such as 1/3; they must sum to exactly 1")
        fns = []
        continuations = []
        for index, branch in enumerate(stmt.branches):
            fn = f"_k{cid}b{index}"
            with self.collecting() as block:
                body = self.continuation_body(branch.body, kctx.child(), after, branch.span)
            continuations.append(ir.Continuation(None, tuple(block)))
            self.emit_continuation(fn, restore, body, branch.span)
            fns.append(fn)
        self.ir_chance.append(ir.ChancePoint(cid, (), stmt.span, labels=tuple(labels),
                                             probabilities=tuple(node(p) for p in probs),
                                             continuations=tuple(continuations)))
        outcome_fn = f"_co{cid}"
        factory = OutcomeFactory(None, str, fns)
        self.globals[f"_CB{cid}"] = tuple(labels)
        self.globals[f"_CK{cid}"] = factory
        self.factories.append(factory)
        sid = self.span_id(stmt.span)
        self.emit(f"def {outcome_fn}(st):", stmt.span)
        self.emit_chance_state(stmt.span)
        for line in restore:
            self.emit(line, stmt.span)
        prob_src = ", ".join(self.src(p) for p in probs)
        self.emit(f"    return _branches(_CB{cid}, ({prob_src},), _CK{cid}, {sid})", stmt.span)
