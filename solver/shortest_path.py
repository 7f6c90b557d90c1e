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
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from solver.game import CHANCE, TERMINAL, Game, State, dead_end


@dataclass(frozen=True)
class PuzzleSolution:
    """The result of a puzzle search."""

    solved: bool
    """A goal was reached (False: none is reachable, or the budget ran out first)."""
    moves: tuple[Any, ...]
    """The shortest move sequence from the start to a goal (empty when not solved)."""
    value: float | None
    """The utility of the goal reached."""
    nodes: int
    """States expanded."""
    seconds: float
    complete: bool
    """The search ran to its end (False when stopped by a budget)."""
    algorithm: str


class PuzzleError(ValueError):
    """The game is not a deterministic one-player game."""


def check_puzzle(game: Game) -> None:
    if len(game.players) != 1:
        raise PuzzleError(f"{game.name} has {len(game.players)} players; puzzle search needs exactly one")
    if game.has_chance:
        raise PuzzleError(f"{game.name} has chance nodes; use expectimax or value iteration instead")


def solve_puzzle(
    game: Game,
    state: State | None = None,
    *,
    use_heuristic: bool = True,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    progress: Callable[[int], None] | None = None,
) -> PuzzleSolution:
    """The shortest solution from ``state`` (A* when the game has a heuristic, else BFS).

    :raises PuzzleError: the game has more than one player or has chance nodes.
    """
    check_puzzle(game)
    start = game.initial_state() if state is None else state
    target = _target_utility(game)
    heuristic = game.heuristic(start) if use_heuristic else None
    if heuristic is not None and target is not None:
        return _astar(game, start, target, max_nodes, max_seconds, progress)
    return _bfs(game, start, target, max_nodes, max_seconds, progress)


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


def _budget_hit(nodes: int, started: float, max_nodes: int | None, max_seconds: float | None) -> bool:
    if max_nodes is not None and nodes >= max_nodes:
        return True
    return max_seconds is not None and nodes % 1024 == 0 and time.perf_counter() - started >= max_seconds


def _bfs(game: Game, start: State, target: float | None, max_nodes: int | None, max_seconds: float | None,
         progress: Callable[[int], None] | None) -> PuzzleSolution:
    """Breadth-first search; with no known target, the best terminal of the whole reachable space."""
    started = time.perf_counter()
    key = game.key
    parents: dict[Hashable, tuple[Hashable, Any] | None] = {key(start): None}
    frontier: deque[State] = deque([start])
    best: tuple[float, Hashable] | None = None
    nodes = 0
    while frontier:
        if _budget_hit(nodes, started, max_nodes, max_seconds):
            return _result(parents, best, nodes, started, complete=False, algorithm="bfs")
        state = frontier.popleft()
        nodes += 1
        if progress is not None and nodes % 4096 == 0:
            progress(nodes)
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
    return _result(parents, best, nodes, started, complete=True, algorithm="bfs")


def _astar(game: Game, start: State, target: float, max_nodes: int | None, max_seconds: float | None,
           progress: Callable[[int], None] | None) -> PuzzleSolution:
    """A* with ``h = -heuristic``; states are closed when first expanded (consistent estimates)."""
    started = time.perf_counter()
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
    nodes = 0
    while frontier:
        if _budget_hit(nodes, started, max_nodes, max_seconds):
            return _result(parents, best, nodes, started, complete=False, algorithm="astar")
        _, _, g, state = heapq.heappop(frontier)
        here = key(state)
        if here in closed:
            continue
        closed.add(here)
        nodes += 1
        if progress is not None and nodes % 4096 == 0:
            progress(nodes)
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
    return _result(parents, best, nodes, started, complete=True, algorithm="astar")


def _result(parents: dict[Hashable, tuple[Hashable, Any] | None], best: tuple[float, Hashable] | None, nodes: int,
            started: float, complete: bool, algorithm: str) -> PuzzleSolution:
    seconds = time.perf_counter() - started
    if best is None:
        return PuzzleSolution(False, (), None, nodes, seconds, complete, algorithm)
    return PuzzleSolution(True, line_to(parents, best[1]), best[0], nodes, seconds, complete, algorithm)
