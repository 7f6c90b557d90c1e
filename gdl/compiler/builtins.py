"""The built-in functions (``min``, ``abs``, ``next``, board tables ...), each a small checker-folder."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gdl import ast
from gdl import types as T
from gdl.board import Board
from gdl.compiler import ir
from gdl.compiler.base import CompilerBase
from gdl.compiler.common import Code, _bounds, _show, derived, node
from gdl.types import Type


def _builtin(name: str, arity: int | tuple[int, ...]) -> Callable:
    def register(fn: Callable) -> Callable:
        def checked(compiler: CompilerBase, call: ast.Call, args: list[Code]) -> Code:
            allowed = arity if isinstance(arity, tuple) else (arity,)
            if len(args) not in allowed and -1 not in allowed:
                want = " or ".join(str(a) for a in allowed)
                raise compiler.fail("arity", f"`{name}` takes {want} argument(s), not {len(args)}", call.span)
            return fn(compiler, call, args)

        BUILTIN_FUNCTIONS[name] = checked
        return fn

    return register


BUILTIN_FUNCTIONS: dict[str, Callable[[CompilerBase, ast.Call, list[Code]], Code]] = {}


def _fold(compiler: CompilerBase, fn: Callable, args: list[Code], typ: Type,
          bounds: tuple[Any, Any] | None = None, fails: bool = True, *,
          ir_node: Callable[[], ir.Expr]) -> Code:
    """``fn`` of the arguments when they are all constants, else ``ir_node`` (``fails``: it may raise a rule
    error, as a call or an index may)."""
    if all(a.is_const for a in args):
        return compiler.folded(fn(*[a.const for a in args]), typ)
    return derived(typ, args, fails=fails, bounds=bounds, node=ir_node)


def _min_max(name: str) -> Callable:
    def build(compiler: CompilerBase, call: ast.Call, args: list[Code]) -> Code:
        py = min if name == "min" else max
        if not args:
            raise compiler.fail("arity", f"`{name}` needs at least one argument", call.span)
        if len(args) == 1:
            if args[0].type.kind != "seq":
                raise compiler.fail("type", f"`{name}` of one value needs a list", call.span)
            typ = args[0].type.elem or T.INT
            if args[0].is_const:
                values = tuple(args[0].const)
                if not values:
                    raise compiler.fail("empty", f"`{name}` of an empty list", call.span)
                return compiler.folded(py(values), typ)
            return derived(typ, args, fails=True,
                           node=lambda: ir.Builtin(typ, name=f"{name}_of", args=(node(args[0]),), span=call.span))
        for arg, expr in zip(args, call.args, strict=True):
            compiler.require_number(arg, expr.span)
        typ = T.REAL if any(a.type.kind == "real" for a in args) else T.INT
        each = [_bounds(a) for a in args]
        bounds = None if None in each else (py(b[0] for b in each), py(b[1] for b in each))  # type: ignore[index]
        return _fold(compiler, py, args, typ, bounds,
                     ir_node=lambda: ir.Builtin(typ, name=name, args=tuple(node(a) for a in args), span=call.span,
                                        value_bounds=bounds))

    return build


_builtin("min", (-1,))(_min_max("min"))


_builtin("max", (-1,))(_min_max("max"))


@_builtin("abs", 1)
def _abs(compiler: CompilerBase, call: ast.Call, args: list[Code]) -> Code:
    compiler.require_number(args[0], call.args[0].span)
    return _fold(compiler, abs, args, args[0].type,
                 ir_node=lambda: ir.Builtin(args[0].type, name="abs", args=(node(args[0]),), span=call.span))


@_builtin("len", 1)
def _len(compiler: CompilerBase, call: ast.Call, args: list[Code]) -> Code:
    if args[0].type.kind != "seq":
        raise compiler.fail("type", f"`len` needs a list or set, not {args[0].type}", call.args[0].span)
    return _fold(compiler, lambda v: len(tuple(v)), args, T.INT,
                 ir_node=lambda: ir.Builtin(T.INT, name="len", args=(node(args[0]),), span=call.span))


@_builtin("sum", 1)
def _sum(compiler: CompilerBase, call: ast.Call, args: list[Code]) -> Code:
    if args[0].type.kind != "seq" or not (args[0].type.elem or T.INT).is_number:
        raise compiler.fail("type", "`sum(...)` needs a list of numbers", call.args[0].span)
    typ = args[0].type.elem or T.INT
    return _fold(compiler, lambda v: sum(v), args, typ,
                 ir_node=lambda: ir.Builtin(typ, name="sum", args=(node(args[0]),), span=call.span))


@_builtin("next", 1)
def _next(compiler: CompilerBase, call: ast.Call, args: list[Code]) -> Code:
    compiler.require(args[0], T.PLAYER, call.args[0].span)
    # (`turn` in a utility may be negative: the emitter then indexes `_NEXT` checked, by the argument's bounds)
    return _fold(compiler, lambda p: (p + 1) % len(compiler.players), args, T.PLAYER,
                 ir_node=lambda: ir.Builtin(T.PLAYER, name="next", args=(node(args[0]),), span=call.span))


@_builtin("opponent", 1)
def _opponent(compiler: CompilerBase, call: ast.Call, args: list[Code]) -> Code:
    if len(compiler.players) != 2:
        raise compiler.fail("type", "`opponent` is for two-player games; use `next(p)`", call.span)
    compiler.require(args[0], T.PLAYER, call.args[0].span)
    bounds = args[0].bounds and (1 - args[0].bounds[1], 1 - args[0].bounds[0])
    return _fold(compiler, lambda p: 1 - p, args, T.PLAYER, bounds, fails=False,
                 ir_node=lambda: ir.Binary(T.PLAYER, op="-", left=ir.Const(T.INT, value=1), right=node(args[0]),
                                   value_bounds=bounds))


def _board(compiler: CompilerBase, call: ast.Call) -> Board:
    if compiler.board is None:
        raise compiler.fail("no-board", f"`{call.func}` needs a `board R x C` declaration", call.span)
    return compiler.board


def _board_table(name: str, arg_types: tuple[Type, ...], result: Type, table: Callable[[Board], Any]) -> None:
    """A board function that is a lookup in a precomputed table."""

    @_builtin(name, len(arg_types))
    def build(compiler: CompilerBase, call: ast.Call, args: list[Code]) -> Code:
        board = _board(compiler, call)
        args = [compiler.coerce(arg, typ, expr.span) for arg, typ, expr in zip(args, arg_types, call.args, strict=True)]
        data = table(board)
        if all(a.is_const for a in args):
            value = data
            for a, expr in zip(args, call.args, strict=True):
                if isinstance(a.const, bool) or not isinstance(a.const, int) or not 0 <= a.const < len(value):
                    raise compiler.fail("index-out-of-range", f"`{call.func}` of {_show(a.const)}: outside "
                                        f"0..{len(value) - 1} on this board", expr.span)
                value = value[a.const]
            return compiler.folded(value, result)
        compiler.constant(data)  # (named now: names follow the order of folding)
        size = len(data)
        plain = True  # every index a local or a constant, unchecked: a loop over the result sees few values
        checks: list[bool] = []
        for a in args:
            # A cell or direction is in range by construction; a number (`cells_in_row(n - 1)`) is
            # checked, so that -1 is a rule error instead of Python's last row.
            known = _bounds(a)
            proven = a.type.is_entity or (known is not None and known[0] >= 0 and known[1] < size)
            if compiler.checked or not proven:
                compiler.constant(call.func)
                plain = False
                checks.append(True)
            else:
                plain = plain and (a.simple or a.is_const)
                checks.append(False)
            size = len(data[0]) if size and isinstance(data[0], tuple | list) else size
        lookup = ir.Table(result, name=call.func, table=data, args=tuple(node(a) for a in args), checked=tuple(checks),
                          span=call.span, arg_spans=tuple(expr.span for expr in call.args))
        rows = None
        if plain:
            key = (call.func, len(args))
            if key not in compiler.table_rows:  # (every use of a table would otherwise walk all of it again)
                compiler.table_rows[key] = _longest_row(data, len(args))
            rows = compiler.table_rows[key]
        return derived(result, args, fails=True, rows=rows,
                       node=lambda: lookup)


def _longest_row(data: Any, depth: int) -> int | None:
    """The most values an entry ``depth`` levels into a table holds (None: its entries are not sequences)."""
    rows = [data]
    try:
        for _ in range(depth):
            rows = [row for table in rows for row in table]
        return max((len(row) for row in rows), default=0)
    except TypeError:
        return None


_board_table("row", (T.CELL,), T.INT, lambda b: b.row_of)


_board_table("col", (T.CELL,), T.INT, lambda b: b.col_of)


_board_table("step", (T.CELL, T.DIR), T.CELL.with_optional(), lambda b: b.step_table)


_board_table("ray", (T.CELL, T.DIR), T.seq(T.CELL), lambda b: b.ray_table)


_board_table("neighbors", (T.CELL,), T.seq(T.CELL), lambda b: b.neighbors)


_board_table("cells_in_row", (T.INT,), T.seq(T.CELL), lambda b: b.row_cells)


_board_table("cells_in_column", (T.INT,), T.seq(T.CELL), lambda b: b.col_cells)


@_builtin("lines", 1)
def _lines(compiler: CompilerBase, call: ast.Call, args: list[Code]) -> Code:
    board = _board(compiler, call)
    if not args[0].is_const or args[0].type.kind != "int":
        raise compiler.fail("not-constant", "the line length must be known when the game loads", call.args[0].span)
    value = board.lines(int(args[0].const))
    return compiler.folded(value, T.seq(T.seq(T.CELL)))


@_builtin("connected", 3)
def _connected(compiler: CompilerBase, call: ast.Call, args: list[Code]) -> Code:
    """``connected(A, B, S)``: some cell of A reaches some cell of B through neighbouring cells of S."""
    board = _board(compiler, call)
    for arg, expr in zip(args, call.args, strict=True):
        if arg.type.kind != "seq" or (arg.type.elem is not None and arg.type.elem.kind != "cell"):
            raise compiler.fail("type", f"`connected` takes three sets of cells, not {arg.type}", expr.span)
    compiler.constant(board.neighbors)  # (named now: names follow the order of folding)
    return derived(T.BOOL, args, fails=True,
                   node=lambda: ir.Builtin(T.BOOL, name="connected", args=tuple(node(a) for a in args), span=call.span))


@_builtin("cell", 2)
def _cell(compiler: CompilerBase, call: ast.Call, args: list[Code]) -> Code:
    board = _board(compiler, call)
    for arg, expr in zip(args, call.args, strict=True):
        compiler.require(arg, T.INT, expr.span)
    typ = T.CELL.with_optional()
    compiler.constant(board.cell_at)  # (named now: names follow the order of folding)
    return _fold(compiler, board.cell_at, args, typ,
                 ir_node=lambda: ir.Builtin(typ, name="cell_at", args=(node(args[0]), node(args[1])), span=call.span))
