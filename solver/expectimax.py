"""Expectiminimax over decision and chance nodes, with Star1 and Star2 pruning.

Sources:

* Michie (1966) -- expectimax; Russell & Norvig, AIMA Figure 5.11 (expectiminimax).
* Ballard (1983), "The *-minimax search procedure for trees containing
  chance nodes", Artificial Intelligence 21 -- Star1 and Star2.
* Hauk, Buro & Schaeffer (2004), "Rediscovering *-minimax search" -- the
  windows used below.

A two-player zero-sum game is searched in max/min form: the value is player
0's utility; player 0 maximises, player 1 minimises, a chance node averages.
Decision nodes use alpha-beta. With utility bounds ``[L, U]``, a chance node
can be cut before all outcomes are searched:

Star1 (after searching outcomes ``1..i-1`` with sum ``S = sum p_j v_j``)::

    child window   A_i = (alpha - S - U * P_after) / p_i      # P_after = probability of outcomes after i
                   B_i = (beta  - S - L * P_after) / p_i
    v_i := search(child_i, max(A_i, L), min(B_i, U))
    if v_i <= A_i: return S + p_i v_i + U P_after            # fail low: the node is <= alpha
    if v_i >= B_i: return S + p_i v_i + L P_after            # fail high: the node is >= beta

Star2 first *probes* each child: it searches only the first move of a
decision child, which bounds the child from one side (a lower bound below a
max node, an upper bound below a min node). If the probed bounds already
prove the chance node >= beta (or <= alpha) it is cut without a full search;
otherwise Star1 follows, with the probed bounds tightening the windows.

Both give exactly the value of the unpruned search (the cuts only skip
subtrees that cannot change the root value). Games that are not two-player
zero-sum are searched with max^n (:mod:`solver.minimax`), without pruning.

Chance nodes do not count as plies for the depth limit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from solver.alphabeta import EXACT, LOWER, UPPER
from solver.game import CHANCE, TERMINAL, Game, State
from solver.limits import (
    UNLIMITED_DEPTH,
    Budget,
    Limits,
    SearchResult,
    SearchStats,
    SearchStopped,
    check_players,
    is_two_player_zero_sum,
)
from solver.minimax import _MaxN

INF = float("inf")
PRUNINGS = ("auto", "none", "star1", "star2")


def check_expectimax(game: Game, pruning: str) -> str:
    """The pruning to use; ``auto`` becomes ``star2`` when the game allows it, else ``none``.

    :raises ValueError: an unknown pruning, or Star1/Star2 asked for a game that is not
        two-player zero-sum with declared utility bounds.
    """
    check_players(game, "expectimax")
    if pruning not in PRUNINGS:
        raise ValueError(f"unknown pruning {pruning!r}; choose one of {', '.join(PRUNINGS)}")
    bounds = getattr(game, "utility_bounds", None)
    fits = is_two_player_zero_sum(game) and bounds is not None
    if pruning == "auto":
        return "star2" if fits else "none"
    if pruning != "none" and not fits:
        unmet = "is not two-player zero-sum" if not is_two_player_zero_sum(game) else "declares no utility bounds"
        raise ValueError(f"{pruning} pruning needs a two-player zero-sum game with utility bounds; {game.name} {unmet}")
    return pruning


def expectimax(
    game: Game,
    state: State | None = None,
    limits: Limits | None = None,
    *,
    pruning: str = "auto",
    use_tt: bool = True,
    progress: Callable[[SearchStats], Any] | None = None,
) -> SearchResult:
    """Expectiminimax from ``state`` to ``limits.depth`` decision plies (or to the end of an acyclic game).

    ``pruning`` is ``"none"``, ``"star1"``, ``"star2"`` or ``"auto"`` (Star2 when
    the game is two-player zero-sum with utility bounds). ``best_moves`` holds
    the first optimal root move; the principal variation is that one move.
    A transposition table (``use_tt``, capped by ``limits.table_entries``)
    stores bounds with the depth they were searched to.

    :raises ValueError: see :func:`check_expectimax`.
    """
    pruning = check_expectimax(game, pruning)
    limits = limits or Limits()
    root = game.initial_state() if state is None else state
    budget = Budget(limits, progress)
    if not is_two_player_zero_sum(game):
        maxn = _MaxN(game, budget, limits.depth)
        result = maxn.root(root)
        return SearchResult(result.value, result.best_moves, result.principal_variation, result.exact,
                            result.stats, "expectimax", result.stopped, result.stop_reason)
    search = _ExpectiMiniMax(game, budget, pruning, use_tt, limits.table_entries)
    return search.root(root, limits.depth)


class _ExpectiMiniMax:
    """The recursive expectiminimax core (value = player 0's utility), with optional Star1/Star2."""

    def __init__(self, game: Game, budget: Budget, pruning: str, use_tt: bool = True,
                 table_entries: int | None = None) -> None:
        self.game = game
        self.budget = budget
        self.tt: dict[Any, tuple[int, float, int]] | None = {} if use_tt else None
        self.tt_cap = table_entries if table_entries is not None else 1 << 62
        self.tt_hits = 0
        self.prune = pruning != "none"
        self.probe = pruning == "star2"
        low, high = game.utility_bounds or (-INF, INF)
        self.low, self.high = float(low), float(high)
        self.nodes = 0
        self.horizon_hits = 0

    def value(self, state: State, depth: int | None, alpha: float, beta: float) -> float:
        """Fail-soft: a result <= alpha is an upper bound, >= beta a lower bound, in between exact."""
        game = self.game
        self.nodes += 1
        if self.nodes >= self.budget.next_check:
            self.budget.check(self.nodes)
        player = game.to_move(state)
        if player == TERMINAL:
            return float(game.utilities(state)[0])
        if depth == 0:
            self.horizon_hits += 1
            h = game.heuristic(state)
            return 0.0 if h is None else float(h[0])
        tt = self.tt
        if tt is None:
            return self._expand(state, player, depth, alpha, beta)
        # The transposition table holds bounds as alpha-beta's does: exact, lower (>= beta) or upper (<= alpha).
        k = game.key(state)
        remaining = UNLIMITED_DEPTH if depth is None else depth
        entry = tt.get(k)
        # An entry answers only for the same remaining depth (or a subtree searched to its end), so
        # that the value is exactly that of the search without a table.
        if entry is not None and (entry[0] == remaining or entry[0] == UNLIMITED_DEPTH):
            e_value, e_flag = entry[1], entry[2]
            if e_flag == EXACT or (e_flag == LOWER and e_value >= beta) or (e_flag == UPPER and e_value <= alpha):
                self.tt_hits += 1
                if entry[0] != UNLIMITED_DEPTH:
                    self.horizon_hits += 1
                return e_value
        horizon_before = self.horizon_hits
        v = self._expand(state, player, depth, alpha, beta)
        if len(tt) < self.tt_cap or k in tt:
            stored = UNLIMITED_DEPTH if self.horizon_hits == horizon_before else remaining
            tt[k] = (stored, v, UPPER if v <= alpha else LOWER if v >= beta else EXACT)
        return v

    def _expand(self, state: State, player: int, depth: int | None, alpha: float, beta: float) -> float:
        game = self.game
        if player == CHANCE:
            if not self.prune:
                return sum(p * self.value(game.apply(state, o), depth, -INF, INF)
                           for o, p in game.chance_outcomes(state))
            return self._chance(state, depth, alpha, beta)
        next_depth = None if depth is None else depth - 1
        if not self.prune:
            alpha, beta = -INF, INF
        if player == 0:
            best = -INF
            for move in game.legal_moves(state):
                v = self.value(game.apply(state, move), next_depth, alpha, beta)
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break  # beta cut-off
            return best
        best = INF
        for move in game.legal_moves(state):
            v = self.value(game.apply(state, move), next_depth, alpha, beta)
            if v < best:
                best = v
                if v < beta:
                    beta = v
                    if alpha >= beta:
                        break  # alpha cut-off
        return best

    def _chance(self, state: State, depth: int | None, alpha: float, beta: float) -> float:
        game = self.game
        low, high = self.low, self.high
        children = [(game.apply(state, o), p) for o, p in game.chance_outcomes(state) if p > 0]
        lows = [low] * len(children)
        highs = [high] * len(children)
        if self.probe:
            cut = self._probe(children, lows, highs, depth, alpha, beta)
            if cut is not None:
                return cut
        # Star1, with the (probed) bounds of the outcomes not searched yet.
        done = 0.0
        after_low = sum(p * lo for (_, p), lo in zip(children, lows, strict=False))
        after_high = sum(p * hi for (_, p), hi in zip(children, highs, strict=False))
        for i, (child, p) in enumerate(children):
            after_low -= p * lows[i]
            after_high -= p * highs[i]
            a = (alpha - done - after_high) / p
            b = (beta - done - after_low) / p
            v = self.value(child, depth, max(a, low), min(b, high))
            if v <= a:
                return done + p * v + after_high  # fail low: an upper bound <= alpha
            if v >= b:
                return done + p * v + after_low  # fail high: a lower bound >= beta
            done += p * v
        return done

    def _probe(self, children: list[tuple[State, float]], lows: list[float], highs: list[float],
               depth: int | None, alpha: float, beta: float) -> float | None:
        """Star2's probing phase: bound each decision child by its first move; return a cut value or None."""
        game = self.game
        if depth == 0:
            return None
        next_depth = None if depth is None else depth - 1
        for i, (child, p) in enumerate(children):
            player = game.to_move(child)
            if player < 0:
                continue
            first = game.apply(child, next(iter(game.legal_moves(child))))
            sum_low = sum(q * lo for (_, q), lo in zip(children, lows, strict=False))
            sum_high = sum(q * hi for (_, q), hi in zip(children, highs, strict=False))
            if player == 0:
                # A max child is at least its first move's value; the window keeps that a valid lower bound.
                b = (beta - (sum_low - p * lows[i])) / p
                lows[i] = max(lows[i], self.value(first, next_depth, self.low, min(b, self.high)))
                sum_low = sum(q * lo for (_, q), lo in zip(children, lows, strict=False))
            else:
                a = (alpha - (sum_high - p * highs[i])) / p
                highs[i] = min(highs[i], self.value(first, next_depth, max(a, self.low), self.high))
                sum_high = sum(q * hi for (_, q), hi in zip(children, highs, strict=False))
            if sum_low >= beta:
                return sum_low
            if sum_high <= alpha:
                return sum_high
        return None

    def root(self, state: State, depth: int | None) -> SearchResult:
        """Search every root move with alpha-beta windows; keep the best so far on a stop."""
        game = self.game
        player = game.to_move(state)
        stop: BaseException | None = None
        best_move = None
        value = 0.0
        if player < 0:
            try:
                value = self.value(state, depth, -INF, INF)
            except (SearchStopped, KeyboardInterrupt) as exc:
                stop = exc
            return self._result(value, None, depth, stop)
        sign = 1 if player == 0 else -1
        best = -INF
        next_depth = None if depth is None else depth - 1
        try:
            for move in game.legal_moves(state):
                child = game.apply(state, move)
                # In max form from the mover's side: search with (best, inf) for max, (-inf, -best) for min.
                window = (best, INF) if sign == 1 else (-INF, -best)
                v = sign * self.value(child, next_depth, *window)
                if v > best or best_move is None:
                    best, best_move = v, move
        except (SearchStopped, KeyboardInterrupt) as exc:
            stop = exc
        if best_move is None:
            best_move = next(iter(game.legal_moves(state)))
            best = 0.0
        return self._result(sign * best, best_move, depth, stop)

    def _result(self, value: float, move: Any, depth: int | None, stop: BaseException | None) -> SearchResult:
        self.budget.nodes = self.nodes
        self.budget.depth = depth or 0
        self.budget.tt_hits = self.tt_hits
        self.budget.tt_size = len(self.tt) if self.tt is not None else 0
        reason = None if stop is None else stop.reason if isinstance(stop, SearchStopped) else "interrupt"
        moves = () if move is None else (move,)
        exact = stop is None and self.horizon_hits == 0
        return SearchResult((value + 0.0, 0.0 - value), moves, moves, exact, self.budget.stats(), "expectimax",
                            stop is not None, reason)
