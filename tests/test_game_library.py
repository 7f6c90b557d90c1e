"""The game library: every bundled game loads cleanly, and small variants solve to their known values.

Values come from the literature cited in each rule file's header (see docs/games.md);
every one is computed here through the generic solver suite, never hard-coded into a game.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

import gdl
from solver.exact import solve
from solver.game import play_moves
from solver.shortest_path import solve_puzzle

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted(p.stem for p in (ROOT / "games").glob("*.gdl"))


def value(name: str, backend: str = "python", **params: object) -> tuple[float, ...]:
    game = gdl.load(name, {k: str(v) for k, v in params.items()}, backend=backend)
    result = solve(game)
    assert result.exact and not result.stopped
    return result.value


def test_the_library_has_at_least_twelve_games() -> None:
    assert len(GAMES) >= 12


@pytest.mark.parametrize("name", GAMES)
def test_every_game_loads_without_warnings_and_has_a_documented_header(name: str) -> None:
    game = gdl.load(name)
    assert game.warnings == []
    header = (ROOT / "games" / f"{name}.gdl").read_text(encoding="utf-8").splitlines()[:3]
    assert all(line.startswith("#") for line in header), "a header comment states the rules"
    assert name in (ROOT / "docs" / "games.md").read_text(encoding="utf-8")


def test_tictactoe_is_a_draw() -> None:
    assert value("tictactoe") == (0, 0)


@pytest.mark.parametrize("heaps", [(1, 1, 1), (1, 2, 3), (2, 2, 0), (4, 4, 4), (1, 4, 4), (3, 4, 2)])
def test_nim_first_player_wins_iff_xor_nonzero(heaps: tuple[int, int, int]) -> None:
    first = value("nim", heaps=",".join(map(str, heaps)))[0]
    assert first == (1 if heaps[0] ^ heaps[1] ^ heaps[2] else -1)


SLOW = pytest.mark.slow


# 6x4 on the C back end where there is a compiler (1 s against 20 s): the solvers give the Python back end's
# values on both (tests/test_native_emit.py), and the Python solver proves the draws of 5x4 and 4x5 here.
@pytest.mark.parametrize("cols, rows, expected, backend", [
    (4, 4, 0, "python"), pytest.param(5, 4, 0, "python", marks=SLOW), pytest.param(4, 5, 0, "python", marks=SLOW),
    pytest.param(6, 4, -1, "auto", marks=SLOW),
])
def test_connect_four_small_boards(cols: int, rows: int, expected: int, backend: str) -> None:
    assert value("connect4", backend, cols=cols, rows=rows)[0] == expected


def test_pig_goal_10_first_player_win_probability() -> None:
    first = value("pig", goal=10)[0]
    assert abs((first + 1) / 2 - 0.709424) < 1e-6


@pytest.mark.parametrize("rows, cols, expected", [(3, 3, -1), (4, 4, 1)])
def test_hexapawn(rows: int, cols: int, expected: int) -> None:
    # 3x3: second player (Black) wins; 4x4: first player wins (Gardner 1962).
    assert value("hexapawn", rows=rows, cols=cols)[0] == expected


def test_kalah_three_pits_three_seeds_first_player_wins_by_two() -> None:
    assert value("kalah", pits=3, seeds=3, capture="nonempty") == (2, -2)


def test_dots_and_boxes_two_by_two_first_player_wins_three_to_one() -> None:
    assert value("dots_and_boxes", rows=2, cols=2) == (2, -2)


def test_hex_three_by_three_has_exactly_five_winning_first_moves() -> None:
    result = solve(gdl.load("hex", {"size": "3"}))
    assert result.value == (1, -1)
    assert sorted(map(str, result.best_moves)) == sorted(
        ["place(c1)", "place(a2)", "place(b2)", "place(c2)", "place(a3)"])


def test_othello_four_by_four_second_player_wins_by_eight() -> None:
    assert value("othello", size=4, scoring="margin") == (-8, 8)
    assert value("othello", size=4) == (-1, 1)


@pytest.mark.parametrize("rows, cols, expected", [(2, 3, -1), (3, 3, 1), (1, 4, 1)])
def test_clobber_small_boards(rows: int, cols: int, expected: int) -> None:
    assert value("clobber", rows=rows, cols=cols)[0] == expected


def test_breakthrough_small_board() -> None:
    assert value("breakthrough", rows=4, cols=3) == (-1, 1)


@pytest.mark.parametrize("m, n, k, expected", [(3, 3, 3, 0), (4, 3, 3, 1), (3, 4, 3, 1), (4, 2, 2, 1)])
def test_mnk_values_from_the_literature(m: int, n: int, k: int, expected: int) -> None:
    """(3,3,3) is tic-tac-toe (a draw); k = 3 on any larger board, or k = 2, is a first-player win.
    (The (4,4,4) draw takes 10 s in Python: docs/games.md and bench/native.py show it.)"""
    assert value("mnk", m=m, n=n, k=k)[0] == expected


@functools.cache
def takeaway_by_hand(left: int, mover: int, last: int, before: int) -> tuple[float, ...]:
    """Max^n by hand with the same first-in-order tie-break the solver documents."""
    if left == 0:
        return tuple(2.0 if p == last else 1.0 if p == before and before != last else 0.0 for p in range(3))
    best: tuple[float, ...] | None = None
    for n in (1, 2, 3):
        if n <= left:
            child = takeaway_by_hand(left - n, (mover + 1) % 3, mover, last)
            if best is None or child[mover] > best[mover]:
                best = child
    assert best is not None
    return best


@pytest.mark.parametrize("pile", [1, 4, 7, 10])
def test_three_player_general_sum_takeaway(pile: int) -> None:
    game = gdl.load("takeaway3", {"pile": str(pile)})
    assert not game.zero_sum
    assert value("takeaway3", pile=pile) == takeaway_by_hand(pile, 0, 0, 0)


def test_dice_race_is_solved_with_chance_in_the_middle_of_moves() -> None:
    game = gdl.load("race", {"goal": "6"})
    result = solve(game)
    assert result.exact and -1 < result.value[0] < 1 and result.value[0] == -result.value[1]
    state = play_moves(game, ["roll"])
    outcomes = dict((str(m), p) for m, p in game.chance_outcomes(state))
    assert outcomes["total=7"] == pytest.approx(6 / 36) and outcomes["total=2"] == pytest.approx(1 / 36)


def test_eight_puzzle_shortest_solution() -> None:
    hardest = gdl.load("eight_puzzle", {"start": "8,6,7,2,5,4,3,0,1"})
    assert len(solve_puzzle(hardest).moves) == 31
    assert len(solve_puzzle(gdl.load("eight_puzzle")).moves) == 2
