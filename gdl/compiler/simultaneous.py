"""Pass: the `simultaneous` declaration (every player chooses at once at each decision).

Design (docs/language.md, "Simultaneous moves"): as in Stanford GDL, where every player moves every turn, and
OpenSpiel's ``SIMULTANEOUS`` dynamics, a simultaneous game's decision states are *rounds*: each player picks one
of the moves whose guard holds with ``mover`` bound to that player, all against the same state and without seeing
the others' picks. The joint move then runs each player's move body in player order (``after every move`` after
each), so a resolution rule sees every player's choice once the last one has run (typically a ``state
pick[player]`` that every move sets and ``after every move`` resolves when all are set). Chance and the end rules
keep their meaning between rounds, so Goofspiel (both bid, the prize is chance) and one-shot matrix games fit.

The round structure belongs to the language, so the rules may not change whose turn it is: `again` and
assignments to `turn` are refused (``simultaneous-turn``), and a one-player game is refused
(``simultaneous-players``). The run-time part (``to_move`` returning SIMULTANEOUS, ``apply_joint``) is in
:mod:`gdl.simultaneous`; the IR records the declaration in ``ir.Program.simultaneous``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from gdl import ast
from gdl.compiler.base import CompilerBase


class SimultaneousPass(CompilerBase):
    """Checks a `simultaneous` declaration against the rest of the rule file."""

    def declare_simultaneous(self, decls: list[ast.SimultaneousDecl], moves: list[ast.MoveDecl],
                             afters: list[ast.AfterDecl]) -> bool:
        """True when the game declares `simultaneous`; reports every misuse."""
        if not decls:
            return False
        for extra in decls[1:]:
            self.error("duplicate", "`simultaneous` is declared twice", extra.span)
        if len(self.players) < 2:
            self.error("simultaneous-players", f"`simultaneous` needs at least two players, not "
                       f"{len(self.players)}", decls[0].span, "declare `players A, B`, or remove `simultaneous`")
        bodies = [m.body for m in moves] + [a.body for a in afters]
        for stmt in (s for body in bodies for s in _walk(body)):
            if isinstance(stmt, ast.Again):
                self.error("simultaneous-turn", "`again` in a simultaneous game: every player moves once a round",
                           stmt.span, "record the extra choice in the state and let the next round use it")
            elif isinstance(stmt, ast.Assign) and stmt.name == "turn":
                self.error("simultaneous-turn", "a simultaneous game cannot assign `turn`: every player moves "
                           "once a round", stmt.name_span)
        return True


def _walk(node: Any) -> Iterator[ast.Stmt]:
    """Every statement in ``node`` (a statement, a block, or a branch), nested ones included."""
    if isinstance(node, tuple | list):
        for item in node:
            yield from _walk(item)
        return
    if not dataclasses.is_dataclass(node) or isinstance(node, ast.Expr):
        return
    if isinstance(node, ast.Stmt):
        yield node
    for field in dataclasses.fields(node):
        value = getattr(node, field.name)
        if isinstance(value, tuple | list) or (dataclasses.is_dataclass(value) and not isinstance(value, ast.Expr)):
            yield from _walk(value)
