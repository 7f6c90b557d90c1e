"""Every diagnostic code: one rule file per code, with the expected place and words."""

from __future__ import annotations

from pathlib import Path

import pytest

import gdl
from gdl.codes import CODES, Stage, UnregisteredCode, codes_of
from gdl.diagnostics import Diagnostic, RuleFileError
from gdl.loader import check_source

ROOT = Path(__file__).resolve().parent.parent


def all_static_codes() -> set[str]:
    """Every code the parser and compiler report (the registry's ``compile`` stage), but ``internal``."""
    return {code.name for code in codes_of(Stage.COMPILE)} - {"internal"}


CASES = ROOT / "tests" / "diagnostics"

# code -> (line, column, words the message must contain, words the hint must contain or None)
EXPECTED: dict[str, tuple[int, int | None, str, str | None]] = {
    "syntax": (5, 6, "expected a move name after `move`, found `(`", None),
    "line-break": (4, 12, "a form feed (\\f) in a rule file; lines end only with \\n or \\r\\n", "plain newline"),
    "indentation": (7, 1, "indentation matches no enclosing block", "indent it exactly"),
    "too-deep": (6, None, "nested 255 levels deep; at most 200", None),  # where the limit is passed
    "unknown-aggregate": (6, 13, "`avg k in ...` is not an aggregate", None),
    "again-in-setup": (6, 5, "`again` is meaningless in setup", None),
    "simultaneous-turn": (8, 5, "`again` in a simultaneous game: every player moves once a round", "record the extra"),
    "simultaneous-players": (4, 1, "`simultaneous` needs at least two players, not 1", "players A, B"),
    "arity": (7, 12, "`double` takes 1 argument(s), not 2", None),
    "assign-to-constant": (8, 5, "`goal` is a parameter and cannot be assigned", "only state variables"),
    "bad-index-domain": (4, 9, "contiguous range", None),
    "bad-symmetry": (5, 18, "`rotate90` needs a board with as many rows as columns, not 3 x 4", None),
    "bad-probability": (6, 5, "add up to 5/6, not 1", "exact fractions"),
    "bad-type": (4, 10, "expected a type", None),
    "board-size": (4, 1, "not 3 x 30", None),
    "break-outside-loop": (7, 5, "`break` outside a `for` loop", None),
    "chance-in-loop": (7, 9, "inside a `for` loop", "before or after the loop"),
    "chance-in-setup": (6, 5, "`chance` cannot appear in `setup`", "starting value"),
    "division-by-zero": (7, 17, "division by zero", None),
    "duplicate": (5, 1, "`n` is already declared on line 4", None),
    "empty": (6, 17, "`min` of an empty list", None),
    "empty-chance": (6, 17, "no outcomes", None),
    "index-out-of-range": (5, 13, "index 3 is outside `n`'s 0..2", None),
    "missing-game": (1, 1, "no `game Name` line", "game Name"),
    "missing-moves": (1, 1, "declares no moves", "move"),
    "missing-players": (1, 1, "declares no players", "players X, O"),
    "missing-terminal": (1, 1, "never ends the game", "win p when"),
    "missing-utility": (6, 1, "needs a `utility p: ...` line", None),
    "mover-outside-move": (6, 23, "`mover` is only defined inside a move", "`turn`"),
    "never-legal": (7, 16, "move `jump` can never be played", None),
    "shadowed-state": (6, 5, "`let n` hides the state variable `n`", "another name"),
    "no-board": (6, 21, "`lines` needs a `board R x C` declaration", None),
    "no-moves-here": (6, 16, "`no_moves` can only be used", None),
    "not-constant": (8, 27, "line length must be known", None),
    "not-zero-sum": (7, 1, "does not sum to zero", "remove `zero_sum`"),
    "out-of-domain": (4, 17, "initial value 5 is outside the domain of `n` (0..3)", None),
    "recursive-def": (5, 1, "`fact` calls itself", None),
    "redeclared": (8, 9, "`x` is already declared at line 6; use another name", None),
    "reserved-name": (4, 1, "`turn` is a reserved word", None),
    "too-large": (6, 17, "15 digits", None),
    "too-many-players": (3, 1, "at most 16 players", None),
    "turn-in-utility": (7, 22, "`turn` has no value in `utility`", "state variable"),
    "type": (7, 16, "expected a number, found a boolean", None),
    "undefined-function": (7, 12, "`tripple` is not a function", "did you mean `triple`?"),
    "undefined-name": (6, 12, "`cuont` is not defined", "did you mean `count`?"),
    "unknown-meta": (3, 1, "unknown metadata key `sorce`", "did you mean `source`?"),
    "unused": (5, 1, "state `spare` is never used", None),
    "unused-binder": (6, 5, "`p` is not used in the condition", None),
    "quiet-without-heuristic": (7, 1, "`quiet when` without a `heuristic`", "add `heuristic p: ...`"),
}
WARNINGS = {"shadowed-state", "missing-game", "unknown-meta", "unused", "unused-binder", "never-legal",
            "quiet-without-heuristic"}
