"""Minimax, in its N-player form max^n, with chance nodes averaged (expectimax).

Sources:

* von Neumann (1928) / Shannon (1950) -- minimax with a depth limit and an
  evaluation function at the horizon.
* Beal (1990), "A generalised quiescence search algorithm" -- with ``limits.quiescence``, a horizon
  state that is not quiet is searched on for at most that many more plies.
* Luckhardt & Irani (1986), "An algorithmic solution of N-person games" --
  max^n: every node carries one value per player, and the player to move
  picks the child that is best for itself. Sturtevant (2003) analyses its
  tie-breaking.
* Michie (1966) -- expectimax: a chance node is worth the probability-weighted
  mean of its children.

Pseudo-code::

    function maxn(node, depth)
        if node is terminal: return utilities(node)
        if depth = 0: return heuristic(node) or zeros
        if node is a chance node: return sum(p * maxn(child, depth) for (child, p))
        p := player to move
        return the first child value v (in game order) maximising v[p]

For a two-player zero-sum game max^n is plain minimax. No pruning: this is
the reference that alpha-beta and Star1/Star2 are tested against; use them
for speed.

**Tie-break rule** (max^n): among the moves that give the player to move the
same best value, the first in the game's move order is chosen, and its value
vector is the node's value. ``best_moves`` at the root lists all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from solver.auto import Algorithm, check_players
from solver.game import CHANCE, TERMINAL, DeadEndError, Game, State, dead_end
from solver.limits import TIE_TOLERANCE, Budget, Limits, SearchResult, SearchStats, SearchStopped, StopReason

"""Values closer than this are ties (floating sums over chance nodes are not exact)."""


def minimax(
    game: Game,
    state: State | None = None,
    limits: Limits | None = None,
    *,
    progress: Callable[[SearchStats], Any] | None = None,
) -> SearchResult:
    """Max^n (minimax for two players) from ``state``, to ``limits.depth`` plies or to the end.

    Chance nodes are averaged and do not count as plies. Without a depth
    limit the game must be acyclic.

    :raises ValueError: the game has no players, or (no depth limit) a cycle is met.
    """
    check_players(game, "minimax")
    limits = limits or Limits()
    root = game.initial_state() if state is None else state
    budget = Budget(limits, progress)
    search = _MaxN(game, budget, limits.depth, limits.quiescence)
    try:
        return search.root(root)
    finally:
        budget.nodes = search.nodes


class _MaxN:
    """The recursive max^n core and its root loop (which keeps the best move so far)."""

    def __init__(self, game: Game, budget: Budget, depth: int | None, quiescence: int = 0) -> None:
        self.game = game
        self.budget = budget
        self.depth = depth
        self.quiescence = quiescence  # plies past the horizon from positions that are not quiet
        self.nodes = 0
        self.horizon_hits = 0
        self.zeros = (0.0,) * len(game.players)
        self.on_path: set[Hashable] = set()

    def value(self, state: State, depth: int | None) -> tuple[tuple[float, ...], tuple[Any, ...]]:
        """The max^n value of ``state`` and the line of play that reaches it."""
        game = self.game
        self.nodes += 1
        if self.nodes >= self.budget.next_check:
            self.budget.check(self.nodes)
        player = game.to_move(state)
        if player == TERMINAL:
            return tuple(game.utilities(state)), ()
        if depth is not None and depth <= 0 and (depth <= -self.quiescence or game.is_quiet(state)):
            self.horizon_hits += 1
            h = game.heuristic(state)
            return (tuple(h) if h is not None else self.zeros), ()
        guard = depth is None
        if guard:
            k = game.key(state)
            if k in self.on_path:
                raise ValueError(f"{game.name} has a cycle: minimax without a depth limit needs an acyclic game "
                                 "(use the exact solver, or set a depth)")
            self.on_path.add(k)
        try:
            if player == CHANCE:
                return self._chance(state, depth)
            next_depth = None if depth is None else depth - 1
            best: tuple[float, ...] | None = None
            line: tuple[Any, ...] = ()
            for move in game.legal_moves(state):
                try:
                    v, sub = self.value(game.apply(state, move), next_depth)
                except DeadEndError as error:
                    raise error.prepend(move) from None  # the line to the dead end, as we unwind
                if best is None or v[player] > best[player] + TIE_TOLERANCE:
                    best, line = v, (move, *sub)
            if best is None:  # no move to take the best of: a bug in the rules
                raise dead_end(game, state, player)
            return best, line
        finally:
            if guard:
                self.on_path.discard(k)

    def _chance(self, state: State, depth: int | None) -> tuple[tuple[float, ...], tuple[Any, ...]]:
        game = self.game
        total = [0.0] * len(game.players)
        likeliest: tuple[float, Any, tuple[Any, ...]] = (-1.0, None, ())
        for outcome, p in game.chance_outcomes(state):
            try:
                v, sub = self.value(game.apply(state, outcome), depth)
            except DeadEndError as error:
                raise error.prepend(outcome) from None
            for i, x in enumerate(v):
                total[i] += p * x
            if p > likeliest[0]:
                likeliest = (p, outcome, sub)
        if likeliest[1] is None:
            raise dead_end(game, state, CHANCE)
        # The line of play follows the likeliest outcome (the first of equally likely ones).
        return tuple(total), (likeliest[1], *likeliest[2])

    def root(self, state: State) -> SearchResult:
        """Evaluate every root move; on a budget stop or Ctrl-C, answer with the moves evaluated so far."""
        game = self.game
        player = game.to_move(state)
        if player < 0:
            try:
                value, line = self.value(state, self.depth)
            except (SearchStopped, KeyboardInterrupt) as stop:
                return self._result(self.zeros, (), (), False, stop)
            return self._result(value, (), line, self.horizon_hits == 0, None)
        next_depth = None if self.depth is None else self.depth - 1
        scored: list[tuple[Any, tuple[float, ...], tuple[Any, ...]]] = []
        stopped: BaseException | None = None
        try:
            for move in game.legal_moves(state):
                try:
                    v, sub = self.value(game.apply(state, move), next_depth)
                except DeadEndError as error:
                    raise error.prepend(move) from None
                scored.append((move, v, sub))
        except (SearchStopped, KeyboardInterrupt) as exc:
            stopped = exc
        if not scored:
            first = next(iter(game.legal_moves(state)), None)
            if first is None:
                raise dead_end(game, state, player)
            return self._result(self.zeros, (first,), (first,), False, stopped)
        top = max(v[player] for _, v, _ in scored)
        best = [(m, v, sub) for m, v, sub in scored if v[player] >= top - TIE_TOLERANCE]
        move, value, sub = best[0]
        exact = stopped is None and self.horizon_hits == 0
        return self._result(value, tuple(m for m, _, _ in best), (move, *sub), exact, stopped)

    def _result(self, value: tuple[float, ...], best: tuple[Any, ...], line: tuple[Any, ...], exact: bool,
                stop: BaseException | None) -> SearchResult:
        self.budget.nodes = self.nodes
        self.budget.depth = self.depth or len(line)
        reason = None if stop is None else stop.reason if isinstance(stop, SearchStopped) else StopReason.INTERRUPT
        return SearchResult(value, best, line, exact, self.budget.stats(), Algorithm.MINIMAX, stop is not None, reason)
