"""The C back end built from the compiler's real IR, chosen with ``backend=`` / ``--backend``, and its agreement
with the Python back end (the reference) and the reference interpreter (gdl/native/agree.py)."""

from __future__ import annotations

import contextlib
import math
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import gdl
from gdl.cli import main
from gdl.interpreter import Interpreter
from gdl.native.agree import agree
from gdl.native.select import BackendError, c_backend_or_reason
from gdl.parser import parse
from gdl.rule_helpers import RuleRuntimeError
from solver.exact import solve
from solver.limits import Budget, Limits
from solver.native import search as native_search_module
from tests.native_games import skip_reason
from tests.test_docs import expected_error, gdl_blocks, is_complete

pytestmark = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")
ROOT = Path(__file__).resolve().parent.parent

# Every bundled game at the parameters the tests use: the ones the C emitter translates, and why not the others.
TRANSLATED = [
    ("tictactoe", {}), ("connect4", {"cols": "4", "rows": "4"}), ("connect4", {}), ("nim", {}),
    ("takeaway3", {}), ("clobber", {"rows": "3", "cols": "4"}), ("dots_and_boxes", {}),
    ("dots_and_boxes", {"scoring": "winloss"}), ("kalah", {"pits": "3", "seeds": "3"}), ("kalah", {}),
    ("othello", {"size": "4"}), ("othello", {}), ("othello", {"scoring": "margin", "ending": "immediate"}),
    ("pig", {}), ("pig", {"variant": "openspiel"}), ("race", {}), ("eight_puzzle", {}),
    ("breakthrough", {"rows": "4", "cols": "3"}), ("breakthrough", {}), ("hexapawn", {}),
    ("hex", {}), ("hex", {"size": "4"}), ("mnk", {"m": "4", "n": "3", "k": "3"}), ("mnk", {}),
    ("rps", {}), ("security", {}), ("goofspiel", {}), ("goofspiel", {"cards": "4"}),
]
HALVES = """game Halves
players A, B
state n: 0..3 = 0
move up when n < 3:
    let h = n / 2
    chance d in 1..2:
        if h >= 1:
            n = 3
        else:
            n = min(n + d, 3)
terminal when n == 3
utility p: n / 2 if p == A else 0 - n / 2
"""
"""A rule file the C emitter does not translate yet: a fraction kept across a chance point."""
NOT_YET = "the C back end does not translate a fraction kept across a chance point yet"
FRACTIONS = """game Fractions
players A, B
state n: 0..9 = 0
move add(k: 1..3) when n + k <= 9:
    n += k
terminal when n == 9 or (n / 3 > 2 and n % 2 == 1)
utility p: (n / 3 - 7 / 4) * (1 if p == A else -1) / 5 if n / 2 != 4 else 1 / 7
heuristic p: -(n * n) / 81 if p == A else n / 9 - 1 / 3
"""
"""Fractions where the C emitter computes them exactly: compared, and handed out as utility and heuristic."""
SIMULTANEOUS_GAMES = ("rps", "security", "goofspiel")
"""Bundled games with simultaneous moves: rounds over the C rules (gdl.simultaneous), each player's move a turn."""


def _interpreter(game: gdl.CompiledGame) -> Interpreter:
    return Interpreter(parse(game.source, game.filename), game.parameters)


def _agrees_along_2000_playouts(python: gdl.CompiledGame, seed: int) -> gdl.CompiledGame:
    """The C back end of ``python``, after 2,000 seeded lockstep playouts on both (the reference interpreter
    along the first 50) found no difference."""
    native, reason = c_backend_or_reason(python)
    assert native is not None, reason
    result = agree(python, native, playouts=2000, seed=seed, oracle=_interpreter(python), oracle_playouts=50)
    assert result.agree and result.playouts == 2000, (result.disagreement, result.moves)
    return native


SLOW_TO_AGREE = {("othello", ()), ("othello", (("scoring", "margin"), ("ending", "immediate"))), ("breakthrough", ()),
                 ("eight_puzzle", ())}
"""Games whose 150 lockstep playouts take seconds (long games): in the slow set."""


@pytest.mark.parametrize(("name", "params"), [
    pytest.param(name, params, marks=[pytest.mark.slow] if (name, tuple(params.items())) in SLOW_TO_AGREE else [])
    for name, params in TRANSLATED], ids=lambda x: str(x) if isinstance(x, str) else "")
@pytest.mark.slow
def test_bundled_games_agree_with_python_and_the_interpreter(name: str, params: dict[str, str]) -> None:
    python = gdl.load(name, params)
    native, reason = c_backend_or_reason(python)
    assert native is not None, reason
    assert native.backend == "c" and python.backend == "python"
    result = agree(python, native, playouts=150, seed=11, max_plies=300, oracle=_interpreter(python),
                   oracle_playouts=15)
    assert result.agree, (result.disagreement, result.moves)
    assert result.playouts == 150 and result.states > 150


