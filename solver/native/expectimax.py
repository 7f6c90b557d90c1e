"""Expectiminimax with Star1/Star2 pruning with its recursion in C (``expectimax.c``).

:func:`solver.expectimax.expectimax` uses it for a C-backed two-player zero-sum game: its root loop stays in
Python and asks :meth:`NativeExpectimax.value` for each root move's value, which C computes as
``_ExpectiMiniMax.value`` does (the same nodes, table, windows and doubles). The budget is the Python
search's own: C calls :meth:`Budget.check <solver.limits.Budget.check>` (through a cffi callback) at the
same node counts as the Python loop, so node limits stop at the same node, progress is reported at the same
counts, and a time limit or Ctrl-C is seen within 1,024 nodes.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from solver.game import Game, State
from solver.limits import Budget
from solver.native import NativeHandle, dead_end_after

EX_OK, EX_STOP, EX_DEAD_END, EX_ERROR, EX_MEMORY, EX_DEEP = range(6)
MAX_LEVELS = 3000
"""``expectimax.c``'s recursion limit (EX_MAX_LEVELS)."""


class NativeExpectimax:
    """One search's C context: its transposition table and counters last as long as this object."""

    def __init__(self, game: Game, handle: NativeHandle, budget: Budget, prune: bool, probe: bool, use_tt: bool,
                 cap: int, low: float, high: float) -> None:
        self.game = game
        self.handle = handle
        self.budget = budget
        ffi, lib = handle.ffi, handle.lib
        self._ffi, self._lib = ffi, lib
        self._stop: BaseException | None = None
        # Kept referenced as long as the context: C calls it.
        self._check = ffi.callback("int64_t(int64_t)", self._on_check, -1, self._on_error)
        ctx = lib.gdl_ex_new(int(prune), int(probe), int(use_tt), min(cap, (1 << 63) - 1), low, high, self._check)
        if ctx == ffi.NULL:
            raise MemoryError("no memory for the expectimax search")
        self._ctx = ffi.gc(ctx, lib.gdl_ex_free)
        self._stats = ffi.new("int64_t[4]")
        self._out = ffi.new("double *")
        self._cells = ffi.new("int64_t[]", handle.state_len)

    def _on_check(self, nodes: int) -> int:
        try:
            return self.budget.check(nodes)
        except BaseException as error:  # SearchStopped, Ctrl-C, a progress callback's error: raised by value()
            self._stop = error
            return -1

    def _on_error(self, kind: Any, error: BaseException | None, trace: Any) -> int:
        """An exception outside _on_check's ``try`` (Ctrl-C arriving there): stop, and raise it from value()."""
        del kind, trace
        self._stop = error or KeyboardInterrupt()
        return -1

    def counters(self) -> tuple[int, int, int, int]:
        """Nodes, table hits, table entries made, horizon hits, as ``_ExpectiMiniMax`` counts them."""
        self._lib.gdl_ex_stats(self._ctx, self._stats)
        stats = self._stats
        return int(stats[0]), int(stats[1]), int(stats[2]), int(stats[3])

    def value(self, state: State, depth: int | None, alpha: float, beta: float) -> float:
        """``_ExpectiMiniMax.value(state, depth, alpha, beta)``, searched in C.

        :raises SearchStopped, KeyboardInterrupt: what the budget check raised (the counters stay as they were).
        :raises DeadEndError: a state without moves or outcomes, with the moves from ``state`` to it.
        :raises RecursionError: deeper than :data:`MAX_LEVELS` (an unlimited search of a cyclic game).
        """
        handle, lib = self.handle, self._lib
        self._cells[0:handle.state_len] = list(handle.cells(state))
        self._stop = None
        status = lib.gdl_ex_value(self._ctx, self._cells, 0 if depth is None else depth, int(depth is not None),
                                  alpha, beta, self.budget.next_check, self._out)
        if status == EX_OK:
            return float(self._out[0])
        if status == EX_STOP:
            assert self._stop is not None
            raise self._stop
        if status == EX_MEMORY:
            raise MemoryError("the expectimax search ran out of memory for its table")
        if status == EX_DEEP:
            raise RecursionError(f"expectimax recursed more than {MAX_LEVELS} levels deep")
        line = self._line()
        if status == EX_ERROR:
            error = self._ffi.new("gdl_error *")
            lib.gdl_ex_error(self._ctx, error)
            raise handle.error(error[0], line)
        raise dead_end_after(self.game, state, line)

    def _line(self) -> list[Hashable]:
        cap = 2 * MAX_LEVELS + 2
        moves = self._ffi.new("int32_t[]", cap)
        n = self._lib.gdl_ex_path(self._ctx, moves, cap)
        return [self.handle.move(int(code)) for code in moves[0:n]]
