"""Agents (``choose(state) -> move``) for every algorithm and a spec parser (matches: :mod:`solver.match`).

Agent specs, as the CLI takes them::

    random                          uniformly random legal moves (seeded)
    minimax:depth=3                 max^n (minimax for two players); also seconds=, nodes= (no table)
    alphabeta:depth=6               alpha-beta; also seconds=, nodes=, tt=, paranoid=true
    expectimax:depth=3              expectiminimax; also seconds=, nodes=, tt=, pruning=none|star1|star2|auto
    alphabeta:depth=2,quiescence=4  minimax, alpha-beta, expectimax: up to 4 plies past the horizon from
                                    positions that are not quiet (the rule file's `quiet when`)
    mcts:iterations=2000            UCT; also seconds=, nodes=, tt=, c=, rollout=random|heuristic, solver=false
    perfect                         exact play, solving each new position on the fly; seconds=, nodes=, tt=
    perfect:table=FILE              exact play from a solved table (see :mod:`solver.table`)
    alphabeta:depth=2,book=FILE     any searching agent: play from a book while in it (:mod:`solver.book`)
    alphabeta:depth=4,table=FILE    any searching agent: probe a solved table inside the search
                                    (a hit is an exact value and ends that branch; :mod:`solver.probe`)

Budgets (every searching agent, per move): ``seconds=`` (or ``time=``),
``nodes=``, and ``tt=ENTRIES``, the cap on its table (alpha-beta and
expectimax transposition tables, the MCTS tree, the perfect player's solved
states; minimax keeps none). Given seconds or nodes but no depth, minimax and
expectimax deepen iteratively (depth 1, 2, ...) and play the deepest completed
search's move; alpha-beta always does. ``perfect`` stops at
``PERFECT_SECONDS`` and ``PERFECT_TABLE`` unless told otherwise, then plays
the best move so far (proven bounds, or a heuristic guess) and says so in
``last.note``.

Matches between agents (round robins, scoring, intervals, Elo) are
:mod:`solver.match`.
"""

from __future__ import annotations

import difflib
import math
import random
from collections.abc import Callable, Hashable, Iterable
from dataclasses import replace
from typing import Any, Protocol

from solver.alphabeta import alphabeta, check_alphabeta
from solver.auto import is_puzzle, is_two_player_zero_sum
from solver.exact import solve
from solver.expectimax import check_expectimax, expectimax
from solver.game import Game, State, dead_end
from solver.limits import (
    PYTHON_ENTRY_BYTES,
    Limits,
    SearchResult,
    SearchStats,
    SearchStopped,
    StopReason,
    iterative_deepening,
)
from solver.mcts import check_mcts, mcts
from solver.minimax import minimax
from solver.probe import knowing
from solver.shortest_path import solve_puzzle
from solver.table import SolvedTable, load_table


class Agent(Protocol):
    name: str
    seconds: float | None
    """How long the agent may think about one move (``None``: no cap); a caller that bounds the
    evaluation of rules (the CLI) gives each move this long."""

    def choose(self, state: State) -> Hashable: ...


RANDOM_SECONDS = 10.0
"""The random player's cap per move: listing one position's legal moves never needs longer in a real game."""


class RandomAgent:
    """Picks a legal move uniformly at random, from its own seeded generator."""

    def __init__(self, game: Game, seed: int | None = None) -> None:
        self.game = game
        self.rng = random.Random(seed)
        self.name = "random"
        self.seconds: float | None = RANDOM_SECONDS

    def choose(self, state: State) -> Hashable:
        moves = list(self.game.legal_moves(state))
        if not moves:
            raise dead_end(self.game, state, self.game.to_move(state))
        return self.rng.choice(moves)


Progress = Callable[[Any], Any]


