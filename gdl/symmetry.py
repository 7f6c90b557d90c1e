"""Board symmetries: ``symmetry mirror, rotate90`` in a rule file.

A declared symmetry lets the solvers treat a position and its mirror image as
one: :meth:`CompiledGame.key` returns the smallest of a state's images, so a
transposition table or solved table holds one entry per class of symmetric
positions (tic-tac-toe: 8 images, Connect-Four: 2).

What a symmetry does to a state: it moves every cell to its image, so each
array indexed by ``cell`` is permuted and each value of type ``cell`` or
``direction`` is mapped; numbers, players, booleans and enumerations stay as
they are. The declared symmetries generate a group (their compositions are
included), closed here once at load time.

A symmetry is a claim about the rules, and the rules may break it (a move that
names a fixed cell, a rule on column numbers). It is therefore **checked, not
trusted**: :func:`find_violation` plays seeded random games and compares, at
every state, each image's legal moves, successors, chance outcomes and
probabilities, terminal status, utilities and heuristic with the original's.
``gdl check`` runs it at length; a game runs a short check the first time a
solver asks for its keys (see :meth:`CompiledGame.key`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from itertools import product
from operator import itemgetter
from typing import Any

from gdl.board import Board

SYMMETRY_NAMES = ("mirror", "flip", "rotate180", "rotate90", "transpose", "all")
"""``mirror``: left-right (column c to cols-1-c); ``flip``: top-bottom; ``rotate180``;
``rotate90``: the quarter turns (square boards); ``transpose``: about the a1 diagonal
(square boards); ``all``: every symmetry of the board's shape."""

Point = tuple[int, int]


@dataclass(frozen=True)
class Transform:
    """One symmetry of the board: where each cell and each direction goes."""

    name: str
    cells: tuple[int, ...]  # cells[c] is the image of cell c
    dirs: tuple[int, ...]  # dirs[d] is the image of direction d

    def then(self, other: Transform) -> Transform:
        """This transform followed by ``other``."""
        return Transform(f"{self.name}+{other.name}", tuple(other.cells[c] for c in self.cells),
                         tuple(other.dirs[d] for d in self.dirs))


def _linear(name: str, rows: int, cols: int) -> tuple[Callable[[int, int], Point], Callable[[int, int], Point]]:
    """The map of (row, col) and of a direction's (drow, dcol) for one named generator."""
    r1, c1 = rows - 1, cols - 1
    return {
        "mirror": (lambda r, c: (r, c1 - c), lambda dr, dc: (dr, -dc)),
        "flip": (lambda r, c: (r1 - r, c), lambda dr, dc: (-dr, dc)),
        "rotate180": (lambda r, c: (r1 - r, c1 - c), lambda dr, dc: (-dr, -dc)),
        "rotate90": (lambda r, c: (c, r1 - r), lambda dr, dc: (dc, -dr)),
        "transpose": (lambda r, c: (c, r), lambda dr, dc: (dc, dr)),
    }[name]


def why_not(board: Board, name: str) -> str | None:
    """Why ``name`` is not a symmetry of ``board``'s shape, or None if it is."""
    if name in ("rotate90", "transpose") and board.rows != board.cols:
        return f"`{name}` needs a board with as many rows as columns, not {board.rows} x {board.cols}"
    if board.shape == "hex" and name in ("mirror", "flip", "rotate90"):
        return f"`{name}` is not a symmetry of a hex board (only `rotate180` and `transpose` are)"
    return None


def generators(board: Board, name: str) -> list[str]:
    """The generators a declared name stands for (``all`` stands for every one that fits)."""
    if name != "all":
        return [name]
    if board.shape == "hex":
        return ["rotate180"] + (["transpose"] if board.rows == board.cols else [])
    return ["mirror", "flip"] + (["transpose"] if board.rows == board.cols else [])


def make_transform(board: Board, name: str) -> Transform:
    point, delta = _linear(name, board.rows, board.cols)
    cells = []
    for cell in range(board.ncells):
        r, c = point(board.row_of[cell], board.col_of[cell])
        cells.append(board.cell_at(r, c))
    dirs = [board.deltas.index(delta(*d)) for d in board.deltas]
    return Transform(name, tuple(cells), tuple(dirs))


def group(board: Board, names: Sequence[str]) -> list[Transform]:
    """Every transform the named symmetries generate, except the identity (in a fixed order)."""
    gens = [make_transform(board, g) for name in names for g in generators(board, name)]
    identity = Transform("identity", tuple(range(board.ncells)), tuple(range(len(board.deltas))))
    seen = {(identity.cells, identity.dirs): identity}
    frontier = [identity]
    while frontier:
        new = []
        for t, g in product(frontier, gens):
            image = t.then(g) if t is not identity else g
            if (image.cells, image.dirs) not in seen:
                seen[(image.cells, image.dirs)] = image
                new.append(image)
        frontier = new
    return [t for t in seen.values() if t is not identity]


# ------------------------------------------------------------------ states


@dataclass(frozen=True)
class SlotMap:
    """A transform as it acts on a state tuple[Any, ...]: ``image[j] = vmap[j][state[src[j]]]``."""

    src: tuple[int, ...]
    value_maps: tuple[tuple[int, dict[int, int]], ...]  # (slot, {value: image}) for cell/direction values

    def apply(self, state: tuple[Any, ...]) -> tuple[Any, ...]:
        image = [state[i] for i in self.src]
        for slot, vmap in self.value_maps:
            image[slot] = vmap.get(image[slot], image[slot])
        return tuple(image) + tuple(state[len(self.src):])


