"""Pass: players, enumerations, the board, symmetries, state variables (the state layout), defs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gdl import ast
from gdl import types as T
from gdl.board import Board
from gdl.compiler.base import CompilerBase
from gdl.compiler.common import (
    MAX_STATE,
    RESERVED,
    CompileFailed,
    Ctx,
    DefInfo,
    StateVar,
    _q,
)
from gdl.diagnostics import Span, did_you_mean
from gdl.display import NamesDisplay, OptionalDisplay, bool_display
from gdl.symmetry import SYMMETRY_NAMES
from gdl.symmetry import generators as symmetry_generators
from gdl.symmetry import why_not as symmetry_why_not
from gdl.types import Type


class DeclarationPass(CompilerBase):
    """Players, enumerations, the board, symmetries, state variables (the state layout), defs."""

    def collect_names(self, decls: Sequence[ast.Decl]) -> None:
        """Report names declared twice, whatever their kind."""
        seen: dict[str, Span] = {}

        def declare(name: str, span: Span) -> None:
            if name in RESERVED:
                self.error("reserved-name", f"{_q(name)} is a reserved word and cannot be declared", span)
            elif name in seen:
                line = seen[name].line
                self.error("duplicate", f"{_q(name)} is already declared on line {line}", span)
            else:
                seen[name] = span

        for decl in decls:
            if isinstance(decl, (ast.ParamDecl, ast.StateDecl, ast.DefDecl)):
                declare(decl.name, decl.span)
            elif isinstance(decl, ast.EnumDecl):
                declare(decl.name, decl.span)
                for member, span in decl.members:
                    declare(member, span)
            elif isinstance(decl, ast.PlayersDecl):
                for member, span in decl.names:
                    declare(member, span)
        move_names: dict[str, Span] = {}
        for decl in decls:
            if isinstance(decl, ast.MoveDecl):
                if decl.name in move_names:
                    self.error("duplicate", f"move {_q(decl.name)} is already declared on line "
                               f"{move_names[decl.name].line}", decl.span)
                move_names[decl.name] = decl.span

    def collect_meta(self, metas: list[ast.MetaDecl]) -> dict[str, str]:
        known = ("description", "source", "value", "author", "rules", "layout")
        out: dict[str, str] = {}
        for meta in metas:
            if meta.key not in known:
                hint = did_you_mean(meta.key, known) or f"known keys: {', '.join(known)}"
                self.warn("unknown-meta", f"unknown metadata key {_q(meta.key)}", meta.span, hint)
            out[meta.key] = meta.value
        return out

    def declare_players(self, decls: list[ast.PlayersDecl]) -> None:
        if not decls:
            self.error("missing-players", "the rule file declares no players", Span(1, 1, 1, 2),
                       "add a line like `players X, O`")
            return
        for extra in decls[1:]:
            self.error("duplicate", "players are declared twice", extra.span)
        names = tuple(name for name, _ in decls[0].names)
        if len(names) > 16:
            self.error("too-many-players", "at most 16 players", decls[0].span)
            return
        self.players = names
        self.displayers["player"] = NamesDisplay(names)

    def declare_enums(self, decls: list[ast.EnumDecl]) -> None:
        for decl in decls:
            members = tuple(name for name, _ in decl.members)
            self.enums[decl.name] = members
            for index, member in enumerate(members):
                self.enum_members.setdefault(member, (decl.name, index))
            self.displayers[decl.name] = NamesDisplay(members)

    def declare_board(self, decls: list[ast.BoardDecl]) -> None:
        if not decls:
            return
        for extra in decls[1:]:
            self.error("duplicate", "only one board can be declared", extra.span)
        decl = decls[0]
        empty = Ctx([{}])
        try:
            rows = self.const_int(decl.rows, empty, "the number of rows")
            cols = self.const_int(decl.cols, empty, "the number of columns")
        except CompileFailed:
            return
        if not (1 <= rows <= 99 and 1 <= cols <= 26):
            self.error("board-size", f"a board has 1..99 rows and 1..26 columns, not {rows} x {cols}", decl.span)
            return
        if decl.shape not in (None, "square", "hex"):
            self.error("board-shape", f"unknown board shape {_q(decl.shape)}", decl.shape_span or decl.span,
                       "write `board R x C` (square) or `board R x C hex`")
            return
        self.board = Board(rows, cols, decl.shape or "square")
        self.displayers["cell"] = self.board.cell_name
        self.displayers[T.COLUMN_DISPLAY] = self.board.column_name
        self.displayers[T.ROW_DISPLAY] = self.board.row_name
        self.displayers["dir"] = NamesDisplay(self.board.direction_names)

    def declare_symmetry(self, decls: list[ast.SymmetryDecl]) -> tuple[str, ...]:
        """The generators of ``symmetry ...`` lines; the rules are checked against them at run time."""
        names: list[str] = []
        for decl in decls:
            for name, span in decl.names:
                if name not in SYMMETRY_NAMES:
                    self.error("bad-symmetry", f"unknown symmetry {_q(name)}", span,
                               did_you_mean(name, SYMMETRY_NAMES) or f"symmetries: {', '.join(SYMMETRY_NAMES)}")
                elif self.board is None:
                    self.error("bad-symmetry", f"symmetry {_q(name)} needs a `board R x C` declaration", span)
                elif (reason := symmetry_why_not(self.board, name)) is not None:
                    self.error("bad-symmetry", reason, span)
                else:
                    names.extend(symmetry_generators(self.board, name))
        return tuple(dict.fromkeys(names))

    def const_int(self, expr: ast.Expr, ctx: Ctx, what: str) -> int:
        code = self.expr(expr, ctx)
        if not code.is_const or code.type.kind != "int":
            raise self.fail("not-constant", f"{what} must be a whole number known when the game loads", expr.span)
        return int(code.const)

    def declare_state(self, decls: list[ast.StateDecl]) -> None:
        empty = Ctx([{}])
        offset = 0
        for decl in decls:
            try:
                typ, lo, hi, allowed = self.value_type(decl.type, empty)
                dims: list[tuple[int, int]] = []
                index_types: list[Type] = []
                for index in decl.indices:
                    itype, values = self.index_domain(index, empty)
                    dims.append((values[0], len(values)))
                    index_types.append(itype)
                var = StateVar(decl.name, decl, typ, offset, dims, index_types, lo, hi, values=allowed)
                if var.size > MAX_STATE or offset + var.size > MAX_STATE:
                    raise self.fail("too-large", f"state {_q(decl.name)} has {var.size} slots; at most {MAX_STATE}",
                                    decl.span)
                self.state[decl.name] = var
                offset += var.size
            except CompileFailed:
                continue
        self.nvars = offset
        self.turn_slot = offset
        self.status_slot = offset + 1
        self.extra_base = offset + 2

    def index_domain(self, expr: ast.Expr, ctx: Ctx) -> tuple[Type, list[int]]:
        """An array dimension: a contiguous, load-time constant domain (a type name or a range)."""
        code = self.expr(expr, ctx)
        if not code.is_const or code.type.kind != "seq":
            raise self.fail("bad-index-domain", "an array dimension must be a type such as `player` or `cell`, "
                            "or a range like `0..n-1`", expr.span)
        values = list(code.const)
        if not values:
            raise self.fail("bad-index-domain", "this array dimension is empty", expr.span)
        if values != list(range(values[0], values[0] + len(values))):
            raise self.fail("bad-index-domain", "an array dimension must be a contiguous range", expr.span)
        return code.type.elem or T.INT, values

    def value_type(self, texpr: ast.TypeExpr, ctx: Ctx) -> tuple[Type, int, int, frozenset[int] | None]:
        """The type of a state variable, with its encoded bounds and, if they have gaps, its values."""
        dom = texpr.domain
        if isinstance(dom, ast.Name) and dom.id == "bool":
            if texpr.optional:
                raise self.fail("type", "a boolean cannot be none; use an enumeration", texpr.span)
            return T.BOOL, 0, 1, None
        code = self.expr(dom, ctx)
        if code.type.kind != "seq" or not code.is_const:
            raise self.fail("bad-type", "expected a type: `bool`, `player`, `cell`, an enumeration name "
                            "or a range like `0..9`", dom.span)
        elem = code.type.elem or T.INT
        values = list(code.const)
        if not values:
            raise self.fail("bad-type", "this type has no values", dom.span)
        if elem.kind == "int":
            if texpr.optional:
                raise self.fail("type", "a number cannot be none; widen its range instead", texpr.span)
            # A `column` (`row`) keeps its type, to print as the board labels it; any other range is a number.
            return elem if elem in (T.COLUMN, T.ROW) else T.INT, min(values), max(values), None
        if not elem.is_entity:
            raise self.fail("bad-type", f"a state cannot hold {elem.plural()}", dom.span)
        typ = elem.with_optional(texpr.optional)
        gaps = len(set(values)) != max(values) - min(values) + 1  # (`orthogonal` is every other direction)
        return typ, (-1 if texpr.optional else min(values)), max(values), \
            frozenset([*values, -1] if texpr.optional else values) if gaps else None

    def declare_defs(self, decls: list[ast.DefDecl]) -> None:
        for decl in decls:
            self.defs[decl.name] = DefInfo(decl, f"u_{decl.name}")

    def global_name_kind(self, name: str) -> str | None:
        if name in self.params:
            return "parameter"
        if name in self.defs:
            return "function"
        if name in self.players:
            return "player"
        if name in self.enum_members:
            return "named value"
        if name == "mover":
            return "the moving player"
        return None

    def holds_every(self, var: StateVar) -> bool:
        """Whether an entity state holds every value of its type (a value of that type needs no check)."""
        kind = var.type.kind
        if not var.type.is_entity:
            return True
        count = {"player": len(self.players), "enum": len(self.enums.get(var.type.name, ())),
                 "cell": self.board.ncells if self.board else 0,
                 "dir": len(self.board.directions) if self.board else 0}[kind]
        return var.values is None and var.lo <= (-1 if var.type.optional else 0) and var.hi >= count - 1

    def describe_domain(self, var: StateVar) -> str:
        if var.type.kind == "int":
            return f"{var.lo}..{var.hi}"
        return str(var.type)

    def displayer(self, typ: Type) -> Callable[[Any], str]:
        if typ in (T.COLUMN, T.ROW):
            return self.displayers[T.COLUMN_DISPLAY if typ == T.COLUMN else T.ROW_DISPLAY]
        if typ.kind == "enum":
            return OptionalDisplay(self.displayers[typ.name])
        if typ.kind in self.displayers:
            return OptionalDisplay(self.displayers[typ.kind])
        if typ.kind == "bool":
            return bool_display
        return str
