"""Monte Carlo tree search: UCT with N players, chance nodes and proven values (MCTS-Solver).

Sources:

* Kocsis & Szepesvári (2006), "Bandit based Monte-Carlo planning" -- UCT:
  select children by UCB1 (Auer, Cesa-Bianchi & Fischer 2002),
  ``mean + c * sqrt(ln N / n)``.
* Sturtevant (2008), "An analysis of UCT in multi-player games" -- each node
  keeps the total return of *every* player; the player to move at a node
  selects by its own mean (max^n backups).
* Winands, Björnsson & Saito (2008), "Monte-Carlo tree search solver" --
  proven values: a terminal child is proven; a node is proven as soon as one
  child is proven best possible for the player to move (a win), or when every
  child is proven (then it takes the best of them). Proven nodes are not
  simulated again, and the final move prefers a proven win.

One iteration (pseudo-code)::

    node := root
    while node is fully expanded and not terminal and not proven:
        node := chance node ? sample an outcome by its probability
                            : argmax_child UCB1(child, player to move at node)
    if node is not terminal: node := expand one untried move (or a new outcome)
    r := proven value, or utilities, or a random (or heuristic) playout from node
    for every node on the path back to the root: visits += 1; total += r; update proofs

UCB1 sees returns scaled into [0, 1] by ``game.utility_bounds`` when the game
declares them, so the exploration constant ``c`` (default sqrt(2)) keeps its
textbook meaning. All randomness comes from the injected ``random.Random``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable
from typing import Any

from solver.auto import Algorithm, check_players
from solver.game import CHANCE, TERMINAL, DeadEndError, Game, State, dead_end
from solver.limits import Budget, ChildStats, Limits, SearchResult, SearchStats, SearchStopped, StopReason
from solver.native import handle_of
from solver.native.mcts import native_mcts

DEFAULT_ITERATIONS = 1000
ROLLOUTS = ("random", "heuristic")


class Node:
    """One state of the search tree (a path: the same state reached twice is two nodes)."""

    __slots__ = ("children", "move", "parent", "player", "proven", "state", "totals", "untried", "visits")

    def __init__(self, state: State, player: int, move: Any, parent: Node | None, players: int) -> None:
        self.state = state
        self.player = player
        self.move = move
        self.parent = parent
        self.children: dict[Hashable, Node] = {}
        self.untried: list[Any] | None = None  # made on the first visit
        self.visits = 0
        self.totals = [0.0] * players
        self.proven: tuple[float, ...] | None = None

    def mean(self, player: int) -> float:
        return self.totals[player] / self.visits if self.visits else 0.0

    def __repr__(self) -> str:
        means = ", ".join(f"{self.mean(i):.3f}" for i in range(len(self.totals)))
        proof = f" proven={self.proven}" if self.proven is not None else ""
        return f"Node({self.move!s}, visits={self.visits}, mean=({means}){proof})"


def check_mcts(game: Game, exploration: float, rollout: str) -> None:
    """:raises ValueError: no players, a negative exploration constant or an unknown rollout."""
    check_players(game, "MCTS")
    if exploration < 0:
        raise ValueError(f"the exploration constant must not be negative, got {exploration}")
    if rollout not in ROLLOUTS:
        raise ValueError(f"unknown rollout {rollout!r}; choose one of {', '.join(ROLLOUTS)}")


def mcts(
    game: Game,
    state: State | None = None,
    limits: Limits | None = None,
    *,
    exploration: float = math.sqrt(2),
    rollout: str = "random",
    max_rollout: int = 1000,
    solver: bool = True,
    rng: random.Random | None = None,
    seed: int | None = None,
    progress: Callable[[SearchStats], Any] | None = None,
    threads: int = 1,
) -> SearchResult:
    """UCT from ``state`` for ``limits.iterations`` simulations (default 1000) or ``limits.seconds``.

    ``rollout="random"`` plays uniformly random moves to the end (at most
    ``max_rollout`` moves, then the heuristic or zeros); ``"heuristic"``
    evaluates a new leaf with ``game.heuristic`` instead (random playout if
    the game has none). ``solver`` enables proven values (MCTS-Solver).
    Randomness: ``rng``, or a ``random.Random(seed)``. ``threads``: for a game whose rules run in C
    (:mod:`solver.native`), that many trees searched at once (root parallelisation); ignored otherwise.

    ``children`` in the result holds every root move's visits and mean
    return; ``value`` is the root's mean return (or its proven value, then
    ``exact`` is True).

    :raises ValueError: see :func:`check_mcts`.
    """
    check_mcts(game, exploration, rollout)
    if limits is None or (limits.iterations is None and limits.seconds is None and limits.nodes is None):
        limits = Limits(seconds=limits.seconds if limits else None, iterations=DEFAULT_ITERATIONS,
                        table_entries=limits.table_entries if limits else None,
                        memory_bytes=limits.memory_bytes if limits else None)
    root_state = game.initial_state() if state is None else state
    handle = handle_of(game)
    if handle is not None:  # the same search with its loop in C
        return native_mcts(game, handle, root_state, limits, Budget(limits, progress), rng or random.Random(seed),
                           exploration, rollout, max_rollout, solver, threads)
    search = _UCT(game, Budget(limits, progress), rng or random.Random(seed), exploration, rollout, max_rollout,
                  solver)
    return search.run(root_state, limits)


class _UCT:
    def __init__(self, game: Game, budget: Budget, rng: random.Random, exploration: float, rollout: str,
                 max_rollout: int, solver: bool) -> None:
        self.game = game
        self.budget = budget
        self.rng = rng
        self.c = exploration
        self.rollout_kind = rollout
        self.max_rollout = max_rollout
        self.solver = solver
        self.players = len(game.players)
        bounds = game.utility_bounds
        self.low, self.high = (float(bounds[0]), float(bounds[1])) if bounds else (0.0, 1.0)
        self.scale = (self.high - self.low) if bounds and self.high > self.low else 1.0
        self.win_value = self.high if bounds else None  # the best a player can get: proves a node at once
        self.nodes = 0
        self.tree_size = 0
        self.dead_end_node: Node | None = None  # where the line of a dead end found below the tree starts

    # -------------------------------------------------------------- the loop

    def run(self, root_state: State, limits: Limits) -> SearchResult:
        game = self.game
        root = Node(root_state, game.to_move(root_state), None, None, self.players)
        stop_reason = None
        iterations = 0
        try:
            while limits.iterations is None or iterations < limits.iterations:
                if root.proven is not None and self.solver:
                    break  # the root is solved: more simulations cannot change the answer
                self.iterate(root)
                iterations += 1
                self.budget.iterations = iterations
                if self.nodes >= self.budget.next_check:
                    self.budget.tt_size = self.tree_size
                    self.budget.check(self.nodes)
        except SearchStopped as stop:
            stop_reason = stop.reason
        except KeyboardInterrupt:
            stop_reason = StopReason.INTERRUPT
        return self.result(root, stop_reason)

    def iterate(self, root: Node) -> None:
        try:
            node = self.select(root)
            if node.proven is not None:
                returns = node.proven
            elif node.player == TERMINAL:
                returns = node.proven = tuple(float(u) for u in self.game.utilities(node.state))
            else:
                self.dead_end_node = node
                returns = self.simulate(node.state)
        except DeadEndError as error:
            raise self.tree_line(error) from None
        self.backpropagate(node, returns)

    def tree_line(self, error: DeadEndError) -> DeadEndError:
        """``error`` with the tree's moves down to the node where its line starts (found only on a dead end)."""
        node = self.dead_end_node
        while node is not None and node.move is not None:
            error.prepend(node.move)
            node = node.parent
        return error

    # -------------------------------------------------------------- selection and expansion

    def select(self, node: Node) -> Node:
        game = self.game
        while node.player != TERMINAL and node.proven is None:
            if node.player == CHANCE:
                try:
                    outcome = self.sample(node.state)
                except DeadEndError:
                    self.dead_end_node = node
                    raise
                child = node.children.get(outcome)
                if child is None:
                    return self.add_child(node, outcome)
                node = child
                continue
            if node.untried is None:
                node.untried = list(game.legal_moves(node.state))
                node.untried.reverse()  # pop() then takes them in the game's order
                if not node.untried:
                    self.dead_end_node = node
                    raise dead_end(game, node.state, node.player)
            if node.untried:
                return self.add_child(node, node.untried.pop())
            node = self.best_child(node)
        return node

    def add_child(self, node: Node, move: Any) -> Node:
        state = self.game.apply(node.state, move)
        child = Node(state, self.game.to_move(state), move, node, self.players)
        node.children[move] = child
        self.tree_size += 1
        self.nodes += 1
        return child

    def sample(self, state: State) -> Any:
        outcomes = self.game.chance_outcomes(state)
        x = self.rng.random()
        for outcome, p in outcomes:
            x -= p
            if x < 0:
                return outcome
        if not outcomes:
            raise dead_end(self.game, state, CHANCE)
        return outcomes[-1][0]  # rounding: the probabilities summed to slightly less than 1

    def best_child(self, node: Node) -> Node:
        """UCB1 for the player to move; a proven child counts at its proven value.

        UCB1 on returns scaled to [0, 1], ``(mean - low) / scale + c * sqrt(ln N / n)``, picks
        the same child as ``mean + c * scale * sqrt(ln N / n)`` (subtract the constant, multiply
        by ``scale > 0``): that form saves two operations per child in the hottest loop of the tree.
        """
        player = node.player
        explore = self.c * self.scale
        log_n = math.log(node.visits) if node.visits > 1 else 0.0
        sqrt = math.sqrt
        best, best_score = None, -math.inf
        for child in node.children.values():
            visits = child.visits
            proven = child.proven
            mean = proven[player] if proven is not None else child.totals[player] / visits
            score = mean + explore * sqrt(log_n / visits)
            if score > best_score:
                best, best_score = child, score
        assert best is not None
        return best

    # -------------------------------------------------------------- simulation

    def simulate(self, state: State) -> tuple[float, ...]:
        """A playout: uniformly random moves (chance by its probabilities) to the end, or the heuristic."""
        game = self.game
        played: list[Any] = []  # the playout's moves, for the line to a dead end
        if self.rollout_kind == "heuristic":
            h = game.heuristic(state)
            if h is not None:
                return tuple(h)
        random_ = self.rng.random
        to_move, legal, apply = game.to_move, game.legal_moves, game.apply
        budget = self.budget
        for steps in range(self.max_rollout):
            if self.nodes + steps >= budget.next_check:  # a playout of a big state can outlast the budget
                budget.check(self.nodes + steps)
            player = to_move(state)
            if player == TERMINAL:
                self.nodes += steps  # the playout's states before the end, counted once per playout
                return tuple(game.utilities(state))
            if player == CHANCE:
                try:
                    move = self.sample(state)
                except DeadEndError:
                    move = None
            else:
                # A uniform choice, as rng.choice but without its Python-level _randbelow (a third of
                # the playout's own time): random() < 1, so the index is < len(moves), and each index
                # has probability 1/len(moves) up to 2**-53.
                moves = legal(state)
                move = moves[int(random_() * len(moves))] if moves else None
            if move is None:
                error = dead_end(game, state, player)
                for earlier in reversed(played):
                    error.prepend(earlier)
                raise error
            played.append(move)
            state = apply(state, move)
        self.nodes += self.max_rollout
        if to_move(state) == TERMINAL:
            return tuple(game.utilities(state))
        h = game.heuristic(state)  # an endless playout (a cyclic game): estimate, or call it a draw
        return tuple(h) if h is not None else (0.0,) * self.players

    # -------------------------------------------------------------- backpropagation

    def backpropagate(self, node: Node | None, returns: tuple[float, ...]) -> None:
        solver = self.solver
        while node is not None:
            node.visits += 1
            totals = node.totals
            for i, r in enumerate(returns):
                totals[i] += r
            if solver and node.proven is None:
                node.proven = self.proof(node)
            node = node.parent

    def proof(self, node: Node) -> tuple[float, ...] | None:
        """MCTS-Solver: a node's proven value from its children's, or None."""
        if node.player == TERMINAL:
            return None
        children = node.children.values()
        if node.player == CHANCE:
            outcomes = self.game.chance_outcomes(node.state)
            if len(node.children) < len(outcomes) or any(c.proven is None for c in children):
                return None
            total = [0.0] * self.players
            for outcome, p in outcomes:
                for i, x in enumerate(node.children[outcome].proven):  # type: ignore[arg-type]
                    total[i] += p * x
            return tuple(total)
        player = node.player
        best: tuple[float, ...] | None = None
        for child in children:
            proven = child.proven
            if proven is not None and self.win_value is not None and proven[player] >= self.win_value:
                return proven  # a proven win: the player to move takes it
        if node.untried is None or node.untried:
            return None
        for child in children:  # every move is expanded: proven if every child is
            proven = child.proven
            if proven is None:
                return None
            if best is None or proven[player] > best[player]:
                best = proven
        return best

    # -------------------------------------------------------------- the answer

    def final_child(self, node: Node) -> Node | None:
        """The move to play: a proven best child if the node is proven, else the most visited.

        Ties in visits go to the higher mean. A child proven to be worse than the
        best proven value is never preferred to an unproven one.
        """
        if not node.children:
            return None
        player = node.player
        if node.proven is not None:
            for child in node.children.values():
                if child.proven is not None and child.proven[player] >= node.proven[player]:
                    return child

        def key(child: Node) -> tuple[int, int, float]:
            proven_loss = child.proven is not None and child.proven[player] <= self.low
            return (0 if proven_loss else 1, child.visits, child.mean(player))

        return max(node.children.values(), key=key)

    def result(self, root: Node, stop_reason: str | None) -> SearchResult:
        game = self.game
        budget = self.budget
        budget.tt_size = self.tree_size
        budget.nodes = self.nodes
        if root.player == TERMINAL:
            return SearchResult(tuple(game.utilities(root.state)), (), (), True, budget.stats(), Algorithm.MCTS)
        line = []
        node: Node | None = root
        while node is not None and node.player >= 0:
            node = self.final_child(node)
            if node is None:
                break
            line.append(node.move)
        budget.depth = len(line)
        exact = root.proven is not None
        value: tuple[float, ...]
        if root.proven is not None:
            value = root.proven
        elif root.visits:
            value = tuple(t / root.visits for t in root.totals)
        else:
            value = (0.0,) * self.players
        first = self.final_child(root) if root.player >= 0 else None
        if first is None and root.player >= 0:
            first_move = next(iter(game.legal_moves(root.state)), None)
            if first_move is None:
                raise dead_end(game, root.state, root.player)
        else:
            first_move = first.move if first is not None else None
        children = tuple(
            ChildStats(c.move, c.visits, c.proven if c.proven is not None else
                       tuple(t / c.visits if c.visits else 0.0 for t in c.totals), c.proven is not None)
            for c in root.children.values())
        moves = () if first_move is None else (first_move,)
        stopped = stop_reason is not None
        return SearchResult(tuple(value), moves, tuple(line), exact, budget.stats(), Algorithm.MCTS, stopped,
                            stop_reason, children)