def slot_map(transform: Transform, state_vars: Sequence[Any], nslots: int) -> SlotMap:
    """How ``transform`` permutes and maps the slots of a decision state of ``nslots`` slots."""
    src = list(range(nslots))
    value_maps: list[tuple[int, dict[int, int]]] = []
    for var in state_vars:
        kinds = [t.kind for t in var.index_types]
        strides = []
        stride = 1
        for _, size in reversed(var.dims):
            strides.append(stride)
            stride *= size
        strides.reverse()
        vmap = _value_map(var.type.kind, transform)
        for index in product(*(range(lo, lo + size) for lo, size in var.dims)):
            image = tuple(_image(kind, i, transform) for kind, i in zip(kinds, index, strict=True))
            pos = var.offset + sum((i - lo) * s for i, (lo, _), s in zip(index, var.dims, strides, strict=True))
            pos_image = var.offset + sum((i - lo) * s for i, (lo, _), s in zip(image, var.dims, strides,
                                                                             strict=True))
            src[pos_image] = pos
            if vmap is not None:
                value_maps.append((pos_image, vmap))
    return SlotMap(tuple(src), tuple(value_maps))


def _image(kind: str, value: int, transform: Transform) -> int:
    if kind == "cell":
        return transform.cells[value]
    if kind == "dir":
        return transform.dirs[value]
    return value


def _value_map(kind: str, transform: Transform) -> dict[int, int] | None:
    if kind == "cell":
        return dict(enumerate(transform.cells))
    if kind == "dir":
        return dict(enumerate(transform.dirs))
    return None


def canonical_key(maps: Sequence[SlotMap], nslots: int, turn_slot: int,
                  has_chance: bool) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    """The key function: the smallest image of a decision state (a chance state is its own key).

    Any image would be a correct key (symmetric states have the same value); the smallest
    makes symmetric states share one entry.
    """
    if any(m.value_maps for m in maps):
        images = [m.apply for m in maps]

        def slow_key(state: tuple[Any, ...]) -> tuple[Any, ...]:
            if has_chance and state[turn_slot] == -1:
                return state
            return min(state, *(f(state) for f in images))

        return slow_key
    getters = [itemgetter(*m.src) for m in maps]
    if len(getters) == 1:
        (g1,) = getters
        if has_chance:
            return lambda s: s if s[turn_slot] == -1 else min(s, g1(s))
        return lambda s: min(s, g1(s))
    if has_chance:
        return lambda s: s if s[turn_slot] == -1 else min(s, *[g(s) for g in getters])
    return lambda s: min(s, *[g(s) for g in getters])


# ------------------------------------------------------------------ checking


@dataclass(frozen=True)
class Violation:
    moves: tuple[str, ...]  # from the initial state to the state where the images differ
    symmetry: str
    what: str


def find_violation(game: Any, maps: Sequence[tuple[str, SlotMap]], *, playouts: int, max_states: int,
                   max_work: int, seed: int = 0, max_plies: int = 1000) -> Violation | None:
    """Play seeded random games and compare decision states with their images (one symmetry each, in turn).

    Stops after ``max_states`` states or ``max_work`` successors made (a game with costly
    moves gets fewer states). Chance in the middle of a move is followed through to the
    next decision (or end) state, so the comparison never needs to map a suspended move's locals.
    """
    rng = random.Random(seed)
    checked = work = 0
    for _ in range(playouts):
        state = game.initial_state()
        line: list[str] = []
        for _ply in range(max_plies):
            if checked >= max_states or work >= max_work:
                return None
            player = game.to_move(state)
            if player >= 0 or player == -2:
                # One symmetry per state, in turn: more states for the same work.
                name, m = maps[checked % len(maps)]
                checked += 1
                what, cost = _compare(game, state, m)
                work += cost
                if what is not None:
                    return Violation(tuple(line), name, what)
            if player == -2:
                break
            choices = game.chance_outcomes(state) if player == -1 else [(m, 1.0) for m in game.legal_moves(state)]
            if not choices:
                break  # a dead end: `gdl check`'s playouts report it (no-moves); nothing to compare beyond
            move = rng.choices([c for c, _ in choices], [p for _, p in choices])[0]
            line.append(str(move))
            state = game.apply(state, move)
    return None


def _compare(game: Any, state: tuple[Any, ...], m: SlotMap) -> tuple[str | None, int]:
    """What differs between ``state`` and its image (None: nothing), and how many successors that took."""
    image = m.apply(state)
    if game.to_move(image) != game.to_move(state):
        return "the player to move differs", 1
    if game.to_move(state) == -2:
        if tuple(game.utilities(image)) != tuple(game.utilities(state)):
            return f"the utilities differ: {tuple(game.utilities(state))} and {tuple(game.utilities(image))}", 1
        return None, 1
    if game.heuristic(image) != game.heuristic(state):
        return "the heuristic differs", 1
    ours = sorted(_settled(m.apply(s), p) for s, p in _successors(game, state))
    theirs = sorted(_settled(s, p) for s, p in _successors(game, image))
    cost = 1 + len(ours) + len(theirs)
    if len(ours) != len(theirs):
        return f"the number of legal moves differs: {len(ours)} and {len(theirs)}", cost
    if ours != theirs:
        return "the moves lead to different positions", cost
    return None, cost


def _settled(state: tuple[Any, ...], p: float) -> tuple[Hashable, float]:
    return (state, round(p, 12))


def _successors(game: Any, state: tuple[Any, ...]) -> list[tuple[tuple[Any, ...], float]]:
    """Each legal move's outcome, followed through chance to decision or end states, with probabilities."""
    out: list[tuple[tuple[Any, ...], float]] = []
    for move in game.legal_moves(state):
        stack = [(game.apply(state, move), 1.0)]
        while stack:
            s, p = stack.pop()
            if game.to_move(s) == -1:
                stack.extend((game.apply(s, o), p * q) for o, q in game.chance_outcomes(s))
            else:
                out.append((s, p))
    return out
