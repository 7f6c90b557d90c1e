"""Budgets and bad input: every search stops with a clear message, long games never overflow the stack,
and a wrong command line is one line of error with exit 2."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace

import pytest

import gdl
from gdl.cli import main
from gdl.cli.app import build_parser
from gdl.cli.solve import solve_limits
from solver.exact import solve
from solver.game import CHANCE, TERMINAL
from solver.graph import STATE_BYTES
from solver.limits import PYTHON_ENTRY_BYTES, Budget, Limits

LONG = """\
game LongWalk "a walk of 12000 steps"
players A, B
state n: 0..12000 = 0
move step: n += 1
move skip when n % 7 == 3: n += 1
win A when n == 12000
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ---------------------------------------------------------------- budgets of `gdl solve`


@pytest.mark.slow
@pytest.mark.parametrize("option", [["--max-nodes", "3000"], ["--max-table", "3000"], ["--memory", "1"]])
def test_solve_caps_stop_with_an_estimate(capsys, option):
    code, out, _ = run(capsys, "solve", "connect4", *option, "--json")
    assert code == 0
    report = json.loads(out)
    assert report["stopped"] and not report["exact"]
    assert report["stop_reason"] in ("nodes", "table")
    assert report["estimate"]["log10_encodings"] > 15  # connect four: far too big
    assert 0 < report["estimate"]["states_explored"] < 10_000


def test_solve_cap_text_says_why_and_how_big(capsys):
    code, out, _ = run(capsys, "solve", "connect4", "--max-nodes", "2000")
    assert code == 0
    assert "out of nodes (--max-nodes)" in out
    assert "encodings" in out and "too big to solve exactly" in out
    # no pass of MTD(f) finished: a brief heuristic search gives a move, and says it is a guess
    assert "heuristic guess" in out and "best move: drop(" in out
    assert "no value" not in out


# ---------------------------------------------------------------- a stopped exact solve: the best answer so far


@pytest.mark.parametrize("nodes", [200, 300, 400, 500])
def test_stopped_alphabeta_solve_reports_proven_bounds_and_a_move(nodes):
    game = gdl.load("tictactoe")
    result = solve(game, limits=Limits(nodes=nodes))
    assert result.stopped and result.stop_reason == "nodes" and not result.exact
    low, high = result.bounds
    assert -1 <= low <= 0 <= high <= 1  # the true value (a draw) lies in the proven bounds
    assert low <= result.value[0] <= high
    assert result.best_move in game.legal_moves(game.initial_state())
    assert "best move so far" in result.note and str(result.best_move) in result.note
    assert result.principal_variation[0] == result.best_move
    if low < high:
        assert "not proven" in result.note


def test_stopped_solve_that_learned_nothing_guesses_a_move():
    game = gdl.load("connect4", {"cols": "5", "rows": "4"})
    result = solve(game, limits=Limits(nodes=50))
    assert result.stopped and not result.exact and result.bounds is None
    assert result.note.startswith("heuristic guess")
    assert result.best_move in game.legal_moves(game.initial_state())
    assert result.stats.nodes >= 50  # the solver's own nodes; the guess's are in the note


def test_the_guess_is_the_same_on_a_slow_machine(capsys, monkeypatch):
    """A solve stopped without --time guesses a move by a search counted in nodes and playouts, not a second of
    the clock: a machine whose clocks run fast (a busy one, tests/warp.py) prints the same guess from the same
    playouts (the second let Othello play some hundreds, fewer on a busy machine)."""
    from warp import warp_clocks

    def guess() -> str:
        code, out, _ = run(capsys, "solve", "connect4", "--max-nodes", "100", "--json")
        assert code == 0
        return json.loads(out)["note"]

    expected = guess()
    assert "MCTS (500 random playouts" in expected
    warp_clocks(monkeypatch, 0.05)
    assert guess() == expected


def test_interrupted_solve_does_not_search_on():
    from solver.exact import _stopped
    from solver.limits import Budget

    game = gdl.load("connect4")
    result = _stopped(game, game.initial_state(), Budget(Limits()), "interrupt", Limits())
    assert result.stopped and result.best_moves == () and result.note is None


@pytest.mark.parametrize("game, params", [("pig", {}), ("takeaway3", {"pile": "40"})])
def test_stopped_graph_solve_guesses_with_the_fitting_search(game, params):
    loaded = gdl.load(game, params)
    result = solve(loaded, limits=Limits(nodes=100))
    assert result.stopped and not result.exact
    assert "heuristic guess" in result.note
    assert result.best_move in loaded.legal_moves(loaded.initial_state())


