"""A game whose rules run in C: :class:`NativeGame`, built from the IR by :mod:`gdl.native.emit_c`.

States are the Python back end's state tuples (the IR's state layout), so a state moves freely
between the two back ends; moves are :class:`solver.game.Move` objects named as the Python back end
names them, carrying their C move code. Every rule question (legal moves, apply, end status,
utilities, heuristic, keys) is answered by the C module; rendering and the lenient parsing of move
names are the Python game's. ``native()`` gives the solvers the module, so :func:`solver.exact.solve`
and :func:`solver.mcts.mcts` run their inner loops in C.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gdl import simultaneous as rounds
from gdl.diagnostics import NOWHERE, Diagnostic, Span
from gdl.native.build import build
from gdl.native.emit_cache import cached_emit
from gdl.native.emitted import NONE_TURN, Emitted, MoveCode, OutcomeCode, SymmetryMap, Unsupported
from gdl.runtime import RuleRuntimeError
from solver.game import CHANCE, IllegalMoveError, Move
from solver.native.rules import NativeRules

if TYPE_CHECKING:
    from gdl.compiler import ir
    from gdl.runtime import CompiledGame

OVERFLOW = 4
"""``GDL_E_OVERFLOW`` (solver/native/gdl_abi.h): integer arithmetic out of 64-bit range."""
ERROR_WHAT = {1: "index out of range", 2: "value out of its domain", 3: "division by zero",
              OVERFLOW: "integer overflow: a number past 64 bits, which the C back end does not compute (the Python "
                        "back end does: --backend python)",
              5: "not a legal move", 6: "too many moves", 7: "a state value out of range",
              8: "`none` used as a value", 9: "no end rule gives this state's utilities", 10: "out of memory"}


class NativeGame:
    """:class:`solver.game.Game` with its rules in C (see the module docstring)."""

    def __init__(self, python: CompiledGame, emitted: Emitted, module: Any) -> None:
        self.python = python
        self.emitted = emitted
        self.rules = NativeRules(module, self._error)
        self.ffi, self.lib = module.ffi, module.lib
        self.state_len = emitted.state_len
        self.name = python.name
        self.players = python.players
        self.parameters: Mapping[str, Any] = python.parameters
        self.zero_sum = python.zero_sum
        self.utility_bounds = python.utility_bounds
        self.has_chance = python.has_chance
        self.simultaneous = False
        self.fingerprint = python.fingerprint
        self.backend = "c"
        shape = emitted.shape
        self._turn_slot = shape.nvars
        self._extra_base = shape.nvars + 2  # (the IR's StateLayout: turn, status, then a chance state's extras)
        self._decision_len = shape.nvars + 2
        self._moves: dict[int, Move] = {}
        self._code_of_name: dict[str, int] | None = None
        self._chance_points = {point: (saved, var, _displayer(python, display))
                               for point, saved, var, display in shape.chance}
        self._actions = [name for name, _ in shape.moves]
        self._displays = [[_displayer(python, display) for display in displays] for _, displays in shape.moves]
        if shape.simultaneous:  # rounds over the C rules, each player's move played as a turn (gdl.simultaneous)
            rounds.install(self, step=self.apply, actions=python.program.move_actions)
            self.apply = self._apply_round  # type: ignore[method-assign]  # (a turn game's apply stays as it is)

    @property
    def symmetries(self) -> tuple[str, ...]:
        return self.python.symmetries

    @property
    def program(self) -> ir.Program | None:
        """The rules' IR (the Python game's; made when first asked for: running needs only the emitted C)."""
        return self.python.program.ir

    def __getattr__(self, name: str) -> Any:
        """Everything else (rendering, views, move spellings, descriptions, the program) is the Python
        game's: states are the same tuples in both back ends."""
        if name == "python":  # (not set yet: while unpickling or copying)
            raise AttributeError(name)
        return getattr(self.python, name)

    # -------------------------------------------------------------- the Game interface

    def initial_state(self) -> tuple[int, ...]:
        return self._state(self.rules.initial())

    def to_move(self, state: tuple[int, ...]) -> int:
        return self.rules.to_move(self.cells(state))

    def legal_moves(self, state: tuple[int, ...]) -> list[Move]:
        return [self.move(code) for code in self.rules.legal(self.cells(state))]

    def chance_outcomes(self, state: tuple[int, ...]) -> list[tuple[Move, float]]:
        return [(self.move(code), p) for code, p in self.rules.chance(self.cells(state))]

    def apply(self, state: tuple[int, ...], move: Hashable) -> tuple[int, ...]:
        return self._state(self.rules.apply(self.cells(state), self.code(move)))

    def _apply_round(self, state: tuple[int, ...], move: Hashable) -> tuple[int, ...]:
        """``apply`` of a simultaneous game: a joint move (gdl.simultaneous) plays its parts; any other move
        is one player's, played as a turn."""
        data = getattr(move, "data", None)
        if callable(data):
            return data(state)
        return NativeGame.apply(self, state, move)

    def utilities(self, state: tuple[int, ...]) -> tuple[float, ...]:
        return self.rules.utilities(self.cells(state))

    def heuristic(self, state: tuple[int, ...]) -> tuple[float, ...] | None:
        return self.rules.heuristic(self.cells(state))

    def is_quiet(self, state: tuple[int, ...]) -> bool:
        return self.python.is_quiet(state)  # (`quiet when` runs in Python: asked only at a search's horizon)

    def key(self, state: tuple[int, ...]) -> Hashable:
        if self.python.symmetries:
            self.python.verify_symmetry()  # checked, not trusted: the Python game's check of the declaration
        return self._state(self.rules.key(self.cells(state))[0])

    def parse_move(self, state: tuple[int, ...], text: str) -> Move:
        name = str(self.python.parse_move(state, text))  # its lenient matching and its errors
        player = self.to_move(state)
        moves = [m for m, _ in self.chance_outcomes(state)] if player == CHANCE else self.legal_moves(state)
        for move in moves:
            if str(move) == name:
                return move
        raise IllegalMoveError(f"{text!r} is not a legal move here")

    def render(self, state: tuple[int, ...]) -> str:
        return self.python.render(state)

    # -------------------------------------------------------------- the native handle (solver.native)

    def native(self) -> NativeGame | None:
        """The handle the C solvers use; None for simultaneous rounds (the solvers' C loops play turns: the
        Python loops run over the C rules)."""
        return None if self.simultaneous else self

    def cells(self, state: Sequence[int]) -> list[int]:
        """A state as the C array's cells (a decision state is padded with zeros to the layout's length;
        a chance state's "turn set so far", None in Python, is -1)."""
        cells = [NONE_TURN if v is None else v for v in state]
        if len(cells) > self.state_len:
            raise ValueError(f"a state of this game has at most {self.state_len} values, not {len(cells)}")
        return cells + [0] * (self.state_len - len(cells))

    def _state(self, cells: Sequence[int]) -> tuple[int, ...]:
        """The Python back end's tuple of C cells (a decision or terminal state has no chance extras)."""
        if self.has_chance and cells[self._turn_slot] == CHANCE:
            base = self._extra_base
            saved = self._chance_points[cells[base]][0]
            out: list[int | None] = list(cells[0:base + 3 + saved])
            if out[base + 2] == NONE_TURN:
                out[base + 2] = None
            return tuple(out)  # type: ignore[arg-type]
        return tuple(cells[0:self._decision_len])  # (0: a cffi array slices only from an explicit start)

    def key_of_cells(self, cells: Sequence[int]) -> Hashable:
        return self._state(cells)

    def move(self, code: int) -> Move:
        move = self._moves.get(code)
        if move is None:
            move = self._moves[code] = self._make_move(code, self.emitted.codes[code])
        return move

    def _make_move(self, code: int, which: MoveCode | OutcomeCode) -> Move:
        if isinstance(which, OutcomeCode):
            if which.label is not None:
                return Move(which.label, (), name=which.label, data=code)
            _, var, display = self._chance_points[which.point]
            assert var is not None and which.value is not None
            picked = display(which.value)
            return Move(var, (picked,), name=f"{var}={picked}", data=code)
        shown = tuple(display(v) for display, v in zip(self._displays[which.move], which.args, strict=True))
        return Move(self._actions[which.move], shown, data=code)

    def code(self, move: Hashable) -> int:
        data = getattr(move, "data", None)
        if isinstance(data, int) and 0 <= data < len(self.emitted.codes) and self.move(data) == move:
            return data
        # A move is its name (solver.game.Move): the Python back end's moves are accepted too.
        if self._code_of_name is None:
            self._code_of_name = {str(self.move(c)): c for c in range(len(self.emitted.codes))}
        code = self._code_of_name.get(str(move))
        if code is None:
            raise IllegalMoveError(f"{move!s} is not a move of the C back end of {self.name}")
        return code

    def _error(self, error: Any) -> Exception:
        return self.error(error)

    def error(self, error: Any, moves: Sequence[Hashable] = ()) -> Exception:
        code = int(error.code)
        return NativeRuleError(ERROR_WHAT.get(code, "a rule failed"), self.python.filename, int(error.line),
                               int(error.col), moves, past_64_bits=code == OVERFLOW)

    def explain(self, error: BaseException) -> Diagnostic:
        """The diagnostic of a rule error, as the Python back end's: at the rule's place in the file (the span
        the Python back end reports there), the moves kept apart (``gdl.cli.rule_errors`` finds the shortest)."""
        if not isinstance(error, NativeRuleError):
            return self.python.explain(error)
        span = NOWHERE
        if error.line > 0:
            column = max(error.col, 1)
            span = next((s for s in self.python.program.spans if (s.line, s.column) == (error.line, column)),
                        Span.point(error.line, column))
        return Diagnostic("error", "runtime-error", error.message, span, self.python.filename)


