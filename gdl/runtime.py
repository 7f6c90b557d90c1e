"""The game object a rule file compiles to (the helpers its generated code calls are in :mod:`gdl.rule_helpers`).

:class:`CompiledGame` implements :class:`solver.game.Game`. Its hot methods
(``legal_moves``, ``apply``, ``to_move``) are the generated functions
themselves, stored as instance attributes so a call costs no bound-method
indirection. A move carries its effect in ``Move.data``: applying it is one call.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence
from operator import itemgetter
from types import TracebackType
from typing import TYPE_CHECKING, Any

from gdl import simultaneous as rounds
from gdl import symmetry_cache
from gdl.board import COLUMN_LETTERS
from gdl.code_cache import compile_cached
from gdl.diagnostics import Diagnostic, RuleFileError, Span, did_you_mean
from gdl.rule_helpers import (  # noqa: F401 (re-exported: the public names of the generated code's helpers)
    GENERATED_FILENAME,
    MAX_OUTCOMES,
    RUNTIME_HELPERS,
    SAFE_BUILTINS,
    MoveFactory,
    OutcomeFactory,
    RuleRuntimeError,
    rule_budget,
)
from gdl.symmetry import SlotMap, canonical_key, find_violation, slot_map
from gdl.symmetry import group as symmetry_group
from gdl.types import COLUMN, COLUMN_DISPLAY, ROW, ROW_DISPLAY
from solver.game import (
    CHANCE,
    SIMULTANEOUS,
    TERMINAL,
    AmbiguousMoveError,
    Game,
    IllegalMoveError,
    Move,
    UnknownMoveError,
)
from solver.limits import SearchStopped

if TYPE_CHECKING:
    from gdl.compiler.program import Program
    from gdl.view import StateVariable, StateView

# --------------------------------------------------------------- the game


SETUP_WORK = 20_000_000
"""Units of rule work (:func:`gdl.rule_helpers.rule_work`: iterations of long loops, calls of defs that call defs)
the initial state (``setup``, the initial values) may take to build: about a second of the cheapest loop. Counted,
so that whether a file loads does not depend on the machine or its load."""

SETUP_SECONDS = 30.0
"""A safety net of CPU seconds for building the initial state, should each unit of its rule work be slow (a long
loop whose body runs short loops the compiler does not count): never reached by a file within ``SETUP_WORK`` on
a merely busy machine, and the diagnostic says which limit it was."""

SYMMETRY_CHECK_PLAYOUTS = 4
SYMMETRY_CHECK_STATES = 48
SYMMETRY_CHECK_WORK = 500
"""The short check a game runs before its first symmetric key (``gdl check`` runs a longer one)."""


def _setup_too_large(stop: SearchStopped) -> str:
    """Which limit building the initial state reached (the count, or the safety net of CPU seconds)."""
    if stop.reason == "time":
        return (f"building the initial state was stopped after {SETUP_SECONDS:g} s of CPU (a safety net: each "
                "step of its rule work is slow)")
    return (f"building the initial state needs more than {SETUP_WORK:,} steps of rule work (loop iterations and "
            "def calls)")


_same = tuple
"""The key of a state without symmetries: the state itself (``tuple`` of a tuple is that tuple, at C speed)."""


def _always_quiet(state: tuple) -> bool:
    """Without ``quiet when`` every position is quiet."""
    return True


class CompiledGame:
    """A rule file compiled for one set of parameters; implements :class:`solver.game.Game`."""

    def __init__(self, program: Program, filename: str, source: str, warnings: list[Diagnostic],
                 use_symmetry: bool = True) -> None:
        self.program = program
        self.filename = filename
        self.source = source
        self.warnings = warnings
        self.name = program.name
        self.description = program.description or ""
        self.meta = program.meta
        self.players = program.players
        self.parameters = program.parameters
        self.zero_sum = program.zero_sum
        self.utility_bounds = program.utility_bounds
        self.has_chance = program.has_chance
        self.has_heuristic = program.has_heuristic
        self.win_loss = program.win_loss  # every end a win for one player, a loss for the other
        self.fingerprint = program.fingerprint
        namespace: dict[str, Any] = dict(program.namespace)
        namespace["__builtins__"] = SAFE_BUILTINS
        try:
            code = compile_cached(program.source, GENERATED_FILENAME)  # (the byte-code is kept between runs)
        except (SyntaxError, RecursionError, MemoryError):  # Python's own nesting limits, past the compiler's
            raise RuleFileError([Diagnostic("error", "too-deep", "the rules nest too deeply for Python to run them",
                                            Span(1, 1, 1, 2), filename, "flatten the deepest expressions or "
                                            "blocks")], source) from None
        exec(code, namespace)  # generated from the checked AST only; no user text in the source
        for factory in program.factories:
            if isinstance(factory.fn_name, list):
                factory.fn = [namespace[name] for name in factory.fn_name]
            else:
                factory.fn = namespace[factory.fn_name]
        for global_name, factory, outcomes in program.distributions:
            namespace[global_name] = [(factory.cache.get(v) or factory(v), p) for v, p in outcomes]
        for global_name, action, shown, fn_name in program.eager_moves:
            namespace[global_name] = Move(action, shown, data=namespace[fn_name])
        self._ns = namespace
        self._turn = program.nvars
        self._extra = program.nvars + 2
        # A chance point in code that never runs (behind a constant-false test) has no function.
        chance_fns = [namespace.get(f"_co{i}") for i in range(program.chance_points)]
        extra = self._extra
        util_table = namespace["_UT"]
        util_fn = namespace["_util"]
        try:
            with rule_budget(seconds=SETUP_SECONDS, clock=time.process_time, work=SETUP_WORK):
                self._initial = namespace["_setup"](namespace["_INIT"])
        except SearchStopped as stop:  # every command loads the game: a setup that never ends hangs them all
            span = _span_from_traceback(stop.__traceback__, program) or Span(1, 1, 1, 2)
            raise RuleFileError([Diagnostic("error", "too-large", _setup_too_large(stop), span, filename)],
                                source) from None
        except Exception as error:  # a rule failed while building the initial state
            raise RuleFileError([self.explain(error)], source) from None
        # Hot methods: the generated functions themselves.
        self.legal_moves: Callable[..., list[Move]] = namespace["_legal"]  # (state[, player]: simultaneous)
        self.to_move: Callable[[tuple], int] = itemgetter(self._turn)

        def apply(state: tuple, move: Move) -> tuple:
            return move.data(state)

        def chance_outcomes(state: tuple) -> list[tuple[Move, float]]:
            return chance_fns[state[extra]](state)

        def utilities(state: tuple) -> tuple[float, ...]:
            fixed = util_table[state[extra - 1]]
            return fixed if fixed is not None else util_fn(state)

        self.apply = apply
        self.chance_outcomes = chance_outcomes
        self.utilities = utilities
        self.heuristic: Callable[[tuple], tuple[float, ...] | None] = namespace["_heur"]
        self.has_quiet = program.has_quiet
        self.is_quiet: Callable[[tuple], bool] = namespace["_quiet"] or _always_quiet
        """``quiet when`` (gdl/compiler/quiet.py): where a depth-limited search may use the heuristic."""
        self.key: Callable[[tuple], Hashable] = _same
        """The state's key (:meth:`solver.game.Game.key`): the state itself, or, once the declared symmetries
        passed their check (:meth:`verify_symmetry`, which :func:`gdl.load` runs), its smallest image."""
        self._symmetry_maps: list[tuple[str, SlotMap]] = []
        if program.symmetries and program.board is not None and use_symmetry:
            self._init_symmetry(program)
        if program.simultaneous:
            rounds.install(self)

    # -------------------------------------------------------------- interface
    def initial_state(self) -> tuple:
        return self._initial

    simultaneous = False  # a rule file's players take turns (solver.game.Game.simultaneous)

    def apply_joint(self, state: tuple, moves: Sequence[Move]) -> tuple:
        """A simultaneous round (gdl/simultaneous.py replaces this in a `simultaneous` game)."""
        raise IllegalMoveError(f"{self.name}: the players take turns; there are no joint moves")
    backend = "python"  # where the rules run (gdl.native.game.NativeGame: "c")

    @property
    def python(self) -> CompiledGame:
        """This game on the Python back end, the reference: itself (a C back end's game has the one it runs
        beside: gdl.native.game.NativeGame.python)."""
        return self

    def verify_symmetry(self) -> None:
        """The short check of the declared symmetries, after which ``key`` uses them (:func:`gdl.load` runs it).

        A program that passed it before is not checked again (:mod:`gdl.symmetry_cache`).

        :raises RuleFileError: a ``symmetry-broken`` diagnostic (see :meth:`check_symmetry`).
        """
        if not self._symmetry_unchecked:
            return
        budget = (SYMMETRY_CHECK_PLAYOUTS, SYMMETRY_CHECK_STATES, SYMMETRY_CHECK_WORK)
        key = symmetry_cache.digest(self.program.fingerprint, self.program.source, budget)
        if symmetry_cache.passed(key):  # the same program passed this check before (it is deterministic)
            self._symmetry_unchecked = False
            self.key = self._canonical
            return
        self.check_symmetry(*budget)
        symmetry_cache.remember(key)

    @property
    def symmetries(self) -> tuple[str, ...]:
        """The names of the symmetries the keys use (the whole group, generators composed)."""
        return tuple(name for name, _ in self._symmetry_maps)

    def _init_symmetry(self, program: Program) -> None:
        assert program.board is not None
        transforms = symmetry_group(program.board, program.symmetries)
        nslots = self._extra
        self._symmetry_maps = [(t.name, slot_map(t, program.state_vars, nslots)) for t in transforms]
        self._canonical = canonical_key([m for _, m in self._symmetry_maps], nslots, self._turn,
                                        program.has_chance)
        self._symmetry_unchecked = True
        # Keys of a symmetric game differ from the plain ones: so must a solved table's fingerprint.
        self.fingerprint = f"{program.fingerprint}+sym"

    _symmetry_unchecked = False

    def images(self, state: tuple) -> list[tuple]:
        """``state`` and its images under the declared symmetries (a chance state has only itself)."""
        if self.to_move(state) == CHANCE:
            return [state]
        return [state, *(m.apply(state) for _, m in self._symmetry_maps)]

    def check_symmetry(self, playouts: int, max_states: int, max_work: int, seed: int = 0) -> None:
        """Compare states with their images along seeded random playouts; keys use the symmetries after.

        :raises RuleFileError: a ``symmetry-broken`` diagnostic with the moves that show it.
        """
        if not self._symmetry_maps:
            return
        try:
            violation = find_violation(self, self._symmetry_maps, playouts=playouts, max_states=max_states,
                                       max_work=max_work, seed=seed)
        except RuleRuntimeError as error:  # a rule failed in a state the comparison reached (fuzz, issue 12)
            raise RuleFileError([self.explain(error)], self.source) from None
        if violation is not None:
            moves = ",".join(violation.moves)
            diagnostic = Diagnostic(
                "error", "symmetry-broken",
                f"the rules are not symmetric under `{violation.symmetry}`: {violation.what}",
                self.program.symmetry_span or Span(1, 1, 1, 2), self.filename,
                "remove the symmetry, or make the rules treat mirror-image positions alike",
                (f"reproduce with the moves: {moves}" if moves else "it happens in the initial state",))
            raise RuleFileError([diagnostic], self.source)
        self._symmetry_unchecked = False
        self.key = self._canonical

    def parse_move(self, state: tuple, text: str) -> Move:
        """The move (or chance outcome) of ``state`` named ``text``; spaces are ignored.

        Names are matched ignoring case (``PLACE(B2)``), and a `column` parameter may also be
        given as its index, the name it had before columns were labelled (``drop(3)`` for ``drop(d)``).

        :raises UnknownMoveError: no action of the game has that name.
        :raises IllegalMoveError: the action exists but this move is not legal here.
        :raises AmbiguousMoveError: several moves differ only in case from ``text``.
        """
        wanted = "".join(text.split())
        player = self.to_move(state)
        if player == TERMINAL:
            raise IllegalMoveError(f"the game is over; {text!r} cannot be played")
        candidates = (
            [m for m, _ in self.chance_outcomes(state)] if player == CHANCE else self.legal_moves(state)
        )
        for move in candidates:
            if move.name == wanted:
                return move
        folded = wanted.lower()
        found = [m for m in candidates if folded in self._spellings(m)]
        if len(found) == 1:
            return found[0]
        if found:
            raise AmbiguousMoveError(f"{text!r} could be {len(found)} moves: {', '.join(map(str, found))}")
        action = folded.split("(")[0].split("=")[0]
        actions = self.program.move_actions
        if player != CHANCE and action not in [a.lower() for a in actions]:
            hint = did_you_mean(action, actions)
            raise UnknownMoveError(f"{text!r} is not a move of {self.name} (moves: {', '.join(actions)})"
                                   + (f"; {hint}" if hint else ""))
        raise IllegalMoveError(f"{text!r} is not legal here")

    def _spellings(self, move: Move) -> tuple[str, ...]:
        """The lower-case names ``move`` answers to: its own, and with each `column` argument as an index."""
        name = move.name.lower()
        types = self.program.move_param_types.get(move.action)
        if not types or COLUMN not in types or len(types) != len(move.args):
            return (name,)
        board = self.program.board
        assert board is not None  # a `column` parameter needs a board
        args = [str(COLUMN_LETTERS.index(a)) if t == COLUMN and a in COLUMN_LETTERS else str(a).lower()
                for t, a in zip(types, move.args, strict=True)]
        return name, f"{move.action.lower()}({','.join(args)})"

    def describe_end(self, state: tuple) -> str:
        """``X wins``, ``draw`` or ``game over`` for a terminal state."""
        return self.program.end_descriptions[state[self._extra - 1]] or "game over"

    def values(self, state: tuple) -> dict[str, Any]:
        """The state variables by name (arrays as nested lists), for display and tests."""
        out: dict[str, Any] = {}
        for var in self.program.state_vars:
            flat = list(state[var.offset : var.offset + var.size])
            display = self._display(var.type)
            shown = [display(v) for v in flat]
            for _, size in reversed(var.dims[1:]):
                shown = [shown[i : i + size] for i in range(0, len(shown), size)]
            out[var.name] = shown if var.dims else shown[0]
        return out

    def _display(self, typ: Any) -> Callable[[Any], Any]:
        displays = self.program.displayers
        if typ in (COLUMN, ROW):
            return displays[COLUMN_DISPLAY if typ == COLUMN else ROW_DISPLAY]
        if typ.kind == "enum":
            return displays[typ.name]
        if typ.kind in displays:
            return displays[typ.kind]
        if typ.kind == "bool":
            return lambda v: "true" if v else "false"
        return lambda v: v

    def render(self, state: tuple) -> str:
        """The board (if the rule file names one to draw), the other variables, and whose turn it is."""
        from gdl.view import variable_text  # (as view() imports gdl.view: when a state is drawn)

        lines: list[str] = []
        program = self.program
        board = program.board
        if program.render_var and board is not None:
            var = next(v for v in program.state_vars if v.name == program.render_var)
            lines.extend(self._board_lines(state, var))
        for variable in self.view(state).variables:  # written as every display writes them (gdl.view)
            lines.append(f"{variable.name}: {variable_text(variable, self.players)}")
        lines.append(self.status_line(state))
        return "\n".join(lines)

    def status_line(self, state: tuple) -> str:
        player = self.to_move(state)
        if player == TERMINAL:
            return f"game over: {self.describe_end(state)}"
        if player == CHANCE:
            return "chance: " + ", ".join(f"{m} ({p:.4g})" for m, p in self.chance_outcomes(state))
        if player == SIMULTANEOUS:
            return "to move: " + ", ".join(self.players) + " (at once)"
        return f"to move: {self.players[player]}"

    def _board_lines(self, state: tuple, var: Any) -> list[str]:
        board = self.program.board
        assert board is not None  # (a `render` declaration needs a board)
        symbols = self.program.render_symbols
        display = self._display(var.type)
        cells = state[var.offset : var.offset + var.size]

        def symbol(value: Any) -> str:
            if value in symbols:
                return symbols[value]
            if var.type.optional and value == -1:
                return "."
            return str(display(value))[:1]

        width = max([len(symbol(v)) for v in set(cells)] + [1])
        out = []
        for row in range(board.rows - 1, -1, -1):
            marks = [symbol(cells[row * board.cols + c]).ljust(width) for c in range(board.cols)]
            indent = " " * (row * (width + 1) // 2) if board.shape == "hex" else ""  # a hex board is a rhombus
            out.append(f"{row + 1:>2} " + indent + " ".join(marks))
        out.append("   " + " ".join(COLUMN_LETTERS[c].ljust(width) for c in range(board.cols)))
        return out

    # ------------------------------------------------------------ diagnostics
    def explain(self, error: BaseException) -> Diagnostic:
        """Turn an exception raised by generated code into a diagnostic at the failing rule."""
        return explain_runtime_error(error, self.program, self.filename)

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.parameters.items())
        return f"<CompiledGame {self.name}({params})>"

    # ------------------------------------------------- public facts for displays (the CLI reads these)
    @property
    def actions(self) -> tuple[str, ...]:
        """The names of the game's move actions, in the rule file's order."""
        return tuple(self.program.move_actions)

    @property
    def declared_symmetries(self) -> tuple[str, ...]:
        """The symmetries the rule file's ``symmetry`` line names (:attr:`symmetries` is the whole group)."""
        return tuple(self.program.symmetries)

    def state_variables(self) -> tuple[StateVariable, ...]:
        """Each state variable's name, shape and value range, in declaration order."""
        from gdl.view import StateVariable

        return tuple(StateVariable(v.name, tuple(size for _, size in v.dims), v.lo, v.hi)
                     for v in self.program.state_vars)

    def view(self, state: tuple) -> StateView:
        """``state`` as structured data for display (:mod:`gdl.view`): the drawn board's marks with the
        player each belongs to, the other variables, the status line."""
        from gdl.view import state_view

        return state_view(self.program, state, self._display, self.players, self.status_line(state),
                          self.to_move(state))


