"""``gdl fmt``: one layout, comments kept, idempotent, and never a change of meaning."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import grammar_strategy as gs
import pytest
from hypothesis import HealthCheck, given, settings
from test_docs import COMPLETE

import gdl
from gdl.cli import main
from gdl.diagnostics import RuleFileError, Span
from gdl.fmt import format_source
from gdl.parser import parse

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted((ROOT / "games").glob("*.gdl"))
FUZZ_SEEDS = range(60)


def shape(node: Any) -> Any:
    """An AST without its spans: what a file means, not where its text is."""
    if isinstance(node, Span):
        return None
    if dataclasses.is_dataclass(node):
        return (type(node).__name__, *(shape(getattr(node, f.name)) for f in dataclasses.fields(node)))
    if isinstance(node, tuple):
        return tuple(shape(item) for item in node)
    return node


def playout_trace(game: gdl.CompiledGame, seed: int, plies: int = 60) -> list[Any]:
    """Legal moves and values along a seeded random playout (chance outcomes drawn at random)."""
    rng = random.Random(seed)
    state = game.initial_state()
    trace: list[Any] = []
    try:
        _play(game, state, rng, trace, plies)
    except gdl.RuleRuntimeError as error:  # some doc examples show a run-time error: the same one
        trace.append(("error", str(error)))
    return trace


def _play(game: gdl.CompiledGame, state: Any, rng: random.Random, trace: list[Any], plies: int) -> None:
    from solver.game import CHANCE, TERMINAL

    for _ in range(plies):
        if game.to_move(state) == TERMINAL:
            trace.append(("end", game.utilities(state)))
            break
        if game.to_move(state) == CHANCE:
            outcomes = game.chance_outcomes(state)
            trace.append([(str(m), p) for m, p in outcomes])
            state = game.apply(state, rng.choice(outcomes)[0])
            continue
        moves = game.legal_moves(state)
        trace.append(([str(m) for m in moves], game.values(state)))
        state = game.apply(state, rng.choice(moves))


def assert_same_meaning(source: str) -> str:
    once = format_source(source)
    assert format_source(once) == once, "formatting is not idempotent"
    assert shape(parse(once)) == shape(parse(source))
    return once


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_bundled_game_formats_to_the_same_program(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    formatted = assert_same_meaning(source)
    before, after = gdl.load_source(source), gdl.load_source(formatted)
    assert after.program.source == before.program.source
    for seed in range(3):
        assert playout_trace(after, seed) == playout_trace(before, seed)


def test_bundled_games_are_formatted() -> None:
    assert main(["fmt", "--check", *map(str, GAMES)]) == 0


def test_doc_games_are_formatted() -> None:
    # The docs teach the layout `gdl fmt` keeps: every complete example is already canonical.
    changed = [line for line, block in COMPLETE if format_source(block) != block]
    assert changed == [], f"docs/language.md blocks at lines {changed} are not in gdl fmt's layout"


def test_aligned_trailing_comments_stay_aligned() -> None:
    source = "game X\nplayers A\nstate n: 0..3 = 0  # short\nstate done: bool = false # longer line\nwin A when done\n"
    assert format_source(source).splitlines()[2:4] == [
        "state n: 0..3 = 0         # short",
        "state done: bool = false  # longer line",
    ]


@pytest.mark.parametrize(("line", "block"), COMPLETE, ids=[f"line{line}" for line, _ in COMPLETE])
def test_doc_game_formats_to_the_same_program(line: int, block: str) -> None:
    formatted = assert_same_meaning(block)
    try:
        before = gdl.load_source(block)
    except RuleFileError as error:  # a "common mistakes" example: the same diagnostics after formatting
        with pytest.raises(RuleFileError) as info:
            gdl.load_source(formatted)
        assert [d.code for d in info.value.diagnostics] == [d.code for d in error.diagnostics]
        return
    after = gdl.load_source(formatted)
    assert after.program.source == before.program.source
    assert playout_trace(after, line) == playout_trace(before, line)


@pytest.mark.parametrize("seed", FUZZ_SEEDS)
def test_grammar_fuzz_file_formats_to_the_same_ast(seed: int) -> None:
    source = gs.generate(random.Random(seed))
    try:
        parse(source)
    except RuleFileError:
        pytest.skip("the generated file does not parse")
    assert_same_meaning(source)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(gs.rule_files())
def test_generated_rule_files_format_to_the_same_ast(source: str) -> None:
    assert_same_meaning(source)  # the strategy's files all parse (tests/test_grammar_fuzz.py)


LAYOUT_CASES = {
    "spacing and indentation": (
        "game  X\nplayers A,B\nparam n : 1 .. 8 = 3\nstate s[ 0..n - 1 ]:0..9=0\n"
        "move  add( i:0..n-1 )when s[i]<9 :\n  s[ i ]+=1;pass\nwin A when  s[0]==9\n"
        "terminal when sum k in 0..n-1:s[k] >= 9\n",
        "game X\nplayers A, B\nparam n: 1..8 = 3\nstate s[0..n-1]: 0..9 = 0\n"
        "move add(i: 0..n-1) when s[i] < 9:\n    s[i] += 1; pass\nwin A when s[0] == 9\n"
        "terminal when sum k in 0..n-1: s[k] >= 9\n",
    ),
    "comments, blank lines and tabs": (
        "\n\n# head\ngame X   # trailing\n\n\n\nplayers A\nstate t: 0..3 = 0\nsetup:\n\t# in the block\n"
        "\tt = 1\n\t\t# deeper than the block: still the block's\n# back at the top\nwin A when t == 1\n\n\n",
        "# head\ngame X  # trailing\n\nplayers A\nstate t: 0..3 = 0\nsetup:\n    # in the block\n"
        "    t = 1\n    # deeper than the block: still the block's\n# back at the top\nwin A when t == 1\n",
    ),
    "continuations": (
        "game X\nplayers A\nstate t: 0..3 = 0\nwin A when t == 1 or \\\n        t == 2\n"
        "def f(a: 0..3,\n  b: 0..3) = [a,\n b,  # second\n   a + b\n       ]\n",
        "game X\nplayers A\nstate t: 0..3 = 0\nwin A when t == 1 or \\\n    t == 2\n"
        "def f(a: 0..3,\n    b: 0..3) = [a,\n    b,  # second\n    a + b\n]\n",
    ),
    "unary minus, fractions, calls and lists": (
        "game X\nplayers A\nstate c: bool = false\ndef v = - 3 + abs( -2 ) * [1 ,2] [ 0 ]\n"
        "move toss:\n    chance:\n        h with 1 / 3: c = true\n        t with 2/3 : c = false\n"
        "def r = -(v * 2) .. v * 2\nwin A when c\n",
        "game X\nplayers A\nstate c: bool = false\ndef v = -3 + abs(-2) * [1, 2][0]\n"
        "move toss:\n    chance:\n        h with 1/3: c = true\n        t with 2/3: c = false\n"
        "def r = -(v*2)..v*2\nwin A when c\n",
    ),
}


@pytest.mark.parametrize("case", LAYOUT_CASES)
def test_canonical_layout(case: str) -> None:
    source, expected = LAYOUT_CASES[case]
    assert format_source(source) == expected
    assert format_source(expected) == expected
    assert shape(parse(expected)) == shape(parse(source))


def test_fmt_check_and_diff_write_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    messy = tmp_path / "messy.gdl"
    messy.write_text("game X\nplayers A\nwin A when  1==1\n", encoding="utf-8")
    tidy = tmp_path / "tidy.gdl"
    tidy.write_text("game X\nplayers A\nwin A when 1 == 1\n", encoding="utf-8")
    assert main(["fmt", "--check", str(messy), str(tidy)]) == 1
    out = capsys.readouterr().out
    assert f"would reformat {messy}" in out and str(tidy) not in out
    assert main(["fmt", "--diff", str(messy)]) == 0
    out = capsys.readouterr().out
    assert "-win A when  1==1" in out and "+win A when 1 == 1" in out
    assert messy.read_text(encoding="utf-8") == "game X\nplayers A\nwin A when  1==1\n"
    assert main(["fmt", str(messy), str(tidy)]) == 0
    assert messy.read_text(encoding="utf-8") == tidy.read_text(encoding="utf-8")
    assert main(["fmt", "--check", str(messy)]) == 0


def test_fmt_reports_syntax_errors_and_missing_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.gdl"
    bad.write_text("game X\nplayers A B\n", encoding="utf-8")
    assert main(["fmt", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:2:11: error[syntax]" in err and "Traceback" not in err
    assert bad.read_text(encoding="utf-8") == "game X\nplayers A B\n"
    assert main(["fmt", str(tmp_path / "missing.gdl")]) == 2
    assert "no such file" in capsys.readouterr().err
