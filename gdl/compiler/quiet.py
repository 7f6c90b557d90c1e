"""Pass: ``quiet when expr``, the positions where a depth-limited search may stop and trust the heuristic.

Design (docs/language.md, "Quiescence"): the horizon effect -- a search cut at a fixed depth scores a
position in the middle of an exchange as if the exchange were over -- is answered by evaluating only
*quiet* positions (Shannon 1950; Beal 1990, "A generalised quiescence search algorithm"). The rule file
says which positions are quiet with one boolean expression over the state (and ``turn``); the search
(:mod:`solver.alphabeta`, :mod:`solver.expectimax`) keeps searching past its horizon from the others, for
at most ``quiescence`` more plies. Without the declaration every position is quiet.

The expression is compiled like the heuristic's: it may read the whole state, ``turn`` and ``no_moves``,
and a rule error in it is a run-time error with its line, as anywhere else. Its IR is
``ir.Program.quiet``; the generated function is ``_quiet(s)`` (absent: None).
"""

from __future__ import annotations

from gdl import ast
from gdl import types as T
from gdl.compiler.base import CompilerBase
from gdl.compiler.common import CompileFailed, Ctx, node


class QuietPass(CompilerBase):
    """Compiles the ``quiet when`` declaration."""

    def compile_quiet(self, decls: list[ast.QuietDecl], has_heuristic: bool) -> bool:
        """True when the rule file says which positions are quiet (and it compiled)."""
        for extra in decls[1:]:
            self.error("duplicate", "there can be only one `quiet when` line", extra.span,
                       "join the conditions with `and` / `or`")
        self.globals["_quiet"] = None
        if not decls:
            return False
        decl = decls[0]
        if not has_heuristic:
            self.warn("quiet-without-heuristic", "`quiet when` without a `heuristic`: a depth-limited search "
                      "scores every position at its horizon 0, so searching on to a quiet one changes nothing",
                      decl.span, "add `heuristic p: ...`, or remove `quiet when`")
        try:
            cond = self.expr(decl.expr, Ctx([{}], in_end=True, scoring=True))
            self.require(cond, T.BOOL, decl.expr.span)
        except CompileFailed:
            return False
        condition = node(cond)
        self.splice(self.statements.quiet(condition, decl.span))
        self.ir_quiet = condition
        return True
