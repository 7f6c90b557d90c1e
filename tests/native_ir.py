"""IR programs written by hand for bundled games, as the compiler would build them (tests of the C emitter).

The compiler does not build :class:`gdl.compiler.ir.Program` from rule files yet; until it does, these
stand in for its output, for the same state layout as the Python back end (so the two back ends can be
compared state by state): tic-tac-toe and Connect-Four (cols x rows, k in a row).
"""

from __future__ import annotations

from itertools import count

from gdl.compiler import ir
from gdl.diagnostics import Span
from gdl.types import BOOL, CELL, COLUMN, INT, PLAYER, Type

OPT_PLAYER = Type("player", optional=True)
_ids = count(1)


def span(line: int) -> Span:
    return Span(line, 1, line, 2)


def const(value: object, typ: Type = INT) -> ir.Const:
    return ir.Const(typ, value)


def var(name: str, typ: Type = INT) -> ir.Var:
    return ir.Var(next(_ids), name, typ)


def local(v: ir.Var) -> ir.Local:
    return ir.Local(v.type, v)


def slot(name: str, index: ir.Expr) -> ir.Slot:
    return ir.Slot(OPT_PLAYER, name, index)


def eq(a: ir.Expr, b: ir.Expr) -> ir.Compare:
    return ir.Compare(BOOL, ("==",), (a, b))


def ne(a: ir.Expr, b: ir.Expr) -> ir.Compare:
    return ir.Compare(BOOL, ("!=",), (a, b))


def all_of(*terms: ir.Expr) -> ir.BoolOp:
    return ir.BoolOp(BOOL, "and", tuple(terms))


def any_of(*terms: ir.Expr) -> ir.BoolOp:
    return ir.BoolOp(BOOL, "or", tuple(terms))


def line_rules(var_name: str, lines: list[list[int]], players: int, draw_cells: int) -> tuple[ir.EndRule, ...]:
    """``win p when any line is all p`` for each player (status 2, 3, ...), then ``draw when full``."""
    rules = []
    for p in range(players):
        condition = any_of(*(all_of(*(eq(slot(var_name, const(c)), const(p, PLAYER)) for c in line))
                             for line in lines))
        rules.append(ir.EndRule("win", condition, const(2 + p), span(20)))
    c = var("c", CELL)
    full = ir.Aggregate(BOOL, "all", c, const(range(draw_cells)), None,
                        ne(slot(var_name, local(c)), const(None, OPT_PLAYER)))
    rules.append(ir.EndRule("draw", full, const(2 + players), span(21)))
    return tuple(rules)


def program(name: str, cells: int, moves: tuple[ir.Move, ...], ends: tuple[ir.EndRule, ...],
            var_name: str) -> ir.Program:
    layout = ir.StateLayout((ir.StateSlotVar(var_name, OPT_PLAYER, 0, ((0, cells),), (CELL,), -1, 1),), cells)
    return ir.Program(
        name=name, players=("A", "B"), layout=layout, initial=(-1,) * cells + (0, 0), setup=ir.Effect(()),
        defs=(), moves=moves, chance=(), ends=ends,
        end_utilities=(None, None, (1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)), utility=None,
        utility_bounds=(-1.0, 1.0), heuristic=None, zero_sum=True)


def tictactoe() -> ir.Program:
    c = var("c", CELL)
    place = ir.Move("place", 0, (ir.Param(c, const(range(9))),),
                    eq(slot("mark", local(c)), const(None, OPT_PLAYER)),
                    ir.Effect((ir.AssignSlot(span(14), "mark", local(c), "=", ir.Mover(PLAYER)),), True), span(13))
    lines = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]]
    return program("TicTacToe", 9, (place,), line_rules("mark", lines, 2, 9), "mark")


def connect4_lines(cols: int, rows: int, k: int) -> list[list[int]]:
    out = []
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + i * dr, c + i * dc) for i in range(k)]
                if all(0 <= rr < rows and 0 <= cc < cols for rr, cc in cells):
                    out.append([rr * cols + cc for rr, cc in cells])
    return out


def connect4(cols: int, rows: int, k: int = 4) -> ir.Program:
    """``drop(x)`` when the column's top cell is empty: the disc goes to the lowest empty cell."""
    x, r, placed = var("x", COLUMN), var("r"), var("placed", BOOL)
    cell = ir.Binary(INT, "+", ir.Binary(INT, "*", local(r), const(cols)), local(x))
    guard = eq(slot("disc", ir.Binary(INT, "+", const((rows - 1) * cols), local(x))), const(None, OPT_PLAYER))
    effect = (
        ir.Let(span(16), placed, const(False, BOOL)),
        ir.For(span(16), r, const(range(rows)), (
            ir.If(span(16), ((all_of(eq(slot("disc", cell), const(None, OPT_PLAYER))),
                              (ir.AssignSlot(span(17), "disc", cell, "=", ir.Mover(PLAYER)),
                               ir.AssignLocal(span(17), placed, "=", const(True, BOOL)), ir.Break(span(17)))),), None),
        )),
    )
    drop = ir.Move("drop", 0, (ir.Param(x, const(range(cols))),), guard, ir.Effect(effect, True), span(15))
    ends = line_rules("disc", connect4_lines(cols, rows, k), 2, cols * rows)
    return program("ConnectFour", cols * rows, (drop,), ends, "disc")


def domineering(n: int) -> ir.Program:
    """tests/solvefiles/domineering.gdl: Vertical covers c and the cell above, Horizontal c and its right
    neighbour; ``lose turn when no_moves``."""
    cells = n * n

    def move(name: str, index: int, player: int, fits: ir.Expr, step: int, c: ir.Var) -> ir.Move:
        other = ir.Binary(INT, "+", local(c), const(step))
        guard = all_of(eq(ir.Turn(PLAYER), const(player, PLAYER)), fits,
                       ir.Unary(BOOL, "not", slot("filled", local(c))), ir.Unary(BOOL, "not", slot("filled", other)))
        effect = (ir.AssignSlot(span(8 + index), "filled", local(c), "=", const(True, BOOL)),
                  ir.AssignSlot(span(9 + index), "filled", other, "=", const(True, BOOL)))
        return ir.Move(name, index, (ir.Param(c, const(range(cells))),), guard, ir.Effect(effect), span(7 + index))

    cv, ch = var("c", CELL), var("c", CELL)
    row_ok = ir.Compare(BOOL, ("<",), (ir.Binary(INT, "//", local(cv), const(n)), const(n - 1)))
    col_ok = ir.Compare(BOOL, ("<",), (ir.Binary(INT, "%", local(ch), const(n)), const(n - 1)))
    moves = (move("vertical", 0, 0, row_ok, n, cv), move("horizontal", 1, 1, col_ok, 1, ch))
    lose = ir.EndRule("lose", ir.NoMoves(BOOL), ir.Binary(INT, "+", const(2), ir.Turn(PLAYER)), span(17))
    layout = ir.StateLayout((ir.StateSlotVar("filled", BOOL, 0, ((0, cells),), (CELL,), 0, 1),), cells)
    return ir.Program(
        name="Domineering", players=("Vertical", "Horizontal"), layout=layout, initial=(0,) * cells + (0, 0),
        setup=ir.Effect(()), defs=(), moves=moves, chance=(), ends=(lose,),
        end_utilities=(None, None, (-1.0, 1.0), (1.0, -1.0)), utility=None, utility_bounds=(-1.0, 1.0),
        heuristic=None, zero_sum=True)
