"""Agents for games with simultaneous moves (:mod:`solver.simgame`): each picks *its own* move at a
simultaneous node, ``choose_for(state, player)``, without seeing the others' choices.

* ``random`` -- a legal move uniformly at random.
* ``perfect`` -- solves the position (:func:`solver.simultaneous.solve_simultaneous`: backward induction with an
  LP at each simultaneous node) and samples its move from its own equilibrium mixed strategy there.
* ``mcts`` -- simultaneous-move Monte Carlo tree search (SM-MCTS; M. Lanctot, V. Lisý, M. H. M. Winands,
  "Monte Carlo Tree Search in Simultaneous Move Games with Applications to Goofspiel", 2013; V. Lisý,
  V. Kovařík, M. Lanctot, B. Bošanský, "Convergence of Monte Carlo Tree Search in Simultaneous Move Games",
  NIPS 2013). Each player keeps its own statistics at a node and selects by itself: ``select=ucb``
  (decoupled UCT, Teytaud & Flory 2011) or ``select=rm`` (regret matching, S. Hart & A. Mas-Colell, "A
  Simple Adaptive Procedure Leading to Correlated Equilibrium", Econometrica 2000, with exploration ``gamma``).
  The move played is sampled from the root's visit counts (ucb) or average strategy (rm): a mixed strategy,
  as a simultaneous node needs.

Options: ``iterations=N`` (mcts), ``seconds=S``, ``c=`` (ucb exploration), ``gamma=`` (rm exploration).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from solver.game import CHANCE, SIMULTANEOUS, TERMINAL, Game, State
from solver.limits import Limits
from solver.simultaneous import solve_simultaneous

DEFAULT_ITERATIONS = 2000
AGENTS = ("random", "perfect", "mcts")


class SimRandomAgent:
    """A legal move of its own, uniformly at random."""

    def __init__(self, game: Game, seed: int | None = None) -> None:
        self.game, self.rng, self.name = game, random.Random(seed), "random"
        self.seconds: float | None = None

    def choose_for(self, state: State, player: int) -> Hashable:
        return self.rng.choice(list(self.game.legal_moves(state, player)))  # type: ignore[call-arg]


class SimPerfectAgent:
    """Samples its move from its equilibrium strategy at the position (solved once per position)."""

    def __init__(self, game: Game, seed: int | None = None, limits: Limits | None = None) -> None:
        self.game, self.rng, self.name = game, random.Random(seed), "perfect"
        self.limits = limits or Limits()
        self.seconds = self.limits.seconds
        self.solved: dict[Hashable, Any] = {}

    def choose_for(self, state: State, player: int) -> Hashable:
        key = self.game.key(state)
        if key not in self.solved:
            self.solved[key] = solve_simultaneous(self.game, state, self.limits)
        result = self.solved[key]
        strategy = result.strategies[player] if result.strategies else {}
        if result.stopped or not strategy:  # no answer within the budget: any legal move
            return self.rng.choice(list(self.game.legal_moves(state, player)))  # type: ignore[call-arg]
        moves = list(strategy)
        return self.rng.choices(moves, [max(0.0, strategy[m]) for m in moves])[0]


@dataclass
class _Stats:
    """One player's statistics at one node: per move, visits, summed reward, regret, summed strategy."""

    moves: Sequence[Hashable]
    visits: list[int] = field(default_factory=list)
    reward: list[float] = field(default_factory=list)
    regret: list[float] = field(default_factory=list)
    strategy_sum: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = len(self.moves)
        self.visits, self.reward, self.regret, self.strategy_sum = [0] * n, [0.0] * n, [0.0] * n, [0.0] * n


