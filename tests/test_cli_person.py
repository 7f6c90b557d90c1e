"""Play and solve as a person would: board labels as move names, win probabilities, undo that keeps the dice.

The pty tests run the real ``gdl`` executable (as tests/test_cli_e2e.py does); the rest run in process.
"""

from __future__ import annotations

import json
import os
import re
import shutil

import pexpect
import pytest

import gdl
from gdl.cli import main
from gdl.moves import match_move
from solver.game import AmbiguousMoveError, IllegalMoveError, UnknownMoveError, play_moves

GDL = shutil.which("gdl")
needs_gdl = pytest.mark.skipif(GDL is None, reason="the gdl console script is not installed (pip install -e .)")
ENV = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def spawn(*args: str) -> pexpect.spawn:
    assert GDL is not None
    return pexpect.spawn(GDL, list(args), env=ENV, encoding="utf-8", timeout=60, dimensions=(40, 100))


def plain(text: str | None) -> str:
    """Terminal output without its styles (NO_COLOR drops colours, not bold or dim)."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text or "").replace("\r\n", "\n")


# ------------------------------------------------------------ board labels


def test_connect4_moves_are_named_by_the_column_letters():
    game = gdl.load("connect4")
    start = game.initial_state()
    assert [str(m) for m in game.legal_moves(start)] == [f"drop({c})" for c in "abcdefg"]
    fourth = game.legal_moves(start)[3]
    for text in ("drop(d)", "DROP(D)", "drop( d )", "drop(3)"):  # drop(3): the name before columns had letters
        assert game.parse_move(start, text) is fourth
    with pytest.raises(IllegalMoveError):
        game.parse_move(start, "drop(h)")  # no eighth column
    with pytest.raises(IllegalMoveError):
        game.parse_move(start, "drop(7)")
    with pytest.raises(UnknownMoveError):
        game.parse_move(start, "push(d)")


def test_a_column_or_row_parameter_reads_and_prints_as_the_board_labels_it():
    game = gdl.load_source("""game Lines "Mark a whole row or column"
players A, B
board 3 x 4
state done[cell]: bool = false
move mark_column(x: column, r: row) when not done[cell(r, x)]:
    for c in cells_in_column(x): done[c] = true
move mark_row(r: row):
    for c in cells_in_row(r): done[c] = true
terminal when all c in cell: done[c]
utility p: 0
""")
    start = game.initial_state()
    names = [str(m) for m in game.legal_moves(start)]
    assert names[:3] == ["mark_column(a,1)", "mark_column(a,2)", "mark_column(a,3)"]
    assert names[-3:] == ["mark_row(1)", "mark_row(2)", "mark_row(3)"]
    assert str(game.parse_move(start, "MARK_COLUMN(D,3)")) == "mark_column(d,3)"
    assert str(game.parse_move(start, "mark_column(3,3)")) == "mark_column(d,3)"  # a column's index reads too
    after = game.apply(start, game.parse_move(start, "mark_column(b,1)"))
    done = game.values(after)["done"]  # cell by cell, row by row from a1
    assert [i for i, v in enumerate(done) if v == "true"] == [1, 5, 9]  # column b, every row


def test_a_column_in_the_state_prints_as_its_letter():
    game = gdl.load_source("""game Pick "Pick each column once"
players A, B
board 2 x 3
state last: column = 0
state picked[column]: bool = false
move pick(x: column) when not picked[x]:
    picked[x] = true
    last = x
