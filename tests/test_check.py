"""gdl.check: static diagnostics plus random playouts that run the rules."""

from __future__ import annotations

import pytest

import gdl
import gdl.check
from gdl.check import (
    DEFAULT_MAX_PLIES,
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


def test_no_moves_in_a_live_state():
    source = HEAD + "state n: 0..5 = 0\nmove inc when n < 3:\n    n += 1\nwin A when n == 5\n"
    report = check_source(source, "stuck.gdl", playouts=5)
    assert codes(report) == ["no-moves"]
    assert report.diagnostics[0].span.line == 4  # the first move line
    assert "B is to move" in report.diagnostics[0].message
    assert moves_of(report, "no-moves") == ["inc"] * 3


def test_a_cycle_that_never_ends_is_a_warning():
    source = HEAD + ("state n: 0..3 = 0\nmove inc when n < 3:\n    n += 1\nmove reset when n == 3:\n    n = 0\n"
                     "win A when false\n")
    report = check_source(source, "cycle.gdl", playouts=50, max_plies=100)
    assert codes(report) == ["no-end"]
    assert report.diagnostics[0].severity == "warning"
    assert report.playouts == 3  # stops after three endless playouts
    assert len(moves_of(report, "no-end")) == 100


def test_a_game_longer_than_max_plies_is_a_warning_with_a_note():
    source = HEAD + "state n: 0..1000 = 0\nmove inc when n < 1000:\n    n += 1\nwin A when n == 1000\n"
    report = check_source(source, "long.gdl", playouts=2, max_plies=50)
    assert codes(report) == ["no-end"]
    [diagnostic] = report.diagnostics
    assert diagnostic.severity == "warning" and "no state repeated" in diagnostic.message
    assert any("first 50 plies" in note and "--max-plies" in note for note in diagnostic.notes)
    assert check_source(source, "long.gdl", playouts=2, max_plies=2000).diagnostics == []


LONG_WALK = HEAD + ("state n: 0..20000 = 0\nmove step: n += 1\nmove skip when n % 7 == 3: n += 2\n"
                    "win A when n == 20000\n")
"""Random games of 17,000 to 20,000 plies."""


@pytest.mark.parametrize("time_budget", [None, 0.04, 0.0])
def test_a_20000_ply_game_is_checked_in_bounded_plies(time_budget):
    report = check_source(LONG_WALK, "walk.gdl", time_budget=time_budget)  # default playouts and max_plies
    assert codes(report) == ["no-end"] and report.errors == 0
    assert any(f"first {DEFAULT_MAX_PLIES} plies" in note for note in report.diagnostics[0].notes)
    assert 1 <= report.playouts <= 3  # three endless playouts are evidence enough; a budget stops sooner
    assert DEFAULT_MAX_PLIES <= report.plies <= 3 * DEFAULT_MAX_PLIES
    if time_budget == 0.0:  # spent at once: only the first playout, which reached max_plies
        assert (report.playouts, report.plies, report.out_of_time) == (1, DEFAULT_MAX_PLIES, True)


def test_a_spent_time_budget_still_plays_the_minimum():
    source = read_rule_file("games/tictactoe.gdl")
    report = check_source(source, "tictactoe.gdl", playouts=200, time_budget=0.0)
    assert (report.playouts, report.out_of_time) == (MIN_PLAYOUTS, True)
    unlimited = check_source(source, "tictactoe.gdl", playouts=200)
    assert (unlimited.playouts, unlimited.out_of_time) == (200, False)
    few = check_source(source, "tictactoe.gdl", playouts=3, time_budget=0.0)
    assert (few.playouts, few.out_of_time) == (3, False)


class FakeClock:
    """Stands in for the ``time`` module in gdl.check: reads ``values`` in turn, then the last forever."""

    def __init__(self, *values: float) -> None:
        self.values = list(values)

    def process_time(self) -> float:
        return self.values.pop(0) if len(self.values) > 1 else self.values[0]


def test_a_playout_cut_by_the_budget_is_abandoned_not_reported(monkeypatch):
    source = HEAD + "state n: 0..600 = 0\nmove inc when n < 600:\n    n += 1\nwin A when n == 600\n"
    # The deadline is 10; the clock reads 0 after the minimum of playouts, then 100 during the next playout.
    monkeypatch.setattr(gdl.check, "time", FakeClock(0.0, 0.0, 100.0))
    report = check_source(source, "walk.gdl", playouts=50, time_budget=10.0)
    assert report.diagnostics == []
    assert report.out_of_time
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

    def __init__(self, probabilities=(0.5, 0.5), utilities=(1.0, -1.0), names=("go", "stop")):
        self.probabilities = probabilities
        self.result = utilities
        self.names = names

    def initial_state(self):
        return 0

    def to_move(self, state):
        return CHANCE if state == 1 else TERMINAL if state >= 2 else 0

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
