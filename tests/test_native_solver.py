"""The C solvers against the Python solvers, on hand-written C games (tests/native/*.c)."""

from __future__ import annotations

import pytest

from solver.exact import solve
from solver.limits import Limits
from solver.mcts import mcts
from tests.native_games import HandGame, module, skip_reason

pytestmark = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")


def games(name: str, **defines: int) -> tuple[HandGame, HandGame]:
    mod = module(name, **defines)
    return HandGame(mod, name, use_native=True), HandGame(mod, name, use_native=False)


def test_tictactoe_solved_in_c_equals_python() -> None:
    native, python = games("tictactoe.c")
    ours, theirs = solve(native), solve(python)
    assert ours.value == theirs.value == (0.0, 0.0)
    assert ours.exact and theirs.exact
    assert ours.best_moves == theirs.best_moves == tuple(range(9))


@pytest.mark.parametrize("line", [[4], [0], [1], [4, 0], [0, 4, 8], [1, 0, 4], [0, 1, 3, 4]])
def test_tictactoe_positions(line: list[int]) -> None:
    native, python = games("tictactoe.c")
    state = native.initial_state()
    for move in line:
        state = native.apply(state, move)
    ours, theirs = solve(native, state), solve(python, state)
    assert ours.value == theirs.value
    assert ours.best_moves == theirs.best_moves


@pytest.mark.parametrize(("cols", "rows"), [(4, 4), (3, 3), (4, 3), pytest.param(4, 5, marks=pytest.mark.slow)])
def test_connect4_solved_in_c_equals_python(cols: int, rows: int) -> None:
    native, python = games("connect4.c", C4_COLS=cols, C4_ROWS=rows)
    ours, theirs = solve(native), solve(python)
    assert ours.value == theirs.value
    assert ours.best_moves == theirs.best_moves


@pytest.mark.slow
def test_connect4_6x4_second_player_wins() -> None:
    native, _ = games("connect4.c", C4_COLS=6, C4_ROWS=4)
    result = solve(native)
    assert result.value == (-1.0, 1.0)
    assert result.exact


def test_small_table_still_exact() -> None:
    """A table of a few hundred entries replaces entries instead of stopping: the value stays exact."""
    native, python = games("connect4.c", C4_COLS=4, C4_ROWS=4)
    ours = solve(native, limits=Limits(table_entries=256))
    assert ours.exact
    assert ours.value == solve(python).value


def test_node_budget_stops_with_a_result() -> None:
    native, _ = games("connect4.c", C4_COLS=5, C4_ROWS=4)
    result = solve(native, limits=Limits(nodes=2000))
    assert result.stopped and result.stop_reason == "nodes"
    assert not result.exact


def test_progress_is_reported() -> None:
    native, _ = games("connect4.c", C4_COLS=5, C4_ROWS=4)
    seen = []
    solve(native, progress=seen.append)
    assert seen and all(s.nodes > 0 for s in seen)


# ------------------------------------------------------------------ MCTS


def test_mcts_in_c_counts_iterations_and_visits() -> None:
    native, _ = games("tictactoe.c")
    result = mcts(native, limits=Limits(iterations=3000), seed=1)
    assert result.stats.iterations <= 3000
    assert sum(c.visits for c in result.children) == result.stats.iterations
    assert {c.move for c in result.children} == set(range(9))
    assert result.best_move in range(9)


def test_mcts_in_c_is_repeatable_with_a_seed() -> None:
    native, _ = games("tictactoe.c")
    first = mcts(native, limits=Limits(iterations=2000), seed=7)
    second = mcts(native, limits=Limits(iterations=2000), seed=7)
    assert first.children == second.children
    assert first.principal_variation == second.principal_variation


def test_mcts_solver_in_c_proves_small_positions() -> None:
    """MCTS-Solver proves what alpha-beta proves: the value of tic-tac-toe positions."""
    native, python = games("tictactoe.c")
    for line in ([0, 4, 8], [4, 0, 1], [0, 1, 3]):
        state = native.initial_state()
        for move in line:
            state = native.apply(state, move)
        ours = mcts(native, state, Limits(iterations=200_000), seed=3)
        assert ours.exact
        assert ours.value == solve(python, state).value
        theirs = mcts(python, state, Limits(iterations=200_000), seed=3)
        assert theirs.exact and theirs.value == ours.value


def test_mcts_in_c_finds_the_win_in_one() -> None:
    native, _ = games("connect4.c", C4_COLS=5, C4_ROWS=4)
    state = native.initial_state()
    for move in (0, 1, 0, 1, 0, 1):  # the first player wins with column 0
        state = native.apply(state, move)
    result = mcts(native, state, Limits(iterations=2000), seed=0)
    assert result.best_move == 0
    assert result.exact and result.value == (1.0, -1.0)


def test_mcts_in_c_stops_on_time_and_reports_progress() -> None:
    native, _ = games("connect4.c", C4_COLS=5, C4_ROWS=4)
    seen = []
    result = mcts(native, limits=Limits(seconds=0.3), seed=0, progress=seen.append)
    assert result.stopped and result.stop_reason == "time"
    assert result.stats.iterations > 0


def test_root_parallel_mcts_in_c() -> None:
    """Two trees at once: the iterations are shared out, the root statistics added up, proofs kept."""
    native, python = games("tictactoe.c")
    result = mcts(native, limits=Limits(iterations=4001), seed=5, threads=2, solver=False)
    assert result.stats.iterations == 4001
    assert sum(c.visits for c in result.children) == 4001
    assert result.best_move in range(9)
    state = native.initial_state()
    for move in (0, 4, 8):
        state = native.apply(state, move)
    proved = mcts(native, state, Limits(iterations=200_000), seed=5, threads=2)
    assert proved.exact and proved.value == solve(python, state).value
