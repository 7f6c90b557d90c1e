"""Pass: name resolution -- what a bare name means (local, parameter, player, state, def, board name)."""

from __future__ import annotations

from gdl import ast
from gdl import types as T
from gdl.compiler import ir
from gdl.compiler.base import CompilerBase
from gdl.compiler.builtins import BUILTIN_FUNCTIONS
from gdl.compiler.common import DRAW, LOSE, NOT_CONST, WIN, Code, Ctx, _q, _var_bounds
from gdl.compiler.ir import Reads
from gdl.diagnostics import Span, did_you_mean
from gdl.types import Type


class NamePass(CompilerBase):
    """Name resolution -- what a bare name means (local, parameter, player, state, def, board name)."""

    def expr_Name(self, e: ast.Name, ctx: Ctx) -> Code:
        name = e.id
        local = ctx.lookup(name)
        if local is not None:
            local.used = True
            if local.const is not NOT_CONST:
                return self.folded(local.const, local.type)
            return Code(local.type, bounds=local.bounds, reads=Reads.NOTHING, may_fail=False,
                        simple=True, node=self.local_node(local, name))
        code = self.global_name(name, e.span, ctx)
        if code is not None:
            return code
        raise self.fail("undefined-name", f"{_q(name)} is not defined", e.span,
                        did_you_mean(name, self.visible_names(ctx)))

    def visible_names(self, ctx: Ctx) -> list[str]:
        names = [n for n, _ in ctx.all_locals()]
        names += list(self.params) + list(self.players) + list(self.state) + list(self.defs)
        names += list(self.enums) + list(self.enum_members) + list(BUILTIN_FUNCTIONS)
        names += ["player", "bool", "mover", "turn", "win", "lose", "draw"]
        if self.board:
            names += ["cell", "dir", "rows", "cols", "column", "row", *self.board.direction_names]
        return names

    def global_name(self, name: str, span: Span, ctx: Ctx) -> Code | None:
        if name in self.params:
            self.param_used.add(name)
            value = self.params[name]
            return self.folded(value, self.param_types[name])
        if name in self.players:
            index = self.players.index(name)
            return Code(T.PLAYER, index)
        if name in self.enum_members:
            enum, index = self.enum_members[name]
            return Code(Type("enum", enum), index)
        if name in self.state:
            var = self.state[name]
            var.used = True
            if var.dims:
                raise self.fail("type", f"{_q(name)} is an array; give an index, as in `{name}[...]`", span)
            return Code(var.type, bounds=_var_bounds(var), reads=Reads(frozenset((var.offset,))),
                        may_fail=False, slot=var.offset,
                        node=ir.Slot(var.type, var=var.name, index=ir.Const(T.INT, value=var.offset),
                                     value_bounds=_var_bounds(var)))
        if name in self.defs:
            info = self.defs[name]
            if info.decl.params:
                raise self.fail("arity", f"{_q(name)} takes {len(info.decl.params)} argument(s); call it as "
                                f"`{name}(...)`", span)
            return self.call_def(info, [], span, ctx)
        if name == "player":
            return self.folded(range(len(self.players)), T.seq(T.PLAYER))
        if name == "bool":
            return Code(T.seq(T.BOOL), (False, True))
        if name in self.enums:
            members = range(len(self.enums[name]))
            return self.folded(members, T.seq(Type("enum", name)))
        if name in ("win", "lose", "draw"):
            value = {"win": WIN, "lose": LOSE, "draw": DRAW}[name]
            return self.folded(value, T.INT)
        if name == "mover":
            if not ctx.in_move:
                raise self.fail("mover-outside-move", "`mover` is only defined inside a move", span,
                                "outside moves, `turn` is the player to move")
            if ctx.in_effect:
                return Code(T.PLAYER, reads=Reads.NOTHING, may_fail=False, simple=True, node=ir.Mover(T.PLAYER))
            return Code(T.PLAYER, reads=Reads(turn=True), may_fail=False, node=ir.Turn(T.PLAYER))
        if name == "turn" and ctx.in_effect:
            # inside a move `turn` is the mover (also where the move resumes)
            return Code(T.PLAYER, reads=Reads.NOTHING, may_fail=False, simple=True, node=ir.Mover(T.PLAYER))
        if name == "turn" and ctx.game_over:
            raise self.fail("turn-in-utility", "`turn` has no value in `utility`: the game is over and nobody is "
                            "to move", span, "keep the player who moved last in a state variable, or say who won "
                            "with an end rule such as `win opponent(turn) when ...`")
        if name == "turn":
            self.turn_reads += 1  # (a def that reads it cannot be called from `utility`: see call_def)
            # In a utility or heuristic the state may be terminal (-2) or chance (-1): an index made of
            # `turn` there is checked instead of reading another variable's slot.
            bounds = (-2, len(self.players) - 1) if ctx.scoring else None
            return Code(T.PLAYER, bounds=bounds, reads=Reads(turn=True), may_fail=False,
                        node=ir.Turn(T.PLAYER, value_bounds=bounds))
        if name == "no_moves":
            if not ctx.in_end:
                raise self.fail("no-moves-here", "`no_moves` can only be used in end rules, `utility` and "
                                "`heuristic`", span, "move guards cannot depend on the list of legal moves")
            return Code(T.BOOL, reads=Reads(turn=True, dynamic=True), node=ir.NoMoves(T.BOOL))
        if self.board is not None:
            board = self.board
            if name == "cell":
                cells = range(board.ncells)
                return self.folded(cells, T.seq(T.CELL))
            if name in ("dir", "orthogonal", "diagonal"):
                dirs = {"dir": board.directions, "orthogonal": board.orthogonal,
                        "diagonal": board.diagonal}[name]
                return self.folded(dirs, T.seq(T.DIR))
            if name in ("column", "row"):
                # The board's columns (rows) as a set of indexes that read and print as the board labels them.
                indexes = range(board.cols if name == "column" else board.rows)
                return self.folded(indexes, T.seq(T.COLUMN if name == "column" else T.ROW))
            if name == "rows":
                return Code(T.INT, board.rows)
            if name == "cols":
                return Code(T.INT, board.cols)
            if name in board.direction_names:
                index = board.direction_names.index(name)
                return Code(T.DIR, index)
            cell = board.parse_cell(name)
            if cell is not None:
                return Code(T.CELL, cell)
        return None
