"""Board geometry from the documented definitions, and the board builtins of the rule language.

``a1`` is bottom-left, north is towards higher rows, and each hex row is shifted half a cell right of
the row below. Computed here, not taken from :mod:`gdl.board`, so that a bug there is caught too.
"""

from __future__ import annotations

from typing import Any

from gdl import ast
from gdl.interpreter.values import LETTERS, Entity, Frame, InterpreterError

SQUARE_DIRECTIONS = ("north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest")
# (drow, dcol): north is towards higher rows, east towards higher columns.
SQUARE_DELTAS = {"north": (1, 0), "northeast": (1, 1), "east": (0, 1), "southeast": (-1, 1),
                 "south": (-1, 0), "southwest": (-1, -1), "west": (0, -1), "northwest": (1, -1)}
HEX_DIRECTIONS = ("northeast", "east", "southeast", "southwest", "west", "northwest")
# Each hex row is shifted half a cell right of the row below: the cell straight "up" in the array
# (row + 1, same column) lies half a cell to the right, so it is the north-east neighbour.
HEX_DELTAS = {"northeast": (1, 0), "east": (0, 1), "southeast": (-1, 1), "southwest": (-1, 0),
              "west": (0, -1), "northwest": (1, -1)}


def need(value: Any, e: ast.Call, i: int = 0) -> Any:
    """A `none` where a board function needs a cell (or direction) is a rule error at that place."""
    if value is None:
        raise InterpreterError("found none where a value is needed", e.args[i].span)
    return value


class BoardGeometry:
    """The board of a rule file (``board R x C``, square or hex): its cells, directions and builtins."""

    board: tuple[int, int, str] | None

    def _make_board(self) -> None:
        """The cells and directions of ``self.board`` (rows, columns, shape)."""
        assert self.board is not None
        rows, cols, shape = self.board
        self.cells = tuple(Entity("cell", r * cols + c, f"{LETTERS[c]}{r + 1}") for r in range(rows)
                           for c in range(cols))
        names = HEX_DIRECTIONS if shape == "hex" else SQUARE_DIRECTIONS
        self.deltas = HEX_DELTAS if shape == "hex" else SQUARE_DELTAS
        self.directions = tuple(Entity("dir", i, n) for i, n in enumerate(names))
        by_name = {d.name: d for d in self.directions}
        if shape == "hex":  # every hex direction is orthogonal; there are no diagonals
            self.orthogonal = self.directions
            self.diagonal: tuple[Entity, ...] = ()
        else:
            self.orthogonal = tuple(by_name[n] for n in ("north", "east", "south", "west"))
            self.diagonal = tuple(by_name[n] for n in ("northeast", "southeast", "southwest", "northwest"))
        self.cell_names = {c.name: c for c in self.cells}

    def _rc(self, cell: Entity) -> tuple[int, int]:
        assert self.board is not None
        return divmod(cell.index, self.board[1])

    def _at(self, row: int, col: int) -> Entity | None:
        assert self.board is not None
        rows, cols, _ = self.board
        return self.cells[row * cols + col] if 0 <= row < rows and 0 <= col < cols else None

    def _b_row(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        return self._rc(need(args[0], e))[0]

    def _b_col(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        return self._rc(need(args[0], e))[1]

    def _b_cell(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        return self._at(args[0], args[1])  # none off the board (docs 2.5)

    def _step(self, cell: Entity, direction: Entity) -> Entity | None:
        dr, dc = self.deltas[direction.name]
        row, col = self._rc(cell)
        return self._at(row + dr, col + dc)

    def _b_step(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        return self._step(need(args[0], e), need(args[1], e, 1))

    def _ray(self, cell: Entity, direction: Entity) -> tuple[Entity, ...]:
        out = []
        nxt = self._step(cell, direction)
        while nxt is not None:
            out.append(nxt)
            nxt = self._step(nxt, direction)
        return tuple(out)

    def _b_ray(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        return self._ray(need(args[0], e), need(args[1], e, 1))

    def _b_neighbors(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        cell = need(args[0], e)
        return tuple(n for d in self.directions if (n := self._step(cell, d)) is not None)

    def _b_cells_in_row(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        assert self.board is not None
        rows = self.board[0]
        if not 0 <= args[0] < rows:
            raise InterpreterError(f"`cells_in_row` of {args[0]}: outside 0..{rows - 1} on this board", e.span)
        return tuple(c for c in self.cells if self._rc(c)[0] == args[0])

    def _b_cells_in_column(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        assert self.board is not None
        cols = self.board[1]
        if not 0 <= args[0] < cols:
            raise InterpreterError(f"`cells_in_column` of {args[0]}: outside 0..{cols - 1} on this board", e.span)
        return tuple(c for c in self.cells if self._rc(c)[1] == args[0])

    def _b_lines(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        """Every straight line of k cells: for each cell (in order) and each axis (east, north, north-east,
        south-east; on a hex board east, north-east, north-west), the k cells from it along the axis."""
        assert self.board is not None
        k = args[0]
        if k < 1:
            return ()
        axes = ("east", "northeast", "northwest") if self.board[2] == "hex" else (
            "east", "north", "northeast", "southeast")
        out = []
        for cell in self.cells:
            for axis in axes:
                ray = self._ray(cell, next(d for d in self.directions if d.name == axis))
                if len(ray) >= k - 1:
                    out.append((cell, *ray[: k - 1]))
        return tuple(out)

    def _b_connected(self, args: list[Any], e: ast.Call, frame: Frame) -> Any:
        """Some cell of A reaches some cell of B through neighbouring cells, every cell of the path in S."""
        starts, goals, allowed = (set(a) for a in args)
        frontier = [c for c in starts if c in allowed]
        seen = set(frontier)
        while frontier:
            cell = frontier.pop()
            if cell in goals:
                return True
            for d in self.directions:
                nxt = self._step(cell, d)
                if nxt is not None and nxt in allowed and nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
        return False
