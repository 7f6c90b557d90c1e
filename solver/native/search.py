"""The exact alpha-beta searcher with its inner loop in C (``negamax.c``), behind NegamaxSearch's interface.

:func:`solver.exact.solve` drives it as it drives :class:`solver.alphabeta.NegamaxSearch`: MTD(f), the
null-window tests of the root moves, the principal variation and the solved table are the same Python
code; each ``negamax`` call runs in C, in slices of nodes between which the budget is checked (time,
nodes, progress about every 0.1 s, and Ctrl-C, which Python sees when a slice returns).

The transposition table is C's: a fixed number of entries with a replacement scheme, so a full table never stops
the search. It has ``Limits.table_entries`` or as many as ``Limits.memory_bytes`` hold at C's size of an entry
(``gdl_ab_entry_bytes``: 24 bytes and the packed key, and an eighth more for the growth), the smaller; with
neither, :data:`DEFAULT_ENTRIES`.

``threads > 1``: lazy SMP (the shared-table parallel search of Stockfish and most engines since): while
this thread searches, ``threads - 1`` helpers search the same position on other threads with the same
table, each with its own move order near the root, so that the table holds what this search needs next.
Only this thread's value counts; every entry any thread stores is a proven bound (``negamax.c``). The helpers
join once the search has visited :data:`HELPERS_AFTER` nodes: a small search is over before threads would pay.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Iterator
from typing import TYPE_CHECKING, Any

from solver.alphabeta import UNLIMITED_DEPTH, CycleFound, NegamaxSearch
from solver.auto import Algorithm
from solver.game import Game, State
from solver.limits import Budget, Limits, SearchStopped, StopReason
from solver.native import FIRST_SLICE, NativeHandle, dead_end_after, handle_of, next_slice
from solver.table import SolvedTable

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

DEFAULT_ENTRIES = 1 << 20
"""Table entries when the caller sets neither ``table_entries`` nor ``memory_bytes`` (24 bytes and the packed key
each). A bigger table costs more cache misses per probe; big solves set ``memory_bytes`` (``--memory``)."""
HELPERS_AFTER = 1 << 16
"""Nodes this thread searches alone before the helper threads join (the table grows to its full size then)."""
SLICE_SECONDS = 0.02
"""A slice of C search lasts about this long: the budget is checked (and Ctrl-C seen) that often."""
AB_DONE, AB_SLICE, AB_DEAD_END, AB_CYCLE, AB_ERROR, AB_CHANCE, AB_MEMORY, AB_STACK = range(8)


def native_search(game: Game, budget: Budget, limits: Limits) -> NativeSearch | None:
    """A C searcher for ``game`` if it has a native handle (a deterministic two-player zero-sum game), else None.
    Its table is sized by ``limits.table_entries`` and ``limits.memory_bytes``; it searches on ``limits.threads``."""
    handle = handle_of(game)
    if handle is None:
        return None
    return NativeSearch(game, handle, budget, table_entries(handle, limits), limits.threads,
                        stack_frames(handle, limits))


def stack_frames(handle: NativeHandle, limits: Limits) -> int | None:
    """The deepest path the C search may keep for ``limits.memory_bytes`` (None: no memory cap): a frame holds a
    state and its children, hundreds of kilobytes for a state of thousands of cells, so the stack gets the same
    bytes as the table (the two together stay within twice ``--memory``)."""
    if limits.memory_bytes is None:
        return None
    return max(1, limits.memory_bytes // int(handle.lib.gdl_ab_frame_bytes()))


def table_entries(handle: NativeHandle, limits: Limits) -> int:
    """The entries of the C table for ``limits``: its cap in entries, or as many as its memory cap holds at C's
    size of an entry, the smaller (:data:`DEFAULT_ENTRIES` with neither). ``gdl_ab_new`` makes buckets of two of
    them (an odd one is not used)."""
    entries = limits.entries(int(handle.lib.gdl_ab_entry_bytes()))
    return DEFAULT_ENTRIES if entries is None else max(4, min(entries, (1 << 62)))


class NativeSearch(NegamaxSearch):
    """NegamaxSearch's interface (exact searches only: ``depth`` is always unlimited), searching in C."""

    def plies_seconds(self, value_seconds: float, tested_seconds: float) -> float:
        """A tenth of MTD(f)'s time alone, and half a second at least. The walk runs in Python and calls C at every
        node, some hundreds of times slower per node than the search: measured on the bundled games and the
        benchmark boards, every walk that finished took under 0.2 s (tic-tac-toe 9 ms, Hex 0.19 s, Domineering 4x4
        0.08 s) and every other one many times its value search (Connect-Four 4x4 4.6 s against 0.01 s, m,n,k
        (3,4,3) 1.5 s against 0.001 s, 5x4 30 s, Clobber 30 s and more against 2 s). So more time is only waste:
        half of MTD(f)'s time (the share until 2026-11) was 15 s of a 57 s Connect-Four 6x5 solve. The value is
        exact without it."""
        del tested_seconds
        return max(0.5, 0.1 * value_seconds)

    def __init__(self, game: Game, handle: NativeHandle, budget: Budget, table_entries: int, threads: int = 1,
                 frames: int | None = None) -> None:
        self.game = game
        self.handle = handle
        self.budget = budget
        self.reference = 0
        self.sides = (1, -1)
        self.use_tt = True
        self.ordering = True
        self.detect_cycles = True
        self.horizon_hits = 0
        self.root_best: Any = None
        ffi, lib = handle.ffi, handle.lib
        self._ffi, self._lib = ffi, lib
        ctx = lib.gdl_ab_new(table_entries)
        if ctx == ffi.NULL:
            raise MemoryError("no memory for the transposition table")
        self._ctx = ffi.gc(ctx, lib.gdl_ab_free)
        self._frames = frames
        if frames is not None:
            lib.gdl_ab_stack_limit(ctx, frames)
        self._threads = threads
        self._helpers: list[Any] = []  # (made when the search proves big enough: see HELPERS_AFTER)
        self._pool: ThreadPoolExecutor | None = None
        self._stats = ffi.new("int64_t[5]")
        self._slice = FIRST_SLICE
        self._table = NativeTable(self)
        self.tt = self._table  # type: ignore[assignment]

    def _helper(self, variant: int) -> Any:
        """A C context searching with this one's table."""
        ctx = self._lib.gdl_ab_new_helper(self._ctx, variant)
        if ctx == self._ffi.NULL:
            raise MemoryError("no memory for a helper thread's search")
        if self._frames is not None:
            self._lib.gdl_ab_stack_limit(ctx, self._frames)
        return self._ffi.gc(ctx, self._lib.gdl_ab_free)  # (the table is freed with the last context using it)

    def _start_helpers(self, root: Any, alpha: float, beta: float) -> tuple[threading.Event, list[Future[None]]]:
        """The helpers search ``root`` in the same window until ``stop`` is set (or they finish); made first."""
        stop = threading.Event()
        futures: list[Future[None]] = []
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor  # (some 8 ms of imports: one thread needs none)

            self._helpers = [self._helper(variant) for variant in range(1, self._threads)]
            self._pool = ThreadPoolExecutor(len(self._helpers))
        lib = self._lib

        def run(ctx: Any) -> None:
            if lib.gdl_ab_start(ctx, root, alpha, beta) != AB_DONE:
                return  # (a terminal or chance root, or an error: the owner meets it and reports it)
            while not stop.is_set() and lib.gdl_ab_run(ctx, 1 << 14) == AB_SLICE:
                pass

        for helper in self._helpers:
            futures.append(self._pool.submit(run, helper))
        return stop, futures

    def close(self) -> None:
        """Stop the helper threads' pool (their contexts are freed with this searcher)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def __del__(self) -> None:
        self.close()

    @property
    def table_capacity(self) -> int:
        """The entries the C table has room for now (it grows up to the entries it was made with: ``negamax.c``)."""
        return int(self._lib.gdl_ab_capacity(self._ctx))

    def _read_stats(self) -> Any:
        self._lib.gdl_ab_stats(self._ctx, self._stats)
        return self._stats

    @property
    def nodes(self) -> int:
        return int(self._read_stats()[0])

    @nodes.setter
    def nodes(self, value: int) -> None:
        pass  # counted in C

    @property
    def tt_hits(self) -> int:
        return int(self._read_stats()[1])

    @tt_hits.setter
    def tt_hits(self, value: int) -> None:
        pass

    def negamax(self, state: State, player: int, depth: int, alpha: float, beta: float, ply: int = 0,
                k: Hashable = None) -> float:
        """The fail-soft value of ``state`` for the side to move, searched to the end in the window (alpha, beta)."""
        del depth, ply, k  # exact only; the key is made in C
        ffi, lib, ctx, budget = self._ffi, self._lib, self._ctx, self.budget
        root = ffi.new("int64_t[]", list(self.handle.cells(state)))
        status = lib.gdl_ab_start(ctx, root, alpha, beta)
        if status != AB_DONE:
            self._fail(status, state)
        stop: threading.Event | None = None
        helpers: list[Future[None]] = []
        try:
            while True:
                if stop is None and self._threads > 1 and self.nodes >= HELPERS_AFTER:
                    stop, helpers = self._start_helpers(root, alpha, beta)
                if self._search_slice(budget, state):
                    break
        finally:
            if stop is not None:
                stop.set()
            for future in helpers:
                future.result()
        stats = self._stats
        lib.gdl_ab_stats(ctx, stats)
        budget.nodes = int(stats[0])
        best = int(stats[4])
        self.root_best = self.handle.move(best) if best >= 0 else None
        return float(lib.gdl_ab_result(ctx))

    def _search_slice(self, budget: Budget, state: State) -> bool:
        """Run a slice of the started search; whether it reached the end. The budget is checked (and Ctrl-C
        seen) after each."""
        lib, ctx, stats = self._lib, self._ctx, self._stats
        started = time.perf_counter()
        nodes = int(self._read_stats()[0])
        step = self._slice
        if budget.limits.nodes is not None:
            step = max(1, min(step, budget.limits.nodes - nodes))
        status = lib.gdl_ab_run(ctx, step)
        if status == AB_DONE:
            return True
        if status != AB_SLICE:
            self._fail(status, state)
        lib.gdl_ab_stats(ctx, stats)
        budget.tt_size = int(stats[2])
        budget.check(int(stats[0]))
        spent = time.perf_counter() - started
        self._slice = min(1 << 24, next_slice(step, spent, 1, SLICE_SECONDS))
        return False

    def solved_table(self, game: Game, fill: Callable[[Any], SolvedTable]) -> SolvedTable:
        """The solved table of this search, converted from the C table when first read: ``fill(view)``
        builds it from a view that has only ``tt``."""
        view = _TableView(self._table)
        return lazy_table(SolvedTable.for_game(game, Algorithm.ALPHABETA, complete=False), lambda: fill(view))

    def _fail(self, status: int, root: State) -> None:
        """Raise what the C search met, with the line of moves from ``root`` where it applies."""
        ffi, lib, handle = self._ffi, self._lib, self.handle
        if status == AB_CYCLE:
            raise CycleFound(root)
        if status == AB_CHANCE:
            raise ValueError("alpha-beta met a chance node; use expectimax")
        if status == AB_STACK:  # the path outgrew --memory: the budget, not a failure
            raise SearchStopped(StopReason.TABLE)
        if status == AB_MEMORY:
            raise MemoryError("the alpha-beta search ran out of memory for its stack")
        cap = 1 << 20
        moves = ffi.new("int32_t[]", cap)
        cells = ffi.new("int64_t[]", handle.state_len)
        n = lib.gdl_ab_path(self._ctx, moves, cap, cells)
        line = [handle.move(int(m)) for m in moves[0:n]]
        if status == AB_ERROR:
            error = ffi.new("gdl_error *")
            lib.gdl_ab_error(self._ctx, error)
            raise handle.error(error[0], line)
        raise dead_end_after(self.game, root, line)


class _TableView:
    def __init__(self, tt: NativeTable) -> None:
        self.tt = tt


class NativeTable:
    """A read-only mapping view of the C transposition table, in NegamaxSearch's entry format.

    Keys are the game's keys (``game.key``); entries ``(depth, lower, upper, move, side)`` as
    NegamaxSearch stores them (every C entry is exact-depth: the search has no horizon).
    """

    def __init__(self, search: NativeSearch) -> None:
        self.search = search
        handle = search.handle
        self._cells = search._ffi.new("int64_t[]", handle.state_len)
        self._out = search._ffi.new("double[2]")
        self._move = search._ffi.new("int32_t[2]")

    def __len__(self) -> int:
        return int(self.search._read_stats()[2])

    def get(self, key: Hashable, default: Any = None) -> Any:
        search = self.search
        handle = search.handle
        self._cells[0:handle.state_len] = list(handle.cells(key))
        found = search._lib.gdl_ab_lookup(search._ctx, self._cells, self._out, self._out + 1, self._move,
                                          self._move + 1)
        if not found:
            return default
        move = int(self._move[0])
        return (UNLIMITED_DEPTH, float(self._out[0]), float(self._out[1]),
                handle.move(move) if move >= 0 else None, int(self._move[1]))

    def __contains__(self, key: Hashable) -> bool:
        return self.get(key) is not None

    def items(self) -> Iterator[tuple[Hashable, tuple[int, float, float, Any, int]]]:
        search = self.search
        ffi, lib, handle = search._ffi, search._lib, search.handle
        batch = 4096
        n = handle.state_len
        cells = ffi.new("int64_t[]", batch * n)
        lo, hi = ffi.new("double[]", batch), ffi.new("double[]", batch)
        moves, sides = ffi.new("int32_t[]", batch), ffi.new("int32_t[]", batch)
        count = ffi.new("int64_t *")
        start = 0
        while start >= 0:
            start = lib.gdl_ab_entries(search._ctx, start, batch, cells, lo, hi, moves, sides, count)
            flat = cells[0:count[0] * n]
            for i in range(count[0]):
                move = moves[i]
                yield (handle.key_of_cells(flat[i * n:(i + 1) * n]),
                       (UNLIMITED_DEPTH, lo[i], hi[i], handle.move(move) if move >= 0 else None, sides[i]))


class _LazyTable:
    """Fills a solved table's ``values`` and ``best`` (and ``plies``, when lazy) from C when any is first read.

    An exact solve's table can hold millions of entries; most callers only want the root's value.
    Writes made before the fill (the root's own entry) win over the filled ones.
    """

    def __init__(self, fill: Callable[[], SolvedTable]) -> None:
        self.fill = fill
        self.dicts: list[_LazyDict] = []

    def run(self) -> None:
        if self.fill is None:
            return
        fill, self.fill = self.fill, None  # type: ignore[assignment]
        source = fill()
        sources: tuple[dict[Hashable, Any], ...] = (source.values, source.best, source.plies)[:len(self.dicts)]
        for target, values in zip(self.dicts, sources, strict=True):
            for key, value in values.items():
                if not dict.__contains__(target, key):
                    dict.__setitem__(target, key, value)
            target.filled = True


class _LazyDict(dict):
    """A dict that asks its :class:`_LazyTable` to fill it before the first read."""

    def __init__(self, lazy: _LazyTable) -> None:
        super().__init__()
        self.lazy = lazy
        self.filled = False
        lazy.dicts.append(self)

    def _ready(self) -> None:
        if not self.filled:
            self.lazy.run()


def _reader(name: str) -> Callable[..., Any]:
    method = getattr(dict, name)

    def read(self: _LazyDict, *args: Any, **kwargs: Any) -> Any:
        self._ready()
        return method(self, *args, **kwargs)

    read.__name__ = name
    return read


for _name in ("__getitem__", "__contains__", "__iter__", "__len__", "__eq__", "__repr__", "get", "items", "keys",
              "values", "copy", "__reversed__"):
    setattr(_LazyDict, _name, _reader(_name))


_MISSING = object()


class _LookupDict(_LazyDict):
    """A :class:`_LazyDict` that answers one key (``get``, ``[]``, ``in``) by ``lookup(key)`` without being filled:
    the root moves' distances of a graph of millions of states are read without converting all of it. ``lookup``
    gives the value or None when the key is absent, and raises LookupError when it cannot tell (then: filled)."""

    def __init__(self, lazy: _LazyTable, lookup: Callable[[Hashable], Any]) -> None:
        super().__init__(lazy)
        self.lookup = lookup

    def get(self, key: Hashable, default: Any = None) -> Any:
        if not self.filled and not dict.__contains__(self, key):
            try:
                found = self.lookup(key)
            except LookupError:
                self._ready()
            else:
                return default if found is None else found
        return dict.get(self, key, default)

    def __getitem__(self, key: Hashable) -> Any:
        found = self.get(key, _MISSING)
        if found is _MISSING:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return self.get(key, _MISSING) is not _MISSING


def lazy_table(table: SolvedTable, fill: Callable[[], SolvedTable],
               plies: Callable[[Hashable], float | None] | None = None) -> SolvedTable:
    """``table`` (empty) with ``values`` and ``best`` filled by ``fill()`` when first read; given ``plies`` (one
    state's distance to the end, :class:`_LookupDict`'s ``lookup``), ``plies`` too, answering single keys by it."""
    lazy = _LazyTable(fill)
    table.values = _LazyDict(lazy)
    table.best = _LazyDict(lazy)
    if plies is not None:
        table.plies = _LookupDict(lazy, plies)
    return table
