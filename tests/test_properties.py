"""Hypothesis properties of the bundled games and of the parser.

Games: along random playouts, every move (and chance outcome) name parses back
to the same move; probabilities at every chance node sum to 1; a position
reached by two move orders has one key; keys and positions correspond one to
one.

Parser and checker: on any text -- random strings, and the bundled games with
bytes flipped, tokens deleted, duplicated or swapped, or cut short -- loading
gives a game or a ``RuleFileError`` whose diagnostics lie inside the file,
never another exception. A game that loads only fails while running with a
``RuleRuntimeError``.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Hashable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gdl
from gdl.diagnostics import RuleFileError
from solver.game import CHANCE, SIMULTANEOUS, TERMINAL

GAMES = sorted(p.stem for p in gdl.bundled_games())
SIMULTANEOUS_GAMES = {"rps", "security", "goofspiel"}
"""Games whose decisions are rounds where every player chooses at once (``to_move`` is SIMULTANEOUS there)."""
TURN_GAMES = [name for name in GAMES if name not in SIMULTANEOUS_GAMES]
MAX_PLIES = 200  # the 8-puzzle never ends under random play
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@functools.cache
def game_named(name: str) -> gdl.CompiledGame:
    return gdl.load(name)


@functools.cache
def source_of(name: str) -> str:
    return next(p for p in gdl.bundled_games() if p.stem == name).read_text(encoding="utf-8")


def playout(game: gdl.CompiledGame, rng: random.Random, plies: int = MAX_PLIES) -> list[tuple]:
    """The states of one random game (chance by its probabilities), the initial state first."""
    state = game.initial_state()
    states = [state]
    for _ in range(plies):
        player = game.to_move(state)
        if player == TERMINAL:
            break
        if player == CHANCE:
            outcomes = game.chance_outcomes(state)
            move = rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
        else:
            moves = game.legal_moves(state)
            if not moves:
                break  # a dead end in the rules (gdl check reports it as no-moves), not an exception
            move = rng.choice(moves)
        state = game.apply(state, move)
        states.append(state)
    return states


def candidates(game: gdl.CompiledGame, state: tuple) -> list[Hashable]:
    player = game.to_move(state)
    if player == CHANCE:
        return [o for o, _ in game.chance_outcomes(state)]
    if player == TERMINAL:
        return []
    return list(game.legal_moves(state))


# ---------------------------------------------------------------- the games


@FAST
@given(name=st.sampled_from(GAMES), seed=st.integers(0, 2**32 - 1))
def test_every_move_name_parses_back(name: str, seed: int) -> None:
    game = game_named(name)
    for state in playout(game, random.Random(seed)):
        moves = candidates(game, state)
        assert len({str(m) for m in moves}) == len(moves), "move names must be unique"
        for move in moves:
            parsed = game.parse_move(state, str(move))
            assert parsed == move and str(parsed) == str(move)
            assert game.apply(state, parsed) == game.apply(state, move)


@FAST
@given(name=st.sampled_from(GAMES), seed=st.integers(0, 2**32 - 1))
def test_chance_probabilities_sum_to_one(name: str, seed: int) -> None:
    game = game_named(name)
    for state in playout(game, random.Random(seed)):
        if game.to_move(state) == CHANCE:
            outcomes = game.chance_outcomes(state)
            assert outcomes
            assert all(0 < p <= 1 for _, p in outcomes)
            assert abs(sum(p for _, p in outcomes) - 1) <= 1e-12


@FAST
@given(name=st.sampled_from(GAMES), seed=st.integers(0, 2**32 - 1))
def test_states_are_immutable_hashable_and_consistent(name: str, seed: int) -> None:
    game = game_named(name)
    n = len(game.players)
    for state in playout(game, random.Random(seed)):
        hash(game.key(state))
        assert game.key(state) == game.key(tuple(state))
        player = game.to_move(state)
        if name in SIMULTANEOUS_GAMES:
            assert player in (CHANCE, TERMINAL, SIMULTANEOUS)
        else:
            assert player in (CHANCE, TERMINAL) or 0 <= player < n
        if player == TERMINAL:
            utilities = game.utilities(state)
            assert len(utilities) == n
            if game.utility_bounds is not None:
                low, high = game.utility_bounds
                assert all(low - 1e-9 <= u <= high + 1e-9 for u in utilities)
            if game.zero_sum:
                assert abs(sum(utilities)) <= 1e-9
        else:
            assert candidates(game, state), f"{name}: a non-terminal state without moves"


@FAST
@given(name=st.sampled_from(GAMES), seed=st.integers(0, 2**32 - 1))
def test_keys_and_positions_correspond(name: str, seed: int) -> None:
    """Equal positions (variables and turn), or mirror images under the game's declared symmetries,
    have equal keys; other positions have different keys."""
    game = game_named(name)
    by_position: dict[object, Hashable] = {}
    by_key: dict[Hashable, object] = {}
    rng = random.Random(seed)

    def position(state: tuple) -> tuple[str, int, str]:
        return (repr(game.values(state)), game.to_move(state),
                game.describe_end(state) if game.to_move(state) == TERMINAL else "")

    for _ in range(3):
        for state in playout(game, rng, 60):
            if game.to_move(state) == CHANCE:
                continue  # a chance state also holds the pending move
            images = frozenset(position(image) for image in game.images(state))
            key = game.key(state)
            assert all(game.key(image) == key for image in game.images(state))
            assert by_position.setdefault(images, key) == key
            assert by_key.setdefault(key, images) == images


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(TURN_GAMES), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_two_move_orders_reach_one_key(name: str, seed: int, data: st.DataObject) -> None:
    """Moves a (by P), b, c (by P again) against c, b, a: the same position must give the same key."""
    game = game_named(name)
    states = [s for s in playout(game, random.Random(seed), 40) if game.to_move(s) >= 0]
    state = data.draw(st.sampled_from(states))
    first = game.legal_moves(state)
    a = data.draw(st.sampled_from(first))
    after_a = game.apply(state, a)
    if game.to_move(after_a) < 0:
        return
    b = data.draw(st.sampled_from(game.legal_moves(after_a)))
    after_ab = game.apply(after_a, b)
    if game.to_move(after_ab) != game.to_move(state):
        return
    c = data.draw(st.sampled_from(game.legal_moves(after_ab)))
    one = game.apply(after_ab, c)
    try:
        two = state
        for move in (c, b, a):
            two = game.apply(two, game.parse_move(two, str(move)))
    except (ValueError, gdl.GdlError):
        return  # not playable in the other order
    if game.values(one) == game.values(two) and game.to_move(one) == game.to_move(two) >= 0:
        assert game.key(one) == game.key(two)


def test_tictactoe_transposition() -> None:
    game = game_named("tictactoe")
    orders = [["place(a1)", "place(b2)", "place(c3)", "place(a3)"],
              ["place(c3)", "place(a3)", "place(a1)", "place(b2)"]]
    states = []
    for order in orders:
        state = game.initial_state()
        for name in order:
            state = game.apply(state, game.parse_move(state, name))
        states.append(state)
    assert states[0] == states[1] and game.key(states[0]) == game.key(states[1])


# ------------------------------------------------------- parser robustness


def lines_of(text: str) -> list[str]:
    """Lines as the parser counts them: only ``\n`` ends a line (not form feeds or other Unicode breaks)."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    return lines[:-1] if len(lines) > 1 and not lines[-1] else lines


