"""A reference interpreter: the rule language's documented semantics, walked directly over the AST.

This is the *oracle* the compiled game (:mod:`gdl.compiler`, :mod:`gdl.runtime`) is tested against
(``tests/test_interpreter.py``, ``bench/differential.py``). It is deliberately naive: no constant
folding, no unrolling, no inlining, no precomputed tables, exact arithmetic everywhere. Each construct
is evaluated the way ``docs/language.md`` describes it, and names follow the scoping rule written there
("Names and scope"): lexical block scopes, hygienic defs (a def body sees only its parameters and
global names), a binding ``chance x in D`` visible to the end of its block.

It runs only rule files the checker accepted (it does no type checking of its own): load the file
with :func:`gdl.load_source` first, then build ``Interpreter(rules, game.parameters)``.

Values: numbers are ``int`` or ``Fraction`` (``/`` is exact), booleans ``bool``, ``none`` is ``None``,
players, cells, directions and enumeration members are :class:`Entity` objects, sets and lists are
tuples (ranges are ``range`` objects). Board geometry is computed from the documented definitions
(``a1`` bottom-left, north towards higher rows, hex rows shifted half a cell right), not taken from
:mod:`gdl.board`, so a bug there is caught too.

A chance state is resumed by *replay*: it records the state before the move, the move and nature's
picks so far; applying an outcome re-runs the move from the start with one more pick. That is slow,
and obviously equivalent to suspending the move.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from gdl import ast
from gdl.diagnostics import Span
from solver.game import CHANCE, TERMINAL, Move

WIN, LOSE, DRAW = 1, -1, 0
SQUARE_DIRECTIONS = ("north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest")
# (drow, dcol): north is towards higher rows, east towards higher columns.
SQUARE_DELTAS = {"north": (1, 0), "northeast": (1, 1), "east": (0, 1), "southeast": (-1, 1),
                 "south": (-1, 0), "southwest": (-1, -1), "west": (0, -1), "northwest": (1, -1)}
HEX_DIRECTIONS = ("northeast", "east", "southeast", "southwest", "west", "northwest")
# Each hex row is shifted half a cell right of the row below: the cell straight "up" in the array
# (row + 1, same column) lies half a cell to the right, so it is the north-east neighbour.
HEX_DELTAS = {"northeast": (1, 0), "east": (0, 1), "southeast": (-1, 1), "southwest": (-1, 0),
              "west": (0, -1), "northwest": (1, -1)}
LETTERS = "abcdefghijklmnopqrstuvwxyz"


class InterpreterError(Exception):
    """A rule that failed while the game ran (the compiled game raises ``RuleRuntimeError`` there)."""

    def __init__(self, message: str, span: Span | None = None) -> None:
        super().__init__(message if span is None else f"{span.line}:{span.column}: {message}")
        self.message = message
        self.span = span


class NotAllowed(Exception):
    """Something the docs do not allow but the checker accepted: a name no scope provides, a chance in
    `setup` (a checker bug, not a rule error)."""

    def __init__(self, message: str, span: Span) -> None:
        super().__init__(f"{span.line}:{span.column}: {message}")


@dataclass(frozen=True, order=True)
class Entity:
    """A player, cell, direction or enumeration member: its kind, its index in its kind, its name."""

    kind: str
    index: int
    name: str = field(compare=False)

    def __str__(self) -> str:
        return self.name


def show(value: Any) -> str:
    """A value as move names and ``game.values`` print it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# ------------------------------------------------------------------ control flow


class _Break(Exception):
    pass


class _Suspend(Exception):
    """A chance with no recorded pick: the move stops here; nature chooses among ``outcomes``."""

    def __init__(self, outcomes: list[tuple[Any, str, Fraction]], partial: tuple[tuple[Any, ...], ...]) -> None:
        super().__init__("chance")
        self.outcomes = outcomes
        self.partial = partial


# ------------------------------------------------------------------ scopes


class Scope:
    """One block's locals; lookups go outwards to the enclosing blocks."""

    def __init__(self, parent: Scope | None = None) -> None:
        self.parent = parent
        self.names: dict[str, Any] = {}

    def find(self, name: str) -> Scope | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope
            scope = scope.parent
        return None

    def child(self, **names: Any) -> Scope:
        inner = Scope(self)
        inner.names.update(names)
        return inner


@dataclass
class Frame:
    """Where rules run: the (mutable) state variables, who is `turn` and `mover`, and what is allowed."""

    vars: dict[str, list[Any]]
    turn: Entity | None
    mover: Entity | None = None
    next_turn: Entity | None = None  # set by `again` / `turn = p` in a move
    picks: list[Any] = field(default_factory=list)  # nature's picks still to replay
    want_outcomes: bool = False  # replaying a chance state to list its outcomes


