"""Names and scope (docs/language.md 2.19): the compiled game is the game as written.

Each case is a small rule file run through ``gdl.load_source`` (or the CLI): hygienic def
inlining, the `redeclared` rule and sibling reuse, chance variables and locals across a chance,
board builtins that reject out-of-range numbers, and fractions in utilities.
"""

from __future__ import annotations

import json
import math

import pytest

import gdl
from gdl.cli import main
from solver.game import CHANCE, TERMINAL, play_moves


def load(source: str, checked: bool = False) -> gdl.CompiledGame:
    return gdl.load_source(source, "test.gdl", None, checked)


def errors(source: str) -> list[gdl.Diagnostic]:
    with pytest.raises(gdl.RuleFileError) as info:
        load(source)
    return [d for d in info.value.diagnostics if d.is_error]


def outcome_values(game: gdl.CompiledGame, state: tuple, var: str) -> dict[str, object]:
    """For each chance outcome of ``state``: the value of state variable ``var`` after it."""
    assert game.to_move(state) == CHANCE
    return {str(m): game.values(game.apply(state, m))[var] for m, _ in game.chance_outcomes(state)}


# ------------------------------------------------------------------ hygiene

HYGIENE = """game Hygiene
players A, B
state n: 0..300 = {start}
state out: bool = false
def above(x: 0..300) = any k in 0..300: k == x + 1
move check: out = all k in 0..n: above(k)
move issue: out = all k in 0..299: above(k)
move whole: out = all k in 0..300: above(k)
terminal when out
utility p: 0
"""


@pytest.mark.parametrize("checked", [False, True])
def test_an_inlined_def_does_not_capture_the_callers_binder(checked: bool) -> None:
    game = load(HYGIENE.format(start=299), checked)
    s = play_moves(game, ["check"])  # every k in 0..299 has k + 1 in 0..300
    assert game.values(s)["out"] == "true"
    s = play_moves(game, ["issue"])  # the same, with k's range known (the call is inlined)
    assert game.values(s)["out"] == "true"
    s = play_moves(game, ["whole"])  # 300 + 1 is not in 0..300
    assert game.values(s)["out"] == "false"


def test_hygiene_with_a_constant_and_a_nested_def() -> None:
    game = load("""game Nested
players A, B
state n: 0..9 = 3
state out: 0..99 = 0
def has_above(x: 0..9) = any k in 0..9: k == x + 1
def pairs(x: 0..9) = count k in 0..9: has_above(k) and k != x
move go: out = (count k in 0..n: has_above(k)) * 10 + pairs(n)
terminal when out > 0
utility p: 0
""")
    s = play_moves(game, ["go"])
    # count k in 0..3 with k + 1 <= 9: 4; pairs(3): k in 0..8 except 3: 8
    assert game.values(s)["out"] == 48


# ------------------------------------------------------------- redeclared

BASE = """game Scope
players A, B
state n: 0..9 = 0
state m: 0..9 = 0
{body}
win A when n >= 9
"""


@pytest.mark.parametrize(("body", "line", "name", "first"), [
    ("move go:\n    let x = 1\n    if n < 5:\n        let x = 5\n        n += x\n    n += x", 8, "x", 6),
    ("move go:\n    let i = 7\n    for i in 0..2:\n        n = i\n    m = i", 7, "i", 6),
    ("move go:\n    let d = 9\n    chance d in 1..2\n    n = d", 7, "d", 6),
    ("move go:\n    let d = 9\n    chance d in 1..2:\n        n = d", 7, "d", 6),
    ("move go when any k in 0..2: all k in 0..3: k == n:\n    n += 1", 5, "k", 5),
    ("move go(k: 1..2):\n    let k = 3\n    n += k", 6, "k", 5),
    ("move go(k: 1..2):\n    for k in 1..2: n += k", 6, "k", 5),
    ("move go(k: 1..2):\n    n = sum k in 0..2: k", 6, "k", 5),
    ("def f(x: 0..3) = any x in 0..3: x == n\nmove go when f(1): n += 1", 5, "x", 5),
    ("move go:\n    let t = 1\n    let t = 2\n    n = t", 7, "t", 6),
    ("move go:\n    n += 1\nwin p when any p in player: p == A", 7, "p", 7),
    ("move go:\n    n += 1\nterminal when n == 9\nutility p: sum p in 0..2: 1", 8, "p", 8),
])
def test_a_local_that_takes_a_visible_locals_name_is_redeclared(body: str, line: int, name: str,
                                                                first: int) -> None:
    found = [d for d in errors(BASE.format(body=body)) if d.code == "redeclared"]
    assert found, body
    assert found[0].span.line == line
    assert found[0].message == f"`{name}` is already declared at line {first}; use another name"


