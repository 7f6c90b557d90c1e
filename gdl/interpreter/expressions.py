"""Expressions of the rule language, evaluated over the AST as ``docs/language.md`` describes them.

Names follow the scoping rule ("Names and scope"): a local of an enclosing block, else a global name;
a ``def`` is hygienic (its body sees only its parameters and the global names). Calls dispatch to a
``def`` or to a builtin ``_b_<name>`` (the board builtins are in :mod:`gdl.interpreter.geometry`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from gdl import ast
from gdl.diagnostics import Span
from gdl.interpreter.geometry import BoardGeometry, need
from gdl.interpreter.values import DRAW, LOSE, WIN, Entity, Frame, InterpreterError, NotAllowed, Scope, VarInfo, show
from solver.game import Move


class Evaluator(BoardGeometry):
    """The expression half of :class:`gdl.interpreter.Interpreter`: what a rule file's names mean, and values."""

    params: dict[str, Any]
    players: tuple[str, ...]
    player_values: tuple[Entity, ...]
    enum_members: dict[str, Entity]
    enum_sets: dict[str, tuple[Entity, ...]]
    vars: dict[str, VarInfo]
    defs: dict[str, ast.DefDecl]

    def _legal(self, values: dict[str, list[Any]], player: Entity) -> list[Move]:
        """The legal moves of ``player`` (for ``no_moves``), defined by the interpreter."""
        raise NotImplementedError

    def _slot(self, info: VarInfo, indices: Sequence[ast.Expr], scope: Scope, frame: Frame) -> int:
        """The row-major position of ``var[indices]``; an index outside its dimension is a rule error."""
        slot = 0
        for expr, dim, positions in zip(indices, info.dims, info.positions, strict=True):
            value = self.eval(expr, scope, frame)
            try:
                position = positions.get(value)
            except TypeError:  # (an unhashable value is no index)
                position = None
            if value is None or position is None or isinstance(value, bool) != isinstance(dim[0], bool):
                raise InterpreterError(f"index {show(value)} is outside `{info.name}`'s indexes", expr.span)
            slot = slot * len(dim) + position
        return slot

    def _next(self, player: Entity) -> Entity:
        return self.player_values[(player.index + 1) % len(self.players)]

    def eval(self, e: ast.Expr, scope: Scope, frame: Frame) -> Any:
        # (the method found once per node type: the name lookup was a tenth of the oracle's time)
        method = _EVALUATORS.get(type(e))
        if method is None:
            method = _EVALUATORS[type(e)] = getattr(Evaluator, "_e_" + type(e).__name__)
        return method(self, e, scope, frame)

    def _e_Num(self, e: ast.Num, scope: Scope, frame: Frame) -> Any:
        return e.value

    def _e_Bool(self, e: ast.Bool, scope: Scope, frame: Frame) -> Any:
        return e.value

    def _e_NoneLit(self, e: ast.NoneLit, scope: Scope, frame: Frame) -> Any:
        return None

    def _e_Name(self, e: ast.Name, scope: Scope, frame: Frame) -> Any:
        owner = scope.find(e.id)
        if owner is not None:
            return owner.names[e.id]
        return self.global_value(e.id, e.span, frame)

    def global_value(self, name: str, span: Span, frame: Frame) -> Any:
        if name in self.params:
            return self.params[name]
        if name in self.players:
            return self.player_values[self.players.index(name)]
        if name in self.enum_members:
            return self.enum_members[name]
        if name in self.vars:
            return frame.vars[name][0]
        if name in self.defs:
            return self._call_def(self.defs[name], [], span, frame)
        if name == "player":
            return self.player_values
        if name == "bool":
            return (False, True)
        if name in self.enum_sets:
            return self.enum_sets[name]
        if name in ("win", "lose", "draw"):
            return {"win": WIN, "lose": LOSE, "draw": DRAW}[name]
        if name == "mover":
            return frame.mover
        if name in ("turn", "no_moves") and frame.turn is None:
            raise InterpreterError(f"`{name}` has no value when the game is over: nobody is to move", span)
        if name == "turn":
            return frame.turn
        if name == "no_moves" and frame.turn is not None:  # (no turn: an error just above)
            return not self._legal({k: list(v) for k, v in frame.vars.items()}, frame.turn)
        if self.board is not None:
            rows, cols, _ = self.board
            found = {"cell": self.cells, "dir": self.directions, "orthogonal": self.orthogonal,
                     "diagonal": self.diagonal, "rows": rows, "cols": cols,
                     "column": tuple(range(cols)), "row": tuple(range(rows))}
            if name in found:
                return found[name]
            for direction in self.directions:
                if direction.name == name:
                    return direction
            if name in self.cell_names:
                return self.cell_names[name]
        raise NotAllowed(f"`{name}` is not visible here under the scoping rule", span)

    def _e_Neg(self, e: ast.Neg, scope: Scope, frame: Frame) -> Any:
        return -self.eval(e.operand, scope, frame)

    def _e_Not(self, e: ast.Not, scope: Scope, frame: Frame) -> Any:
        return not self.eval(e.operand, scope, frame)

    def _e_BoolOp(self, e: ast.BoolOp, scope: Scope, frame: Frame) -> Any:
        for value in e.values:  # short-circuit: the rest is not evaluated
            result = self.eval(value, scope, frame)
            if result == (e.op == "or"):
                return result
        return e.op == "and"

    def _e_Binary(self, e: ast.Binary, scope: Scope, frame: Frame) -> Any:
        a = self.eval(e.left, scope, frame)
        b = self.eval(e.right, scope, frame)
        if e.op in ("/", "//", "%") and b == 0:
            raise InterpreterError(f"division by zero (`{e.op}` by 0)", e.span)
        if e.op == "+":
            return a + b
        if e.op == "-":
            return a - b
        if e.op == "*":
            return a * b
        if e.op == "/":
            return Fraction(a) / Fraction(b)
        if e.op == "//":
            return int(Fraction(a) // Fraction(b))  # rounds down, always a whole number
        return a % b  # the sign of b

    def _e_Compare(self, e: ast.Compare, scope: Scope, frame: Frame) -> Any:
        left = self.eval(e.first, scope, frame)
        for op, expr in zip(e.ops, e.rest, strict=True):  # a chain: each link evaluated once, left to right
            right = self.eval(expr, scope, frame)
            if not self._compare(op, left, right):
                return False
            left = right
        return True

    @staticmethod
    def _compare(op: str, a: Any, b: Any) -> bool:
        if op == "==":
            return bool(a == b)
        if op == "!=":
            return bool(a != b)
        if op == "in":
            return a in tuple(b)
        if op == "not in":
            return a not in tuple(b)
        return bool({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op])

    def _e_Range(self, e: ast.Range, scope: Scope, frame: Frame) -> Any:
        return range(self.eval(e.lo, scope, frame), self.eval(e.hi, scope, frame) + 1)

    def _e_IfExpr(self, e: ast.IfExpr, scope: Scope, frame: Frame) -> Any:
        if self.eval(e.test, scope, frame):
            return self.eval(e.then, scope, frame)
        return self.eval(e.orelse, scope, frame)

    def _e_Quantifier(self, e: ast.Quantifier, scope: Scope, frame: Frame) -> Any:
        chosen: list[tuple[Any, Any]] = []  # (x, body) for every x that passes the filter
        kind = e.kind
        for x in tuple(self.eval(e.domain, scope, frame)):
            inner = scope.child(**{e.var: x})
            if e.filter is not None and not self.eval(e.filter, inner, frame):
                continue
            body = self.eval(e.body, inner, frame)
            if kind == "any" and body:
                return True
            if kind == "all" and not body:
                return False
            if kind == "first" and body:
                return x
            chosen.append((x, body))
        if kind in ("any", "all"):
            return kind == "all"
        if kind == "first":
            return None
        if kind == "count":
            return sum(1 for _, body in chosen if body)
        if kind == "select":
            return tuple(x for x, body in chosen if body)
        bodies = [body for _, body in chosen]
        if kind == "sum":
            return sum(bodies)
        if not bodies:
            raise InterpreterError(f"`{kind}` over no values", e.span)
        return min(bodies) if kind == "min" else max(bodies)

    def _e_Index(self, e: ast.Index, scope: Scope, frame: Frame) -> Any:
        if isinstance(e.base, ast.Name) and scope.find(e.base.id) is None and e.base.id in self.vars:
            info = self.vars[e.base.id]
            return frame.vars[info.name][self._slot(info, e.indices, scope, frame)]
        seq = tuple(self.eval(e.base, scope, frame))
        index = self.eval(e.indices[0], scope, frame)
        if not 0 <= index < len(seq):
            raise InterpreterError(f"index {index} is outside 0..{len(seq) - 1}", e.span)
        return seq[index]

    def _e_ListLit(self, e: ast.ListLit, scope: Scope, frame: Frame) -> Any:
        return tuple(self.eval(i, scope, frame) for i in e.items)

    def _e_SetLit(self, e: ast.SetLit, scope: Scope, frame: Frame) -> Any:
        return tuple(dict.fromkeys(self.eval(i, scope, frame) for i in e.items))  # duplicates dropped

    def _e_Call(self, e: ast.Call, scope: Scope, frame: Frame) -> Any:
        args = [self.eval(a, scope, frame) for a in e.args]
        if e.func in self.defs and scope.find(e.func) is None:
            return self._call_def(self.defs[e.func], args, e.span, frame, e.args)
        builtin: Callable[..., Any] = getattr(self, "_b_" + e.func)
        return builtin(args, e, frame)

    def _call_def(self, decl: ast.DefDecl, args: list[Any], span: Span, frame: Frame,
                  arg_exprs: Sequence[ast.Expr] = ()) -> Any:
        """Hygienic: the body sees its parameters and the global names, nothing of the caller."""
        params: dict[str, Any] = {}
        empty = Scope()
        for i, (param, value) in enumerate(zip(decl.params, args, strict=True)):
            where = arg_exprs[i].span if arg_exprs else span
            domain = self.eval(param.type.domain, empty, frame)
            if not isinstance(domain, range):  # (a range is whole numbers from its first to its last)
                domain = tuple(domain)
            if domain and (isinstance(domain, range)
                           or all(isinstance(v, int) and not isinstance(v, bool) for v in domain)):
                # A whole-number parameter keeps its argument inside its range (min..max of the set).
                if not min(domain) <= value <= max(domain):
                    raise InterpreterError(f"argument {i + 1} of `{decl.name}` is {show(value)}, outside its "
                                           f"domain {min(domain)}..{max(domain)}", where)
            elif value is None and not param.type.optional:
                raise InterpreterError("found none where a value is needed", where)
            params[param.name] = value
        # A def reads the state as it is, but is not inside a move: no `mover`.
        inner = Frame(frame.vars, frame.turn)
        return self.eval(decl.body, empty.child(**params), inner)


    def _b_min(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        values = tuple(args[0]) if len(args) == 1 else tuple(args)
        if not values:
            raise InterpreterError("`min` over no values", e.span)
        return min(values)

    def _b_max(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        values = tuple(args[0]) if len(args) == 1 else tuple(args)
        if not values:
            raise InterpreterError("`max` over no values", e.span)
        return max(values)

    def _b_abs(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        return abs(args[0])

    def _b_len(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        return len(tuple(args[0]))

    def _b_sum(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        return sum(tuple(args[0]))

    def _b_next(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        return self._next(need(args[0], e))

    def _b_opponent(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        return self.player_values[1 - need(args[0], e).index]


_EVALUATORS: dict[type, Callable[[Evaluator, Any, Scope, Frame], Any]] = {}
"""``Evaluator._e_<node type>`` by node type (the ``_e_`` methods are Evaluator's own: no subclass overrides one)."""