def test_a_rule_file_the_c_emitter_does_not_translate_yet_says_why() -> None:
    native, reason = c_backend_or_reason(gdl.load_source(HALVES, "halves.gdl"))
    assert native is None and reason == NOT_YET


def test_fractions_compare_and_score_exactly_in_c() -> None:
    python = gdl.load_source(FRACTIONS, "fractions.gdl")
    native, reason = c_backend_or_reason(python)
    assert native is not None, reason
    result = agree(python, native, playouts=200, seed=3, oracle=_interpreter(python), oracle_playouts=50)
    assert result.agree, (result.disagreement, result.moves)
    state = python.initial_state()
    for _ in range(3):  # n = 3, 6: the heuristic and utilities are the same floats, to the last bit
        state = python.apply(state, python.parse_move(state, "add(3)"))
        assert native.heuristic(state) == python.heuristic(state)
    assert solve(native).value == solve(python).value


STALE = """game Stale
players A, B
state n: 0..3 = 0
def small(k: 0..3) = k < 2
move up when small(min(n + 0, 3)):
    n += 1
move jump when small(min(n + 0, 3)):
    n += 5
terminal when n == 3
utility p: 0
"""
"""`jump` always fails; `small` stays a C function, whose callers test the error record."""


def test_a_rule_error_leaves_nothing_behind_for_the_next_question() -> None:
    """Found by bench/native_agree.py: after a failed move, the next legal-move list failed too (a def call
    read the error code the failure had left in the record that Python reuses)."""
    native, reason = c_backend_or_reason(gdl.load_source(STALE, "stale.gdl"))
    assert native is not None, reason
    state = native.initial_state()
    with pytest.raises(RuleRuntimeError, match=r"stale\.gdl:8:10"):
        native.apply(state, native.parse_move(state, "jump"))
    assert [str(m) for m in native.legal_moves(state)] == ["up", "jump"]
    assert native.apply(state, native.parse_move(state, "up")) == (1, 1, 0)


