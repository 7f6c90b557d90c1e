"""Alpha-beta search in negamax form, with a transposition table and iterative deepening.

Sources:

* Knuth & Moore (1975), "An analysis of alpha-beta pruning", Artificial
  Intelligence 6 -- the negamax formulation and the fail-soft variant
  (the returned value may lie outside the window and is then a bound).
* Greenblatt, Eastlake & Crocker (1967) / Slate & Atkin (1977, Chess 4.5) --
  the transposition table with exact / lower / upper bound flags, and
  iterative deepening under a time budget.
* Akl & Newborn (1977) killer moves; Schaeffer (1989) the history heuristic.
* Shannon (1950), "Programming a computer for playing chess", and Beal (1990), "A generalised
  quiescence search algorithm", Artificial Intelligence 43 -- quiescence: the heuristic is trusted
  only in quiet positions (``Game.is_quiet``); from the others the search goes on past its horizon,
  every move, for at most ``quiescence`` more plies (the horizon effect of the course notes).
* Sturtevant & Korf (2000), "On pruning techniques for multi-player games" --
  *paranoid* search: in an N-player game the root player assumes that all the
  others play against it, which turns the game into a two-sided one.

Pseudo-code (fail-soft negamax with a transposition table)::

    function negamax(node, depth, alpha, beta)
        look node up in the TT; a deep enough entry may answer or cut
        if node is terminal: return colour * value(node)
        if depth <= 0 and (node is quiet or depth <= -quiescence): return colour * heuristic(node)
        best := -inf
        for each child in ordered(children):       # TT move, killers, history
            v := -negamax(child, depth - 1, -beta, -alpha)
            best := max(best, v); alpha := max(alpha, v)
            if alpha >= beta: break                # beta cut-off
        store best in the TT as an upper bound (best <= alpha0), a lower bound (best >= beta) or both
        return best

Games where a player may move twice in a row (Pig's roll again, Kalah's
extra move) are handled by negating a child's value only when the side to
move changes.

Values are always in the utilities of the game: the two-player zero-sum value
from player 0's point of view, or (paranoid) the root player's utility.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from solver.auto import Algorithm, check_players, is_two_player_zero_sum
from solver.game import CHANCE, TERMINAL, DeadEndError, Game, State, dead_end
from solver.limits import (
    PYTHON_ENTRY_BYTES,
    UNLIMITED_DEPTH,
    Budget,
    Limits,
    SearchResult,
    SearchStats,
    SearchStopped,
    StopReason,
    big,
    costly,
    entry_bytes,
)

EXACT, LOWER, UPPER = 0, 1, 2
"""Transposition-table flags: the stored value is exact, a lower bound (fail-high) or an upper bound (fail-low)."""

INF = float("inf")

PLIES_FACTOR = 2.0
"""The alpha-beta path's walk for the distance to the end gets this many times the value search's time ..."""
PLIES_MIN_SECONDS = 5.0
"""... and at least this many seconds (a drawn Connect-Four 5x4 takes 10x its value search: no plies then)."""


class CycleFound(Exception):
    """An exact (unlimited-depth) search met a state already on its path: the game graph has a cycle."""


class TooDeep(Exception):
    """The search path grew longer than Python's recursion limit allows."""


def max_search_ply() -> int:
    """The deepest path a recursive search may follow safely (each ply costs one Python frame)."""
    return max(50, sys.getrecursionlimit() - 200)


def check_alphabeta(game: Game, paranoid: bool) -> None:
    """Alpha-beta needs a deterministic game, and two-player zero-sum unless ``paranoid``.

    :raises ValueError: naming the property the game lacks.
    """
    check_players(game, "alpha-beta")
    if game.has_chance:
        raise ValueError(f"alpha-beta needs a deterministic game; {game.name} has chance nodes "
                         "(use expectimax, MCTS or the exact solver)")
    if not paranoid and not is_two_player_zero_sum(game):
        unmet = (f"has {len(game.players)} players" if len(game.players) != 2 else "is not declared zero-sum")
        raise ValueError(f"alpha-beta needs a two-player zero-sum game; {game.name} {unmet} "
                         "(pass paranoid=True for paranoid search, or use minimax for max^n)")


