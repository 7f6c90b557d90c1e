"""Moves as a person types them: the one reading shared by `gdl play`'s prompt and every `--moves`.

A move may be typed by its name (``place(b2)``, ``drop(d)``), in any case (``PLACE(B2)``), by its
arguments alone (``b2``, ``d``), or by an unambiguous prefix (``ho`` for ``hold``). The game's own
``parse_move`` reads the names (and whatever older spellings it keeps, such as ``drop(3)``); this
module adds the shortcuts, so that a position typed at the prompt can be given to ``--moves`` too.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from solver.game import SIMULTANEOUS, AmbiguousMoveError, Game, IllegalMoveError, M, MoveError, S, UnknownMoveError

MAX_SHOWN = 8
"""An ambiguous prefix lists at most this many of the moves it could be."""


def match_move(game: Game[S, M], state: S, text: str, player: int | None = None) -> M:
    """The legal move (or chance outcome) named ``text``, or named by its arguments alone or a prefix.

    ``place(b2)`` may be typed ``place(b2)``, ``PLACE(B2)``, ``b2`` or ``pl`` (if only one move starts so).
    With ``player``, at a simultaneous move, the move is that player's own (``rock`` for ``play(rock)``);
    without it, a simultaneous move reads a joint move (``a|b``, each part read as here).

    :raises UnknownMoveError: no move of the game has that name.
    :raises IllegalMoveError: the move exists but is not legal here.
    :raises AmbiguousMoveError: several legal moves match.
    """
    wanted = "".join(text.split())
    if not wanted:
        raise UnknownMoveError("type a move, or `moves` to list them")
    if player is None and game.to_move(state) < 0:  # chance (an outcome by its name), the end, or a joint move
        return game.parse_move(state, wanted)
    parse, moves = _reader(game, state, player)
    try:
        return parse(wanted)
    except AmbiguousMoveError:
        raise
    except MoveError:
        pass  # not a full name: try the shortcuts
    legal = moves()
    by_args = _by_arguments(parse, legal, wanted)
    if len(by_args) == 1:
        return by_args[0]
    if by_args:
        raise AmbiguousMoveError(f"{text!r} could be {len(by_args)} moves: {_listing(by_args)}")
    folded = wanted.lower()
    prefixed = [m for m in legal if str(m).lower().startswith(folded)]
    if len(prefixed) == 1:
        return prefixed[0]
    if prefixed:
        raise AmbiguousMoveError(f"{text!r} could be {len(prefixed)} moves: {_listing(prefixed)}")
    # `a1` for an occupied `place(a1)`: say it is illegal, not unknown (arguments seen at the start)
    start = game.initial_state()
    if game.to_move(start) >= 0 or (player is not None and game.to_move(start) == SIMULTANEOUS):
        read, listed = _reader(game, start, player)
        known = _by_arguments(read, listed(), wanted)
        if known:
            raise IllegalMoveError(f"{known[0]} is not legal here")
    return parse(text)  # raises the precise error (unknown or illegal)


def _reader(game: Game[S, M], state: S,
            player: int | None) -> tuple[Callable[[str], M], Callable[[], list[M]]]:
    """How a move's name is read at ``state`` (by ``player`` at a simultaneous move), and its legal moves there."""
    if player is None:
        return (lambda name: game.parse_move(state, name)), (lambda: list(game.legal_moves(state)))
    return ((lambda name: game.parse_move(state, name, player)),  # type: ignore[call-arg]
            (lambda: list(game.legal_moves(state, player))))  # type: ignore[call-arg]


def _by_arguments(parse: Callable[[str], M], moves: Sequence[Hashable], wanted: str) -> list[M]:
    """The moves among ``moves`` whose arguments read as ``wanted``: ``d`` for ``drop(d)``, ``B2`` for ``place(b2)``."""
    actions = dict.fromkeys(str(m).split("(", 1)[0] for m in moves if "(" in str(m))
    found: list[Any] = []
    for action in actions:
        try:
            move = parse(f"{action}({wanted})")
        except MoveError:
            continue
        if move not in found:
            found.append(move)
    return found


def _listing(moves: Sequence[Any]) -> str:
    return ", ".join(str(m) for m in moves[:MAX_SHOWN]) + (", ..." if len(moves) > MAX_SHOWN else "")
