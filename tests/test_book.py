"""Opening books and solved tables combined with search (issue 15, item 3): solver/book.py, solver/probe.py,
the agents' ``book=`` and ``table=`` options and ``gdl book``.

The values a book or a probed search reports are checked against the exact solver run on its own
(a fresh search, and for Connect-Four without the mirror symmetry, so that no transposition table
or key is shared with the book).
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import shutil
import sqlite3
from pathlib import Path

import pytest
from crafted_tables import CRAFTED
from crafted_tables import params as crafted_params
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from refgames import GraphGame
from test_solver_exact import graphs
from test_solver_search import as_game, trees

import gdl
from gdl.cli import main
from solver.agents import make_agent
from solver.alphabeta import NegamaxSearch, alphabeta
from solver.book import BookError, build_book, is_book, load_book, load_exact_table, positions, save_book
from solver.exact import solve
from solver.game import TERMINAL
from solver.limits import Budget, Limits
from solver.match import play_game
from solver.mtdf import at_least, at_most
from solver.probe import KnowingAgent, TableProbe
from solver.table import CorruptTableError, StaleTableError, TableError, encode_key

SHUTTLE = Path(__file__).parent / "solvefiles" / "shuttle.gdl"


def connect4(cols: int, rows: int, symmetry: bool = True) -> gdl.CompiledGame:
    return gdl.load("connect4", {"cols": str(cols), "rows": str(rows)}, symmetry=symmetry)


@pytest.fixture(scope="module")
def ttt_book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("books") / "ttt.book"
    save_book(build_book(gdl.load("tictactoe"), 3), path)
    return path


@pytest.fixture(scope="module")
def c44_book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("books") / "c44.book"
    save_book(build_book(connect4(4, 4), 6), path)
    return path


def play(game: gdl.CompiledGame, moves: str):
    state = game.initial_state()
    for name in filter(None, moves.split(",")):
        state = game.apply(state, game.parse_move(state, name))
    return state


# ================================================================== building and files


def test_a_book_holds_every_position_within_its_plies_once():
    game = gdl.load("tictactoe")
    book = build_book(game, 3)
    levels = positions(game, 3)
    assert [len(level) for level in levels] == [1, 3, 12, 38]  # one per key: mirror images are one position
    assert len(book) == sum(map(len, levels)) and book.plies == 3 and book.exact
    assert set(book.values) == {game.key(s) for level in levels for s in level}


def test_exact_book_values_and_moves_are_the_exact_solvers():
    """Tic-tac-toe is small: solved whole, with distances, so its book moves are the perfect player's (value
    first, then a winner's fastest and a loser's slowest)."""
    game = gdl.load("tictactoe")
    book = build_book(game, 3)
    assert book.method == "backward"
    for state in itertools.chain.from_iterable(positions(game, 3)):
        solution = solve(game, state, plies=True)
        assert book.values[game.key(state)] == solution.value
        assert set(book.moves(game, state)) == set(solution.fastest_moves), game.render(state)


def test_big_duels_are_solved_position_by_position():
    """Connect-Four 4x4 has more states than SMALL_GRAPH: MTD(f) with one shared table; every value-keeping move."""
    game = connect4(4, 4)
    book = build_book(game, 2)
    assert book.method == "alphabeta"
    plain = connect4(4, 4, symmetry=False)
    for line in ("", "drop(a)", "drop(b)", "drop(a),drop(b)", "drop(b),drop(c)"):
        state = play(game, line)
        solution = solve(plain, play(plain, line))
        assert book.values[game.key(state)] == solution.value
        assert {str(m) for m in book.moves(game, state)} == {str(m) for m in solution.best_moves}


def test_symmetric_keys_give_each_mirror_image_its_own_moves():
    """A book entry is shared by mirror images; the moves it gives are legal and optimal in each image."""
    game = connect4(4, 4)
    book = build_book(game, 2)
    left, right = play(game, "drop(a),drop(b)"), play(game, "drop(d),drop(c)")
    assert game.key(left) == game.key(right)
    plain = connect4(4, 4, symmetry=False)
    for state, line in ((left, "drop(a),drop(b)"), (right, "drop(d),drop(c)")):
        found = {str(m) for m in book.moves(game, state)}
        assert found == {str(m) for m in solve(plain, play(plain, line)).best_moves}


def test_searched_book_is_the_depth_limited_search():
    game = connect4(4, 4)
    book = build_book(game, 2, depth=3)
    assert not book.exact and book.depth == 3 and book.method == "alphabeta depth 3"
    for state in itertools.chain.from_iterable(positions(game, 2)):
        result = alphabeta(game, state, Limits(depth=3))
        assert book.values[game.key(state)] == result.value
        # the searched move, and its mirror image where that leads to the same position (one key)
        assert {game.key(game.apply(state, m)) for m in book.moves(game, state)} == {
            game.key(game.apply(state, result.best_move))}


@pytest.mark.parametrize(("name", "params"), [("pig", {"goal": "6"}), ("nim", {}), (str(SHUTTLE), {})])
def test_graph_methods_make_books_for_chance_and_cycles(name, params):
    game = gdl.load(name, params)
    book = build_book(game, 2)
    for state in itertools.chain.from_iterable(positions(game, 2)):
        solution = solve(game, state)
        assert book.values[game.key(state)] == pytest.approx(solution.value, abs=1e-9)
        if game.to_move(state) >= 0:
            assert book.moves(game, state)[0] in solution.best_moves


def test_round_trip(tmp_path):
    game = connect4(4, 4)
    for depth in (None, 2):
        book = build_book(game, 3, depth=depth)
        path = tmp_path / f"book{depth}.sqlite"
        save_book(book, path)
        again = load_book(path, game)
        assert (again.values, again.best, again.plies, again.depth, again.method, again.players) == (
            book.values, book.best, book.plies, book.depth, book.method, book.players)
        assert is_book(path)


def test_saving_replaces_only_regular_files(tmp_path):
    book = build_book(gdl.load("nim"), 1)
    with pytest.raises(TableError, match="directory"):
        save_book(book, tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(TableError, match="FIFO"):
        save_book(book, fifo)
    target = tmp_path / "target.txt"
    target.write_text("do not overwrite")
    link = tmp_path / "link.book"
    link.symlink_to(target)
    save_book(book, link)  # the link is replaced, not what it points to
    assert target.read_text() == "do not overwrite" and load_book(link).game == "Nim"


def test_interrupted_build_raises_keyboard_interrupt():
    def stop(progress):
        if progress.done >= 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_book(connect4(4, 4), 4, progress=stop)


@pytest.mark.parametrize(("name", "depth"), [("connect4", None), ("connect4", 3), ("pig", None)])
def test_progress_counts_positions_and_nodes_upwards(name, depth):
    seen = []
    game = connect4(4, 4) if name == "connect4" else gdl.load("pig", {"goal": "8"})
    book = build_book(game, 4, depth=depth, progress=seen.append)
    assert seen[-1].done == seen[-1].total == len(book)
    assert all(a.nodes <= b.nodes and a.done <= b.done for a, b in itertools.pairwise(seen))
    assert seen[-1].nodes > 0


def test_too_many_positions_is_refused_before_any_search():
    with pytest.raises(TableError, match="more than 10 positions"):
        build_book(gdl.load("tictactoe"), 3, cap=10)


# ------------------------------------------------------------------ random games (hypothesis)

RANDOM = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def book_agrees_with_the_solver(game, plies: int) -> None:
    book = build_book(game, plies)
    for state in itertools.chain.from_iterable(positions(game, plies)):
        solution = solve(game, state)
        assert book.values[game.key(state)] == pytest.approx(solution.value, abs=1e-9)
        if game.to_move(state) >= 0:
            assert set(book.moves(game, state)) <= set(solution.best_moves)


@RANDOM
@given(trees(max_depth=5))
def test_random_duel_trees(tree: tuple) -> None:
    book_agrees_with_the_solver(as_game(tree), 3)


@RANDOM
@given(trees(players=3, chance=True, zero_sum=False))
def test_random_trees_with_chance_and_three_players(tree: tuple) -> None:
    book_agrees_with_the_solver(as_game(tree, players=3, zero_sum=False), 3)


@RANDOM
@given(graphs())
def test_random_cyclic_graphs(nodes: list) -> None:
    """Alpha-beta meets a cycle: the book falls back to retrograde analysis; a winner's book move makes progress."""
    game = GraphGame(nodes)
    book = build_book(game, 3)
    solution = solve(game, method="retrograde", plies=True)
    for state in itertools.chain.from_iterable(positions(game, 3)):
        key = game.key(state)
        assert book.values[key] == solution.table.values[key]
        if game.to_move(state) >= 0 and solution.table.plies.get(key, math.inf) < math.inf:
            move = book.moves(game, state)[0]
            child = game.apply(state, move)
            after = 0.0 if game.to_move(child) == TERMINAL else solution.table.plies[game.key(child)]
            assert after == solution.table.plies[key] - 1


