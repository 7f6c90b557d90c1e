"""Compiled rule files against hand-written reference games, in lock step along random playouts.

At every step both games must agree on the player to move, the legal move names
(in the same order), the chance outcomes and their probabilities, whether the
game is over, and the utilities. The move played is picked at random by name
and applied to both.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from typing import Any

import pytest

import gdl
from solver.game import CHANCE, TERMINAL, GameBase, Move

refgames = pytest.importorskip("refgames", reason="tests/refgames.py (hand-written references) is not there yet")


class TakeAway3(GameBase):
    """games/takeaway3.gdl by hand: take 1-3; the last taker scores 2, the one before 1."""

    name = "takeaway3"
    players = ("A", "B", "C")
    MOVES = tuple(Move("take", (n,)) for n in (1, 2, 3))

    def __init__(self, pile: int = 10) -> None:
        self.pile = pile

    def initial_state(self) -> tuple:
        return (self.pile, 0, 0, 0)  # left, turn, last, before

    def to_move(self, state: tuple) -> int:
        return TERMINAL if state[0] == 0 else state[1]

    def legal_moves(self, state: tuple) -> Sequence[Move]:
        return self.MOVES[: min(3, state[0])]

    def apply(self, state: tuple, move: Hashable) -> tuple:
        left, turn, last, _ = state
        return (left - move.args[0], (turn + 1) % 3, turn, last)  # type: ignore[attr-defined]

    def utilities(self, state: tuple) -> tuple[float, ...]:
        _, _, last, before = state
        return tuple(2.0 if p == last else 1.0 if p == before != last else 0.0 for p in range(3))


def lockstep(compiled: gdl.CompiledGame, reference: Any, playouts: int, seed: int) -> dict[str, int]:
    """Play ``playouts`` random games on both; returns counts of what was compared."""
    rng = random.Random(seed)
    seen = {"decisions": 0, "chance": 0, "terminal": 0}
    for _ in range(playouts):
        ours, theirs = compiled.initial_state(), reference.initial_state()
        history: list[str] = []
        while True:
            player = compiled.to_move(ours)
            assert player == reference.to_move(theirs), history
            if player == TERMINAL:
                assert compiled.utilities(ours) == pytest.approx(reference.utilities(theirs)), history
                seen["terminal"] += 1
                break
            if player == CHANCE:
                mine = [(str(o), p) for o, p in compiled.chance_outcomes(ours)]
                ref = [(str(o), p) for o, p in reference.chance_outcomes(theirs)]
                assert [n for n, _ in mine] == [n for n, _ in ref], history
                assert all(abs(p - q) <= 1e-12 for (_, p), (_, q) in zip(mine, ref, strict=True)), history
                name = rng.choices([n for n, _ in mine], [p for _, p in mine])[0]
                seen["chance"] += 1
            else:
                mine_names = [str(m) for m in compiled.legal_moves(ours)]
                assert mine_names == [str(m) for m in reference.legal_moves(theirs)], history
                name = rng.choice(mine_names)
                seen["decisions"] += 1
            history.append(name)
            ours = compiled.apply(ours, compiled.parse_move(ours, name))
            theirs = reference.apply(theirs, reference.parse_move(theirs, name))
    return seen


def test_tictactoe() -> None:
    seen = lockstep(gdl.load("tictactoe"), refgames.TicTacToe(), 2500, seed=1)
    assert seen["terminal"] == 2500


@pytest.mark.parametrize(("cols", "rows", "k", "playouts"), [(7, 6, 4, 400), (4, 4, 3, 800), (5, 4, 4, 600),
                                                             (3, 3, 3, 500)])
def test_connect4(cols: int, rows: int, k: int, playouts: int) -> None:
    compiled = gdl.load("connect4", params={"cols": str(cols), "rows": str(rows), "k": str(k)})
    seen = lockstep(compiled, refgames.ConnectFour(cols, rows, k), playouts, seed=cols * 100 + rows * 10 + k)
    assert seen["terminal"] == playouts


@pytest.mark.parametrize(("heaps", "playouts"), [((3, 4, 5), 1500), ((1, 2), 500), ((6,), 300), ((2, 2, 3, 1), 700)])
def test_nim(heaps: tuple[int, ...], playouts: int) -> None:
    compiled = gdl.load("nim", params={"heaps": ",".join(map(str, heaps))})
    seen = lockstep(compiled, refgames.Nim(heaps), playouts, seed=sum(heaps))
    assert seen["terminal"] == playouts


@pytest.mark.parametrize(("goal", "playouts"), [(20, 600), (5, 1500), (1, 200)])
def test_pig(goal: int, playouts: int) -> None:
    compiled = gdl.load("pig", params={"goal": str(goal)})
    seen = lockstep(compiled, refgames.Pig(goal), playouts, seed=goal)
    assert seen["terminal"] == playouts and seen["chance"] > playouts


@pytest.mark.parametrize("pile", [1, 4, 10])
def test_takeaway3(pile: int) -> None:
    seen = lockstep(gdl.load("takeaway3", params={"pile": str(pile)}), TakeAway3(pile), 500, seed=pile)
    assert seen["terminal"] == 500


def test_a_wrong_reference_is_caught() -> None:
    """The lock step is not vacuous: a game that differs is noticed."""
    with pytest.raises(AssertionError):
        lockstep(gdl.load("nim", params={"heaps": "3,4"}), refgames.Nim((3, 5)), 50, seed=0)
    with pytest.raises(AssertionError):
        lockstep(gdl.load("pig", params={"goal": "6"}), refgames.Pig(5), 200, seed=0)