def test_names_reused_in_sibling_blocks() -> None:
    game = load(BASE.format(body="""move go(k: 1..2):
    if n < 5:
        let t = k
        n += t
    else:
        let t = 1
        n = min(n + t, 9)
    for i in 0..1: m = min(m + i, 9)
    for i in 0..2: m = min(m + i, 9)
    let i = 0
    m = m + i
    chance d in 1..2
    let e = d
    m = min(m + e, 9)
move again:
    chance d in 3..4:
        n = min(n + d, 9)
    chance d in 5..6:
        m = min(m + d, 9)"""))
    assert not game.warnings
    s = play_moves(game, ["go(2)"])
    assert outcome_values(game, s, "m") == {"d=1": 5, "d=2": 6}  # 0 + 1 + (0 + 1 + 2) + d
    assert game.values(s)["n"] == 2
    s = play_moves(game, ["again", "d=4"])
    assert game.values(s)["n"] == 4
    assert outcome_values(game, s, "m") == {"d=5": 5, "d=6": 6}


# ------------------------------------------------------- chance and locals

def test_a_chance_variable_reaches_the_statements_after_it() -> None:
    game = load(BASE.format(body="""move go:
    let a = 3
    chance d in 1..2
    n = d
    m = a + d"""))
    s = play_moves(game, ["go"])
    assert outcome_values(game, s, "n") == {"d=1": 1, "d=2": 2}
    assert outcome_values(game, s, "m") == {"d=1": 4, "d=2": 5}


def test_a_let_of_an_earlier_block_does_not_leak_into_a_later_chance() -> None:
    # The first chance's continuation runs the rest of the move: the `let d` of the `if`
    # block has ended there, so the second chance's `d` is nature's pick, not 9.
    game = load(BASE.format(body="""move go:
    if n == 0:
        let d = 9
        chance e in 1..2
        m = e + d - 9
    chance d in 1..2
    n = d"""))
    s = play_moves(game, ["go", "e=2"])
    assert game.values(s)["m"] == 2
    assert outcome_values(game, s, "n") == {"d=1": 1, "d=2": 2}


def test_a_let_inside_a_block_ends_with_the_block_after_a_chance() -> None:
    # After the `if`, `t` is the state variable again, on the path through the chance too.
    game = load("""game Leak
players A, B
state t: 0..9 = 3
state n: 0..9 = 0
move go:
    if n == 0:
        let t = 1
        chance e in 1..2
        n = e
    n = t
win A when n >= 3
""")
    assert [w.code for w in game.warnings] == ["shadowed-state"]
    s = play_moves(game, ["go"])
    assert outcome_values(game, s, "n") == {"e=1": 3, "e=2": 3}


def test_the_block_form_binds_only_in_its_body() -> None:
    found = errors(BASE.format(body="move go:\n    chance d in 1..2:\n        n = d\n    m = d"))
    assert [(d.code, d.span.line) for d in found] == [("undefined-name", 8)]


def test_after_every_move_is_a_block_of_its_own() -> None:
    game = load(BASE.format(body="""move go(k: 1..2):
    let t = k
    chance d in 1..2
    n = t + d
after every move:
    let t = 1
    for k in 0..1: m = min(m + k + t, 9)"""))
    s = play_moves(game, ["go(2)", "d=2"])
    assert game.values(s) == {"n": 4, "m": 3}
    found = errors(BASE.format(body="move go(k: 1..2): n = k\nafter every move:\n    m = k"))
    assert [(d.code, d.span.line) for d in found] == [("undefined-name", 7)]


# ----------------------------------------------------------- unused-binder

@pytest.mark.parametrize(("binder", "inner"), [("p", "k"), ("p", "pk"), ("k", "kk"), ("pk", "k"), ("p", "j")])
def test_unused_binder_does_not_depend_on_the_spelling(binder: str, inner: str) -> None:
    game = load(f"""game Binder
players A, B
state n: 0..9 = 0
move go: n += 1
win {binder} when any {inner} in 0..n: {inner} == 3
""")
    assert [w.code for w in game.warnings] == ["unused-binder"]
    assert f"`{binder}` is not used" in game.warnings[0].message


@pytest.mark.parametrize(("binder", "inner"), [("p", "k"), ("p", "pk"), ("pk", "k"), ("k", "pk")])
def test_a_used_binder_is_not_reported(binder: str, inner: str) -> None:
    game = load(f"""game Binder
players A, B
state n: 0..9 = 0
state owner: player? = none
move go: n += 1; owner = mover
win {binder} when any {inner} in 0..n: {inner} == 3 and owner == {binder}
""")
    assert not game.warnings
    s = play_moves(game, ["go"] * 3)
    assert game.describe_end(s) == "A wins"


# --------------------------------------------------------- board builtins

