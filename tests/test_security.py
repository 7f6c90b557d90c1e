"""Hostile rule files: rejected with a diagnostic or compiled harmlessly, never executed as code."""

from __future__ import annotations

import contextlib
import random
from pathlib import Path

import pytest

import gdl
from gdl.diagnostics import GdlError, RuleFileError

MARKER = Path("/tmp/gdl-security-marker")

BASE = """game G
players A, B
state n: 0..3 = 0
move go when n < 3:
    n += 1
win A when n == 3
"""

PAYLOAD = "__import__('os').system('touch /tmp/gdl-security-marker')"


@pytest.fixture(autouse=True)
def no_marker() -> None:
    MARKER.unlink(missing_ok=True)
    yield
    assert not MARKER.exists(), "a rule file ran code"


def play_out(game: gdl.CompiledGame) -> None:
    state = game.initial_state()
    for _ in range(50):
        if game.to_move(state) < 0:
            break
        state = game.apply(state, game.legal_moves(state)[0])
    game.render(state)


@pytest.mark.parametrize("name", ["__import__", "os", "__class__", "__builtins__", "exec", "eval", "s", "st",
                                  "me", "nt", "L_n", "_T", "_finish", "_legal", "tuple", "print"])
def test_python_names_are_just_names(name: str) -> None:
    source = f"""game G
players A, B
state {name}: 0..3 = 0
def f_{name}(x: 0..3) = x + 1
move go when {name} < 3:
    let y = f_{name}({name})
    {name} = y
win A when {name} == 3
"""
    game = gdl.load_source(source)
    play_out(game)
    assert game.values(game.initial_state())[name] == 0


@pytest.mark.parametrize("text", ['he said \\"hi\\"', "back\\\\slash", "new\\nline", '\\"\\"\\"triple\\"\\"\\"',
                                  "'); " + PAYLOAD + " #", "{0.__class__}", "%s%s%n"])
def test_strings_are_data(text: str) -> None:
    source = f'game G "{text}"\nmeta source = "{text}"\n' + BASE.split("\n", 1)[1]
    source += 'board 1 x 1\nstate c[cell]: player? = none\nrender c: A "' + text + '"\n'
    source = source.replace("win A when n == 3\n", "win A when n == 3 and c[a1] == none\n")
    game = gdl.load_source(source)
    play_out(game)
    assert PAYLOAD not in game.program.source and "__class__" not in game.program.source


@pytest.mark.parametrize("snippet", [PAYLOAD, f"move x when {PAYLOAD}:\n    n = 1", f"def f = {PAYLOAD}",
                                     f"game {PAYLOAD}", f'meta source = "x" + {PAYLOAD}', "state n: 0..3 = eval('1')"])
def test_python_code_is_rejected(snippet: str) -> None:
    with pytest.raises(RuleFileError):
        gdl.load_source(BASE + snippet + "\n")


def test_enormous_numbers_are_rejected() -> None:
    with pytest.raises(RuleFileError) as info:
        gdl.load_source(BASE.replace("0..3 = 0", "0..99999999999999999999999 = 0"))
    assert info.value.diagnostics[0].code == "too-large"


@pytest.mark.parametrize("deep", ["(" * 5000 + "1" + ")" * 5000, "1 + (" * 3000 + "1" + ")" * 3000,
                                  "-" * 5000 + "1", "not " * 3000 + "true", "[" * 2000 + "1" + "]" * 2000])
def test_deep_nesting_is_a_diagnostic_or_harmless(deep: str) -> None:
    try:
        game = gdl.load_source(BASE + f"def f = {deep}\nmove g when f == f: n = 0\n")
    except RuleFileError as error:
        assert error.diagnostics[0].code in ("too-deep", "syntax", "type")
    else:
        play_out(game)


@pytest.mark.slow
def test_one_megabyte_line_is_handled() -> None:
    long_line = "def f = " + " + ".join(["1"] * 260_000) + "\n"
    assert len(long_line) > 1_000_000
    try:
        gdl.load_source(BASE + long_line)
    except RuleFileError as error:
        text = error.format()
        assert len(text) < 10_000  # the excerpt is clipped
    garbage = "x" * 1_100_000
    with pytest.raises(RuleFileError) as info:
        gdl.load_source(BASE + garbage + "\n")
    assert len(info.value.format()) < 10_000


def test_random_bytes_only_raise_gdl_errors() -> None:
    rng = random.Random(7)
    for _ in range(200):
        text = "".join(chr(rng.randrange(1, 0x3000)) for _ in range(rng.randrange(0, 200)))
        with contextlib.suppress(GdlError):
            gdl.load_source(text)


def test_generated_code_has_no_access_to_builtins_like_open() -> None:
    game = gdl.load("tictactoe")
    assert "open" not in game._ns["__builtins__"] and "__import__" not in game._ns["__builtins__"]
