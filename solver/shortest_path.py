"""Shortest solutions of one-player puzzles: breadth-first search and A*.

A deterministic one-player game is a puzzle: its value is the best utility
the player can reach, and its solution the shortest move sequence that
reaches a terminal state with that utility.

* Breadth-first search (Moore 1959) visits states in order of depth, so the
  first goal it meets is at the least depth.
* A* (Hart, Nilsson & Raphael 1968) orders the frontier by ``g + h``, the
  moves made plus an estimate of the moves left. The estimate is read from the
  game's heuristic as ``h = -heuristic(state)[0]`` (a rule file writes
  ``heuristic p: -(estimated moves left)``); with an admissible estimate
  (never more than the true distance) the first goal taken off the frontier
  is at the least depth.

A goal is a terminal state whose utility is the best one the game can give
(``utility_bounds[1]`` when declared); without declared bounds, every
reachable state is visited first to learn the best reachable utility.
Both searches keep parents in a dict (no recursion, any depth).

Like every other algorithm, :func:`solve_puzzle` takes :class:`~solver.limits.Limits`
(``nodes`` and ``table_entries`` both cap the states expanded: about one kept per state
expanded, with its children; ``memory_bytes`` too, at a state's cost in Python or C; ``seconds``)
and returns a :class:`~solver.limits.SearchResult` (:class:`PuzzleSolution`, which also says
whether a goal was reached).
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from solver.auto import Algorithm
from solver.game import CHANCE, TERMINAL, Game, State, dead_end
from solver.limits import (
    BIG_STATE,
    PYTHON_ENTRY_BYTES,
    Limits,
    SearchResult,
    SearchStats,
    StopReason,
    cells,
    entry_bytes,
)
from solver.native import handle_of


@dataclass(frozen=True)
class PuzzleSolution(SearchResult):
    """The result of a puzzle search: a :class:`SearchResult` whose line is the shortest solution.

    ``value`` is the utility of the goal reached (0 without one), ``principal_variation`` the
    shortest move sequence to it (empty when not solved), ``plies`` its length, ``exact`` true
    when a goal was reached or the search ran to its end (then there is no solution).
    """

    solved: bool = False
    """A goal was reached (False: none is reachable, or the budget ran out first)."""
    complete: bool = True
    """The search ran to its end (False when stopped by a budget)."""

    @property
    def moves(self) -> tuple[Any, ...]:
        """The shortest move sequence from the start to a goal (empty when not solved)."""
        return self.principal_variation

    @property
    def nodes(self) -> int:
        """States expanded."""
        return self.stats.nodes

    @property
    def seconds(self) -> float:
        return self.stats.seconds


class PuzzleError(ValueError):
    """The game is not a deterministic one-player game."""


def check_puzzle(game: Game) -> None:
    if len(game.players) != 1:
        raise PuzzleError(f"{game.name} has {len(game.players)} players; puzzle search needs exactly one")
    if game.has_chance:
        raise PuzzleError(f"{game.name} has chance nodes; use expectimax or value iteration instead")


Progress = Callable[[SearchStats], Any]


def solve_puzzle(
    game: Game,
    state: State | None = None,
    limits: Limits | None = None,
    *,
    use_heuristic: bool = True,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    progress: Progress | None = None,
) -> PuzzleSolution:
    """The shortest solution from ``state`` (A* when the game has a heuristic, else BFS) within ``limits``.

    ``max_nodes`` and ``max_seconds`` are shorthands for ``Limits(nodes=..., seconds=...)`` (the
    smaller cap wins). A search stopped by a budget or Ctrl-C returns with ``stopped`` and
    ``stop_reason`` set, and the best goal found so far, if any.

    :raises PuzzleError: the game has more than one player or has chance nodes.
    """
    check_puzzle(game)
    limits = limits or Limits()
    native = handle_of(game)
    table = limits.entries(_bytes_per_expansion(game, state if state is not None else game.initial_state(), native))
    caps = [c for c in (limits.nodes, table, max_nodes) if c is not None]
    seconds = [c for c in (limits.seconds, max_seconds) if c is not None]
    budget = PuzzleBudget(min(caps) if caps else None, min(seconds) if seconds else None, progress)
    start = game.initial_state() if state is None else state
    target = _target_utility(game)
    heuristic = game.heuristic(start) if use_heuristic else None
    astar = heuristic is not None and target is not None
    algorithm = Algorithm.ASTAR if astar else Algorithm.BFS
    if native is not None:  # the same search, its loop in C (solver/native/puzzle.c)
        from solver.native.puzzle import native_puzzle_search

        utility, line = native_puzzle_search(game, native, start, astar, target, budget, PuzzleError)
        return _answer(utility, line, budget, limits, algorithm, table)
    try:
        if astar:
            assert target is not None
            found = _astar(game, start, target, budget)
        else:
            found = _bfs(game, start, target, budget)
    except KeyboardInterrupt:
        budget.stop = StopReason.INTERRUPT
        found = None
    best = None if found is None else found[1]
    moves = () if found is None or best is None else line_to(found[0], best[1])
    return _answer(None if best is None else best[0], moves, budget, limits, algorithm, table)


def _bytes_per_expansion(game: Game, state: State, native: Any) -> int:
    """The memory one expanded state costs (``--memory`` caps the expansions by it): the state and the children it
    adds to the frontier (as many as ``state`` has moves), each at a table entry's size, in Python
    (:func:`solver.limits.entry_bytes`) or in C's graph (which counts its edges too)."""
    one = (entry_bytes(PYTHON_ENTRY_BYTES, state) if native is None
           else int(native.lib.gdl_gr_state_bytes(0, 0)))
    try:
        width = len(game.legal_moves(state)) if game.to_move(state) >= 0 else 0
    except Exception:  # (the search reports the rules' error where it meets it)
        width = 0
    return one * (1 + width) if cells(state) > BIG_STATE else one  # (small states: as measured, children included)


