"""Simultaneous moves: the extension of the game interface of :mod:`solver.game`.

Modelled on OpenSpiel's ``SIMULTANEOUS`` dynamics. A game that may have states
where the players move at once sets ``simultaneous = True`` and, besides the
ordinary methods, provides:

* ``to_move(state)`` may return :data:`~solver.game.SIMULTANEOUS`; the state is
  then a *simultaneous node*: **every** player picks a move at the same time,
  without seeing the others' choices. A player with nothing to decide there has
  exactly one legal move (a "wait" or "pass"), as in OpenSpiel.
* ``legal_moves(state, player)`` -- the moves of ``player`` at a simultaneous
  node (non-empty for every player). At a turn node ``legal_moves(state)`` is as
  before (the player argument may be omitted or equal to ``to_move(state)``).
* ``apply_joint(state, moves)`` -- the state after the joint move ``moves``, one
  legal move per player in player order. Never mutates. ``apply`` is not used
  at simultaneous nodes.
* ``parse_move(state, text, player)`` -- at a simultaneous node, the move of
  ``player`` named ``text`` (:func:`parse_move_of` does it by name).

Chance nodes and turn nodes keep their meaning, so Goofspiel (chance deals the
prize, then both bid) and Oshi-Zumo (both bid, every round) fit. Everything else
(``utilities``, ``key``, ``render`` ...) is unchanged. The searches built for
turn-based games refuse a game with ``simultaneous = True``
(:func:`solver.limits.check_players`); :mod:`solver.simultaneous` solves them.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterator, Sequence
from typing import Protocol, TypeAlias, runtime_checkable

from solver.game import CHANCE, SIMULTANEOUS, TERMINAL, Game, GameBase, IllegalMoveError, State

JointMove: TypeAlias = tuple[Hashable, ...]
"""One move per player, in player order."""


@runtime_checkable
class SimultaneousGame(Game, Protocol):
    """A :class:`~solver.game.Game` whose states may be simultaneous nodes."""

    simultaneous: bool
    """True: ``to_move`` may return :data:`~solver.game.SIMULTANEOUS`."""

    def legal_moves(self, state: State, player: int | None = None) -> Sequence[Hashable]:
        """The moves of ``player`` (default: the player to move) in ``state``."""
        ...

    def apply_joint(self, state: State, moves: JointMove) -> State:
        """The state after every player's move of ``moves`` (one per player, in player order)."""
        ...


class SimultaneousGameBase(GameBase):
    """Defaults for a hand-written game with simultaneous nodes.

    Subclasses implement ``initial_state``, ``to_move``, ``legal_moves(state, player)``,
    ``apply_joint`` and ``utilities``; ``apply`` (for turn nodes and chance outcomes)
    when the game has those.
    """

    simultaneous: bool = True

    def apply(self, state: State, move: Hashable) -> State:
        raise NotImplementedError(f"{self.name} has no turn or chance nodes")

    def to_move(self, state: State) -> int:
        raise NotImplementedError  # every subclass says whose turn it is

    def parse_move(self, state: State, text: str, player: int | None = None) -> Hashable:
        if self.to_move(state) == SIMULTANEOUS:
            if player is None:
                raise IllegalMoveError("at a simultaneous move, say which player's move this is")
            return parse_move_of(self, state, player, text)  # type: ignore[arg-type]
        return super().parse_move(state, text)


def is_simultaneous(game: Game) -> bool:
    """True when ``game`` may have simultaneous nodes."""
    return bool(game.simultaneous)


def joint_moves(game: SimultaneousGame, state: State) -> Iterator[JointMove]:
    """Every joint move of a simultaneous node, player 0's move varying slowest."""
    return itertools.product(*(game.legal_moves(state, p) for p in range(len(game.players))))


def joint_name(moves: JointMove) -> str:
    """The joint move as text, e.g. ``rock|paper`` (player order)."""
    return "|".join(map(str, moves))


def parse_move_of(game: SimultaneousGame, state: State, player: int, text: str) -> Hashable:
    """The move of ``player`` named ``text`` (spaces ignored) at a simultaneous node.

    :raises IllegalMoveError: ``player`` has no legal move of that name.
    """
    wanted = "".join(text.split())
    for move in game.legal_moves(state, player):
        if str(move) == wanted:
            return move
    raise IllegalMoveError(f"{text!r} is not a legal move of {game.players[player]} here")


def node_kind(game: Game, state: State) -> str:
    """``"terminal"``, ``"chance"``, ``"simultaneous"`` or ``"turn"``."""
    mover = game.to_move(state)
    if mover == TERMINAL:
        return "terminal"
    if mover == CHANCE:
        return "chance"
    return "simultaneous" if mover == SIMULTANEOUS else "turn"