@RANDOM
@given(trees(chance=True), st.integers(1, 3))
def test_a_table_never_changes_a_search_to_the_end(tree: tuple, plies: int) -> None:
    """Searched to the end, with or without an exact table: the same value (the table only cuts)."""
    game = as_game(tree)
    table = build_book(game, plies).as_table()
    root = game.initial_state()
    if game.to_move(root) < 0:
        return
    for spec in ("expectimax:depth=20", "minimax:depth=20") if game.has_chance else ("alphabeta:depth=20",
                                                                                    "minimax:depth=20"):
        plain = make_agent(game, spec)
        probe = TableProbe(game, table)
        agent = KnowingAgent(game, make_agent(probe, spec), spec, probe=probe)  # what table=FILE builds
        plain.choose(root)
        agent.choose(root)
        assert agent.last.value == pytest.approx(plain.last.value, abs=1e-9), spec
        # A position the table answers is a leaf, scored (and counted) at once; without the table the same child
        # may be cut before it is reached (found by hypothesis: a root whose second move wins at once). So the
        # states searched besides the table's answers are compared.
        assert agent.last.stats.nodes - probe.hits <= plain.last.stats.nodes, spec


# ================================================================== untrusted files


@pytest.fixture(scope="module")
def nim_book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("books") / "nim.book"
    save_book(build_book(gdl.load("nim"), 2), path)
    return path


