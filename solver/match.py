"""The match and tournament runner: a round robin of agents, its scoring, confidence intervals and Elo.

This is the one place that decides how agents meet and how their games count
(``gdl match`` and the library both use it):

Schedule
    A match needs at least as many agents as the game has players (never one
    agent in two seats) and at least two players (a one-player puzzle has no
    opponent). Every set of ``players`` agents chosen from those given meets
    in every order of seats (:func:`schedule`): two agents A, B play A-B then
    B-A; three agents in a two-player game play A-B, B-A, A-C, C-A, B-C, C-B;
    three agents in a three-player game play all six seatings. Game ``i`` uses
    entry ``i mod len(schedule)``, so a number of games that is a multiple of
    the schedule's length gives every agent every seat equally often.

Openings
    Agents that search deterministically play the same game in every game of
    a seating. ``openings=N`` starts every game with N random decision plies
    (uniform over the legal moves), the same N plies for every seating of one
    round of the schedule, so each agent plays both sides of each opening (the
    usual way to test engines against each other on many positions).

Scoring (one rule)
    An agent *wins* a game when its utility is strictly the highest (by more
    than :data:`TIE_TOLERANCE`), *draws* when it ties for the highest, and
    *loses* otherwise; a game stopped at ``max_moves`` is a draw for everyone.
    Its *score* is ``(wins + draws / 2) / games``.

Confidence interval
    :func:`score_interval` is the Wilson score interval (95% by default) of
    the score over the games played, draws counting as half a win. The
    Wilson interval treats each game as a win-or-loss trial; draws make the
    true variance smaller, so with draws it is slightly conservative (wider).
    Unlike the normal approximation it stays inside [0, 1] and is not empty
    at a score of 0 or 1.

Elo
    :func:`elo` is ``400 log10(s / (1 - s))``, the rating difference that
    predicts the score ``s`` (against the agents met, the field). A clean
    sweep (score 0 or 1 over ``n`` games) has no finite estimate, so the
    score is first clamped to ``[1/(2n+2), 1 - 1/(2n+2)]``, as if one more
    game had been drawn: 6-0 counts as 6.5 of 7 and reads +445, to be read
    as "at least about". The interval
    (:func:`elo_interval`) is the Elo of the score interval's ends, clamped
    the same way. With two agents the first agent's Elo is the Elo difference
    between them. In games of more than two players a win is beating every
    other seat, so the Elo is against the other seats combined.

Stops
    Every game ends with a :class:`GameEnd`; a match stops with
    :class:`MatchStop` (all games played, or interrupted by Ctrl-C: the
    games finished so far are scored, the interrupted one is kept in
    ``games`` with no result).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from enum import Enum

from solver.agents import Agent, make_agent
from solver.game import CHANCE, SIMULTANEOUS, TERMINAL, DeadEndError, Game, State, dead_end
from solver.limits import TIE_TOLERANCE, StopReason  # TIE_TOLERANCE: utilities closer than this are a tie
from solver.simgame import joint_name

Z95 = 1.959964
"""The normal quantile of a two-sided 95% interval."""


class GameEnd(str, Enum):
    """Why a game stopped."""

    FINISHED = "finished"
    """It reached a terminal state; the utilities are the game's."""
    MAX_MOVES = "max-moves"
    """It was stopped at the move limit: a draw for everyone."""
    INTERRUPTED = "interrupted"
    """Ctrl-C: no result."""
    QUIT = "quit"
    """The person playing left (``gdl play``): no result."""
    ERROR = "error"
    """A rule error (or another failure) stopped it (``gdl play``): no result."""


class MatchStop(str, Enum):
    """Why a match stopped."""

    COMPLETE = "complete"
    INTERRUPTED = "interrupted"


class Outcome(str, Enum):
    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


@dataclass(frozen=True)
class GameRecord:
    """One game of a match."""

    seats: tuple[int, ...]
    """``seats[p]`` is the index of the agent that played player p."""
    utilities: tuple[float, ...]
    """Per player (seat) at the end; empty when the game has no result (interrupted)."""
    moves: tuple[str, ...]
    """Every move and chance outcome, by name, in order."""
    end: GameEnd = GameEnd.FINISHED
    movers: tuple[int, ...] = ()
    """Who made each move: a player index, or ``CHANCE``."""
    probabilities: tuple[float | None, ...] = ()
    """Each chance outcome's probability (None for a player's move)."""

    @property
    def truncated(self) -> bool:
        """Stopped at ``max_moves`` and scored as a draw."""
        return self.end is GameEnd.MAX_MOVES

    @property
    def scored(self) -> bool:
        return self.end in (GameEnd.FINISHED, GameEnd.MAX_MOVES)

    def outcome(self, seat: int) -> Outcome:
        """The scoring rule (see the module docstring) for the agent in ``seat``."""
        if self.end is GameEnd.MAX_MOVES:
            return Outcome.DRAW
        mine = self.utilities[seat]
        best_other = max((u for j, u in enumerate(self.utilities) if j != seat), default=-math.inf)
        if mine > best_other + TIE_TOLERANCE:
            return Outcome.WIN
        return Outcome.DRAW if mine >= best_other - TIE_TOLERANCE else Outcome.LOSS