class SearchAgent:
    """Plays the first best move of a search; ``last`` keeps that search's result (with its statistics).

    ``progress``, when set, is passed to the search (a live display of its statistics).
    """

    def __init__(self, game: Game, name: str, search: Callable[[State, Progress | None], SearchResult],
                 seconds: float | None = None) -> None:
        self.game = game
        self.name = name
        self.search = search
        self.seconds = seconds
        self.last: SearchResult | None = None
        self.progress: Progress | None = None

    def choose(self, state: State) -> Hashable:
        self.last = self.search(state, self.progress)
        move = self.last.best_move
        if move is None and self.last.stopped:  # stopped before it could value a single move
            raise SearchStopped(self.last.stop_reason or StopReason.TIME)
        if move is None:
            raise ValueError("no move to choose: the game is over")
        return move


PERFECT_SECONDS = 60.0
"""The perfect player's default time cap per move (``perfect:seconds=`` overrides it)."""
PERFECT_TABLE = 500_000
"""The perfect player's default cap on solved states kept (``perfect:tt=``; about
:data:`~solver.limits.PYTHON_ENTRY_BYTES` each: 250 MB)."""


class PerfectAgent:
    """Plays an optimal move: from a solved table, else by solving the position (and remembering it).

    Optimal means value first, then the distance to the end (:mod:`solver.remoteness`): when
    winning it takes the fastest win, when losing it holds out longest, so its play makes
    progress even where the game has cycles. A puzzle (one player, no chance) is played along a
    shortest solution found by :func:`solver.shortest_path.solve_puzzle` (A* or breadth-first),
    kept until play leaves it.

    ``limits`` caps each solve (time, nodes, ``table_entries``); ``table_entries``
    also caps the states kept between moves. A solve that stops at a cap plays
    the best move so far and leaves ``last.stopped`` and ``last.note`` set.
    """

    def __init__(self, game: Game, table: SolvedTable | None = None, limits: Limits | None = None) -> None:
        if table is not None:
            table.check_game(game)
        self.game = game
        self.table = table
        self.loaded = table is not None
        self.limits = limits
        self.seconds = limits.seconds if limits is not None else None
        self.name = "perfect"
        self.progress: Progress | None = None
        self.last: SearchResult | None = None
        self.without_plies = False
        """A solve gave no distance to the end (too costly for this game): use the table without it."""
        self.plan: dict[Hashable, Hashable] = {}
        """A puzzle's shortest solution being played: the move to make in each state on it, by key."""

    def choose(self, state: State) -> Hashable:
        names = None
        # A table learnt from earlier solves is used where it knows the distance to the end (else the
        # position is solved again, with it); a table loaded from a file is used as it is.
        if self.table is not None and (self.loaded or self.without_plies
                                       or self.game.key(state) in self.table.plies):
            names = self.table.fastest_moves(self.game, state)
        if not names and self.table is None and is_puzzle(self.game):
            move = self._puzzle_move(state)
            if move is not None:
                return move
        if not names:
            solution = solve(self.game, state, self.limits, progress=self.progress, plies=True)
            self.last = solution
            if solution.stopped and solution.note:
                why = _REASONS.get(StopReason(solution.stop_reason or StopReason.STOPPED), solution.stop_reason)
                self.last = replace(solution, note=f"{self.name}: stopped ({why}); {solution.note}")
            if solution.table is not None and (solution.exact or solution.bounds is not None):
                self._remember(solution.table)  # proven values only (not a stopped estimate)
            if solution.best_move is None:
                raise ValueError("no move to choose: the game is over")
            if solution.exact and solution.plies is None:
                self.without_plies = True
            return solution.fastest_moves[0] if solution.fastest_moves else solution.best_move
        self.last = None
        return self.game.parse_move(state, names[0])

    def _puzzle_move(self, state: State) -> Hashable | None:
        """The next move of a shortest solution from ``state``; None when the search stopped at a cap.

        A puzzle with no solution at all has no better move than any other: the first legal one,
        with a note.
        """
        game = self.game
        key = game.key(state)
        if key not in self.plan:
            found = solve_puzzle(game, state, self.limits)
            if found.stop_reason == StopReason.INTERRUPT:
                raise KeyboardInterrupt  # as any other search of this agent would let Ctrl-C through
            if not found.solved:
                if not found.complete:
                    return None  # out of budget: the exact solver's stopped answer says so
                move = game.legal_moves(state)[0]
                stats = SearchStats(nodes=found.nodes, seconds=found.seconds)
                self.last = SearchResult((0.0,), (move,), (move,), True, stats, found.algorithm, note=(
                    f"{self.name}: this puzzle has no solution ({found.nodes:,} states explored); any move will do"))
                return move
            self.plan = {}
            for move in found.moves:
                self.plan[game.key(state)] = move
                state = game.apply(state, move)
            stats = SearchStats(nodes=found.nodes, seconds=found.seconds, depth=len(found.moves))
            self.last = SearchResult(found.value, found.moves[:1], found.moves, True, stats, found.algorithm,
                                     plies=float(len(found.moves)))
        else:
            self.last = None
        return self.plan[key]

    def _remember(self, table: SolvedTable) -> None:
        cap = self.limits.entries(PYTHON_ENTRY_BYTES) if self.limits is not None else None
        if self.table is None:
            self.table = table
        elif cap is None or len(self.table.values) + len(table.values) <= cap:
            self.table.values.update(table.values)
            self.table.best.update(table.best)
            self.table.plies.update(table.plies)
        elif not self.loaded:
            self.table = table  # full: keep the newest positions, which the game is about to reach


