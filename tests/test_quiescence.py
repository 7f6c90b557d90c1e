"""Quiescence: `quiet when` in the rule language, and the depth-limited searches that search past their horizon
from positions that are not quiet (Shannon 1950; Beal 1990). docs/solvers.md "Quiescence"."""

from __future__ import annotations

import json
import zlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gdl
from gdl.cli import main
from solver.agents import make_agent
from solver.alphabeta import alphabeta
from solver.expectimax import expectimax
from solver.game import play_moves
from solver.limits import Limits
from solver.match import play_match
from solver.minimax import minimax
from tests.refgames import TreeGame
from tests.test_solver_search import trees

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ------------------------------------------------------------------ the horizon effect, on a bundled game

OPENING = ["go(a2,northeast)", "go(a5,southeast)"]
"""White's front piece on b3, Black's on b4: advancing b3 to a4 walks into b5's capture."""


def pieces(game: gdl.CompiledGame, state: Any, player: str) -> int:
    return sum(1 for value in game.values(state)["piece"] if value == player)


def captures(game: gdl.CompiledGame, state: Any) -> list[Any]:
    """The moves of the side to move that take a piece."""
    other = game.players[1 - game.to_move(state)]
    before = pieces(game, state, other)
    return [m for m in game.legal_moves(state) if pieces(game, game.apply(state, m), other) < before]


def hangs_a_piece(game: gdl.CompiledGame, after: Any) -> bool:
    """After a move: the opponent can take a piece that cannot be taken back."""
    return any(not captures(game, game.apply(after, take)) for take in captures(game, after))


def test_the_horizon_effect_on_breakthrough() -> None:
    """Depth 1 without quiescence scores the position right after its move: it advances its front piece to a4,
    which Black's b5 takes for nothing at the next ply. With quiescence it sees that capture and does not."""
    game = gdl.load("breakthrough")
    state = play_moves(game, OPENING)
    blind = alphabeta(game, state, Limits(depth=1)).best_moves[0]
    assert str(blind) == "go(b3,northwest)"
    after = game.apply(state, blind)
    assert not game.is_quiet(after)  # Black, to move, can capture
    assert hangs_a_piece(game, after)
    taken = game.apply(after, game.parse_move(after, "go(b5,southwest)"))
    assert pieces(game, taken, "White") == pieces(game, state, "White") - 1 and not captures(game, taken)
    for quiescence in (2, 4):
        careful = alphabeta(game, state, Limits(depth=1, quiescence=quiescence)).best_moves[0]
        assert str(careful) != str(blind) and not hangs_a_piece(game, game.apply(state, careful))


def test_expectimax_and_minimax_see_past_the_horizon_too() -> None:
    game = gdl.load("breakthrough")
    state = play_moves(game, OPENING)
    for search in (expectimax, minimax):
        assert str(search(game, state, Limits(depth=1)).best_moves[0]) == "go(b3,northwest)"
        assert str(search(game, state, Limits(depth=1, quiescence=2)).best_moves[0]) != "go(b3,northwest)"


def test_agents_take_quiescence() -> None:
    game = gdl.load("breakthrough")
    state = play_moves(game, OPENING)
    assert str(make_agent(game, "alphabeta:depth=1").choose(state)) == "go(b3,northwest)"
    assert str(make_agent(game, "alphabeta:depth=1,quiescence=2").choose(state)) != "go(b3,northwest)"
    with pytest.raises(ValueError, match="must not be negative"):
        make_agent(game, "alphabeta:depth=1,quiescence=-1")
    with pytest.raises(ValueError, match="no option 'quiescence'"):
        make_agent(game, "mcts:quiescence=2")


# ------------------------------------------------------------------ the searches agree with each other


class QuietTree(TreeGame):
    """A random tree with a heuristic at every node and a random set of positions that are not quiet."""

    def __init__(self, tree: tuple, noisy: frozenset[int], salt: int) -> None:
        super().__init__(tree, 2, True, (-3.0, 3.0))
        self.noisy, self.salt = noisy, salt

    def _hash(self, state: tuple) -> int:
        return zlib.crc32(repr((self.salt, state)).encode())

    def heuristic(self, state: tuple) -> tuple[float, ...]:
        h = float(self._hash(state) % 5 - 2)
        return (h, -h)

    def is_quiet(self, state: tuple) -> bool:
        return self._hash(state) % 7 not in self.noisy