@pytest.mark.parametrize(("name", "params"), [
    ("tictactoe", {}), ("connect4", {"cols": "5", "rows": "4"}), ("mnk", {"m": "4", "n": "3", "k": "3"}),
    ("clobber", {"rows": "3", "cols": "4"}), ("othello", {"size": "4"}), ("hexapawn", {}),
])
@pytest.mark.slow
def test_lazy_smp_threads_give_the_single_threads_answer(name: str, params: dict[str, str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads sharing one table (solver/native/search.py): the same values and optimal moves, every time.
    (The helper joins from the first node here: by default a search this small ends before it would.)"""
    monkeypatch.setattr(native_search_module, "HELPERS_AFTER", 0)
    native = gdl.load(name, params, backend="c")
    alone = solve(native, limits=Limits(threads=1))
    for _ in range(3):  # (the helpers' timing differs from run to run; the answer may not)
        shared = solve(native, limits=Limits(threads=2))
        assert shared.value == alone.value and shared.exact
        assert [str(m) for m in shared.best_moves] == [str(m) for m in alone.best_moves]
    assert alone.value == solve(gdl.load(name, params)).value


def _searched(name: str, params: dict[str, str], entries: int | None, threads: int) -> tuple[float, int]:
    """The root's value for the side to move, searched in C, and the entries its table has room for after."""
    native = gdl.load(name, params, backend="c")
    limits = Limits(table_entries=entries, threads=threads)
    search = native_search_module.native_search(native, Budget(limits), limits)
    assert search is not None
    value = search.negamax(native.initial_state(), 0, 0, -math.inf, math.inf)
    search.close()
    return value, search.table_capacity


def test_the_c_table_grows_with_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """The alpha-beta table starts small and grows (its entries moved over) up to the size asked for: tic-tac-toe
    never clears a table of a million entries, Connect-Four 5x4 grows it to hundreds of thousands, and a table
    shared with a helper thread has its full size first. The values are the Python back end's."""
    full = native_search_module.DEFAULT_ENTRIES
    value, room = _searched("tictactoe", {}, None, 1)
    assert value == 0.0 and room < full // 8
    value, room = _searched("connect4", {"cols": "5", "rows": "4"}, None, 1)
    assert value == solve(gdl.load("connect4", {"cols": "5", "rows": "4"})).value[0] and full // 4 <= room <= full
    assert _searched("tictactoe", {}, 256, 1) == (0.0, 256)  # (never past the size asked for)
    monkeypatch.setattr(native_search_module, "HELPERS_AFTER", 0)
    assert _searched("tictactoe", {}, None, 2) == (0.0, full)


@pytest.mark.slow
def test_solve_threads_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    answers = []
    for threads in ("1", "2"):
        assert main(["solve", "connect4", "-p", "cols=4", "-p", "rows=4", "--backend", "c", "--threads", threads,
                     "--json"]) == 0
        answers.append(json.loads(capsys.readouterr().out))
    assert answers[0]["value"] == answers[1]["value"] and answers[0]["move_values"] == answers[1]["move_values"]
    assert main(["solve", "tictactoe", "--threads", "0"]) == 2
    assert "--threads must be at least 1" in capsys.readouterr().err


def test_every_bundled_game_translates_and_is_listed_here() -> None:
    listed = {name for name, _ in TRANSLATED}
    assert listed == {p.stem for p in (ROOT / "games").glob("*.gdl")} and set(SIMULTANEOUS_GAMES) <= listed


@pytest.mark.parametrize("name", SIMULTANEOUS_GAMES)
def test_the_simultaneous_games_play_rounds_over_the_c_rules(name: str) -> None:
    """Each player's move runs in C as a turn; the round (joint moves, `a|b`) is gdl.simultaneous's, and the
    solvers' C loops are not offered (they play turns): the LP solve runs in Python over the C rules."""
    python = gdl.load(name)
    native, reason = c_backend_or_reason(python)
    assert native is not None, reason
    assert native.simultaneous and native.native() is None
    state = native.initial_state()
    assert native.to_move(state) == python.to_move(state) == -3  # SIMULTANEOUS
    assert [[str(m) for m in native.legal_moves(state, p)] for p in range(2)] == \
        [[str(m) for m in python.legal_moves(state, p)] for p in range(2)]
    joint = [native.legal_moves(state, p)[-1] for p in range(2)]
    assert native.apply_joint(state, joint) == python.apply_joint(state, [python.legal_moves(state, p)[-1]
                                                                          for p in range(2)])
    assert solve_simultaneous_value(native) == solve_simultaneous_value(python)


def solve_simultaneous_value(game: gdl.CompiledGame) -> tuple[float, ...]:
    from solver.simultaneous import solve_simultaneous

    return tuple(round(v, 9) for v in solve_simultaneous(game).value)


@pytest.mark.parametrize(("name", "params"), [
    ("tictactoe", {}), ("connect4", {"cols": "4", "rows": "4"}), ("nim", {}), ("takeaway3", {}),
    ("clobber", {"rows": "3", "cols": "4"}), ("dots_and_boxes", {}), ("kalah", {"pits": "3", "seeds": "3"}),
    ("othello", {"size": "4"}), ("breakthrough", {"rows": "4", "cols": "3"}), ("hexapawn", {}), ("hex", {}),
], ids=lambda x: str(x) if isinstance(x, str) else "")
def test_solved_values_and_best_moves_agree(name: str, params: dict[str, str]) -> None:
    python = gdl.load(name, params)
    native = gdl.load(name, params, backend="c")
    ours, theirs = solve(native), solve(python)
    assert ours.value == theirs.value and ours.exact and theirs.exact
    assert [str(m) for m in ours.best_moves] == [str(m) for m in theirs.best_moves]


def _corpus() -> list[tuple[str, str]]:
    items = [(f"docs/language.md:{line}", block) for line, block in gdl_blocks()
             if is_complete(block) and expected_error(block) is None]
    for folder in ("interp_cases", "solvefiles"):
        items += [(str(p.relative_to(ROOT)), p.read_text()) for p in sorted((ROOT / "tests" / folder).glob("*.gdl"))]
    return items


CORPUS = _corpus()


@pytest.mark.slow
@pytest.mark.parametrize(("name", "text"), CORPUS, ids=[name for name, _ in CORPUS])
def test_the_docs_games_and_the_interpreter_corpus_agree(name: str, text: str) -> None:
    # One test per file (it was one loop over all of them, a C build each): pytest-xdist spreads the builds
    # over the cores instead of leaving one worker with a minute-long test at the end of the run.
    try:
        python = gdl.load_source(text, name)
    except gdl.RuleFileError:
        return  # (a case of a rule-file error: nothing to run)
    native, reason = c_backend_or_reason(python)
    if native is None:
        assert reason is not None and reason.startswith("the C back end does not translate"), (name, reason)
        return
    result = agree(python, native, playouts=50, seed=3, oracle=_interpreter(python), oracle_playouts=10)
    assert result.agree, (name, result.disagreement, result.moves)


@pytest.mark.slow
def test_the_c_emitter_translates_every_docs_game_and_corpus_file_that_loads() -> None:
    from gdl.native.emit_c import emit
    from gdl.native.emitted import Unsupported
    from gdl.native.game import symmetry_maps

    translated = 0
    for name, text in CORPUS:
        try:
            python = gdl.load_source(text, name)
        except gdl.RuleFileError:
            continue
        assert python.program.ir is not None, name
        with contextlib.suppress(Unsupported):
            emit(python.program.ir, symmetry_maps(python))
            translated += 1
    assert translated >= 55  # (all 55 that load)


class _Reordered:
    """A C game whose legal moves come in reverse order: what a broken emitter would do."""

    def __init__(self, native: gdl.CompiledGame) -> None:
        self.native = native

    def __getattr__(self, name: str) -> object:
        return getattr(self.native, name)

    def legal_moves(self, state: tuple[int, ...]) -> list[object]:
        return list(reversed(self.native.legal_moves(state)))


def test_a_disagreement_is_found_with_the_moves_that_show_it() -> None:
    python = gdl.load("tictactoe")
    native = gdl.load("tictactoe", backend="c")
    result = agree(python, _Reordered(native), playouts=10)  # type: ignore[arg-type]
    assert result.disagreement == "the moves, outcomes or probabilities differ" and result.moves == []
    assert not result.agree


def test_gdl_check_backend_c_reports_a_disagreement(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    import gdl.native.select as select

    real = select.c_backend_or_reason

    def broken(game: gdl.CompiledGame) -> tuple[object, str | None]:
        native, reason = real(game)
        return _Reordered(native), reason  # type: ignore[arg-type]

    monkeypatch.setattr(select, "c_backend_or_reason", broken)
    assert main(["check", "tictactoe", "--backend", "c"]) == 1
    out = capsys.readouterr().out
    assert "error[backend-disagrees]: the C back end disagrees with Python: the moves, outcomes or probabilities" in out
    assert "after the moves: (the initial state)" in out


def test_gdl_check_backend_c_plays_2000_lockstep_playouts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "tictactoe", "nim", "--backend", "c"]) == 0
    out = capsys.readouterr().out
    for name in ("tictactoe", "nim"):
        assert f"{name}.gdl: the C and Python back ends agree along 2,000 playouts" in out


def test_gdl_check_backend_c_compares_as_much_on_a_slow_machine(capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison is bounded in steps, not CPU seconds: a machine whose clocks run fast (a busy one,
    tests/warp.py) plays the same playouts (30 CPU seconds stopped them at a number that depended on it)."""
    from warp import warp_clocks

    assert main(["check", "tictactoe", "--backend", "c"]) == 0
    expected = capsys.readouterr().out
    assert "agree along 2,000 playouts (17,165 states; the reference interpreter along the first 50)" in expected
    warp_clocks(monkeypatch, 0.1)
    assert main(["check", "tictactoe", "--backend", "c"]) == 0
    assert capsys.readouterr().out == expected


def test_load_backend_choices() -> None:
    assert gdl.load("tictactoe", backend="c").backend == "c"
    assert gdl.load("tictactoe", backend="auto").backend == "c"
    assert gdl.load("tictactoe").backend == "python"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        game = gdl.load_source(HALVES, "halves.gdl", backend="auto")
    assert game.backend == "python"
    assert [str(w.message) for w in caught] == [f"using the Python back end: {NOT_YET}"]
    with pytest.raises(BackendError, match="cannot be used: the C back end does not translate a fraction kept"):
        gdl.load_source(HALVES, "halves.gdl", backend="c")
    with pytest.raises(BackendError, match="unknown back end 'fortran'"):
        gdl.load("nim", backend="fortran")


@pytest.mark.parametrize(("name", "params"), [("pig", {"goal": "20"}), ("race", {"goal": "20"})])
def test_chance_games_solve_to_the_same_value_in_c(name: str, params: dict[str, str]) -> None:
    python, native = gdl.load(name, params), gdl.load(name, params, backend="c")
    assert solve(native).value == solve(python).value
    roll = native.apply(native.initial_state(), native.parse_move(native.initial_state(), "roll"))
    assert roll == python.apply(python.initial_state(), python.parse_move(python.initial_state(), "roll"))
    assert [(str(m), p) for m, p in native.chance_outcomes(roll)] == \
        [(str(m), p) for m, p in python.chance_outcomes(roll)]


def test_a_c_game_renders_parses_and_replays_as_the_python_one() -> None:
    python, native = gdl.load("connect4"), gdl.load("connect4", backend="c")
    ours, theirs = native.initial_state(), python.initial_state()
    for text in ("drop(d)", "drop(c)", "drop(c)"):
        move = native.parse_move(ours, text)
        assert str(move) == str(python.parse_move(theirs, text))
        ours, theirs = native.apply(ours, move), python.apply(theirs, python.parse_move(theirs, text))
        assert ours == theirs and native.render(ours) == python.render(theirs)
        assert native.describe_end(ours) == python.describe_end(theirs)
    first = python.legal_moves(python.initial_state())[0]  # a Python move, played on the C back end by its name
    assert native.apply(native.initial_state(), first) == python.apply(python.initial_state(), first)


@pytest.mark.slow
def test_solve_backend_c_gives_the_python_answer(capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for backend in ("python", "c"):
        assert main(["solve", "connect4", "-p", "cols=4", "-p", "rows=4", "--json", "--backend", backend]) == 0
        outputs.append(capsys.readouterr().out)
    import json

    python, c = (json.loads(o) for o in outputs)
    assert python["value"] == c["value"] and python["best_moves"] == c["best_moves"]
    assert [m["value"] for m in python["moves"]] == [m["value"] for m in c["moves"]]


def test_solve_backend_c_values_every_move_as_python_does(capsys: pytest.CaptureFixture[str]) -> None:
    """In C the root's own search values the root moves (wins, a draw): the same table as the Python back end's."""
    import json

    answers = []
    for backend in ("python", "c"):
        assert main(["solve", "tictactoe", "--moves", "place(b2),place(b1)", "--json", "--backend", backend]) == 0
        answers.append(json.loads(capsys.readouterr().out))
    python, c = answers
    assert c["move_values"] == python["move_values"] and c["best_moves"] == python["best_moves"]
    assert sorted({v["X"] for v in c["move_values"].values()}) == [0.0, 1.0]  # not every move is optimal


@pytest.mark.parametrize("algorithm", ["retrograde", "backward", "value_iteration"])
def test_solve_backend_c_prints_the_graph_methods_move_table_as_python_does(capsys: pytest.CaptureFixture[str],
                                                                           algorithm: str) -> None:
    """Each root move's value and distance to the end ("plies then"), read from the C graph: the Python back end's
    table, line for line (the C retrograde analysis's had no distances)."""
    printed = []
    for backend in ("python", "c"):
        assert main(["solve", "nim", "--algorithm", algorithm, "--backend", backend]) == 0
        printed.append(capsys.readouterr().out.splitlines()[:-1])  # (all but the statistics)
    assert printed[0] == printed[1]
    assert "plies then" in printed[1][3] and printed[1][4].split()[-2:] == ["10", "best"]


def test_backend_c_without_the_c_back_end_is_one_line_and_auto_a_note(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "halves.gdl"
    path.write_text(HALVES)
    assert main(["solve", str(path), "--backend", "c"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"gdl solve: error: --backend c: the C back end cannot be used: {NOT_YET}"
    assert main(["solve", str(path), "--backend", "auto"]) == 0
    captured = capsys.readouterr()
    assert f"note: using the Python back end: {NOT_YET}" in captured.err
    assert "exact value" in captured.out


def test_without_a_compiler_auto_keeps_python_and_c_is_refused(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(Path(sys.executable).parent), "CC": str(tmp_path / "no-such-cc"),
           "GDL_CACHE_DIR": str(tmp_path / "cache")}
    gdl_exe = str(Path(sys.executable).parent / "gdl")
    auto = subprocess.run([gdl_exe, "solve", "tictactoe", "--backend", "auto"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert auto.returncode == 0 and "draw" in auto.stdout
    assert auto.stderr.startswith("note: using the Python back end: no C compiler found"), auto.stderr
    c = subprocess.run([gdl_exe, "solve", "tictactoe", "--backend", "c"], env=env, capture_output=True, text=True,
                       timeout=120)
    assert c.returncode == 2 and "Traceback" not in c.stderr
    assert len(c.stderr.strip().splitlines()) == 1 and "no C compiler found" in c.stderr


def test_rule_errors_happen_in_both_back_ends_at_the_same_point() -> None:
    source = """game Overflow
players A, B
state n: 0..5 = 0
move up when true:
    n += 2
win A when n == 5
"""
    python = gdl.load_source(source, "overflow.gdl")
    native, reason = c_backend_or_reason(python)
    assert native is not None, reason
    result = agree(python, native, playouts=20, seed=1, oracle=_interpreter(python))
    assert result.agree and result.playouts == 20 and result.states == 20 * 3  # n = 0, 2, 4, then the error


SKILL = """game Skill "hit with a chance that grows with practice"
players A, B
state practice[player]: 0..4 = 0
state score[player]: 0..3 = 0
move shoot:
    let p = practice[mover]
    chance:
        hit with (p + 1) / 5:
            score[mover] = min(score[mover] + 1, 3)
        miss with 1 - (p + 1) / 5:
            practice[mover] = min(p + 1, 4)
move train when practice[mover] < 4:
    practice[mover] += 1
win p when score[p] == 3
"""
"""Branch probabilities computed when the chance is reached, from a `let` the move keeps across it."""


@pytest.mark.slow
def test_branch_probabilities_computed_at_run_time_in_c() -> None:
    python = gdl.load_source(SKILL, "skill.gdl")
    native = _agrees_along_2000_playouts(python, seed=5)
    state = native.apply(native.initial_state(), native.parse_move(native.initial_state(), "shoot"))
    assert [(str(m), p) for m, p in native.chance_outcomes(state)] == [("hit", 0.2), ("miss", 0.8)]
    assert solve(native).value == solve(python).value


@pytest.mark.parametrize(("odds", "message"), [("(n - 2) / 4", "negative"), ("n / 4", "add up to 1.05")])
def test_bad_run_time_probabilities_are_rule_errors_in_both_back_ends(odds: str, message: str) -> None:
    source = f"""game Odds
players A, B
state n: 0..3 = 1
move go:
    chance:
        up with {odds}: n = min(n + 1, 3)
        down with 1 - n / 5: n = max(n - 1, 0)
win A when n == 3
"""
    python = gdl.load_source(source, "odds.gdl")
    native, reason = c_backend_or_reason(python)
    assert native is not None, reason
    for game in (python, native):
        state = game.apply(game.initial_state(), game.parse_move(game.initial_state(), "go"))
        with pytest.raises(RuleRuntimeError) as caught:
            game.chance_outcomes(state)
        assert game is native or message in str(caught.value)
        assert game is python or str(caught.value).startswith("odds.gdl:5:5:")


SHARES = """game Shares "fractions in locals, def results and aggregates"
players A, B
state pot[player]: 0..6 = 0
def share(k: 0..6) = k / 3
def spread(a: 0..6, b: 0..6) = abs(share(a) - share(b))
move add(k: 1..2) when pot[mover] + k <= 6:
    let before = share(pot[mover])
    pot[mover] += k
    let after = share(pot[mover])
    after -= before
    if after > 1/2 and pot[opponent(mover)] > 0:
        pot[opponent(mover)] -= 1
terminal when (sum p in player: pot[p] / 4) >= 2 or (max p in player: share(pot[p])) == 2
utility p: min(share(pot[p]) - share(pot[opponent(p)]), 1) - spread(pot[A], pot[B]) / 7
"""
"""Fractions kept in `let` locals (assigned, `-=`), returned by defs, summed and maximised by aggregates, and
through abs and min: exact in C as in Python's Fraction."""


@pytest.mark.slow
def test_fractions_kept_in_locals_defs_and_aggregates_in_c() -> None:
    python = gdl.load_source(SHARES, "shares.gdl")
    native = _agrees_along_2000_playouts(python, seed=2)
    assert solve(native).value == solve(python).value


@pytest.mark.slow
@pytest.mark.parametrize("case", ["fractions", "let_kept_across_chance"])
def test_fraction_weights_and_unbounded_kept_locals_in_c(case: str) -> None:
    """Chance weights that are fractions (exact, each probability float(w / total)); a `let` grown in a loop and
    kept across two chance points (its cell: 64 bits, its range unknown)."""
    python = gdl.load(str(ROOT / "tests" / "interp_cases" / f"{case}.gdl"))
    native = _agrees_along_2000_playouts(python, seed=4)
    assert solve(native).value == solve(python).value


PICKS = """game Picks "select as a value: a move's list, membership, len, and a select over a select"
players A, B
board 3 x 3
state mark[cell]: player? = none
def free = select c in cell: mark[c] == none
def mine(p: player) = select c in cell: mark[c] == p
def edge_free = select c in free: row(c) == 0 or col(c) == 0
move place(c: free) when len(free) > 4 or c in edge_free:
    mark[c] = mover
move claim(c: mine(mover)) when len(mine(mover)) >= 2 and len(free) <= 4:
    mark[c] = none
terminal when len(free) == 0 or len(mine(A)) == 4
utility p: len(mine(p)) - len(mine(opponent(p)))
"""


@pytest.mark.slow
def test_select_as_a_list_value_in_c() -> None:
    """`select` gathered into an array as long as its domain: a move's parameter list, `in`, `len`, nested."""
    python = gdl.load_source(PICKS, "picks.gdl")
    _agrees_along_2000_playouts(python, seed=4)


def test_an_inlined_def_reads_the_callers_own_local() -> None:
    """`heuristic p: count c in cell: owns(p, c)` after `def lined(p: player) = ... owns(p, c)`: both inlined
    calls have the same generated text (`L_p`), and the inline memo once gave the heuristic the IR of the def's
    `p` (C then read a local that was never set). The memo now tells locals apart by their IR variable."""
    python = gdl.load(str(ROOT / "tests" / "interp_cases" / "binders_everywhere.gdl"))
    native, reason = c_backend_or_reason(python)
    assert native is not None, reason
    state = python.apply(python.initial_state(), python.parse_move(python.initial_state(), "place(c1)"))
    assert native.heuristic(state) == python.heuristic(state) == (1.0, -1.0)
    result = agree(python, native, playouts=300, seed=3, oracle=_interpreter(python), oracle_playouts=20)
    assert result.agree, (result.disagreement, result.moves)


def test_gdl_check_backend_c_goes_on_past_a_file_c_does_not_translate(capsys: pytest.CaptureFixture[str],
                                                                       tmp_path: Path) -> None:
    """One file C cannot take is that file's error; the next file is still compared."""
    halves = tmp_path / "halves.gdl"
    halves.write_text(HALVES)
    files = [str(halves), str(ROOT / "games" / "nim.gdl")]
    assert main(["check", *files, "--backend", "c", "--playouts", "50"]) == 1
    out = capsys.readouterr().out
    assert f"error[backend-untranslated]: --backend c: {NOT_YET}" in out
    assert "nim.gdl: the C and Python back ends agree along 2,000 playouts" in out


# ------------------------------------------------------------------ issue 29: where C's integers end

WIDE_CELLS = str(ROOT / "tests" / "interp_cases" / "wide_cells.gdl")
"""Cells whose ranges pass 32 bits: a counter crossing 2^31, values past 2^32 and below -2^32, an array of them."""
KEPT_PAST_32_BITS = str(ROOT / "tests" / "interp_cases" / "let_kept_past_32_bits.gdl")
"""A `let` the compiler cannot bound, past 2^32, kept across a chance point (a cell of the chance state)."""
ABS_SMALLEST = """game AbsSmallest "abs of the smallest 64-bit integer"
players A, B
state m: -2097152..-2097150 = -2097152
state n: 0..2 = 0
move go() when n == 0:
    n = 1 if abs(m * m * m) > 0 else 2
win A when n == 1
win B when n == 2
"""
"""``m * m * m`` is -2^63, the smallest 64-bit integer: its ``abs`` is 2^63, one past C's int64 (it wrapped to
-2^63, and B won in C where A wins in Python)."""
SIMULTANEOUS_OVERFLOW = """game SimultaneousOverflow "a round whose product passes 64 bits"
players Row, Column
simultaneous
state m: 99999..100000 = 100000
state shown[player]: 0..2 = 0
move play(h: 1..2) when shown[mover] == 0:
    shown[mover] = 1 if m * m * m * m * h > 0 else 2
def done = shown[Row] != 0 and shown[Column] != 0
win Row when done and shown[Row] == 1 and shown[Column] == 1
draw when done
"""
"""10^20 in a round of a simultaneous game: past 64 bits in C (a traceback from ``gdl solve``), a number in Python."""


def _solve_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    import json

    code = main(["solve", *argv, "--json"])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, json.loads(captured.out)


@pytest.mark.parametrize("algorithm", ["auto", "alphabeta", "backward", "retrograde", "value_iteration"])
def test_cells_past_32_bits_solve_as_in_python(capsys: pytest.CaptureFixture[str], algorithm: str) -> None:
    """C stored every cell in 32 bits: this file's solve was a traceback (a range check on the cut cell)."""
    answers = [_solve_json(capsys, WIDE_CELLS, "--algorithm", algorithm, "--backend", backend)
               for backend in ("python", "c")]
    (python_code, python), (c_code, c) = answers
    assert python_code == c_code == 0
    assert python["value"] == c["value"] == {"A": 0.0, "B": 0.0}
    assert python["best_moves"] == c["best_moves"] and python["move_values"] == c["move_values"]
    assert python["principal_variation"] == c["principal_variation"] == ["up(1)", "up(1)"]


def test_gdl_check_backend_c_agrees_on_cells_past_32_bits(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", WIDE_CELLS, KEPT_PAST_32_BITS, "--backend", "c"]) == 0
    out = capsys.readouterr().out
    assert "wide_cells.gdl: the C and Python back ends agree along 2,000 playouts" in out
    assert "let_kept_past_32_bits.gdl: the C and Python back ends agree along 2,000 playouts" in out


def test_a_let_kept_across_chance_past_32_bits_solves_as_in_python(capsys: pytest.CaptureFixture[str]) -> None:
    """A local the compiler cannot bound had a 32-bit cell in a chance state: C failed where Python went on."""
    (python_code, python), (c_code, c) = (_solve_json(capsys, KEPT_PAST_32_BITS, "--backend", b)
                                          for b in ("python", "c"))
    assert python_code == c_code == 0
    assert python["value"] == c["value"] == {"A": 1.0, "B": -1.0} and python["best_moves"] == c["best_moves"]


def test_a_cell_past_32_bits_crosses_to_python_whole() -> None:
    """States cross the boundary as 64-bit integers: every cell of the C back end's state is Python's."""
    python, native = gdl.load(WIDE_CELLS), gdl.load(WIDE_CELLS, backend="c")
    ours, theirs = native.initial_state(), python.initial_state()
    assert ours == theirs == (2147483646, 4294967296, -4294967296, 8589934592, 8589934592, 0, 0)
    for text in ("up(1)", "up(2)"):
        ours = native.apply(ours, native.parse_move(ours, text))
        theirs = python.apply(theirs, python.parse_move(theirs, text))
        assert ours == theirs and native.key(ours) == python.key(theirs)
    assert ours[:3] == (2147483649, 4294967299, -4294967299) and native.utilities(ours) == python.utilities(theirs)


def test_abs_of_the_smallest_integer_is_an_overflow_in_c(capsys: pytest.CaptureFixture[str],
                                                        tmp_path: Path) -> None:
    """abs(-2^63) is 2^63 in Python; C's int64 cannot hold it, so it is a rule error there, as every whole number
    past 64 bits (it stayed -2^63, and C answered that B wins)."""
    path = tmp_path / "abs_smallest.gdl"
    path.write_text(ABS_SMALLEST)
    code, python = _solve_json(capsys, str(path))
    assert code == 0 and python["value"] == {"A": 1.0, "B": -1.0}
    code, c = _solve_json(capsys, str(path), "--backend", "c")
    assert code == 1 and "value" not in c
    error = c["error"]
    assert isinstance(error, dict)
    assert error["code"] == "runtime-error" and (error["line"], error["column"]) == (6, 14)
    assert error["message"].startswith("integer overflow: a number past 64 bits") and error["moves"] == ["go"]
    code, auto = _solve_json(capsys, str(path), "--backend", "auto")  # it solves again in Python, saying why
    assert code == 0 and auto["value"] == python["value"] and auto["best_moves"] == python["best_moves"]


def test_auto_solves_in_python_what_passes_64_bits_in_c(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for name, text in (("abs_smallest", ABS_SMALLEST), ("simultaneous_overflow", SIMULTANEOUS_OVERFLOW)):
        path = tmp_path / f"{name}.gdl"
        path.write_text(text)
        outputs = []
        for backend in ("python", "auto"):
            assert main(["solve", str(path), "--backend", backend]) == 0
            outputs.append(capsys.readouterr())
        python, auto = outputs
        assert auto.out.splitlines()[:-1] == python.out.splitlines()[:-1]  # (all but the statistics)
        place = f"{name}.gdl:{6 if name == 'abs_smallest' else 7}:"
        assert "note: using the Python back end: the C back end met a number past 64 bits at " in auto.err
        assert place in auto.err and "error" not in auto.err


def test_gdl_check_says_a_number_past_64_bits_is_cs_limit(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Not "a bug in gdl": the file is one for the Python back end, and the caret is at the rule."""
    path = tmp_path / "abs_smallest.gdl"
    path.write_text(ABS_SMALLEST)
    assert main(["check", str(path), "--backend", "c"]) == 1
    out = capsys.readouterr().out
    assert "abs_smallest.gdl:6:14: error[backend-overflow]: --backend c: a number past 64 bits here" in out
    assert "note: after the moves: go" in out and "backend-disagrees" not in out and "a bug in gdl" not in out
    assert main(["check", str(path), "--backend", "auto"]) == 0
    out = capsys.readouterr().out
    assert "abs_smallest.gdl: the C back end stops at a number past 64 bits (line 6, after the moves go)" in out


def test_a_64_bit_overflow_in_a_simultaneous_round_is_a_diagnostic(capsys: pytest.CaptureFixture[str],
                                                                  tmp_path: Path) -> None:
    path = tmp_path / "simultaneous_overflow.gdl"
    path.write_text(SIMULTANEOUS_OVERFLOW)
    code, python = _solve_json(capsys, str(path))
    assert code == 0 and python["value"] == {"Row": 1.0, "Column": -1.0}
    code = main(["solve", str(path), "--backend", "c"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert err.count("error[runtime-error]: integer overflow: a number past 64 bits") == 1, err
    assert "simultaneous_overflow.gdl:7:25" in err and "note: reproduce with the moves: play(1)|play(1)\n" in err


def test_a_game_where_no_move_is_ever_legal_translates(capsys: pytest.CaptureFixture[str]) -> None:
    """Domineering on one square: no domino fits, the first player loses at once (C refused the game)."""
    path = str(ROOT / "tests" / "solvefiles" / "domineering_1x1.gdl")
    (python_code, python), (c_code, c) = (_solve_json(capsys, path, "--backend", b) for b in ("python", "c"))
    assert python_code == c_code == 0
    assert python["value"] == c["value"] == {"Vertical": -1.0, "Horizontal": 1.0}
    assert python["best_moves"] == c["best_moves"] == []
    assert main(["check", path, "--backend", "c"]) == 0
    assert "the C and Python back ends agree" in capsys.readouterr().out


@pytest.mark.parametrize("algorithm", ["auto", "backward", "minimax"])
def test_a_rule_error_has_the_same_fields_on_both_back_ends(capsys: pytest.CaptureFixture[str],
                                                           algorithm: str) -> None:
    """The place (line, column, end) and the moves apart from the message, and the same message: C's errors had
    the place and moves in the message text only (``--algorithm backward``: no ``moves``)."""
    overflow = str(ROOT / "tests" / "deadends" / "overflow.gdl")
    errors = []
    for backend in ("python", "c"):
        code, report = _solve_json(capsys, overflow, "--algorithm", algorithm, "--backend", backend)
        assert code == 1
        errors.append(report["error"])
    assert errors[0] == errors[1]
    error = errors[1]
    assert isinstance(error, dict)
    assert (error["line"], error["column"], error["end_line"], error["end_column"]) == (4, 25, 4, 26)
    assert error["moves"] == ["add(3)", "add(3)"]
    assert error["message"] == "value 6 is outside the variable's domain 0..5"