@pytest.mark.parametrize("name", crafted_params())
def test_crafted_book_is_refused(tmp_path, nim_book, name):
    """Every crafted solved table of tests/crafted_tables.py, made from a book: a damaged book, one line."""
    path = tmp_path / "crafted.book"
    shutil.copy(nim_book, path)
    game = gdl.load("nim")
    db = sqlite3.connect(path)
    with db:
        CRAFTED[name](db, encode_key(game.key(game.initial_state())))
    db.close()
    with pytest.raises(CorruptTableError) as info:
        book = load_book(path, game)
        book.moves(game, game.initial_state())  # the damage may be in the root's entry
    message = str(info.value)
    assert "\n" not in message and "\x1b" not in message and len(message) < 400, message
    assert "book" in message


@pytest.mark.parametrize("content", [b"", b"not a database at all", b"SQLite format 3\x00" + b"\xff" * 200])
def test_a_file_that_is_not_a_book(tmp_path, content):
    path = tmp_path / "junk.book"
    path.write_bytes(content)
    with pytest.raises(BookError, match="book"):
        load_book(path)
    with pytest.raises(TableError):
        make_agent(gdl.load("nim"), f"alphabeta:depth=2,book={path}")


def test_wrong_files_are_told_apart(tmp_path, ttt_book):
    game = gdl.load("tictactoe")
    table = tmp_path / "solved.sqlite"
    assert main(["solve", "tictactoe", "--save", str(table)]) == 0
    with pytest.raises(BookError, match="is a solved table, not a book: give it as table=FILE"):
        load_book(table, game)
    with pytest.raises(StaleTableError, match="built for the game 'TicTacToe'"):
        load_book(ttt_book, gdl.load("nim"))
    with pytest.raises(FileNotFoundError):
        load_book(tmp_path / "missing.book")
    with pytest.raises(BookError, match="not a regular file"):
        load_book(tmp_path)
    searched = tmp_path / "searched.book"
    save_book(build_book(game, 2, depth=2), searched)
    with pytest.raises(TableError, match="depth-2 search, not exact values"):
        load_exact_table(searched, game)
    assert len(load_exact_table(ttt_book, game)) == len(load_book(ttt_book))  # an exact book is a table


