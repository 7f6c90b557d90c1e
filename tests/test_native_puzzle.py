"""Puzzle search in C (solver/native/puzzle.c): breadth-first search and A* expand the same states in the same
order as the Python loops of solver/shortest_path.py, so they find the same shortest line; caps, dead ends
and rule errors are reported the same way."""

from __future__ import annotations

from typing import Any

import pytest

import gdl
from gdl.rule_helpers import RuleRuntimeError
from solver.game import DeadEndError
from solver.limits import Limits
from solver.shortest_path import solve_puzzle

STARTS = ["[1, 2, 3, 4, 5, 6, 0, 7, 8]", "[8, 6, 7, 2, 5, 4, 3, 0, 1]", "[0, 8, 7, 6, 5, 4, 3, 2, 1]"]
"""Two moves from the goal, one of the two hardest positions (31 moves), and a 28-move one."""

LOCKED = """game Locked "a counter that cannot reach its goal"
players Solver
state n: 0..9 = 0
move up when n < 4: n += 2
move down when n > 0: n -= 1
win Solver when n == 7
lose Solver when n == 9
"""

STUCK = """game Stuck
players Solver
state n: 0..9 = 0
move up when n < 3: n += 1
win Solver when n == 5
"""

CRASH = """game Crash
players Solver
state n: 0..5 = 0
move up: n += 2
win Solver when n == 5
"""


def _both(source: str | None, params: dict[str, str] | None = None) -> list[gdl.CompiledGame]:
    if source is None:
        return [gdl.load("eight_puzzle", params, backend=b) for b in ("python", "c")]
    return [gdl.load_source(source, "puzzle.gdl", params, backend=b) for b in ("python", "c")]


def _summary(result: Any) -> tuple[Any, ...]:
    return (result.value, [str(m) for m in result.principal_variation], result.stats.nodes, result.algorithm,
            result.solved, result.complete, result.stopped, result.stop_reason, result.note, result.plies)


@pytest.mark.slow
@pytest.mark.parametrize("start", STARTS)
@pytest.mark.parametrize("heuristic", [True, False], ids=["astar", "bfs"])
def test_the_c_search_finds_the_python_line(start: str, heuristic: bool) -> None:
    python, native = _both(None, {"start": start})
    theirs, ours = (solve_puzzle(g, use_heuristic=heuristic) for g in (python, native))
    assert _summary(ours) == _summary(theirs) and ours.solved
    state = native.initial_state()
    for move in ours.principal_variation:  # the line is a solution
        state = native.apply(state, move)
    assert native.to_move(state) == -2 and native.utilities(state)[0] == 1


def test_an_unsolvable_puzzle_says_so_alike() -> None:
    theirs, ours = (solve_puzzle(g) for g in _both(LOCKED))
    assert _summary(ours) == _summary(theirs)
    assert ours.note is not None and ours.note.startswith("no solution")


def test_caps_stop_the_c_search_as_they_stop_python() -> None:
    for limits in (Limits(nodes=500), Limits(table_entries=200)):
        results = [solve_puzzle(g, limits=limits) for g in _both(None, {"start": STARTS[1]})]
        assert _summary(results[0]) == _summary(results[1])
        assert results[1].stopped and results[1].stop_reason in ("nodes", "table")


def test_dead_ends_and_rule_errors_are_reported_alike() -> None:
    messages = []
    for game in _both(STUCK):
        with pytest.raises(DeadEndError) as caught:
            solve_puzzle(game)
        messages.append(str(caught.value))
    assert messages[0] == messages[1] and "up" in messages[0]
    for game in _both(CRASH):
        with pytest.raises(RuleRuntimeError, match="domain"):
            solve_puzzle(game)


def test_progress_from_the_c_search() -> None:
    seen: list[int] = []
    native = _both(None, {"start": STARTS[1]})[1]
    result = solve_puzzle(native, use_heuristic=False, progress=lambda stats: seen.append(stats.nodes))
    assert result.solved and seen and seen == sorted(seen) and seen[-1] <= result.stats.nodes
