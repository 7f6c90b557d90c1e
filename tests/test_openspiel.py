"""Differential tests: our rule files against OpenSpiel's own implementations (optional: needs open_spiel).

For each game, 2,000 seeded random playouts run in lock step on the compiled
rule file and on OpenSpiel's C++ game, seen through our adapter
(:class:`gdl.openspiel.OpenSpielGame`). At every step both must agree on

* who moves (OpenSpiel's player ids 0, 1 are our players in declaration order),
* the legal moves: each OpenSpiel action is mapped to one of our move names by
  the game's mapping below; the mapping must be one-to-one on the state and its
  image must be exactly our set of legal moves (so it is a bijection, and the
  inverse is used to play a move),
* the chance outcomes and their probabilities (within 1e-12),
* whether the game is over, and the returns (OpenSpiel's returns = our utilities).

The move played is drawn uniformly from the legal moves (chance outcomes by
their probabilities) and applied to both games. Each game's OpenSpiel
parameters and our parameters are chosen to be the same game; where the rules
differ on purpose, the rule file has a parameter for OpenSpiel's variant
(see each case, and docs/openspiel.md).

The rest of the file checks the adapters themselves: our solvers on wrapped
OpenSpiel games, and our rule files registered as pyspiel games
(``pyspiel.random_sim_test``, OpenSpiel's own search on them).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install -e '.[openspiel]')")

import gdl  # noqa: E402
from gdl.openspiel import OpenSpielGame, register_pyspiel_game  # noqa: E402
from solver.game import CHANCE, TERMINAL  # noqa: E402

PLAYOUTS = 2000
FILES = "abcdefghijklmnopqrstuvwxyz"


def cell(row: int, col: int) -> str:
    """Our name of the cell in row ``row`` (0 = our bottom row) and column ``col``: ``a1``, ``b3``, ..."""
    return f"{FILES[col]}{row + 1}"


def unrank(action: int, bases: list[int]) -> list[int]:
    """OpenSpiel's UnrankActionMixedBase: the digits of ``action`` in base ``bases``, most significant first."""
    digits = []
    for base in reversed(bases):
        digits.append(action % base)
        action //= base
    return digits[::-1]


# ----------------------------------------------------------- per-game mappings
# Each takes (player, OpenSpiel action id) and returns our move name. OpenSpiel
# games number board rows from the top; where a game's rules are symmetric
# under a vertical reflection (tic-tac-toe, hex, othello, breakthrough), the
# mapping keeps the row index as it is (OpenSpiel row r is our row r), which
# is the identity on the action strings of hex and othello.


def tic_tac_toe(player: int, action: int) -> str:
    # action = 3 * row + col; the 8 lines are symmetric under reflection.
    return f"place({cell(action // 3, action % 3)})"


def connect_four(player: int, action: int) -> str:
    return f"drop({'abcdefghijklmnopqrstuvwxyz'[action]})"  # the column, lettered as the board shows it


def pig(player: int, action: int) -> str:
    if player == CHANCE:
        return f"d={action + 1}"  # OpenSpiel's chance action i is a roll of i + 1
    return {0: "roll", 1: "hold"}[action]  # OpenSpiel: 0 roll, 1 stop


def nim(piles: int) -> Callable[[int, int], str]:
    def mapping(player: int, action: int) -> str:
        # action = (take - 1) * piles + pile
        return f"take({action % piles},{action // piles + 1})"

    return mapping


def breakthrough(rows: int, cols: int) -> Callable[[int, int], str]:
    # action = mixed-base (row, col, direction 0..5, capture 0/1); player 0
    # (OpenSpiel's black) starts on OpenSpiel's row 0 and moves towards higher
    # rows, as our White does from our row 0: rows map to rows.
    directions = ["northwest", "north", "northeast", "southwest", "south", "southeast"]

    def mapping(player: int, action: int) -> str:
        row, col, direction, _capture = unrank(action, [rows, cols, 6, 2])
        return f"go({cell(row, col)},{directions[direction]})"

    return mapping


def hex_(size: int) -> Callable[[int, int], str]:
    # action = size * row + col. OpenSpiel's neighbours of (r, c) are (r-1, c),
    # (r-1, c+1), (r, c±1), (r+1, c-1), (r+1, c): with row r as our row r they
    # are our southwest, southeast, east/west, northwest, northeast. Player 0
    # joins rows 0 and size-1 (our Red), player 1 columns (our Blue).
    def mapping(player: int, action: int) -> str:
        return f"place({cell(action // size, action % size)})"

    return mapping


def mancala(player: int, action: int) -> str:
    # OpenSpiel's pits: 0 = player 1's store, 1..6 player 0's pits, 7 player 0's
    # store, 8..13 player 1's pits; ours: 0..5 South, 6 store, 7..12 North, 13 store.
    return f"sow({(action - 1) % 7})"