quiet_trees = st.builds(QuietTree, trees(max_depth=5), st.frozensets(st.integers(0, 6)), st.integers(0, 99))


@FAST
@given(quiet_trees, st.integers(1, 3), st.integers(0, 3))
def test_alphabeta_with_quiescence_equals_minimax_with_quiescence(game: QuietTree, depth: int,
                                                                   quiescence: int) -> None:
    limits = Limits(depth=depth, quiescence=quiescence)
    expected = minimax(game, limits=limits).value
    for use_tt in (True, False):
        assert alphabeta(game, limits=limits, use_tt=use_tt, iterative=False).value == expected
    assert alphabeta(game, limits=limits).value == expected  # deepening to the same depth
    for pruning in ("none", "star1", "star2"):
        assert expectimax(game, limits=limits, pruning=pruning).value[0] == pytest.approx(expected[0])


@FAST
@given(trees(max_depth=5), st.integers(1, 3), st.integers(0, 3))
def test_quiescence_is_a_deeper_search_where_nothing_is_quiet_and_none_where_everything_is(
        tree: tuple, depth: int, quiescence: int) -> None:
    never = QuietTree(tree, frozenset(range(7)), 0)
    always = QuietTree(tree, frozenset(), 0)
    extended = Limits(depth=depth, quiescence=quiescence)
    assert minimax(never, limits=extended).value == minimax(never, limits=Limits(depth=depth + quiescence)).value
    assert minimax(always, limits=extended).value == minimax(always, limits=Limits(depth=depth)).value
    assert alphabeta(never, limits=extended).value == alphabeta(never, limits=Limits(depth=depth + quiescence)).value


# ------------------------------------------------------------------ the command line


def test_solve_depth_with_quiescence(capsys: pytest.CaptureFixture[str]) -> None:
    moves = ",".join(OPENING)
    assert main(["solve", "breakthrough", "--moves", moves, "--depth", "1", "--json"]) == 0
    blind = json.loads(capsys.readouterr().out)
    assert blind["best_moves"] == ["go(b3,northwest)"] and blind["stats"]["quiescence"] == 0
    assert main(["solve", "breakthrough", "--moves", moves, "--depth", "1", "--quiescence", "2"]) == 0
    out = capsys.readouterr().out
    assert "go(b3,northwest)" not in out.split("best move")[1].splitlines()[0]
    assert "(+ up to 2 plies of quiescence)" in out


@pytest.mark.parametrize(("args", "words"), [
    (["--quiescence", "2"], "--quiescence needs --depth or --time"),
    (["--depth", "1", "--quiescence", "-1"], "--quiescence must not be negative"),
])
def test_solve_quiescence_usage_errors(args: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "breakthrough", *args]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_match_openings_give_both_seatings_the_same_random_start() -> None:
    game = gdl.load("breakthrough", {"rows": "4", "cols": "3"})
    result = play_match(game, ["alphabeta:depth=1", "alphabeta:depth=1,quiescence=2"], 4, openings=3)
    starts = [record.moves[:3] for record in result.games]
    assert starts[0] == starts[1] and starts[2] == starts[3] and starts[0] != starts[2]
    plain = play_match(game, ["alphabeta:depth=1", "alphabeta:depth=1,quiescence=2"], 4)
    assert plain.games[0].moves == plain.games[2].moves  # deterministic agents replay one game per seating


def test_quiet_when_is_compiled_and_checked() -> None:
    source = ("game Q\nplayers A, B\nstate n: 0..4 = 0\nmove up when n < 4:\n    n += 1\nwin A when n == 4\n"
              "heuristic p: n if p == A else 0 - n\nquiet when n % 2 == 0\n")
    game = gdl.load_source(source)
    state = game.initial_state()
    assert game.has_quiet and game.is_quiet(state) and not game.is_quiet(game.apply(state, game.legal_moves(state)[0]))
    assert not gdl.load_source(source.replace("quiet when n % 2 == 0\n", "")).has_quiet
    with pytest.raises(gdl.RuleFileError, match="expected a boolean"):
        gdl.load_source(source.replace("n % 2 == 0", "n + 1"))
    with pytest.raises(gdl.RuleFileError, match="only one `quiet when`"):
        gdl.load_source(source + "quiet when true\n")
