"""What the C emitter produces, as the rest of gdl uses it: plain data, importable without the IR or the
emitter (a game whose emitted C is cached runs without either: :mod:`gdl.native.emit_cache`)."""

from __future__ import annotations

from dataclasses import dataclass

NONE_TURN = -1
"""A chance state's "turn set so far" cell when the move has set none (None in the Python back end)."""


class Unsupported(Exception):
    """A construct the C emitter does not translate yet (the message names it)."""


@dataclass(frozen=True)
class SymmetryMap:
    """A symmetry as it acts on a decision state's first ``len(src)`` slots: ``image[j] = vmap(state[src[j]])``."""

    src: tuple[int, ...]
    value_maps: tuple[tuple[int, dict[int, int]], ...] = ()


@dataclass(frozen=True)
class MoveCode:
    """Move code ``code`` is move ``move`` (IR index) with parameter values ``args``."""

    move: int
    args: tuple[int, ...]


@dataclass(frozen=True)
class OutcomeCode:
    """Outcome code ``code`` is nature's pick number ``index`` at chance point ``point``: the value ``value``
    of the point's variable, or the branch ``label``."""

    point: int
    index: int
    value: int | None = None
    label: str | None = None


@dataclass(frozen=True)
class Shape:
    """What the C back end's Python side needs of the IR to name moves and read states back
    (:class:`gdl.native.game.NativeGame`): kept with the emitted C, so a cached game needs no IR.

    A display is the key of the Python game's display of a value (``cell``, ``@column``, ``player``,
    an enum's name) or None for the number itself."""

    nvars: int
    simultaneous: bool
    moves: tuple[tuple[str, tuple[str | None, ...]], ...]  # (action, each parameter's display)
    chance: tuple[tuple[int, int, str | None, str | None], ...]  # (point, saved locals, variable, its display)


@dataclass
class Emitted:
    source: str
    codes: list[MoveCode | OutcomeCode]
    state_len: int
    ranges: list[tuple[int, int]]
    shape: Shape
