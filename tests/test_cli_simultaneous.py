"""``gdl play`` on a simultaneous-move game in a real terminal (a pty): no choice is shown before every one is in."""

from __future__ import annotations

import os
import re
import shutil

import pexpect
import pytest

GDL = shutil.which("gdl")
pytestmark = pytest.mark.skipif(GDL is None, reason="the gdl console script is not installed (pip install -e .)")
ENV = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}


def spawn(*args: str) -> pexpect.spawn:
    assert GDL is not None
    return pexpect.spawn(GDL, list(args), env=ENV, encoding="utf-8", timeout=60, dimensions=(40, 100))


def plain(text: str | None) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text or "").replace("\r\n", "\n")


def test_against_an_agent_its_choice_is_shown_only_after_yours() -> None:
    child = spawn("play", "rps", "--vs", "random", "--seed", "4")
    try:
        child.expect(r"Row> ")
        before = plain(child.before)
        child.sendline("play(paper)")
        child.expect(pexpect.EOF)
        after = plain(child.before)
    finally:
        child.close()
    assert "Column has chosen (hidden until every choice is in)" in before
    assert not re.search(r"play\((rock|paper|scissors)\)", before), before  # nothing of Column's choice yet
    revealed = re.search(r"revealed: Row play\(paper\), Column play\((rock|paper|scissors)\)", after)
    assert revealed, after
    assert child.exitstatus == 0


def test_two_people_at_one_terminal_type_their_choices_unseen() -> None:
    child = spawn("play", "rps", "--as", "all")
    try:
        child.expect(r"Row \(hidden\)> ")
        child.sendline("play(scissors)")
        child.expect(r"Column \(hidden\)> ")
        between = plain(child.before)
        child.sendline("play(rock)")
        child.expect(pexpect.EOF)
        after = plain(child.before)
    finally:
        child.close()
    assert "Row has chosen (hidden)" in between
    assert "scissors" not in between, between  # Row's choice was not echoed: Column cannot read it
    assert "rock" not in after.split("revealed:")[0], after  # nor Column's
    assert "revealed: Row play(scissors), Column play(rock)" in after
    assert "Column wins" in after
    assert child.exitstatus == 0


def test_a_round_takes_the_turn_based_commands_and_abbreviations() -> None:
    # `hint`, `rules` and `rock` alone were refused as "not a move of RPS", though the prompt advertised them
    child = spawn("play", "rps", "--vs", "random", "--seed", "4")
    try:
        child.expect(r"Row> ")
        child.sendline("hint")
        child.expect(r"Row> ")
        hint = plain(child.before)
        child.sendline("rules")
        child.expect(r"Row> ")
        rules = plain(child.before)
        child.sendline("moves")
        child.expect(r"Row> ")
        moves = plain(child.before)
        child.sendline("ROCK")
        child.expect(pexpect.EOF)
        after = plain(child.before)
    finally:
        child.close()
    assert "hint: play(rock) 0.333333, play(paper) 0.333333, play(scissors) 0.333333" in hint
    assert "the solver proves: value 0 for Row" in hint
    assert "Rock, paper, scissors: both players show a hand at once" in rules
    assert "legal moves: play(rock), play(paper), play(scissors)" in moves
    assert "error" not in hint + rules + moves
    assert re.search(r"revealed: Row play\(rock\), Column play\((rock|paper|scissors)\)", after), after
    assert child.exitstatus == 0


def test_undo_takes_back_the_last_round() -> None:
    child = spawn("play", "goofspiel", "-p", "cards=3", "--vs", "random", "--seed", "1")
    try:
        child.expect(r"A> ")
        child.sendline("undo")  # nothing yet: the round goes on
        child.expect(r"A> ")
        nothing = plain(child.before)
        child.sendline("3")  # `play(3)` by its argument alone, as `b2` is in a turn-based game
        child.expect(r"A> ")
        first = plain(child.before)
        child.sendline("undo")
        child.expect(r"A> ")
        undone = plain(child.before)
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert "nothing to undo" in nothing and "has chosen" not in nothing
    assert re.search(r"revealed: A play\(3\), B play\([123]\)", first), first
    assert "took back your last round" in undone
    assert "round: 0" in undone and "round: 1" not in undone  # the board before the first round, again
    assert child.exitstatus == 0