def test_a_book_naming_no_legal_result_is_damaged(tmp_path, ttt_book):
    path = tmp_path / "bad.book"
    shutil.copy(ttt_book, path)
    game = gdl.load("tictactoe")
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE states SET best = '[[9,9,9]]' WHERE key = ?", (encode_key(game.key(game.initial_state())),))
    db.close()
    agent = make_agent(game, f"alphabeta:depth=1,book={path}")
    with pytest.raises(BookError, match="damaged book"):
        agent.choose(game.initial_state())


# ================================================================== agents


def test_book_agent_plays_from_the_book_then_searches(ttt_book):
    game = gdl.load("tictactoe")
    agent = make_agent(game, f"alphabeta:depth=1,book={ttt_book}")
    state = game.initial_state()
    book = load_book(ttt_book, game)
    for ply in range(6):
        move = agent.choose(state)
        in_book = ply <= 3
        assert (agent.last.algorithm == "book") == in_book, ply
        if in_book:
            assert move == book.moves(game, state)[0]
        state = game.apply(state, move)
    assert agent.from_book == 4


def test_every_searching_agent_takes_book_and_table(ttt_book):
    game = gdl.load("tictactoe")
    for name in ("minimax:depth=2", "alphabeta:depth=2", "expectimax:depth=2", "mcts:iterations=50", "perfect"):
        sep = "," if ":" in name else ":"
        agent = make_agent(game, f"{name}{sep}book={ttt_book}", seed=1)
        agent.choose(game.initial_state())
        assert agent.last.algorithm == "book", name
        if name != "perfect":  # perfect:table= is its own (exact play from the table)
            agent = make_agent(game, f"{name}{sep}table={ttt_book}", seed=1)
            assert agent.choose(game.initial_state()) in game.legal_moves(game.initial_state())
            assert agent.probe.hits > 0, name
    with pytest.raises(ValueError, match="no option 'book'"):
        make_agent(game, f"random:book={ttt_book}")


def exact_value(game, state) -> float:
    return solve(game, state).value[0]


@pytest.mark.parametrize("spec", ["alphabeta:depth=14", "alphabeta:depth=4", "minimax:depth=4", "mcts:iterations=400"])
def test_a_table_cuts_the_nodes_searched(c44_book, spec):
    """From a Connect-Four 4x4 position three plies in, the table (an exact six-ply book) answers the
    positions three plies down: far fewer nodes, and a move that keeps the exact value."""
    game = connect4(4, 4)
    state = play(game, "drop(a),drop(b),drop(a)")
    plain, probed = make_agent(game, spec, seed=3), make_agent(game, f"{spec},table={c44_book}", seed=3)
    plain_move, probed_move = plain.choose(state), probed.choose(state)
    assert probed.probe.hits > 0
    assert probed.last.stats.nodes * 10 < plain.last.stats.nodes, (probed.last.stats, plain.last.stats)
    value = exact_value(game, state)
    assert exact_value(game, game.apply(state, probed_move)) == value  # the table's move keeps the value
    if spec == "alphabeta:depth=14":  # both search to the end: the same exact value
        assert plain.last.exact and probed.last.exact
        assert plain.last.value == probed.last.value == (value, -value)
        assert exact_value(game, game.apply(state, plain_move)) == value


def test_a_solved_table_from_gdl_solve_is_probed(tmp_path):
    path = tmp_path / "ttt.sqlite"
    assert main(["solve", "tictactoe", "--moves", "place(b2)", "--save", str(path)]) == 0
    game = gdl.load("tictactoe")
    state = play(game, "place(b2),place(a1)")
    plain, probed = make_agent(game, "alphabeta:depth=7"), make_agent(game, f"alphabeta:depth=7,table={path}")
    plain.choose(state)
    probed.choose(state)
    assert probed.probe.hits > 0 and probed.last.stats.nodes < plain.last.stats.nodes
    assert probed.last.value == plain.last.value == (0.0, 0.0)


def test_the_root_is_never_cut(ttt_book):
    """The position the search starts at is in the table: the agent still chooses a move, an optimal one."""
    game = gdl.load("tictactoe")
    agent = make_agent(game, f"alphabeta:depth=1,table={ttt_book}")
    state = play(game, "place(a1)")
    move = agent.choose(state)
    assert exact_value(game, game.apply(state, move)) == 0.0


# ================================================================== Connect-Four 5x4


