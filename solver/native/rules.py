"""A built native module's game functions, called from Python on cells (lists of ints) and move codes.

This is the slow path (one C call per question, with the state copied each time); searches use it at
their roots and for the few states they explain. Errors the C code reports become exceptions
through ``raise_error`` (the caller's: ``gdl`` turns them into rule errors with the rule file's line).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

INFO_FIELDS = ("abi", "state_len", "players", "max_moves", "max_outcomes", "key_words", "has_chance", "zero_sum",
               "has_bounds", "has_heuristic", "symmetric", "cell_bytes")
ABI_VERSION = 2  # (solver/native/gdl_abi.h: 2 since states cross as int64 arrays)
CHANCE, TERMINAL, ERROR = -1, -2, -100


class NativeRules:
    """The ABI functions of one module, with the arrays they need allocated once."""

    def __init__(self, module: Any, raise_error: Callable[[Any], Exception]) -> None:
        self.module = module
        self.ffi, self.lib = module.ffi, module.lib
        ffi, lib = self.ffi, self.lib
        lib.gdl_setup()
        info = ffi.new("int64_t[]", len(INFO_FIELDS))
        lib.gdl_info(info, len(INFO_FIELDS))
        self.info = dict(zip(INFO_FIELDS, (int(x) for x in info), strict=True))
        if self.info["abi"] != ABI_VERSION:
            raise ImportError(f"native module speaks ABI {self.info['abi']}, not {ABI_VERSION}")
        self.state_len = self.info["state_len"]
        self.players = self.info["players"]
        self.bounds = (lib.gdl_bound(0), lib.gdl_bound(1)) if self.info["has_bounds"] else None
        self._raise_error = raise_error
        self._err = ffi.new("gdl_error *")
        self._cells = ffi.new("int64_t[]", self.state_len)
        self._canon = ffi.new("int64_t[]", self.state_len)
        self._hash = ffi.new("uint64_t *")
        self._moves = ffi.new("int32_t[]", max(self.info["max_moves"], self.info["max_outcomes"]))
        self._probs = ffi.new("double[]", self.info["max_outcomes"])
        self._values = ffi.new("double[]", self.players)
        lo = ffi.new("int64_t[]", self.state_len)
        hi = ffi.new("int64_t[]", self.state_len)
        lib.gdl_ranges(lo, hi)
        self.ranges = tuple(zip(lo, hi, strict=True))

    def _check(self, status: int) -> int:
        if status == ERROR:
            raise self._raise_error(self._err)
        return status

    def _load(self, cells: Sequence[int]) -> Any:
        if len(cells) != self.state_len:
            raise ValueError(f"a state of this game has {self.state_len} cells, not {len(cells)}")
        self._cells[0:self.state_len] = cells
        return self._cells

    def initial(self) -> tuple[int, ...]:
        self._check(self.lib.gdl_py_initial(self._cells, self._err))
        return tuple(self._cells)

    def to_move(self, cells: Sequence[int]) -> int:
        return self._check(self.lib.gdl_py_to_move(self._load(cells), self._err))

    def legal(self, cells: Sequence[int]) -> list[int]:
        n = self._check(self.lib.gdl_py_legal(self._load(cells), self._moves, self._err))
        return list(self._moves[0:n])

    def chance(self, cells: Sequence[int]) -> list[tuple[int, float]]:
        n = self._check(self.lib.gdl_py_chance(self._load(cells), self._moves, self._probs, self._err))
        return list(zip(self._moves[0:n], self._probs[0:n], strict=True))

    def apply(self, cells: Sequence[int], code: int) -> tuple[int, ...]:
        self._check(self.lib.gdl_py_apply(self._load(cells), code, self._err))
        return tuple(self._cells)

    def utilities(self, cells: Sequence[int]) -> tuple[float, ...]:
        self._check(self.lib.gdl_py_utilities(self._load(cells), self._values, self._err))
        return tuple(self._values)

    def heuristic(self, cells: Sequence[int]) -> tuple[float, ...] | None:
        written = self._check(self.lib.gdl_py_heuristic(self._load(cells), self._values, self._err))
        return tuple(self._values) if written else None

    def key(self, cells: Sequence[int]) -> tuple[tuple[int, ...], int]:
        """The canonical image's cells and the key's 64-bit hash."""
        self._check(self.lib.gdl_py_key(self._load(cells), self._canon, self._hash, self._err))
        return tuple(self._canon), int(self._hash[0])
