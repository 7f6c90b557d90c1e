"""Agents and agent specs (the match runner: tests/test_match.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from refgames import Nim, Pig, Takeaway3, TicTacToe

from solver.agents import (
    PerfectAgent,
    RandomAgent,
    SearchAgent,
    make_agent,
    parse_spec,
)
from solver.exact import solve
from solver.table import StaleTableError, save_table


def test_parse_spec() -> None:
    assert parse_spec("alphabeta:depth=6") == ("alphabeta", {"depth": 6})
    assert parse_spec("mcts:iterations=2000, c=0.5,rollout=heuristic") == (
        "mcts", {"iterations": 2000, "c": 0.5, "rollout": "heuristic"})
    assert parse_spec("random") == ("random", {})


@pytest.mark.parametrize(("spec", "message"), [
    ("alphabet", "unknown agent"),
    ("alphabeta:dpth=3", "no option 'dpth'"),
    ("alphabeta:depth=zero", "bad value 'zero'"),
    ("alphabeta:depth=0", "at least 1"),
    ("alphabeta:depth", "needs a value"),
    ("mcts:solver=maybe", "true or false"),
    ("random:seed=3", "no option"),
])
def test_bad_specs_are_clear_errors(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_agent(TicTacToe(), spec)


def test_specs_that_do_not_fit_the_game() -> None:
    with pytest.raises(ValueError, match="chance"):
        make_agent(Pig(10), "alphabeta:depth=3")
    with pytest.raises(ValueError, match="rollout"):
        make_agent(TicTacToe(), "mcts:rollout=greedy")


@pytest.mark.parametrize("spec", ["random", "minimax:depth=2", "alphabeta:depth=3", "expectimax:depth=2",
                                  "mcts:iterations=50", "perfect"])
def test_every_agent_chooses_a_legal_move(spec: str) -> None:
    game = TicTacToe()
    agent = make_agent(game, spec, seed=1)
    state = game.initial_state()
    assert agent.choose(state) in game.legal_moves(state)
    if isinstance(agent, SearchAgent):
        assert agent.last is not None and agent.last.stats.nodes > 0


def test_agents_for_chance_and_three_player_games() -> None:
    pig = Pig(10)
    assert str(make_agent(pig, "expectimax:depth=2").choose(pig.initial_state())) == "roll"
    assert str(make_agent(pig, "perfect").choose(pig.initial_state())) == "roll"
    three = Takeaway3(7)
    assert str(make_agent(three, "alphabeta:depth=4").choose(three.initial_state())) in ("take(1)", "take(2)")


def test_random_agent_is_seeded() -> None:
    game = TicTacToe()
    state = game.initial_state()
    assert [RandomAgent(game, 5).choose(state) for _ in range(3)] == [RandomAgent(game, 5).choose(state)] * 3


def test_perfect_agent_from_a_table(tmp_path: Path) -> None:
    game = Nim((1, 2, 3, 4))
    path = tmp_path / "nim.sqlite"
    table = solve(game).table
    assert table is not None
    save_table(table, path)
    agent = make_agent(game, f"perfect:table={path}")
    assert isinstance(agent, PerfectAgent)
    move = agent.choose(game.initial_state())
    assert solve(game, game.apply(game.initial_state(), move)).value[0] == 1.0
    with pytest.raises(StaleTableError):
        make_agent(Nim((1, 2)), f"perfect:table={path}")


# ---------------------------------------------------------------- budgets of every searching agent


@pytest.mark.parametrize("spec, options", [
    ("expectimax:seconds=1,nodes=500,tt=100", {"seconds": 1.0, "nodes": 500, "tt": 100}),
    ("mcts:time=1,nodes=500,tt=100", {"seconds": 1.0, "nodes": 500, "tt": 100}),
    ("perfect:time=2,nodes=500,tt=100", {"seconds": 2.0, "nodes": 500, "tt": 100}),
    ("alphabeta:time=1,nodes=500,tt=100", {"seconds": 1.0, "nodes": 500, "tt": 100}),
    ("minimax:time=1,nodes=500", {"seconds": 1.0, "nodes": 500}),
])
def test_searching_agents_take_time_node_and_table_caps(spec: str, options: dict) -> None:
    assert parse_spec(spec)[1] == options


def test_perfect_agent_has_default_caps() -> None:
    from solver.agents import PERFECT_SECONDS, PERFECT_TABLE

    agent = make_agent(TicTacToe(), "perfect")
    assert isinstance(agent, PerfectAgent) and agent.limits is not None
    assert agent.limits.seconds == PERFECT_SECONDS and agent.limits.table_entries == PERFECT_TABLE


@pytest.mark.parametrize("spec", ["perfect:nodes=3000", "perfect:tt=2000"])
def test_perfect_agent_on_a_game_too_big_stops_at_its_caps(spec: str) -> None:
    import gdl

    game = gdl.load("connect4")  # 7x6: far too big to solve
    agent = make_agent(game, spec)
    state = game.initial_state()
    move = agent.choose(state)
    assert move in game.legal_moves(state)
    assert agent.last is not None and agent.last.stopped and not agent.last.exact
    assert agent.last.stop_reason in ("nodes", "table")
    assert agent.last.note.startswith(f"{spec}: stopped") and "heuristic guess" in agent.last.note
    assert agent.last.stats.tt_size <= 3000  # the solve's table stayed within the cap (or the node cap)
    state = game.apply(state, move)
    state = game.apply(state, next(iter(game.legal_moves(state))))
    assert agent.choose(state) in game.legal_moves(state)  # and it goes on playing


def test_perfect_agent_keeps_proven_bounds_move_and_its_table_within_the_cap() -> None:
    game = TicTacToe()
    agent = make_agent(game, "perfect:nodes=300,tt=5000")
    move = agent.choose(game.initial_state())
    assert move in game.legal_moves(game.initial_state())
    assert agent.last is not None and agent.last.bounds is not None
    assert "best move so far" in agent.last.note
    assert agent.table is None or len(agent.table.values) <= 5000
    full = make_agent(game, "perfect:tt=5000")
    state = game.initial_state()
    while game.to_move(state) >= 0:
        state = game.apply(state, full.choose(state))
        assert full.table is None or len(full.table.values) <= 5000
    assert game.utilities(state) == (0, 0)  # perfect against itself: a draw


@pytest.mark.parametrize("spec", ["expectimax:nodes=3000", "minimax:nodes=3000"])
def test_depth_limited_agents_deepen_within_a_node_budget(spec: str) -> None:
    game = Pig(50)
    agent = make_agent(game, spec)
    assert str(agent.choose(game.initial_state())) == "roll"
    assert isinstance(agent, SearchAgent) and agent.last is not None
    assert agent.last.stop_reason == "nodes" and agent.last.stats.depth >= 2
    assert 3000 <= agent.last.stats.nodes < 4000


def test_mcts_agent_tree_is_capped_by_tt() -> None:
    game = Pig(50)
    agent = make_agent(game, "mcts:tt=60", seed=1)
    agent.choose(game.initial_state())
    assert isinstance(agent, SearchAgent) and agent.last is not None
    assert agent.last.stats.tt_size <= 60


def test_expectimax_agent_table_cap() -> None:
    game = Pig(50)
    agent = make_agent(game, "expectimax:depth=6,tt=200")
    agent.choose(game.initial_state())
    assert isinstance(agent, SearchAgent) and agent.last is not None
    assert agent.last.stats.tt_size <= 200