class NegamaxSearch:
    """One alpha-beta searcher: its transposition table, history and killers persist across calls.

    ``reference`` is the player whose utility is the score; ``sides[p]`` is +1
    for players who maximise it and -1 for those who minimise it. The core
    :meth:`negamax` returns the score from the point of view of the side to move.
    """

    def plies_seconds(self, value_seconds: float, tested_seconds: float) -> float:
        """The time the walk for the distance to the end gets (``solver.exact_alphabeta``): twice the value
        search's, the root moves' tests included (``tested_seconds``), and 5 s at least. (``value_seconds``:
        MTD(f) alone; the C searcher's walk is budgeted by it.)"""
        return max(PLIES_MIN_SECONDS, PLIES_FACTOR * tested_seconds)

    def __init__(self, game: Game, budget: Budget, *, reference: int = 0, sides: tuple[int, ...] = (1, -1),
                 use_tt: bool = True, ordering: bool = True, detect_cycles: bool = False,
                 table_entries: int | None = None, quiescence: int = 0) -> None:
        self.game = game
        self.budget = budget
        self.reference = reference
        self.sides = sides
        self.use_tt = use_tt
        self.ordering = ordering
        self.detect_cycles = detect_cycles
        self.quiescence = quiescence
        """Plies past the horizon searched from positions that are not quiet (the depth then goes below 0)."""
        self.tt: dict[Hashable, tuple[int, float, float, Any, int]] = {}  # depth, lower, upper, move, side
        self.tt_cap = table_entries if table_entries is not None else 1 << 62
        self.history: defaultdict[Hashable, int] = defaultdict(int)
        self.killers: list[list[Any]] = [[None, None] for _ in range(max_search_ply() + 2)]
        self.horizon_hits = 0
        self.nodes = 0
        self.tt_hits = 0
        self.root_best: Any = None
        self.negamax = self._build_core()

    def window(self, side: int) -> tuple[float, float]:
        """The root window: the utility bounds when declared (so that a proven win cuts), else infinite.

        Heuristic values are assumed to lie within the bounds too.
        """
        bounds = self.game.utility_bounds
        if bounds is None:
            return (-INF, INF)
        low, high = float(bounds[0]), float(bounds[1])
        return (low, high) if side == 1 else (-high, -low)

    def score(self, values: tuple[float, ...] | None) -> float:
        """The score of a utility (or heuristic) vector for the maximising side."""
        return 0.0 if values is None else float(values[self.reference])

    def _build_core(self) -> Callable[..., float]:
        """The fail-soft negamax of the module docstring, in named steps (each a closure: no attribute look-ups).

        ``negamax`` probes the transposition table, guards against cycles and deep paths, then runs
        :func:`expand` (make the children: an immediate refutation ends the node), searches the
        children in order (the window negated when the side to move changes; :func:`cut_off` records a
        refutation) and :func:`remember` (store the result as a bound or an exact value).
        """
        game, budget, sides = self.game, self.budget, self.sides
        to_move, legal, apply, utilities, heuristic, key = (
            game.to_move, game.legal_moves, game.apply, game.utilities, game.heuristic, game.key)
        ref = self.reference
        tt = self.tt if self.use_tt else None
        tt_get = tt.get if tt is not None else None
        tt_cap = self.tt_cap
        history, killers, ordering = self.history, self.killers, self.ordering
        history_of = history.__getitem__  # a C-level sort key (missing moves count 0)
        is_quiet = game.is_quiet
        last_scored = 1 - self.quiescence  # at this depth (or less) every child gets the heuristic, quiet or not

        on_path: set[Hashable] | None = set() if self.detect_cycles else None
        max_ply = max_search_ply()
        search = self
        Child = tuple[Any, State | None, int, Hashable]  # (None: a big state's child, made again when searched)

        def order(moves: list[Any], first: Any, ply: int) -> list[Any]:
            """TT move, then the two killers of this ply, then by history score (game order breaks ties)."""
            if history:
                # reverse=True keeps equal scores in the game's order (Python's sort is stable both ways).
                moves.sort(key=history_of, reverse=True)
            k1, k2 = killers[ply]
            for m in (k2, k1, first):  # the TT move ends up first, then killer 1, then killer 2
                if m is not None and m in moves and moves[0] != m:
                    moves.remove(m)
                    moves.insert(0, m)
            return moves

        def expand(state: State, moves: Sequence[Any], side: int, depth: int, beta: float,
                   children: list[Child]) -> tuple[float, Any]:
            """Make every child; a terminal child, or one whose TT entry proves it (enhanced transposition
            cutoff, Plaat et al. 1996), that already refutes (>= beta) ends the node at once.

            Fills ``children`` with the children left to search; returns the best value and move so far.
            """
            best = -INF
            best_move = None
            poll = budget.poll if costly(state, len(moves)) else None
            keep = not big(state)
            for move in moves:
                if poll is not None:
                    poll()
                child = apply(state, move)
                child_player = to_move(child)
                if child_player == TERMINAL:
                    search.nodes += 1
                    value = side * utilities(child)[ref]
                elif child_player == CHANCE:
                    raise ValueError("alpha-beta met a chance node; use expectimax")
                else:
                    if tt_get is None or depth <= 1:
                        children.append((move, child if keep else None, child_player, None))
                        continue
                    child_key = key(child)
                    children.append((move, child if keep else None, child_player, child_key if keep else None))
                    known = tt_get(child_key)
                    if known is None or known[0] not in (depth - 1, UNLIMITED_DEPTH):
                        continue
                    # Our lower bound on this child: its lower bound, or minus its upper bound.
                    value = -known[2] if sides[child_player] != side else known[1]
                    if value < beta:
                        continue  # a bound that proves nothing here: search the child below
                    search.tt_hits += 1
                    if known[0] != UNLIMITED_DEPTH:
                        search.horizon_hits += 1
                if value > best:
                    best = value
                    best_move = move
                    if value >= beta:
                        break
            return best, best_move

        def cut_off(move: Any, depth: int, ply: int) -> None:
            """Remember a refutation: its history score and this ply's killers (Schaeffer 1989; Akl & Newborn 1977)."""
            # depth^2; without a depth (exact), cut-offs near the root weigh most, as they would there.
            history[move] += depth * depth if depth < 4096 else 1 << max(0, 30 - ply)
            slot = killers[ply]
            if slot[0] != move:
                slot[1] = slot[0]
                slot[0] = move

        def remember(k: Hashable, entry: Any, exact: bool, depth: int, best: float, best_move: Any,
                     alpha0: float, beta: float, side: int, tt_move: Any) -> Any:
            """Store the result: an upper bound (fail-low), a lower bound (fail-high), or exact; at the depth
            searched, or as exact to the end when no horizon was met below. Returns the best move stored."""
            assert tt is not None
            stored_depth = UNLIMITED_DEPTH if exact else depth
            if entry is not None and entry[0] == stored_depth:
                low, high = entry[1], entry[2]  # narrow the bounds already known
            else:
                low, high = -INF, INF
            if best <= alpha0:
                high = best
                if best_move is None:
                    best_move = tt_move
            elif best >= beta:
                low = best
            else:
                low = high = best
            tt[k] = (stored_depth, low, high, best_move, side)
            return best_move

        def negamax(state: State, player: int, depth: int, alpha: float, beta: float, ply: int,
                    k: Hashable = None) -> float:
            # ``k`` is the state's key when the caller already computed it (keys can cost: symmetries).
            search.nodes += 1
            if search.nodes >= budget.next_check:
                budget.check(search.nodes)
            side = sides[player]
            alpha0 = alpha
            if k is None:
                k = key(state)
            # Probe the table. Same remaining depth only (or an exact subtree): a deeper entry would make
            # the value differ from the depth-limited minimax value, and ID results depend on it. An entry
            # keeps both a lower and an upper bound (equal when exact), so that the null-window searches
            # of MTD(f) do not overwrite each other's bounds.
            tt_move = None
            entry = tt_get(k) if tt_get is not None else None
            if entry is not None:
                e_depth, e_low, e_high, tt_move = entry[0], entry[1], entry[2], entry[3]
                if e_depth in (depth, UNLIMITED_DEPTH) and (e_low >= beta or e_high <= alpha or e_low == e_high):
                    search.tt_hits += 1
                    if e_depth < UNLIMITED_DEPTH:
                        search.horizon_hits += 1  # this answer leans on a horizon
                    if ply == 0:
                        search.root_best = tt_move
                    return e_low if e_low >= beta or e_low == e_high else e_high
            # Guards: a state already on the path (a cycle) or a path too deep for Python.
            if on_path is not None:
                if k in on_path:
                    raise CycleFound(state)
                on_path.add(k)
            if ply >= max_ply:
                raise TooDeep(ply)
            horizon_before = search.horizon_hits
            moves = legal(state)
            if not moves:  # no value to take the best of: a bug in the rules, not a loss worth -inf
                raise dead_end(game, state, player)
            if len(moves) > 1024:  # a very wide node costs as much as many narrow ones: check the budget now
                budget.check(search.nodes)
            if ordering and len(moves) > 1:
                moves = order(list(moves), tt_move, ply)
            children: list[Child] = []
            best, best_move = expand(state, moves, side, depth, beta, children)
            if best > alpha:
                alpha = best
            if best < beta:  # search the children in order (heuristic values at the horizon) to a cut-off
                for move, child, child_player, child_key in children:
                    if child is None:  # a big state's child, made again (see solver.limits.BIG_STATE)
                        child = apply(state, move)
                    # At the horizon the heuristic, unless quiescence searches on from a position that is not quiet
                    if depth <= 1 and (depth <= last_scored or is_quiet(child)):
                        search.nodes += 1
                        search.horizon_hits += 1
                        h = heuristic(child)
                        value = 0.0 if h is None else side * h[ref]
                    else:
                        try:
                            if sides[child_player] == side:
                                value = negamax(child, child_player, depth - 1, alpha, beta, ply + 1, child_key)
                            else:
                                value = -negamax(child, child_player, depth - 1, -beta, -alpha, ply + 1,
                                                 child_key)
                        except DeadEndError as error:
                            raise error.prepend(move) from None  # the line to the dead end, as we unwind
                    if value > best:
                        best = value
                        best_move = move
                        if value > alpha:
                            alpha = value
                            if alpha >= beta:
                                if ordering:
                                    cut_off(move, depth, ply)
                                break
            if on_path is not None:
                on_path.discard(k)
            if tt is not None and (entry is not None or len(tt) < tt_cap):
                exact = search.horizon_hits == horizon_before
                best_move = remember(k, entry, exact, depth, best, best_move, alpha0, beta, side, tt_move)
            if ply == 0:
                search.root_best = best_move
            return best

        return negamax

    def principal_variation(self, state: State, first: Any, limit: int) -> tuple[Any, ...]:
        """Follow best moves from the transposition table, starting with ``first`` (see :func:`walk_line`)."""
        symmetric = bool(self.game.symmetries)

        def stored(state: State, k: Hashable) -> Any:
            entry = self.tt.get(k)
            if entry is None:
                return None
            # With symmetric keys the stored move belongs to the image that was searched, not to this state.
            return self._move_keeping(state, entry) if symmetric else entry[3]

        return walk_line(self.game, state, first, stored, limit)

    def _move_keeping(self, state: State, entry: tuple[int, float, float, Any, int]) -> Any:
        """A move of ``state`` to a child proven to keep its exact value, or None."""
        side = entry[4]
        value = self._proven(entry)
        if value is None:
            return None
        game, sides, ref = self.game, self.sides, self.reference
        moves = list(game.legal_moves(state))
        if value <= self.window(side)[0]:
            return moves[0] if moves else None  # the mover is lost: every move keeps the value
        for move in moves:
            child = game.apply(state, move)
            player = game.to_move(child)
            if player == TERMINAL:
                child_value: float | None = side * game.utilities(child)[ref]
            else:
                known = self.tt.get(game.key(child))
                child_value = None if known is None else self._proven(known)
                if child_value is not None and sides[player] != side:
                    child_value = -child_value
            if child_value == value:
                return move
        return None

    def _proven(self, entry: tuple[int, float, float, Any, int]) -> float | None:
        """The exact value an entry proves (for its side), or None: equal bounds, or a bound at a utility bound."""
        depth, low, high, _, side = entry
        if depth < UNLIMITED_DEPTH:
            return None
        bottom, top = self.window(side)
        if low == high or low >= top:
            return low
        if high <= bottom:
            return high
        return None

    def leaf_values(self, state: State, line: tuple[Any, ...]) -> tuple[float, ...]:
        """Utilities (or heuristic, or zeros) at the end of ``line``."""
        game = self.game
        for move in line:
            state = game.apply(state, move)
        if game.to_move(state) == TERMINAL:
            return tuple(game.utilities(state))
        h = game.heuristic(state)
        return tuple(h) if h is not None else (0.0,) * len(game.players)

    def stats(self, depth: int) -> SearchStats:
        self.budget.nodes = self.nodes
        self.budget.tt_hits = self.tt_hits
        self.budget.tt_size = len(self.tt)
        self.budget.depth = depth
        return self.budget.stats()