class SMMCTSAgent:
    """Simultaneous-move MCTS with decoupled UCT or regret matching at each node (see the module docstring)."""

    def __init__(self, game: Game, seed: int | None = None, iterations: int | None = DEFAULT_ITERATIONS,
                 seconds: float | None = None, select: str = "ucb", c: float = 1.4, gamma: float = 0.1) -> None:
        if select not in ("ucb", "rm"):
            raise ValueError(f"select={select!r}: ucb (decoupled UCT) or rm (regret matching)")
        self.game, self.rng = game, random.Random(seed)
        self.iterations, self.seconds, self.select, self.c, self.gamma = iterations, seconds, select, c, gamma
        self.name = f"mcts:select={select}" + (f",iterations={iterations}" if iterations else "")
        self.seconds = seconds
        low, high = game.utility_bounds or (-1.0, 1.0)
        self.low, self.span = low, (high - low) or 1.0
        self.tree: dict[Hashable, list[_Stats]] = {}

    def choose_for(self, state: State, player: int) -> Hashable:
        self.tree = {}
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        done = 0
        while (self.iterations is None or done < self.iterations) and (deadline is None or
                                                                        time.perf_counter() < deadline):
            self._simulate(state)
            done += 1
        stats = self._node(state)[player]
        weights = stats.strategy_sum if self.select == "rm" else [float(v) for v in stats.visits]
        if sum(weights) <= 0:
            return self.rng.choice(list(stats.moves))
        return self.rng.choices(list(stats.moves), weights)[0]

    def _node(self, state: State) -> list[_Stats]:
        key = self.game.key(state)
        node = self.tree.get(key)
        if node is None:
            node = [_Stats(tuple(self.game.legal_moves(state, p)))  # type: ignore[call-arg]
                    for p in range(len(self.game.players))]
            self.tree[key] = node
        return node

    def _simulate(self, state: State) -> tuple[float, ...]:
        game = self.game
        kind = game.to_move(state)
        if kind == TERMINAL:
            return tuple(game.utilities(state))
        if kind == CHANCE:
            outcomes = game.chance_outcomes(state)
            outcome = self.rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
            return self._simulate(game.apply(state, outcome))
        if kind != SIMULTANEOUS:  # a turn node: a random move (the rule language has none in such games)
            return self._simulate(game.apply(state, self.rng.choice(list(game.legal_moves(state)))))
        expanded = game.key(state) in self.tree
        node = self._node(state)
        picks, probabilities = zip(*(self._pick(stats) for stats in node), strict=True)
        child = game.apply_joint(state, tuple(s.moves[i] for s, i in zip(node, picks, strict=True)))  # type: ignore[attr-defined]
        value = self._simulate(child) if expanded else self._rollout(child)
        for player, (stats, i, p) in enumerate(zip(node, picks, probabilities, strict=True)):
            reward = (value[player] - self.low) / self.span
            stats.visits[i] += 1
            stats.reward[i] += reward
            if self.select == "rm":  # outcome-sampling estimate of the regret of every move
                for j in range(len(stats.moves)):
                    stats.regret[j] += (reward / p if j == i else 0.0) - reward
        return value

    def _pick(self, stats: _Stats) -> tuple[int, float]:
        """This player's move at the node, by itself, and the probability it had."""
        n = len(stats.moves)
        if self.select == "rm":
            positive = [max(0.0, r) for r in stats.regret]
            total = sum(positive)
            sigma = [r / total for r in positive] if total > 0 else [1.0 / n] * n
            for j in range(n):
                stats.strategy_sum[j] += sigma[j]
            mixed = [(1 - self.gamma) * s + self.gamma / n for s in sigma]
            i = self.rng.choices(range(n), mixed)[0]
            return i, mixed[i]
        untried = [j for j in range(n) if stats.visits[j] == 0]
        if untried:
            return self.rng.choice(untried), 1.0
        log_total = math.log(sum(stats.visits))
        scores = [stats.reward[j] / stats.visits[j] + self.c * math.sqrt(log_total / stats.visits[j])
                  for j in range(n)]
        return max(range(n), key=scores.__getitem__), 1.0

    def _rollout(self, state: State) -> tuple[float, ...]:
        game = self.game
        while True:
            kind = game.to_move(state)
            if kind == TERMINAL:
                return tuple(game.utilities(state))
            if kind == CHANCE:
                outcomes = game.chance_outcomes(state)
                state = game.apply(state, self.rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0])
            else:
                state = game.apply(state, self.rng.choice(list(game.legal_moves(state))))


OPTION_TYPES: dict[str, Any] = {"iterations": int, "seconds": float, "nodes": int, "tt": int, "select": str,
                                "c": float, "gamma": float}


def parse_sim_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"mcts:select=rm,iterations=500"`` -> ``("mcts", {"select": "rm", "iterations": 500})``.

    :raises ValueError: a malformed option or value.
    """
    name, _, rest = spec.strip().partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, text = (x.strip() for x in item.partition("="))
        key = "seconds" if key == "time" else key.lower()
        if not eq or not text or key not in OPTION_TYPES:
            raise ValueError(f"bad option {item!r} in {spec!r} (options: {', '.join(OPTION_TYPES)})")
        try:
            options[key] = OPTION_TYPES[key](text)
        except ValueError:
            raise ValueError(f"bad value {text!r} for option {key!r} in {spec!r}") from None
    return name.strip().lower(), options


def make_sim_agent(game: Game, spec: str, seed: int | None = None) -> Any:
    """A simultaneous-move agent from its spec (``random``, ``perfect``, ``mcts:select=rm``).

    :raises ValueError: an unknown agent or option.
    """
    name, options = parse_sim_spec(spec)
    if name == "random":
        _only(name, options, ())
        return SimRandomAgent(game, seed)
    if name == "perfect":
        _only(name, options, ("seconds", "nodes", "tt"))
        return SimPerfectAgent(game, seed, Limits(seconds=options.get("seconds"), nodes=options.get("nodes"),
                                                  table_entries=options.get("tt")))
    if name == "mcts":
        _only(name, options, ("iterations", "seconds", "select", "c", "gamma"))
        iterations = options.get("iterations", None if "seconds" in options else DEFAULT_ITERATIONS)
        return SMMCTSAgent(game, seed, iterations, options.get("seconds"), str(options.get("select", "ucb")),
                           float(options.get("c", 1.4)), float(options.get("gamma", 0.1)))
    raise ValueError(f"agent {name!r} cannot play a simultaneous-move game (agents: {', '.join(AGENTS)})")


def _only(name: str, options: dict[str, Any], allowed: tuple[str, ...]) -> None:
    extra = sorted(set(options) - set(allowed))
    if extra:
        raise ValueError(f"agent {name!r} has no option {extra[0]!r} in a simultaneous-move game "
                         f"(options: {', '.join(allowed) or 'none'})")