def _proven(search: NegamaxSearch, game, state, at_least_for: int, value: float) -> bool:
    """Is ``state``'s exact value at least ``value`` for player ``at_least_for``? (an independent search)"""
    if game.to_move(state) == TERMINAL:
        return game.utilities(state)[at_least_for] >= value
    if at_least_for == 0:
        return at_least(search, state, value)
    return at_most(search, state, -value)


OPPONENTS = [("random", 1), ("random", 2), ("random", 3), ("alphabeta:depth=4", 0), ("mcts:iterations=200", 4)]


def never_loses_an_opening(cols: int, rows: int, plies: int, tmp_path: Path) -> int:
    """``alphabeta:depth=2,book=...`` against every line of the opponent within the book's plies, in
    either seat: each position it moves to keeps the solved value of the game (a draw), as a separate
    search on the game without mirror symmetry proves. Then full games from those openings against
    several opponents: it leaves the book unbeaten, and it never loses to the random ones.
    Returns how many book moves were checked."""
    game, plain = connect4(cols, rows), connect4(cols, rows, symmetry=False)
    path = tmp_path / "c4.book"
    assert main(["book", "connect4", "-p", f"cols={cols}", "-p", f"rows={rows}", "--plies", str(plies),
                 "--save", str(path)]) == 0
    book = load_book(path, game)
    assert book.values[game.key(game.initial_state())] == (0.0, 0.0)  # both sizes are draws
    oracle = NegamaxSearch(plain, Budget(Limits()))
    checked = 0
    for seat in (0, 1):
        agent = make_agent(game, f"alphabeta:depth=2,book={path}")
        lines = [""]
        while lines:
            line = lines.pop()
            state = play(game, line)
            ply = len(line.split(",")) if line else 0
            if ply > plies or game.to_move(state) == TERMINAL:
                continue
            if game.to_move(state) == seat:
                move = agent.choose(state)
                assert agent.last.algorithm == "book"  # every position it meets within the plies is covered
                after = play(plain, f"{line},{move}".strip(","))
                assert _proven(oracle, plain, after, seat, 0.0), f"{line},{move} loses"
                checked += 1
                lines.append(f"{line},{move}".strip(","))
            else:
                lines.extend(f"{line},{m}".strip(",") for m in game.legal_moves(state))
    for seat, (opponent, seed) in itertools.product((0, 1), OPPONENTS):
        agent = make_agent(game, f"alphabeta:depth=2,book={path}")
        other = make_agent(game, opponent, seed=seed)
        seated = [agent, other] if seat == 0 else [other, agent]
        record = play_game(game, seated, (0, 1), random.Random(seed))
        assert agent.from_book == len(range(seat, plies + 1, 2))  # each of its turns within the plies
        assert _proven(oracle, plain, play(plain, ",".join(map(str, record.moves[:plies + 1]))), seat, 0.0)
        if opponent == "random":
            assert record.utilities[seat] >= 0, (seat, opponent, record.moves)
    return checked


def test_book_agent_never_loses_a_connect4_4x4_opening_it_covers(tmp_path):
    """Red at plies 0, 2, 4 and Yellow at 1, 3 of a 4-ply book on 4x4 (a draw). (The same on 5x4, a 3-ply book,
    proved nothing more in ten times the time.)"""
    assert never_loses_an_opening(4, 4, 4, tmp_path) == (1 + 4 + 16) + (4 + 16)


def test_expectimax_probes_a_table_with_chance(tmp_path):
    """Pig (dice): a solved table from `gdl solve --save` ends expectimax's branches at tabled states."""
    path = tmp_path / "pig.sqlite"
    assert main(["solve", "pig", "-p", "goal=6", "--save", str(path)]) == 0
    game = gdl.load("pig", {"goal": "6"})
    state = game.initial_state()
    plain, probed = make_agent(game, "expectimax:depth=6"), make_agent(game, f"expectimax:depth=6,table={path}")
    plain.choose(state)
    move = probed.choose(state)
    assert probed.probe.hits > 0 and probed.last.stats.nodes < plain.last.stats.nodes
    assert str(move) in {str(m) for m in solve(game, state).best_moves}


# ================================================================== the command


