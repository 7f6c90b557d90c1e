"""Boards drawn from the game's structure (gdl.view, gdl.cli.render): the same text as ``render()``, coloured by
whose each piece is, whatever symbols the rule file draws."""

from __future__ import annotations

import random

import pytest

import gdl
from gdl.cli.render import board_text, player_style
from gdl.view import view_text
from solver.game import CHANCE, TERMINAL

BUNDLED = sorted(path.stem for path in gdl.bundled_games())


def _states(game: gdl.CompiledGame, seed: int, playouts: int = 3, plies: int = 30) -> list[tuple]:
    """The states along a few seeded random playouts."""
    rng = random.Random(seed)
    out = []
    for _ in range(playouts):
        state = game.initial_state()
        for _ in range(plies):
            out.append(state)
            player = game.to_move(state)
            if player == TERMINAL:
                break
            moves = [o for o, _ in game.chance_outcomes(state)] if player == CHANCE else game.legal_moves(state)
            state = game.apply(state, rng.choice(moves))
    return out


DRAWN_OTHERWISE = {"dots_and_boxes", "kalah"}
"""Games whose state the terminal draws in a shape of its own (edges between dots, pits and stores), not as
``render()`` does."""


@pytest.mark.parametrize("name", BUNDLED)
def test_the_structured_drawing_is_the_games_own_text(name: str) -> None:
    game = gdl.load(name)
    for state in _states(game, seed=len(name)):
        expected = game.render(state)
        assert view_text(game.view(state)) == expected
        if name not in DRAWN_OTHERWISE:
            assert board_text(game, state).plain == expected  # colour adds styles, never text


def test_dots_and_boxes_draws_the_lines_between_dots_and_the_boxes_owners() -> None:
    game = gdl.load("dots_and_boxes")  # 2 x 2 boxes
    state = game.initial_state()
    for name in ["horizontal(0,0)", "vertical(0,0)", "horizontal(1,0)", "vertical(0,1)"]:  # A, B, A, B: box (0,0)
        state = game.apply(state, game.parse_move(state, name))
    text = board_text(game, state)
    lines = text.plain.split("\n")
    assert [line.rstrip() for line in lines[:5]] == [
        "   +---+   +",
        "   | B |",
        "   +---+   +",
        "",
        "   +   +   +",
    ]
    assert lines[5:] == ["to move: B"]  # h, v and owner are all in the picture: no `h: true false / ...` lines
    assert _style_at(text, len(lines[0]) + 1 + len("   | ")) == player_style(1)  # B's box in B's colour


def _style_at(text, index: int) -> str:
    """The style of the character at ``index`` (the innermost span covering it)."""
    styles = [str(span.style) for span in text.spans if span.start <= index < span.end]
    return styles[-1] if styles else ""


# A's pieces are drawn "1" (like a row label) and B has no symbol at all (its name's first letter is drawn).
ODD_SYMBOLS = """game Odd
players Ann, Bob
board 2 x 2
state mark[cell]: player? = none
state score[player]: 0..9 = 0
state last: player? = none
move put(c: cell) when mark[c] == none:
    mark[c] = mover
    score[mover] += 1
    last = mover
draw when all c in cell: mark[c] != none
render mark: Ann "1", none "."
"""


def test_pieces_are_coloured_by_their_owner_not_by_their_symbol() -> None:
    game = gdl.load_source(ODD_SYMBOLS, "odd.gdl")
    state = game.apply(game.initial_state(), game.parse_move(game.initial_state(), "put(a2)"))  # Ann
    state = game.apply(state, game.parse_move(state, "put(b1)"))  # Bob
    text = board_text(game, state)
    lines = text.plain.split("\n")
    assert lines[:3] == [" 2 1 .", " 1 . B", "   a b"]
    start = [len(line) + 1 for line in lines]
    top, bottom = 0, start[0]
    assert _style_at(text, top + 1) == "dim"  # the row label "2"
    assert _style_at(text, top + 3) == player_style(0)  # Ann's "1"
    assert _style_at(text, top + 5) == ""  # an empty cell
    assert _style_at(text, bottom + 1) == "dim"  # the row label "1", the same character as Ann's piece
    assert _style_at(text, bottom + 5) == player_style(1)  # Bob's piece, which has no render symbol
    # The per-player array names each player in their colour; a player value is in its player's colour.
    score = lines.index("score: Ann=1  Bob=1")
    offset = sum(start[:score])
    assert _style_at(text, offset + len("score: ")) == player_style(0)
    assert _style_at(text, offset + len("score: Ann=1  ")) == player_style(1)
    last = lines.index("last: Bob")
    assert _style_at(text, sum(start[:last]) + len("last: ")) == player_style(1)
    assert lines[-1] == "to move: Ann"
    assert _style_at(text, sum(start[:-1]) + len("to move: ")) == player_style(0)