@dataclass(frozen=True)
class AgentRecord:
    """One agent's results in a match, in total and per seat."""

    agent: str
    wins: int
    draws: int
    losses: int
    by_seat: tuple[tuple[int, int, int], ...] = ()
    """``by_seat[p]`` is (wins, draws, losses) when playing player p."""

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Wins plus half the draws, per game (0 before any game)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0


@dataclass(frozen=True)
class MatchResult:
    records: tuple[AgentRecord, ...]
    games: tuple[GameRecord, ...]
    seed: int
    stop: MatchStop = MatchStop.COMPLETE
    labels: tuple[str, ...] = field(default=())
    """Each agent's label, unique within the match."""


def schedule(agents: int, players: int) -> list[tuple[int, ...]]:
    """The seatings of a round robin: every ``players``-subset of the agents in every seat order.

    ``schedule(2, 2) == [(0, 1), (1, 0)]``; each tuple gives the agent in each seat.

    :raises ValueError: a one-player game, or fewer agents than players.
    """
    if players < 2:
        raise ValueError("a match needs a game of two or more players; a one-player puzzle has no opponent "
                         "(use `gdl solve` or `gdl play` for it)")
    if agents < players:
        raise ValueError(f"the game has {players} players but {agents} agents were given; give at least "
                         f"{players} (each agent takes one seat per game)")
    return [order for group in itertools.combinations(range(agents), players)
            for order in itertools.permutations(group)]


def unique_labels(names: Sequence[str]) -> list[str]:
    """``["random", "random"]`` -> ``["random", "random#2"]``: results are keyed by label."""
    seen: dict[str, int] = {}
    labels = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        labels.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return labels


def play_match(game: Game, agents: Sequence[Agent | str], games: int = 10, *, seed: int = 0,
               max_moves: int = 10_000, on_game: Callable[[int, GameRecord], object] | None = None,
               openings: int = 0) -> MatchResult:
    """Play a round robin of ``games`` games (see the module docstring for the schedule and scoring).

    Agents may be given as specs (each then gets its own seed derived from
    ``seed``); chance outcomes come from one generator seeded with ``seed``.
    ``openings=N``: each game starts with N random plies, the same for every seating of a round.
    ``on_game(i, record)`` is called after each game. Ctrl-C stops the match:
    the result then has ``stop=MatchStop.INTERRUPTED`` and the games so far.

    :raises ValueError: a one-player game, fewer agents than players.
    """
    seatings = schedule(len(agents), len(game.players))
    players = [make_agent(game, a, seed * 1000 + i) if isinstance(a, str) else a for i, a in enumerate(agents)]
    labels = unique_labels([getattr(a, "name", str(a)) for a in players])
    rng = random.Random(seed)
    played: list[GameRecord] = []
    stop = MatchStop.COMPLETE
    for i in range(games):
        seats = seatings[i % len(seatings)]
        opening = random.Random(f"{seed}/opening/{i // len(seatings)}") if openings else None
        record = play_game(game, [players[s] for s in seats], seats, rng, max_moves, opening, openings)
        played.append(record)
        if on_game is not None:
            on_game(i, record)
        if record.end is GameEnd.INTERRUPTED:
            stop = MatchStop.INTERRUPTED
            break
    return MatchResult(tally(labels, len(game.players), played), tuple(played), seed, stop, tuple(labels))


def tally(labels: Sequence[str], players: int, games: Sequence[GameRecord]) -> tuple[AgentRecord, ...]:
    """Wins, draws and losses per agent and per seat over the scored games."""
    counts = [[[0, 0, 0] for _ in range(players)] for _ in labels]
    column = {Outcome.WIN: 0, Outcome.DRAW: 1, Outcome.LOSS: 2}
    for record in games:
        if not record.scored:
            continue
        for seat, agent in enumerate(record.seats):
            counts[agent][seat][column[record.outcome(seat)]] += 1
    records = []
    for label, seats in zip(labels, counts, strict=True):
        total = [sum(s[k] for s in seats) for k in range(3)]
        wins, draws, losses = total
        records.append(AgentRecord(label, wins, draws, losses, by_seat=tuple((w, d, lo) for w, d, lo in seats)))
    return tuple(records)


def head_to_head(result: MatchResult) -> dict[tuple[int, int], tuple[int, int, int]]:
    """Two-player games: ``(i, j) -> (wins, draws, losses)`` of agent i in its games against agent j."""
    pairs: dict[tuple[int, int], list[int]] = {}
    column = {Outcome.WIN: 0, Outcome.DRAW: 1, Outcome.LOSS: 2}
    for record in result.games:
        if not record.scored or len(record.seats) != 2:
            continue
        for seat, agent in enumerate(record.seats):
            counts = pairs.setdefault((agent, record.seats[1 - seat]), [0, 0, 0])
            counts[column[record.outcome(seat)]] += 1
    return {pair: (w, d, lo) for pair, (w, d, lo) in pairs.items()}


