"""Bounded fuzzing of the rule-file pipeline (the long campaign is `python bench/fuzz.py --cases 100000`).

Cases come from bench/fuzz.py: a structured generator of syntactically valid games and mutations of the
bundled games (token deletion, duplication, swaps, byte flips, truncation). Properties: loading raises
only GdlError subclasses with diagnostics inside the file; a loaded game (checked mode) survives random
playouts or raises only RuleRuntimeError; the exact solver under a budget does not crash.

KNOWN lists crash classes found by the campaign that are still open (none now); any other crash
fails the test.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import fuzz

import gdl

KNOWN: tuple[str, ...] = ()  # every crash class the 100,000-case campaign found is fixed

SETTINGS = settings(max_examples=250, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def check(seed: int) -> None:
    _, _, sig, trace = fuzz.check_seed((seed, 10.0))
    if sig is not None and not sig.startswith(KNOWN):
        pytest.fail(f"seed {seed}: {sig}\n{trace}")


@pytest.mark.slow
@SETTINGS
@given(seed=st.integers(0, 2**31))
def test_fuzz_cases_never_crash(seed: int) -> None:
    check(seed)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**31))
def test_generated_games_are_syntactically_valid(seed: int) -> None:
    text = fuzz.generate(random.Random(seed))
    try:
        gdl.load_source(text, "gen.gdl")
    except gdl.RuleFileError as error:
        assert all(d.code != "syntax" for d in error.diagnostics), error.format()
    except gdl.GdlError:
        pass


def test_generator_yields_playable_games() -> None:
    loaded = 0
    for seed in range(60):
        try:
            gdl.load_source(fuzz.generate(random.Random(seed)), "gen.gdl", checked=True)
            loaded += 1
        except gdl.GdlError:
            pass
    assert loaded >= 10


@pytest.mark.parametrize("seed", [712])  # regressions fixed after the campaign (stuck root in the solver)
def test_campaign_regressions(seed: int) -> None:
    _, _, sig, trace = fuzz.check_seed((seed, 10.0))
    assert sig is None, trace


# ------------------------------------------------------- regressions from the campaign


def test_chance_in_code_that_never_runs_is_harmless() -> None:
    game = gdl.load_source("""game G
players A, B
state n: 0..3 = 0
move go:
    if false:
        chance d in 1..2 weight d: n = d
    n = 3
