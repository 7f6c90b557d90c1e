"""Declared board symmetries: the group they generate, keys shared by mirror images, the same
solutions with and without them, and the check that catches a symmetry the rules break."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gdl.board import Board  # noqa: E402
from gdl.diagnostics import RuleFileError  # noqa: E402
from gdl.loader import load, load_source  # noqa: E402
from gdl.symmetry import group  # noqa: E402
from solver.agents import PerfectAgent, RandomAgent  # noqa: E402
from solver.exact import solve  # noqa: E402
from solver.game import TERMINAL  # noqa: E402
from solver.match import play_game  # noqa: E402
from solver.table import StaleTableError, load_table, save_table  # noqa: E402

TTT = """
game T
players X, O
board 3 x 3
symmetry all
state mark[cell]: player? = none
state last: cell? = none
move place(c: cell) when mark[c] == none:
    mark[c] = mover
    last = c
def lined(p: player) = any l in lines(3): all c in l: mark[c] == p
win p when lined(p)
draw when all c in cell: mark[c] != none
"""


def test_the_declared_symmetries_generate_a_group() -> None:
    def order(board: Board, *names: str) -> int:
        return len(group(board, names)) + 1  # with the identity

    assert order(Board(3, 3), "all") == 8
    assert order(Board(3, 3), "rotate90") == 4
    assert order(Board(8, 8), "rotate180", "transpose") == 4
    assert order(Board(6, 7), "all") == 4  # a rectangle: mirror, flip and both
    assert order(Board(6, 7), "mirror") == 2
    assert order(Board(5, 5, "hex"), "all") == 4  # half turn and transpose
    for t in group(Board(3, 3), ["all"]):
        assert sorted(t.cells) == list(range(9))  # each is a permutation of the cells


def test_mirror_images_share_a_key_and_values_follow_the_cells() -> None:
    game = load_source(TTT)
    state = game.apply(game.initial_state(), game.parse_move(game.initial_state(), "place(a1)"))
    images = game.images(state)
    assert len(images) == 8
    assert {game.key(image) for image in images} == {game.key(state)}
    # `last` is a cell: in each image it names the corner that holds the mark.
    corners = {game.values(image)["last"] for image in images}
    assert corners == {"a1", "c1", "a3", "c3"}
    for image in images:
        marked = [c for c, v in zip(("a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"),
                                    game.values(image)["mark"], strict=True) if v == "X"]
        assert marked == [game.values(image)["last"]]


CASES = [
    ("tictactoe", {}),
    ("connect4", {"cols": "4", "rows": "4"}),
    ("connect4", {"cols": "4", "rows": "3"}),
    ("hexapawn", {}),
    ("hex", {"size": "3"}),
    ("othello", {"size": "4"}),
    ("clobber", {"rows": "3", "cols": "3"}),
    ("breakthrough", {"rows": "4", "cols": "3"}),
]


@pytest.mark.parametrize(("name", "params"), CASES, ids=[f"{n}{p}" for n, p in CASES])
def test_symmetry_gives_the_same_solution(name: str, params: dict[str, str]) -> None:
    with_sym = load(name, params)
    without = load(name, params, symmetry=False)
    assert with_sym.symmetries and not without.symmetries
    a, b = solve(with_sym), solve(without)
    assert a.value == b.value
    assert [str(m) for m in a.best_moves] == [str(m) for m in b.best_moves]
    assert a.stats.nodes <= b.stats.nodes
    _assert_line_is_optimal(without, a.principal_variation, a.value)


def _assert_line_is_optimal(game: object, line: tuple, value: tuple[float, ...]) -> None:
    """The principal variation is playable move by move and each position keeps the value."""
    state = game.initial_state()  # type: ignore[attr-defined]
    for move in line:
        state = game.apply(state, game.parse_move(state, str(move)))  # type: ignore[attr-defined]
        if game.to_move(state) != TERMINAL:  # type: ignore[attr-defined]
            assert solve(game, state).value == value  # type: ignore[arg-type]
    if game.to_move(state) == TERMINAL:  # type: ignore[attr-defined]
        assert tuple(game.utilities(state)) == value  # type: ignore[attr-defined]


@pytest.mark.parametrize("method", ["backward", "alphabeta"])
def test_graph_and_search_methods_agree_with_symmetry(method: str) -> None:
    game = load_source(TTT)
    plain = load_source(TTT, symmetry=False)
    a, b = solve(game, method=method), solve(plain, method=method)
    assert a.value == b.value == (0.0, 0.0)
    assert [str(m) for m in a.best_moves] == [str(m) for m in b.best_moves]
    assert a.table is not None and b.table is not None and len(a.table) < len(b.table)
    _assert_line_is_optimal(plain, a.principal_variation, a.value)


@pytest.fixture(scope="module")
def tictactoe_tables() -> tuple:
    """Tic-tac-toe solved by backward induction with and without its symmetries: once for all the examples."""
    game = load("tictactoe")
    plain = load("tictactoe", symmetry=False)
    return game, plain, solve(game, method="backward").table, solve(plain, method="backward").table


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_symmetric_table_gives_optimal_moves_in_every_image(tictactoe_tables: tuple, seed: int) -> None:
    game, plain, table, exact = tictactoe_tables
    assert table is not None and exact is not None
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(rng.randrange(0, 7)):
        if game.to_move(state) == TERMINAL:
            break
        state = game.apply(state, rng.choice(game.legal_moves(state)))
    for image in game.images(state):
        if game.to_move(image) == TERMINAL:
            continue
        assert table.best_moves(game, image) == exact.best_moves(plain, image)


def test_perfect_play_from_a_symmetric_table_never_loses() -> None:
    game = load("tictactoe")
    table = solve(game, method="backward").table
    for seed in range(20):
        perfect = PerfectAgent(game, table)
        agents = [perfect, RandomAgent(game, seed)] if seed % 2 else [RandomAgent(game, seed), perfect]
        record = play_game(game, agents, (0, 1), random.Random(seed))
        me = agents.index(perfect)
        assert record.utilities[me] >= 0


def test_a_table_keyed_by_symmetry_is_refused_without_it(tmp_path: Path) -> None:
    game = load("tictactoe")
    path = tmp_path / "t.sqlite"
    save_table(solve(game, method="backward").table, path)  # type: ignore[arg-type]
    assert len(load_table(path, game)) > 0
    with pytest.raises(StaleTableError, match="fingerprint"):
        load_table(path, load("tictactoe", symmetry=False))


BROKEN = """
game C
players Red, Yellow
board 3 x 4
symmetry mirror
state disc[cell]: player? = none
def top(x: 0..3) = first c in cells_in_column(x): disc[c] == none
move drop(x: 0..3) when top(x) != none:
    disc[top(x)] = mover