BOARD = """game Rows
players A, B
board 3 x 3
state n: 0..3 = {start}
state k: 0..9 = 0
move go: k = len({call})
move down when n > 0: n -= 1
win A when k == 9
"""


@pytest.mark.parametrize("call", ["cells_in_row(n - 1)", "cells_in_column(n - 1)", "cells_in_row(n + 2)"])
@pytest.mark.parametrize("checked", [False, True])
def test_a_board_function_rejects_an_out_of_range_number(call: str, checked: bool) -> None:
    start = 2 if "+" in call else 0
    game = load(BOARD.format(start=start, call=call), checked)
    s = game.initial_state()
    move = game.parse_move(s, "go")
    with pytest.raises(gdl.RuleRuntimeError) as info:
        game.apply(s, move)
    diagnostic = game.explain(info.value)
    assert diagnostic.code == "runtime-error"
    assert diagnostic.span.line == 6
    assert f"`{call.split('(')[0]}` of {-1 if '-' in call else 4}: outside 0..2" in diagnostic.message


def test_a_board_function_in_range_gives_its_value() -> None:
    game = load(BOARD.format(start=2, call="cells_in_row(n - 1)"))
    assert game.values(play_moves(game, ["go"]))["k"] == 3
    game = load(BOARD.format(start=3, call="cells_in_column(n - 3)"))
    assert game.values(play_moves(game, ["go"]))["k"] == 3


def test_gdl_check_reports_the_board_function_error(capsys, tmp_path) -> None:
    path = tmp_path / "rows.gdl"
    path.write_text(BOARD.format(start=0, call="cells_in_row(n - 1)"), encoding="utf-8")
    code, out, _ = run(capsys, "check", str(path))
    assert code == 1
    assert f"{path}:6:" in out and "error[runtime-error]: `cells_in_row` of -1: outside 0..2" in out


# ---------------------------------------------------------------- fractions

HALF = """game Half "a constant fraction in the utility"
players A, B
state n: 0..3 = 0
move step: n += 1
terminal when n >= 2
utility p: 0.5 if p == A else -0.5
"""

DICE = """game Dice "fractions from a parameter and a constant"
param half = 1/2
players A, B
state roll: 0..6 = 0
move go when roll == 0:
    chance d in 1..6
    roll = d
terminal when roll > 0
utility p: (roll - 7/2) * half if p == A else (7/2 - roll) * half
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def half(tmp_path):
    path = tmp_path / "half.gdl"
    path.write_text(HALF, encoding="utf-8")
    return str(path)


@pytest.fixture
def dice(tmp_path):
    path = tmp_path / "dice.gdl"
    path.write_text(DICE, encoding="utf-8")
    return str(path)


def test_fraction_utilities_are_numbers() -> None:
    game = load(HALF)
    s = play_moves(game, ["step", "step"])
    assert game.to_move(s) == TERMINAL
    assert game.utilities(s) == (0.5, -0.5)
    assert all(type(u) is float for u in game.utilities(s))
    dice = load(DICE)
    assert dice.parameters == {"half": 0.5}
    s = play_moves(dice, ["go", "d=1"])
    assert dice.utilities(s) == (-1.25, 1.25)


def test_gdl_check_accepts_fraction_utilities(capsys, half, dice) -> None:
    code, out, _ = run(capsys, "check", half, dice)
    assert code == 0, out
    assert "0 errors, 0 warnings" in out


def test_gdl_play_shows_fraction_utilities(capsys, half) -> None:
    code, out, err = run(capsys, "play", half, "--as", "none")
    assert code == 0, err
    assert "utilities: A 0.5, B -0.5" in out


def test_gdl_match_with_fraction_utilities(capsys, half, dice) -> None:
    code, out, err = run(capsys, "match", half, "random", "random", "--games", "4")
    assert code == 0, err
    code, out, err = run(capsys, "match", half, "random", "random", "--games", "4", "--json")
    assert code == 0, err
    report = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))
    assert [g["utilities"] for g in report["game_log"]] == [[0.5, -0.5]] * 4
    code, out, err = run(capsys, "match", dice, "random", "random", "--games", "4", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["parameters"] == {"half": 0.5}
    assert all(math.isclose(abs(u), x) for g in report["game_log"] for u in g["utilities"]
               for x in [abs(g["utilities"][0])])


def test_gdl_solve_and_info_with_a_fraction_parameter(capsys, dice) -> None:
    code, out, err = run(capsys, "solve", dice, "--json")
    assert code == 0, err
    assert json.loads(out)["value"] == {"A": 0.0, "B": 0.0}
    code, out, err = run(capsys, "info", dice, "-p", "half=1/4", "--json")
    assert code == 0, err
    assert json.loads(out)["parameters"] == {"half": 0.25}


# ------------------------------------------- found by the reference interpreter

def test_chance_weights_see_the_mover_and_turn() -> None:
    # The weights are computed inside the move: `mover` and `turn` are the mover there.
    game = load(BASE.format(body="""move go when n < 9:
    n += 1
    chance j in 1..3 weight (1 + j % 2) if turn == A and mover == A else 1
    m = j"""))
    s = play_moves(game, ["go"])
    assert {str(o): p for o, p in game.chance_outcomes(s)} == pytest.approx({"j=1": 0.4, "j=2": 0.2, "j=3": 0.4})
    s = play_moves(game, ["j=1", "go"], s)  # B moves: uniform
    assert {str(o): p for o, p in game.chance_outcomes(s)} == pytest.approx({"j=1": 1 / 3, "j=2": 1 / 3,
                                                                            "j=3": 1 / 3})


def test_the_body_of_a_move_that_is_never_legal_is_still_checked() -> None:
    found = errors(BASE.format(body="""move never(k: 0..1) when 2 > 7:
    let k = 1
    n = k
