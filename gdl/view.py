"""A state as structured data for display: what is drawn where, and whose each piece is.

:meth:`gdl.runtime.CompiledGame.view` builds a :class:`StateView` from the game's structure
(the board the ``render`` line names, each state variable's type and index types): the
board's marks carry the player they belong to, a per-player array carries the player of
each entry. A display colours from these facts, never by reading the drawn text back.
:func:`view_text` draws the plain text, the same as :meth:`~gdl.runtime.CompiledGame.render`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gdl.board import COLUMN_LETTERS


@dataclass(frozen=True)
class Item:
    """One value as shown, and the player it names or belongs to."""

    text: str
    owner: int | None = None
    """The player whose piece (or player value) this is: a ``player``-typed value that is not ``none``."""
    seat: int | None = None
    """The player this entry is indexed by (an array over ``player``), or None."""
    value: int = 0
    """The value as the state holds it (a player's or enum member's index, 0 or 1 for a bool, a number)."""


@dataclass(frozen=True)
class BoardView:
    """The variable the rule file's ``render`` line draws, cell by cell, as the board shows it."""

    variable: str
    rows: tuple[tuple[Item, ...], ...]
    """Top row first (the board's last row), each row left to right; each mark one or more characters."""
    row_labels: tuple[str, ...]
    """The label beside each row of ``rows`` (``3``, ``2``, ``1``)."""
    column_labels: tuple[str, ...]
    """The letter under each column (``a``, ``b``, ``c``)."""
    hex: bool = False
    """A hex board (a rhombus): each row is drawn half a cell right of the one below."""

    @property
    def width(self) -> int:
        """The widest mark: every cell is padded to it."""
        return max([len(item.text) for row in self.rows for item in row] + [1])


@dataclass(frozen=True)
class VariableView:
    """A state variable other than the drawn board: a single value or an array of them."""

    name: str
    shape: tuple[int, ...]
    """The size of each dimension (empty for a single value)."""
    items: tuple[Item, ...]
    """The values in row-major order (one for a single value)."""
    kind: str = "int"
    """The kind of its values: ``int``, ``bool``, ``player``, ``enum``, ``cell``, ...; ``set`` for a ``bool`` array
    over a number range shown as the numbers whose flag is true (:func:`_index_sets`)."""


@dataclass(frozen=True)
class StateView:
    """Everything a display of one state needs, as data."""

    board: BoardView | None
    variables: tuple[VariableView, ...]
    status: str
    """``to move: X``, ``chance: ...`` or ``game over: X wins`` (as :meth:`CompiledGame.status_line`)."""
    to_move: int
    """The player to move, or :data:`solver.game.CHANCE` / :data:`solver.game.TERMINAL`."""
    players: tuple[str, ...]


@dataclass(frozen=True)
class StateVariable:
    """A state variable's declaration in brief: its name, the size of each dimension and its value range."""

    name: str
    shape: tuple[int, ...]
    low: int
    high: int

    @property
    def size(self) -> int:
        """The number of values it holds (slots of the state)."""
        n = 1
        for size in self.shape:
            n *= size
        return n


def state_view(program: Any, state: Sequence[Any], display: Callable[[Any], Callable[[Any], Any]],
               players: tuple[str, ...], status: str, to_move: int) -> StateView:
    """The view of ``state`` from the compiled ``program`` (its variables, board and render symbols).

    ``display(type)`` gives the function that shows a value of that type (``X``, ``b2``, ``true``).
    """
    board = None
    variables = []
    for var in program.state_vars:
        cells = state[var.offset : var.offset + var.size]
        show = display(var.type)
        owned = var.type.kind == "player"
        if var.name == program.render_var and program.board is not None:
            board = _board_view(program, var, cells, show, owned)
            continue
        if _is_index_set(var):
            variables.append(_index_sets(var, cells))
            continue
        per_player = len(var.dims) == 1 and var.index_types[0].kind == "player"
        items = tuple(Item(str(show(v)), v if owned and v >= 0 else None, i if per_player else None, v)
                      for i, v in enumerate(cells))
        variables.append(VariableView(var.name, tuple(size for _, size in var.dims), items, var.type.kind))
    return StateView(board, tuple(variables), status, to_move, players)


def _is_index_set(var: Any) -> bool:
    """A ``bool`` array whose last index is a number range, and whose index before it (if any) is ``player``: a
    set of numbers (per player), such as the cards each player holds (``hand[player, 1..n]``)."""
    kinds = [t.kind for t in var.index_types]
    return var.type.kind == "bool" and len(kinds) in (1, 2) and kinds[-1] == "int" and \
        all(kind == "player" for kind in kinds[:-1])


