"""Pass: moves -- parameter loops, guards, specialised moves per constant parameter combination, ``_legal``."""

from __future__ import annotations

from typing import Any

from gdl import ast
from gdl import types as T
from gdl.compiler import ir
from gdl.compiler.base import CompilerBase
from gdl.compiler.common import (
    MAX_DOMAIN,
    MAX_EVALUATIONS,
    MAX_LOOP_DEPTH,
    UNROLL_MOVES,
    CompileFailed,
    Ctx,
    Local,
    _q,
    node,
)
from gdl.diagnostics import Span
from gdl.rule_helpers import MoveFactory
from gdl.types import Type

Specialised = tuple[tuple[Any, ...], ir.Expr | None, ir.Effect]
"""One constant combination of a move's parameters: its values, its guard (None: always), its effect."""


class MovePass(CompilerBase):
    """Moves -- parameter loops, guards, specialised moves per constant parameter combination, ``_legal``."""

    def compile_moves(self, moves: list[ast.MoveDecl]) -> None:
        if not moves:
            self.error("missing-moves", "the rule file declares no moves", Span(1, 1, 1, 2),
                       "add a move like `move place(c: cell) when ...:`")
        self.globals["_MOVES"] = {}
        legal_lines: list[tuple[str, Span | None]] = []
        otherwise_lines: list[tuple[str, Span | None]] = []
        for index, move in enumerate(moves):
            try:
                compiled = self.compile_move(index, move)
            except CompileFailed:
                continue
            # (written as soon as the move is compiled: the constants it names are named in this order)
            (otherwise_lines if move.otherwise else legal_lines).extend(self.statements.move_lines(compiled))
        self.splice(self.statements.legal(legal_lines, otherwise_lines))

    def compile_move(self, index: int, move: ast.MoveDecl) -> ir.Move:
        if len(move.params) > MAX_LOOP_DEPTH:
            raise self.fail("too-deep", f"move {_q(move.name)} has {len(move.params)} parameters; at most "
                            f"{MAX_LOOP_DEPTH}", move.params[MAX_LOOP_DEPTH].span)
        saved_weight = self.loop_weight
        try:
            return self.compile_move_loops(index, move)
        finally:
            self.loop_weight = saved_weight

    def compile_move_loops(self, index: int, move: ast.MoveDecl) -> ir.Move:
        """``move``'s IR (``_legal`` lists it: a loop per parameter, the guard, the move object)."""
        ctx = Ctx([{}], in_move=True)
        types: list[Type] = []
        params: list[ir.Param] = []
        combinations = 1
        for p in move.params:
            dom = self.expr(p.type.domain, ctx)
            if dom.type.kind != "seq":
                raise self.fail("bad-type", f"the move parameter {_q(p.name)} needs a set of values such as "
                                "`cell` or `1..3`", p.type.span)
            elem = dom.type.elem or T.INT
            if dom.is_const and len(dom.const) > MAX_DOMAIN:
                raise self.fail("too-large", "this move parameter has too many values", p.type.span)
            combinations *= len(dom.const) if dom.is_const else 1
            if combinations > MAX_EVALUATIONS:  # each combination's condition is evaluated in every state
                raise self.fail("too-large", f"move {_q(move.name)} has more than {MAX_EVALUATIONS:,} combinations "
                                "of parameter values, each tested in every state", move.span,
                                "narrow the parameters' ranges, or split the move")
            pyname = f"L_{p.name}"
            local = self.declare_local(ctx, p.name, Local(pyname, elem, False), p.span)
            params.append(ir.Param(self.local_var(local, p.name), node(dom), self.needs_poll(dom), p.span,
                                   p.type.span))
            self.loop_weight = min(self.loop_weight * self.domain_size(dom), 1 << 62)
            types.append(elem)
        self.move_param_types[move.name] = tuple(types)
        guard_node = None
        never = False  # the guard is false whatever the parameters
        if move.guard is not None:
            guard = self.expr(move.guard, ctx)
            guard_node = node(guard)
            self.require(guard, T.BOOL, move.guard.span)
            never = guard.is_const and not guard.const
            if never:
                self.warn("never-legal", f"move {_q(move.name)} can never be played: its condition is always "
                          "false", move.guard.span)
        variables = [param.var for param in params]
        combos = self.constant_combinations(move)
        if combos is not None:
            specialised, ids = self.specialised_move(index, move, types, combos)
            effect = None
            if not specialised and not never:
                # Every combination's condition folded to false: say so, and still check the body.
                self.warn("never-legal", f"move {_q(move.name)} can never be played: its condition is false "
                          "for every value of its parameters", move.guard.span if move.guard else move.span)
                effect = self.compile_effect(f"_m{index}", variables, types, move.body, ctx, move.span)
            elif not specialised:
                with self.dead_code():  # never played, but still a part of the rule file to check
                    effect = self.compile_effect(f"_m{index}", variables, types, move.body, ctx, move.span)
            compiled = ir.Move(move.name, index, tuple(params), guard_node, effect, move.span, move.otherwise,
                               tuple(specialised), ids)
            self.ir_moves.append(compiled)
            return compiled
        fn = f"_m{index}"
        effect = self.compile_effect(fn, variables, types, move.body, ctx, move.span)
        compiled = ir.Move(move.name, index, tuple(params), guard_node, effect, move.span, move.otherwise)
        self.ir_moves.append(compiled)
        factory = MoveFactory(move.name, [self.displayer(t) for t in types], fn)
        self.globals[f"_MT{index}"] = factory.cache
        self.globals[f"_MK{index}"] = factory
        self.factories.append(factory)
        return compiled

    def constant_combinations(self, move: ast.MoveDecl) -> list[tuple[Any, ...]] | None:
        """All parameter values of a move, if its domains are load-time constants and few (to unroll)."""
        combos: list[tuple[Any, ...]] = [()]
        for p in move.params:
            grown: list[tuple[Any, ...]] = []
            for combo in combos:
                ctx = Ctx([{}], in_move=True)
                for q, value in zip(move.params, combo, strict=False):
                    ctx.scopes[-1][q.name] = Local(f"L_{q.name}", T.INT, False, value, line=q.span.line)
                dom = self.expr(p.type.domain, ctx)
                if not dom.is_const:
                    return None
                grown.extend((*combo, v) for v in dom.const)
                if len(grown) > UNROLL_MOVES:
                    return None
            combos = grown
        return combos

    def specialised_move(self, index: int, move: ast.MoveDecl, types: list[Type],
                         combos: list[tuple[Any, ...]]) -> tuple[list[Specialised], tuple[int, ...]]:
        """One guard test and one effect function per parameter combination, constants folded in: each
        combination whose guard may hold with its guard and effect, and its place among ``combos``."""
        ids: list[int] = []
        specialised: list[Specialised] = []
        displays = [self.displayer(t) for t in types]
        for k, combo in enumerate(combos):
            ctx = Ctx([{}], in_move=True)
            for p, typ, value in zip(move.params, types, combo, strict=True):
                ctx.scopes[-1][p.name] = Local(f"L_{p.name}", typ, False, value, line=p.span.line)
            guard_node = None
            if move.guard is not None:
                guard = self.expr(move.guard, ctx)
                if guard.is_const and not guard.const:
                    continue
                if not guard.is_const:
                    guard_node = node(guard)
            fn = f"_m{index}_{k}"
            specialised.append((combo, guard_node, self.compile_effect(fn, [], [], move.body, ctx, move.span)))
            shown = tuple(d(v) for d, v in zip(displays, combo, strict=True))
            mv = f"_mv{index}_{k}"
            self.eager_moves.append((mv, move.name, shown, fn))
            ids.append(k)
        return specialised, tuple(ids)