class PuzzleBudget:
    """The caps of one puzzle search, its counters, and why it stopped (None: it ran to its end)."""

    def __init__(self, nodes: int | None, seconds: float | None, progress: Progress | None) -> None:
        self.max_nodes, self.max_seconds, self.progress = nodes, seconds, progress
        self.started = time.perf_counter()
        self.nodes = 0
        self.stop: StopReason | None = None

    def spent(self) -> bool:
        """Whether a cap is reached (the clock is read at every state: one may cost milliseconds); sets ``stop``."""
        if self.max_nodes is not None and self.nodes >= self.max_nodes:
            self.stop = StopReason.NODES
        elif self.max_seconds is not None and time.perf_counter() - self.started >= self.max_seconds:
            self.stop = StopReason.TIME
        return self.stop is not None

    def count(self) -> None:
        self.nodes += 1
        if self.progress is not None and self.nodes % 4096 == 0:
            self.progress(SearchStats(nodes=self.nodes, seconds=time.perf_counter() - self.started))


Found = tuple[dict[Hashable, tuple[Hashable, Any] | None], tuple[float, Hashable] | None]
"""What a search found: its parent links, and the best goal (utility, key) reached, if any."""


def _target_utility(game: Game) -> float | None:
    bounds = game.utility_bounds
    return None if bounds is None else bounds[1]


def line_to(parents: dict[Hashable, tuple[Hashable, Any] | None], key: Hashable) -> tuple[Any, ...]:
    """The moves from the root of a breadth-first search to ``key``, from its ``{child: (parent, move)}`` links."""
    moves = []
    step = parents[key]
    while step is not None:
        key, move = step
        moves.append(move)
        step = parents[key]
    return tuple(reversed(moves))


def _moves(game: Game, state: State, player: int, parents: dict[Hashable, tuple[Hashable, Any] | None],
           here: Hashable) -> Any:
    """The legal moves of ``state``; none, when the puzzle is not over, is a dead end (a bug in its rules).

    :raises DeadEndError: with the moves that reach it (from the search's parents).
    """
    moves = game.legal_moves(state)
    if not moves:
        error = dead_end(game, state, player)
        for move in reversed(line_to(parents, here)):
            error.prepend(move)
        raise error
    return moves


