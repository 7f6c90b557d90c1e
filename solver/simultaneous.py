"""Exact solving of games with simultaneous nodes (:mod:`solver.simgame`).

Backward induction over the reachable states (depth first, iterative, memoised by
``game.key``), with

* **turn nodes**: the mover's best child (first in move order on ties; max^n);
* **chance nodes**: the expectation over the outcomes;
* **simultaneous nodes**: the one-shot matrix game of the children's values.
  In a two-player zero-sum game it is solved by linear programming
  (:func:`solver.matrix_game.solve_zero_sum`): the node's value is the game value
  and each player's strategy there is a maximin mixed strategy -- the
  backward-induction solution of a perfect-information simultaneous-move game
  (the values are unique, the strategies need not be). When only two players
  have a choice in a general-sum game, one Nash equilibrium of that bimatrix game
  (:func:`solver.matrix_game.mixed_equilibrium`) is taken: a subgame-perfect
  equilibrium, one of possibly several (said so in ``note``). A player with one
  legal move has no choice; three or more players with a choice at one node are
  not supported (ValueError).

``limits`` bound time, nodes (states expanded), ``table_entries`` and ``memory_bytes``
(states kept) and ``depth`` (decision plies: a simultaneous node counts one; past it the game's
heuristic, or 0, estimates the state and the result is not exact). A stopped
solve (budget or Ctrl-C) returns ``stopped=True`` without a root value.

Games with cycles (a state that can recur) need value iteration (Shapley 1953's
stochastic games); that is not done yet: the solver raises ValueError on meeting
a cycle.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from solver.game import CHANCE, SIMULTANEOUS, TERMINAL, Game, State
from solver.limits import (
    PYTHON_ENTRY_BYTES,
    TIE_TOLERANCE,
    Budget,
    Limits,
    SearchResult,
    SearchStats,
    SearchStopped,
    StopReason,
)
from solver.matrix_game import mixed_equilibrium, solve_zero_sum

ALGORITHM = "simultaneous"
"""Turn nodes: moves within this of the best value are all listed in ``best_moves``."""

Strategy = tuple[tuple[Hashable, float], ...]
"""A mixed strategy at one node: ``(move, probability)`` for each legal move, in move order."""


@dataclass(frozen=True)
class NodeSolution:
    """The solved value of one state, and each player's strategy there."""

    value: tuple[float, ...]
    strategies: tuple[Strategy, ...] = ()
    """One per player at a decision node (empty for a player who does not move); empty elsewhere."""
    equilibrium_choice: bool = False
    """True when the node is a general-sum matrix game: this is one equilibrium of possibly several."""


@dataclass(frozen=True)
class SimultaneousSolution(SearchResult):
    """A :class:`SearchResult` with every player's strategy at the root and the table of solved states.

    At a simultaneous root ``best_moves`` and ``principal_variation`` are empty: the
    answer is the mixed strategies (an agent samples its move from its own).
    """

    strategies: tuple[Mapping[Hashable, float], ...] = ()
    """Per player: ``{move: probability}`` at the root (all legal moves; empty for a player who does not move)."""
    table: Mapping[Hashable, NodeSolution] = field(default_factory=dict)
    """Every solved state by ``game.key`` (by ``(key, plies left)`` under a depth limit)."""


@dataclass
class _Node:
    """A state being solved: its children, waiting on the stack until they are all solved."""

    state: State
    key: Hashable
    depth: int
    kind: int
    moves: tuple[Sequence[Hashable], ...] = ()
    """Turn node: (moves,); simultaneous node: each player's moves."""
    children: tuple[tuple[Hashable, float, Hashable], ...] = ()
    """(move or joint move or outcome, probability, child key)."""


