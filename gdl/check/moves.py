"""Move sequences in notes: how a diagnostic of ``gdl check`` says which moves reproduce it.

Move names are joined by commas (``gdl solve FILE --moves ...`` replays them) and split back
at the commas outside brackets, since a move name may hold commas: ``take(0,3)``.
"""

from __future__ import annotations

from collections.abc import Sequence

MOVES_NOTE = "reproduce with the moves: "
"""Prefix of the note that lists a reproducing move sequence."""


def join_moves(names: Sequence[str]) -> str:
    """Move names joined by commas: ``place(a1),place(b2)`` (see :func:`split_moves`)."""
    return ",".join(names)


def split_moves(text: str) -> list[str]:
    """Split ``take(0,3),take(1,2)`` into move names at commas outside brackets.

    >>> split_moves("take(0,3), take(1,2),roll")
    ['take(0,3)', 'take(1,2)', 'roll']
    >>> split_moves("")
    []
    """
    names: list[str] = []
    depth = 0
    current: list[str] = []
    for char in text:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        if char == "," and depth == 0:
            names.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    names.append("".join(current).strip())
    return [name for name in names if name]


def moves_note(names: Sequence[str]) -> str:
    """The note giving the moves that reach a problem (or saying it is in the initial state)."""
    if not names:
        return "it happens in the initial state"
    return MOVES_NOTE + join_moves(names)