# Codes no rule file can produce: `board-shape` (the grammar only accepts `hex` and `square`).
UNREACHABLE = {"board-shape"}


def diagnostics_of(path: Path) -> list[gdl.Diagnostic]:
    return check_source(path.read_text(encoding="utf-8"), str(path))


@pytest.mark.parametrize("code", sorted(EXPECTED))
def test_diagnostic(code: str) -> None:
    path = CASES / f"{code}.gdl"
    line, column, words, hint = EXPECTED[code]
    found = [d for d in diagnostics_of(path) if d.code == code]
    assert found, f"{path.name}: no {code} diagnostic"
    first = found[0]
    assert first.span.line == line, first.format()
    if column is None:
        column = first.span.column
        assert 1 <= column <= len(path.read_text(encoding="utf-8").splitlines()[line - 1])
    assert first.span.column == column, first.format()
    assert words in first.message
    if hint is not None:
        assert first.hint is not None and hint in first.hint
    assert first.severity == ("warning" if code in WARNINGS else "error") == CODES[code].severity
    assert first.file == str(path)
    # The rendering points at the place with a caret.
    rendered = first.format(path.read_text(encoding="utf-8"))
    assert rendered.startswith(f"{path}:{line}:{column}: {first.severity}[{code}]: ")
    if len(path.read_text(encoding="utf-8").splitlines()[line - 1]) < 200:  # longer lines are elided
        caret_line = rendered.splitlines()[2]
        assert caret_line.index("^") == 4 + column - 1


def test_every_code_has_a_case() -> None:
    assert all_static_codes() - UNREACHABLE == set(EXPECTED)
    assert {p.stem for p in CASES.glob("*.gdl")} == set(EXPECTED)


def test_a_diagnostic_needs_a_registered_code_with_its_severity() -> None:
    assert Diagnostic("error", "undefined-name", "`x` is not defined").code == "undefined-name"
    with pytest.raises(UnregisteredCode, match="not registered"):
        Diagnostic("error", "no-such-code", "made up")
    with pytest.raises(UnregisteredCode, match="registered as warning"):
        Diagnostic("error", "unused", "state `n` is never used")
    assert all(code.description and code.stages for code in CODES.values())


def test_errors_raise_rule_file_error_and_warnings_do_not() -> None:
    for code in EXPECTED:
        source = (CASES / f"{code}.gdl").read_text(encoding="utf-8")
        if code in WARNINGS:
            game = gdl.load_source(source)
            assert code in [w.code for w in game.warnings]
        else:
            with pytest.raises(RuleFileError) as info:
                gdl.load_source(source)
            assert code in [d.code for d in info.value.diagnostics]
            assert isinstance(info.value, ValueError)


def test_a_diagnostic_is_reported_once() -> None:
    source = """game G
players A, B
board 2 x 2
state at: cell = a1
move walk(d: orthogonal): at = step(at, d)
win A when at == b2
"""
    with pytest.raises(RuleFileError) as info:
        gdl.load_source(source)
    assert [(d.code, d.span.line) for d in info.value.diagnostics] == [("type", 5)]


def test_checker_collects_every_error() -> None:
    source = """game G
players A, B
state n: 0..3 = 0
move add: n += nn
move sub: n -= true
win A when n == undefined
"""
    with pytest.raises(RuleFileError) as info:
        gdl.load_source(source)
    assert [(d.code, d.span.line) for d in info.value.diagnostics] == [
        ("undefined-name", 4), ("type", 5), ("undefined-name", 6)]


# ------------------------------------------------------------ syntax messages

BASE = "game G\nplayers A, B\nstate n: 0..3 = 0\n"