terminal when all x in column: picked[x]
utility p: last - 1
""")
    state = play_moves(game, ["pick(c)"])
    assert game.values(state)["last"] == "c" and "last: c" in game.render(state)
    state = play_moves(game, ["pick(a)", "pick(b)"], state)
    assert game.utilities(state) == (0, 0)  # inside the rules `last` is the number 1


def test_the_prompt_reads_arguments_alone_in_any_case():
    game = gdl.load("tictactoe")
    state = play_moves(game, ["place(b2)"])
    assert str(match_move(game, state, "A1")) == "place(a1)"
    assert str(match_move(game, state, "PLACE(C3)")) == "place(c3)"
    with pytest.raises(IllegalMoveError, match=r"place\(b2\) is not legal"):
        match_move(game, state, "B2")
    with pytest.raises(AmbiguousMoveError):
        match_move(game, state, "PL")
    connect4 = gdl.load("connect4")
    start = connect4.initial_state()
    assert str(match_move(connect4, start, "d")) == "drop(d)"  # not "could be 7 moves" (a prefix of drop)
    assert str(match_move(connect4, start, "D")) == "drop(d)"
    assert str(match_move(connect4, start, "3")) == "drop(d)"


def test_moves_option_reads_moves_as_the_prompt_does(capsys):
    code, out, err = run(capsys, "solve", "tictactoe", "--moves", "b2,A1", "--json")
    assert code == 0, err
    assert json.loads(out)["moves"] == ["place(b2)", "place(a1)"]
    code, out, err = run(capsys, "solve", "connect4", "-p", "cols=4", "-p", "rows=4", "--moves", "d,D,drop(3),a",
                         "--json")
    assert code == 0, err
    assert json.loads(out)["moves"] == ["drop(d)", "drop(d)", "drop(d)", "drop(a)"]
    code, _, err = run(capsys, "solve", "tictactoe", "--moves", "b2,B2")
    assert code == 2 and "move 2: place(b2) is not legal here" in err


@needs_gdl
def test_typing_d_plays_the_fourth_column_of_connect4():
    child = spawn("play", "connect4", "--vs", "random", "--seed", "3")
    try:
        child.expect(r"Red> ")
        child.sendline("d")
        child.expect(r"Red> ")
        screen = plain(child.before)
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert "could be" not in screen and "error" not in screen
    assert re.search(r"^ +1 (?:[.O] ){3}X", screen, re.MULTILINE), screen  # X at the foot of column d
    assert child.exitstatus == 0


# ------------------------------------------------------------ values as probabilities


@needs_gdl
def test_solve_pig_prints_the_win_probability():
    child = spawn("solve", "pig", "-p", "goal=10")
    try:
        child.expect(pexpect.EOF)
    finally:
        child.close()
    screen = plain(child.before)
    assert child.exitstatus == 0, screen
    # Neller & Presser: the first player wins Pig to 10 with probability 0.709424.
    assert "exact value: A wins with probability 0.709424, B with 0.290576" in screen
    assert "A 0.418849, B -0.418849, which is 2p - 1" in screen  # the utilities, explained
    assert re.search(r"^  roll +0\.709424 ", screen, re.MULTILINE), screen  # the move table too
    assert "principal variation: roll, then chance (d=1 ... d=6)" in screen  # no arbitrary die faces
    assert "d=1,roll" not in screen


def test_solve_json_adds_win_probabilities_and_stops_the_line_at_chance(capsys):
    code, out, _ = run(capsys, "solve", "race", "-p", "goal=10", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["win_probability"]["Red"] == pytest.approx(0.688653, abs=1e-6)  # meta value of race.gdl
    assert report["win_probability"]["Red"] + report["win_probability"]["Blue"] == pytest.approx(1)
    assert report["value"]["Red"] == pytest.approx(2 * 0.688653 - 1, abs=2e-6)
    assert report["principal_variation"] == report["best_moves"][:1]  # then the dice
    code, out, _ = run(capsys, "solve", "tictactoe", "--json")
    assert "win_probability" not in json.loads(out)  # draws possible, no chance: values stay values


def test_hint_and_info_speak_of_probabilities(capsys, monkeypatch):
    lines = iter(["hint", "quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))
    code, out, _ = run(capsys, "play", "pig", "-p", "goal=10", "--vs", "random", "--seed", "1")
    assert code == 0
    assert "hint: roll  (the solver proves: A wins with probability 0.709424)" in out
    code, out, _ = run(capsys, "info", "pig", "-p", "goal=10", "--playouts", "5")
    assert code == 0 and "win probabilities p (a value is 2p - 1)" in out
    code, out, _ = run(capsys, "info", "tictactoe", "--playouts", "5", "--json")
    assert json.loads(out)["values_as_probabilities"] is False


# ------------------------------------------------------------ undo keeps the dice


def _roll(child: pexpect.spawn) -> str:
    child.sendline("roll")
    style = r"(?:\x1b\[[0-9;]*m)*"  # NO_COLOR keeps bold and dim
    child.expect(rf"chance: {style}(d=\d){style}  \(probability")  # the outcome, not the status line's list
    outcome = child.match.group(1)
    child.expect(r"A> ")
    return outcome


@needs_gdl
def test_undo_after_a_roll_then_rolling_again_replays_the_same_outcome():
    # No --seed: a random one, shown. Goal 100: after a 1, B (random) cannot win before A's turn comes back.
    child = spawn("play", "pig", "-p", "goal=100", "--vs", "random")
    try:
        child.expect(r"chance outcomes from seed (\d+)")
        seed = child.match.group(1)
        child.expect(r"A> ")
        first = _roll(child)
        outcomes = [first]
        for _ in range(4):
            child.sendline("undo")
            child.expect(r"took back your last move")
            child.expect(r"A> ")
            outcomes.append(_roll(child))
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert outcomes == [first] * 5
    # The seed shown gives the same first roll in a new game.
    again = spawn("play", "pig", "-p", "goal=100", "--vs", "random", "--seed", seed)
    try:
        again.expect(r"A> ")
        assert _roll(again) == first
        again.sendline("quit")
        again.expect(pexpect.EOF)
    finally:
        again.close()


# ------------------------------------------------------------ rules and boards on screen


def test_info_race_explains_sprint(capsys):
    code, out, _ = run(capsys, "info", "race", "--playouts", "0")
    assert code == 0
    rules = out.split("rules", 1)[1].split("parameters", 1)[0]
    assert "sprint" in rules and "roll one die and move twice its value" in " ".join(rules.split())
    code, out, _ = run(capsys, "info", "race", "--playouts", "0", "--json")
    paragraphs = json.loads(out)["rules"]
    assert paragraphs[0].startswith("Dice race: ") and '"sprint": roll one die' in paragraphs[0]
    assert paragraphs[1:] == ["Source: an original teaching game for gdl.", "Parameter: goal (default 20)."]


def test_a_rule_file_without_a_header_comment_says_so(capsys, tmp_path):
    path = tmp_path / "bare.gdl"
    path.write_text("game Bare\nplayers A\nstate n: 0..1 = 0\nmove go when n == 0: n = 1\nwin A when n == 1\n")
    code, out, _ = run(capsys, "info", str(path), "--playouts", "0")
    assert code == 0 and "not written (the comment at the top of the rule file)" in out


@needs_gdl
def test_rules_at_the_prompt_print_the_rule_files_prose():
    child = spawn("play", "pig", "--vs", "random", "--seed", "1")
    try:
        child.expect(r"`rules`")
        child.expect(r"A> ")
        child.sendline("rules")
        child.expect(r"A> ")
        screen = " ".join(plain(child.before).split())
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert "Pig: on your turn, roll a die as often as you like." in screen
    assert "Known value: goal 10, first player wins with probability 0.709424." in screen


@needs_gdl
def test_the_board_colours_each_players_pieces_on_a_terminal():
    env = {k: v for k, v in ENV.items() if k != "NO_COLOR"}
    env["TERM"] = "xterm-256color"
    child = pexpect.spawn(GDL, ["play", "tictactoe", "--vs", "random", "--seed", "2"], env=env, encoding="utf-8",
                          timeout=60, dimensions=(40, 100))
    try:
        child.expect(r"X> ")
        child.sendline("b2")
        child.expect(r"X> ")
        screen = child.before.replace("\r\n", "\n")
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    red, yellow, dim = "\x1b[1;31m", "\x1b[1;33m", "\x1b[2m"
    board = screen[screen.rindex(f"{dim} 3 "):]  # the board after O's reply
    assert f"{red}X" in board and f"{yellow}O" in board  # X in the first player's colour, O in the second's
    assert f"{dim} 2 " in board and f"{dim}   a b c" in board  # row labels and column letters dim


def test_a_roll_is_one_line_not_the_whole_distribution(capsys, monkeypatch):
    lines = iter(["roll", "quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))
    code, out, _ = run(capsys, "play", "pig", "--vs", "random", "--seed", "1")
    assert code == 0
    assert re.search(r"^chance: d=\d  \(probability 0\.1667\)$", out, re.MULTILINE), out
    assert "d=1 (0.1667), d=2" not in out  # a chance state's board (its status lists every outcome) is not drawn


@needs_gdl
def test_play_kalah_shows_pits_and_stores():
    child = spawn("play", "kalah", "--vs", "random", "--seed", "1")
    try:
        child.expect(r"South> ")
        child.sendline("sow(2)")  # the last seed lands in South's store: South moves again
        child.expect(r"South> ")
        screen = plain(child.before)
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert "board:" not in screen  # not the flat list of 14 numbers
    drawn = "\n".join(line.rstrip() for line in screen.split("\n"))
    assert ("          5 4 3 2 1 0\n"
            "North [0] 4 4 4 4 4 4\n"
            "          4 4 0 5 5 5 [1] South\n"
            "          0 1 2 3 4 5\n"
            "to move: South") in drawn, drawn


# ------------------------------------------------------------ a game without a heuristic (issue 16)


@pytest.mark.slow
@needs_gdl
def test_hint_in_a_game_without_a_heuristic_blocks_by_mcts_not_the_first_column():
    # Yellow has three in column g; Red must block. Connect-Four has no heuristic: a depth-limited
    # search would score every move 0 and hint the first column; the hint's fallback is MCTS.
    child = spawn("play", "connect4", "--vs", "random", "--moves", "a,g,b,g,a,g")
    try:
        child.expect(r"Red> ")
        child.sendline("hint")
        child.expect(r"hint: (\S+)", timeout=60)
        hinted = child.match.group(1)
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert plain(hinted).startswith("drop(g)"), hinted


@needs_gdl
def test_info_race_explains_sprint_in_a_terminal():
    child = spawn("info", "race", "--playouts", "0")
    try:
        child.expect(pexpect.EOF)
    finally:
        child.close()
    text = " ".join(plain(child.before).split())
    assert "sprint" in text and "roll one die and move twice its value" in text
