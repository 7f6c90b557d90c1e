"""Pass: end rules, their status codes, and the incremental (per written slot) end checks."""

from __future__ import annotations

from gdl import ast
from gdl import types as T
from gdl.compiler import ir
from gdl.compiler.base import CompilerBase
from gdl.compiler.common import DRAW, LOSE, WIN, Code, CompileFailed, Ctx, Local, _q, node
from gdl.diagnostics import Span, did_you_mean


def _end_rule(kind: str, cond: Code, status: ir.Expr, span: Span) -> ir.EndRule:
    """An end rule's IR, its condition's disjunct terms with it."""
    return ir.EndRule(kind, node(cond), status, span, tuple(node(term) for term in cond.terms or ()),
                      tuple(_sorted(term.reads.slots_if_known) for term in cond.terms or (cond,)))


def _sorted(slots: frozenset[int] | None) -> tuple[int, ...] | None:
    return None if slots is None else tuple(sorted(slots))


class EndRulePass(CompilerBase):
    """End rules, their status codes, and the incremental (per written slot) end checks."""

    def compile_ends(self, ends: list[ast.EndDecl], utilities: list[ast.UtilityDecl]) -> list[str]:
        n = len(self.players)
        if not ends:
            self.error("missing-terminal", "the rule file never ends the game", Span(1, 1, 1, 2),
                       "add `win p when ...`, `draw when ...` or `terminal when ...`")
        if any(e.kind == "terminal" for e in ends) and not utilities:
            first = next(e for e in ends if e.kind == "terminal")
            self.error("missing-utility", "`terminal when` needs a `utility p: ...` line to score the end",
                       first.span, "or use `win p when ...` / `draw when ...`, which score themselves")
        table: list[tuple[float, ...] | None] = [None]
        descriptions = [""]
        # In file order; a `win p when` rule gives one per player.
        rules: list[ir.EndRule] = []
        for end in ends:
            base = len(table)  # not from the rule's index: a rule that failed to compile adds no rows
            try:
                rules.extend(self.end_conditions(end, base))
            except CompileFailed:
                continue
            table.extend([None] * (n + 1))
            descriptions.extend([""] * (n + 1))
            for p in range(-1, n):
                table[base + p + 1] = self.end_utilities(end.kind, p)
                descriptions[base + p + 1] = self.describe_end(end.kind, p)
        self.globals["_UT"] = tuple(table)
        self.splice(self.statements.finish(rules))
        if self.incremental_ends:
            # After a move that changed one slot, only the terms that read it (see incremental_ends).
            wanted = range(self.nvars) if self.written_slots is None else sorted(self.written_slots)
            self.splice(self.statements.incremental_ends(rules, wanted, self.nvars))
        self.globals["_ST"] = self.status_slot
        return descriptions

    def end_conditions(self, end: ast.EndDecl, base: int) -> list[ir.EndRule]:
        """The conditions of one end rule with the status each sets; constant-false ones are dropped."""
        n = len(self.players)
        ctx = Ctx([{}], in_end=True)
        binder = self.end_binder(end)
        binder_local = None
        if binder is not None:
            binder_local = self.declare_local(ctx, binder, Local(f"L_{binder}", T.PLAYER, False), end.span)
        cond = self.expr(end.condition, ctx)
        self.require(cond, T.BOOL, end.condition.span)
        if binder is not None and binder_local is not None and not binder_local.used:
            self.warn("unused-binder", f"{_q(binder)} is not used in the condition, so it stands for "
                      "every player", end.who.span if end.who else end.span,
                      did_you_mean(binder, self.visible_names(ctx)))
        if binder is not None:
            out = []
            for p in range(n):  # one condition per player, with the player folded in
                pctx = Ctx([{}], in_end=True)
                pctx.scopes[-1][binder] = Local(f"L_{binder}", T.PLAYER, False, p)
                out.append((self.expr(end.condition, pctx), base + 1 + p))
            kept = [_end_rule(end.kind, c, ir.Const(T.INT, value=status), end.span) for c, status in out
                    if not (c.is_const and not c.const)]
            self.ir_ends.extend(kept)
            return kept
        if end.kind in ("win", "lose"):
            assert end.who is not None
            who = self.expr(end.who, ctx)
            self.require(who, T.PLAYER, end.who.span)
            status_node: ir.Expr = ir.Binary(T.INT, op="+", left=ir.Const(T.INT, value=base + 1), right=node(who))
        else:
            status_node = ir.Const(T.INT, value=base)
        if cond.is_const and not cond.const:
            return []
        rule = _end_rule(end.kind, cond, status_node, end.span)
        self.ir_ends.append(rule)
        return [rule]

    def end_binder(self, end: ast.EndDecl) -> str | None:
        """``win p when ...``: a bare, otherwise unknown name stands for each player in turn."""
        if end.kind not in ("win", "lose") or not isinstance(end.who, ast.Name):
            return None
        name = end.who.id
        if name in ("mover", "turn") or self.global_name_kind(name) or name in self.state:
            return None
        return name

    def end_utilities(self, kind: str, who: int) -> tuple[float, ...] | None:
        n = len(self.players)
        if kind == "draw":
            return (DRAW,) * n
        if kind == "terminal" or who < 0:
            return None
        if kind == "win":
            return tuple(WIN if p == who else LOSE for p in range(n))
        return tuple(LOSE if p == who else WIN for p in range(n))

    def describe_end(self, kind: str, who: int) -> str:
        if kind == "draw":
            return "draw"
        if kind == "terminal" or who < 0:
            return "game over"
        return f"{self.players[who]} {'wins' if kind == 'win' else 'loses'}"