def walk_line(game: Game, root: State, first: Any, next_move: Callable[[State, Hashable], Any], limit: int,
              seen: set[Hashable] | None = None) -> tuple[Any, ...]:
    """A principal variation: ``first``, then ``next_move(state, key)`` in each state reached, until it gives None.

    The one walk of every alpha-beta line (the searcher's, from its table; the exact solver's, each
    move proven by a null-window search). It stops at the end of the game, after ``limit`` moves, on
    a repetition (a state of ``seen`` or of the line: a cycle worth 0), or when a search that
    ``next_move`` runs stops (budget or Ctrl-C): the line so far.
    """
    line: list[Any] = []
    seen = set() if seen is None else seen
    state, move = root, first
    try:
        while move is not None and len(line) < limit:
            line.append(move)
            state = game.apply(state, move)
            k = game.key(state)
            if game.to_move(state) < 0 or k in seen:
                break
            seen.add(k)
            move = next_move(state, k)
    except (SearchStopped, KeyboardInterrupt):
        pass  # the line so far
    return tuple(line)


def alphabeta(
    game: Game,
    state: State | None = None,
    limits: Limits | None = None,
    *,
    use_tt: bool = True,
    ordering: bool = True,
    iterative: bool = True,
    paranoid: bool = False,
    progress: Callable[[SearchStats], Any] | None = None,
) -> SearchResult:
    """Alpha-beta from ``state`` (default: the initial state) within ``limits``.

    With ``limits.depth`` the search is depth-limited (heuristic at the
    horizon); without it, iterative deepening continues until a search
    reaches no horizon (the value is then exact) or the budget runs out.
    With ``iterative=False`` one search is run at ``limits.depth`` (or to the
    end of the game, for acyclic games only). ``limits.quiescence`` searches on
    past the horizon from positions that are not quiet (Beal 1990).

    ``value`` is one entry per player: ``(v, -v)`` for a two-player zero-sum
    game; with ``paranoid=True``, the root player's entry is its paranoid
    value and the others are read at the end of the principal variation.
    ``best_moves`` holds the one move the search chose.

    :raises ValueError: the game has chance nodes, or is not two-player
        zero-sum and ``paranoid`` is False.
    """
    check_alphabeta(game, paranoid)
    limits = limits or Limits()
    root = game.initial_state() if state is None else state
    budget = Budget(limits, progress)
    player = game.to_move(root)
    if player == TERMINAL:
        return SearchResult(tuple(game.utilities(root)), (), (), True, budget.stats(), Algorithm.ALPHABETA)
    if player == CHANCE:
        raise ValueError("alpha-beta cannot start at a chance node")
    if paranoid and not is_two_player_zero_sum(game):
        reference, sides = player, tuple(1 if p == player else -1 for p in range(len(game.players)))
    else:
        reference, sides = 0, (1, -1)
    search = NegamaxSearch(game, budget, reference=reference, sides=sides, use_tt=use_tt, ordering=ordering,
                           table_entries=limits.entries(entry_bytes(PYTHON_ENTRY_BYTES, root)),
                           quiescence=limits.quiescence)
    if iterative:
        depths = range(1, min(limits.depth or UNLIMITED_DEPTH, max_search_ply() - 1) + 1)
    else:
        depths = range(limits.depth or UNLIMITED_DEPTH, (limits.depth or UNLIMITED_DEPTH) + 1)
    algorithm = Algorithm.PARANOID if reference != 0 or paranoid else Algorithm.ALPHABETA
    return _iterate(search, root, player, depths, limits, algorithm)


