"""The optimised searches against plain textbook alpha-beta (:mod:`solver.textbook`) on random small games.

The optimised negamax (transposition table, killers, history, enhanced transposition cutoff,
MTD(f)'s null windows) must find what Knuth & Moore's alpha-beta finds: the same value at every
depth, and, solving exactly, the same set of optimal root moves.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from refgames import Nim, TicTacToe
from test_solver_search import FAST, as_game, trees

from solver.alphabeta import alphabeta
from solver.exact import solve
from solver.limits import Limits
from solver.textbook import textbook_alphabeta, textbook_best_moves


@FAST
@given(trees(max_depth=5))
def test_optimised_alphabeta_equals_textbook_on_random_trees(tree: tuple) -> None:
    game = as_game(tree)
    root = game.initial_state()
    exact = textbook_alphabeta(game, root)
    for use_tt in (True, False):
        for ordering in (True, False):
            assert alphabeta(game, use_tt=use_tt, ordering=ordering).value[0] == exact
    for depth in (1, 2, 3):
        result = alphabeta(game, limits=Limits(depth=depth), iterative=False)
        assert result.value[0] == textbook_alphabeta(game, root, depth)


@FAST
@given(trees(max_depth=5))
def test_exact_solver_equals_textbook_value_and_optimal_moves(tree: tuple) -> None:
    game = as_game(tree)
    root = game.initial_state()
    solution = solve(game)
    assert solution.value[0] == textbook_alphabeta(game, root)
    if game.to_move(root) >= 0:
        assert [str(m) for m in solution.best_moves] == [str(m) for m in textbook_best_moves(game, root)]


@pytest.mark.parametrize("game", [TicTacToe(), Nim((1, 2, 3))], ids=["tictactoe", "nim 1,2,3"])
def test_optimised_equals_textbook_on_small_real_games(game) -> None:
    root = game.initial_state()
    solution = solve(game)
    assert solution.value[0] == textbook_alphabeta(game, root)
    assert [str(m) for m in solution.best_moves] == [str(m) for m in textbook_best_moves(game, root)]