@dataclass(frozen=True)
class IState:
    """An interpreter state: variable values, whose turn, the end status and a pending move (chance)."""

    vars: tuple[tuple[Any, ...], ...]
    turn: int  # the player to move; at a terminal state, the player who would move next
    phase: int  # a player index, CHANCE or TERMINAL (as ``to_move``)
    end: tuple[str, int] | None = None  # (kind, player index or -1) of the end rule that fired
    pending: tuple[Any, ...] | None = None  # (vars before the move, mover, move index, args, picks)


@dataclass
class VarInfo:
    name: str
    dims: list[tuple[Any, ...]]  # the index values of each dimension
    allowed: Callable[[Any], bool]  # is a value inside the declared type?
    describe: str
    size: int
    labels: str | None = None  # "column" or "row": a whole number shown as the board labels it


# ------------------------------------------------------------------ the interpreter


class Interpreter:
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
        self.setup = next((d for d in decls if isinstance(d, ast.SetupDecl)), None)
        self.state_decls = [d for d in decls if isinstance(d, ast.StateDecl)]
        self.vars = {d.name: self._var_info(d) for d in self.state_decls}
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

    def _make_board(self) -> None:
        assert self.board is not None
        rows, cols, shape = self.board
        self.cells = tuple(Entity("cell", r * cols + c, f"{LETTERS[c]}{r + 1}") for r in range(rows)
                           for c in range(cols))
        names = HEX_DIRECTIONS if shape == "hex" else SQUARE_DIRECTIONS
        self.deltas = HEX_DELTAS if shape == "hex" else SQUARE_DELTAS
        self.directions = tuple(Entity("dir", i, n) for i, n in enumerate(names))
        by_name = {d.name: d for d in self.directions}
        if shape == "hex":  # every hex direction is orthogonal; there are no diagonals
            self.orthogonal = self.directions
            self.diagonal: tuple[Entity, ...] = ()
        else:
            self.orthogonal = tuple(by_name[n] for n in ("north", "east", "south", "west"))
            self.diagonal = tuple(by_name[n] for n in ("northeast", "southeast", "southwest", "northwest"))
        self.cell_names = {c.name: c for c in self.cells}

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
        try:
            if self.setup is not None:
                self.exec_block(self.setup.body, Scope(), frame)
            turn = frame.next_turn or first
            return self._finish(frame.vars, turn)
        except InterpreterError as error:
            return error
        except _Suspend:
            return NotAllowed("`chance` in `setup` (docs 2.13: not allowed there)", self.setup.span)

    # ---------------------------------------------------------- the game interface
    def initial_state(self) -> IState:
        if isinstance(self._initial, InterpreterError | NotAllowed):
            raise self._initial
        return self._initial

    def to_move(self, state: IState) -> int:
        return state.phase

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

    def legal_moves(self, state: IState) -> list[Move]:
        return self._legal(self._thaw(state.vars), self.player_values[state.turn])

    def apply(self, state: IState, move: Move) -> IState:
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
        except _Suspend as suspended:
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
        except _Suspend as suspended:
            if not resume:
                raise
            return IState(suspended.partial, mover_index, CHANCE, None, (before, mover_index, index, args, picks))
        if not resume:
            raise AssertionError("replay of a chance state ran to the end")
        turn = frame.next_turn if frame.next_turn is not None else self._next(mover)
        return self._finish(frame.vars, turn)

    def _next(self, player: Entity) -> Entity:
        return self.player_values[(player.index + 1) % len(self.players)]

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
            raise _Break()
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
                except _Break:
                    break
        elif isinstance(stmt, ast.Chance):
            self._chance(stmt, scope, frame)
        elif isinstance(stmt, ast.ChanceBranches):
            self._branches(stmt, scope, frame)
        else:  # pragma: no cover - the grammar has no other statements
            raise AssertionError(f"unknown statement {type(stmt).__name__}")

    def _chance(self, stmt: ast.Chance, scope: Scope, frame: Frame) -> None:
        if not frame.picks and not frame.want_outcomes:
            raise _Suspend([], self._freeze(frame.vars))  # the outcomes are worked out when asked for
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
            raise _Suspend(outcomes, self._freeze(frame.vars))
        value = frame.picks.pop(0)
        if stmt.body is None:  # the binding form: `value` is visible to the end of the enclosing block
            scope.names[stmt.var] = value
        else:
            self.exec_block(stmt.body, scope.child(**{stmt.var: value}), frame)

    def _branches(self, stmt: ast.ChanceBranches, scope: Scope, frame: Frame) -> None:
        if not frame.picks and not frame.want_outcomes:
            raise _Suspend([], self._freeze(frame.vars))
        if not frame.picks:
            probs = [Fraction(self.eval(b.probability, scope, frame)) for b in stmt.branches]
            if any(p < 0 for p in probs):
                raise InterpreterError("a chance probability is negative", stmt.span)
            if sum(probs) != 1:
                raise InterpreterError(f"the chance probabilities add up to {sum(probs)}, not 1", stmt.span)
            outcomes = [(b.label, b.label, p) for b, p in zip(stmt.branches, probs, strict=True) if p]
            raise _Suspend(outcomes, self._freeze(frame.vars))
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

    def _slot(self, info: VarInfo, indices: Sequence[ast.Expr], scope: Scope, frame: Frame) -> int:
        """The row-major position of ``var[indices]``; an index outside its dimension is a rule error."""
        slot = 0
        for expr, dim in zip(indices, info.dims, strict=True):
            value = self.eval(expr, scope, frame)
            if value is None or value not in dim or isinstance(value, bool) != isinstance(dim[0], bool):
                raise InterpreterError(f"index {show(value)} is outside `{info.name}`'s indexes", expr.span)
            slot = slot * len(dim) + tuple(dim).index(value)
        return slot

    # ---------------------------------------------------------- expressions
    def eval(self, e: ast.Expr, scope: Scope, frame: Frame) -> Any:
        method: Callable[[Any, Scope, Frame], Any] = getattr(self, "_e_" + type(e).__name__)
        return method(e, scope, frame)

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
        if name == "no_moves":
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
            domain = tuple(self.eval(param.type.domain, empty, frame))
            if domain and all(isinstance(v, int) and not isinstance(v, bool) for v in domain):
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

    # ---------------------------------------------------------- builtins
    @staticmethod
    def _need(value: Any, e: ast.Call, i: int = 0) -> Any:
        """A `none` where a board function needs a cell (or direction) is a rule error at that place."""
        if value is None:
            raise InterpreterError("found none where a value is needed", e.args[i].span)
        return value

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
        return self._next(self._need(args[0], e))

    def _b_opponent(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        return self.player_values[1 - self._need(args[0], e).index]

    def _rc(self, cell: Entity) -> tuple[int, int]:
        assert self.board is not None
        return divmod(cell.index, self.board[1])

    def _at(self, row: int, col: int) -> Entity | None:
        assert self.board is not None
        rows, cols, _ = self.board
        return self.cells[row * cols + col] if 0 <= row < rows and 0 <= col < cols else None

    def _b_row(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        return self._rc(self._need(args[0], e))[0]

    def _b_col(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        return self._rc(self._need(args[0], e))[1]

    def _b_cell(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        return self._at(args[0], args[1])  # none off the board (docs 2.5)

    def _step(self, cell: Entity, direction: Entity) -> Entity | None:
        dr, dc = self.deltas[direction.name]
        row, col = self._rc(cell)
        return self._at(row + dr, col + dc)

    def _b_step(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        return self._step(self._need(args[0], e), self._need(args[1], e, 1))

    def _ray(self, cell: Entity, direction: Entity) -> tuple[Entity, ...]:
        out = []
        nxt = self._step(cell, direction)
        while nxt is not None:
            out.append(nxt)
            nxt = self._step(nxt, direction)
        return tuple(out)

    def _b_ray(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        return self._ray(self._need(args[0], e), self._need(args[1], e, 1))

    def _b_neighbors(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        cell = self._need(args[0], e)
        return tuple(n for d in self.directions if (n := self._step(cell, d)) is not None)

    def _b_cells_in_row(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        assert self.board is not None
        rows = self.board[0]
        if not 0 <= args[0] < rows:
            raise InterpreterError(f"`cells_in_row` of {args[0]}: outside 0..{rows - 1} on this board", e.span)
        return tuple(c for c in self.cells if self._rc(c)[0] == args[0])

    def _b_cells_in_column(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        assert self.board is not None
        cols = self.board[1]
        if not 0 <= args[0] < cols:
            raise InterpreterError(f"`cells_in_column` of {args[0]}: outside 0..{cols - 1} on this board", e.span)
        return tuple(c for c in self.cells if self._rc(c)[1] == args[0])

    def _b_lines(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        """Every straight line of k cells: for each cell (in order) and each axis (east, north, north-east,
        south-east; on a hex board east, north-east, north-west), the k cells from it along the axis."""
        assert self.board is not None
        k = args[0]
        if k < 1:
            return ()
        axes = ("east", "northeast", "northwest") if self.board[2] == "hex" else (
            "east", "north", "northeast", "southeast")
        out = []
        for cell in self.cells:
            for axis in axes:
                ray = self._ray(cell, next(d for d in self.directions if d.name == axis))
                if len(ray) >= k - 1:
                    out.append((cell, *ray[: k - 1]))
        return tuple(out)

    def _b_connected(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        """Some cell of A reaches some cell of B through neighbouring cells, every cell of the path in S."""
        starts, goals, allowed = (set(a) for a in args)
        frontier = [c for c in starts if c in allowed]
        seen = set(frontier)
        while frontier:
            cell = frontier.pop()
            if cell in goals:
                return True
            for d in self.directions:
                nxt = self._step(cell, d)
                if nxt is not None and nxt in allowed and nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
        return False


# ------------------------------------------------------------------ the scoping rule, statically


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
    return found