def _index_sets(var: Any, cells: Sequence[Any]) -> VariableView:
    """The set of numbers whose flag is true, written as the rules write a set: ``{1, 3}`` (``{}`` for none);
    one per player (``A={1, 3}  B={2}``) when the first index is the player."""
    low, size = var.dims[-1]
    texts = ["{" + ", ".join(str(low + k) for k in range(size) if cells[start + k]) + "}"
             for start in range(0, len(cells), size)]
    if len(var.dims) == 1:
        return VariableView(var.name, (), (Item(texts[0]),), "set")
    return VariableView(var.name, (len(texts),), tuple(Item(text, seat=p) for p, text in enumerate(texts)), "set")


def _board_view(program: Any, var: Any, cells: Sequence[Any], show: Callable[[Any], Any], owned: bool) -> BoardView:
    board = program.board
    symbols = program.render_symbols

    def mark(value: Any) -> Item:
        if value in symbols:
            text = symbols[value]
        elif var.type.optional and value == -1:
            text = "."
        else:
            text = str(show(value))[:1]
        return Item(text, value if owned and value >= 0 else None, value=value)

    rows = tuple(tuple(mark(cells[row * board.cols + col]) for col in range(board.cols))
                 for row in range(board.rows - 1, -1, -1))
    return BoardView(var.name, rows, tuple(str(row + 1) for row in range(board.rows - 1, -1, -1)),
                     tuple(COLUMN_LETTERS[col] for col in range(board.cols)), board.shape == "hex")


# ------------------------------------------------------------------ plain text


def board_lines(board: BoardView) -> list[tuple[str, str, list[Item]]]:
    """Each drawn row as ``(label, indent, marks)``; the caller pads each mark to :attr:`BoardView.width`."""
    width = board.width
    out = []
    for number, (label, row) in enumerate(zip(board.row_labels, board.rows, strict=True)):
        below = len(board.rows) - 1 - number  # rows are numbered from the bottom
        indent = " " * (below * (width + 1) // 2) if board.hex else ""  # a hex board is a rhombus
        out.append((f"{label:>2} ", indent, list(row)))
    return out


def variable_text(variable: VariableView, players: Sequence[str]) -> str:
    """The value part of ``name: value`` (``1 2 / 3 4`` for a matrix, ``A=3  B=5`` for a per-player array)."""
    texts = [item.text for item in variable.items]
    if not variable.shape:
        return texts[0]
    if len(variable.shape) >= 2:
        size = variable.shape[-1]
        return " / ".join(" ".join(texts[i : i + size]) for i in range(0, len(texts), size))
    if variable.items and variable.items[0].seat is not None:
        return "  ".join(f"{p}={t}" for p, t in zip(players, texts, strict=False))
    return " ".join(texts)


def view_text(view: StateView) -> str:
    """The plain drawing: the board with its labels, ``name: value`` for each other variable, the status."""
    lines: list[str] = []
    if view.board is not None:
        width = view.board.width
        for label, indent, marks in board_lines(view.board):
            lines.append(label + indent + " ".join(m.text.ljust(width) for m in marks))
        lines.append("   " + " ".join(c.ljust(width) for c in view.board.column_labels))
    for variable in view.variables:
        lines.append(f"{variable.name}: {variable_text(variable, view.players)}")
    lines.append(view.status)
    return "\n".join(lines)


# ------------------------------------------------------------------ the rules in prose

_LABEL = re.compile(r"[A-Z][A-Za-z ]{0,24}:\s")
"""A header line that starts a paragraph of its own: ``Source:``, ``Known values:``, ``Parameters:``."""


def rules_text(source: str) -> list[str]:
    """The rules in prose: the comment at the top of a rule file, as paragraphs (lines joined).

    A paragraph ends at an empty comment line or before a labelled line (``Source: ...``); the
    prose is the author's, shown as written (``gdl info``, ``rules`` in ``gdl play``).
    """
    paragraphs: list[list[str]] = []
    for line in source.lstrip("\ufeff").splitlines():
        stripped = line.strip()
        if not stripped and not paragraphs:
            continue  # blank lines before the comment
        if not stripped.startswith("#"):
            break
        text = stripped.lstrip("#").strip()
        if not text:
            paragraphs.append([])
        elif not paragraphs or not paragraphs[-1] or _LABEL.match(text):
            paragraphs.append([text])
        else:
            paragraphs[-1].append(text)
    return [" ".join(words) for words in paragraphs if words]
