"""Puzzle search (BFS and A*) on a hand-written puzzle and on the 8-puzzle rule file."""

from __future__ import annotations

import pytest

import gdl
from solver.game import GameBase, Move, play_moves
from solver.shortest_path import PuzzleError, solve_puzzle


class Jugs(GameBase):
    """Die Hard water jugs: a 3 and a 5 litre jug; reach exactly 4 litres in the big one."""

    name = "jugs"
    players = ("Solver",)
    utility_bounds = (0.0, 1.0)
    MOVES = tuple(Move(n) for n in ("fill_small", "fill_big", "empty_small", "empty_big", "pour_small", "pour_big"))

    def initial_state(self) -> tuple[int, int]:
        return (0, 0)

    def to_move(self, state: tuple[int, int]) -> int:
        return -2 if state[1] == 4 else 0

    def legal_moves(self, state: tuple[int, int]) -> list[Move]:
        return list(self.MOVES)

    def apply(self, state: tuple[int, int], move: Move) -> tuple[int, int]:
        small, big = state
        if move.name == "fill_small":
            return (3, big)
        if move.name == "fill_big":
            return (small, 5)
        if move.name == "empty_small":
            return (0, big)
        if move.name == "empty_big":
            return (small, 0)
        if move.name == "pour_small":
            amount = min(small, 5 - big)
            return (small - amount, big + amount)
        amount = min(big, 3 - small)
        return (small + amount, big - amount)

    def utilities(self, state: tuple[int, int]) -> tuple[float, ...]:
        return (1.0,)


def test_bfs_finds_the_six_move_jug_solution() -> None:
    game = Jugs()
    result = solve_puzzle(game)
    assert result.solved and result.algorithm == "bfs"
    assert len(result.moves) == 6
    assert play_moves(game, [str(m) for m in result.moves])[1] == 4


@pytest.mark.parametrize("start, length", [(None, 2), ("8,6,7,2,5,4,3,0,1", 31), ("1,2,3,4,5,6,7,8,0", 0)])
def test_eight_puzzle_shortest_solutions(start: str | None, length: int) -> None:
    game = gdl.load("eight_puzzle", {"start": start} if start else {})
    astar = solve_puzzle(game)
    assert astar.algorithm == "astar" and astar.solved and len(astar.moves) == length
    end = play_moves(game, [str(m) for m in astar.moves])
    assert game.to_move(end) == -2 and game.utilities(end) == (1,)


@pytest.mark.slow
def test_astar_equals_bfs_length_and_expands_fewer_states() -> None:
    game = gdl.load("eight_puzzle", {"start": "8,6,7,2,5,4,3,0,1"})
    astar = solve_puzzle(game)
    bfs = solve_puzzle(game, use_heuristic=False)
    assert len(astar.moves) == len(bfs.moves) == 31
    assert bfs.nodes == 181440 and astar.nodes < bfs.nodes  # 9!/2 states are reachable


@pytest.mark.slow
def test_unsolvable_start_is_reported_after_a_complete_search() -> None:
    game = gdl.load("eight_puzzle", {"start": "1,2,3,4,5,6,8,7,0"})
    result = solve_puzzle(game, use_heuristic=False)
    assert not result.solved and result.complete and result.nodes == 181440


def test_budget_stops_the_search() -> None:
    game = gdl.load("eight_puzzle", {"start": "8,6,7,2,5,4,3,0,1"})
    result = solve_puzzle(game, use_heuristic=False, max_nodes=1000)
    assert not result.complete and not result.solved


def test_two_player_games_are_refused() -> None:
    with pytest.raises(PuzzleError, match="2 players"):
        solve_puzzle(gdl.load("tictactoe"))