move go: n += 1"""))
    assert [(d.code, d.span.line) for d in found] == [("redeclared", 6)]


def test_turn_in_a_utility_is_an_error() -> None:
    # Once the game is over nobody is to move: `turn` in a utility is refused when the file is loaded
    # (it used to read -2, the terminal marker, as a player).
    with pytest.raises(gdl.RuleFileError) as info:
        load("""game TurnAtEnd
players A, B
state n: 0..3 = 0
state score[player]: 0..9 = 5
move go: n += 1
terminal when n == 2
utility p: score[turn] if p == A else score[opponent(turn)] + score[next(turn)]
""")
    assert {d.code for d in info.value.diagnostics} == {"turn-in-utility"}


def test_turn_at_the_end_is_never_a_silent_index() -> None:
    # A heuristic may be asked about a terminal state, where `turn` is not a player: an index made of it
    # is a rule error, not the slot of another variable.
    game = load("""game TurnAtEnd
players A, B
state n: 0..3 = 0
state score[player]: 0..9 = 5
move go: n += 1
terminal when n == 2
utility p: score[p]
heuristic p: score[turn] if p == A else score[opponent(turn)]
""")
    s = play_moves(game, ["go", "go"])
    assert game.to_move(s) == TERMINAL
    with pytest.raises(gdl.RuleRuntimeError):
        game.heuristic(s)


def test_connected_never_treats_none_as_the_last_cell() -> None:
    # `step(a1, south)` is none; it is no cell, so it reaches nothing (c3, the last cell, neighbours b2).
    game = load("""game Connected
players A, B
board 3 x 3
state n: 0..3 = 0
move go: n += 1
win A when connected([step(a1, south)], [b2], [step(a1, south), b2])
draw when n == 1
""")
    s = play_moves(game, ["go"])
    assert game.describe_end(s) == "draw"


@pytest.mark.parametrize("checked", [False, True])
def test_division_is_exact_at_run_time_as_when_folded(checked: bool) -> None:
    game = load("""game Exact
players A, B
state n: 0..3 = 0
state k: 1..3 = 3
move go: n += 1
win A when n / 3 == 1/3 and n * 10 / (10 * k) == 1/3 and 0.1 + n / 10 == 1/5
draw when n == 3
""", checked)
    s = play_moves(game, ["go"])
    assert game.describe_end(s) == "A wins"


def test_a_def_body_sees_globals_not_the_callers_locals() -> None:
    # Inside `go`, `k` is the loop's; inside `plus_k` it is the state variable (rule 7, the other way).
    game = load("""game Globals
players A, B
state k: 0..9 = 4
state n: 0..50 = 0
def plus_k(x: 0..2) = x + k
move go:
    for k in 0..2:
        n += plus_k(k)
win A when n > 0
""")
    s = play_moves(game, ["go"])
    assert game.values(s)["n"] == (0 + 4) + (1 + 4) + (2 + 4)


def test_turn_read_through_defs_in_a_utility_is_an_error_at_the_call() -> None:
    # `turn` two defs away is still `turn`: refused at the call in `utility`, accepted in a heuristic and a guard.
    text = """game TurnThroughDefs
players A, B
state n: 0..3 = 0
def moving(p: player) = p == turn
def still_moving(p: player) = moving(p) and n < 9
move gain when still_moving(turn): n += 1
terminal when n == 3
heuristic p: 1 if still_moving(p) else 0
utility p: n + (1 if still_moving(p) else 0)
"""
    with pytest.raises(gdl.RuleFileError) as info:
        load(text)
    assert [(d.code, d.span.line, d.span.column) for d in info.value.diagnostics] == [("turn-in-utility", 9, 22)]
    load(text.replace("n + (1 if still_moving(p) else 0)", "n"))