def assert_inside(diagnostic: gdl.Diagnostic, text: str) -> None:
    lines = lines_of(text)
    span = diagnostic.span
    assert 1 <= span.line <= len(lines), (diagnostic, len(lines))
    assert 1 <= span.column <= len(lines[span.line - 1].expandtabs(1)) + 1, diagnostic
    assert diagnostic.message and "Traceback" not in diagnostic.message
    diagnostic.format(text)  # renders without error


def load_or_diagnose(text: str) -> gdl.CompiledGame | None:
    """Load ``text``: a game, or ``None`` after checking the diagnostics. Any other exception fails."""
    try:
        game = gdl.load_source(text, "fuzz.gdl")
    except RuleFileError as error:
        assert error.diagnostics
        for diagnostic in error.diagnostics:
            assert_inside(diagnostic, text)
        return None
    except gdl.RuleRuntimeError:
        return None  # `setup` failed while computing the initial state
    for warning in game.warnings:
        assert_inside(warning, text)
    return game


def run_a_little(game: gdl.CompiledGame, seed: int) -> None:
    """A loaded game may fail only with RuleRuntimeError, whatever happens."""
    rng = random.Random(seed)
    try:
        playout(game, rng, 30)
    except gdl.RuleRuntimeError as error:
        diagnostic = game.explain(error)
        assert diagnostic.code == "runtime-error"
        assert_inside(diagnostic, game.source)


TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|\s+|\.\.|//|[=!<>+\-*]=|.", re.DOTALL)
INTERESTING = [*":()[]{}=<>.,;#\"\\?-+*/%\n\t ", "\n    ", "..", "==", "x", "none", "move", "if", "0", "9"]


@st.composite
def mutated_games(draw: st.DrawFn) -> str:
    text = source_of(draw(st.sampled_from(GAMES)))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["flip", "insert", "delete", "duplicate", "swap", "truncate"]))
        if kind in ("flip", "insert"):
            i = draw(st.integers(0, max(0, len(text) - 1)))
            new = draw(st.sampled_from(INTERESTING) | st.characters(max_codepoint=0x2FF))
            text = text[:i] + new + text[i + (kind == "flip"):]
        elif kind == "truncate":
            text = text[: draw(st.integers(0, len(text)))]
        else:
            tokens = TOKEN.findall(text)
            if len(tokens) < 2:
                continue
            i = draw(st.integers(0, len(tokens) - 2))
            if kind == "delete":
                del tokens[i]
            elif kind == "duplicate":
                tokens.insert(i, tokens[i])
            else:
                j = draw(st.integers(0, len(tokens) - 1))
                tokens[i], tokens[j] = tokens[j], tokens[i]
            text = "".join(tokens)
    return text


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=300))
def test_arbitrary_text_gives_a_game_or_diagnostics(text: str) -> None:
    load_or_diagnose(text)


@settings(max_examples=200, deadline=None)
@given(pieces=st.lists(st.sampled_from([*INTERESTING, "game G\n", "players A, B\n", "state n: 0..3 = 0\n",
                                        "move m: n += 1\n", "win A when n == 3\n", "a"]), max_size=40))
def test_grammar_shaped_text_gives_a_game_or_diagnostics(pieces: list[str]) -> None:
    load_or_diagnose("".join(pieces))


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=mutated_games(), seed=st.integers(0, 2**16))
def test_mutated_games_give_a_game_or_diagnostics(text: str, seed: int) -> None:
    game = load_or_diagnose(text)
    if game is not None:
        run_a_little(game, seed)