def solve_simultaneous(
    game: Game,
    state: State | None = None,
    limits: Limits | None = None,
    *,
    progress: Callable[[SearchStats], Any] | None = None,
) -> SimultaneousSolution:
    """Solve ``state`` (default: the initial state) by backward induction with an LP at simultaneous nodes.

    :raises ValueError: a game without players, a cycle, or three or more players
        choosing at one simultaneous node.
    """
    if not game.players:
        raise ValueError(f"the simultaneous-move solver needs a game with at least one player; {game.name} has none")
    limits = limits or Limits()
    root = game.initial_state() if state is None else state
    budget = Budget(limits, progress)
    search = _Search(game, budget, limits)
    try:
        root_key = search.solve(root)
    except SearchStopped as stop:
        return search.stopped(stop.reason)
    except KeyboardInterrupt:
        return search.stopped(StopReason.INTERRUPT)
    return search.result(root, root_key)


class _Search:
    def __init__(self, game: Game, budget: Budget, limits: Limits) -> None:
        self.game = game
        self.budget = budget
        self.limits = limits
        self.table: dict[Hashable, NodeSolution] = {}
        self.horizon_met = False
        self.equilibrium_choice = False
        self.zero_sum = len(game.players) == 2 and bool(game.zero_sum)
        self.nodes = 0
        self.keep_raw_states = bool(game.symmetries)  # merged mirror images would mix up moves

    def key(self, state: State, depth: int) -> Hashable:
        key = state if self.keep_raw_states else self.game.key(state)
        return key if self.limits.depth is None else (key, self.limits.depth - depth)

    def solve(self, root: State) -> Hashable:
        """Depth-first, post-order: a node is evaluated when all its children are in the table."""
        root_key = self.key(root, 0)
        stack: list[tuple[State, Hashable, int] | _Node] = [(root, root_key, 0)]
        on_path: set[Hashable] = set()
        while stack:
            item = stack.pop()
            if isinstance(item, _Node):
                on_path.discard(item.key)
                self.store(item.key, self.evaluate(item))
                continue
            state, key, depth = item
            if key in self.table:
                self.budget.tt_hits += 1
                continue
            if key in on_path:
                raise ValueError(f"{self.game.name} has cycles: backward induction cannot solve it "
                                 "(value iteration for cyclic simultaneous-move games is not implemented)")
            self.nodes += 1
            if self.nodes >= self.budget.next_check:
                self.budget.check(self.nodes)
            expanded = self.expand(state, key, depth)
            if expanded is None:
                continue
            node, children = expanded
            on_path.add(key)
            stack.append(node)
            child_depth = depth + (node.kind != CHANCE)
            stack.extend((child, child_key, child_depth) for child, child_key in reversed(children)
                         if child_key not in self.table)
        return root_key

    def store(self, key: Hashable, solution: NodeSolution) -> None:
        """Keep a solved state; a full table (``limits.table_entries``, or ``memory_bytes`` at
        :data:`~solver.limits.PYTHON_ENTRY_BYTES` an entry) stops the solve."""
        cap = self.limits.entries(PYTHON_ENTRY_BYTES)
        if cap is not None and len(self.table) >= cap:
            raise SearchStopped(StopReason.TABLE)
        self.table[key] = solution

    def expand(self, state: State, key: Hashable, depth: int) -> tuple[_Node, list[tuple[State, Hashable]]] | None:
        """Solve a leaf at once (terminal, horizon) and return None; else the node and its child states."""
        game = self.game
        kind = game.to_move(state)
        if kind == TERMINAL:
            self.store(key, NodeSolution(tuple(float(u) for u in game.utilities(state))))
            return None
        if self.limits.depth is not None and depth >= self.limits.depth and kind != CHANCE:
            self.horizon_met = True
            estimate = game.heuristic(state)
            value = (0.0,) * len(game.players) if estimate is None else tuple(float(v) for v in estimate)
            self.store(key, NodeSolution(value))
            return None
        node = _Node(state, key, depth, kind)
        return node, self.successors(node)

    def successors(self, node: _Node) -> list[tuple[State, Hashable]]:
        """Fill ``node.moves`` and ``node.children``; return the child states with their keys."""
        game, state = self.game, node.state
        child_depth = node.depth + (node.kind != CHANCE)
        labelled: list[tuple[Hashable, float, State]]
        if node.kind == CHANCE:
            labelled = [(outcome, float(p), game.apply(state, outcome)) for outcome, p in game.chance_outcomes(state)]
        elif node.kind == SIMULTANEOUS:
            node.moves = tuple(tuple(game.legal_moves(state, p)) for p in range(len(game.players)))  # type: ignore[call-arg]
            for player, moves in enumerate(node.moves):
                if not moves:
                    raise ValueError(f"{game.name}: {game.players[player]} has no legal move at a simultaneous move")
            labelled = [(joint, 1.0, game.apply_joint(state, joint))  # type: ignore[attr-defined]
                        for joint in itertools.product(*node.moves)]  # the order of simgame.joint_moves
        else:
            moves = tuple(game.legal_moves(state))
            if not moves:
                raise ValueError(f"{game.name}: {game.players[node.kind]} is to move but has no legal move")
            node.moves = (moves,)
            labelled = [(move, 1.0, game.apply(state, move)) for move in moves]
        keyed = [(label, p, child, self.key(child, child_depth)) for label, p, child in labelled]
        node.children = tuple((label, p, key) for label, p, _, key in keyed)
        return [(child, key) for _, _, child, key in keyed]

    # -------------------------------------------------------------- evaluation

    def evaluate(self, node: _Node) -> NodeSolution:
        values = [self.table[key].value for _, _, key in node.children]
        if node.kind == CHANCE:
            size = len(self.game.players)
            return NodeSolution(tuple(sum(p * v[i] for (_, p, _), v in zip(node.children, values, strict=True))
                                      for i in range(size)))
        if node.kind == SIMULTANEOUS:
            return self.matrix_node(node, values)
        return self.turn_node(node.kind, node.moves[0], values)

    def turn_node(self, player: int, moves: Sequence[Hashable], values: Sequence[tuple[float, ...]]) -> NodeSolution:
        best = max(range(len(moves)), key=lambda i: (values[i][player], -i))  # first best in move order
        strategies: list[Strategy] = [() for _ in self.game.players]
        strategies[player] = tuple((move, 1.0 if i == best else 0.0) for i, move in enumerate(moves))
        return NodeSolution(values[best], tuple(strategies))

    def matrix_node(self, node: _Node, values: Sequence[tuple[float, ...]]) -> NodeSolution:
        """The matrix game of a simultaneous node; ``values`` are the joint moves' values, player 0 slowest."""
        moves = node.moves
        deciders = [p for p, own in enumerate(moves) if len(own) > 1]
        strategies: list[Strategy] = [((own[0], 1.0),) for own in moves]
        if not deciders:
            return NodeSolution(values[0], tuple(strategies))
        if len(deciders) == 1:  # one player chooses: a turn node in disguise
            (player,) = deciders
            solved = self.turn_node(player, moves[player], values)
            strategies[player] = solved.strategies[player]
            return NodeSolution(solved.value, tuple(strategies))
        if len(deciders) > 2:
            names = ", ".join(self.game.players[p] for p in deciders)
            raise ValueError(f"{self.game.name}: {names} choose at once; simultaneous nodes where more than two "
                             "players have a choice are not supported")
        row, col = deciders
        grid = self.grid(moves, values, row, col)
        if self.zero_sum:
            solution = solve_zero_sum([[v[row] for v in line] for line in grid])
            x, y = solution.row, solution.col
            value: tuple[float, ...] = (solution.value, -solution.value)  # two players: row 0, column 1
            equilibrium_choice = False
        else:
            eq = mixed_equilibrium([[v[row] for v in line] for line in grid], [[v[col] for v in line] for line in grid])
            x, y = eq.row, eq.col
            # The two choosers' values from the equilibrium (exact when it is); the others' (one move each) summed.
            value = tuple(eq.values[0] if k == row else eq.values[1] if k == col else
                          math.fsum(x[i] * y[j] * grid[i][j][k] for i in range(len(x)) for j in range(len(y)))
                          for k in range(len(self.game.players)))
            equilibrium_choice = self.equilibrium_choice = True
        strategies[row] = tuple(zip(moves[row], x, strict=True))
        strategies[col] = tuple(zip(moves[col], y, strict=True))
        return NodeSolution(value, tuple(strategies), equilibrium_choice)

    @staticmethod
    def grid(moves: tuple[Sequence[Hashable], ...], values: Sequence[tuple[float, ...]], row: int,
             col: int) -> list[list[tuple[float, ...]]]:
        """The value of each (row move, column move) pair (the other players have one move each)."""
        by_index: dict[tuple[int, int], tuple[float, ...]] = {}
        for joint_index, value in zip(_joint_indices(moves), values, strict=True):
            by_index[(joint_index[row], joint_index[col])] = value
        return [[by_index[(i, j)] for j in range(len(moves[col]))] for i in range(len(moves[row]))]

    # -------------------------------------------------------------- results

    def result(self, root: State, root_key: Hashable) -> SimultaneousSolution:
        solved = self.table[root_key]
        game = self.game
        strategies = tuple(dict(s) for s in solved.strategies) or tuple({} for _ in game.players)
        mover = game.to_move(root)
        best_moves: tuple[Hashable, ...] = ()
        if mover >= 0:
            own = solved.strategies[mover]
            best_value = solved.value[mover]
            child_values = self._turn_values(root, own)
            best_moves = tuple(move for move, v in zip((m for m, _ in own), child_values, strict=True)
                               if v >= best_value - TIE_TOLERANCE)
        self.budget.tt_size = len(self.table)
        self.budget.nodes = self.nodes
        stats = self.budget.stats()
        exact = not self.horizon_met
        note = None
        if self.equilibrium_choice:
            note = "general-sum simultaneous moves: one subgame-perfect equilibrium of possibly several"
        elif not exact:
            note = f"heuristic estimate: depth-{self.limits.depth} search with an LP at simultaneous moves"
        return SimultaneousSolution(solved.value, best_moves, self.principal_variation(root), exact, stats, ALGORITHM,
                                    note=note, strategies=strategies, table=self.table)

    def _turn_values(self, root: State, own: Strategy) -> list[float]:
        player = self.game.to_move(root)
        return [self.table[self.key(self.game.apply(root, move), 1)].value[player] for move, _ in own]

    def principal_variation(self, root: State) -> tuple[Hashable, ...]:
        """First best moves and likeliest chance outcomes, up to the first simultaneous node or the horizon."""
        game, state, depth = self.game, root, 0
        line: list[Hashable] = []
        while True:
            key = self.key(state, depth)
            solved = self.table.get(key)
            kind = game.to_move(state)
            if solved is None or kind in (TERMINAL, SIMULTANEOUS) or (not solved.strategies and kind != CHANCE):
                return tuple(line)
            if kind == CHANCE:
                move = max(game.chance_outcomes(state), key=lambda pair: pair[1])[0]
            else:
                move = max(solved.strategies[kind], key=lambda pair: pair[1])[0]
                depth += 1
            line.append(move)
            state = game.apply(state, move)

    def stopped(self, reason: str) -> SimultaneousSolution:
        self.budget.tt_size = len(self.table)
        self.budget.nodes = self.nodes
        zeros = (0.0,) * len(self.game.players)
        return SimultaneousSolution(zeros, (), (), False, self.budget.stats(), ALGORITHM, True, reason,
                                    note="stopped before the root was solved: no value",
                                    strategies=tuple({} for _ in self.game.players), table=self.table)


def _joint_indices(moves: tuple[Sequence[Hashable], ...]) -> list[tuple[int, ...]]:
    """The index tuples of the joint moves, in the order of :func:`solver.simgame.joint_moves`."""
    return list(itertools.product(*(range(len(own)) for own in moves)))