def test_value_iteration_cut_short_is_an_estimate_with_a_move():
    result = solve(gdl.load("pig", {"goal": "10"}), limits=Limits(iterations=1))
    assert result.stopped and not result.exact and result.stop_reason == "iterations"
    assert result.algorithm == "value_iteration" and str(result.best_move) == "roll"
    assert result.note.startswith("estimate")


def test_value_iteration_stopped_by_the_budget_reports_the_values_it_hands_over(monkeypatch):
    import solver.exact as exact
    from solver.limits import SearchStopped

    def stopped(graph, budget, tolerance, max_sweeps):
        values = [graph.utilities.get(i, (0.25, -0.25)) for i in range(len(graph))]
        best = [(0,) if graph.player[i] >= 0 else () for i in range(len(graph))]
        stop = SearchStopped("time")
        stop.partial = (values, best)
        raise stop

    monkeypatch.setattr(exact, "_value_iteration", stopped)
    result = solve(gdl.load("pig", {"goal": "6"}))
    assert result.stopped and result.stop_reason == "time" and not result.exact
    assert result.value == (0.25, -0.25) and str(result.best_move) == "roll"
    assert result.note.startswith("estimate")


def test_cli_stopped_solve_prints_bounds_and_json_has_them(capsys):
    code, out, _ = run(capsys, "solve", "tictactoe", "--max-nodes", "300")
    assert code == 0
    assert "value so far (not proven): X between 0 and 1" in out
    assert "best move so far: place(" in out
    code, out, _ = run(capsys, "solve", "tictactoe", "--max-nodes", "300", "--json")
    report = json.loads(out)
    assert report["exact"] is False and report["stopped"] is True and report["stop_reason"] == "nodes"
    assert report["bounds"] == [0.0, 1.0]
    assert report["best_moves"] and "not proven" in report["note"]


@pytest.mark.slow
def test_cli_connect4_5x4_node_cap_gives_a_move(capsys):
    code, out, _ = run(capsys, "solve", "connect4", "-p", "cols=5", "-p", "rows=4", "--max-nodes", "100000",
                       "--json")
    report = json.loads(out)
    assert code == 0 and report["stopped"] and not report["exact"]
    assert report["best_moves"] and report["best_moves"][0].startswith("drop(")
    assert report["note"]


# ---------------------------------------------------------------- --time, --max-nodes, --depth on every game type


@pytest.mark.parametrize("game", ["connect4", "pig", "race", "takeaway3", "eight_puzzle"])
@pytest.mark.parametrize("option", [["--time", "0.2"], ["--max-nodes", "3000"], ["--depth", "2"],
                                    ["--time", "0.2", "--max-nodes", "3000"]])