def dots_and_boxes(rows: int, cols: int) -> Callable[[int, int], str]:
    # Horizontal lines first, row by row ((rows + 1) x cols), then vertical (rows x (cols + 1)).
    def mapping(player: int, action: int) -> str:
        horizontals = (rows + 1) * cols
        if action < horizontals:
            return f"horizontal({action // cols},{action % cols})"
        action -= horizontals
        return f"vertical({action // (cols + 1)},{action % (cols + 1)})"

    return mapping


def clobber(rows: int, cols: int) -> Callable[[int, int], str]:
    # action = mixed-base (row, col, direction 0..3: up, right, down, left).
    # OpenSpiel's row 0 is the top and its labels count from the bottom, as
    # ours do: OpenSpiel row r is our row rows-1-r (then a1 is White, 'o', in both).
    directions = ["north", "east", "south", "west"]

    def mapping(player: int, action: int) -> str:
        row, col, direction = unrank(action, [rows, cols, 4])
        return f"clobber({cell(rows - 1 - row, col)},{directions[direction]})"

    return mapping


def othello(player: int, action: int) -> str:
    # action = 8 * row + col, 64 = pass; OpenSpiel's d4 (row 3, col 3) is ours.
    return "pass" if action == 64 else f"place({cell(action // 8, action % 8)})"


@dataclass
class Case:
    id: str
    ours: str
    params: dict[str, str]
    theirs: str
    their_params: dict[str, Any]
    mapping: Callable[[int, int], str]
    playouts: int = PLAYOUTS
    seed: int = 1
    backend: str = "python"


CASES = [
    Case("tic_tac_toe", "tictactoe", {}, "tic_tac_toe", {}, tic_tac_toe),
    Case("connect_four", "connect4", {"cols": "7", "rows": "6", "k": "4"},
         "connect_four", {"columns": 7, "rows": 6, "x_in_row": 4}, connect_four),
    # OpenSpiel's pig allows `stop` with an empty pot and forces it at the goal: variant=openspiel.
    # Its horizon (a draw after that many decisions) is set out of reach.
    Case("pig", "pig", {"goal": "20", "variant": "openspiel"},
         "pig", {"winscore": 20, "horizon": 1_000_000, "players": 2, "diceoutcomes": 6, "piglet": False}, pig),
    Case("nim", "nim", {"heaps": "1,3,5,7", "misere": "false"},
         "nim", {"pile_sizes": "1;3;5;7", "is_misere": False}, nim(4)),
    Case("nim_misere", "nim", {"heaps": "3,4,5", "misere": "true"},
         "nim", {"pile_sizes": "3;4;5", "is_misere": True}, nim(3)),
    # OpenSpiel gives each side two rows of pieces from 6 rows up (one row below), as we always do.
    Case("breakthrough", "breakthrough", {"rows": "6", "cols": "5"},
         "breakthrough", {"rows": 6, "columns": 5}, breakthrough(6, 5)),
    Case("hex", "hex", {"size": "5"}, "hex", {"board_size": 5}, hex_(5)),
    # OpenSpiel's mancala is Kalah with 6 pits and 4 seeds, scored win/loss.
    Case("mancala", "kalah", {"pits": "6", "seeds": "4", "capture": "nonempty", "scoring": "winloss"},
         "mancala", {}, mancala),
    Case("dots_and_boxes", "dots_and_boxes", {"rows": "2", "cols": "2", "scoring": "winloss"},
         "dots_and_boxes", {"num_rows": 2, "num_cols": 2, "utility_margin": False}, dots_and_boxes(2, 2)),
    Case("dots_and_boxes_margin", "dots_and_boxes", {"rows": "2", "cols": "3", "scoring": "margin"},
         "dots_and_boxes", {"num_rows": 2, "num_cols": 3, "utility_margin": True}, dots_and_boxes(2, 3)),
    Case("clobber", "clobber", {"rows": "4", "cols": "5"}, "clobber", {"rows": 4, "columns": 5}, clobber(4, 5)),
    Case("clobber_5x6", "clobber", {"rows": "5", "cols": "6"}, "clobber", {"rows": 5, "columns": 6},
         clobber(5, 6), playouts=500),
    # OpenSpiel's othello ends as soon as neither player can move: ending=immediate. Our side on the C back end
    # where there is a compiler (6 s against 28 s): its rules are the Python back end's along thousands of
    # playouts (tests/test_backends.py, `gdl check --backend c`).
    Case("othello", "othello", {"size": "8", "ending": "immediate", "scoring": "winloss"},
         "othello", {}, othello, backend="auto"),
]