def syntax_error(text: str) -> gdl.Diagnostic:
    with pytest.raises(RuleFileError) as info:
        gdl.load_source(BASE + text)
    (diag,) = info.value.diagnostics
    assert diag.code in ("syntax", "indentation")
    return diag


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        ("move (k: 1..2): n += k\n", 4, 6, "expected a move name after `move`"),
        ("def = 3\n", 4, 5, "expected a function name after `def`"),
        ("state : bool\n", 4, 7, "expected a state variable name after `state`"),
        ("param = 3\n", 4, 7, "expected a parameter name after `param`"),
        ("move m when: n += 1\n", 4, 12, "expected a condition after `when`"),
        ("move m:\n    if : n = 1\n", 5, 8, "expected a condition after `if`"),
        ("move m:\n    for 3 in 1..3: n = 1\n", 5, 9, "expected a loop variable after `for`"),
        ("move m: n += (1\nwin A when n == 3\n", 5, 1, "unexpected"),
        ("move m: n += 1\nwin A when n = 3\n", 5, 14, "unexpected `=`"),
        ("move m: n += 1 $\n", 4, 16, "unexpected character '$'"),
        ("move m:\n", 4, 8, "unexpected end of file; expected an indented block"),
        ("move m: n += 1\nwin A when\n", 5, 11, "expected a condition after `when`"),
    ],
)
def test_syntax_messages(text: str, line: int, column: int, words: str) -> None:
    diag = syntax_error(text)
    assert words in diag.message, diag.message
    assert (diag.span.line, diag.span.column) == (line, column), diag.format(BASE + text)


def test_equals_for_comparison_has_a_hint() -> None:
    diag = syntax_error("move m: n += 1\nwin A when n = 3\n")
    assert diag.hint == "to compare two values use `==`"


@pytest.mark.parametrize(
    "text",
    [
        "move m: n += 1\nwin A when n == 3 ]\n",
        "move m(: n += 1\n",
        "move m: n += 1\n  win A when n == 3\n",
        'move m: n += 1\nwin A when n == "x\n',
        "move m: chance:\n",
        "render: x\n",
        "utility: 3\n",
        "board 3 x\n",
        "enum E:\n",
        "move m: n += 1\nwin A when n == 3 and\n",
    ],
)
def test_syntax_messages_never_leak_lark_internals(text: str) -> None:
    with pytest.raises(RuleFileError) as info:
        gdl.load_source(BASE + text)
    message = str(info.value)
    for internal in ("Token(", "Tree(", "__ANON", "$END", "_NL", "_INDENT", "_DEDENT", "LPAR", "RSQB", "Lark"):
        assert internal not in message, message


# ------------------------------------------------------------ run-time errors


def test_runtime_error_points_at_the_rule() -> None:
    source = """game G
players A, B
state n: 0..3 = 0
state k: 0..2 = 0
move add: k += 1
win A when n == 3
"""
    game = gdl.load_source(source, "g.gdl")
    state = game.initial_state()
    state = game.apply(state, game.legal_moves(state)[0])
    state = game.apply(state, game.legal_moves(state)[0])
    with pytest.raises(gdl.RuleRuntimeError) as info:
        game.apply(state, game.legal_moves(state)[0])
    diag = game.explain(info.value)
    assert diag.code == "runtime-error"
    assert diag.span.line == 5
    assert "value 3 is outside the variable's domain 0..2" in diag.message


def test_checked_mode_catches_a_bad_index() -> None:
    source = """game G
players A, B
state a[0..2]: 0..3 = 0
state i: 0..5 = 0
move add: i += 1; a[i] = 1
win A when i == 5
"""
    game = gdl.load_source(source, "g.gdl", checked=True)
    state = game.initial_state()
    for _ in range(2):
        state = game.apply(state, game.legal_moves(state)[0])
    with pytest.raises(gdl.RuleRuntimeError) as info:
        game.apply(state, game.legal_moves(state)[0])
    diag = game.explain(info.value)
    assert (diag.span.line, diag.code) == (5, "runtime-error")
    assert "index 3 is outside 0..2" in diag.message


def test_parameter_errors() -> None:
    with pytest.raises(gdl.ParameterError, match="did you mean"):
        gdl.load("connect4", params={"row": "4"})
    with pytest.raises(gdl.ParameterError, match=r"1\.\.20"):
        gdl.load("connect4", params={"rows": "40"})
    with pytest.raises(gdl.ParameterError, match="whole number"):
        gdl.load("connect4", params={"rows": "four"})
    with pytest.raises(gdl.ParameterError, match="one of nonempty, always"):
        gdl.load("kalah", params={"capture": "never"})
    with pytest.raises(gdl.ParameterError):
        gdl.load("nim", params={"heaps": "3,x"})