def lined(p: player) = any l in lines(3): all c in l: disc[c] == p
win p when lined(p) or disc[cell(2, 0)] == p
draw when all c in cell: disc[c] != none
"""


def test_a_symmetry_the_rules_break_is_reported_with_moves() -> None:
    with pytest.raises(RuleFileError) as caught:
        load_source(BROKEN, "broken.gdl")  # loading checks the symmetry (keys use it only once it passes)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == "symmetry-broken"
    assert diagnostic.span.line == 5 and diagnostic.file == "broken.gdl"
    assert "not symmetric under `mirror`" in diagnostic.message
    assert diagnostic.notes and diagnostic.notes[0].startswith("reproduce with the moves: drop(")
    # The moves do lead to a position where the images differ: replaying them shows a column-0 win.
    moves = diagnostic.notes[0].removeprefix("reproduce with the moves: ").split(",")
    assert len(moves) >= 1
    # Without the symmetry the same rules load and solve.
    assert solve(load_source(BROKEN, symmetry=False)).exact


def test_a_passed_symmetry_check_is_remembered_and_a_failed_one_never(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from gdl import symmetry_cache

    monkeypatch.setenv("GDL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(symmetry_cache, "_passed_here", set())
    for _ in range(2):  # the second time from the record, with the same keys
        with pytest.raises(RuleFileError):
            load_source(BROKEN, "broken.gdl")
    assert not (tmp_path / "cache" / "symmetry-checked.txt").exists()
    fixed = BROKEN.replace(" or disc[cell(2, 0)] == p", "")
    first = load_source(fixed, "fixed.gdl")
    assert len((tmp_path / "cache" / "symmetry-checked.txt").read_text().split()) == 1
    monkeypatch.setattr(symmetry_cache, "_passed_here", set())  # as a new process would
    again = load_source(fixed, "fixed.gdl")
    state = again.apply(again.initial_state(), again.parse_move(again.initial_state(), "drop(0)"))
    mirror = again.apply(again.initial_state(), again.parse_move(again.initial_state(), "drop(3)"))
    assert again.key(state) == again.key(mirror) == first.key(state)  # the keys use the symmetry
    # Other rules are another record.
    other = fixed.replace("lines(3)", "lines(4)")
    load_source(other, "other.gdl")
    assert len((tmp_path / "cache" / "symmetry-checked.txt").read_text().split()) == 2


def test_gdl_check_and_gdl_solve_report_a_broken_symmetry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gdl.cli import main

    path = tmp_path / "broken.gdl"
    path.write_text(BROKEN, encoding="utf-8")
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr()
    assert f"{path}:5:1: error[symmetry-broken]" in out.out + out.err
    assert main(["solve", str(path)]) == 1
    out = capsys.readouterr()
    assert "symmetry-broken" in out.out + out.err and "Traceback" not in out.out + out.err
    fixed = tmp_path / "fixed.gdl"
    fixed.write_text(BROKEN.replace("symmetry mirror\n", ""), encoding="utf-8")
    assert main(["check", str(fixed)]) == 0


DEEP_BREAK = """game C "the mirror breaks after eight plies"
players Red, Yellow
board 3 x 4
symmetry mirror
state disc[cell]: player? = none
state plies: 0..12 = 0
state work: 0..1000 = 3
def top(x: 0..3) = first c in cells_in_column(x): disc[c] == none
move drop(x: 0..3) when top(x) != none and (sum i in 0..work * 1000: 1) > 0:
    disc[top(x)] = mover
    plies += 1
