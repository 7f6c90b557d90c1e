"""The scoping rule checked statically: every local that takes the name of a visible local.

The checker reports these as ``redeclared``; the interpreter has its own walk so that a checker that
misses one is caught (the differential test treats an accepted redeclaration as a mismatch).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gdl import ast
from gdl.diagnostics import Span


def redeclarations(rules: ast.RuleFile) -> list[tuple[str, Span]]:
    """Every local that takes the name of another local visible at that point (scoping rule 3).

    The checker reports these as ``redeclared``; the interpreter has its own walk so that a checker that
    misses one is caught (the differential test treats an accepted redeclaration as a mismatch).
    """
    found: list[tuple[str, Span]] = []

    def declare(name: str, span: Span, visible: dict[str, Span]) -> dict[str, Span]:
        if name in visible:
            found.append((name, span))
        return {**visible, name: span}

    def expr(e: Any, visible: dict[str, Span]) -> None:
        if isinstance(e, ast.Quantifier):
            expr(e.domain, visible)
            inner = declare(e.var, e.var_span, visible)
            if e.filter is not None:
                expr(e.filter, inner)
            expr(e.body, inner)
            return
        for name in getattr(e, "__slots__", ()):
            value = getattr(e, name)
            for item in value if isinstance(value, tuple) else (value,):
                if isinstance(item, ast.Expr):
                    expr(item, visible)

    def block(stmts: Sequence[ast.Stmt], visible: dict[str, Span]) -> None:
        for stmt in stmts:
            visible = statement(stmt, visible)

    def statement(stmt: ast.Stmt, visible: dict[str, Span]) -> dict[str, Span]:
        if isinstance(stmt, ast.Let):
            expr(stmt.value, visible)
            return declare(stmt.name, stmt.span, visible)
        if isinstance(stmt, ast.Assign):
            for index in stmt.indices:
                expr(index, visible)
            expr(stmt.value, visible)
        elif isinstance(stmt, ast.If):
            for test, body in stmt.branches:
                expr(test, visible)
                block(body, visible)
            if stmt.orelse is not None:
                block(stmt.orelse, visible)
        elif isinstance(stmt, ast.For):
            expr(stmt.domain, visible)
            block(stmt.body, declare(stmt.var, stmt.span, visible))
        elif isinstance(stmt, ast.Chance):
            expr(stmt.domain, visible)
            inner = declare(stmt.var, stmt.span, visible)
            if stmt.weight is not None:
                expr(stmt.weight, inner)
            if stmt.body is None:
                return inner  # the binding form: visible to the end of the block
            block(stmt.body, inner)
        elif isinstance(stmt, ast.ChanceBranches):
            for branch in stmt.branches:
                expr(branch.probability, visible)
                block(branch.body, visible)
        return visible

    decls = rules.decls
    globals_ = {"mover", "turn"}
    for decl in decls:
        if isinstance(decl, ast.ParamDecl | ast.StateDecl | ast.DefDecl | ast.EnumDecl):
            globals_.add(decl.name)
        if isinstance(decl, ast.EnumDecl | ast.PlayersDecl):
            globals_.update(name for name, _ in (decl.members if isinstance(decl, ast.EnumDecl) else decl.names))
    for decl in decls:
        if isinstance(decl, ast.MoveDecl | ast.DefDecl):
            visible: dict[str, Span] = {}
            for param in decl.params:
                expr(param.type.domain, visible)
                visible = declare(param.name, param.span, visible)
            if isinstance(decl, ast.DefDecl):
                expr(decl.body, visible)
                continue
            if decl.guard is not None:
                expr(decl.guard, visible)
            block(decl.body, visible)
        elif isinstance(decl, ast.SetupDecl | ast.AfterDecl):
            block(decl.body, {})
        elif isinstance(decl, ast.EndDecl):
            binder = decl.who.id if isinstance(decl.who, ast.Name) and decl.kind in ("win", "lose") else None
            binder = None if binder in globals_ else binder  # `win A when`: A is a player, not a binder
            expr(decl.condition, {binder: decl.span} if binder else {})
        elif isinstance(decl, ast.UtilityDecl | ast.HeuristicDecl):
            expr(decl.expr, {decl.var: decl.span})
        elif isinstance(decl, ast.QuietDecl):
            expr(decl.expr, {})
    return found
