"""Pass: chance points -- suspending a move and resuming it in continuations, outcome distributions."""

from __future__ import annotations

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

    def compile_chance(self, stmt: ast.Stmt, ctx: Ctx, after: list[tuple[list[ast.Stmt], Ctx]]) -> None:
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
        # The chance state: variables, turn=CHANCE, status, then what the continuation needs.
        saved_vars = tuple(self.local_var(local, name) for name, local in saved)
        self.ir_out.append(ir.Suspend(stmt.span, cid, saved_vars))
        self.max_saved = max(self.max_saved, len(saved_vars))
        # Continuation: chance body, then the rest of every enclosing block.
        kctx = ctx.child()
        for name, local in saved:
            kctx.scopes[-1][name] = local
        if isinstance(stmt, ast.Chance):
            self.compile_chance_var(stmt, cid, ctx, kctx, saved_vars, after)
        else:
            assert isinstance(stmt, ast.ChanceBranches)
            self.compile_chance_branches(stmt, cid, ctx, kctx, saved_vars, after)

    def continuation_body(self, first: Sequence[ast.Stmt], kctx: Ctx,
                          after: list[tuple[list[ast.Stmt], Ctx]], span: Span) -> list[tuple[str, Span | None]]:
        """The code after a chance: ``first`` in ``kctx``, then the rest of each enclosing block, each in
        its own block's scope (a fresh child of it), so that a local of an inner block ends with that
        block here as it does in the code without chance."""
        body: list[tuple[str, Span | None]] = []
        segments = [(list(first), kctx), *((list(rest), self.resumed_scope(rctx, kctx)) for rest, rctx in after)]
        for i, (stmts, sctx) in enumerate(segments):
            if self.compile_segment(stmts, sctx, segments[i + 1:], body, span):
                break  # a chance at this level: its continuation runs the segments after it
        return body

    @staticmethod
    def resumed_scope(block: Ctx, kctx: Ctx) -> Ctx:
        """``block``'s locals (all restored in the continuation) plus a new scope, with ``kctx``'s flags."""
        return Ctx([*block.scopes, {}], kctx.in_effect, kctx.in_move, kctx.in_loop, kctx.in_setup, kctx.in_end,
                   kctx.track_write)

    def compile_chance_var(self, stmt: ast.Chance, cid: int, ctx: Ctx, kctx: Ctx, saved: tuple[ir.Var, ...],
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
        self.splice(self.statements.continuation(fn, saved, self.extra_base, body, stmt.span, bind=variable))
        # Outcomes function: evaluated in the chance state.
        factory = OutcomeFactory(stmt.var, self.displayer(elem), fn)
        self.globals[f"_CT{cid}"] = factory.cache
        self.globals[f"_CK{cid}"] = factory
        self.factories.append(factory)
        exact = self.constant_distribution(stmt, domain, ctx, elem)
        point = ir.ChancePoint(
            cid, saved, stmt.span, var=variable, domain=node(domain), weight=node(weight) if weight else None,
            continuations=(ir.Continuation(variable, tuple(block)),),
            distribution=tuple(exact) if exact is not None else None,
            weight_span=stmt.weight.span if stmt.weight else None)
        self.ir_chance.append(point)
        if exact is not None:
            fixed = [(v, float(p)) for v, p in exact]
            # Known at load time: one shared list of (outcome, probability), built once.
            self.distributions.append((f"_CD{cid}", factory, fixed))
        self.splice(self.statements.outcomes(point, self.extra_base))

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
                                saved: tuple[ir.Var, ...], after: list[tuple[list[ast.Stmt], Ctx]]) -> None:
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
            self.splice(self.statements.continuation(fn, saved, self.extra_base, body, branch.span))
            fns.append(fn)
        point = ir.ChancePoint(cid, saved, stmt.span, labels=tuple(labels),
                               probabilities=tuple(node(p) for p in probs), continuations=tuple(continuations))
        self.ir_chance.append(point)
        factory = OutcomeFactory(None, str, fns)
        self.globals[f"_CB{cid}"] = tuple(labels)
        self.globals[f"_CK{cid}"] = factory
        self.factories.append(factory)
        self.splice(self.statements.outcomes(point, self.extra_base))
