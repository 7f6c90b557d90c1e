"""Pass: statements of move effects and ``setup`` (assignments with domain checks, ``if``, ``for``, ``let``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gdl import ast
from gdl import types as T
from gdl.compiler import ir
from gdl.compiler.base import CompilerBase
from gdl.compiler.common import (
    MAX_BLOCK_DEPTH,
    MAX_LOOP_DEPTH,
    CompileFailed,
    Ctx,
    Local,
    StateVar,
    _arith_bounds,
    _bounds,
    _domain_bounds,
    _q,
    _show,
    _var_bounds,
    node,
)
from gdl.diagnostics import Span, did_you_mean
from gdl.types import Type


class EffectPass(CompilerBase):
    """Statements of move effects and ``setup`` (assignments with domain checks, ``if``, ``for``, ``let``)."""

    def compile_effect(self, fn: str, params: Sequence[ir.Var], types: list[Type], body: Sequence[ast.Stmt],
                       ctx: Ctx, span: Span, setup: bool = False) -> ir.Effect:
        """Emit ``fn(params..., st)``: the move's effects, split at chance points into continuations."""
        after = () if setup else self.after_every
        single = not setup and self.allow_incremental_ends and self.writes_state_once([*body, *after])
        ectx = ctx.child(in_effect=True, in_move=not setup, in_setup=setup, track_write=single)
        out: list[tuple[str, Span | None]] = []
        # `after every move:` runs after the move's own effects (and after its chance), as a block of its
        # own: it is written outside every move, so it sees none of the move's parameters or locals.
        actx = Ctx([{}], in_effect=True, in_move=True, track_write=single)
        with self.collecting() as block:
            ended = self.compile_segment(list(body), ectx, [(list(after), actx)] if after else [], out, span)
            if after and not ended:
                self.compile_segment(list(after), actx.child(), [], out, span)
        self.splice(self.statements.effect(fn, params, out, setup, single, span))
        if single:
            self.incremental_ends = True
        return ir.Effect(tuple(block), single)

    def writes_state_once(self, body: Sequence[ast.Stmt]) -> bool:
        """At most one assignment to a state variable, outside loops, and no chance: the move
        changes at most one slot (plus the turn), known when the move runs."""
        writes = 0
        stack: list[tuple[ast.Stmt, bool]] = [(stmt, False) for stmt in body]
        while stack:
            stmt, in_loop = stack.pop()
            if isinstance(stmt, (ast.Chance, ast.ChanceBranches)):
                return False
            if isinstance(stmt, ast.Assign) and stmt.name != "turn":
                if in_loop:
                    return False
                writes += 1
            elif isinstance(stmt, ast.If):
                for _, block in stmt.branches:
                    stack.extend((s, in_loop) for s in block)
                stack.extend((s, in_loop) for s in stmt.orelse or ())
            elif isinstance(stmt, ast.For):
                stack.extend((s, True) for s in stmt.body)
        return writes <= 1

    def compile_segment(self, stmts: list[ast.Stmt], ctx: Ctx, after: list[tuple[list[ast.Stmt], Ctx]],
                        out: list[tuple[str, Span | None]], span: Span) -> bool:
        """Compile ``stmts`` as a block at the top of a generated function: its IR goes to ``ir_out``, its lines
        (the statement emitter's, ``pass`` when it has none) to ``out``. Returns ``compile_block``'s answer."""
        with self.collecting() as segment:
            ended = self.compile_block(stmts, ctx, after, 1, span)
        self.ir_out.extend(segment)
        out.extend(self.statements.block(segment, 1, span))
        return ended

    def compile_block(self, stmts: list[ast.Stmt], ctx: Ctx, after: list[tuple[list[ast.Stmt], Ctx]],
                      depth: int, span: Span) -> bool:
        """Compile ``stmts`` (their IR to ``ir_out``); ``after`` holds what follows in enclosing blocks (for chance
        continuations); ``depth``: how deep the block is nested.

        Returns True when the block suspends at a chance at its top level (the continuation runs the rest).
        """
        for i, stmt in enumerate(stmts):
            try:
                if isinstance(stmt, (ast.Chance, ast.ChanceBranches)):
                    self.compile_chance(stmt, ctx, [(stmts[i + 1:], ctx), *after])
                    return True
                self.compile_stmt(stmt, ctx, after, depth, stmts[i + 1:])
            except CompileFailed:
                continue
        return False

    def compile_stmt(self, stmt: ast.Stmt, ctx: Ctx, after: list[tuple[list[ast.Stmt], Ctx]], depth: int,
                     rest: list[ast.Stmt]) -> None:
        if isinstance(stmt, ast.Assign):
            self.assignment(stmt, ctx)
        elif isinstance(stmt, ast.Pass):
            pass  # (no IR: an empty block is written `pass`)
        elif isinstance(stmt, ast.Let):
            if stmt.name in self.state and ctx.lookup(stmt.name) is None:
                self.warn("shadowed-state", f"`let {stmt.name}` hides the state variable {_q(stmt.name)}: later "
                          f"assignments to {_q(stmt.name)} change the local", stmt.span, "choose another name")
            value = self.expr(stmt.value, ctx)
            if value.type.kind == "none":
                raise self.fail("type", "cannot tell the type of `none` alone; write a typed value", stmt.span)
            pyname = f"L_{stmt.name}"
            local = self.declare_local(ctx, stmt.name, Local(pyname, value.type, True), stmt.span)
            self.ir_out.append(ir.Let(stmt.span, self.local_var(local, stmt.name), node(value)))
        elif isinstance(stmt, ast.Again):
            if ctx.in_setup:
                raise self.fail("again-in-setup", "`again` is meaningless in setup; assign `turn` instead", stmt.span)
            self.ir_out.append(ir.SetTurn(stmt.span, ir.Mover(T.PLAYER)))
        elif isinstance(stmt, ast.Break):
            if not ctx.in_loop:
                raise self.fail("break-outside-loop", "`break` outside a `for` loop", stmt.span)
            self.ir_out.append(ir.Break(stmt.span))
        elif isinstance(stmt, ast.If):
            self.check_block_depth(depth, stmt.span)
            taken = False  # an earlier test is constant true: the branches after it never run
            branches: list[tuple[ir.Expr, tuple[ir.Stmt, ...]]] = []
            orelse: tuple[ir.Stmt, ...] | None = None
            for test_expr, body in stmt.branches:
                test = self.expr(test_expr, ctx)
                self.require(test, T.BOOL, test_expr.span)
                with self.dead_code(taken or (test.is_const and not test.const)), self.collecting() as block:
                    self.compile_block(list(body), ctx.child(), [(rest, ctx), *after], depth + 1, stmt.span)
                branches.append((node(test), tuple(block)))
                taken = taken or (test.is_const and bool(test.const))
            if stmt.orelse is not None:
                with self.dead_code(taken), self.collecting() as block:
                    self.compile_block(list(stmt.orelse), ctx.child(), [(rest, ctx), *after], depth + 1, stmt.span)
                orelse = tuple(block)
            self.ir_out.append(ir.If(stmt.span, tuple(branches), orelse,
                                     tuple(test_expr.span for test_expr, _ in stmt.branches)))
        elif isinstance(stmt, ast.For):
            domain = self.expr(stmt.domain, ctx)
            if domain.type.kind != "seq":
                raise self.fail("type", f"`for` needs a set to loop over, not {domain.type}", stmt.domain.span)
            self.check_block_depth(depth, stmt.span)
            if self.loop_depth >= MAX_LOOP_DEPTH:
                raise self.fail("too-deep", f"`for` loops nested more than {MAX_LOOP_DEPTH} deep", stmt.span,
                                "loop over pairs or cells instead of nesting so many loops")
            inner = ctx.child(in_loop=True)
            pyname = f"L_{stmt.var}"
            local = self.declare_local(inner, stmt.var, Local(pyname, domain.type.elem or T.INT, False,
                                                              bounds=_domain_bounds(domain)), stmt.span)
            poll = self.needs_poll(domain)
            self.loop_depth += 1
            try:
                with self.loop_body(domain), self.collecting() as block:
                    self.compile_block(list(stmt.body), inner, [], depth + 1, stmt.span)
            finally:
                self.loop_depth -= 1
            self.ir_out.append(ir.For(stmt.span, self.local_var(local, stmt.var), node(domain), tuple(block), poll,
                                      stmt.domain.span))
        else:  # pragma: no cover - the grammar has no other statements
            raise self.fail("internal", f"unknown statement {type(stmt).__name__}", stmt.span)

    def check_block_depth(self, depth: int, span: Span) -> None:
        if depth > MAX_BLOCK_DEPTH:
            raise self.fail("too-deep", f"blocks nested more than {MAX_BLOCK_DEPTH} deep", span,
                            "move the inner part into a `def`, or test several conditions with `and`")

    def assignment(self, stmt: ast.Assign, ctx: Ctx) -> None:
        value = self.expr(stmt.value, ctx)
        local = ctx.lookup(stmt.name)
        if local is not None:
            if not local.mutable:
                raise self.fail("assign-to-constant", f"{_q(stmt.name)} cannot be changed here", stmt.name_span,
                                "only state variables and `let` locals can be assigned")
            if stmt.indices:
                raise self.fail("type", f"{_q(stmt.name)} is not an array", stmt.span)
            target_type = local.type
            slot: int | None = None
            current: ir.Expr = self.local_node(local, stmt.name)
        elif stmt.name == "turn":
            if stmt.indices:
                raise self.fail("type", "`turn` is not an array", stmt.span)
            self.require(value, T.PLAYER, stmt.value.span)
            if stmt.op != "=":
                raise self.fail("type", "`turn` can only be set with `=`", stmt.span)
            self.ir_out.append(ir.SetTurn(stmt.span, node(value)))
            return
        elif stmt.name in self.state:
            target_var = self.state[stmt.name]
            target_var.used = True
            target_type = target_var.type
            if target_var.dims:
                index = self.slot(target_var, stmt.indices, ctx, stmt.span)
                slot = index.const if index.is_const else None
                slot_node = node(index)
            elif stmt.indices:
                raise self.fail("type", f"{_q(stmt.name)} is not an array", stmt.span)
            else:
                slot = target_var.offset
                slot_node = ir.Const(T.INT, value=slot)
            current = ir.Slot(target_type, var=target_var.name, index=slot_node, value_bounds=_var_bounds(target_var))
            # (with `-=` and friends the constant is a change, not the new value)
            if stmt.op == "=" and value.is_const and isinstance(value.const, int) and \
                    not target_var.holds(int(value.const)):
                raise self.fail("out-of-domain", f"{_show(value.const)} is outside the domain of "
                                f"{_q(stmt.name)} ({self.describe_domain(target_var)})", stmt.value.span)
        else:
            if self.global_name_kind(stmt.name):
                raise self.fail("assign-to-constant", f"{_q(stmt.name)} is a {self.global_name_kind(stmt.name)} "
                                "and cannot be assigned", stmt.name_span,
                                "only state variables, `let` locals and `turn` can be assigned")
            raise self.fail("undefined-name", f"{_q(stmt.name)} is not defined", stmt.name_span,
                            did_you_mean(stmt.name, list(self.state) + [n for n, _ in ctx.all_locals()]))
        track = local is None and ctx.track_write
        if track:
            # The move's only write to the state: remember its slot so that the end rules are
            # re-checked only where that slot can make them true (see emit_incremental_ends).
            if slot is None:
                self.written_slots = None  # known only when the move runs: any slot
            elif self.written_slots is not None:
                self.written_slots.add(slot)
        if stmt.op != "=":
            if not target_type.is_number:
                raise self.fail("type", f"`{stmt.op}` needs a number, and {_q(stmt.name)} holds {target_type}",
                                stmt.span)
            self.require_number(value, stmt.value.span)
            new_value: ir.Expr = ir.Binary(target_type, op=stmt.op[0], left=current, right=node(value),
                                           span=stmt.span)
        else:
            if not T.assignable(value.type, target_type) and not (
                target_type.kind == "int" and value.type.kind == "int"
            ):
                raise self.fail("type", f"{_q(stmt.name)} holds {target_type}, not {value.type}", stmt.value.span)
            new_value = node(value)
        if (local is None and not value.is_const) or stmt.op != "=":
            var: StateVar | None = self.state[stmt.name] if local is None else None
            new = _bounds(value) if stmt.op == "=" else _arith_bounds(stmt.op[0], _var_bounds(var), _bounds(value)) \
                if var is not None else None
            proven = var is not None and new is not None and var.lo <= new[0] and new[1] <= var.hi and \
                var.values is None
            if var is not None and (var.type.kind == "int" or self.checked or not self.holds_every(var)) and not proven:
                # Keep every state value inside its declared domain: the state space stays finite
                # and a mistake in the rules is reported at its line instead of corrupting a solve.
                # (Skipped where the value's bounds already lie inside the domain, and for a player,
                # cell, direction or enumeration state that holds every value of its type.)
                new_value = ir.Check(target_type, kind="among" if var.values is not None else "domain",
                                     value=new_value, lo=var.lo, hi=var.hi, allowed=var.values, span=stmt.value.span)
        if isinstance(current, ir.Slot):
            assert current.index is not None
            self.ir_out.append(ir.AssignSlot(stmt.span, current.var, current.index, "=", new_value,
                                             stmt.op != "=", track))
        else:
            assert local is not None  # (every other target returned or failed above)
            self.ir_out.append(ir.AssignLocal(stmt.span, self.local_var(local, stmt.name), "=", new_value,
                                              stmt.op != "="))

    def compile_setup(self, setup: ast.SetupDecl | None) -> None:
        init = [0] * (self.nvars + 2)
        empty = Ctx([{}])
        for var in self.state.values():
            try:
                values = self.initial_values(var, empty)
            except CompileFailed:
                continue
            init[var.offset : var.offset + var.size] = values
        self.globals["_INIT"] = tuple(init)
        self.ir_setup = self.compile_effect("_setup", [], [], setup.body if setup else (), empty,
                                            setup.span if setup else Span(1, 1, 1, 2), setup=True)

    def initial_values(self, var: StateVar, ctx: Ctx) -> list[Any]:
        decl = var.decl
        if decl is None or decl.init is None:
            low = var.lo
            return [bool(low) if var.type.kind == "bool" else low] * var.size
        code = self.expr(decl.init, ctx)
        if not code.is_const:
            raise self.fail("not-constant", "an initial value must be known when the game loads", decl.init.span,
                            "set computed initial values in a `setup:` block")
        if code.type.kind == "seq":
            values = list(code.const)
            if len(values) != var.size:
                raise self.fail("type", f"{_q(var.name)} has {var.size} slots but the initial list has "
                                f"{len(values)} values", decl.init.span)
            elem = code.type.elem or T.INT
        else:
            values = [code.const] * var.size
            elem = code.type
        if not T.assignable(elem, var.type) and not (elem.kind == "int" and var.type.kind == "int"):
            raise self.fail("type", f"{_q(var.name)} holds {var.type}, not {elem}", decl.init.span)
        for value in values:
            if not var.holds(int(value)):
                raise self.fail("out-of-domain", f"initial value {_show(value)} is outside the domain of "
                                f"{_q(var.name)} ({self.describe_domain(var)})", decl.init.span)
        return values