def explain_runtime_error(error: BaseException, program: Program, filename: str) -> Diagnostic:
    span = None
    if isinstance(error, RuleRuntimeError) and error.span_id is not None:
        span = program.spans[error.span_id]
        message = error.message
    else:
        message = _describe_python_error(error)
    if span is None:
        span = _span_from_traceback(error.__traceback__, program)
    return Diagnostic("error", "runtime-error", message, span or Span(1, 1, 1, 2), filename)


def _describe_python_error(error: BaseException) -> str:
    if isinstance(error, ZeroDivisionError):
        return "division by zero"
    if isinstance(error, IndexError):
        return "an index is out of range"
    if isinstance(error, RecursionError):
        return "the rules recurse too deeply"
    if isinstance(error, RuleRuntimeError):
        return error.message
    return f"{type(error).__name__}: {error}"


def _span_from_traceback(tb: TracebackType | None, program: Program) -> Span | None:
    import traceback  # (a rule failed: not needed on the way there)

    found = None
    for frame, lineno in traceback.walk_tb(tb):
        if frame.f_code.co_filename == GENERATED_FILENAME and lineno in program.linemap:
            found = program.linemap[lineno]
    return found


def _a_compiled_game_is_a_game(game: CompiledGame) -> Game[tuple[int, ...], Move]:
    """Never called: mypy checks here that :class:`CompiledGame` satisfies the solvers' :class:`Game` protocol."""
    return game