def play_game(game: Game, seated: Sequence[Agent], seats: tuple[int, ...], rng: random.Random,
              max_moves: int = 10_000, opening: random.Random | None = None, opening_plies: int = 0) -> GameRecord:
    """One game, ``seated[p]`` choosing for player ``p``; stopped at ``max_moves`` or by Ctrl-C.
    With ``opening``, its first ``opening_plies`` decisions are uniformly random moves drawn from it."""
    state = game.initial_state()
    moves: list[str] = []
    movers: list[int] = []
    chances: list[float | None] = []

    def record(end: GameEnd, utilities: tuple[float, ...]) -> GameRecord:
        return GameRecord(seats, utilities, tuple(moves), end, tuple(movers), tuple(chances))

    played: list[Hashable] = []
    try:
        while len(moves) < max_moves:
            player = game.to_move(state)
            if player == TERMINAL:
                return record(GameEnd.FINISHED, tuple(game.utilities(state)))
            if player == SIMULTANEOUS:  # every seat picks its own move, none seeing the others' (solver.simgame)
                joint = tuple(seated[p].choose_for(state, p) for p in range(len(game.players)))  # type: ignore[attr-defined]
                state = game.apply_joint(state, joint)  # type: ignore[attr-defined]
                played.append(joint)
                moves.append(joint_name(joint))
                movers.append(player)
                chances.append(None)
                continue
            try:
                if opening is not None and player >= 0 and sum(m >= 0 for m in movers) < opening_plies:
                    move, probability = opening.choice(list(game.legal_moves(state))), None
                else:
                    move, probability = _play_one(game, state, player, seated, rng)
            except DeadEndError as error:  # here, or deeper in an agent's search: the line from the start
                for earlier in reversed(played):
                    error.prepend(earlier)
                raise
            state = game.apply(state, move)
            played.append(move)
            moves.append(str(move))
            movers.append(player)
            chances.append(probability)
    except KeyboardInterrupt:
        return record(GameEnd.INTERRUPTED, ())
    if game.to_move(state) == TERMINAL:
        return record(GameEnd.FINISHED, tuple(game.utilities(state)))
    return record(GameEnd.MAX_MOVES, (0.0,) * len(game.players))


def _play_one(game: Game, state: State, player: int, seated: Sequence[Agent],
              rng: random.Random) -> tuple[Hashable, float | None]:
    """The next move of a game and, for a chance outcome, its probability.

    :raises DeadEndError: the state has no legal move (or no outcome) and the game is not over.
    :raises KeyboardInterrupt: also when the agent's search caught Ctrl-C itself and returned.
    """
    if player == CHANCE:
        outcomes = game.chance_outcomes(state)
        if not outcomes:
            raise dead_end(game, state, player)
        return _sample(outcomes, rng)
    try:
        move = seated[player].choose(state)
    except DeadEndError:
        raise
    except ValueError:  # an agent with nothing to play ("no move to choose")
        # Listing the moves first would run the rules outside the agent's own time (a caller may
        # bound each move): the dead end is told apart only when the agent fails.
        if not game.legal_moves(state):
            raise dead_end(game, state, player) from None
        raise
    last = getattr(seated[player], "last", None)
    if last is not None and last.stopped and last.stop_reason == StopReason.INTERRUPT:
        raise KeyboardInterrupt
    return move, None


def _sample(outcomes: Sequence[tuple[Hashable, float]], rng: random.Random) -> tuple[Hashable, float]:
    x = rng.random()
    for outcome, p in outcomes:
        x -= p
        if x < 0:
            return outcome, p
    return outcomes[-1]


# ------------------------------------------------------------------ statistics


def wilson_interval(score: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``score`` observed over ``games`` trials.

    ``wilson_interval(0.5, 100)`` is about (0.4038, 0.5962); with no games it is (0, 1).
    """
    if games <= 0:
        return 0.0, 1.0
    denominator = 1 + z * z / games
    centre = (score + z * z / (2 * games)) / denominator
    half = z * math.sqrt(score * (1 - score) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def score_interval(record: AgentRecord, z: float = Z95) -> tuple[float, float, float]:
    """An agent's score and its Wilson interval: ``(score, low, high)``."""
    low, high = wilson_interval(record.score, record.games, z)
    return record.score, low, high


def elo(score: float, games: int) -> float:
    """The Elo difference that predicts ``score``, finite for a sweep (as if one more game were drawn).

    ``elo(0.5, n) == 0``, ``elo(0.75, n)`` is about 190.85 for any ``n`` >= 1, ``elo(1.0, 6)`` about 445.
    """
    margin = 1 / (2 * (max(0, games) + 1))
    s = min(max(score, margin), 1 - margin)
    return 400 * math.log10(s / (1 - s))


def elo_interval(record: AgentRecord, z: float = Z95) -> tuple[float, float, float]:
    """An agent's Elo against the field and its interval: ``(elo, low, high)``, all finite."""
    score, low, high = score_interval(record, z)
    n = record.games
    return elo(score, n), elo(low, n), elo(high, n)