@pytest.mark.slow
def test_every_game_type_answers_under_every_budget(capsys, game, option):
    code, out, err = run(capsys, "solve", game, *option, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["best_moves"], report
    assert report["exact"] or report["stopped"] or "--depth" in option


@pytest.mark.parametrize("game, algorithm", [("pig", "expectimax"), ("race", "expectimax"),
                                             ("takeaway3", "minimax"), ("connect4", "minimax")])
def test_depth_limited_search_deepens_within_a_node_cap(capsys, game, algorithm):
    code, out, err = run(capsys, "solve", game, "--algorithm", algorithm, "--max-nodes", "5000", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["best_moves"] and report["algorithm"] == algorithm
    assert report["exact"] or (report["stop_reason"] == "nodes" and report["stats"]["depth"] >= 2)


def test_pig_with_time_and_no_depth_is_not_an_error(capsys):
    code, out, err = run(capsys, "solve", "pig", "-p", "goal=30", "--time", "0.4", "--json")
    assert code == 0, err
    assert json.loads(out)["best_moves"] == ["roll"]


def test_exact_methods_take_a_time_or_node_budget(capsys):
    code, out, err = run(capsys, "solve", "pig", "--algorithm", "value_iteration", "--max-nodes", "2000", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["stopped"] and report["best_moves"] and "heuristic guess" in report["note"]


def test_iterative_deepening_keeps_the_deepest_completed_depth():
    from solver.expectimax import expectimax
    from solver.limits import iterative_deepening
    from solver.minimax import minimax

    pig = gdl.load("pig", {"goal": "50"})
    result = iterative_deepening(lambda lim: expectimax(pig, None, lim), Limits(nodes=5000))
    assert result.stopped and result.stop_reason == "nodes" and not result.exact
    assert result.stats.depth >= 3 and 5000 <= result.stats.nodes < 6000
    assert str(result.best_move) == "roll"
    small = gdl.load("takeaway3", {"pile": "6"})
    exact = iterative_deepening(lambda lim: minimax(small, None, lim), Limits(nodes=1_000_000))
    assert exact.exact and not exact.stopped
    assert exact.value == solve(small).value


# ---------------------------------------------------------------- memory: --memory bounds the graph methods too


def test_memory_cap_bounds_the_state_graph(capsys):
    code, out, _ = run(capsys, "solve", "pig", "--memory", "0.05", "--json")  # 62 states of 800 bytes
    report = json.loads(out)
    assert code == 0 and report["stopped"] and report["stop_reason"] == "table"
    assert report["stats"]["tt_size"] == 50_000 // STATE_BYTES
    assert report["best_moves"] == ["roll"] and "heuristic guess" in report["note"]


def _limits(*argv: str) -> Limits:
    """The budget ``gdl solve`` makes of its options."""
    args = build_parser("solve").parse_args(["solve", "tictactoe", *argv])
    return solve_limits(args)


def test_memory_is_passed_as_bytes_and_each_table_sizes_itself():
    """``--memory 64`` reaches the solvers as 64e6 bytes; each table divides them by the size of its own entries:
    a Python search's by PYTHON_ENTRY_BYTES, a Python state graph's by STATE_BYTES, C's by theirs."""
    limits = _limits("--memory", "64")
    assert limits.memory_bytes == 64_000_000 and limits.table_entries is None
    assert limits.entries(PYTHON_ENTRY_BYTES) == 64_000_000 // PYTHON_ENTRY_BYTES
    assert limits.entries(STATE_BYTES) == 64_000_000 // STATE_BYTES
    assert _limits("--max-table", "3000").entries(PYTHON_ENTRY_BYTES) == 3000  # (entries, whatever their size)
    assert _limits().entries(PYTHON_ENTRY_BYTES) is None
    with pytest.raises(ValueError, match="memory_bytes"):
        Limits(memory_bytes=-1)


@pytest.mark.parametrize(("max_table", "smaller"), [("100", "table"), ("100000000", "memory")])
def test_memory_and_max_table_together_take_the_smaller(max_table, smaller):
    limits = _limits("--memory", "64", "--max-table", max_table)
    by_memory = 64_000_000 // PYTHON_ENTRY_BYTES
    assert limits.entries(PYTHON_ENTRY_BYTES) == (100 if smaller == "table" else by_memory)


@pytest.mark.parametrize(("memory", "max_table", "states"), [("0.05", None, 50_000 // STATE_BYTES),
                                                            ("0.05", "30", 30), ("1", "40", 40)])
def test_the_python_graph_keeps_the_smaller_cap(capsys, memory, max_table, states):
    extra = ["--max-table", max_table] if max_table else []
    code, out, _ = run(capsys, "solve", "pig", "--memory", memory, *extra, "--json")
    report = json.loads(out)
    assert code == 0 and report["stop_reason"] == "table" and report["stats"]["tt_size"] == states


def test_the_c_alphabeta_table_is_sized_by_its_own_entries(monkeypatch):
    """On the C back end ``--memory 64`` makes 64e6 // (C's entry size) entries, in buckets of two, and the table
    grows to all of them (a helper thread grows it to its full size at once): no power of two below."""
    import solver.native.search as native_search_module
    from solver.native import handle_of

    native = gdl.load("connect4", {"cols": "4", "rows": "4"}, backend="c")
    handle = handle_of(native)
    entry = int(handle.lib.gdl_ab_entry_bytes())
    assert entry in (36, 45, 54)  # 24 bytes and the packed key (a word or more), and an eighth for the growth
    limits = replace(_limits("--memory", "64"), threads=2)
    entries = native_search_module.table_entries(handle, limits)
    assert entries == 64_000_000 // entry
    monkeypatch.setattr(native_search_module, "HELPERS_AFTER", 0)
    search = native_search_module.native_search(native, Budget(limits), limits)
    search.negamax(native.initial_state(), 0, 0, -math.inf, math.inf)
    search.close()
    assert search.table_capacity == entries // 2 * 2
    assert native_search_module.table_entries(handle, replace(limits, table_entries=1000)) == 1000


@pytest.mark.parametrize("backend", ["python", "c"])
def test_expectimax_tables_are_sized_by_their_own_entries(backend):
    """The expectimax table stores at most the entries the memory holds at its back end's entry size (C's:
    gdl_ex_entry_bytes, six slots of a table kept at most half full), and the value is the uncapped search's."""
    from solver.expectimax import expectimax
    from solver.native import handle_of

    game = gdl.load("pig", {"goal": "20"}, backend=backend)
    handle = handle_of(game)
    entry = PYTHON_ENTRY_BYTES if handle is None else int(handle.lib.gdl_ex_entry_bytes())
    free = expectimax(game, limits=Limits(depth=8))
    capped = expectimax(game, limits=Limits(depth=8, memory_bytes=200_000))
    assert free.stats.tt_size > 200_000 // entry == capped.stats.tt_size
    assert capped.value == free.value


def test_the_c_graph_is_sized_by_its_own_states(capsys):
    """The C state graph keeps as many states as the memory holds at its cost of a state (graph.c's
    gdl_gr_state_bytes), or ``--max-table``'s, the smaller."""
    from solver.native import handle_of
    from solver.native.graph import most_states

    native = gdl.load("pig", {}, backend="c")
    per_state = int(handle_of(native).lib.gdl_gr_state_bytes(0, 0))  # (pig: value iteration, no retrograde analysis)
    assert 100 < per_state < 200
    assert most_states(native, handle_of(native), _limits("--memory", "64")) == 64_000_000 // per_state
    for extra, states in (([], 50_000 // per_state), (["--max-table", "30"], 30)):
        code, out, _ = run(capsys, "solve", "pig", "--backend", "c", "--memory", "0.05", *extra, "--json")
        report = json.loads(out)
        assert code == 0 and report["stop_reason"] == "table" and report["stats"]["tt_size"] == states


def test_memory_cap_bounds_puzzle_search(capsys):
    code, out, _ = run(capsys, "solve", "eight_puzzle", "-p", "start=8,6,7,2,5,4,3,0,1", "--max-table", "500",
                       "--json")
    report = json.loads(out)
    assert code == 0 and report["stopped"] and report["stop_reason"] == "table"
    assert report["stats"]["nodes"] <= 500


def test_solve_time_limit_gives_a_heuristic_answer(capsys):
    code, out, _ = run(capsys, "solve", "connect4", "--time", "0.3", "--json")
    assert code == 0
    assert json.loads(out)["best_moves"]


def test_small_game_within_caps_is_exact(capsys):
    code, out, _ = run(capsys, "solve", "tictactoe", "--max-nodes", "10000000", "--memory", "500", "--json")
    assert code == 0 and json.loads(out)["exact"]


def test_library_table_cap_stops_the_alphabeta_path():
    result = solve(gdl.load("connect4"), limits=Limits(table_entries=2000))
    assert result.stopped and result.stop_reason == "table" and not result.exact


# ---------------------------------------------------------------- long games, no RecursionError


def test_long_game_is_solved_without_recursion_error():
    game = gdl.load_source(LONG, "long.gdl")
    result = solve(game)
    assert result.exact and result.value == (1.0, -1.0)


def test_long_game_is_played_to_the_end():
    game = gdl.load_source(LONG, "long.gdl", checked=True)
    rng = random.Random(1)
    state, plies = game.initial_state(), 0
    while game.to_move(state) != TERMINAL:
        assert game.to_move(state) != CHANCE
        state = game.apply(state, rng.choice(game.legal_moves(state)))
        plies += 1
    assert plies > 10_000 and game.utilities(state) == (1, -1)


def test_long_game_cli_solve_and_check(capsys, tmp_path):
    path = tmp_path / "long.gdl"
    path.write_text(LONG)
    code, out, _ = run(capsys, "solve", str(path), "--json")
    assert code == 0 and json.loads(out)["exact"]
    code, out, err = run(capsys, "check", str(path), "--max-plies", "20000")
    assert code == 0, out + err
    assert "RecursionError" not in out + err


@pytest.mark.slow
def test_long_game_watched_through_play(capsys, tmp_path):
    path = tmp_path / "long.gdl"
    path.write_text(LONG)
    code, out, err = run(capsys, "play", str(path), "--vs", "random", "--as", "none", "--seed", "3")
    assert code == 0, err
    assert "utilities: A 1, B -1" in out


# ---------------------------------------------------------------- bad command lines: one line, exit 2


@pytest.mark.parametrize("argv, words", [
    (["solve", "nosuchgame"], "no rule file or bundled game"),
    (["solve", "pig", "-p", "goal=abc"], "whole number"),
    (["solve", "pig", "-p", "goal=999"], "1..200"),
    (["solve", "pig", "-p", "nosuch=1"], "nosuch"),
    (["solve", "tictactoe", "--moves", "place(a1),fly(b2)"], "fly"),
    (["solve", "tictactoe", "--moves", "place(a1),place(a1)"], "place(a1)"),
    (["play", "tictactoe", "--moves", "nonsense", "--as", "none"], "nonsense"),
    (["solve", "tictactoe", "--max-nodes", "0"], "--max-nodes"),
    (["solve", "tictactoe", "--max-table", "-5"], "--max-table"),
    (["solve", "tictactoe", "--memory", "0"], "--memory"),
    (["solve", "tictactoe", "--time", "-1"], "--time"),
    (["info", "nosuchgame"], "no rule file"),
    (["check", "/no/such/file.gdl"], "file.gdl"),
])
def test_bad_input_is_one_line_with_exit_2(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    text = (err or out).strip()
    assert code == 2, (code, out, err)
    assert words in text
    assert "Traceback" not in out + err
    assert len(text.splitlines()) == 1, text


# ---------------------------------------------------------------- agents in `gdl play` / `gdl match`


def test_play_prints_the_note_of_a_perfect_agent_that_stopped(capsys):
    code, out, err = run(capsys, "play", "connect4", "-p", "cols=5", "-p", "rows=4", "--as", "none",
                         "--vs", "perfect:nodes=2000", "--vs", "random", "--seed", "1")
    assert code == 0, err
    assert "perfect:nodes=2000: stopped (out of nodes)" in out
    assert "utilities:" in out


@pytest.mark.parametrize("command", ["play", "match"])
def test_agent_help_lists_the_budgets(capsys, command):
    code, out, _ = run(capsys, command, "--help")
    assert code == 0
    text = " ".join(out.split())
    for words in ("seconds=S", "nodes=N", "tt=ENTRIES", "perfect stops at 60 s and 500,000 states"):
        assert words in text


class CountingApplies:
    """A game wrapper that counts the children made (apply calls)."""

    def __init__(self, game: object) -> None:
        self._game = game
        self.applies = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self._game, name)

    def apply(self, state: object, move: object) -> object:
        self.applies += 1
        return self._game.apply(state, move)  # type: ignore[attr-defined]


WIDE_CHANCE = """game WideChance
param goal: 5..60 = 20
players Red, Blue
state pos[player]: 0..goal = 0
move sprint:
    chance d in 1..9000:
        if d == 1: pos[mover] = 0
        else: pos[mover] = min(pos[mover] + 2 * d, goal)
win p when pos[p] == goal
"""

WIDE_NIM = """game WideNim
players A, B
state heap: 0..5000 = 4692
move take(k: 1..5000) when k <= heap: heap -= k
lose p when heap == 0 and turn == p
"""


@pytest.mark.parametrize("rules", [WIDE_CHANCE, WIDE_NIM], ids=["chance over 9,000 outcomes", "4,692 moves"])
def test_a_very_wide_state_checks_the_budget_while_it_makes_children(rules: str) -> None:
    """Found by fuzzing: a budget of 2 s took 15 s, because the budget was checked per state, not per child."""
    from solver.alphabeta import NegamaxSearch
    from solver.exact import StateGraph
    from solver.limits import Budget, SearchStopped
    from solver.mtdf import mtdf

    game = CountingApplies(gdl.load_source(rules))
    root = game.initial_state()  # type: ignore[attr-defined]
    budget = Budget(Limits(seconds=1000))
    budget._deadline = -1.0  # the time is up from the start (no clock in the test): the next check stops
    with pytest.raises(SearchStopped, match="time"):
        if game.has_chance:  # type: ignore[attr-defined]
            StateGraph.explore(game, root, budget)  # type: ignore[arg-type]
        else:
            mtdf(NegamaxSearch(game, budget), root, 0.0)  # type: ignore[arg-type]
    assert game.applies <= 4096  # stopped inside the first wide state, not after thousands of its children
    assert solve(game, limits=Limits(nodes=1)).stopped  # type: ignore[arg-type]
