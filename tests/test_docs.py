"""Every complete game in docs/language.md loads, and the tutorial behaves as the text says.

Convention: a fenced ```gdl block whose first line that is not a comment starts
with ``game `` is a complete rule file and must load without errors. If its
first line is ``# error: CODE``, it must instead fail with diagnostic ``CODE``
(the "common mistakes" examples). Other ```gdl blocks are fragments.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import gdl
from solver.game import CHANCE, play_moves

DOC = Path(__file__).resolve().parent.parent / "docs" / "language.md"
FENCE = re.compile(r"^```gdl[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


def gdl_blocks() -> list[tuple[int, str]]:
    text = DOC.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 2, m.group(1)) for m in FENCE.finditer(text)]


def is_complete(block: str) -> bool:
    for line in block.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            return line.startswith("game ")
    return False


def expected_error(block: str) -> str | None:
    match = re.match(r"#\s*error:\s*([a-z-]+)", block)
    return match.group(1) if match else None


COMPLETE = [(line, block) for line, block in gdl_blocks() if is_complete(block)]


def test_the_doc_has_many_complete_games() -> None:
    assert len(COMPLETE) >= 25


@pytest.mark.parametrize(("line", "block"), COMPLETE, ids=[f"line{line}" for line, _ in COMPLETE])
def test_complete_game_in_doc_loads(line: int, block: str) -> None:
    code = expected_error(block)
    if code is None:
        game = gdl.load_source(block, f"docs/language.md:{line}")
        assert not game.warnings, [str(w) for w in game.warnings]
        state = game.initial_state()
        first = -3 if game.simultaneous else -2  # SIMULTANEOUS (-3) only in a `simultaneous` game
        assert game.to_move(state) in range(first, len(game.players))
        return
    with pytest.raises(gdl.RuleFileError) as info:
        gdl.load_source(block, f"docs/language.md:{line}")
    assert code in [d.code for d in info.value.diagnostics]


def doc_game(name: str) -> str:
    """The last complete block of the doc declaring ``game name``."""
    found = [b for _, b in COMPLETE if re.search(rf"^game {name}\b", b, re.MULTILINE)]
    assert found, name
    return found[-1]


def test_tutorial_race21() -> None:
    game = gdl.load_source(doc_game("Race21"))
    s = game.initial_state()
    assert [str(m) for m in game.legal_moves(s)] == ["add(1)", "add(2)", "add(3)"]
    s = game.apply(s, game.parse_move(s, "add(3)"))
    assert game.values(s) == {"total": 3}
    assert game.players[game.to_move(s)] == "Second"
    s = play_moves(game, ["add(3)"] * 6 + ["add(2)"])  # 20, Second to move
    assert [str(m) for m in game.legal_moves(s)] == ["add(1)"]
    s = game.apply(s, game.legal_moves(s)[0])
    assert game.describe_end(s) == "Second wins"
    assert game.utilities(s) == (-1, 1)


def test_tutorial_race_parameters() -> None:
    game = gdl.load_source(doc_game("Race"), params={"goal": "5", "most": "2"})
    s = game.initial_state()
    assert [str(m) for m in game.legal_moves(s)] == ["add(1)", "add(2)"]
    with pytest.raises(gdl.ParameterError):
        gdl.load_source(doc_game("Race"), params={"goal": "500"})


def test_tutorial_dice_race() -> None:
    blocks = [b for _, b in COMPLETE if b.startswith("game DiceRace")]
    assert len(blocks) == 2
    step3 = gdl.load_source(blocks[0])
    s = step3.apply(step3.initial_state(), step3.parse_move(step3.initial_state(), "roll"))
    assert step3.to_move(s) == CHANCE
    outcomes = step3.chance_outcomes(s)
    assert [str(o) for o, _ in outcomes] == [f"d={d}" for d in range(1, 7)]
    assert all(abs(p - 1 / 6) < 1e-12 for _, p in outcomes)
    six = step3.apply(s, step3.parse_move(s, "d=6"))
    assert step3.values(six)["total"] == 6 and step3.to_move(six) == 0  # a six rolls again
    # 19 + 4 bounces back to 19
    s = play_moves(step3, ["add(3)"] * 6 + ["add(1)", "roll", "d=4"])
    assert step3.values(s)["total"] == 19
    step4 = gdl.load_source(blocks[1], params={"goal": "3"})
    s = play_moves(step4, ["roll", "d=3"])
    assert step4.to_move(s) == -2
    assert step4.utilities(s) == pytest.approx((2 / 3, -2 / 3))
    assert step4.zero_sum and step4.utility_bounds == (-1.0, 1.0)
    assert step4.heuristic(step4.initial_state()) == (0.5, -0.5)


def test_tutorial_wild_tictactoe() -> None:
    game = gdl.load_source(doc_game("WildTicTacToe"))
    s = game.initial_state()
    assert len(game.legal_moves(s)) == 18
    s = play_moves(game, ["place(a1,X)", "place(b1,X)", "place(c1,X)"])
    assert game.describe_end(s) == "Alice wins"
    assert game.render(s).splitlines()[2:] == [" 1 X X X", "   a b c", "game over: Alice wins"]
    big = gdl.load_source(doc_game("WildTicTacToe"), params={"size": "4"})
    assert len(big.legal_moves(big.initial_state())) == 32


def test_expression_tour_values() -> None:
    game = gdl.load_source(doc_game("Expressions"))
    values = game.values(game.initial_state())
    assert values == {"out": 57, "flag": "true", "where": "c2"}


def test_typo_example_output() -> None:
    block = doc_game("Typo")
    with pytest.raises(gdl.RuleFileError) as info:
        gdl.load_source(block)
    text = str(info.value)
    assert "6:12: error[undefined-name]: `totl` is not defined" in text
    assert "hint: did you mean `total`?" in text
    assert text.split("\n", 1)[1] in DOC.read_text(encoding="utf-8")


def test_every_compiler_diagnostic_code_is_documented() -> None:
    from test_diagnostics import all_static_codes

    doc = DOC.read_text(encoding="utf-8")
    missing = [code for code in all_static_codes() if f"`{code}`" not in doc]
    assert not missing


def test_every_registered_diagnostic_code_is_documented() -> None:
    from gdl.codes import CODES

    doc = DOC.read_text(encoding="utf-8")
    assert [code for code in CODES if f"| `{code}`" not in doc] == []


PYTHON_FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


def tutorial_sessions() -> list[tuple[int, str, str]]:
    """Each ```python block written as a `>>>` session, with the complete game block that precedes it."""
    text = DOC.read_text(encoding="utf-8")
    found = []
    for match in PYTHON_FENCE.finditer(text):
        if ">>>" not in match.group(1):
            continue
        line = text.count("\n", 0, match.start()) + 2
        before = [block for start, block in COMPLETE if start < line]
        found.append((line, match.group(1), before[-1]))
    return found


SESSIONS = tutorial_sessions()


def test_the_tutorial_has_python_sessions() -> None:
    assert len(SESSIONS) >= 2


@pytest.mark.parametrize(("line", "session", "rules"), SESSIONS, ids=[f"line{line}" for line, _, _ in SESSIONS])
def test_tutorial_python_session_runs_as_shown(line: int, session: str, rules: str, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The session runs against the game just described: as `game`, and as `race.gdl` in the current directory."""
    import doctest

    (tmp_path / "race.gdl").write_text(rules, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(session, {"game": gdl.load_source(rules), "gdl": gdl},
                                               f"docs/language.md:{line}", str(DOC), line)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