def test_state_variables_and_actions_are_public_facts() -> None:
    game = gdl.load_source(ODD_SYMBOLS, "odd.gdl")
    assert game.actions == ("put",)
    shapes = {v.name: (v.shape, v.low, v.high, v.size) for v in game.state_variables()}
    assert shapes == {"mark": ((4,), -1, 1, 4), "score": ((2,), 0, 9, 2), "last": ((), -1, 1, 1)}
    assert gdl.load("tictactoe").declared_symmetries  # the rule file's `symmetry` line, by name


SOWING = """game Sowing
meta layout = "mancala pit"
players South, North
state pit[0..5]: 0..12 = 2
setup:
    pit[2] = 0
    pit[5] = 0
move take(i: 0..1) when pit[i + (0 if mover == South else 3)] > 0:
    let at = i + (0 if mover == South else 3)
    pit[(2 if mover == South else 5)] += pit[at]
    pit[at] = 0
terminal when pit[0] + pit[1] == 0 or pit[3] + pit[4] == 0
utility p: pit[2 if p == South else 5]
"""


def test_a_mancala_layout_draws_pits_and_stores() -> None:
    game = gdl.load_source(SOWING, "sowing.gdl")
    state = game.apply(game.initial_state(), game.parse_move(game.initial_state(), "take(1)"))  # South's 2nd pit
    text = board_text(game, state)
    assert text.plain.split("\n") == [
        "          1 0",
        "North [0] 2 2",
        "          2 0 [2] South",
        "          0 1",
        "to move: North",
    ]
    assert _style_at(text, text.plain.index("[2]") + 1) == player_style(0)  # South's store in South's colour
    assert _style_at(text, text.plain.index("[0]") + 1) == player_style(1)


def test_a_card_game_shows_the_cards_held_and_the_prize(capsys) -> None:
    # the hands were `true true true / true true true` and the prize card was nowhere
    from gdl.cli import main

    code = main(["play", "goofspiel", "-p", "cards=3", "--as", "none", "--vs", "random", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert "hand: A={1, 2, 3}  B={1, 2, 3}" in out and "prize: 3" in out and "prize: 2" in out
    assert "hand: A={}  B={}" in out  # the game's end: every card spent
    assert "true" not in out and "false" not in out


FLAGS = """game Flags
players A, B
state seen[1..6]: bool = false
state held[player, 0..2]: bool = false
state n: 0..6 = 0
move mark(k: 1..6) when not seen[k]:
    seen[k] = true
    held[mover, k % 3] = true
    n += 1
terminal when n == 2
utility p: 0
"""


def test_a_flag_array_over_numbers_is_drawn_as_the_set_of_its_true_indices() -> None:
    game = gdl.load_source(FLAGS, "flags.gdl")
    state = game.initial_state()
    for move in ("mark(5)", "mark(2)"):
        state = game.apply(state, game.parse_move(state, move))
    lines = game.render(state).split("\n")
    assert lines[:3] == ["seen: {2, 5}", "held: A={2}  B={2}", "n: 2"]
    assert board_text(game, state).plain == game.render(state)
    assert view_text(game.view(state)) == game.render(state)
    assert game.render(game.initial_state()).startswith("seen: {}\nheld: A={}  B={}\n")