_REASONS = {StopReason.TIME: "out of time", StopReason.NODES: "out of nodes", StopReason.TABLE: "table full",
            StopReason.INTERRUPT: "interrupted", StopReason.ITERATIONS: "out of iterations",
            StopReason.DEPTH: "too deep"}


# ------------------------------------------------------------------ specs

_BOOL = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


def _whole(text: str, least: int, below: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError("a whole number is needed") from None
    if value < least:
        raise ValueError(below)
    return value


def _positive_int(text: str) -> int:
    return _whole(text, 1, "must be at least 1")


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError("a number is needed") from None
    if not math.isfinite(value):
        raise ValueError("must be a finite number")
    if not value > 0:
        raise ValueError("must be positive")
    return value


def _count(text: str) -> int:
    return _whole(text, 0, "must not be negative")


def _bool(text: str) -> bool:
    try:
        return _BOOL[text.lower()]
    except KeyError:
        raise ValueError("must be true or false") from None


ALIASES = {"time": "seconds"}
"""Other spellings of options (``alphabeta:time=2`` is ``alphabeta:seconds=2``)."""

_KNOWLEDGE: dict[str, Callable[[str], Any]] = {"book": str, "table": str}
"""``book=FILE`` and ``table=FILE``, which every searching agent takes (:mod:`solver.probe`)."""
_QUIESCENCE: dict[str, Callable[[str], Any]] = {"quiescence": _count}
"""``quiescence=N``, which every depth-limited search takes (:attr:`solver.limits.Limits.quiescence`)."""

OPTIONS: dict[str, dict[str, Callable[[str], Any]]] = {
    "random": {},
    "minimax": {"depth": _positive_int, "seconds": _positive_float, "nodes": _positive_int, **_QUIESCENCE,
                **_KNOWLEDGE},
    "alphabeta": {"depth": _positive_int, "seconds": _positive_float, "nodes": _positive_int, "paranoid": _bool,
                  "tt": _positive_int, **_QUIESCENCE, **_KNOWLEDGE},
    "expectimax": {"depth": _positive_int, "seconds": _positive_float, "nodes": _positive_int, "pruning": str,
                   "tt": _positive_int, **_QUIESCENCE, **_KNOWLEDGE},
    "mcts": {"iterations": _positive_int, "seconds": _positive_float, "nodes": _positive_int, "c": _positive_float,
             "rollout": str, "solver": _bool, "tt": _positive_int, **_KNOWLEDGE},
    "perfect": {"table": str, "seconds": _positive_float, "nodes": _positive_int, "tt": _positive_int, "book": str},
}
"""Every agent and its options, each with the function that parses its value."""


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"alphabeta:depth=6,seconds=2"`` -> ``("alphabeta", {"depth": 6, "seconds": 2.0})``.

    :raises ValueError: an unknown agent or option, a malformed or bad value.
    """
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if name not in OPTIONS:
        raise ValueError(f"unknown agent {name!r} in {spec!r}{_did_you_mean(name, OPTIONS)}; "
                         f"agents: {', '.join(OPTIONS)}")
    allowed = OPTIONS[name]
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, text = item.partition("=")
        key = ALIASES.get(key.strip().lower(), key.strip().lower())
        if not eq or not text.strip():
            raise ValueError(f"option {item!r} of {spec!r} needs a value: write {key}=VALUE")
        if key not in allowed:
            known = ", ".join(allowed) or "none"
            raise ValueError(f"agent {name!r} has no option {key!r}{_did_you_mean(key, [*allowed, *ALIASES])} "
                             f"(options: {known})")
        try:
            options[key] = allowed[key](text.strip())
        except ValueError as exc:
            raise ValueError(f"bad value {text.strip()!r} for {name} option {key!r}: {exc}") from None
    return name, options


def _did_you_mean(word: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def make_agent(game: Game, spec: str, seed: int | None = None) -> Agent:
    """An agent for ``game`` from a spec such as ``"alphabeta:depth=6"`` (see the module docstring).

    :raises ValueError: a bad spec, or an algorithm that does not fit the game
        (for example alpha-beta for a game with chance nodes).
    :raises StaleTableError: ``perfect:table=FILE`` (or ``book=``, ``table=``) was made for another game or
        parameters.
    """
    name, options = parse_spec(spec)
    book, table = options.pop("book", None), options.pop("table", None) if name != "perfect" else None
    if book is None and table is None:
        return _make_agent(game, name, options, spec.strip(), seed)
    return knowing(game, spec.strip(), book, table, lambda searched: _make_agent(searched, name, options,
                                                                               spec.strip(), seed))


def _make_agent(game: Game, name: str, options: dict[str, Any], label: str, seed: int | None) -> Agent:
    if name == "random":
        return RandomAgent(game, seed)
    limits = Limits(seconds=options.get("seconds"), nodes=options.get("nodes"), depth=options.get("depth"),
                    iterations=options.get("iterations"), table_entries=options.get("tt"),
                    quiescence=options.get("quiescence", 0))
    deepen = limits.depth is None and (limits.seconds is not None or limits.nodes is not None)
    if name == "minimax":
        if deepen:
            return SearchAgent(game, label, lambda s, p: iterative_deepening(
                lambda lim: minimax(game, s, lim, progress=p), limits), limits.seconds)
        return SearchAgent(game, label, lambda s, p: minimax(game, s, limits, progress=p), limits.seconds)
    if name == "alphabeta":
        paranoid = options.get("paranoid", not is_two_player_zero_sum(game))
        check_alphabeta(game, paranoid)
        return SearchAgent(game, label, lambda s, p: alphabeta(game, s, limits, paranoid=paranoid, progress=p),
                       limits.seconds)
    if name == "expectimax":
        pruning = check_expectimax(game, options.get("pruning", "auto"))
        if deepen:
            return SearchAgent(game, label, lambda s, p: iterative_deepening(
                lambda lim: expectimax(game, s, lim, pruning=pruning, progress=p), limits), limits.seconds)
        return SearchAgent(game, label, lambda s, p: expectimax(game, s, limits, pruning=pruning, progress=p),
                           limits.seconds)
    if name == "mcts":
        c, rollout = options.get("c", math.sqrt(2)), options.get("rollout", "random")
        check_mcts(game, c, rollout)
        rng = random.Random(seed)
        solver = options.get("solver", True)
        tree = limits
        if "tt" in options:  # the tree grows by one node per iteration: cap the iterations
            tree = replace(limits, iterations=min(options["tt"], options.get("iterations", options["tt"])))
        return SearchAgent(game, label, lambda s, p: mcts(game, s, tree, exploration=c, rollout=rollout,
                                                          solver=solver, rng=rng, progress=p), limits.seconds)
    table = load_table(options["table"], game) if "table" in options else None
    caps = Limits(seconds=options.get("seconds", PERFECT_SECONDS), nodes=options.get("nodes"),
                  table_entries=options.get("tt", PERFECT_TABLE))
    agent = PerfectAgent(game, table, caps)
    agent.name = label
    return agent