def _bfs(game: Game, start: State, target: float | None, budget: PuzzleBudget) -> Found:
    """Breadth-first search; with no known target, the best terminal of the whole reachable space."""
    key = game.key
    parents: dict[Hashable, tuple[Hashable, Any] | None] = {key(start): None}
    frontier: deque[State] = deque([start])
    best: tuple[float, Hashable] | None = None
    while frontier:
        if budget.spent():
            return parents, best
        state = frontier.popleft()
        budget.count()
        player = game.to_move(state)
        if player == TERMINAL:
            utility = game.utilities(state)[0]
            if best is None or utility > best[0]:
                best = (utility, key(state))
            if target is not None and utility >= target:
                break
            continue
        if player == CHANCE:
            raise PuzzleError("a chance node in a puzzle")
        here = key(state)
        for move in _moves(game, state, player, parents, here):
            child = game.apply(state, move)
            child_key = key(child)
            if child_key not in parents:
                parents[child_key] = (here, move)
                frontier.append(child)
    return parents, best


def _astar(game: Game, start: State, target: float, budget: PuzzleBudget) -> Found:
    """A* with ``h = -heuristic``; states are closed when first expanded (consistent estimates)."""
    key = game.key

    def estimate(state: State) -> float:
        values = game.heuristic(state)
        return max(0.0, -values[0]) if values else 0.0

    tie = itertools.count()  # FIFO among equal f, and states are never compared
    start_key = key(start)
    parents: dict[Hashable, tuple[Hashable, Any] | None] = {start_key: None}
    depth: dict[Hashable, int] = {start_key: 0}
    frontier: list[tuple[float, int, int, State]] = [(estimate(start), next(tie), 0, start)]
    closed: set[Hashable] = set()
    best: tuple[float, Hashable] | None = None
    while frontier:
        if budget.spent():
            return parents, best
        _, _, g, state = heapq.heappop(frontier)
        here = key(state)
        if here in closed:
            continue
        closed.add(here)
        budget.count()
        player = game.to_move(state)
        if player == TERMINAL:
            utility = game.utilities(state)[0]
            if best is None or utility > best[0]:
                best = (utility, here)
            if utility >= target:
                break
            continue
        for move in _moves(game, state, player, parents, here):
            child = game.apply(state, move)
            child_key = key(child)
            if child_key in closed or depth.get(child_key, g + 2) <= g + 1:
                continue
            depth[child_key] = g + 1
            parents[child_key] = (here, move)
            heapq.heappush(frontier, (g + 1 + estimate(child), next(tie), g + 1, child))
    return parents, best


def _answer(best: float | None, moves: tuple[Any, ...], budget: PuzzleBudget, limits: Limits,
            algorithm: Algorithm, table: int | None) -> PuzzleSolution:
    """The search's answer as a :class:`SearchResult`, with a note when it found no solution: ``best``, the
    utility of the best terminal reached (None: none), ``moves``, the line to it, and ``table`` the table's cap."""
    solved = best is not None
    complete = budget.stop is None
    stopped = not complete and not solved
    reason = budget.stop if stopped else None
    if reason == StopReason.NODES and budget.max_nodes != limits.nodes and budget.max_nodes == table:
        reason = StopReason.TABLE  # the table cap was the smaller
    note = None
    if complete and not solved:
        note = f"no solution ({budget.nodes:,} states explored)"
    elif stopped:
        note = "no solution found before the search stopped"
    stats = SearchStats(nodes=budget.nodes, seconds=time.perf_counter() - budget.started, depth=len(moves))
    value = (float(best),) if best is not None else (0.0,)
    return PuzzleSolution(value, moves[:1], moves, solved or complete, stats, algorithm, stopped, reason, note=note,
                          plies=float(len(moves)) if solved else None, solved=solved, complete=complete)


__all__ = ["PuzzleError", "PuzzleSolution", "check_puzzle", "line_to", "solve_puzzle"]
