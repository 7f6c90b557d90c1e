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

Chance nodes do not count as plies for the depth limit. With ``limits.quiescence``
a horizon state that is not quiet (``Game.is_quiet``) is searched on, for at most
that many more decision plies (Beal 1990, as in :mod:`solver.alphabeta`).

Transposition table: one table per remaining depth, ``{key: (lower, upper,
complete)}``. A depth-limited value depends on the depth left, so an entry
is reused only at its own depth; it then bounds exactly the value the search
without a table computes, and a hit returns the same number (tested: TT on
equals TT off). Keeping both bounds lets a Star1/Star2 re-search with another
window still use a bound found earlier. ``complete`` says no horizon leaf was
below it, so that a hit can tell whether the root value is exact.

Nodes (``SearchStats.nodes``): the states searched -- terminals, horizon
leaves and expanded states. A state the table answers is a hit
(``tt_hits``), not a node. Without a table and without pruning this is the
size of the full tree, the count OpenSpiel's ``expectiminimax`` would make.

A game compiled to C (``solver.native.handle_of``) is searched by the same
recursion in C (:mod:`solver.native.expectimax`), with the same result field by
field: value, move, node and hit counts, budget checks. Quiescence with a depth
limit (``is_quiet`` is Python's) and simultaneous games stay in Python.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from solver.auto import Algorithm, check_players, is_two_player_zero_sum
from solver.game import CHANCE, TERMINAL, DeadEndError, Game, State, dead_end
from solver.limits import (
    PYTHON_ENTRY_BYTES,
    Budget,
    Limits,
    SearchResult,
    SearchStats,
    SearchStopped,
    StopReason,
    entry_bytes,
)
from solver.minimax import _MaxN
from solver.native import NativeHandle, handle_of
from solver.native.expectimax import NativeExpectimax

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
    bounds = game.utility_bounds
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
    A transposition table (``use_tt``, capped by ``limits.table_entries`` and by
    ``limits.memory_bytes`` at its entries' size: Python's or C's) stores bounds with
    the depth they were searched to.

    :raises ValueError: see :func:`check_expectimax`.
    """
    pruning = check_expectimax(game, pruning)
    limits = limits or Limits()
    root = game.initial_state() if state is None else state
    budget = Budget(limits, progress)
    if not is_two_player_zero_sum(game):
        maxn = _MaxN(game, budget, limits.depth, limits.quiescence)
        result = maxn.root(root)
        return SearchResult(result.value, result.best_moves, result.principal_variation, result.exact,
                            result.stats, Algorithm.EXPECTIMAX, result.stopped, result.stop_reason)
    search = _native(game, budget, pruning, use_tt, limits)
    if search is None:
        search = _ExpectiMiniMax(game, budget, pruning, use_tt, limits.entries(entry_bytes(PYTHON_ENTRY_BYTES, root)),
                                limits.quiescence)
    return search.root(root, limits.depth)


def _native(game: Game, budget: Budget, pruning: str, use_tt: bool, limits: Limits) -> _ExpectiMiniMax | None:
    """The C search for a C-backed game it supports, else None (the Python one is used)."""
    handle = handle_of(game)
    if handle is None or game.simultaneous or (limits.quiescence and limits.depth is not None):
        return None
    return _NativeExpectiMiniMax(game, handle, budget, pruning, use_tt,
                                 limits.entries(int(handle.lib.gdl_ex_entry_bytes())))


def _weighted_sum(children: list[tuple[State, float]], values: list[float]) -> float:
    """``sum p_i * v_i`` added left to right (as C adds it: ``sum()`` of floats compensates since Python 3.12)."""
    total = 0.0
    for (_, p), v in zip(children, values, strict=True):
        total += p * v
    return total


class _ExpectiMiniMax:
    """The recursive expectiminimax core (value = player 0's utility), with optional Star1/Star2."""

    def __init__(self, game: Game, budget: Budget, pruning: str, use_tt: bool = True,
                 table_entries: int | None = None, quiescence: int = 0) -> None:
        self.game = game
        self.quiescence = quiescence  # plies past the horizon from positions that are not quiet (Beal 1990)
        # Bound once: these are called at every node (and ``game.key`` may be a property).
        self.to_move = game.to_move
        self.apply = game.apply
        self.key = game.key
        self.budget = budget
        # One table per remaining depth, each {key: (lower, upper, complete)} (see value()).
        self.tables: dict[int | None, dict[Any, tuple[float, float, bool]]] | None = {} if use_tt else None
        self.tt_cap = table_entries if table_entries is not None else 1 << 62
        self.tt_size = 0
        self.tt_hits = 0
        self.prune = pruning != "none"
        self.probe = pruning == "star2"
        low, high = game.utility_bounds or (-INF, INF)
        self.low, self.high = float(low), float(high)
        self.nodes = 0
        self.horizon_hits = 0

    def value(self, state: State, depth: int | None, alpha: float, beta: float) -> float:
        """Expectiminimax value of ``state`` with ``depth`` decision plies left, within ``(alpha, beta)``.

        Fail-soft: a result <= alpha is an upper bound, >= beta a lower bound, in
        between exact (without pruning the window is ignored and every result is
        exact). ``nodes`` counts the states searched here: terminals, horizon
        leaves and expanded states; a state the transposition table answers is
        a hit, not a node.
        """
        player = self.to_move(state)
        if player == TERMINAL:
            self.nodes += 1
            return float(self.game.utilities(state)[0])
        if depth is not None and depth <= 0 and (depth <= -self.quiescence or self.game.is_quiet(state)):
            self.nodes += 1
            self.horizon_hits += 1
            h = self.game.heuristic(state)
            return 0.0 if h is None else float(h[0])
        if not self.prune:
            alpha, beta = -INF, INF  # every result is exact (and stored as exact, not as a bound)
        tables = self.tables
        if tables is not None:
            # The depth-limited value of a state depends on the depth left, so the table is keyed by
            # (depth left, state); an entry then bounds exactly the value the search without a table
            # finds. (Keyed by the state alone, entries of different depths overwrote each other and
            # Pig goal 10 at depth 8 searched 390k states instead of 4.5k.)
            found = tables.get(depth)
            table = found if found is not None else tables.setdefault(depth, {})
            k = self.key(state)
            entry = table.get(k)
            if entry is not None:
                lower, upper, complete = entry  # the value lies in [lower, upper]
                if lower >= beta or lower == upper:
                    self.tt_hits += 1
                    if not complete:
                        self.horizon_hits += 1  # the answer depends on the horizon: the root is not exact
                    return lower
                if upper <= alpha:
                    self.tt_hits += 1
                    if not complete:
                        self.horizon_hits += 1
                    return upper
        self.nodes += 1
        if self.nodes >= self.budget.next_check:
            self.budget.check(self.nodes)
        horizon_before = self.horizon_hits
        if player == CHANCE:
            if self.prune:
                v = self._chance(state, depth, alpha, beta)
            else:
                v = 0.0
                outcomes = self.game.chance_outcomes(state)
                if not outcomes:
                    raise dead_end(self.game, state, CHANCE)
                for outcome, p in outcomes:
                    try:
                        v += p * self.value(self.apply(state, outcome), depth, -INF, INF)
                    except DeadEndError as error:
                        raise error.prepend(outcome) from None
        else:
            v = self._decision(state, player, depth, alpha, beta)
        if tables is None:
            return v
        complete = self.horizon_hits == horizon_before
        # Keep both bounds: Star1/Star2 search a state again with other windows, and a fail-low
        # after a fail-high must not throw the lower bound away.
        if entry is None:
            if self.tt_size >= self.tt_cap:
                return v
            self.tt_size += 1
            lower, upper = -INF, INF
        else:
            complete = complete and entry[2]
        if v <= alpha:
            upper = v if v < upper else upper
        elif v >= beta:
            lower = v if v > lower else lower
        else:
            lower = upper = v
        table[k] = (lower, upper, complete)
        return v

    def _decision(self, state: State, player: int, depth: int | None, alpha: float, beta: float) -> float:
        """Alpha-beta at a decision node: player 0 maximises, player 1 minimises."""
        next_depth = None if depth is None else depth - 1
        value, apply = self.value, self.apply
        moves = self.game.legal_moves(state)
        if not moves:  # no move to take the best of: a bug in the rules, not a value of -inf
            raise dead_end(self.game, state, player)
        if player == 0:
            best = -INF
            for move in moves:
                try:
                    v = value(apply(state, move), next_depth, alpha, beta)
                except DeadEndError as error:
                    raise error.prepend(move) from None  # the line to the dead end, as we unwind
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break  # beta cut-off
            return best
        best = INF
        for move in moves:
            try:
                v = value(apply(state, move), next_depth, alpha, beta)
            except DeadEndError as error:
                raise error.prepend(move) from None
            if v < best:
                best = v
                if v < beta:
                    beta = v
                    if alpha >= beta:
                        break  # alpha cut-off
        return best

    def _chance(self, state: State, depth: int | None, alpha: float, beta: float) -> float:
        """Star1 at a chance node (after Star2's probing phase, if enabled); see the module docstring."""
        low, high, apply = self.low, self.high, self.apply
        outcomes = [(o, p) for o, p in self.game.chance_outcomes(state) if p > 0]
        if not outcomes:
            raise dead_end(self.game, state, CHANCE)
        children = [(apply(state, o), p) for o, p in outcomes]
        lows: list[float] | None
        highs: list[float] | None
        if self.probe:
            lows, highs = [low] * len(children), [high] * len(children)
            cut = self._probe(children, [o for o, _ in outcomes], lows, highs, depth, alpha, beta)
            if cut is not None:
                return cut
            after_low = _weighted_sum(children, lows)
            after_high = _weighted_sum(children, highs)
        else:
            lows = highs = None
            after_low = _weighted_sum(children, [low] * len(children))
            after_high = _weighted_sum(children, [high] * len(children))
        # Star1, with the (probed) bounds of the outcomes not searched yet: after_low/after_high are
        # sum p_j * L_j and sum p_j * U_j over the outcomes after the current one.
        done = 0.0
        value = self.value
        for i, (child, p) in enumerate(children):
            if lows is None:
                after_low -= p * low
                after_high -= p * high
            else:
                after_low -= p * lows[i]
                after_high -= p * highs[i]  # type: ignore[index]
            a = (alpha - done - after_high) / p
            b = (beta - done - after_low) / p
            try:
                v = value(child, depth, a if a > low else low, b if b < high else high)
            except DeadEndError as error:
                raise error.prepend(outcomes[i][0]) from None  # the line to the dead end, as we unwind
            if v <= a:
                return done + p * v + after_high  # fail low: an upper bound <= alpha
            if v >= b:
                return done + p * v + after_low  # fail high: a lower bound >= beta
            done += p * v
        return done

    def _probe(self, children: list[tuple[State, float]], outcomes: list[Any], lows: list[float],
               highs: list[float], depth: int | None, alpha: float, beta: float) -> float | None:
        """Star2's probing phase: bound each decision child by its first move; return a cut value or None.

        A max child is at least its first move's value, a min child at most. Probing is
        skipped when even the best possible probes could not cut: when every max child
        at the utility maximum still leaves the node below beta, and every min child
        at the minimum still leaves it above alpha (always so at the root's open window).
        """
        if depth is not None and depth <= 0:
            return None  # (at the horizon, or past it in quiescence: no probing there)
        low, high, to_move = self.low, self.high, self.to_move
        players = []
        best_low = best_high = 0.0
        for child, p in children:
            player = to_move(child)
            players.append(player)
            best_low += p * (high if player == 0 else low)
            best_high += p * (low if player == 1 else high)
        if best_low < beta and best_high > alpha:
            return None  # no probe can cut: go straight to Star1
        next_depth = None if depth is None else depth - 1
        sum_low = _weighted_sum(children, lows)
        sum_high = _weighted_sum(children, highs)
        for i, (child, p) in enumerate(children):
            player = players[i]
            if player < 0:
                continue
            probe_move = next(iter(self.game.legal_moves(child)), None)
            if probe_move is None:
                raise dead_end(self.game, child, player).prepend(outcomes[i])
            first = self.apply(child, probe_move)
            try:
                if player == 0:
                    # The window keeps the first move's result a valid lower bound (fail-soft above b).
                    b = (beta - (sum_low - p * lows[i])) / p
                    v = self.value(first, next_depth, low, b if b < high else high)
                    if v > lows[i]:
                        sum_low += p * (v - lows[i])
                        lows[i] = v
                        if sum_low >= beta:
                            return sum_low
                else:
                    a = (alpha - (sum_high - p * highs[i])) / p
                    v = self.value(first, next_depth, a if a > low else low, high)
                    if v < highs[i]:
                        sum_high += p * (v - highs[i])
                        highs[i] = v
                        if sum_high <= alpha:
                            return sum_high
            except DeadEndError as error:
                raise error.prepend(probe_move).prepend(outcomes[i]) from None  # the line, as we unwind
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
                try:
                    v = sign * self.value(child, next_depth, *window)
                except DeadEndError as error:
                    raise error.prepend(move) from None
                if v > best or best_move is None:
                    best, best_move = v, move
        except (SearchStopped, KeyboardInterrupt) as exc:
            stop = exc
        if best_move is None:
            best_move = next(iter(game.legal_moves(state)), None)
            if best_move is None:
                raise dead_end(game, state, player)
            best = 0.0
        return self._result(sign * best, best_move, depth, stop)

    def _result(self, value: float, move: Any, depth: int | None, stop: BaseException | None) -> SearchResult:
        self.budget.nodes = self.nodes
        self.budget.depth = depth or 0
        self.budget.tt_hits = self.tt_hits
        self.budget.tt_size = self.tt_size
        reason = None if stop is None else stop.reason if isinstance(stop, SearchStopped) else StopReason.INTERRUPT
        moves = () if move is None else (move,)
        exact = stop is None and self.horizon_hits == 0
        return SearchResult((value + 0.0, 0.0 - value), moves, moves, exact, self.budget.stats(), Algorithm.EXPECTIMAX,
                            stop is not None, reason)


class _NativeExpectiMiniMax(_ExpectiMiniMax):
    """The root loop above over ``value`` computed in C (:class:`solver.native.expectimax.NativeExpectimax`)."""

    def __init__(self, game: Game, handle: NativeHandle, budget: Budget, pruning: str, use_tt: bool,
                 table_entries: int | None) -> None:
        super().__init__(game, budget, pruning, use_tt, table_entries)
        self.tables = None
        if use_tt:
            game.key(game.initial_state())  # (a game with symmetries checks their declaration on its first key)
        self.native = NativeExpectimax(game, handle, budget, self.prune, self.probe, use_tt, self.tt_cap, self.low,
                                       self.high)

    def value(self, state: State, depth: int | None, alpha: float, beta: float) -> float:
        try:
            return self.native.value(state, depth, alpha, beta)
        finally:
            self.nodes, self.tt_hits, self.tt_size, self.horizon_hits = self.native.counters()
