"""Hand-written C games (tests/native/*.c) as Python games: the native solvers' test bed before the emitter.

``HandGame(module, use_native=True)`` implements :class:`solver.game.Game` by calling the module's checked
entry points (states are tuples of cells, moves are int codes), and is its own native handle, so
``solver.exact.solve`` runs the C search on it; with ``use_native=False`` the same game is solved by
the Python solvers (through the same C rules, one call per question). Equal values then test the C search.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from gdl.native.build import build, compiler_missing_reason
from solver.game import GameBase
from solver.native.rules import NativeRules

HERE = Path(__file__).resolve().parent / "native"


def skip_reason() -> str | None:
    reason = compiler_missing_reason()
    return None if reason is None else f"native back end unavailable: {reason}"


def source(name: str, defines: dict[str, int] | None = None) -> str:
    prefix = "".join(f"#define {k} {v}\n" for k, v in (defines or {}).items())
    return prefix + (HERE / name).read_text(encoding="utf-8")


@cache
def module(name: str, **defines: int) -> ModuleType:
    return build(source(name, defines))


class RuleError(Exception):
    def __init__(self, code: int, line: int, moves: Sequence[Hashable] = ()) -> None:
        super().__init__(f"rule error {code} at line {line}")
        self.code, self.line, self.moves = code, line, list(moves)


class HandGame(GameBase):
    """A C module as a Game (and as its own native handle)."""

    def __init__(self, mod: ModuleType, name: str, use_native: bool = True) -> None:
        self.rules = NativeRules(mod, lambda e: RuleError(e.code, e.line))
        self.name = name
        self.ffi, self.lib = mod.ffi, mod.lib
        self.state_len = self.rules.state_len
        self.players = tuple(f"P{i}" for i in range(self.rules.players))
        self.zero_sum = bool(self.rules.info["zero_sum"])
        self.has_chance = bool(self.rules.info["has_chance"])
        self.utility_bounds = self.rules.bounds
        self.symmetries = ("all",) if self.rules.info["symmetric"] else ()
        self.use_native = use_native

    # the Game interface
    def initial_state(self) -> tuple[int, ...]:
        return self.rules.initial()

    def to_move(self, state: Any) -> int:
        return self.rules.to_move(state)

    def legal_moves(self, state: Any) -> list[int]:
        return self.rules.legal(state)

    def chance_outcomes(self, state: Any) -> list[tuple[int, float]]:
        return self.rules.chance(state)

    def apply(self, state: Any, move: Any) -> tuple[int, ...]:
        return self.rules.apply(state, move)

    def utilities(self, state: Any) -> tuple[float, ...]:
        return self.rules.utilities(state)

    def heuristic(self, state: Any) -> tuple[float, ...] | None:
        return self.rules.heuristic(state)

    def key(self, state: Any) -> Hashable:
        return self.rules.key(state)[0]

    # the native handle
    def native(self) -> HandGame | None:
        return self if self.use_native else None

    def cells(self, state: Any) -> Sequence[int]:
        return state

    def key_of_cells(self, cells: Sequence[int]) -> Hashable:
        return tuple(cells)

    def move(self, code: int) -> Hashable:
        return code

    def code(self, move: Hashable) -> int:
        return int(move)  # type: ignore[call-overload]

    def error(self, error: Any, moves: Sequence[Hashable] = ()) -> Exception:
        return RuleError(error.code, error.line, moves)