win A when n == 3
""")
    state = game.apply(game.initial_state(), game.legal_moves(game.initial_state())[0])
    assert game.to_move(state) == -2


def test_division_by_zero_is_a_diagnostic_or_a_rule_error() -> None:
    base = "game G\nplayers A, B\nstate n: 0..3 = 0\nmove go: n = {expr}\nwin A when n == 3\n"
    with pytest.raises(gdl.RuleFileError) as info:
        gdl.load_source(base.format(expr="(n + 1) // 0"))
    assert info.value.diagnostics[0].code == "division-by-zero"
    game = gdl.load_source(base.format(expr="3 // n"))  # n is 0 at the start
    with pytest.raises(gdl.RuleRuntimeError, match="division by zero"):
        game.apply(game.initial_state(), game.legal_moves(game.initial_state())[0])


def test_a_stuck_state_is_a_clear_solver_error() -> None:
    from solver.exact import StuckStateError, solve

    game = gdl.load_source("game G\nplayers A, B\nstate n: 0..3 = 0\nmove go when n < 2: n += 1\n"
                           "win A when n == 3\n")
    with pytest.raises(StuckStateError, match="no legal move"):
        solve(game)


def test_a_constant_board_index_outside_the_board_is_a_diagnostic() -> None:
    # found by the grammar campaign (bench/fuzz.py --generator grammar): the constant folding of
    # `cells_in_column(17)` on a 3 x 3 board indexed its table and crashed with IndexError
    base = "game G\nplayers A, B\nboard 3 x 3\nstate n: 0..3 = 0\nmove go when {call} != []: n = 1\nwin A when n == 1\n"
    for call in ("cells_in_column(17)", "cells_in_row(-1)"):
        with pytest.raises(gdl.RuleFileError) as info:
            gdl.load_source(base.format(call=call))
        assert info.value.diagnostics[0].code == "index-out-of-range"
    gdl.load_source(base.format(call="cells_in_column(2)"))


def test_a_rule_error_met_by_the_symmetry_check_is_a_diagnostic() -> None:
    # found by the grammar campaign: connect4 with `top(17)` in a guard; the rule fails in every state,
    # and the comparison of the declared symmetry with the rules let the IndexError escape `gdl check`
    from gdl.check import check_source
    from gdl.loader import games_dir

    source = (games_dir() / "connect4.gdl").read_text(encoding="utf-8")
    # (`top(17)` is now refused before play: a constant argument outside `top`'s domain 0..cols-1;
    # an argument that leaves the domain as the board fills still fails only when it runs.)
    broken = source.replace("when top(x) != none", "when top(x + (count c in cell: disc[c] != none)) != none")
    assert broken != source and "symmetry" in source
    report = check_source(broken, "connect4.gdl", playouts=3, max_plies=200)
    assert report.errors and all(d.code == "runtime-error" for d in report.diagnostics if d.is_error)
    constant = check_source(source.replace("when top(x) != none", "when top((17)) != none"), "connect4.gdl")
    assert [d.code for d in constant.diagnostics if d.is_error] == ["out-of-domain"]


# ------------------------------------------------------- the table generator (bench/fuzz_tables.py)


def test_the_table_generator_uses_every_mutation(tmp_path):
    import fuzz_tables

    seen: set[str] = set()
    for seed in range(60):
        kind, _, path, applied = fuzz_tables.make_table(seed, tmp_path)
        seen.update(kind.removeprefix("tables-").split("+"))
        path.unlink()
        assert applied
    assert seen == {"header", "row", "schema", "pragma", "file"}


@pytest.mark.parametrize("seed", range(6))
def test_mutated_tables_are_read_or_refused_cleanly(seed: int) -> None:
    # seed 0 also runs `gdl play` through the installed executable (fuzz_tables.EXECUTABLE_EVERY)
    _, kind, sig, trace = fuzz.check_seed((seed, 20.0, "tables"))
    assert sig is None, f"{kind}: {sig}\n{trace}"


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6, 60))
def test_more_mutated_tables_are_read_or_refused_cleanly(seed: int) -> None:
    _, kind, sig, trace = fuzz.check_seed((seed, 20.0, "tables"))
    assert sig is None, f"{kind}: {sig}\n{trace}"


# ------------------------------------------------------- the files generator (bench/fuzz_files.py)


def _one_seed_per_files_shape() -> list[int]:
    import fuzz_files

    firsts: dict[str, int] = {}
    for seed in range(400):
        firsts.setdefault(fuzz_files.shape_of(seed), seed)
    return [firsts[shape] for shape in fuzz_files.SHAPES]


def test_the_files_generator_has_every_hostile_shape_of_issue_29() -> None:
    import fuzz_files

    # a FIFO, /dev/zero, deep JSON, huge integers, a `source` that points elsewhere, and the writers' targets
    assert {"fifo", "dev-zero", "deep-json", "huge-integer", "source-elsewhere", "simultaneous",
            "write-fifo", "write-link"} <= set(fuzz_files.SHAPES)
    assert len(_one_seed_per_files_shape()) == len(fuzz_files.SHAPES)  # each shape within 400 seeds
    assert set(fuzz_files.WRITERS) == {"solve --save", "book --save", "play --record", "match --record",
                                       "new --force", "fmt"}


@pytest.mark.parametrize("seed", _one_seed_per_files_shape())
def test_hostile_files_are_refused_cleanly(seed: int) -> None:
    _, kind, sig, trace = fuzz.check_seed((seed, 20.0, "files"))
    assert sig is None, f"{kind}: {sig}\n{trace}"


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(400, 600))
def test_more_hostile_files_are_refused_cleanly(seed: int) -> None:
    _, kind, sig, trace = fuzz.check_seed((seed, 20.0, "files"))
    assert sig is None, f"{kind}: {sig}\n{trace}"


def test_the_files_property_sees_a_record_that_quotes_its_source(monkeypatch, tmp_path) -> None:
    # the property is not vacuous: with the record's `source` trusted again (loaded as a rule file the user
    # named, its diagnostics shown) the planted secret is printed, and the case fails
    import json

    import fuzz_files

    from gdl.cli import replay

    monkeypatch.setattr(replay, "_load", lambda args, record: replay.load_game(record["source"], {}))
    record = json.loads(fuzz_files.base_record("nim").read_text(encoding="utf-8"))
    record["source"] = fuzz_files.plant_secrets(tmp_path)["rules"]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(fuzz_files.FilesViolation, match="printed the secret"):
        fuzz_files.check_record("source-elsewhere", str(path), random.Random(0))


# ------------------------------------------------------- hostile shapes and hostile text (bench/fuzz.py)


def test_the_hostile_generator_writes_every_shape_and_every_escape():
    kinds, texts = set(), []
    for seed in range(400):
        kind, text = fuzz.make_case(seed, "hostile")
        kinds.add(kind.removeprefix("hostile-").removesuffix("+mutated"))
        if kind == "hostile-text":
            texts.append(text)
    assert kinds == set(fuzz.HOSTILE_SHAPES)  # huge literals, deep nesting, doubling defs, text...
    every = "".join(texts)
    for needle in ("\x1b]52;", "\x1b]8;;", "\x1b[2J", "[link=", "[/]", 'meta source = "', 'render mark: A "'):
        assert needle in every, needle


def _text_seeds(count: int) -> list[int]:
    return [seed for seed in range(300) if fuzz.make_case(seed, "hostile")[0] == "hostile-text"][:count]


@pytest.mark.parametrize("seed", _text_seeds(6))
def test_hostile_text_reaches_the_cli_output_as_text(seed: int) -> None:
    _, kind, sig, trace = fuzz.check_seed((seed, 20.0, "hostile"))
    assert sig is None, f"{kind}: {sig}\n{trace}"


def _round_seeds(count: int) -> list[int]:
    return [seed for seed in range(300) if fuzz.make_case(seed, "hostile")[0] == "hostile-simultaneous"][:count]


@pytest.mark.parametrize("seed", _round_seeds(6))
def test_hostile_simultaneous_rounds_solve_to_optimal_strategies(seed: int) -> None:
    # tiny or huge payoffs (an LP tolerance that was absolute; a HiGHS model error) and a rule failing in a round
    _, kind, sig, trace = fuzz.check_seed((seed, 20.0, "hostile"))
    assert sig is None, f"{kind}: {sig}\n{trace}"


def _loads(text: str) -> bool:
    try:
        gdl.load_source(text)
    except gdl.GdlError:
        return False
    return True


def test_the_text_property_sees_a_raw_escape(monkeypatch) -> None:
    # the property is not vacuous: with the CLI's escaping render hook switched off it fails
    from gdl.console import EscapeControls

    monkeypatch.setattr(EscapeControls, "process_renderables", lambda self, renderables: renderables)
    seed = next(s for s in _text_seeds(40) if "\x1b" in fuzz.make_case(s, "hostile")[1].split("\n")[0]
                and _loads(fuzz.make_case(s, "hostile")[1]))
    with pytest.raises(fuzz.Violation, match="raw control character"):
        fuzz.run_text_case(fuzz.make_case(seed, "hostile")[1], seed)


def test_a_rule_error_met_while_the_symmetry_is_verified_at_load_is_a_diagnostic(capsys, tmp_path) -> None:
    # found by `bench/differential.py --generator grammar` (seed 3001530): connect4 with `top((3))` in the
    # guard; the declared symmetry is compared with the rules when the game loads, a playout of that
    # comparison fills column 3 and `disc[top(x)]` fails: `gdl info`, `solve` and `play` printed a traceback
    from gdl.cli import main
    from gdl.loader import games_dir

    source = (games_dir() / "connect4.gdl").read_text(encoding="utf-8")
    broken = source.replace("when top(x) != none", "when top((3)) != none")
    assert broken != source and "symmetry" in source
    with pytest.raises(gdl.RuleFileError) as info:
        gdl.load_source(broken, "connect4.gdl")
    assert [d.code for d in info.value.diagnostics] == ["runtime-error"]
    assert fuzz.load_case(broken, checked=False) is None  # the campaign's property 1 holds
    path = tmp_path / "c4.gdl"
    path.write_text(broken, encoding="utf-8")
    assert main(["info", str(path)]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "error[runtime-error]" in captured.err


@pytest.mark.parametrize("name", ["format not UTF-8", "root value not UTF-8"])
def test_text_that_is_not_utf8_is_a_damaged_table_for_every_reader(tmp_path, name) -> None:
    import sqlite3

    from crafted_tables import CRAFTED

    from solver.book import is_book, load_exact_table
    from solver.exact import solve
    from solver.table import CorruptTableError, encode_key, save_table

    game = gdl.load("nim")
    path = tmp_path / "t.sqlite"
    save_table(solve(game).table, path)
    db = sqlite3.connect(path)
    with db:
        CRAFTED[name](db, encode_key(game.key(game.initial_state())))
    db.close()
    assert not is_book(path)
    with pytest.raises(CorruptTableError, match=r"damaged solved table|not a gdl solved table"):
        load_exact_table(path, game)  # the reader of `alphabeta:table=FILE`