class NativeRuleError(RuleRuntimeError):
    """A rule that failed in C: what failed (``message``: ``ERROR_WHAT``'s), where (the rule file's line and column,
    0 when not known) and the moves that led there from where the search began. The diagnostic
    (:meth:`NativeGame.explain`) has them apart, as the Python back end's; the text names them all."""

    def __init__(self, message: str, filename: str, line: int, col: int, moves: Sequence[Hashable] = (),
                 past_64_bits: bool = False) -> None:
        super().__init__(message)
        self.filename, self.line, self.col, self.moves = filename, line, col, list(moves)
        self.past_64_bits = past_64_bits
        """A number past 64 bits (GDL_E_OVERFLOW): C's limit, not the rules' mistake (Python computes it)."""

    def __str__(self) -> str:
        where = f"{self.filename}:{self.line}:{self.col}: " if self.line else ""
        after = f" (after the moves {','.join(map(str, self.moves))})" if self.moves else ""
        return f"{where}{self.message}{after}"


def _displayer(game: CompiledGame, key: str | None) -> Callable[[int], str]:
    """How the Python back end shows a value whose display is ``key`` (gdl.native.emit_c_expr.display_key):
    cells as ``b2``, columns as letters, players and enums by name; numbers as themselves."""
    return game.program.displayers.get(key, str) if key is not None else str


