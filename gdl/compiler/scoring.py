"""Pass: ``utility``, ``heuristic`` and ``render`` declarations, utility bounds and zero-sum."""

from __future__ import annotations

from gdl import ast
from gdl import types as T
from gdl.compiler import ir
from gdl.compiler.base import CompilerBase
from gdl.compiler.common import DRAW, LOSE, WIN, CompileFailed, Ctx, Local, _q, node
from gdl.diagnostics import Span, did_you_mean


class ScoringPass(CompilerBase):
    """``utility``, ``heuristic`` and ``render`` declarations, utility bounds and zero-sum."""

    def compile_utilities(self, ends: list[ast.EndDecl], utilities: list[ast.UtilityDecl],
                          zero_sums: list[ast.ZeroSumDecl]) -> tuple[tuple[float, float] | None, bool]:
        n = len(self.players)
        lows: list[float] = []
        highs: list[float] = []
        for end in ends:
            if end.kind == "draw":
                lows.append(DRAW)
                highs.append(DRAW)
            elif end.kind in ("win", "lose"):
                lows.append(LOSE)
                highs.append(WIN)
        bounded = True
        for extra in utilities[1:]:
            self.error("duplicate", "there can be only one `utility` line", extra.span)
        if utilities:
            decl = utilities[0]
            ctx = Ctx([{}], in_end=True)
            ctx.scopes[-1][decl.var] = Local(f"L_{decl.var}", T.PLAYER, False)
            try:
                scoring = self.per_player_number(decl.var, decl.expr, decl.span, game_over=True)
                self.splice(self.statements.utility(scoring, n))
            except CompileFailed:
                pass
            if decl.bounds is not None:
                try:
                    bounds = self.expr(decl.bounds, ctx)
                    if not bounds.is_const or bounds.type.kind != "seq" or not len(bounds.const):
                        raise self.fail("not-constant", "utility bounds must be a constant range like `-1..1`",
                                        decl.bounds.span)
                    lows.append(min(bounds.const))
                    highs.append(max(bounds.const))
                    self.globals["_UB"] = (min(bounds.const), max(bounds.const))
                except CompileFailed:
                    pass
            else:
                bounded = False
        else:
            self.splice(self.statements.utility(None, n))
        only_outcomes = not utilities and all(e.kind in ("win", "lose", "draw") for e in ends)
        zero_sum = bool(zero_sums) or (only_outcomes and n == 2)
        if zero_sums and n != 2 and any(e.kind in ("win", "lose") for e in ends):
            self.error("not-zero-sum", f"with {n} players a win (+1 for one, -1 for each other) does not sum "
                       "to zero", zero_sums[0].span, "remove `zero_sum`, or score with `utility p: ...`")
        if zero_sums and n == 1:
            self.error("not-zero-sum", "a one-player game cannot be zero-sum", zero_sums[0].span)
        bounds_out = (float(min(lows)), float(max(highs))) if bounded and lows else None
        return bounds_out, zero_sum

    def per_player_number(self, var: str, expr: ast.Expr, span: Span, game_over: bool = False) -> ir.Scoring:
        """A number per player (``utility p: ...``, ``heuristic p: ...``, declared at ``span``), with ``var``
        standing for the player. Its IR also goes to ``ir_scoring`` under "utility" (``game_over``) or
        "heuristic"."""
        ctx = Ctx([{}], in_end=True, scoring=True, game_over=game_over)
        player = ctx.scopes[-1][var] = Local(f"L_{var}", T.PLAYER, False, line=expr.span.line)
        code = self.expr(expr, ctx)
        self.require_number(code, expr.span)
        variable = self.local_var(player, var)
        # A fraction (`0.5`, `1/2`) is exact inside the rules; what leaves them is a float, as `n/2` is. A number
        # a float cannot hold is a rule error (the `number` check), not an OverflowError in the solver.
        value = node(code) if code.is_const else ir.Check(code.type, kind="number" if game_over else "float",
                                                        value=node(code), span=expr.span)
        scoring = ir.Scoring(variable, value, expr.span, span)
        self.ir_scoring["utility" if game_over else "heuristic"] = scoring
        return scoring

    def compile_heuristic(self, heuristics: list[ast.HeuristicDecl]) -> None:
        n = len(self.players)
        for extra in heuristics[1:]:
            self.error("duplicate", "there can be only one `heuristic` line", extra.span)
        if not heuristics:
            self.splice(self.statements.heuristic(None, n))
            return
        decl = heuristics[0]
        try:
            scoring = self.per_player_number(decl.var, decl.expr, decl.span)
        except CompileFailed:
            return
        self.splice(self.statements.heuristic(scoring, n))

    def compile_render(self, renders: list[ast.RenderDecl]) -> tuple[str | None, dict[int, str]]:
        for extra in renders[1:]:
            self.error("duplicate", "there can be only one `render` line", extra.span)
        if not renders:
            return None, {}
        decl = renders[0]
        var = self.state.get(decl.name)
        if var is None:
            self.error("undefined-name", f"{_q(decl.name)} is not a state variable", decl.span,
                       did_you_mean(decl.name, self.state))
            return None, {}
        var.used = True
        if len(var.index_types) != 1 or var.index_types[0].kind != "cell":
            self.error("type", f"`render` draws an array indexed by `cell`; {_q(decl.name)} is not one", decl.span)
            return None, {}
        symbols: dict[int, str] = {}
        for value_expr, text in decl.symbols:
            try:
                code = self.expr(value_expr, Ctx([{}]))
                if not code.is_const:
                    raise self.fail("not-constant", "render symbols are for constant values", value_expr.span)
                if not T.assignable(code.type, var.type) and not (code.type.kind == var.type.kind == "int"):
                    raise self.fail("type", f"{_q(decl.name)} holds {var.type}, not {code.type}", value_expr.span)
                symbols[int(code.const)] = text
            except CompileFailed:
                continue
        return decl.name, symbols