def _iterate(search: NegamaxSearch, root: State, player: int, depths: range, limits: Limits,
             algorithm: str) -> SearchResult:
    """Iterative deepening: keep the result of the last completed depth; stop when exact or out of budget."""
    game = search.game
    side = search.sides[player]
    done: tuple[float, Any, int, bool] | None = None  # (score, move, depth, exact)
    stop_reason = None
    try:
        for depth in depths:
            before = search.horizon_hits
            score = side * search.negamax(root, player, depth, *search.window(side), 0)
            exact = search.horizon_hits == before
            done = (score, search.root_best, depth, exact)
            if exact:
                break
            if not search.budget.time_left():
                stop_reason = StopReason.TIME
                break
    except SearchStopped as stop:
        stop_reason = stop.reason
    except KeyboardInterrupt:
        stop_reason = StopReason.INTERRUPT
    except TooDeep:
        stop_reason = StopReason.DEPTH
    if done is None:  # not even depth 1 finished: fall back to the first legal move
        move = search.root_best if search.root_best is not None else next(iter(game.legal_moves(root)))
        values = search.leaf_values(root, ())
        return SearchResult(values, (move,), (move,), False, search.stats(0), algorithm, True, stop_reason)
    score, move, depth, exact = done
    pv = search.principal_variation(root, move, depth)
    values = _values(game, search, root, score, pv)
    stopped = stop_reason is not None and not exact
    return SearchResult(values, (move,), pv, exact, search.stats(depth), algorithm, stopped,
                        stop_reason if stopped else None)


def _values(game: Game, search: NegamaxSearch, root: State, score: float, pv: tuple[Any, ...]) -> tuple[float, ...]:
    """The per-player value vector of a score of the reference player."""
    if search.sides == (1, -1) and search.reference == 0 and len(game.players) == 2:
        return (score + 0.0, 0.0 - score)  # no -0.0 in results
    values = list(search.leaf_values(root, pv))
    values[search.reference] = score
    return tuple(values)