def lockstep(case: Case) -> dict[str, int]:
    ours = gdl.load(case.ours, params=case.params, backend=case.backend)
    theirs = OpenSpielGame(pyspiel.load_game(case.theirs, case.their_params))
    rng = random.Random(case.seed)
    seen = {"playouts": 0, "decisions": 0, "chance": 0, "terminal": 0}
    for playout in range(case.playouts):
        mine, other = ours.initial_state(), theirs.initial_state()
        history: list[str] = []
        while True:
            where = f"{case.id}, playout {playout}, after {history}"
            player = ours.to_move(mine)
            assert player == theirs.to_move(other), f"player to move differs: {where}"
            if player == TERMINAL:
                mine_u, their_u = ours.utilities(mine), theirs.utilities(other)
                assert len(mine_u) == len(their_u) and all(
                    abs(a - b) <= 1e-12 for a, b in zip(mine_u, their_u, strict=True)
                ), f"utilities {mine_u} != OpenSpiel's returns {their_u}: {where}"
                seen["terminal"] += 1
                break
            if player == CHANCE:
                their_moves = theirs.chance_outcomes(other)
                mapped = {case.mapping(CHANCE, m.data): (m, p) for m, p in their_moves}
                my_moves = {str(m): (m, p) for m, p in ours.chance_outcomes(mine)}
                assert len(mapped) == len(their_moves), f"chance mapping not one-to-one: {where}"
                assert set(mapped) == set(my_moves), f"chance outcomes {sorted(my_moves)} != {sorted(mapped)}: {where}"
                for name, (_, p) in mapped.items():
                    assert abs(p - my_moves[name][1]) <= 1e-12, f"probability of {name} differs: {where}"
                name = rng.choices(sorted(mapped), weights=[mapped[n][1] for n in sorted(mapped)])[0]
                seen["chance"] += 1
            else:
                their_moves = theirs.legal_moves(other)
                mapped = {case.mapping(player, m.data): (m, None) for m in their_moves}
                my_moves = {str(m): (m, None) for m in ours.legal_moves(mine)}
                assert len(mapped) == len(their_moves), f"move mapping not one-to-one: {where}"
                assert set(mapped) == set(my_moves), (
                    f"legal moves differ: ours only {sorted(set(my_moves) - set(mapped))}, "
                    f"OpenSpiel only {sorted(set(mapped) - set(my_moves))}: {where}")
                name = rng.choice(sorted(mapped))
                seen["decisions"] += 1
            mine = ours.apply(mine, my_moves[name][0])
            other = theirs.apply(other, mapped[name][0])
            history.append(name)
        seen["playouts"] += 1
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_lockstep_against_openspiel(case: Case) -> None:
    start = time.perf_counter()
    seen = lockstep(case)
    assert seen["playouts"] == case.playouts
    assert seen["terminal"] == case.playouts
    assert seen["decisions"] > case.playouts
    if case.ours == "pig":
        assert seen["chance"] > case.playouts
    print(f"{case.id}: {seen} in {time.perf_counter() - start:.1f}s")


# ----------------------------------------------------- our solvers on OpenSpiel


def test_alphabeta_solves_openspiel_tic_tac_toe() -> None:
    from solver.alphabeta import alphabeta

    game = OpenSpielGame(pyspiel.load_game("tic_tac_toe"))
    result = alphabeta(game)
    assert result.exact and result.value == (0.0, 0.0)


def test_alphabeta_on_openspiel_nim_agrees_with_rule_file() -> None:
    from solver.alphabeta import alphabeta

    for misere in (False, True):
        for piles in ("1;2;3", "2;3", "1;1;1", "1;3;4"):
            theirs = OpenSpielGame(pyspiel.load_game("nim", {"pile_sizes": piles, "is_misere": misere}))
            ours = gdl.load("nim", params={"heaps": piles.replace(";", ","), "misere": str(misere).lower()})
            assert alphabeta(theirs).value == alphabeta(ours).value, (piles, misere)


def test_openspiel_game_interface() -> None:
    game = OpenSpielGame(pyspiel.load_game("pig", {"winscore": 10}))
    state = game.initial_state()
    assert game.players == ("player0", "player1") and game.zero_sum and game.has_chance
    assert game.utility_bounds == (-1.0, 1.0)
    roll = game.parse_move(state, "roll")
    rolled = game.apply(state, roll)
    assert game.to_move(rolled) == CHANCE and game.to_move(state) == 0
    outcomes = game.chance_outcomes(rolled)
    assert [str(m) for m, _ in outcomes] == [f"Roll{i}" for i in range(1, 7)]
    assert game.parse_move(rolled, "Roll 3") == outcomes[2][0]  # names lose their spaces; parsing ignores them
    assert abs(sum(p for _, p in outcomes) - 1) < 1e-12
    # States are immutable and hashable: applying a move leaves the state as it was.
    assert game.apply(state, roll) == rolled and hash(game.apply(state, roll)) == hash(rolled)
    assert state.state.history() == [] and game.key(rolled) == (0,)
    with pytest.raises(ValueError):
        OpenSpielGame(pyspiel.load_game("kuhn_poker"))
    by_string = OpenSpielGame(pyspiel.load_game("tic_tac_toe"), key="string")
    a = by_string.apply(by_string.apply(by_string.apply(by_string.initial_state(), 0), 4), 8)
    b = by_string.apply(by_string.apply(by_string.apply(by_string.initial_state(), 8), 4), 0)
    assert a == b  # a transposition: same position by two move orders


