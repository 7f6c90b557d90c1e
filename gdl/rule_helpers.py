"""What generated code calls: checked operations, the rule budget, move and outcome factories.

The compiler (:mod:`gdl.compiler`) writes calls to these helpers into the Python module it
generates; :class:`gdl.runtime.CompiledGame` binds them into that module's namespace
(``RUNTIME_HELPERS``, ``SAFE_BUILTINS``). Neither the compiler nor this module imports
:mod:`gdl.runtime`, so the three form no import cycle.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from fractions import Fraction
from typing import Any

from gdl.diagnostics import GdlError
from solver.game import TERMINAL, Move
from solver.limits import SearchStopped

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
    _next_check = _following()
    if _work_limit is not None and _count >= _work_limit:
        raise SearchStopped("nodes")
    if _deadline is not None and _clock() >= _deadline:
        raise SearchStopped("time")


def _following() -> int:
    """The count at which `_check` looks next: after ``POLL_EVERY`` units, or exactly at the work limit (so that a
    budget of work stops at the same unit whatever work this process did before it: the same output)."""
    following = _count + POLL_EVERY
    return following if _work_limit is None else min(following, max(_work_limit, _count + 1))


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


def rule_work() -> int:
    """The units of rule work counted so far in this process (loop iterations of long loops, def calls): the
    difference of two readings is the work done between them, the same on any machine."""
    return _count


@contextlib.contextmanager
def rule_budget(seconds: float | None = None, nodes: int | None = None,
                clock: Callable[[], float] = time.perf_counter, deadline: float | None = None,
                work: int | None = None) -> Iterator[None]:
    """Bound every rule evaluation inside the block: after ``seconds`` (or at ``deadline``, on ``clock``),
    or after the work of ``nodes`` nodes or ``work`` units of rule work (:func:`rule_work`), generated code
    raises :class:`SearchStopped` (``"time"``, or ``"nodes"`` for either count).

    Nested blocks keep the tighter budget; leaving a block restores the one around it.
    """
    global _deadline, _clock, _work_limit, _next_check
    saved = (_deadline, _clock, _work_limit)
    if seconds is not None:
        deadline = clock() + seconds
    if deadline is not None and (_deadline is None or clock is not _clock or deadline < _deadline):
        _deadline, _clock = deadline, clock
    for units in (None if nodes is None else nodes * WORK_PER_NODE, work):
        if units is not None:
            limit = _count + units
            _work_limit = limit if _work_limit is None else min(_work_limit, limit)
    _next_check = min(_next_check, _following())
    try:
        yield
    finally:
        _deadline, _clock, _work_limit = saved
        _next_check = min(_next_check, _following())


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


SAFE_BUILTINS = {
    name: getattr(__builtins__, name) if not isinstance(__builtins__, dict) else __builtins__[name]
    for name in ("any", "all", "sum", "min", "max", "abs", "len", "range", "next", "tuple", "list", "float",
                 "True", "False", "None", "int")
}
del sys
