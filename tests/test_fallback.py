"""A game without a heuristic: the fallback of a stopped search is MCTS, not the first legal move (issue 16).

A depth-limited search of such a game scores every move with the horizon's 0 and so plays the first
legal one; random playouts still tell a move that blocks a win from one that does not.
"""

from __future__ import annotations

import pytest

import gdl
from solver.agents import PerfectAgent
from solver.auto import Algorithm, fallback, heuristic_search
from solver.exact import solve
from solver.limits import Limits

# Yellow has three in column g; Red (to move) must block at g or lose at once. Column a comes first.
MUST_BLOCK = ["drop(a)", "drop(g)", "drop(b)", "drop(g)", "drop(a)", "drop(g)"]


def position(game, names):
    state = game.initial_state()
    for name in names:
        state = game.apply(state, game.parse_move(state, name))
    return state


def test_a_game_without_a_heuristic_falls_back_to_mcts():
    connect4 = gdl.load("connect4")
    assert connect4.heuristic(connect4.initial_state()) is None
    assert fallback(connect4, connect4.initial_state()) == Algorithm.MCTS
    assert heuristic_search(connect4) == Algorithm.ALPHABETA  # an explicit --depth keeps the depth-limited search


def test_a_game_with_a_heuristic_keeps_the_depth_limited_search():
    game = next(gdl.load(name) for name in gdl.bundled_games()
                if gdl.load(name).heuristic(gdl.load(name).initial_state()) is not None)
    state = game.initial_state()
    assert fallback(game, state) == heuristic_search(game) != Algorithm.MCTS


def test_a_stopped_solve_guesses_the_block_by_mcts():
    game = gdl.load("connect4")
    state = position(game, MUST_BLOCK)
    result = solve(game, state, Limits(nodes=50))
    assert result.stopped and not result.exact
    assert [str(m) for m in result.best_moves] == ["drop(g)"]  # (the depth-limited guess played drop(a))
    assert "MCTS" in (result.note or "") and "random playouts" in (result.note or "")


def test_the_perfect_agent_stopped_by_its_cap_blocks():
    game = gdl.load("connect4")
    state = position(game, MUST_BLOCK)
    agent = PerfectAgent(game, limits=Limits(nodes=50))
    assert str(agent.choose(state)) == "drop(g)"
    assert agent.last is not None and "MCTS" in (agent.last.note or "")


@pytest.mark.slow
def test_solve_with_time_on_a_game_without_a_heuristic_says_it_ran_mcts(tmp_path):
    import contextlib
    import io

    from gdl.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        # (10 s, not 3: with two CPU hogs beside the suite the exact stage and its own quick guess overran its
        # 2.4 s by 1.75 s and left MCTS no time; the reserve for MCTS is a fifth of --time)
        code = main(["solve", "connect4", "--time", "10", "--moves", ",".join(MUST_BLOCK)])
    text = out.getvalue()
    assert code == 0, text
    assert "MCTS then ran" in text and "random playouts" in text, text
    assert "best move: drop(g)" in text, text
