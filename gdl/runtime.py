"""The game object a rule file compiles to, and the helpers its generated code calls.

:class:`CompiledGame` implements :class:`solver.game.Game`. Its hot methods
(``legal_moves``, ``apply``, ``to_move``) are the generated functions
themselves, stored as instance attributes so a call costs no bound-method
indirection. A move carries its effect in ``Move.data``: applying it is one call.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import time
import traceback
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from fractions import Fraction
from operator import itemgetter
from types import TracebackType
from typing import TYPE_CHECKING, Any

from gdl.board import COLUMN_LETTERS
from gdl.diagnostics import Diagnostic, GdlError, RuleFileError, Span, did_you_mean
from gdl.symmetry import SlotMap, canonical_key, find_violation, slot_map
from gdl.symmetry import group as symmetry_group
from gdl.types import COLUMN, COLUMN_DISPLAY, ROW, ROW_DISPLAY
from solver.game import CHANCE, TERMINAL, AmbiguousMoveError, Game, IllegalMoveError, Move, UnknownMoveError
from solver.limits import SearchStopped

if TYPE_CHECKING:
    from gdl.compiler import Program
    from gdl.view import StateVariable, StateView

GENERATED_FILENAME = "<gdl-generated>"


class RuleRuntimeError(GdlError):
    """A rule that failed while the game ran (index out of range, value out of domain, ...)."""

    def __init__(self, message: str, span_id: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span_id = span_id


class _NoUtility(Exception):
    pass


# ------------------------------------------------------------ move factories


class MoveFactory:
    """Builds (once) and caches the :class:`Move` objects of one action."""

    def __init__(self, action: str, displays: list[Callable[[Any], str]], fn_name: str) -> None:
        self.action = action
        self.displays = displays
        self.fn_name = fn_name
        self.fn: Callable[..., Any] | None = None  # bound after the module is executed
        self.cache: dict[Any, Move] = {}

    def __call__(self, key: Any) -> Move:
        if not self.displays:
            args: tuple[Any, ...] = ()
        elif len(self.displays) == 1:
            args = (key,)
        else:
            args = key
        shown = tuple(display(a) for display, a in zip(self.displays, args, strict=True))
        assert self.fn is not None
        data = functools.partial(self.fn, *args) if args else self.fn
        move = Move(self.action, shown, data=data)
        self.cache[key] = move
        return move


class OutcomeFactory:
    """Builds and caches the chance outcomes of one chance point (``d=3``, or branch labels)."""

    def __init__(self, var: str | None, display: Callable[[Any], str], fn_name: str | list[str]) -> None:
        self.var = var
        self.display = display
        self.fn_name = fn_name
        self.fn: Any = None
        self.cache: dict[Any, Move] = {}

    def __call__(self, value: Any) -> Move:
        shown = self.display(value)
        data = functools.partial(self.fn, value)
        move = Move(self.var or shown, (shown,) if self.var else (), name=f"{self.var}={shown}" if self.var
                    else shown, data=data)
        self.cache[value] = move
        return move

    def branch(self, index: int, label: str) -> Move:
        move = self.cache.get(index)
        if move is None:
            move = Move(label, data=functools.partial(self.fn[index], label))
            self.cache[index] = move
        return move


# ------------------------------------------------- the budget of one rule evaluation
# A search checks its budget between nodes; one rule evaluation (a move with two parameters over
# 0..999999, a def that calls another twice, forty levels deep) can last longer than any budget.
# So generated code counts the work of its long loops (`_poll`) and of defs that call defs (`_tick`),
# and every POLL_EVERY units looks at the deadline that `rule_budget` set: past it, it raises
# SearchStopped, which every search treats like its own budget running out. Loops the compiler
# proves short (a constant domain, not nested under other long loops) are not counted at all.

POLL_EVERY = 1 << 14
"""Units of work (loop iterations, def calls) between two looks at the clock."""
MAX_RANGE = 1_000_000
"""The most values a range computed at run time may hold (as a load-time range: `too-large` past it)."""
WORK_PER_NODE = 10_000
"""Units of rule work allowed per node of ``--max-nodes`` (one evaluation may not outlast the node budget)."""

_count = 0
_next_check = POLL_EVERY
_deadline: float | None = None
_clock: Callable[[], float] = time.perf_counter
_work_limit: int | None = None


def _check() -> None:
    """The slow path of `_poll`/`_tick`: raise SearchStopped when the rule budget is spent."""
    global _next_check
    _next_check = _count + POLL_EVERY
    if _work_limit is not None and _count >= _work_limit:
        raise SearchStopped("nodes")
    if _deadline is not None and _clock() >= _deadline:
        raise SearchStopped("time")


POLL_CHUNK = 4096
"""A loop over more values is counted chunk by chunk (one value's work may be large: making a move)."""
MAX_MOVES = 1_000_000
"""The most legal moves of one state (a move with huge parameters could otherwise fill the memory)."""


def _poll(seq: Sequence[Any], sid: int, moves: list[Any] | None = None) -> Iterable[Any]:
    """A long loop's domain, counted as work; a range computed at run time is bounded by ``MAX_RANGE``.

    ``moves``: the list of legal moves a move-parameter loop fills, bounded by ``MAX_MOVES``.
    """
    global _count
    try:
        n = len(seq)
    except OverflowError:  # a range longer than sys.maxsize
        n = MAX_RANGE + 1
    if n > MAX_RANGE:
        raise RuleRuntimeError(f"a loop over {_many(seq, 'values')}; at most {MAX_RANGE:,}", sid)
    if n > POLL_CHUNK:
        return _chunks(seq, n, sid, moves)
    _count += n
    if _count >= _next_check:
        _check()
    if moves is not None and len(moves) > MAX_MOVES:
        raise RuleRuntimeError(f"more than {MAX_MOVES:,} legal moves in one state", sid)
    return seq


def _chunks(seq: Sequence[Any], n: int, sid: int, moves: list[Any] | None) -> Iterator[Any]:
    global _count
    for start in range(0, n, POLL_CHUNK):
        _count += POLL_CHUNK
        if _count >= _next_check:
            _check()
        if moves is not None and len(moves) > MAX_MOVES:
            raise RuleRuntimeError(f"more than {MAX_MOVES:,} legal moves in one state", sid)
        yield from seq[start : start + POLL_CHUNK]


def _many(seq: Sequence[Any], noun: str) -> str:
    """``the 1,000,000,000 values of 0..999999999``, or ``2,000,000 values``."""
    if isinstance(seq, range):
        return f"the {seq.stop - seq.start:,} {noun} of {seq.start}..{seq.stop - 1}"
    return f"{len(seq):,} {noun}"


def _tick() -> None:
    """One call of a def that calls other defs (a chain of them can double the work at each level)."""
    global _count
    _count += 1
    if _count >= _next_check:
        _check()


@contextlib.contextmanager
def rule_budget(seconds: float | None = None, nodes: int | None = None,
                clock: Callable[[], float] = time.perf_counter, deadline: float | None = None) -> Iterator[None]:
    """Bound every rule evaluation inside the block: after ``seconds`` (or at ``deadline``, on ``clock``)
    or after the work of ``nodes`` nodes, generated code raises :class:`SearchStopped` (``"time"`` or
    ``"nodes"``).

    Nested blocks keep the tighter budget; leaving a block restores the one around it.
    """
    global _deadline, _clock, _work_limit, _next_check
    saved = (_deadline, _clock, _work_limit)
    if seconds is not None:
        deadline = clock() + seconds
    if deadline is not None and (_deadline is None or clock is not _clock or deadline < _deadline):
        _deadline, _clock = deadline, clock
    if nodes is not None:
        limit = _count + nodes * WORK_PER_NODE
        _work_limit = limit if _work_limit is None else min(_work_limit, limit)
    _next_check = min(_next_check, _count + POLL_EVERY)
    try:
        yield
    finally:
        _deadline, _clock, _work_limit = saved


# ----------------------------------------------------------- generated helpers


def _show(value: Any) -> str:
    return repr(value)


def _ix(value: int, low: int, high: int, sid: int) -> int:
    if low <= value <= high:
        return value
    shown = "none" if value == -1 and low >= 0 else value
    raise RuleRuntimeError(f"index {shown} is outside {low}..{high}", sid)


def _some(value: int, sid: int) -> int:
    if value >= 0:
        return value
    raise RuleRuntimeError("found none where a value is needed", sid)


def _dom(value: Any, low: int, high: int, sid: int) -> Any:
    if low <= value <= high:
        return value
    raise RuleRuntimeError(f"value {_show(value)} is outside the variable's domain {low}..{high}", sid)


def _among(value: Any, allowed: frozenset[int], sid: int) -> Any:
    """A value kept in a state whose domain has gaps (`orthogonal`: every other direction)."""
    if value in allowed:
        return value
    raise RuleRuntimeError(f"value {_show(value)} is outside the variable's domain", sid)


def _at(seq: Sequence[Any], index: int, sid: int) -> Any:
    if 0 <= index < len(seq):
        return seq[index]
    raise RuleRuntimeError(f"index {index} is outside 0..{len(seq) - 1}", sid)


def _board_arg(value: int, size: int, name: str, sid: int) -> int:
    """The argument of a board function (``cells_in_row(r)``): never a Python negative index."""
    if 0 <= value < size:
        return value
    raise RuleRuntimeError(f"`{name}` of {value}: outside 0..{size - 1} on this board", sid)


def _arith(a: Any, b: Any, op: str, sid: int) -> Any:
    """``a / b``, ``a // b`` or ``a % b`` where ``b`` is known only at run time."""
    if b == 0:
        raise RuleRuntimeError(f"division by zero (`{op}` by 0)", sid)
    if op == "/":
        return _big(Fraction(a) / b, sid)  # exact, as the docs say and as constant folding is
    return a // b if op == "//" else a % b


MAX_NUMBER_BITS = 4096
"""The most bits of a product or fraction computed at run time (numerator and denominator each)."""


def _big(value: Any, sid: int) -> Any:
    """A product or fraction computed at run time, refused past ``MAX_NUMBER_BITS`` bits (squaring one
    again and again doubles its digits, and one multiplication of huge numbers cannot be interrupted)."""
    if isinstance(value, int):
        if value.bit_length() <= MAX_NUMBER_BITS:
            return value
    elif not isinstance(value, Fraction) or max(value.numerator.bit_length(),
                                                 value.denominator.bit_length()) <= MAX_NUMBER_BITS:
        return value
    raise RuleRuntimeError(f"a number of more than {MAX_NUMBER_BITS:,} bits (about "
                           f"{MAX_NUMBER_BITS * 3 // 10:,} digits): numbers in the rules must stay smaller", sid)


def _min_of(values: Iterable[Any], sid: int) -> Any:
    values = list(values)
    if not values:
        raise RuleRuntimeError("`min` over no values", sid)
    return min(values)


def _max_of(values: Iterable[Any], sid: int) -> Any:
    values = list(values)
    if not values:
        raise RuleRuntimeError("`max` over no values", sid)
    return max(values)


MAX_UTILITY = 1e300
"""Utilities and heuristic values beyond this are rule errors (the solvers compute with floats)."""


def _num(value: Any, sid: int) -> Any:
    """A utility, refused when a float cannot hold it (a huge whole number would crash the solver)."""
    if -MAX_UTILITY <= value <= MAX_UTILITY:
        return value
    raise RuleRuntimeError(f"a utility of {_magnitude(value)}: utilities must lie within ±1e300", sid)


def _flt(value: Any, sid: int) -> float:
    """A heuristic value as a float, refused when a float cannot hold it."""
    if -MAX_UTILITY <= value <= MAX_UTILITY:
        return float(value)
    raise RuleRuntimeError(f"a heuristic value of {_magnitude(value)}: it must lie within ±1e300", sid)


def _magnitude(value: Any) -> str:
    """A huge number shown by its size, not its digits (printing a 10,000-digit number is slow and useless)."""
    if isinstance(value, int):
        return f"{len(str(abs(value))) if value.bit_length() < 10_000 else 'thousands of'} digits"
    return _show(value)


def _end(s: list[Any], status: int) -> tuple[Any, ...]:
    s[-1] = status
    s[-2] = TERMINAL
    return tuple(s)


def _uniform(dom: Iterable[Any], cache: dict[Any, Move], make: OutcomeFactory, sid: int) -> list[tuple[Move, float]]:
    values = tuple(dom)
    if not values:
        raise RuleRuntimeError("this chance has no outcomes", sid)
    p = 1.0 / len(values)
    get = cache.get
    return [(get(v) or make(v), p) for v in values]


MAX_OUTCOMES = 10_000
"""The most outcomes of one chance (as at load time: a million move objects would take seconds and memory)."""


def _outcomes(dom: Any, sid: int) -> Any:
    """A chance's domain computed at run time, refused before it is built when it has too many values."""
    try:
        n = len(dom)
    except OverflowError:
        n = MAX_OUTCOMES + 1
    if n > MAX_OUTCOMES:
        raise RuleRuntimeError(f"a chance over {_many(dom, 'outcomes')}; at most {MAX_OUTCOMES:,}", sid)
    return dom


def _weighted(dom: Iterable[Any], weights: list[Any], cache: dict[Any, Move], make: OutcomeFactory,
              sid: int) -> list[tuple[Move, float]]:
    values = tuple(dom)
    if any(w < 0 for w in weights):
        raise RuleRuntimeError("a chance weight is negative", sid)
    total = sum(weights)
    if total <= 0:
        raise RuleRuntimeError("the chance weights add up to 0", sid)
    get = cache.get
    return [(get(v) or make(v), float(w / total)) for v, w in zip(values, weights, strict=True) if w]


def _branches(labels: tuple[str, ...], probs: tuple[Any, ...], make: OutcomeFactory,
              sid: int) -> list[tuple[Move, float]]:
    if any(p < 0 for p in probs):
        raise RuleRuntimeError("a chance probability is negative", sid)
    total = sum(probs)
    if abs(total - 1) > 1e-9:
        raise RuleRuntimeError(f"the chance probabilities add up to {float(total):.12g}, not 1", sid)
    return [(make.branch(i, label), float(p)) for i, (label, p) in enumerate(zip(labels, probs, strict=True)) if p]


def _connected(neighbors: Sequence[Sequence[int]], starts: Iterable[int], goals: Iterable[int],
               allowed: Iterable[int]) -> bool:
    """Depth-first search from ``starts`` to ``goals`` through ``allowed`` cells (all of them must be allowed)."""
    inside = {c for c in allowed if c >= 0}  # `none` (-1) is no cell: never a Python index from the end
    targets = set(goals) & inside
    if not targets:
        return False
    stack = [c for c in starts if c in inside]
    seen = set(stack)
    while stack:
        cell = stack.pop()
        if cell in targets:
            return True
        for nxt in neighbors[cell]:
            if nxt in inside and nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


RUNTIME_HELPERS: dict[str, Any] = {
    "_connected": _connected,
    "_ix": _ix,
    "_dom": _dom,
    "_among": _among,
    "_some": _some,
    "_at": _at,
    "_board_arg": _board_arg,
    "_arith": _arith,
    "_min_of": _min_of,
    "_max_of": _max_of,
    "_end": _end,
    "_uniform": _uniform,
    "_weighted": _weighted,
    "_branches": _branches,
    "_NoUtility": _NoUtility,
    "_poll": _poll,
    "_tick": _tick,
    "_outcomes": _outcomes,
    "_num": _num,
    "_big": _big,
    "_flt": _flt,
}


# --------------------------------------------------------------- the game


SETUP_SECONDS = 5.0
"""CPU seconds the initial state (``setup``, the initial values) may take to build."""

SYMMETRY_CHECK_PLAYOUTS = 4
SYMMETRY_CHECK_STATES = 48
SYMMETRY_CHECK_WORK = 500
"""The short check a game runs before its first symmetric key (``gdl check`` runs a longer one)."""


_same = tuple
"""The key of a state without symmetries: the state itself (``tuple`` of a tuple is that tuple, at C speed)."""


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
        namespace["__builtins__"] = _SAFE_BUILTINS
        try:
            code = compile(program.source, GENERATED_FILENAME, "exec")
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
            with rule_budget(seconds=SETUP_SECONDS, clock=time.process_time):
                self._initial = namespace["_setup"](namespace["_INIT"])
        except SearchStopped as stop:  # every command loads the game: a setup that never ends hangs them all
            span = _span_from_traceback(stop.__traceback__, program) or Span(1, 1, 1, 2)
            raise RuleFileError([Diagnostic("error", "too-large", f"building the initial state took more than "
                                            f"{SETUP_SECONDS:g} s", span, filename)], source) from None
        except Exception as error:  # a rule failed while building the initial state
            raise RuleFileError([self.explain(error)], source) from None
        # Hot methods: the generated functions themselves.
        self.legal_moves: Callable[[tuple], list[Move]] = namespace["_legal"]
        self.to_move: Callable[[tuple], int] = itemgetter(self._turn)  # type: ignore[assignment]

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
        self.key: Callable[[tuple], Hashable] = _same
        """The state's key (:meth:`solver.game.Game.key`): the state itself, or, once the declared symmetries
        passed their check (:meth:`verify_symmetry`, which :func:`gdl.load` runs), its smallest image."""
        self._symmetry_maps: list[tuple[str, SlotMap]] = []
        if program.symmetries and program.board is not None and use_symmetry:
            self._init_symmetry(program)

    # -------------------------------------------------------------- interface
    def initial_state(self) -> tuple:
        return self._initial

    simultaneous = False  # a rule file's players take turns (solver.game.Game.simultaneous)

    def verify_symmetry(self) -> None:
        """The short check of the declared symmetries, after which ``key`` uses them (:func:`gdl.load` runs it).

        :raises RuleFileError: a ``symmetry-broken`` diagnostic (see :meth:`check_symmetry`).
        """
        if self._symmetry_unchecked:
            self.check_symmetry(SYMMETRY_CHECK_PLAYOUTS, SYMMETRY_CHECK_STATES, SYMMETRY_CHECK_WORK)

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
        violation = find_violation(self, self._symmetry_maps, playouts=playouts, max_states=max_states,
                                   max_work=max_work, seed=seed)
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
        lines: list[str] = []
        program = self.program
        board = program.board
        values = self.values(state)
        if program.render_var and board is not None:
            var = next(v for v in program.state_vars if v.name == program.render_var)
            lines.extend(self._board_lines(state, var))
            del values[var.name]
        for name, value in values.items():
            lines.append(f"{name}: {_format_value(name, value, self)}")
        lines.append(self.status_line(state))
        return "\n".join(lines)

    def status_line(self, state: tuple) -> str:
        player = self.to_move(state)
        if player == TERMINAL:
            return f"game over: {self.describe_end(state)}"
        if player == CHANCE:
            return "chance: " + ", ".join(f"{m} ({p:.4g})" for m, p in self.chance_outcomes(state))
        return f"to move: {self.players[player]}"

    def _board_lines(self, state: tuple, var: Any) -> list[str]:
        board = self.program.board
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


def _format_value(name: str, value: Any, game: CompiledGame) -> str:
    if isinstance(value, list) and value and isinstance(value[0], list):
        return " / ".join(" ".join(str(v) for v in row) for row in value)
    if isinstance(value, list):
        var = next(v for v in game.program.state_vars if v.name == name)
        if len(var.dims) == 1 and var.index_types[0].kind == "player":
            return "  ".join(f"{p}={v}" for p, v in zip(game.players, value, strict=False))
        return " ".join(str(v) for v in value)
    return str(value)


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
    found = None
    for frame, lineno in traceback.walk_tb(tb):
        if frame.f_code.co_filename == GENERATED_FILENAME and lineno in program.linemap:
            found = program.linemap[lineno]
    return found


_SAFE_BUILTINS = {
    name: getattr(__builtins__, name) if not isinstance(__builtins__, dict) else __builtins__[name]
    for name in ("any", "all", "sum", "min", "max", "abs", "len", "range", "next", "tuple", "list", "float",
                 "True", "False", "None", "int")
}
del sys


def _a_compiled_game_is_a_game(game: CompiledGame) -> Game[tuple[int, ...], Move]:
    """Never called: mypy checks here that :class:`CompiledGame` satisfies the solvers' :class:`Game` protocol."""
    return game
