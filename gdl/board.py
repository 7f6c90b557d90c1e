"""Board geometry for ``board R x C``: cells, directions, rays and lines, all precomputed.

Cells are numbered ``row * cols + col`` with row 0 at the bottom, and named
like chess squares: column letter then row number (``a1`` is bottom-left).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

DIRECTION_NAMES = ("north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest")
DELTAS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))  # (drow, dcol)
# A hex board is a rhombus: each row is shifted half a cell to the right of the one below,
# so a cell's six neighbours are east/west in its row and two in each neighbouring row.
HEX_DIRECTION_NAMES = ("northeast", "east", "southeast", "southwest", "west", "northwest")
HEX_DELTAS = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
HEX_LINE_DIRECTIONS = (1, 0, 5)  # east, northeast, northwest: one per axis
COLUMN_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_CELL_NAME = re.compile(r"([a-z])([1-9][0-9]?)")


@dataclass(frozen=True)
class Board:
    rows: int
    cols: int
    shape: str = "square"  # or "hex"
    ncells: int = field(init=False)
    row_of: tuple[int, ...] = field(init=False)
    col_of: tuple[int, ...] = field(init=False)
    step_table: tuple[tuple[int, ...], ...] = field(init=False)
    ray_table: tuple[tuple[tuple[int, ...], ...], ...] = field(init=False)
    neighbors: tuple[tuple[int, ...], ...] = field(init=False)
    row_cells: tuple[tuple[int, ...], ...] = field(init=False)
    col_cells: tuple[tuple[int, ...], ...] = field(init=False)

    def __post_init__(self) -> None:
        n = self.rows * self.cols
        put = object.__setattr__
        put(self, "ncells", n)
        put(self, "row_of", tuple(c // self.cols for c in range(n)))
        put(self, "col_of", tuple(c % self.cols for c in range(n)))
        ndirs = len(self.direction_names)
        steps = tuple(tuple(self._step(c, d) for d in range(ndirs)) for c in range(n))
        put(self, "step_table", steps)
        put(self, "ray_table", tuple(tuple(self._ray(c, d) for d in range(ndirs)) for c in range(n)))
        put(self, "neighbors", tuple(tuple(x for x in steps[c] if x >= 0) for c in range(n)))
        put(self, "row_cells", tuple(tuple(r * self.cols + k for k in range(self.cols)) for r in range(self.rows)))
        put(self, "col_cells", tuple(tuple(r * self.cols + k for r in range(self.rows)) for k in range(self.cols)))

    @property
    def direction_names(self) -> tuple[str, ...]:
        return HEX_DIRECTION_NAMES if self.shape == "hex" else DIRECTION_NAMES

    @property
    def deltas(self) -> tuple[tuple[int, int], ...]:
        return HEX_DELTAS if self.shape == "hex" else DELTAS

    @property
    def directions(self) -> range:
        return range(len(self.direction_names))

    @property
    def orthogonal(self) -> tuple[int, ...]:
        return tuple(self.directions) if self.shape == "hex" else (0, 2, 4, 6)

    @property
    def diagonal(self) -> tuple[int, ...]:
        return () if self.shape == "hex" else (1, 3, 5, 7)

    def cell_at(self, row: int, col: int) -> int:
        """The cell at (row, col), or -1 (none) off the board."""
        if 0 <= row < self.rows and 0 <= col < self.cols:
            return row * self.cols + col
        return -1

    def _step(self, cell: int, direction: int) -> int:
        dr, dc = self.deltas[direction]
        return self.cell_at(cell // self.cols + dr, cell % self.cols + dc)

    def _ray(self, cell: int, direction: int) -> tuple[int, ...]:
        out = []
        cell = self._step(cell, direction)
        while cell >= 0:
            out.append(cell)
            cell = self._step(cell, direction)
        return tuple(out)

    def lines(self, k: int) -> tuple[tuple[int, ...], ...]:
        """Every straight line of ``k`` cells: rows, columns and both diagonals."""
        if k < 1:
            return ()
        out = []
        for cell in range(self.ncells):
            for direction in HEX_LINE_DIRECTIONS if self.shape == "hex" else (2, 0, 1, 3):  # E, N, NE, SE
                ray = self._ray(cell, direction)
                if len(ray) >= k - 1:
                    out.append((cell, *ray[: k - 1]))
        return tuple(out)

    def cell_name(self, cell: int) -> str:
        if not 0 <= cell < self.ncells:
            return "none"
        return COLUMN_LETTERS[cell % self.cols] + str(cell // self.cols + 1)

    def column_name(self, col: int) -> str:
        """The column's letter as the board shows it under its cells (``a`` is column 0)."""
        return COLUMN_LETTERS[col] if 0 <= col < self.cols else str(col)

    def row_name(self, row: int) -> str:
        """The row's number as the board shows it beside its cells (``1`` is row 0, the bottom)."""
        return str(row + 1) if 0 <= row < self.rows else str(row)

    def parse_cell(self, name: str) -> int | None:
        match = _CELL_NAME.fullmatch(name)
        if not match:
            return None
        col = ord(match.group(1)) - ord("a")
        row = int(match.group(2)) - 1
        cell = self.cell_at(row, col)
        return cell if cell >= 0 else None
