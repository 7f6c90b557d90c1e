"""A plain evaluator of the compiler's IR (gdl.compiler.ir), written from its documentation: the oracle
that proves the IR means what the generated Python does (tests/test_compiler_ir.py).

Slow and simple on purpose: every node is evaluated by a small rule, nothing is optimised. It covers
games without chance (a :class:`~gdl.compiler.ir.Suspend` raises :class:`Unsupported`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

from gdl.compiler import ir
from solver.game import TERMINAL


class RuleError(Exception):
    """A run-time rule error (what the generated code reports as a diagnostic)."""


class Unsupported(Exception):
    """A construct this oracle leaves out (chance)."""


class _Break(Exception):
    pass


ARITH = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: Fraction(a) / Fraction(b),
    "//": lambda a, b: int(a // b),
    "%": lambda a, b: a % b,
}
COMPARE = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "in": lambda a, b: a in tuple(b),
    "not in": lambda a, b: a not in tuple(b),
}


class Evaluator:
    def __init__(self, program: ir.Program) -> None:
        self.p = program
        self.defs = {d.name: d for d in program.defs}
        self.turn = program.layout.turn_slot

    # ------------------------------------------------------------------ expressions
    def expr(self, e: ir.Expr, s: list[Any], env: dict[Any, Any]) -> Any:
        if isinstance(e, ir.Const):
            return e.value
        if isinstance(e, ir.Local):
            assert e.var is not None
            return env[e.var.id]
        if isinstance(e, ir.Slot):
            assert e.index is not None
            return s[self.expr(e.index, s, env)]
        if isinstance(e, ir.Turn):
            return s[self.turn]
        if isinstance(e, ir.Mover):
            return env["me"]
        if isinstance(e, ir.NoMoves):
            return not self.legal(tuple(s))
        if isinstance(e, ir.Unary):
            value = self.expr(e.operand, s, env)  # type: ignore[arg-type]
            return (not value) if e.op == "not" else -value
        if isinstance(e, ir.Binary):
            a, b = self.expr(e.left, s, env), self.expr(e.right, s, env)  # type: ignore[arg-type]
            if e.op in ("/", "//", "%") and b == 0:
                raise RuleError("division by zero")
            return ARITH[e.op](a, b)
        if isinstance(e, ir.Compare):
            values = [self.expr(x, s, env) for x in e.operands]
            return all(COMPARE[op](a, b) for op, a, b in zip(e.ops, values, values[1:], strict=False))
        if isinstance(e, ir.BoolOp):
            for operand in e.operands:
                value = self.expr(operand, s, env)
                if bool(value) == (e.op == "or"):
                    return value
            return e.op == "and"
        if isinstance(e, ir.IfExpr):
            branch = e.then if self.expr(e.test, s, env) else e.orelse  # type: ignore[arg-type]
            return self.expr(branch, s, env)  # type: ignore[arg-type]
        if isinstance(e, ir.Range):
            return range(self.expr(e.lo, s, env), self.expr(e.hi, s, env) + 1)  # type: ignore[arg-type]
        if isinstance(e, ir.SeqLit):
            items = [self.expr(x, s, env) for x in e.items]
            return tuple(dict.fromkeys(items)) if e.unique else tuple(items)
        if isinstance(e, ir.Index):
            seq, i = tuple(self.expr(e.seq, s, env)), self.expr(e.index, s, env)  # type: ignore[arg-type]
            if not 0 <= i < len(seq):
                raise RuleError("index out of range")
            return seq[i]
        if isinstance(e, ir.Table):
            value = e.table
            for arg in e.args:
                i = self.expr(arg, s, env)
                if not 0 <= i < len(value):
                    raise RuleError(f"{e.name} argument out of range")
                value = value[i]
            return value
        if isinstance(e, ir.Builtin):
            return self.builtin(e, [self.expr(x, s, env) for x in e.args])
        if isinstance(e, ir.Check):
            return self.check(e, self.expr(e.value, s, env))  # type: ignore[arg-type]
        if isinstance(e, ir.Aggregate):
            return self.aggregate(e, s, env)
        if isinstance(e, ir.Call):
            d = self.defs[e.name]
            inner: dict[Any, Any] = {"me": env.get("me")}
            for var, arg in zip(d.params, e.args, strict=True):
                inner[var.id] = self.expr(arg, s, env)
            return self.expr(d.body, s, inner)
        if isinstance(e, ir.Evaluate):
            for first in e.first:
                self.expr(first, s, env)
            return self.expr(e.value, s, env)  # type: ignore[arg-type]
        raise AssertionError(f"unknown IR node {type(e).__name__}")

    def builtin(self, e: ir.Builtin, args: list[Any]) -> Any:
        name = e.name
        if name in ("min_of", "max_of"):
            values = tuple(args[0])
            if not values:
                raise RuleError(f"{name} of nothing")
            return (min if name == "min_of" else max)(values)
        if name in ("min", "max"):
            return (min if name == "min" else max)(args)
        if name == "next":
            if not 0 <= args[0] < len(self.p.players):
                raise RuleError("next of no player")
            return (args[0] + 1) % len(self.p.players)
        if name == "cell_at":
            return self.p.board.cell_at(*args)
        if name == "connected":
            within, goals = set(args[2]), set(args[1])
            todo = [c for c in args[0] if c in within]
            seen = set(todo)
            while todo:
                cell = todo.pop()
                if cell in goals:
                    return True
                for n in self.p.board.neighbors[cell]:
                    if n in within and n not in seen:
                        seen.add(n)
                        todo.append(n)
            return False
        simple: dict[str, Callable[..., Any]] = {"int": int, "abs": abs, "len": lambda v: len(tuple(v)), "sum": sum}
        return simple[name](*args)

    @staticmethod
    def check(e: ir.Check, value: Any) -> Any:
        ok = {"index": lambda: e.lo <= value <= e.hi, "domain": lambda: e.lo <= value <= e.hi,
              "among": lambda: e.allowed is not None and value in e.allowed, "some": lambda: value != -1,
              "number": lambda: True, "float": lambda: True}[e.kind]()
        if not ok:
            raise RuleError(f"{e.kind} check failed on {value}")
        return float(value) if e.kind == "float" else value

    def aggregate(self, e: ir.Aggregate, s: list[Any], env: dict[Any, Any]) -> Any:
        assert e.var is not None and e.domain is not None and e.body is not None
        kept = []  # (value, body) of each value that passes the filter
        for value in tuple(self.expr(e.domain, s, env)):
            inner = {**env, e.var.id: value}
            if e.filter is None or self.expr(e.filter, s, inner):
                kept.append((value, inner))
        bodies = (self.expr(e.body, s, inner) for _, inner in kept)
        if e.kind == "any":
            return any(bodies)
        if e.kind == "all":
            return all(bodies)
        if e.kind == "count":
            return sum(1 for b in bodies if b)
        if e.kind == "sum":
            return sum(bodies)
        if e.kind == "first":
            return next((v for (v, _), b in zip(kept, bodies, strict=False) if b), -1)
        if e.kind == "select":
            return tuple(v for (v, _), b in zip(kept, bodies, strict=False) if b)
        values = list(bodies)
        if not values:
            raise RuleError(f"{e.kind} of nothing")
        return (min if e.kind == "min" else max)(values)

    # ------------------------------------------------------------------- statements
    def block(self, stmts: tuple[ir.Stmt, ...], s: list[Any], env: dict[Any, Any]) -> None:
        for stmt in stmts:
            if isinstance(stmt, ir.AssignSlot):
                value = self.expr(stmt.value, s, env)
                s[self.expr(stmt.slot, s, env)] = value
            elif isinstance(stmt, (ir.AssignLocal, ir.Let)):
                env[stmt.var.id] = self.expr(stmt.value, s, env)
            elif isinstance(stmt, ir.SetTurn):
                env["nt"] = self.expr(stmt.value, s, env)
            elif isinstance(stmt, ir.If):
                for test, body in stmt.branches:
                    if self.expr(test, s, env):
                        self.block(body, s, env)
                        break
                else:
                    if stmt.orelse is not None:
                        self.block(stmt.orelse, s, env)
            elif isinstance(stmt, ir.For):
                try:
                    for value in tuple(self.expr(stmt.domain, s, env)):
                        env[stmt.var.id] = value
                        self.block(stmt.body, s, env)
                except _Break:
                    pass
            elif isinstance(stmt, ir.Break):
                raise _Break()
            else:
                raise Unsupported(type(stmt).__name__)

    # ------------------------------------------------------------------------ moves
    def legal(self, state: tuple) -> list[tuple[ir.Effect, dict[Any, Any]]]:
        """The legal moves of ``state``: each as an effect and the values of its parameters."""
        out: list[tuple[ir.Effect, dict[Any, Any]]] = []
        for otherwise in (False, True):
            if otherwise and out:
                break
            for move in self.p.moves:
                if move.otherwise == otherwise:
                    out.extend(self.instances(move, list(state)))
        return out

    def instances(self, move: ir.Move, s: list[Any]) -> Iterator[tuple[ir.Effect, dict[Any, Any]]]:
        env: dict[Any, Any] = {"me": s[self.turn]}
        if move.specialised is not None:
            for _, guard, effect in move.specialised:
                if guard is None or self.expr(guard, s, env):
                    yield effect, dict(env)
            return
        assert move.effect is not None
        yield from self.params(move, 0, s, env)

    def params(self, move: ir.Move, i: int, s: list[Any], env: dict[Any, Any]
               ) -> Iterator[tuple[ir.Effect, dict[Any, Any]]]:
        if i == len(move.params):
            if move.guard is None or self.expr(move.guard, s, env):
                assert move.effect is not None
                yield move.effect, dict(env)
            return
        param = move.params[i]
        for value in tuple(self.expr(param.domain, s, env)):
            yield from self.params(move, i + 1, s, {**env, param.var.id: value})

    def apply(self, state: tuple, effect: ir.Effect, env: dict[Any, Any], nt: int | None = None) -> tuple:
        """``effect`` played from ``state`` by the player to move (``nt``: who moves next unless it says)."""
        s = list(state)
        env = {**env, "me": s[self.turn], "nt": nt}
        self.block(effect.body, s, env)
        s[self.turn] = (env["me"] + 1) % len(self.p.players) if env["nt"] is None else env["nt"]
        for end in self.p.ends:
            if self.expr(end.condition, s, env):
                s[-1] = self.expr(end.status, s, env)
                s[-2] = TERMINAL
                break
        return tuple(s)

    def successors(self, state: tuple) -> list[tuple]:
        return [self.apply(state, effect, env) for effect, env in self.legal(state)]


def initial(program: ir.Program) -> tuple:
    """The initial state: the initial values, then ``setup`` run as player 0, who moves first unless it
    assigns ``turn`` (the end rules are checked after it, as after a move)."""
    return Evaluator(program).apply(tuple(program.initial), program.setup, {}, nt=0)
