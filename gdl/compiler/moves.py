"""Pass: moves -- parameter loops, guards, specialised moves per constant parameter combination, ``_legal``."""

from __future__ import annotations

from typing import Any

from gdl import ast
from gdl import types as T
from gdl.compiler import ir
from gdl.compiler.base import CompilerBase
from gdl.compiler.common import MAX_DOMAIN, MAX_LOOP_DEPTH, UNROLL_MOVES, CompileFailed, Ctx, Local, _q, node
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
        legal_lines: list[tuple[str, Span]] = []
        otherwise_lines: list[tuple[str, Span]] = []
        for index, move in enumerate(moves):
            try:
                lines = self.compile_move(index, move)
            except CompileFailed:
                continue
            (otherwise_lines if move.otherwise else legal_lines).extend(lines)
        self.emit("def _legal(s):")
        self.emit("    out = []")
        self.emit("    add = out.append")
        for line, span in legal_lines:
            self.emit("    " + line, span)
        if otherwise_lines:
            self.emit("    if not out:")
            for line, span in otherwise_lines:
                self.emit("        " + line, span)
        self.emit("    return out")

    def compile_move(self, index: int, move: ast.MoveDecl) -> list[tuple[str, Span]]:
        if len(move.params) > MAX_LOOP_DEPTH:
            raise self.fail("too-deep", f"move {_q(move.name)} has {len(move.params)} parameters; at most "
                            f"{MAX_LOOP_DEPTH}", move.params[MAX_LOOP_DEPTH].span)
        saved_weight = self.loop_weight
        try:
            return self.compile_move_loops(index, move)
        finally:
            self.loop_weight = saved_weight

    def compile_move_loops(self, index: int, move: ast.MoveDecl) -> list[tuple[str, Span]]:
        """The lines of ``_legal`` that list ``move``: a loop per parameter, the guard, the move object."""
        ctx = Ctx([{}], in_move=True)
        loops: list[tuple[str, Span]] = []
        names: list[str] = []
        types: list[Type] = []
        params: list[ir.Param] = []
        depth = 0
        for p in move.params:
            dom = self.expr(p.type.domain, ctx)
            if dom.type.kind != "seq":
                raise self.fail("bad-type", f"the move parameter {_q(p.name)} needs a set of values such as "
                                "`cell` or `1..3`", p.type.span)
            elem = dom.type.elem or T.INT
            if dom.is_const and len(dom.const) > MAX_DOMAIN:
                raise self.fail("too-large", "this move parameter has too many values", p.type.span)
            pyname = f"L_{p.name}"
            local = self.declare_local(ctx, p.name, Local(pyname, elem, False), p.span)
            params.append(ir.Param(self.local_var(local, p.name), node(dom), self.needs_poll(dom)))
            loops.append(("    " * depth + f"for {pyname} in {self.loop_source(dom, p.type.span, 'out')}:", p.span))
            self.loop_weight = min(self.loop_weight * self.domain_size(dom), 1 << 62)
            names.append(pyname)
            types.append(elem)
            depth += 1
        self.move_param_types[move.name] = tuple(types)
        guard_src = None
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
            if not guard.is_const:
                guard_src = self.src(guard)
            elif never:
                guard_src = "False"
        combos = self.constant_combinations(move)
        if combos is not None:
            lines, specialised = self.specialised_move(index, move, types, combos)
            effect = None
            if not lines and not never:
                # Every combination's condition folded to false: say so, and still check the body.
                self.warn("never-legal", f"move {_q(move.name)} can never be played: its condition is false "
                          "for every value of its parameters", move.guard.span if move.guard else move.span)
                effect = self.compile_effect(f"_m{index}", names, types, move.body, ctx, move.span)
            elif not lines:
                with self.dead_code():  # never played, but still a part of the rule file to check
                    effect = self.compile_effect(f"_m{index}", names, types, move.body, ctx, move.span)
            self.ir_moves.append(ir.Move(move.name, index, tuple(params), guard_node, effect, move.span,
                                         move.otherwise, tuple(specialised)))
            return lines
        fn = f"_m{index}"
        effect = self.compile_effect(fn, names, types, move.body, ctx, move.span)
        self.ir_moves.append(ir.Move(move.name, index, tuple(params), guard_node, effect, move.span, move.otherwise))
        factory = MoveFactory(move.name, [self.displayer(t) for t in types], fn)
        self.globals[f"_MT{index}"] = factory.cache
        self.globals[f"_MK{index}"] = factory
        self.factories.append(factory)
        key = names[0] if len(names) == 1 else "(" + "".join(n + ", " for n in names) + ")"
        if not names:
            key = "0"
        get = f"_MT{index}.get({key}) or _MK{index}({key})"
        body = ("    " * depth) + (f"if {guard_src}: add({get})" if guard_src else f"add({get})")
        return [*loops, (body, move.span)]

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
                         combos: list[tuple[Any, ...]]) -> tuple[list[tuple[str, Span]], list[Specialised]]:
        """One guard test and one effect function per parameter combination, constants folded in (the
        lines of ``_legal``, and in the IR each combination with its guard and effect)."""
        lines: list[tuple[str, Span]] = []
        specialised: list[Specialised] = []
        displays = [self.displayer(t) for t in types]
        for k, combo in enumerate(combos):
            ctx = Ctx([{}], in_move=True)
            for p, typ, value in zip(move.params, types, combo, strict=True):
                ctx.scopes[-1][p.name] = Local(f"L_{p.name}", typ, False, value, line=p.span.line)
            guard_src = None
            guard_node = None
            if move.guard is not None:
                guard = self.expr(move.guard, ctx)
                if guard.is_const and not guard.const:
                    continue
                if not guard.is_const:
                    guard_src = self.src(guard)
                    guard_node = node(guard)
            fn = f"_m{index}_{k}"
            specialised.append((combo, guard_node, self.compile_effect(fn, [], [], move.body, ctx, move.span)))
            shown = tuple(d(v) for d, v in zip(displays, combo, strict=True))
            mv = f"_mv{index}_{k}"
            self.eager_moves.append((mv, move.name, shown, fn))
            lines.append((f"if {guard_src}: add({mv})" if guard_src else f"add({mv})", move.span))
        return lines, specialised