def lined(p: player) = any l in lines(3): all c in l: disc[c] == p
win p when lined(p) or (plies >= 8 and disc[cell(0, 0)] == p)
draw when all c in cell: disc[c] != none
"""
"""A broken symmetry that the comparison meets after some 400,000 units of rule work (3,000 a move's guard)."""


def test_gdl_check_compares_the_symmetry_as_far_on_a_slow_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The comparison's rule budget is counted, not 2 s of CPU: a machine whose clocks run fast (a busy one,
    tests/warp.py) still finds the broken symmetry (the clock stopped the comparison first: "0 errors")."""
    from warp import warp_clocks

    from gdl.cli import main

    path = tmp_path / "deep.gdl"
    path.write_text(DEEP_BREAK, encoding="utf-8")
    assert main(["check", str(path)]) == 1
    expected = capsys.readouterr()
    assert f"{path}:4:1: error[symmetry-broken]" in expected.out
    warp_clocks(monkeypatch, 0.1)
    assert main(["check", str(path)]) == 1
    assert capsys.readouterr() == expected


def test_gdl_solve_no_symmetry_solves_every_image(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from gdl.cli import main

    results = []
    for extra in ([], ["--no-symmetry"]):
        assert main(["solve", "tictactoe", "--json", *extra]) == 0
        results.append(json.loads(capsys.readouterr().out))
    with_sym, without = results
    assert with_sym["value"] == without["value"] == {"X": 0.0, "O": 0.0}
    assert with_sym["best_moves"] == without["best_moves"]
    assert with_sym["stats"]["nodes"] < without["stats"]["nodes"]
