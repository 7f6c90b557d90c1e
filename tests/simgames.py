"""Hand-written games with simultaneous nodes, implementing :mod:`solver.simgame` (test helpers).

Goofspiel and Oshi-Zumo follow OpenSpiel's rules exactly (same parameters, same
utilities), so that their values can be compared with OpenSpiel's solvers.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from solver.game import CHANCE, SIMULTANEOUS, TERMINAL, State
from solver.simgame import JointMove, SimultaneousGameBase


class MatrixGame(SimultaneousGameBase):
    """A one-shot game: both players pick a row / a column, then it is over.

    ``payoffs[i][j]`` is the row player's payoff; the column player gets its negation
    unless ``col_payoffs`` is given (a general-sum bimatrix game).
    """

    def __init__(self, name: str, rows: Sequence[str], cols: Sequence[str], payoffs: Sequence[Sequence[float]],
                 col_payoffs: Sequence[Sequence[float]] | None = None) -> None:
        self.name = name
        self.players = ("Row", "Column")
        self.rows, self.cols = tuple(rows), tuple(cols)
        self.payoffs = payoffs
        self.col_payoffs = col_payoffs
        self.zero_sum = col_payoffs is None

    def initial_state(self) -> State:
        return None

    def to_move(self, state: State) -> int:
        return SIMULTANEOUS if state is None else TERMINAL

    def legal_moves(self, state: State, player: int | None = None) -> Sequence[Hashable]:
        return self.rows if player == 0 else self.cols

    def apply_joint(self, state: State, moves: JointMove) -> State:
        return (self.rows.index(moves[0]), self.cols.index(moves[1]))

    def utilities(self, state: State) -> tuple[float, ...]:
        i, j = state
        mine = self.payoffs[i][j]
        return (mine, -mine if self.col_payoffs is None else self.col_payoffs[i][j])


class Goofspiel(SimultaneousGameBase):
    """Goofspiel with ``cards`` cards per suit, as OpenSpiel's ``goofspiel`` (two players, win/loss returns).

    Each round the prize card is revealed (chance, uniformly among those left, with
    ``points_order="random"``; the highest left with ``"descending"``), both players
    bid one of their cards at once, the higher bid wins the prize's points, a tie
    discards it. After ``cards`` rounds the player with more points wins (+1/-1), or 0.
    State: (hand 0, hand 1, prizes left, prize on the table or 0, points 0 - points 1).
    """

    players = ("P0", "P1")
    zero_sum = True

    def __init__(self, cards: int = 3, points_order: str = "random") -> None:
        self.cards = cards
        self.points_order = points_order
        self.name = f"goofspiel{cards}"
        self.parameters = {"cards": cards, "points_order": points_order}
        self.has_chance = points_order == "random"

    def initial_state(self) -> State:
        every = frozenset(range(1, self.cards + 1))
        return self._reveal(every, every, every, 0)

    def _reveal(self, hand0: frozenset[int], hand1: frozenset[int], prizes: frozenset[int], diff: int) -> State:
        if self.points_order == "descending" and prizes:
            return (hand0, hand1, prizes - {max(prizes)}, max(prizes), diff)
        return (hand0, hand1, prizes, 0, diff)

    def to_move(self, state: State) -> int:
        _, _, prizes, prize, _ = state
        if prize:
            return SIMULTANEOUS
        return CHANCE if prizes else TERMINAL

    def chance_outcomes(self, state: State) -> Sequence[tuple[Hashable, float]]:
        prizes = sorted(state[2])
        return [(p, 1 / len(prizes)) for p in prizes]

    def apply(self, state: State, move: Hashable) -> State:  # a chance outcome: the prize revealed
        hand0, hand1, prizes, _, diff = state
        return (hand0, hand1, prizes - {move}, move, diff)

    def legal_moves(self, state: State, player: int | None = None) -> Sequence[Hashable]:
        return sorted(state[0] if player == 0 else state[1])

    def apply_joint(self, state: State, moves: JointMove) -> State:
        hand0, hand1, prizes, prize, diff = state
        bid0, bid1 = moves
        diff += prize if bid0 > bid1 else -prize if bid1 > bid0 else 0
        return self._reveal(hand0 - {bid0}, hand1 - {bid1}, prizes, diff)

    def utilities(self, state: State) -> tuple[float, ...]:
        diff = state[4]
        return (1.0, -1.0) if diff > 0 else (-1.0, 1.0) if diff < 0 else (0.0, 0.0)


class OshiZumo(SimultaneousGameBase):
    """Oshi-Zumo as OpenSpiel's ``oshi_zumo``: both bid coins at once; the higher bid pushes the wrestler.

    The field has positions 0 .. 2*size+2 (0 and the last are off the edge), the wrestler
    starts in the middle. Both pay their bids. Player 0 pushes towards the high end. The
    game ends when the wrestler is off the edge, both are out of coins, or after
    ``horizon`` rounds; then the wrestler's side decides (+1/-1, or 0 in the middle).
    State: (coins 0, coins 1, position, rounds played).
    """

    players = ("P0", "P1")
    zero_sum = True

    def __init__(self, coins: int = 4, size: int = 1, horizon: int = 6, min_bid: int = 0) -> None:
        self.coins, self.size, self.horizon, self.min_bid = coins, size, horizon, min_bid
        self.name = "oshi_zumo"
        self.parameters = {"coins": coins, "size": size, "horizon": horizon, "min_bid": min_bid}

    def initial_state(self) -> State:
        return (self.coins, self.coins, self.size + 1, 0)

    def to_move(self, state: State) -> int:
        coins0, coins1, position, rounds = state
        over = (rounds >= self.horizon or position in (0, 2 * self.size + 2) or (coins0 == 0 and coins1 == 0))
        return TERMINAL if over else SIMULTANEOUS

    def legal_moves(self, state: State, player: int | None = None) -> Sequence[Hashable]:
        coins = state[0] if player == 0 else state[1]
        return list(range(self.min_bid, coins + 1)) or [coins]

    def apply_joint(self, state: State, moves: JointMove) -> State:
        coins0, coins1, position, rounds = state
        bid0, bid1 = moves
        position += 1 if bid0 > bid1 else -1 if bid1 > bid0 else 0
        return (coins0 - bid0, coins1 - bid1, position, rounds + 1)

    def utilities(self, state: State) -> tuple[float, ...]:
        middle = self.size + 1
        position = state[2]
        return (1.0, -1.0) if position > middle else (-1.0, 1.0) if position < middle else (0.0, 0.0)


class DuelThenShoot(SimultaneousGameBase):
    """A mixed game: a turn node, then chance, then a simultaneous node (for the solver's bookkeeping).

    Player 0 picks a ``stake`` of 1 or 2; a coin decides whether the duel is matching
    pennies (heads) or a game with a saddle point (tails); both then pick at once.
    The stake multiplies the payoff. Value: 0.5 * (0) + 0.5 * (stake * 1) -> stake 2, value 1.
    """

    name = "duel_then_shoot"
    players = ("A", "B")
    zero_sum = True
    has_chance = True
    PENNIES = ((1, -1), (-1, 1))
    SADDLE = ((1, 2), (0, 3))  # value 1 at (0, 0): row 0 guarantees 1, column 0 concedes at most 1

    def initial_state(self) -> State:
        return ("stake",)

    def to_move(self, state: State) -> int:
        return {"stake": 0, "coin": CHANCE, "duel": SIMULTANEOUS, "over": TERMINAL}[state[0]]

    def legal_moves(self, state: State, player: int | None = None) -> Sequence[Hashable]:
        return ("stake1", "stake2") if state[0] == "stake" else ("x", "y")

    def chance_outcomes(self, state: State) -> Sequence[tuple[Hashable, float]]:
        return [("heads", 0.5), ("tails", 0.5)]

    def apply(self, state: State, move: Any) -> State:
        if state[0] == "stake":
            return ("coin", int(move[-1]))
        return ("duel", state[1], move)

    def apply_joint(self, state: State, moves: JointMove) -> State:
        _, stake, coin = state
        table = self.PENNIES if coin == "heads" else self.SADDLE
        payoff = stake * table["xy".index(moves[0])]["xy".index(moves[1])]
        return ("over", payoff)

    def utilities(self, state: State) -> tuple[float, ...]:
        return (float(state[1]), -float(state[1]))


class SpielSimultaneous(SimultaneousGameBase):
    """An OpenSpiel game with simultaneous nodes seen through :mod:`solver.simgame` (a test adapter).

    A state is the tuple of what was played (action ids, and tuples of action ids at
    simultaneous nodes); the OpenSpiel state is rebuilt from it when asked. Slow, but it
    needs nothing of OpenSpiel beyond its public State API.
    """

    def __init__(self, spiel_game: Any) -> None:
        import pyspiel

        self._pyspiel = pyspiel
        self.spiel = spiel_game
        self.name = spiel_game.get_type().short_name
        self.players = tuple(f"P{p}" for p in range(spiel_game.num_players()))
        self.zero_sum = spiel_game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
        self.has_chance = spiel_game.get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC

    def initial_state(self) -> State:
        return ()

    def spiel_state(self, state: State) -> Any:
        spiel_state = self.spiel.new_initial_state()
        for action in state:
            if isinstance(action, tuple):
                spiel_state.apply_actions(list(action))
            else:
                spiel_state.apply_action(action)
        return spiel_state

    def to_move(self, state: State) -> int:
        spiel_state = self.spiel_state(state)
        if spiel_state.is_terminal():
            return TERMINAL
        if spiel_state.is_chance_node():
            return CHANCE
        return SIMULTANEOUS if spiel_state.is_simultaneous_node() else spiel_state.current_player()

    def legal_moves(self, state: State, player: int | None = None) -> Sequence[Hashable]:
        spiel_state = self.spiel_state(state)
        return spiel_state.legal_actions(spiel_state.current_player() if player is None else player)

    def chance_outcomes(self, state: State) -> Sequence[tuple[Hashable, float]]:
        return self.spiel_state(state).chance_outcomes()

    def apply(self, state: State, move: Hashable) -> State:
        return (*state, move)

    def apply_joint(self, state: State, moves: JointMove) -> State:
        return (*state, tuple(moves))

    def utilities(self, state: State) -> tuple[float, ...]:
        return tuple(self.spiel_state(state).returns())

    def key(self, state: State) -> Hashable:
        return self.spiel_state(state).history_str()
