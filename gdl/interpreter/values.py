"""The interpreter's values and the places rules run in: entities, scopes, frames, states.

Values: numbers are ``int`` or ``Fraction`` (``/`` is exact), booleans ``bool``, ``none`` is ``None``,
players, cells, directions and enumeration members are :class:`Entity` objects, sets and lists are
tuples (ranges are ``range`` objects).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from gdl.diagnostics import Span

WIN, LOSE, DRAW = 1, -1, 0
LETTERS = "abcdefghijklmnopqrstuvwxyz"


class InterpreterError(Exception):
    """A rule that failed while the game ran (the compiled game raises ``RuleRuntimeError`` there)."""

    def __init__(self, message: str, span: Span | None = None) -> None:
        super().__init__(message if span is None else f"{span.line}:{span.column}: {message}")
        self.message = message
        self.span = span


class NotAllowed(Exception):
    """Something the docs do not allow but the checker accepted: a name no scope provides, a chance in
    `setup` (a checker bug, not a rule error)."""

    def __init__(self, message: str, span: Span) -> None:
        super().__init__(f"{span.line}:{span.column}: {message}")


@dataclass(frozen=True, order=True)
class Entity:
    """A player, cell, direction or enumeration member: its kind, its index in its kind, its name."""

    kind: str
    index: int
    name: str = field(compare=False)

    def __str__(self) -> str:
        return self.name


def show(value: Any) -> str:
    """A value as move names and ``game.values`` print it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# ------------------------------------------------------------------ control flow


class Break(Exception):
    """`break`: leaves the innermost `for` loop."""


class Suspend(Exception):
    """A chance with no recorded pick: the move stops here; nature chooses among ``outcomes``."""

    def __init__(self, outcomes: list[tuple[Any, str, Fraction]], partial: tuple[tuple[Any, ...], ...]) -> None:
        super().__init__("chance")
        self.outcomes = outcomes
        self.partial = partial


# ------------------------------------------------------------------ scopes


class Scope:
    """One block's locals; lookups go outwards to the enclosing blocks."""

    def __init__(self, parent: Scope | None = None) -> None:
        self.parent = parent
        self.names: dict[str, Any] = {}

    def find(self, name: str) -> Scope | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope
            scope = scope.parent
        return None

    def child(self, **names: Any) -> Scope:
        inner = Scope(self)
        inner.names.update(names)
        return inner


@dataclass
class Frame:
    """Where rules run: the (mutable) state variables, who is `turn` and `mover`, and what is allowed."""

    vars: dict[str, list[Any]]
    turn: Entity | None
    mover: Entity | None = None
    next_turn: Entity | None = None  # set by `again` / `turn = p` in a move
    picks: list[Any] = field(default_factory=list)  # nature's picks still to replay
    want_outcomes: bool = False  # replaying a chance state to list its outcomes


@dataclass(frozen=True)
class IState:
    """An interpreter state: variable values, whose turn, the end status and a pending move (chance)."""

    vars: tuple[tuple[Any, ...], ...]
    turn: int  # the player to move; at a terminal state, the player who would move next
    phase: int  # a player index, CHANCE or TERMINAL (as ``to_move``)
    end: tuple[str, int] | None = None  # (kind, player index or -1) of the end rule that fired
    pending: tuple[Any, ...] | None = None  # (vars before the move, mover, move index, args, picks)


@dataclass
class VarInfo:
    name: str
    dims: list[tuple[Any, ...]]  # the index values of each dimension
    allowed: Callable[[Any], bool]  # is a value inside the declared type?
    describe: str
    size: int
    labels: str | None = None  # "column" or "row": a whole number shown as the board labels it
    positions: list[dict[Any, int]] = field(init=False)  # each dimension's value -> its position in ``dims``

    def __post_init__(self) -> None:
        # (a dictionary, not ``tuple.index``: a cell index otherwise compares Entities one by one, the oracle's
        # hottest loop on a board game)
        self.positions = [{value: i for i, value in enumerate(dim)} for dim in self.dims]