def test_gdl_book_builds_and_reports(tmp_path, capsys):
    path = tmp_path / "ttt.book"
    assert main(["book", "tictactoe", "--plies", "2", "--save", str(path)]) == 0
    out = capsys.readouterr().out
    assert "a book of 16 positions within 2 plies of the start: exact values" in out
    assert f"saved to {path}" in out
    assert main(["book", "connect4", "-p", "cols=4", "-p", "rows=4", "--plies", "1", "--depth", "2", "--save",
                 str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # the empty board, an edge column and a middle one (mirror images are one position)
    assert report["exact"] is False and report["depth"] == 2 and report["positions"] == 3
    assert report["parameters"]["cols"] == 4 and report["best_moves"]
    assert load_book(path).depth == 2


def test_gdl_book_help(capsys):
    assert main(["book", "--help"]) == 0
    text = capsys.readouterr().out
    for word in ("--plies", "--depth", "--save", "--max-positions", "book=FILE"):
        assert word in text
    assert main(["play", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "book=FILE" in text and "table=FILE" in text


@pytest.mark.parametrize(("argv", "message"), [
    (["--plies", "-1"], "--plies must be at least 0"),
    (["--plies", "1", "--depth", "0"], "--depth must be at least 1"),
    (["--plies", "3", "--max-positions", "5"], "more than 5 positions"),
])
def test_gdl_book_usage_errors(tmp_path, capsys, argv, message):
    assert main(["book", "tictactoe", *argv, "--save", str(tmp_path / "x.book")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "x.book").exists()


def test_gdl_book_save_targets(tmp_path, capsys):
    assert main(["book", "nim", "--plies", "1", "--save", str(tmp_path)]) == 2
    assert "is a directory; a book is saved only as a regular file" in capsys.readouterr().err
    assert main(["book", "nim", "--plies", "1", "--save", str(tmp_path / "no" / "x.book")]) == 2
    assert "no directory" in capsys.readouterr().err


def test_gdl_book_ctrl_c_saves_nothing(tmp_path, capsys, monkeypatch):
    import gdl.cli.book as cli_book

    real = cli_book.build_book

    def interrupted(*args, **kwargs):
        def stop(progress):
            if progress.done >= 2:
                raise KeyboardInterrupt
        return real(*args, **{**kwargs, "progress": stop})

    monkeypatch.setattr(cli_book, "build_book", interrupted)
    path = tmp_path / "kept.book"
    path.write_text("the old file")
    assert main(["book", "connect4", "-p", "cols=4", "-p", "rows=4", "--plies", "3", "--save", str(path)]) == 130
    assert "interrupted: no book saved" in capsys.readouterr().err
    assert path.read_text() == "the old file"
    assert main(["book", "nim", "--plies", "3", "--save", str(path), "--json"]) == 130
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "interrupted"
    assert path.read_text() == "the old file"


def test_play_and_match_with_a_book_agent(ttt_book, tmp_path, capsys):
    assert main(["play", "tictactoe", "--as", "none", "--vs", f"alphabeta:depth=2,book={ttt_book}",
                 "--vs", "random"]) == 0
    assert "utilities" in capsys.readouterr().out
    assert main(["match", "tictactoe", f"alphabeta:depth=2,book={ttt_book}", f"mcts:iterations=50,table={ttt_book}",
                 "--games", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["game_log"]) == 2


@pytest.mark.parametrize(("spec", "message"), [
    ("alphabeta:depth=2,book={missing}", "alphabeta: cannot use book"),
    ("alphabeta:depth=2,book={junk}", "is not a gdl book"),
    ("minimax:depth=2,table={searched}", "not exact values"),
    ("alphabeta:depth=2,book={other}", "built for the game 'ConnectFour'"),
])
def test_bad_books_are_one_line_errors(tmp_path, capsys, spec, message):
    junk = tmp_path / "junk.book"
    junk.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    searched, other = tmp_path / "searched.book", tmp_path / "other.book"
    save_book(build_book(gdl.load("tictactoe"), 1, depth=1), searched)
    save_book(build_book(connect4(4, 4), 1), other)
    spec = spec.format(missing=tmp_path / "missing.book", junk=junk, searched=searched, other=other)
    assert main(["play", "tictactoe", "--as", "none", "--vs", spec, "--vs", "random"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if "error" in line]) == 1