# ---------------------------------------------------- rule files as pyspiel games

REGISTERED: dict[str, str] = {}


def registered(name: str) -> str:
    """Register the bundled rule file ``name`` as the pyspiel game ``gdl_<name>`` (once per test session)."""
    short_name = f"gdl_{name}"
    if name not in REGISTERED:
        register_pyspiel_game(gdl.load(name), short_name)
        REGISTERED[name] = short_name
    return REGISTERED[name]


# The 8-puzzle is left out: a random walk takes ~10^5 moves to solve it.
SIM_GAMES = [
    ("tictactoe", {}), ("connect4", {"rows": 4, "cols": 5}), ("pig", {}), ("pig", {"variant": "openspiel"}),
    ("nim", {}), ("nim", {"heaps": "1;3;5;7", "misere": True}), ("breakthrough", {}), ("hex", {"size": 5}),
    ("kalah", {}), ("kalah", {"scoring": "winloss", "pits": 4}), ("dots_and_boxes", {}), ("clobber", {}),
    ("othello", {"size": 8, "ending": "immediate"}), ("othello", {}), ("hexapawn", {}), ("race", {}),
    ("takeaway3", {}),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "params"), SIM_GAMES, ids=[f"{n}{p or ''}" for n, p in SIM_GAMES])
def test_random_sim_test_on_rule_files(name: str, params: dict[str, Any]) -> None:
    game = pyspiel.load_game(registered(name), params)
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


def test_registered_game_type_and_parameters() -> None:
    game = pyspiel.load_game(registered("kalah"), {"pits": 3, "seeds": 3, "scoring": "winloss"})
    game_type = game.get_type()
    assert game_type.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game_type.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert game.num_players() == 2 and (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    assert game.get_parameters()["capture"] == "nonempty"
    state = game.new_initial_state()
    assert [state.action_to_string(0, a) for a in state.legal_actions()] == ["sow(0)", "sow(1)", "sow(2)"]
    three = pyspiel.load_game(registered("takeaway3"))
    assert three.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM and three.num_players() == 3
    pig_game = pyspiel.load_game(registered("pig"))
    assert pig_game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    state = pig_game.new_initial_state()
    state.apply_action(state.legal_actions()[0])  # roll
    assert state.is_chance_node()
    assert sorted(state.action_to_string(pyspiel.PlayerId.CHANCE, a) for a, _ in state.chance_outcomes()) == [
        f"d={i}" for i in range(1, 7)]


@pytest.mark.slow
def test_openspiel_search_on_rule_files() -> None:
    from open_spiel.python.algorithms import get_all_states, minimax

    ttt = pyspiel.load_game(registered("tictactoe"))
    assert minimax.alpha_beta_search(ttt)[0] == 0  # a draw
    # Every tic-tac-toe position once, keyed by its rendering (which shows the board and who moves).
    assert len(get_all_states.get_all_states(ttt, to_string=str)) == 5478
    hexapawn = pyspiel.load_game(registered("hexapawn"))
    assert minimax.alpha_beta_search(hexapawn)[0] == -1  # a second-player win (Gardner)


def test_round_trip_rule_file_through_pyspiel() -> None:
    """A rule file registered in pyspiel and wrapped back: the same moves and utilities as the rule file itself."""
    ours = gdl.load("kalah", params={"pits": "4", "seeds": "3"})
    theirs = OpenSpielGame(pyspiel.load_game(registered("kalah"), {"pits": 4, "seeds": 3}))
    rng = random.Random(3)
    for _ in range(100):
        a, b = ours.initial_state(), theirs.initial_state()
        while ours.to_move(a) != TERMINAL:
            assert ours.to_move(a) == theirs.to_move(b)
            names = sorted(str(m) for m in ours.legal_moves(a))
            assert names == sorted(str(m) for m in theirs.legal_moves(b))
            name = rng.choice(names)
            a, b = ours.apply(a, ours.parse_move(a, name)), theirs.apply(b, theirs.parse_move(b, name))
        assert theirs.to_move(b) == TERMINAL and ours.utilities(a) == theirs.utilities(b)
