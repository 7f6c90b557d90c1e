"""Budgets, statistics and results shared by every search.

One budget object (:class:`Limits`, like python-chess's ``engine.Limit``),
one statistics record (:class:`SearchStats`) and one frozen result
(:class:`SearchResult`) for every algorithm, so that the CLI and the
benchmarks read them all the same way.

Cooperative stop: a search counts its nodes in a :class:`Budget`. When the
count reaches ``Budget.next_check`` it calls :meth:`Budget.check`, which reads
the clock, calls the ``progress`` callback and raises :class:`SearchStopped` when
a budget is spent. The nodes between two checks follow the cost of a node (one
node of a state of thousands of cells can cost milliseconds): about
``CHECK_SECONDS`` of work, at most ``Budget.CHECK_EVERY`` nodes. A search that
does much work inside one node (making thousands of children) calls
:meth:`Budget.poll` as it goes. Public entry points catch that exception, and also
:class:`KeyboardInterrupt` (Ctrl-C), and return the best result found so far
with ``stopped=True`` and a ``stop_reason``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

UNLIMITED_DEPTH = 1 << 30
"""A depth that stands for "search to the end of the game"."""

PYTHON_ENTRY_BYTES = 500
"""Memory one entry of a Python search's tables costs (:meth:`Limits.entries`): the transposition table's key
tuple, entry tuple and dict slots, with the solved table's entry beside it, for a state of up to
:data:`MEASURED_CELLS` cells; a longer key costs 8 bytes a cell more (:func:`entry_bytes`). The state graph's
states cost more (:data:`solver.graph.STATE_BYTES`)."""

MEASURED_CELLS = 24
"""The cells of the states the fixed entry sizes hold (:data:`PYTHON_ENTRY_BYTES`, :data:`solver.graph.STATE_BYTES`;
bench/RESULTS.md has the measurements): a state of thousands of cells costs kilobytes an entry, counted by
:func:`entry_bytes`."""

CHECK_SECONDS = 0.01
"""A search looks at the clock about this often (:class:`Budget`): the nodes between two looks follow the cost of a
node, so a state of thousands of cells is checked after a few nodes and a small one after ``Budget.CHECK_EVERY``."""

COSTLY_NODE = 1 << 15
"""A node whose children times its state's cells exceed this is costly to expand (:func:`costly`): the search
polls the clock for each child it makes (:meth:`Budget.poll`), as one such node can outlast a ``--time``."""

BIG_STATE = 256
"""A state of more cells than this is big: a depth-first search keeps the moves of a node's children, not the
children themselves, and makes each again when it searches it (their copies along a path hundreds of plies deep
would outgrow ``--memory``, which counts the tables)."""

TIE_TOLERANCE = 1e-9
"""Values closer than this (relative to their size when above 1) are equal: the one tie tolerance of every
algorithm (the best moves of a state, MTD(f)'s null windows, match outcomes, the distance to the end)."""


class StopReason(str, Enum):
    """Why a search stopped before it finished (``SearchResult.stop_reason``, ``SearchStopped.reason``).

    A ``str`` subclass: members compare equal to, print and serialise as their names (``"time"``).
    """

    TIME = "time"
    NODES = "nodes"
    ITERATIONS = "iterations"
    TABLE = "table"
    """A transposition table or solved table reached ``Limits.table_entries`` (or ``Limits.memory_bytes``)."""
    INTERRUPT = "interrupt"
    """Ctrl-C."""
    DEPTH = "depth"
    """The game is too deep for a recursive search (or iterative deepening reached its last depth)."""
    PLIES = "plies"
    """The walk for the distance to the end ran out of its time."""
    STOPPED = "stopped"
    """A search stopped without saying why."""

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:  # shown as the name it stands for, as results showed before there was an enum
        return repr(self.value)


@dataclass(frozen=True)
class Limits:
    """The budget of one search. ``None`` means no limit of that kind.

    >>> Limits(seconds=2.5, depth=6)  # doctest: +NORMALIZE_WHITESPACE
    Limits(seconds=2.5, nodes=None, depth=6, table_entries=None, iterations=None, quiescence=0, threads=1,
           memory_bytes=None)
    """

    seconds: float | None = None
    """Wall-clock time."""
    nodes: int | None = None
    """Nodes visited (states expanded or evaluated)."""
    depth: int | None = None
    """Plies searched from the root (decision plies; chance nodes do not count)."""
    table_entries: int | None = None
    """Memory cap: most entries a transposition table or solved table may hold (with ``memory_bytes``: the
    smaller, :meth:`entries`)."""
    iterations: int | None = None
    """MCTS iterations (simulations)."""
    quiescence: int = 0
    """Depth-limited alpha-beta and expectimax: at most this many plies past the horizon, searched from
    positions that are not quiet (:meth:`solver.game.Game.is_quiet`); 0: the heuristic at the horizon."""
    threads: int = 1
    """Cores a game with a C back end may use: the exact alpha-beta search (lazy SMP) and the exploration of the
    state graph (backward induction, value iteration, retrograde analysis); the others use one."""
    memory_bytes: int | None = None
    """Memory cap in bytes for a search's large table: each table turns it into entries by the size of its own
    entries (:meth:`entries`), so a C table of 32-byte entries holds more than a Python one."""

    def __post_init__(self) -> None:
        for name in ("seconds", "nodes", "depth", "table_entries", "iterations", "quiescence",
                     "memory_bytes"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"Limits.{name} must not be negative, got {value!r}")
        if self.depth == 0:
            raise ValueError("Limits.depth must be at least 1 (or None for no depth limit)")
        if self.threads < 1:
            raise ValueError(f"Limits.threads must be at least 1, got {self.threads!r}")

    def entries(self, entry_bytes: int) -> int | None:
        """The most entries a table whose entries cost ``entry_bytes`` each may hold: ``table_entries`` or
        ``memory_bytes // entry_bytes``, the smaller; None when neither is set.

        >>> Limits(table_entries=1000, memory_bytes=64_000).entries(400)
        160
        """
        caps = [cap for cap in (self.table_entries,
                                None if self.memory_bytes is None else self.memory_bytes // entry_bytes)
                if cap is not None]
        return min(caps) if caps else None


NO_LIMITS = Limits()


@dataclass(frozen=True)
class SearchStats:
    """What a search did."""

    nodes: int = 0
    """States visited (expanded or evaluated)."""
    seconds: float = 0.0
    depth: int = 0
    """Deepest completed iteration (iterative deepening) or the depth searched."""
    tt_hits: int = 0
    """Transposition-table look-ups that answered without a search."""
    tt_size: int = 0
    """Entries in the transposition table (or states in a solved table)."""
    iterations: int = 0
    """MCTS simulations, or value-iteration sweeps."""

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class ChildStats:
    """Statistics of one root move (MCTS visit counts and mean returns)."""

    move: Hashable
    visits: int
    value: tuple[float, ...]
    """Mean return per player (the proven value when ``proven``)."""
    proven: bool = False


@dataclass(frozen=True)
class SearchResult:
    """The answer of any search: values, moves and statistics."""

    value: tuple[float, ...]
    """One value per player for the root state (exact, or an estimate)."""
    best_moves: tuple[Hashable, ...]
    """Moves achieving ``value`` (the first is the one an agent plays); empty at a terminal state."""
    principal_variation: tuple[Hashable, ...]
    """The expected line of play from the root (may be shorter than the game)."""
    exact: bool
    """True when ``value`` is the game-theoretic value (no horizon, no budget cut)."""
    stats: SearchStats
    algorithm: str
    stopped: bool = False
    """A budget ran out or the user interrupted: this is the best result so far."""
    stop_reason: str | None = None
    """A :class:`StopReason` (``"time"``, ``"nodes"``, ``"iterations"``, ``"table"``, ``"interrupt"``, ...) or None."""
    children: tuple[ChildStats, ...] = ()
    """Per-move statistics of the root (MCTS)."""
    bounds: tuple[float, float] | None = None
    """A stopped exact solve of a two-player zero-sum game: the proven interval of player 0's value
    (``value`` then lies in it; equal ends when the value is proven but the moves were not all checked)."""
    note: str | None = None
    """One line about how far to trust a stopped result (``"value between -1 and 1 (not proven); best move
    so far: drop(2)"``, ``"heuristic guess: depth-5 alpha-beta"``), or None."""
    plies: float | None = None
    """Distance to the end (:mod:`solver.remoteness`): plies the game lasts from the root under optimal play,
    the winner hurrying and the loser holding out (expected plies with chance; ``inf`` for endless play);
    None when not computed."""

    @property
    def best_move(self) -> Hashable | None:
        """The move to play, or None at a terminal state."""
        return self.best_moves[0] if self.best_moves else None


class SearchStopped(Exception):
    """Raised inside a search when its budget is spent; public entry points catch it."""

    def __init__(self, reason: StopReason | str) -> None:
        super().__init__(str(reason))
        self.reason = StopReason(reason)
        self.partial: Any = None
        """What the interrupted computation had so far, when it can tell (value iteration: its
        ``(values, best)`` at the stop); the exact solver reports it as an estimate."""


@dataclass
class Budget:
    """The mutable counters of one running search.

    Hot loops keep their own node counter in a local variable and call
    :meth:`check` only when it reaches ``next_check``; that keeps the
    per-node cost at one integer comparison. Under a time limit the distance
    to the next check adapts to the cost of a node: it starts at one node and
    grows (at most doubling) while a check comes sooner than ``CHECK_SECONDS``,
    up to ``CHECK_EVERY``, and shrinks at once when a node costs more. Without
    one it is ``CHECK_EVERY``. Either way a check falls exactly on every
    ``progress_every``-th node and on the node limit, so what a search reports
    (progress, a stop by nodes, an interrupt from the progress callback) does not
    depend on the machine's speed.
    """

    limits: Limits = NO_LIMITS
    progress: Callable[[SearchStats], Any] | None = None
    progress_every: int = 10_000
    CHECK_EVERY: int = 1024
    nodes: int = 0
    tt_hits: int = 0
    tt_size: int = 0
    depth: int = 0
    iterations: int = 0
    started: float = field(default_factory=time.perf_counter)
    next_check: int = 0
    _next_progress: int = 0

    def __post_init__(self) -> None:
        seconds = self.limits.seconds
        self._deadline = None if seconds is None else self.started + seconds
        self._next_progress = self.progress_every
        self._step = 1 if self._deadline is not None else self.CHECK_EVERY
        self._last = (0, self.started)  # nodes and clock at the last check
        self.next_check = self._following(0)

    def _following(self, nodes: int) -> int:
        step = nodes + self._step
        if self.limits.nodes is not None:
            step = min(step, self.limits.nodes)
        if self.progress is not None:
            step = min(step, max(self._next_progress, nodes + 1))
        return step

    def _adapt(self, nodes: int, now: float) -> None:
        """Size the next step so that it lasts about ``CHECK_SECONDS`` at the cost per node seen since the last."""
        done, then = self._last
        self._last = (nodes, now)
        if nodes <= done or self._deadline is None:
            return
        spent = now - then
        if spent >= CHECK_SECONDS:
            self._step = max(1, int(self._step * CHECK_SECONDS / spent))
        elif spent < CHECK_SECONDS / 2:
            self._step = min(self.CHECK_EVERY, self._step * 2)

    def check(self, nodes: int) -> int:
        """Record ``nodes``; raise :class:`SearchStopped` if a budget is spent; return the next check point."""
        self.nodes = nodes
        if self.limits.nodes is not None and nodes >= self.limits.nodes:
            raise SearchStopped(StopReason.NODES)
        now = time.perf_counter()
        if self._deadline is not None and now >= self._deadline:
            raise SearchStopped(StopReason.TIME)
        self._adapt(nodes, now)
        if self.progress is not None and nodes >= self._next_progress:
            self._next_progress = nodes + self.progress_every
            self.progress(self.stats())
        self.next_check = self._following(nodes)
        return self.next_check

    def poll(self) -> None:
        """Inside one costly node (a state with thousands of children, each a copy of thousands of cells):
        raise :class:`SearchStopped` when the time is up. Cheap enough to call for each child made."""
        if self._deadline is not None and time.perf_counter() >= self._deadline:
            raise SearchStopped(StopReason.TIME)

    def time_left(self) -> bool:
        return self._deadline is None or time.perf_counter() < self._deadline

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.started

    def stats(self) -> SearchStats:
        return SearchStats(nodes=self.nodes, seconds=self.seconds, depth=self.depth, tt_hits=self.tt_hits,
                           tt_size=self.tt_size, iterations=self.iterations)


def cells(state: Any) -> int:
    """The size of a state (its cells, for a tuple of them; 1 for a state without a length)."""
    try:
        return len(state)
    except TypeError:
        return 1


def entry_bytes(base: int, state: Any, copies: int = 1) -> int:
    """The memory of one table entry that holds ``copies`` tuples as long as ``state`` (its key; a state graph keeps
    the state beside it): ``base`` as measured on states of :data:`MEASURED_CELLS` cells, and a pointer (8 bytes)
    for each cell past them. ``--memory`` caps the entries by this, so a state of 10,000 cells counts 80 KB."""
    return base + 8 * copies * max(0, cells(state) - MEASURED_CELLS)


def big(state: Any) -> bool:
    """Whether ``state`` is too big to keep a copy of each child along a search's path (:data:`BIG_STATE`)."""
    return cells(state) > BIG_STATE


def costly(state: Any, width: int) -> bool:
    """Whether making the ``width`` children of ``state`` is work enough to poll the clock for each
    (:data:`COSTLY_NODE`)."""
    return width * cells(state) > COSTLY_NODE


def iterative_deepening(search: Callable[[Limits], SearchResult], limits: Limits, *,
                        max_depth: int = 200) -> SearchResult:
    """A depth-limited ``search`` run at depths 1, 2, ... within one budget; the deepest completed result.

    Each run gets what is left of ``limits.seconds`` and ``limits.nodes`` (and the
    same ``table_entries`` and ``memory_bytes``). Deepening ends when a run is exact (it met no horizon),
    when a run is stopped by the budget or Ctrl-C (its partial result is dropped
    unless no depth completed), at ``max_depth``, or when a run recurses too deep
    for Python (``RecursionError``). The result is the deepest completed run with
    the total nodes and time, and ``stopped``/``stop_reason`` (``"time"``,
    ``"nodes"``, ``"interrupt"``, ``"depth"``) unless it is exact. Without
    ``seconds`` or ``nodes`` only exactness or ``max_depth`` ends it.
    """
    started = time.perf_counter()
    done: SearchResult | None = None
    partial: SearchResult | None = None
    nodes = done_depth = 0
    reason: str | None = StopReason.DEPTH
    for depth in range(1, max_depth + 1):
        seconds = None if limits.seconds is None else limits.seconds - (time.perf_counter() - started)
        left = None if limits.nodes is None else limits.nodes - nodes
        if seconds is not None and seconds <= 0:
            reason = StopReason.TIME
            break
        if left is not None and left <= 0:
            reason = StopReason.NODES
            break
        try:
            result = search(replace(limits, seconds=seconds, nodes=left, depth=depth))
        except RecursionError:
            break  # reason "depth": deeper searches cannot run
        nodes += result.stats.nodes
        if result.stopped:
            reason, partial = result.stop_reason or StopReason.STOPPED, result
            break
        done, done_depth = result, depth
        if result.exact:
            reason = None
            break
    chosen = done if done is not None else partial
    if chosen is None:
        raise RecursionError("even a depth-1 search recursed too deep")
    stats = SearchStats(nodes=nodes, seconds=time.perf_counter() - started, depth=done_depth,
                        tt_hits=chosen.stats.tt_hits, tt_size=chosen.stats.tt_size,
                        iterations=chosen.stats.iterations)
    stopped = reason is not None and not chosen.exact
    return replace(chosen, stats=stats, stopped=stopped, stop_reason=reason if stopped else None)
