"""The CLI's bridge to the solver suite: pick an algorithm, value the root moves, build agents from specs.

Everything here goes through the solver's public API (:mod:`solver.alphabeta`,
:mod:`solver.expectimax`, :mod:`solver.minimax`, :mod:`solver.shortest_path`,
:mod:`solver.table`, :mod:`solver.limits`); the CLI never searches by itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from gdl.runtime import CompiledGame
from solver import auto
from solver.auto import EXACT_METHODS, Algorithm
from solver.game import TERMINAL, DeadEndError
from solver.limits import Limits, SearchResult, SearchStats, SearchStopped
from solver.solution import Solution as ExactSolution
from solver.table import TableError

if TYPE_CHECKING:
    from solver import agents

ALGORITHMS = tuple(str(a) for a in (Algorithm.AUTO, *EXACT_METHODS, Algorithm.EXPECTIMAX, Algorithm.MINIMAX,
                                    Algorithm.PUZZLE))


class EngineError(ValueError):
    """An algorithm or agent that does not fit the game, or a bad agent spec (a usage error)."""


Progress = Callable[[SearchStats], Any]


def auto_algorithm(game: CompiledGame, heuristic: bool = False, depth: bool = False) -> str:
    """The algorithm for ``game`` (:func:`solver.auto.choose`): ``heuristic`` for a depth or time limit."""
    return auto.choose(game, heuristic=heuristic, depth=depth)


RULE_GRACE = 0.1
"""A rule evaluation is stopped ``RULE_GRACE`` of ``--time`` (and a quarter of a second) after the search's
own deadline, so that a search stopped on time still has a moment for its fallback (a quick guess of a move)."""


def search(game: CompiledGame, state: Any, algorithm: str = "auto", limits: Limits | None = None,
           progress: Progress | None = None, plies: bool = True, move_values: bool = False,
           all_best: bool = True) -> SearchResult:
    """One search from ``state`` within ``limits``, a single rule evaluation included (see
    :func:`gdl.runtime.rule_budget`): one that outlasts them stops the search like its own budget would.
    ``plies=False``: an exact solve skips the distance to the end; ``move_values``: an exact alpha-beta
    solve values every root move in the same search (``Solution.move_values``); ``all_best=False``: an exact
    solve settles for one optimal root move.
    """
    from gdl.runtime import rule_budget

    limits = limits or Limits()
    seconds = None if limits.seconds is None else limits.seconds * (1 + RULE_GRACE) + 0.25
    started = time.perf_counter()
    try:
        with rule_budget(seconds, limits.nodes):
            return _search(game, state, algorithm, limits, progress, plies, move_values, all_best)
    except SearchStopped as stop:  # a rule evaluation outlasted the budget where the search could not catch it
        zeros = (0.0,) * len(game.players)
        stats = SearchStats(seconds=time.perf_counter() - started)
        return SearchResult(zeros, (), (), False, stats, algorithm, True, stop.reason,
                            note="a single rule evaluation outlasted the budget: no move was evaluated")


def _search(game: CompiledGame, state: Any, algorithm: str = "auto", limits: Limits | None = None,
            progress: Progress | None = None, plies: bool = True, move_values: bool = False,
            all_best: bool = True) -> SearchResult:
    """One search from ``state``: exact without depth/time limits, heuristic with them.

    With ``algorithm="auto"`` and no depth or time limit, the exact solver
    (:func:`solver.exact.solve`) picks its method; the result then carries
    a ``table`` of every state solved. A depth-limited search (alpha-beta,
    expectimax, minimax) given time or nodes but no depth deepens iteratively
    within them and reports the deepest completed depth; the exact methods
    take time, nodes and table caps (not a depth).

    :raises EngineError: the algorithm does not fit the game.
    """
    from solver import alphabeta, exact
    from solver.limits import iterative_deepening

    limits = limits or Limits()
    heuristic = limits.depth is not None or limits.seconds is not None
    automatic = algorithm == "auto"
    if automatic:
        algorithm = auto_algorithm(game, heuristic, limits.depth is not None)
    budgeted = limits.seconds is not None or limits.nodes is not None
    if automatic and algorithm in ("alphabeta", "expectimax", "minimax") and limits.depth is None and limits.seconds:
        # --time T means "stop by T": the exact solver first; if it does not finish, deepening uses the rest.
        return _exact_then_deepen(game, state, algorithm, limits, progress)
    # "alphabeta" names the exact MTD(f) method and the depth-limited search: the search (deepening, exact
    # if it finishes) under a depth or time limit, or for a game the exact method does not fit (paranoid).
    as_method = not heuristic and auto.is_deterministic_duel(game) if algorithm == "alphabeta" else limits.depth is None
    try:
        if algorithm == "exact" or (algorithm in EXACT_METHODS and as_method):
            method = "auto" if algorithm == "exact" else algorithm
            return exact.solve(game, state, limits, method=method, progress=progress, plies=plies,
                               move_values=move_values, all_best=all_best)
        if algorithm == "alphabeta":
            paranoid = not auto.is_two_player_zero_sum(game)
            return alphabeta.alphabeta(game, state, limits, paranoid=paranoid, progress=progress)
        if algorithm in ("expectimax", "minimax"):
            from solver import expectimax, minimax

            run = expectimax.expectimax if algorithm == "expectimax" else minimax.minimax
            if limits.depth is None and budgeted:
                return iterative_deepening(lambda lim: run(game, state, lim, progress=progress), limits)
            return run(game, state, limits, progress=progress)
        if algorithm == "puzzle":
            return _puzzle(game, state, limits, progress)
    except DeadEndError:
        raise  # a bug in the rules, not an algorithm that does not fit
    except RecursionError:
        raise EngineError(f"{algorithm} cannot search {game.name} to the end: the game is too long or has "
                          "cycles (give --depth, --time or --max-nodes for a heuristic search)") from None
    except ValueError as error:
        raise EngineError(f"{algorithm} cannot search {game.name}: {error}") from None
    raise EngineError(f"{algorithm} cannot search with a depth or time limit; use alphabeta, expectimax or "
                      "minimax" if algorithm in EXACT_METHODS else f"unknown algorithm {algorithm!r} "
                      f"(algorithms: {', '.join(ALGORITHMS)})")


HEURISTIC_SHARE = 0.2
"""The share of ``--time`` kept for a heuristic search in case the exact solver does not finish ..."""
HEURISTIC_MAX_SECONDS = 10.0
"""... but never more than this: a long budget goes to the exact solver (a deepening search gains little more)."""


def _exact_then_deepen(game: CompiledGame, state: Any, algorithm: str, limits: Limits,
                       progress: Progress | None) -> SearchResult:
    """``--time T``: the exact solver, within T less a reserve; if it stops, ``algorithm`` deepening in the rest.

    The answer says which it is: exact (or a proven value), or an estimate whose ``note``
    tells how long the exact solver ran and what it proved.
    """
    from solver import exact

    started = time.perf_counter()
    assert limits.seconds is not None
    reserve = min(limits.seconds * HEURISTIC_SHARE, HEURISTIC_MAX_SECONDS)
    first = exact.solve(game, state, replace(limits, seconds=limits.seconds - reserve), progress=progress)
    proven = first.bounds is not None and first.bounds[0] == first.bounds[1]
    if first.exact or proven or not first.stopped or first.stop_reason in ("interrupt", "nodes", "table"):
        return first  # solved, or a cap that a second search would hit as well (``first`` has a guess)
    seconds = limits.seconds - (time.perf_counter() - started)
    nodes = None if limits.nodes is None else limits.nodes - first.stats.nodes
    stopped = f"not solved: the exact solver stopped after {first.stats.seconds:.3g} s ({first.stats.nodes:,} nodes)"
    if seconds <= 0 or (nodes is not None and nodes <= 0):  # no budget left for a second search
        return replace(first, note=f"{stopped}; {first.note or 'no time was left for a heuristic search'}")
    no_heuristic = auto.fallback(game, state) == auto.Algorithm.MCTS
    if no_heuristic:  # a depth-limited search would see nothing short of the end: random playouts do
        from solver.mcts import mcts

        result = mcts(game, state, replace(limits, seconds=seconds, nodes=nodes, iterations=None), seed=0,
                      progress=progress)
    else:
        result = search(game, state, algorithm, replace(limits, seconds=seconds, nodes=nodes), progress)
    if result.exact:
        return result
    stats = replace(result.stats, nodes=result.stats.nodes + first.stats.nodes,
                    seconds=time.perf_counter() - started, tt_size=max(result.stats.tt_size, first.stats.tt_size))
    proof = ""
    if first.bounds is not None and tuple(first.bounds) != tuple(game.utility_bounds or ()):
        low, high = first.bounds
        proof = f"; it proved {game.players[0]}'s value lies between {low:g} and {high:g}"
    then = (f"MCTS then ran {result.stats.iterations:,} random playouts in the rest of --time (the game has no "
            "heuristic for a depth-limited search)" if no_heuristic
            else f"{algorithm} then searched to depth {result.stats.depth} in the rest of --time")
    note = f"{stopped}{proof}; {then}: the value is a heuristic estimate, not proven"
    return replace(result, stats=stats, note=note)


def _puzzle(game: CompiledGame, state: Any, limits: Limits, progress: Progress | None) -> SearchResult:
    """Shortest-path search (:func:`solver.shortest_path.solve_puzzle`): it takes --time, --max-nodes and the table
    cap (a puzzle search keeps about one state per state expanded) itself."""
    from solver.shortest_path import solve_puzzle

    return solve_puzzle(game, state, limits, progress=progress)


def unsolvable(result: SearchResult) -> bool:
    """A puzzle search that explored every reachable state and found no goal."""
    return result.algorithm in PUZZLE_ALGORITHMS and result.exact and result.plies is None


PUZZLE_ALGORITHMS = auto.PUZZLE_SEARCHES


@dataclass
class Solution:
    """A root search plus the value of each root move (where they could be computed)."""

    result: SearchResult
    player: int
    move_values: list[tuple[Any, tuple[float, ...] | None]] = field(default_factory=list)
    move_plies: dict[str, float | None] = field(default_factory=dict)
    """The distance to the end after each root move, where known (a puzzle: the rest of its shortest solution)."""

    @property
    def best_moves(self) -> list[Any]:
        """Every root move whose value equals the root value for the mover (or the searched best move)."""
        if self.result.algorithm not in ("minimax", "expectimax", "astar", "bfs", "puzzle"):
            return list(self.result.best_moves)  # the exact solver and alpha-beta list them themselves
        known = [(m, v) for m, v in self.move_values if v is not None]
        if self.result.exact and known and len(known) == len(self.move_values) and self.player >= 0:
            top = self.result.value[self.player]
            best = [m for m, v in known if abs(v[self.player] - top) <= 1e-9]
            here = self.result.plies
            if here is not None and self.result.algorithm in PUZZLE_ALGORITHMS:
                # Only the moves on a shortest solution: one move nearer the goal.
                best = [m for m in best if self.move_plies.get(str(m)) == here - 1]
            if best:
                return best
        return list(self.result.best_moves)


MOVE_NODES = 500_000
"""The searches that value the root moves the solve's table lacks take at most as many nodes as the root's search,
at most this many ..."""
MOVE_EXTRA_NODES = 50_000
"""... and this many more (a moment of Python). Counted, so that a busy machine values the same moves; after a
``--time``, within ``min(root time, 10 s) + extra_seconds`` too."""


def solve_with_moves(game: CompiledGame, state: Any, algorithm: str = "auto", limits: Limits | None = None,
                     progress: Progress | None = None, extra_seconds: float = 1.0) -> Solution:
    """Search the root, then value each root move: from the solved table where it has the move's state,
    else by a search of its own, within ``MOVE_NODES`` and ``MOVE_EXTRA_NODES``."""
    started = time.perf_counter()
    limits = limits or Limits()
    # In C the root's table stays in C (converting it whole costs more than searching each child again): the
    # root's own search values the moves. In Python the solved table has most children, and their plies.
    in_c = game.backend == "c"
    result = search(game, state, algorithm, limits, progress, move_values=in_c)
    if algorithm == "auto":
        algorithm = auto_algorithm(game, limits.depth is not None or limits.seconds is not None,
                                   limits.depth is not None)
    player = game.to_move(state)
    solution = Solution(result, player)
    if result.exact:
        sweep_dead_ends(game, state, result, limits, started)
    if not result.exact or result.stopped or player < 0 or unsolvable(result):
        return solution  # (no goal from the root: none from its children either, as they are reachable from it)
    if in_c and isinstance(result, ExactSolution) and result.move_values:  # found by the solve itself
        _values_from_the_root_search(game, state, result, solution)
        return solution
    table = result.table if isinstance(result, ExactSolution) else None  # the exact solver's solved states
    if in_c:
        table = None
    timed = limits.seconds is not None
    deadline = time.perf_counter() + min(result.stats.seconds, 10.0) + extra_seconds
    nodes = result.stats.nodes
    most = nodes + min(nodes, MOVE_NODES) + MOVE_EXTRA_NODES
    best = {str(m) for m in result.best_moves}
    moves = list(game.legal_moves(state))
    try:
        for move in moves:
            child = game.apply(state, move)
            value: tuple[float, ...] | None = None
            if table is not None and game.key(child) in table.values:
                value = tuple(table.values[game.key(child)])
                solution.move_plies[str(move)] = table.plies.get(game.key(child))
            elif game.to_move(child) == TERMINAL:
                value = tuple(game.utilities(child))
                solution.move_plies[str(move)] = 0.0
            elif nodes < most and (not timed or deadline - time.perf_counter() > 0):
                sub_limits = Limits(seconds=deadline - time.perf_counter() if timed else None,
                                    nodes=min(most - nodes, limits.nodes or most),
                                    table_entries=limits.table_entries, memory_bytes=limits.memory_bytes)
                # (the same caps as the root search)
                # (in C the value is quick and the walk for the distance is not: values first, for every move)
                sub = search(game, child, algorithm, sub_limits, progress, plies=game.backend != "c")
                nodes += sub.stats.nodes
                if sub.stopped and sub.stop_reason == "interrupt":
                    raise KeyboardInterrupt
                value = tuple(sub.value) if sub.exact else None
                solution.move_plies[str(move)] = sub.plies if sub.exact else None
            if value is None and str(move) in best and algorithm not in ("puzzle", "minimax", "expectimax"):
                value = tuple(result.value)  # an optimal move is worth the root's value
            solution.move_values.append((move, value))
    except KeyboardInterrupt:  # Ctrl-C while valuing the moves: keep the exact root result
        done = {str(m) for m, _ in solution.move_values}
        solution.move_values.extend((m, None) for m in moves if str(m) not in done)
    stats = replace(result.stats, nodes=nodes, seconds=time.perf_counter() - started)
    solution.result = replace(result, stats=stats)
    return solution


def _values_from_the_root_search(game: CompiledGame, state: Any, result: ExactSolution, solution: Solution) -> None:
    """Each root move's value as the root's alpha-beta search found it (a move it had no time for before a stop
    or Ctrl-C: unknown), and its distance to the end where the walk of the optimal lines reached it."""
    known = dict(result.move_values)
    plies = result.table.plies if result.table is not None else {}
    for move in game.legal_moves(state):
        solution.move_values.append((move, known.get(move)))
        child = game.apply(state, move)
        if game.to_move(child) == TERMINAL:
            solution.move_plies[str(move)] = 0.0
        elif result.plies is not None:
            solution.move_plies[str(move)] = plies.get(game.key(child))


SWEEP_STATES = 200_000
"""Most states of the dead-end sweep after an exact solve that may have skipped some ..."""
SWEEP_MIN_STATES = 50_000
"""... and never more than the solve's own nodes, but at least this many (a second or so of a bundled game), fewer
for a state of many cells (:func:`gdl.steps.state_steps`), and within ``--time``. Counted, not timed: whether the
sweep reaches a dead end does not depend on the machine."""
FULL_GRAPH = ("backward", "retrograde", "value_iteration", "minimax")
"""Exact searches that visit every reachable state (they meet every dead end themselves)."""


def sweep_dead_ends(game: CompiledGame, state: Any, result: SearchResult, limits: Limits, started: float) -> None:
    """After an exact solve that pruned (alpha-beta), look at every reachable state for a dead end, if that is cheap.

    A value proven by alpha-beta holds whatever a skipped dead end would be worth, but a
    dead end is a bug in the rules that `gdl solve` should not hide where it can find it:
    a breadth-first sweep within ``SWEEP_STATES`` (see ``SWEEP_MIN_STATES``; a game too big for
    it keeps its proven value; `gdl check` looks further).

    :raises DeadEndError: with the moves that reach the dead end from ``state``.
    """
    from gdl.steps import StepBudget, state_steps
    from solver.exact import StateGraph
    from solver.limits import Budget, SearchStopped

    if result.algorithm in FULL_GRAPH or result.stats.tt_size >= SWEEP_STATES:
        return  # every state seen already, or more states than the sweep may take
    cap = max(1, min(SWEEP_STATES, max(SWEEP_MIN_STATES, result.stats.nodes)) // state_steps(state))
    seconds = None if limits.seconds is None else limits.seconds - (time.perf_counter() - started)
    if seconds is not None and seconds <= 0:
        return
    try:
        with StepBudget(cap).rules():  # (one rule evaluation that outlasts the sweep is stopped too)
            StateGraph.explore(game, state, Budget(Limits(seconds=seconds)), cap)
    except (SearchStopped, KeyboardInterrupt):
        return  # too big to sweep now: the proven value stands


# ================================================================== agents
# Agents, their specs and single games come from :mod:`solver.agents`; the CLI only adds its defaults
# (a depth-limited search looks 4 plies ahead unless told otherwise) and turns errors into usage errors.

SEARCH_BUDGETS = ("depth", "seconds", "nodes")


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``alphabeta:depth=6,time=1`` -> ``("alphabeta", {"depth": 6, "seconds": 1.0})``.

    :raises EngineError: an unknown agent or option, or a bad value.
    """
    from solver import agents  # (the agents and their searches load only for the commands that play)

    try:
        return agents.parse_spec(spec)
    except ValueError as error:
        raise EngineError(str(error)) from None


