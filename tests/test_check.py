"""gdl.check: static diagnostics plus random playouts that run the rules."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gdl
import gdl.check
import gdl.steps
from gdl.check import (
    DEFAULT_MAX_PLIES,
    DEFAULT_MAX_STATES,
    MIN_PLAYOUTS,
    MOVES_NOTE,
    CheckReport,
    Playouts,
    check_source,
    compile_checked,
    join_moves,
    read_rule_file,
    split_moves,
)
from gdl.cli import main as cli_main
from gdl.diagnostics import GdlError
from solver.game import CHANCE, TERMINAL, Move, play_moves

HEAD = 'game T "test"\nplayers A, B\n'
OUT_OF_RANGE = HEAD + (
    "state n: 0..5 = 0\nstate a[0..2]: 0..9 = 0\nmove inc:\n    a[n] = 1\n    n += 1\nwin A when n == 5\n"
)


def codes(report: CheckReport) -> list[str]:
    return [d.code for d in report.diagnostics]


def moves_of(report: CheckReport, code: str) -> list[str]:
    diagnostic = next(d for d in report.diagnostics if d.code == code)
    note = next(n for n in diagnostic.notes if n.startswith(MOVES_NOTE))
    return split_moves(note[len(MOVES_NOTE):])


@pytest.mark.parametrize("path", gdl.bundled_games(), ids=lambda p: p.stem)
def test_bundled_games_have_no_errors(path):
    report = check_source(read_rule_file(path), str(path), playouts=30, max_plies=2000)
    assert report.errors == 0, [d.format(report.source) for d in report.diagnostics]


def test_runtime_error_points_at_the_rule_and_gives_the_moves():
    source = OUT_OF_RANGE
    report = check_source(source, "oob.gdl", playouts=20)
    assert codes(report) == ["runtime-error"]
    diagnostic = report.diagnostics[0]
    assert (diagnostic.span.line, diagnostic.span.column) == (6, 7)
    assert "index 3" in diagnostic.message
    assert moves_of(report, "runtime-error") == ["inc"] * 4  # the fourth one fails
    assert diagnostic.to_json()["file"] == "oob.gdl"


@pytest.mark.parametrize("max_states", [DEFAULT_MAX_STATES, 0], ids=["explored", "sampled"])
def test_no_moves_in_a_live_state(max_states):
    source = HEAD + "state n: 0..5 = 0\nmove inc when n < 3:\n    n += 1\nwin A when n == 5\n"
    report = check_source(source, "stuck.gdl", playouts=5, max_states=max_states)
    assert codes(report) == ["dead-end"]
    assert report.diagnostics[0].span.line == 4  # the first move line
    assert "B is to move" in report.diagnostics[0].message
    assert moves_of(report, "dead-end") == ["inc"] * 3
    assert report.complete == bool(max_states) and (report.playouts == 0) == bool(max_states)


def test_a_cycle_that_never_ends_is_a_warning():
    source = HEAD + ("state n: 0..3 = 0\nmove inc when n < 3:\n    n += 1\nmove reset when n == 3:\n    n = 0\n"
                     "win A when false\n")
    report = check_source(source, "cycle.gdl", playouts=50, max_plies=100, max_states=0)  # the playouts' view
    assert codes(report) == ["no-end"]
    assert report.diagnostics[0].severity == "warning"
    assert report.playouts == 3  # stops after three endless playouts
    assert len(moves_of(report, "no-end")) == 100


def test_a_game_longer_than_max_plies_is_a_warning_with_a_note():
    source = HEAD + "state n: 0..1000 = 0\nmove inc when n < 1000:\n    n += 1\nwin A when n == 1000\n"
    report = check_source(source, "long.gdl", playouts=2, max_plies=50, max_states=0)
    assert codes(report) == ["no-end"]
    [diagnostic] = report.diagnostics
    assert diagnostic.severity == "warning" and "no state repeated" in diagnostic.message
    assert any("first 50 plies" in note and "--max-plies" in note for note in diagnostic.notes)
    assert check_source(source, "long.gdl", playouts=2, max_plies=2000, max_states=0).diagnostics == []
    proven = check_source(source, "long.gdl", playouts=2, max_plies=50, explore_time=None)
    assert (proven.diagnostics, proven.complete, proven.explored, proven.playouts) == ([], True, 1001, 0)


LONG_WALK = HEAD + ("state n: 0..20000 = 0\nmove step: n += 1\nmove skip when n % 7 == 3: n += 2\n"
                    "win A when n == 20000\n")
"""Random games of 17,000 to 20,000 plies."""


@pytest.mark.parametrize("time_budget", [None, 0.04, 0.0])
def test_a_20000_ply_game_is_checked_in_bounded_plies(time_budget):
    report = check_source(LONG_WALK, "walk.gdl", time_budget=time_budget, max_states=0)  # default playouts, plies
    assert codes(report) == ["no-end"] and report.errors == 0
    assert any(f"first {DEFAULT_MAX_PLIES} plies" in note for note in report.diagnostics[0].notes)
    assert 1 <= report.playouts <= 3  # three endless playouts are evidence enough; a budget stops sooner
    assert DEFAULT_MAX_PLIES <= report.plies <= 3 * DEFAULT_MAX_PLIES
    if time_budget == 0.0:  # spent at once: only the first playout, which reached max_plies
        assert (report.playouts, report.plies, report.out_of_budget) == (1, DEFAULT_MAX_PLIES, "time")


def test_a_spent_time_budget_still_plays_the_minimum():
    source = read_rule_file("games/tictactoe.gdl")
    report = check_source(source, "tictactoe.gdl", playouts=200, time_budget=0.0, max_states=0)
    assert (report.playouts, report.out_of_budget) == (MIN_PLAYOUTS, "time")
    unlimited = check_source(source, "tictactoe.gdl", playouts=200, max_states=0)
    assert (unlimited.playouts, unlimited.out_of_budget) == (200, None)
    few = check_source(source, "tictactoe.gdl", playouts=3, time_budget=0.0, max_states=0)
    assert (few.playouts, few.out_of_budget) == (3, None)


class FakeClock:
    """Stands in for the ``time`` module in gdl.steps: reads ``values`` in turn, then the last forever."""

    def __init__(self, *values: float) -> None:
        self.values = list(values)

    def process_time(self) -> float:
        return self.values.pop(0) if len(self.values) > 1 else self.values[0]


def test_a_playout_cut_by_the_budget_is_abandoned_not_reported(monkeypatch):
    source = HEAD + "state n: 0..600 = 0\nmove inc when n < 600:\n    n += 1\nwin A when n == 600\n"
    # The deadline is 10; the clock reads 0 after the minimum of playouts, then 100 during the next playout.
    monkeypatch.setattr(gdl.steps, "time", FakeClock(0.0, 0.0, 100.0))
    report = check_source(source, "walk.gdl", playouts=50, time_budget=10.0, max_states=0)
    assert report.diagnostics == []
    assert report.out_of_budget == "time"
    assert report.playouts == MIN_PLAYOUTS  # the cut one is not counted
    assert report.plies == MIN_PLAYOUTS * 600 + 256  # the budget is looked at every 256 plies


def test_declared_zero_sum_contradicted():
    source = HEAD + "state n: 0..5 = 0\nmove inc:\n    n += 1\nterminal when n == 3\nutility p in -1..1: 1\nzero_sum\n"
    report = check_source(source, "zs.gdl", playouts=3)
    assert codes(report) == ["not-zero-sum"]
    assert report.diagnostics[0].span.line == 8


def test_static_errors_skip_the_playouts():
    report = check_source(HEAD + "state n: 0..5 = 0\nmove inc:\n    n += nn\n", "bad.gdl", playouts=10)
    assert report.errors >= 1 and report.playouts == 0
    assert "undefined-name" in codes(report)


def test_the_reproducing_moves_replay_to_the_fault():
    source = OUT_OF_RANGE
    report = check_source(source, "oob.gdl", playouts=5)
    game, _ = compile_checked(source, "oob.gdl")
    names = moves_of(report, "runtime-error")
    with pytest.raises(gdl.RuleRuntimeError) as caught:
        play_moves(game, names)
    assert game.explain(caught.value).span == report.diagnostics[0].span


class FakeGame:
    """A hand-written game with configurable faults, for the checks no rule file can trigger."""

    players = ("A", "B")
    zero_sum = True
    utility_bounds = (-1.0, 1.0)
    filename = "fake.gdl"
    source = "players A, B\nmove go\nutility p: 1\nzero_sum\n"

    def __init__(self, probabilities=(0.5, 0.5), utilities=(1.0, -1.0), names=("go", "stop"), first=0):
        self.probabilities = probabilities
        self.result = utilities
        self.names = names
        self.first = first  # who moves first: 2 (of two players) is not a player

    def initial_state(self):
        return 0

    def to_move(self, state):
        return CHANCE if state == 1 else TERMINAL if state >= 2 else self.first

    def legal_moves(self, state):
        return [Move(name) for name in self.names]

    def chance_outcomes(self, state):
        return [(Move(f"d={i}"), p) for i, p in enumerate(self.probabilities)]

    def apply(self, state, move):
        return state + 1

    def utilities(self, state):
        return self.result

    def explain(self, error):
        return gdl.Diagnostic("error", "runtime-error", str(error), file=self.filename)


@pytest.mark.parametrize(
    ("game", "code"),
    [
        (FakeGame(probabilities=(0.5, 0.4)), "bad-probability"),
        (FakeGame(probabilities=(1.5, -0.5)), "bad-probability"),
        (FakeGame(probabilities=()), "no-chance"),
        (FakeGame(utilities=(1.0,)), "bad-utility"),
        (FakeGame(utilities=(1.0, float("nan"))), "bad-utility"),
        (FakeGame(utilities=(2.0, -2.0)), "bad-utility"),
        (FakeGame(utilities=(1.0, 0.0)), "not-zero-sum"),
        (FakeGame(names=("go", "go")), "duplicate-move"),
        (FakeGame(first=2), "bad-turn"),
    ],
)
def test_dynamic_checks_on_a_faulty_game(game, code):
    found = Playouts(game, seed=1).run(10)
    assert [d.code for d in found] == [code]
    assert found[0].is_error
    assert any(note.startswith(MOVES_NOTE) or "initial state" in note for note in found[0].notes)


def test_probabilities_within_tolerance_pass():
    game = FakeGame(probabilities=(1 / 3, 1 / 3, 1 / 3 + 5e-10))
    assert Playouts(game).run(5) == []


def test_one_diagnostic_per_problem_with_the_shortest_moves():
    found = Playouts(FakeGame(utilities=(1.0, 0.0)), seed=3).run(50)
    assert len(found) == 1


def test_split_and_join_moves_round_trip():
    names = ["take(0,3)", "place(b2)", "d=3", "roll"]
    assert split_moves(join_moves(names)) == names
    assert split_moves(" roll , hold ") == ["roll", "hold"]


def test_read_rule_file_errors_are_one_line(tmp_path):
    binary = tmp_path / "bad.gdl"
    binary.write_bytes(b"game X\n\xff\xfe\n")
    with pytest.raises(GdlError, match=r"bad.gdl:2: not a UTF-8 text file"):
        read_rule_file(binary)
    with pytest.raises(GdlError, match="is a directory"):
        read_rule_file(tmp_path)
    with pytest.raises(GdlError, match="no such file"):
        read_rule_file(tmp_path / "missing.gdl")
    nul = tmp_path / "nul.gdl"
    nul.write_bytes(b"game X\x00\n")
    with pytest.raises(GdlError, match="binary"):
        read_rule_file(nul)


# ------------------------------------------------------------ the exhaustive pass

NINES = HEAD.replace('"test"', '"B is stuck once A has picked 9 six times in a row"') + (
    "state run: 0..6 = 0\nstate rounds: 0..12 = 0\n"
    "move pick(d: 0..9) when turn == A:\n    if d == 9: run += 1\n    else: run = 0\n    rounds += 1\n"
    "move answer when turn == B and run < 6\n"
    "win A when rounds == 12\n"
)
"""One line of play reaches the dead end: A picks 9 six times in a row (a chance of 1 in a million per try)."""

SIX_NINES = ["pick(9)", "answer"] * 5 + ["pick(9)"]


def all_moves(diagnostic: gdl.Diagnostic) -> list[list[str]]:
    """Every reproducing move sequence a diagnostic lists."""
    return [split_moves(n[len(MOVES_NOTE):]) for n in diagnostic.notes if n.startswith(MOVES_NOTE)]


def test_the_six_nines_dead_end_is_found_with_the_shortest_moves():
    report = check_source(NINES, "nines.gdl", explore_time=None)
    assert (report.complete, report.explored, report.playouts) == (True, 126, 0)
    [diagnostic] = report.diagnostics
    assert diagnostic.code == "dead-end" and diagnostic.is_error and "B is to move" in diagnostic.message
    assert moves_of(report, "dead-end") == SIX_NINES
    assert "6 reachable states are such dead ends; the nearest 3 are listed" in diagnostic.notes
    game, _ = compile_checked(NINES, "nines.gdl")
    for names in all_moves(diagnostic):
        state = play_moves(game, names)
        assert game.to_move(state) == 1 and game.legal_moves(state) == [] and game.values(state)["run"] == 6
    # Random play does not find it: what the exhaustive pass is for.
    assert check_source(NINES, "nines.gdl", max_states=0).diagnostics == []


def test_a_rule_error_one_line_of_play_reaches_is_found():
    source = NINES.replace("state run: 0..6", "state run: 0..5").replace("and run < 6", "")
    report = check_source(source, "nines.gdl", explore_time=None)
    assert codes(report) == ["runtime-error"]
    assert report.diagnostics[0].span.line == 6  # run += 1
    assert moves_of(report, "runtime-error") == SIX_NINES  # the failing move is the last one
    assert check_source(source, "nines.gdl", max_states=0).diagnostics == []


def test_a_heuristic_error_in_a_reachable_state_is_found():
    source = (NINES.replace("and run < 6", "").replace("run += 1", "run = min(run + 1, 6)")
              + "heuristic p: 1 / (6 - run)\n")
    report = check_source(source, "nines.gdl", explore_time=None)
    assert codes(report) == ["runtime-error"]
    diagnostic = report.diagnostics[0]
    assert diagnostic.span.line == 11 and "division by zero" in diagnostic.message
    assert moves_of(report, "runtime-error") == SIX_NINES


COUNTER = HEAD + "state n: 0..8 = 0\nmove two when n <= 6: n += 2\n"


def test_an_end_rule_that_never_holds_is_a_warning():
    source = COUNTER + "win A when n == 8\nwin B when n == 7\ndraw when n >= 8\n"
    report = check_source(source, "ends.gdl", explore_time=None)
    assert [(d.code, d.severity, d.span.line) for d in report.diagnostics] == [
        ("never-ends", "warning", 6), ("never-ends", "warning", 7)]
    assert "`win B when n == 7` never ends the game" in report.diagnostics[0].message
    assert "of the 5 reachable states" in report.diagnostics[0].message
    assert "earlier end rule" in report.diagnostics[1].message  # n >= 8 holds, but `win A` ends it first


def test_a_move_never_legal_is_a_warning_once():
    source = COUNTER + "move three when n == 3: n += 3\nmove never when 1 > 2: n = 0\nwin A when n == 8\n"
    report = check_source(source, "moves.gdl", explore_time=None)
    found = [(d.code, d.span.line, d.span.column) for d in report.diagnostics]
    assert found == [("never-legal", 6, 17), ("never-legal", 5, 17)]  # the static one for `never`, not twice
    assert "always false" in report.diagnostics[0].message
    assert "move `three` is never legal in any of the 5 reachable states" in report.diagnostics[1].message


def test_a_variant_switch_is_not_a_rule_that_never_holds():
    source = HEAD + ("param misere = false\nstate n: 0..4 = 0\nmove inc when n < 4: n += 1\n"
                     "def over = n == 4\nwin A when over and not misere\nlose A when over and misere\n"
                     "win B when n + 1 == 0\n")
    report = check_source(source, "nim.gdl", explore_time=None)
    assert [(d.code, d.span.line) for d in report.diagnostics] == [("never-ends", 9)]  # not `lose` (line 8)


def test_an_endless_cycle_is_an_info_with_the_cycle():
    source = HEAD + ("state n: 0..5 = 0\nmove go when n == 0: n = 1\nmove loop when n == 1 or n == 2: n = 3 - n\n"
                     "move out when n == 2: n = 5\nwin A when n == 5\n")
    report = check_source(source, "cycle.gdl", explore_time=None)
    [diagnostic] = report.diagnostics
    assert (diagnostic.code, diagnostic.severity, diagnostic.is_error) == ("endless-cycle", "info", False)
    assert "solvers score endless play 0" in diagnostic.message
    assert report.errors == report.warnings == 0 and report.infos == 1
    assert diagnostic.notes == (MOVES_NOTE + "go", "from there, the moves loop,loop come back to the same state",
                                "2 of the 4 reachable states lie on cycles")
    game, _ = compile_checked(source, "cycle.gdl")
    entry = play_moves(game, ["go"])
    assert play_moves(game, ["loop", "loop"], entry) == entry


def test_a_cycle_that_never_ends_explored():
    source = HEAD + ("state n: 0..3 = 0\nmove inc when n < 3:\n    n += 1\nmove reset when n == 3:\n    n = 0\n"
                     "win A when false\n")
    report = check_source(source, "cycle.gdl", explore_time=None)
    assert [(d.code, d.severity) for d in report.diagnostics] == [("endless-cycle", "info"),
                                                                  ("never-ends", "warning")]
    assert report.diagnostics[0].notes[:2] == ("the initial state lies on such a cycle",
                                               "from there, the moves inc,inc,inc,reset come back to the same state")


def test_over_the_state_budget_it_samples_and_says_so():
    report = check_source(LONG_WALK, "walk.gdl", max_states=1000, explore_time=None, playouts=2)
    assert (report.complete, report.stopped_by, report.explored) == (False, "states", 1000)
    assert report.playouts == 2 and codes(report) == ["no-end"]  # the playouts' own finding
    report = check_source(read_rule_file("games/tictactoe.gdl"), "t.gdl", explore_time=1e-9, playouts=3)
    assert (report.complete, report.stopped_by, report.playouts) == (False, "time", 3)
    assert report.explored < 765


def test_problems_found_before_the_budget_ran_out_stay_once():
    source = NINES.replace("rounds: 0..12", "rounds: 0..400").replace("rounds == 12", "rounds == 400")
    report = check_source(source, "nines.gdl", max_states=2000, explore_time=None, playouts=20)
    assert report.stopped_by == "states" and report.playouts == 20
    assert codes(report) == ["dead-end"]  # found by the exploration (and maybe by the playouts): reported once
    assert moves_of(report, "dead-end") == SIX_NINES


def test_symmetric_keys_still_give_replayable_moves():
    # Without its draw rule, tic-tac-toe is stuck on a full board: states found by their symmetric keys,
    # moves replayed on real states.
    source = read_rule_file("games/tictactoe.gdl").replace("draw when", "draw when false and")
    report = check_source(source, "ttt.gdl", explore_time=None)
    game, _ = compile_checked(source, "ttt.gdl")
    assert game.symmetries and report.complete and report.explored == 765
    [dead_end] = report.diagnostics  # with an error, no never-ends warning: the draw rule's fate is unclear
    assert dead_end.code == "dead-end" and "O is to move" in dead_end.message
    sequences = all_moves(dead_end)
    assert len(sequences) == 3 and all(len(names) == 9 for names in sequences)
    for names in sequences:
        state = play_moves(game, names)
        assert game.legal_moves(state) == [] and game.to_move(state) == 1


@st.composite
def counter_games(draw: st.DrawFn) -> tuple[str, dict[tuple[int, int], int]]:
    """A small counter game with dead ends injected at some counter values, and the dead ends an oracle finds.

    Players take turns adding 1..K to a counter (and, maybe, rolling a die 1..K) up to N; at the
    counter values of ``dead`` no move is legal. Returns the rule file and the reachable dead ends,
    (counter, player to move), each with the fewest moves and outcomes that reach it.
    """
    players = draw(st.integers(1, 2))
    goal = draw(st.integers(3, 24))
    step = draw(st.integers(1, 3))
    roll = draw(st.booleans())
    dead = draw(st.sets(st.integers(1, goal - 1), min_size=1, max_size=3))
    alive = " and ".join(f"n != {v}" for v in sorted(dead))
    source = (f'game T "injected dead ends"\nplayers {", ".join("AB"[:players])}\nstate n: 0..{goal} = 0\n'
              f"move step(k: 1..{step}) when n + k <= {goal} and {alive}: n += k\n")
    if roll:
        source += f"move roll when n + {step} <= {goal} and {alive}:\n    chance d in 1..{step}: n += d\n"
    source += f"win A when n == {goal}\n"
    # The oracle: breadth-first over (counter, player to move, rolling?), by the rules as written above.
    depth = {(0, 0, False): 0}
    queue = [(0, 0, False)]
    stuck = {}
    for node in queue:
        n, p, rolling = node
        if rolling:
            children = [(n + d, (p + 1) % players, False) for d in range(1, step + 1)]
        elif n == goal:
            continue
        elif n in dead:
            stuck[(n, p)] = depth[node]
            continue
        else:
            children = [(n + k, (p + 1) % players, False) for k in range(1, step + 1) if n + k <= goal]
            if roll and n + step <= goal:
                children.append((n, p, True))
        for child in children:
            if child not in depth:
                depth[child] = depth[node] + 1
                queue.append(child)
    return source, stuck


@settings(max_examples=60, deadline=None)
@given(counter_games())
def test_the_exhaustive_check_finds_every_injected_dead_end(case):
    source, stuck = case
    report = check_source(source, "counter.gdl", explore_time=None)
    assert report.complete
    dead_ends = [d for d in report.diagnostics if d.code == "dead-end"]
    assert report.errors == len(dead_ends) == len({p for _, p in stuck})  # one per stuck player, nothing else
    game, _ = compile_checked(source, "counter.gdl")
    found = {}
    for diagnostic in dead_ends:
        sequences = all_moves(diagnostic)
        count = sum(diagnostic.message.startswith("AB"[p] + " ") for _, p in stuck)
        assert len(sequences) == count  # at most three per player: every one is listed
        assert count == 1 or f"{count} reachable states are such dead ends" in diagnostic.notes
        for names in sequences:
            state = play_moves(game, names)
            assert game.legal_moves(state) == [] and game.to_move(state) not in (CHANCE, TERMINAL)
            found[(game.values(state)["n"], game.to_move(state))] = len(names)
        assert len(sequences[0]) == min(len(names) for names in sequences)  # the nearest first
    assert found == stuck  # every dead end, each with the fewest moves


@pytest.mark.parametrize("max_states", [DEFAULT_MAX_STATES, 0], ids=["explored", "sampled"])
def test_fraction_utilities_and_probabilities_check_clean(max_states):
    source = HEAD + ("state n: 0..3 = 0\nmove inc:\n    chance d in 1..2 weight d: n = min(n + d, 3)\n"
                     "terminal when n == 3\nutility p: 0.5 if p == A else -0.5\nzero_sum\n")
    report = check_source(source, "half.gdl", max_states=max_states, playouts=20)
    assert report.diagnostics == [], [d.format(source) for d in report.diagnostics]
    out_of_bounds = source.replace("utility p:", "utility p in 0..1:")
    report = check_source(out_of_bounds, "half.gdl", max_states=max_states, playouts=20)
    assert [d.code for d in report.diagnostics] == ["bad-utility"]
    assert "utilities (0.5, -0.5) fall outside the declared bounds 0..1" in report.diagnostics[0].message


@settings(max_examples=25, deadline=None)
@given(counter_games(), st.sampled_from(["auto", "alphabeta", "backward", "retrograde", "value_iteration"]))
def test_solve_never_reports_a_value_for_a_game_with_an_injected_dead_end(tmp_path_factory, case, algorithm):
    # Issue 11: wherever the dead end is (behind a roll, one line of play only), `gdl solve` gives the
    # dead-end diagnostic and exit 1, and its JSON carries no value.
    source, stuck = case
    assert stuck  # the smallest injected value is always reachable
    path = tmp_path_factory.mktemp("deadend") / "counter.gdl"
    path.write_text(source)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = cli_main(["solve", str(path), "--algorithm", algorithm, "--json"])
    report = json.loads(out.getvalue(), parse_constant=lambda name: pytest.fail(f"non-strict JSON: {name}"))
    assert "value" not in report
    if code == 2:  # an algorithm that does not fit the game (retrograde on a puzzle) is a usage error
        assert algorithm != "auto" and "cannot search" in report["error"]["message"]
    else:
        assert code == 1 and report["error"]["code"] == "dead-end"
