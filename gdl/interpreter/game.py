"""The interpreter as a game: declarations, the game interface, moves, end rules and statements.

A chance state is resumed by *replay*: it records the state before the move, the move and nature's
picks so far; applying an outcome re-runs the move from the start with one more pick. That is slow,
and obviously equivalent to suspending the move.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any

from gdl import ast
from gdl.interpreter.expressions import Evaluator
from gdl.interpreter.values import (
    DRAW,
    LETTERS,
    LOSE,
    WIN,
    Break,
    Entity,
    Frame,
    InterpreterError,
    IState,
    NotAllowed,
    Scope,
    Suspend,
    VarInfo,
    show,
)
from solver.game import CHANCE, SIMULTANEOUS, TERMINAL, Move


class Interpreter(Evaluator):
    """The game interface of :class:`solver.game.Game` over the AST (see the module docstring)."""

    def __init__(self, rules: ast.RuleFile, parameters: Mapping[str, Any] | None = None) -> None:
        """``parameters``: the resolved values (``CompiledGame.parameters``); missing ones take their default."""
        self.rules = rules
        decls = rules.decls
        self.params: dict[str, Any] = {}
        self.enum_members: dict[str, Entity] = {}
        self.enum_sets: dict[str, tuple[Entity, ...]] = {}
        self.vars: dict[str, VarInfo] = {}  # (filled below; declarations may not read the state)
        self.defs: dict[str, ast.DefDecl] = {}
        self.board: tuple[int, int, str] | None = None
        self.players: tuple[str, ...] = ()
        self._declare_params([d for d in decls if isinstance(d, ast.ParamDecl)], parameters or {})
        players = next(d for d in decls if isinstance(d, ast.PlayersDecl))
        self.players = tuple(name for name, _ in players.names)
        self.player_values = tuple(Entity("player", i, n) for i, n in enumerate(self.players))
        for decl in decls:
            if isinstance(decl, ast.EnumDecl):
                members = tuple(Entity("enum:" + decl.name, i, n) for i, (n, _) in enumerate(decl.members))
                self.enum_sets[decl.name] = members
                for member in members:
                    self.enum_members.setdefault(member.name, member)
        self.defs = {d.name: d for d in decls if isinstance(d, ast.DefDecl)}
        boards = [d for d in decls if isinstance(d, ast.BoardDecl)]
        if boards:
            empty = Frame({}, None)
            rows = self.eval(boards[0].rows, Scope(), empty)
            cols = self.eval(boards[0].cols, Scope(), empty)
            self.board = (rows, cols, boards[0].shape or "square")
            self._make_board()
        after = [d for d in decls if isinstance(d, ast.AfterDecl)]
        # `after every move:` runs after every move's own effects (and after its chance), as a block of
        # its own: written outside every move, it sees none of a move's parameters or locals (docs 2.12).
        self.after: tuple[ast.Stmt, ...] = after[0].body if after else ()
        self.moves = [m for m in decls if isinstance(m, ast.MoveDecl)]
        self.ends = [d for d in decls if isinstance(d, ast.EndDecl)]
        self.utility = next((d for d in decls if isinstance(d, ast.UtilityDecl)), None)
        self.heuristic_decl = next((d for d in decls if isinstance(d, ast.HeuristicDecl)), None)
        self.quiet_decl = next((d for d in decls if isinstance(d, ast.QuietDecl)), None)
        self.setup = next((d for d in decls if isinstance(d, ast.SetupDecl)), None)
        self.state_decls = [d for d in decls if isinstance(d, ast.StateDecl)]
        self.vars = {d.name: self._var_info(d) for d in self.state_decls}
        self.simultaneous = any(isinstance(d, ast.SimultaneousDecl) for d in decls)
        self._initial = self._make_initial()

    # ---------------------------------------------------------- declarations
    def _declare_params(self, decls: list[ast.ParamDecl], values: Mapping[str, Any]) -> None:
        for decl in decls:
            domain = decl.domain
            fresh = isinstance(domain, ast.SetLit) and all(
                isinstance(i, ast.Name) and i.id not in self.params and i.id not in self.enum_members
                for i in domain.items)
            if decl.name in values:
                value = values[decl.name]
            elif fresh:  # no resolved value given: the default (an enumeration default is a member's name)
                value = decl.default.id  # type: ignore[attr-defined]
            else:
                value = self.eval(decl.default, Scope(), Frame({}, None))
            if fresh:  # `param rule: {normal, misere}` declares the names as an enumeration
                assert isinstance(domain, ast.SetLit)
                members = tuple(Entity("enum:" + decl.name, i, item.id)  # type: ignore[attr-defined]
                                for i, item in enumerate(domain.items))
                self.enum_sets[decl.name] = members
                for member in members:
                    self.enum_members.setdefault(member.name, member)
                value = next(m for m in members if m.name == value)
            elif isinstance(value, list | tuple):
                value = tuple(value)
            self.params[decl.name] = value

    def _labels(self, domain: ast.Expr) -> str | None:
        """``column`` or ``row`` when a domain is written as one: its numbers print as the board's labels."""
        if self.board is not None and isinstance(domain, ast.Name) and domain.id in ("column", "row"):
            return domain.id
        return None

    @staticmethod
    def _show(value: Any, labels: str | None) -> str:
        """A value in a move name or ``values``: a column as its letter, a row as its number from 1 (docs 2.5)."""
        if labels == "column":
            return LETTERS[value]
        if labels == "row":
            return str(value + 1)
        return show(value)

    def _var_info(self, decl: ast.StateDecl) -> VarInfo:
        empty, scope = Frame({}, None), Scope()
        dims = [tuple(self.eval(i, scope, empty)) for i in decl.indices]
        size = 1
        for dim in dims:
            size *= len(dim)
        texpr = decl.type
        if isinstance(texpr.domain, ast.Name) and texpr.domain.id == "bool":
            return VarInfo(decl.name, dims, lambda v: isinstance(v, bool), "bool", size)
        values = tuple(self.eval(texpr.domain, scope, empty))
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            # A set of numbers is stored as its range min..max (docs 2.7).
            lo, hi = min(values), max(values)
            return VarInfo(decl.name, dims, lambda v: isinstance(v, int) and not isinstance(v, bool)
                           and lo <= v <= hi, f"{lo}..{hi}", size, self._labels(texpr.domain))
        # Any set is stored as its range min..max (docs 2.7): for `orthogonal`, north..west by index.
        low, high = min(values), max(values)
        optional = texpr.optional
        return VarInfo(decl.name, dims, lambda v: (v is None and optional) or (
            isinstance(v, Entity) and v.kind == low.kind and low.index <= v.index <= high.index),
            f"{low}..{high}", size)

    def _lowest(self, decl: ast.StateDecl) -> Any:
        """The starting value without `=`: false, lo, the lowest member, or none if optional."""
        texpr = decl.type
        if isinstance(texpr.domain, ast.Name) and texpr.domain.id == "bool":
            return False
        if texpr.optional:
            return None
        return min(self.eval(texpr.domain, Scope(), Frame({}, None)))

    def _make_initial(self) -> IState | InterpreterError | NotAllowed:
        values: dict[str, list[Any]] = {}
        for decl in self.state_decls:
            info = self.vars[decl.name]
            if decl.init is None:
                values[decl.name] = [self._lowest(decl)] * info.size
                continue
            init = self.eval(decl.init, Scope(), Frame({}, None))
            if isinstance(init, tuple | range):
                values[decl.name] = list(init)
            else:
                values[decl.name] = [init] * info.size
        first = self.player_values[0]
        frame = Frame(values, turn=first)
        setup = self.setup
        try:
            if setup is not None:
                self.exec_block(setup.body, Scope(), frame)
            turn = frame.next_turn or first
            return self._finish(frame.vars, turn)
        except InterpreterError as error:
            return error
        except Suspend:  # (only `setup` runs a block here)
            assert setup is not None
            return NotAllowed("`chance` in `setup` (docs 2.13: not allowed there)", setup.span)

    # ---------------------------------------------------------- the game interface
    def initial_state(self) -> IState:
        if isinstance(self._initial, InterpreterError | NotAllowed):
            raise self._initial
        return self._initial

    def to_move(self, state: IState) -> int:
        return SIMULTANEOUS if self.simultaneous and state.phase >= 0 else state.phase

    def values(self, state: IState) -> dict[str, Any]:
        """The state variables by name, arrays as nested lists, shown as ``CompiledGame.values`` shows them."""
        out: dict[str, Any] = {}
        for (name, info), flat in zip(self.vars.items(), state.vars, strict=True):
            shown: list[Any] = [self._show(v, info.labels) if info.labels and v is not None
                                else v if isinstance(v, int) and not isinstance(v, bool) else show(v) for v in flat]
            for dim in reversed(info.dims[1:]):
                shown = [shown[i : i + len(dim)] for i in range(0, len(shown), len(dim))]
            out[name] = shown if info.dims else shown[0]
        return out

    def legal_moves(self, state: IState, player: int | None = None) -> list[Move]:
        if self.simultaneous and state.phase >= 0 and player is None:  # the joint moves, `a|b`
            own = [self._legal(self._thaw(state.vars), p) for p in self.player_values]
            return [Move("|".join(map(str, ms)), name="|".join(map(str, ms)), data=("joint", ms))
                    for ms in itertools.product(*own)]
        return self._legal(self._thaw(state.vars), self.player_values[state.turn if player is None else player])

    def apply_joint(self, state: IState, moves: Sequence[Move]) -> IState:
        """A simultaneous round (docs/language.md): each player's move runs in player order, every one chosen
        against the state before the round; a round that ends the game early skips the rest."""
        for player, move in enumerate(moves):
            if state.phase == TERMINAL:
                break
            if state.phase == CHANCE:
                raise InterpreterError("a chance before every player of the round had moved", None)
            state = self.apply(dataclasses.replace(state, turn=player, phase=player), move)
        return dataclasses.replace(state, turn=0, phase=0) if state.phase >= 0 else state

    def apply(self, state: IState, move: Move) -> IState:
        if isinstance(move.data, tuple) and move.data and move.data[0] == "joint":
            return self.apply_joint(state, move.data[1])
        if state.phase == CHANCE:
            assert state.pending is not None
            before, mover, index, args, picks = state.pending
            return self._run_move(before, mover, index, args, (*picks, move.data))
        assert state.phase >= 0
        index, args = move.data
        return self._run_move(state.vars, state.turn, index, args, ())

    def chance_outcomes(self, state: IState) -> list[tuple[Move, Fraction]]:
        assert state.pending is not None
        before, mover, index, args, picks = state.pending
        try:
            self._run_move(before, mover, index, args, picks, resume=False)
        except Suspend as suspended:
            return [(Move(label, name=label, data=pick), p) for pick, label, p in suspended.outcomes]
        raise AssertionError("a chance state whose move does not stop at a chance")

    def utilities(self, state: IState) -> tuple[Any, ...]:
        assert state.end is not None
        kind, who = state.end
        n = len(self.players)
        if kind == "draw":
            return (DRAW,) * n
        if kind == "win":
            return tuple(WIN if p == who else LOSE for p in range(n))
        if kind == "lose":
            return tuple(LOSE if p == who else WIN for p in range(n))
        assert self.utility is not None
        return self._per_player(self.utility.var, self.utility.expr, state, game_over=True)

    def heuristic(self, state: IState) -> tuple[Any, ...] | None:
        if self.heuristic_decl is None:
            return None
        return self._per_player(self.heuristic_decl.var, self.heuristic_decl.expr, state)

    def describe_end(self, state: IState) -> str:
        assert state.end is not None
        kind, who = state.end
        if kind == "draw":
            return "draw"
        if kind == "terminal" or who < 0:
            return "game over"
        return f"{self.players[who]} {'wins' if kind == 'win' else 'loses'}"

    def is_quiet(self, state: IState) -> bool:
        """``quiet when``: may a depth-limited search score this position? (every one without the line)"""
        if self.quiet_decl is None:
            return True
        frame = Frame(self._thaw(state.vars), self.player_values[state.turn])
        return bool(self.eval(self.quiet_decl.expr, Scope(), frame))

    def _per_player(self, var: str, expr: ast.Expr, state: IState, game_over: bool = False) -> tuple[Any, ...]:
        # In `utility` the game is over and nobody is to move: `turn` has no value (docs: `turn-in-utility`).
        frame = Frame(self._thaw(state.vars), None if game_over else self.player_values[state.turn])
        return tuple(self.eval(expr, Scope().child(**{var: p}), frame) for p in self.player_values)

    # ---------------------------------------------------------- moves
    def _thaw(self, frozen: tuple[tuple[Any, ...], ...]) -> dict[str, list[Any]]:
        return {name: list(values) for name, values in zip(self.vars, frozen, strict=True)}

    @staticmethod
    def _freeze(values: dict[str, list[Any]]) -> tuple[tuple[Any, ...], ...]:
        return tuple(tuple(v) for v in values.values())

    def _legal(self, values: dict[str, list[Any]], player: Entity) -> list[Move]:
        """Declaration order, then parameter order; `otherwise` moves only when nothing else is legal."""
        frame = Frame(values, turn=player, mover=player)
        normal: list[Move] = []
        otherwise: list[Move] = []
        for index, decl in enumerate(self.moves):
            out = otherwise if decl.otherwise else normal
            for args in self._combinations(decl.params, Scope(), frame):
                scope = Scope().child(**{p.name: a for p, a in zip(decl.params, args, strict=True)})
                if decl.guard is None or self.eval(decl.guard, scope, frame):
                    shown = (self._show(a, self._labels(p.type.domain)) for p, a in zip(decl.params, args, strict=True))
                    out.append(Move(decl.name, tuple(shown), data=(index, args)))
        return normal or otherwise

    def _combinations(self, params: Sequence[ast.Param], scope: Scope, frame: Frame) -> Iterator[tuple[Any, ...]]:
        if not params:
            yield ()
            return
        first, rest = params[0], params[1:]
        for value in self.eval(first.type.domain, scope, frame):
            for tail in self._combinations(rest, scope.child(**{first.name: value}), frame):
                yield (value, *tail)

    def _run_move(self, before: tuple[tuple[Any, ...], ...], mover_index: int, index: int, args: tuple[Any, ...],
                  picks: tuple[Any, ...], resume: bool = True) -> IState:
        """Run move ``index`` from ``before``, replaying nature's ``picks``; stop at the next chance."""
        decl = self.moves[index]
        mover = self.player_values[mover_index]
        frame = Frame(self._thaw(before), turn=mover, mover=mover, picks=list(picks),
                      want_outcomes=not resume)
        scope = Scope().child(**{p.name: a for p, a in zip(decl.params, args, strict=True)})
        try:
            self.exec_block(decl.body, scope, frame)
            self.exec_block(self.after, Scope(), frame)
        except Suspend as suspended:
            if not resume:
                raise
            return IState(suspended.partial, mover_index, CHANCE, None, (before, mover_index, index, args, picks))
        if not resume:
            raise AssertionError("replay of a chance state ran to the end")
        turn = frame.next_turn if frame.next_turn is not None else self._next(mover)
        return self._finish(frame.vars, turn)

    def _finish(self, values: dict[str, list[Any]], turn: Entity) -> IState:
        """End rules in file order, with `turn` the player who would move next; the first that holds ends."""
        frozen = self._freeze(values)
        frame = Frame(values, turn=turn)
        for end in self.ends:
            for who, scope in self._end_cases(end, frame):
                if self.eval(end.condition, scope, frame):
                    if who is None and end.who is not None:
                        who = self.eval(end.who, scope, frame)
                    return IState(frozen, turn.index, TERMINAL, (end.kind, who.index if who else -1))
        return IState(frozen, turn.index, turn.index)

    def _end_cases(self, end: ast.EndDecl, frame: Frame) -> Iterator[tuple[Entity | None, Scope]]:
        """``win p when ...`` with a fresh name ``p``: each player in declaration order."""
        binder = self._end_binder(end)
        if binder is None:
            yield None, Scope()
            return
        for player in self.player_values:
            yield player, Scope().child(**{binder: player})

    def _end_binder(self, end: ast.EndDecl) -> str | None:
        if end.kind not in ("win", "lose") or not isinstance(end.who, ast.Name):
            return None
        name = end.who.id
        if name in ("mover", "turn") or self._is_global(name):
            return None
        return name

    def _is_global(self, name: str) -> bool:
        return (name in self.params or name in self.players or name in self.enum_members or name in self.defs
                or name in self.vars)

    # ---------------------------------------------------------- statements
    def exec_block(self, stmts: Iterable[ast.Stmt], scope: Scope, frame: Frame) -> None:
        """Run a block in its own scope: its `let`s and binding chances end with it."""
        inner = scope.child()
        for stmt in stmts:
            self.exec(stmt, inner, frame)

    def exec(self, stmt: ast.Stmt, scope: Scope, frame: Frame) -> None:
        if isinstance(stmt, ast.Assign):
            self._assign(stmt, scope, frame)
        elif isinstance(stmt, ast.Let):
            scope.names[stmt.name] = self.eval(stmt.value, scope, frame)
        elif isinstance(stmt, ast.Pass):
            pass
        elif isinstance(stmt, ast.Again):
            frame.next_turn = frame.mover
        elif isinstance(stmt, ast.Break):
            raise Break()
        elif isinstance(stmt, ast.If):
            for test, body in stmt.branches:
                if self.eval(test, scope, frame):
                    self.exec_block(body, scope, frame)
                    return
            if stmt.orelse is not None:
                self.exec_block(stmt.orelse, scope, frame)
        elif isinstance(stmt, ast.For):
            for value in tuple(self.eval(stmt.domain, scope, frame)):
                try:
                    self.exec_block(stmt.body, scope.child(**{stmt.var: value}), frame)
                except Break:
                    break
        elif isinstance(stmt, ast.Chance):
            self._chance(stmt, scope, frame)
        elif isinstance(stmt, ast.ChanceBranches):
            self._branches(stmt, scope, frame)
        else:  # pragma: no cover - the grammar has no other statements
            raise AssertionError(f"unknown statement {type(stmt).__name__}")

    def _chance(self, stmt: ast.Chance, scope: Scope, frame: Frame) -> None:
        if not frame.picks and not frame.want_outcomes:
            raise Suspend([], self._freeze(frame.vars))  # the outcomes are worked out when asked for
        if not frame.picks:
            domain = tuple(self.eval(stmt.domain, scope, frame))
            if stmt.weight is None:
                if not domain:
                    raise InterpreterError("this chance has no outcomes", stmt.span)
                weights: list[Any] = [1] * len(domain)
            else:
                weights = [self.eval(stmt.weight, scope.child(**{stmt.var: v}), frame) for v in domain]
                if any(w < 0 for w in weights):
                    raise InterpreterError("a chance weight is negative", stmt.span)
                if sum(weights) <= 0:
                    raise InterpreterError("the chance weights add up to 0", stmt.span)
            total = Fraction(sum(weights))
            labels = self._labels(stmt.domain)
            outcomes = [(v, f"{stmt.var}={self._show(v, labels)}", Fraction(w) / total)
                        for v, w in zip(domain, weights, strict=True) if w]
            raise Suspend(outcomes, self._freeze(frame.vars))
        value = frame.picks.pop(0)
        if stmt.body is None:  # the binding form: `value` is visible to the end of the enclosing block
            scope.names[stmt.var] = value
        else:
            self.exec_block(stmt.body, scope.child(**{stmt.var: value}), frame)

    def _branches(self, stmt: ast.ChanceBranches, scope: Scope, frame: Frame) -> None:
        if not frame.picks and not frame.want_outcomes:
            raise Suspend([], self._freeze(frame.vars))
        if not frame.picks:
            probs = [Fraction(self.eval(b.probability, scope, frame)) for b in stmt.branches]
            if any(p < 0 for p in probs):
                raise InterpreterError("a chance probability is negative", stmt.span)
            if sum(probs) != 1:
                raise InterpreterError(f"the chance probabilities add up to {sum(probs)}, not 1", stmt.span)
            outcomes = [(b.label, b.label, p) for b, p in zip(stmt.branches, probs, strict=True) if p]
            raise Suspend(outcomes, self._freeze(frame.vars))
        label = frame.picks.pop(0)
        branch = next(b for b in stmt.branches if b.label == label)
        self.exec_block(branch.body, scope, frame)

    def _assign(self, stmt: ast.Assign, scope: Scope, frame: Frame) -> None:
        value = self.eval(stmt.value, scope, frame)
        owner = scope.find(stmt.name)
        if owner is not None:  # a `let` local (the checker allows no other local here)
            owner.names[stmt.name] = self._combine(stmt.op, owner.names[stmt.name], value)
            return
        if stmt.name == "turn":
            frame.next_turn = value
            return
        info = self.vars[stmt.name]
        slot = self._slot(info, stmt.indices, scope, frame)
        new = self._combine(stmt.op, frame.vars[stmt.name][slot], value)
        if not info.allowed(new):
            raise InterpreterError(f"value {show(new)} is outside the domain of `{stmt.name}` ({info.describe})",
                                   stmt.value.span)
        frame.vars[stmt.name][slot] = new

    @staticmethod
    def _combine(op: str, old: Any, value: Any) -> Any:
        if op == "=":
            return value
        if op == "+=":
            return old + value
        if op == "-=":
            return old - value
        assert op == "*="
        return old * value

