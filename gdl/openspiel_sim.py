"""OpenSpiel games with ``SIMULTANEOUS`` dynamics behind our simultaneous-move interface (:mod:`solver.simgame`).

The other direction (a `simultaneous` rule file as a pyspiel game with SIMULTANEOUS dynamics) is
:func:`gdl.openspiel.register_pyspiel_game`. ``pyspiel`` is optional: importing this module never needs it.

At a simultaneous node (``state.is_simultaneous_node()``) ``to_move`` is :data:`~solver.game.SIMULTANEOUS`,
``legal_moves(state, p)`` are player ``p``'s actions, named by OpenSpiel's action strings (spaces removed), and
``apply_joint`` applies one action per player (``apply_actions``). Chance nodes, turn nodes and terminal states are
as in :class:`gdl.openspiel.OpenSpielGame`. States are equal when their action histories are.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from typing import Any

from gdl.openspiel import OpenSpielState, SpielStates, _move_name, _pyspiel
from solver.game import CHANCE, SIMULTANEOUS, TERMINAL, IllegalMoveError, Move
from solver.simgame import joint_name


class OpenSpielSimultaneousGame(SpielStates):
    """A pyspiel game with simultaneous moves (``matrix_rps``, ``goofspiel``, ``oshi_zumo``), solvable by
    :func:`solver.simultaneous.solve_simultaneous` and playable by the agents of :mod:`solver.simagents`.

    The solvers see the whole state (OpenSpiel calls goofspiel imperfect-information only because the bids are
    simultaneous: everything else is public once a round is over, as in our model).
    """

    simultaneous = True
    symmetries: tuple[str, ...] = ()

    def __init__(self, pyspiel_game: Any) -> None:
        pyspiel = _pyspiel()
        game_type = pyspiel_game.get_type()
        if game_type.dynamics != pyspiel.GameType.Dynamics.SIMULTANEOUS:
            raise ValueError(f"{game_type.short_name}: not a simultaneous-move game (use gdl.openspiel.OpenSpielGame)")
        self._describe(pyspiel_game)
        self._initial = self._wrap(pyspiel_game.new_initial_state())

    @staticmethod
    def _wrap(state: Any) -> OpenSpielState:
        return OpenSpielState(state, tuple(state.history()))

    @staticmethod
    def _move(state: Any, player: int, action: int) -> Move:
        name = _move_name(state.action_to_string(player, action))
        return Move(name, name=name, data=action)

    def initial_state(self) -> OpenSpielState:
        return self._initial

    def to_move(self, state: OpenSpielState) -> int:
        s = state.state
        if s.is_terminal():
            return TERMINAL
        if s.is_chance_node():
            return CHANCE
        if s.is_simultaneous_node():
            return SIMULTANEOUS
        return int(s.current_player())

    def legal_moves(self, state: OpenSpielState, player: int | None = None) -> list[Move]:
        s = state.state
        if s.is_terminal() or s.is_chance_node():
            return []
        if not s.is_simultaneous_node():
            return [self._move(s, s.current_player(), a) for a in s.legal_actions()]
        if player is None:  # the joint moves, `a|b`, for tools written for turns
            own = [self.legal_moves(state, p) for p in range(len(self.players))]
            return [Move(joint_name(ms), name=joint_name(ms), data=tuple(m.data for m in ms))
                    for ms in itertools.product(*own)]
        return [self._move(s, player, a) for a in s.legal_actions(player)]

    def chance_outcomes(self, state: OpenSpielState) -> list[tuple[Move, float]]:
        s = state.state
        return [(self._move(s, self._chance_id, a), p) for a, p in s.chance_outcomes()] if s.is_chance_node() else []

    def apply_joint(self, state: OpenSpielState, moves: Sequence[Hashable]) -> OpenSpielState:
        child = state.state.clone()
        child.apply_actions([int(m.data) if isinstance(m, Move) else int(m) for m in moves])  # type: ignore[call-overload]
        return self._wrap(child)

    def apply(self, state: OpenSpielState, move: Hashable) -> OpenSpielState:
        action = move.data if isinstance(move, Move) else move
        if isinstance(action, tuple):  # a joint move
            return self.apply_joint(state, action)
        child = state.state.clone()
        child.apply_action(int(action))  # type: ignore[arg-type]
        return self._wrap(child)

    def parse_move(self, state: OpenSpielState, text: str, player: int | None = None) -> Move:
        wanted = _move_name(text)
        candidates = ([m for m, _ in self.chance_outcomes(state)] if self.to_move(state) == CHANCE
                      else self.legal_moves(state, player))
        for move in candidates:
            if move.name == wanted:
                return move
        raise IllegalMoveError(f"{text!r} is not a legal move here")

    def __repr__(self) -> str:
        return f"<OpenSpielSimultaneousGame {self._game}>"