def symmetry_maps(game: CompiledGame) -> list[SymmetryMap]:
    """The Python game's symmetries (its slot maps), as the C emitter takes them."""
    return [SymmetryMap(tuple(m.src), tuple((slot, dict(vmap)) for slot, vmap in m.value_maps))
            for _, m in game._symmetry_maps]


def compile_native(python: CompiledGame, program: ir.Program | None = None) -> NativeGame:
    """The C back end of ``python`` (the same rule file and parameters), from its IR (``program``: another
    IR for the same game, which is then emitted anew; by default the game's own, whose emitted C is cached
    and which is made only when it is not).

    :raises gdl.native.emit_c.Unsupported: a construct the C emitter does not translate yet.
    :raises gdl.native.build.BuildError: no C compiler, or it failed.
    """
    maps = symmetry_maps(python)
    if program is None:  # (the emitter's output from an earlier run: gdl/native/emit_cache.py)
        emitted = cached_emit(python.fingerprint, python.program.source, maps, lambda: _emit(python.program.ir, maps))
    else:  # an IR a caller changed: the cache's key describes the game's own
        emitted = _emit(program, maps)
    return NativeGame(python, emitted, build(emitted.source))


def _emit(program: ir.Program | None, maps: list[SymmetryMap]) -> Emitted:
    """The emitter's output for ``program``: the emitter and the IR are imported only when it is made."""
    from gdl.native.emit_c import emit

    if program is None:
        raise Unsupported("a game without its IR")
    return emit(program, maps)