def make_agent(spec: str, game: CompiledGame, seed: int | None = None) -> agents.Agent:
    """An agent from its spec: ``random``, ``perfect``, ``perfect:table=FILE``, ``alphabeta:depth=6``,
    ``minimax:depth=3``, ``expectimax:depth=4``, ``mcts:iterations=2000`` (see :mod:`solver.agents`).

    :raises EngineError: a bad spec, an algorithm that does not fit the game, or a table that does not.
    """
    name, options = parse_spec(spec)
    spec = spec.strip()
    if name in ("minimax", "alphabeta", "expectimax") and not any(k in options for k in SEARCH_BUDGETS):
        spec += ("," if ":" in spec else ":") + "depth=4"
    if name == "perfect" and not any(k in options for k in ("table", "seconds", "nodes", "tt")):
        from solver.agents import PERFECT_SECONDS  # stated in the label: `perfect:seconds=60`, its cap per move

        spec += ":" + f"seconds={PERFECT_SECONDS:g}"
    if name == "mcts" and not any(k in options for k in ("iterations", "seconds", "nodes", "tt")):
        from solver.mcts import DEFAULT_ITERATIONS  # stated in the label: `mcts:iterations=1000`

        spec += ("," if ":" in spec else ":") + f"iterations={DEFAULT_ITERATIONS}"
    from solver import agents

    try:
        return agents.make_agent(game, spec, seed)
    except TableError as error:
        raise EngineError(f"{name}: cannot use {_files(options)}: {error}") from None
    except OSError as error:
        raise EngineError(f"{name}: cannot use {_files(options)}: {error.strerror or error}") from None
    except DeadEndError:
        raise
    except ValueError as error:
        raise EngineError(f"{name} cannot play {game.name}: {error}") from None


def _files(options: dict[str, Any]) -> str:
    """``table 'x.sqlite'``, ``book 'b.sqlite'`` or both: the files an agent spec names."""
    return " and ".join(f"{kind} {options[kind]!r}" for kind in ("table", "book") if kind in options)


def table_from_solution(game: CompiledGame, state: Any, solution: Solution) -> Any:
    """A solved table holding what one solve learned: the root and each valued root move."""
    from solver.table import SolvedTable

    result = solution.result
    if isinstance(result, ExactSolution) and result.table is not None:
        return result.table
    table = SolvedTable.for_game(game, result.algorithm, complete=False)
    table.values[game.key(state)] = tuple(result.value)
    if solution.player >= 0:
        table.best[game.key(state)] = tuple(str(m) for m in solution.best_moves)
    for move, value in solution.move_values:
        if value is not None:
            table.values[game.key(game.apply(state, move))] = tuple(value)
    return table


__all__ = ["ALGORITHMS", "EngineError", "Solution", "make_agent", "search", "solve_with_moves"]
