"""Run-time support of `simultaneous` rule files (gdl/compiler/simultaneous.py checks the declaration).

A simultaneous game's decision state is a *round*: :func:`install` makes ``to_move`` answer
:data:`~solver.game.SIMULTANEOUS` there, ``legal_moves(state, p)`` the moves whose guard holds with
``mover = p`` (every player against the same state), and ``apply_joint(state, moves)`` run each player's move
in player order, as :mod:`solver.simgame` defines. For tools written for turns (random playouts, ``--moves``,
records), ``legal_moves(state)`` without a player lists the joint moves as single moves named ``a|b``, which
``apply`` and ``parse_move`` accept (as OpenSpiel's flat joint actions); ``parse_move`` reads each part as the
``gdl play`` prompt does (:func:`gdl.moves.match_move`: ``rock|PAPER`` is ``play(rock)|play(paper)``).
Chance and terminal states are as in any compiled game.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from gdl.moves import match_move
from solver.game import CHANCE, SIMULTANEOUS, TERMINAL, IllegalMoveError, Move, UnknownMoveError
from solver.simgame import joint_name


class ChanceInRoundError(ValueError):
    """A player's move reached a chance before every player of the round had moved."""


def install(game: Any, step: Callable[[tuple, Move], tuple] | None = None,
            actions: Sequence[str] | None = None) -> None:
    """Turn a compiled game (:class:`gdl.runtime.CompiledGame`) whose program declares `simultaneous` into a
    simultaneous game, in place. ``step(state, move)`` plays one player's move as a turn (default: the move's
    own function); ``actions``, the moves' names (default: the program's)."""
    turn = game._turn  # the slot of the state that says who moves
    play: Callable[[tuple, Move], tuple] = step or (lambda state, move: move.data(state))
    names = list(actions) if actions is not None else list(game.program.move_actions)
    legal: Callable[[tuple], list[Move]] = game.legal_moves
    players = len(game.players)

    def as_player(state: tuple, player: int) -> tuple:
        return state if state[turn] == player else (*state[:turn], player, *state[turn + 1:])

    def to_move(state: tuple) -> int:
        mover: int = state[turn]
        return SIMULTANEOUS if mover >= 0 else mover

    def legal_moves(state: tuple, player: int | None = None) -> list[Move]:
        if state[turn] < 0:  # chance and terminal states: as in any game
            return legal(state)
        if player is None:  # every joint move, so that tools written for turns (playouts, --moves) still work
            return [joint(moves) for moves in itertools.product(*(legal(as_player(state, p))
                                                                  for p in range(players)))]
        return legal(as_player(state, player))

    def joint(moves: Sequence[Move]) -> Move:
        """One move standing for the joint move ``moves``: named ``a|b`` (:func:`solver.simgame.joint_name`),
        applied by ``apply`` like any move."""
        name = joint_name(tuple(moves))
        return Move(name, name=name, data=lambda state: apply_joint(state, moves))

    def apply_joint(state: tuple, moves: Sequence[Move]) -> tuple:
        if len(moves) != players:
            raise IllegalMoveError(f"a joint move has one move per player ({players}), not {len(moves)}")
        for player, move in enumerate(moves):
            if state[turn] == TERMINAL:  # the rules ended the game before this player's move ran
                break
            if state[turn] == CHANCE:
                raise ChanceInRoundError(f"{game.players[player - 1]}'s move {move} reached a chance before "
                                         "every player had moved; put the chance in the last player's move or "
                                         "in `after every move` once every choice is in")
            state = play(as_player(state, player), move)
        return as_player(state, 0) if state[turn] >= 0 else state  # a round always starts as player 0's

    def parse_move(state: tuple, text: str, player: int | None = None) -> Move:
        if state[turn] < 0:
            return type(game).parse_move(game, state, text)
        if player is None:  # a joint move, `a|b`: one move per player, each read as the prompt reads it (`rock`)
            parts = text.split("|")
            if len(parts) != players:
                raise IllegalMoveError(f"{text!r}: every player moves at once here; give one move per player "
                                       f"separated by | ({' | '.join(game.players)})")
            return joint([match_move(game, state, part, p) for p, part in enumerate(parts)])
        wanted = "".join(text.split())
        candidates = legal_moves(state, player)
        found = [m for m in candidates if m.name == wanted] or [
            m for m in candidates if m.name.lower() == wanted.lower()]
        if len(found) == 1:
            return found[0]
        if wanted.split("(")[0].lower() not in [a.lower() for a in names]:
            raise UnknownMoveError(f"{text!r} is not a move of {game.name} (moves: {', '.join(names)})")
        raise IllegalMoveError(f"{text!r} is not a legal move of {game.players[player]} here")

    game.to_move = to_move
    game.legal_moves = legal_moves
    game.apply_joint = apply_joint
    game.parse_move = parse_move
    game.simultaneous = True
