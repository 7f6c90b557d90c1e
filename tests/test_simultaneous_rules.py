"""Simultaneous moves in the rule language (`simultaneous`): compiling, the runtime's rounds, `gdl solve`,
`gdl check`/`info`/`match`, the agents, against the solver's own LP and brute force."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

import gdl
from gdl.cli import main
from gdl.diagnostics import RuleFileError
from solver.game import SIMULTANEOUS, TERMINAL, IllegalMoveError
from solver.match import play_match
from solver.matrix_game import solve_zero_sum
from solver.simagents import make_sim_agent
from solver.simultaneous import solve_simultaneous


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def solve_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out = run(capsys, "solve", *argv, "--json")
    assert code == 0, out
    return json.loads(out)


# ------------------------------------------------------------------ the runtime's rounds


def test_rps_is_one_round_where_both_choose_against_the_same_state() -> None:
    game = gdl.load("rps")
    state = game.initial_state()
    assert game.simultaneous and game.to_move(state) == SIMULTANEOUS
    names = ["play(rock)", "play(paper)", "play(scissors)"]
    assert [str(m) for m in game.legal_moves(state, 0)] == names == [str(m) for m in game.legal_moves(state, 1)]
    beats = {("rock", "scissors"), ("scissors", "paper"), ("paper", "rock")}
    for a, b in itertools.product(["rock", "paper", "scissors"], repeat=2):
        joint = (game.parse_move(state, f"play({a})", 0), game.parse_move(state, f"PLAY({b})", 1))
        end = game.apply_joint(state, joint)
        assert game.to_move(end) == TERMINAL
        expected = (1, -1) if (a, b) in beats else (-1, 1) if (b, a) in beats else (0, 0)
        assert tuple(game.utilities(end)) == expected
        # the same joint move as one move named a|b, for tools written for turns
        assert game.apply(state, game.parse_move(state, f"play({a})|play({b})")) == end


def test_per_player_moves_and_move_names_round_trip() -> None:
    game = gdl.load("security")
    state = game.initial_state()
    defend, attack = game.legal_moves(state, 0), game.legal_moves(state, 1)
    assert [m.action for m in defend] == ["defend"] * 3 and [m.action for m in attack] == ["attack"] * 3
    for player, moves in ((0, defend), (1, attack)):
        for move in moves:
            assert game.parse_move(state, str(move), player) == move
    with pytest.raises(IllegalMoveError):
        game.parse_move(state, "attack(smallpox)", 0)  # the authority has no attack
    with pytest.raises(IllegalMoveError):
        game.parse_move(state, "defend(vaccinate)")  # a joint move needs every player's
    assert len(game.legal_moves(state)) == 9  # the joint moves


def test_goofspiel_rounds_spend_cards_and_score_the_prize() -> None:
    game = gdl.load("goofspiel", {"cards": "3"})
    state = game.initial_state()
    state = game.apply_joint(state, (game.parse_move(state, "play(3)", 0), game.parse_move(state, "play(1)", 1)))
    assert game.to_move(state) == SIMULTANEOUS
    values = game.values(state)
    assert values["score"] == [3, 0] and values["round"] == 1 and values["bid"] == [0, 0]
    assert [str(m) for m in game.legal_moves(state, 0)] == ["play(1)", "play(2)"]
    assert [str(m) for m in game.legal_moves(state, 1)] == ["play(2)", "play(3)"]


def test_a_chance_after_every_choice_is_in_and_three_players() -> None:
    source = """game Odd "Three players show a coin; the odd one out wins, if any; a die breaks no ties"
players A, B, C
simultaneous
state shown[player]: 0..2 = 0
state bonus: 0..6 = 0
move show(side: 1..2) when shown[mover] == 0:
    shown[mover] = side
after every move:
    if shown[C] != 0:
        chance d in 1..6:
            bonus = d
def odd(p: player) = all q in player where q != p: shown[q] != shown[p]
def someone_odd = any q in player: odd(q)
terminal when bonus > 0
utility p in -1..2: (2 if odd(p) else -1) if someone_odd else 0
"""
    game = gdl.load_source(source)
    state = game.initial_state()
    assert game.to_move(state) == SIMULTANEOUS and len(game.legal_moves(state)) == 8
    after = game.apply(state, game.parse_move(state, "show(1)|show(2)|show(1)"))
    assert game.to_move(after) == -1  # chance once all three have chosen
    outcome, probability = game.chance_outcomes(after)[0]
    end = game.apply(after, outcome)
    assert probability == pytest.approx(1 / 6) and tuple(game.utilities(end)) == (-1, 2, -1)


# ------------------------------------------------------------------ diagnostics


@pytest.mark.parametrize(("body", "code", "line"), [
    ("move add:\n    turn = B\n", "simultaneous-turn", 5),
    ("move add:\n    again\n", "simultaneous-turn", 5),
])
def test_the_round_structure_belongs_to_the_language(body: str, code: str, line: int) -> None:
    source = f"game G\nplayers A, B\nsimultaneous\n{body}terminal when true\nutility p: 0\n"
    with pytest.raises(RuleFileError) as raised:
        gdl.load_source(source)
    diagnostic = raised.value.diagnostics[0]
    assert (diagnostic.code, diagnostic.span.line) == (code, line)


def test_simultaneous_twice_is_a_duplicate() -> None:
    with pytest.raises(RuleFileError) as raised:
        gdl.load_source("game G\nplayers A, B\nsimultaneous\nsimultaneous\nmove m\nterminal when true\nutility p: 0\n")
    assert [(d.code, d.span.line) for d in raised.value.diagnostics] == [("duplicate", 4)]


# ------------------------------------------------------------------ gdl solve


def test_solve_rps_json_gives_value_zero_and_a_third_per_move(capsys: pytest.CaptureFixture[str]) -> None:
    report = solve_json(capsys, "rps")
    assert report["value"] == {"Row": 0.0, "Column": 0.0} and report["exact"] is True
    for player in ("Row", "Column"):
        assert report["strategy"][player] == pytest.approx(
            {"play(rock)": 1 / 3, "play(paper)": 1 / 3, "play(scissors)": 1 / 3}, abs=1e-6)


def test_moves_reads_each_part_of_a_joint_move_as_the_prompt_does(capsys: pytest.CaptureFixture[str]) -> None:
    # `--moves 'rock|PAPER'` was refused: a joint move's parts had to be full names
    report = solve_json(capsys, "goofspiel", "-p", "cards=3", "--moves", "3|PLAY(1),1|2")
    assert report["moves"] == ["play(3)|play(1)", "play(1)|play(2)"]
    code = main(["solve", "goofspiel", "-p", "cards=3", "--moves", "3|1,3|2"])
    assert code == 2 and "move 2: play(3) is not legal here" in capsys.readouterr().err


def test_solve_goofspiel_four_cards_is_zero(capsys: pytest.CaptureFixture[str]) -> None:
    report = solve_json(capsys, "goofspiel", "-p", "cards=4")
    assert report["value"] == {"A": 0.0, "B": 0.0} and report["exact"] is True


def test_the_security_game_has_no_saddle_point_and_the_mix_beats_every_pure_defence(
        capsys: pytest.CaptureFixture[str]) -> None:
    cost = np.array([[4, 9, 2], [2, 10, 5], [9, 1, 5]], dtype=float)  # the table in games/security.gdl
    assert cost.max(axis=1).min() > cost.min(axis=0).max()  # minimax of rows != maximin of columns
    report = solve_json(capsys, "security")
    reference = solve_zero_sum(-cost)  # the authority maximises minus the cost
    assert report["value"]["Authority"] == pytest.approx(reference.value) == pytest.approx(-5.5)
    pure = report["pure_strategy_values"]["Authority"]
    assert max(pure.values()) == -9.0 < report["value"]["Authority"]
    mix = np.array(list(report["strategy"]["Authority"].values()))
    assert (mix @ cost).max() == pytest.approx(5.5)  # whatever the attack, the expected cost is at most 5.5
    code, out = run(capsys, "solve", "security")
    assert code == 0
    assert "Authority: defend(stockpile) 0.00, defend(vaccinate) 0.50, defend(surveillance) 0.50" in out
    assert "Authority by a pure strategy guarantees at most -9" in out and "mixing guarantees more" in out


def test_solve_depth_uses_the_heuristic_at_the_horizon(capsys: pytest.CaptureFixture[str]) -> None:
    report = solve_json(capsys, "goofspiel", "-p", "cards=4", "--depth", "1")
    assert report["exact"] is False and report["value_kind"] == "estimated"
    assert report["value"] == {"A": 0.0, "B": 0.0}  # no heuristic: 0 at the horizon, and a symmetric LP


def matrix_source(payoff: list[list[int]], unit: str = "1") -> str:
    """A two-player zero-sum rule file whose one round is the matrix game ``payoff`` (Row's payoffs) times
    ``unit`` (an expression: ``1/1000000000000`` scales it to 1e-12)."""
    rows, cols = len(payoff), len(payoff[0])
    cells = ", ".join(str(v) for line in payoff for v in line)
    return f"""game Matrix "a zero-sum matrix game"
players Row, Column
simultaneous
zero_sum
state r: 0..{rows} = 0
state c: 0..{cols} = 0
move row(i: 1..{rows}) when mover == Row and r == 0:
    r = i
move column(j: 1..{cols}) when mover == Column and c == 0:
    c = j
def payoff = [{cells}][(r - 1) * {cols} + c - 1] * {unit}
terminal when r > 0 and c > 0
utility p: payoff if p == Row else -payoff
"""


RPS_MATRIX = [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
THIRDS = {"row(1)": 1 / 3, "row(2)": 1 / 3, "row(3)": 1 / 3}


@pytest.mark.parametrize("unit", ["1/1000000000000", "1000000000000",
                                  "100000000000000 * 100000000000000 * 100000000000000 * 100000000000000 * "
                                  "100000000000000 * 100000000000000 * 100000000000000 * 100000000000000 * "
                                  "100000000000000 * 100000000000000 * 100000000000000 * 100000000000000 * "
                                  "100000000000000 * 100000000000000 * 100000000000000 * 100000000000000 * "
                                  "100000000000000 * 100000000000000 * 100000000000000 * 100000000000000 * 100000"])
def test_rock_paper_scissors_at_any_scale_is_a_third_each(unit: str, tmp_path, capsys) -> None:
    # 1e-12 gave "exact value 0" with pure rock (the LP's tolerance was absolute); 1e285 a traceback from the LP
    path = tmp_path / "scaled.gdl"
    path.write_text(matrix_source(RPS_MATRIX, unit))
    report = solve_json(capsys, str(path))
    assert report["value"] == {"Row": 0.0, "Column": 0.0} and report["exact"] is True
    assert report["strategy"]["Row"] == pytest.approx(THIRDS, abs=1e-12)
    scale = float(report["pure_strategy_values"]["Row"]["row(1)"])  # each pure strategy loses one unit
    assert report["pure_strategy_values"]["Row"] == pytest.approx({m: scale for m in THIRDS}, rel=1e-12)
    code, out = run(capsys, "solve", str(path))
    assert code == 0 and "Row: row(1) 0.33, row(2) 0.33, row(3) 0.33" in out and "mixing guarantees more" in out


def test_json_values_and_strategies_have_full_precision(tmp_path, capsys) -> None:
    # odd or even (Row wins an even sum of one or two fingers, Column an odd one): -1/12 with 7/12 and 5/12;
    # and a game worth 5/7 with 4/7 (both were rounded to 6 decimals: -0.083333, 0.571429)
    path = tmp_path / "odd_even.gdl"
    path.write_text(matrix_source([[2, -3], [-3, 4]]))
    report = solve_json(capsys, str(path))
    assert report["value"] == {"Row": -1 / 12, "Column": 1 / 12}
    assert report["strategy"]["Row"] == {"row(1)": 7 / 12, "row(2)": 5 / 12}
    assert report["strategy"]["Column"] == {"column(1)": 7 / 12, "column(2)": 5 / 12}
    path.write_text(matrix_source([[2, -1], [-1, 3]]))
    report = solve_json(capsys, str(path))
    assert report["value"]["Row"] == 5 / 7 and report["strategy"]["Row"] == {"row(1)": 4 / 7, "row(2)": 3 / 7}


def test_a_general_sum_round_gives_full_precision_too(tmp_path, capsys) -> None:
    path = tmp_path / "sexes.gdl"
    # opera: P 3, Q 1; football: P 4, Q 3
    path.write_text(SEXES.replace("(3 if p == P else 2)", "(3 if p == P else 1)").replace("(2 if p == P else 3)",
                                                                                          "(4 if p == P else 3)"))
    report = solve_json(capsys, str(path))
    mixed = report["mixed_equilibrium"]  # Q mixes to leave P indifferent: 4/7 opera; P 3/4 opera
    assert mixed["strategy"]["P"] == {"go(opera)": 3 / 4, "go(football)": 1 / 4}
    assert mixed["strategy"]["Q"] == {"go(opera)": 4 / 7, "go(football)": 3 / 7}
    assert mixed["value"] == {"P": 12 / 7, "Q": 3 / 4}


RULE_ERROR_IN_A_ROUND = """game Broken "paper overflows a counter inside the round"
players Row, Column
simultaneous
enum hand: rock, paper, scissors
state shown[player]: hand? = none
state n: 0..2 = 0
move play(h: hand) when shown[mover] == none:
    shown[mover] = h
    if h == paper: n += 5
terminal when shown[Row] != none and shown[Column] != none
utility p: 0
"""


@pytest.mark.parametrize("backend", ["python", "c"])
def test_a_rule_error_inside_a_round_is_a_diagnostic_with_its_moves(backend: str, tmp_path, capsys) -> None:
    # it was a RuleRuntimeError traceback from `gdl solve`
    path = tmp_path / "broken.gdl"
    path.write_text(RULE_ERROR_IN_A_ROUND)
    code = main(["solve", str(path), "--backend", backend, "--json"])
    out, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in err
    error = json.loads(out)["error"]
    assert error["code"] == "runtime-error" and error["moves"] == ["play(rock)|play(paper)"]
    if backend == "python":  # (the C back end names the place in the message: another issue's item)
        assert (error["line"], error["message"]) == (9, "value 5 is outside the variable's domain 0..2")
    assert "reproduce with the moves: play(rock)|play(paper)" in err


def test_a_failing_lp_solver_is_one_line_not_a_traceback(monkeypatch, capsys) -> None:
    # what HiGHS's "Model error" on payoffs near 1e285 printed was an ArithmeticError traceback; payoffs are
    # scaled now, but a failure of the LP solver itself is still the solver's word in one line
    def failing(*args, **kwargs):
        raise ArithmeticError("the LP solver failed on a matrix game: (HiGHS Status 2: Model error)")

    monkeypatch.setattr("gdl.cli.solve_sim.solve_simultaneous", failing)
    assert main(["solve", "rps"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1 and "Model error" in err


# ------------------------------------------------------------------ check, info, match, agents


def test_check_and_info_know_the_game_is_simultaneous(capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("rps", "security", "goofspiel"):
        code, out = run(capsys, "check", name)
        assert code == 0 and "0 errors, 0 warnings" in out, out
    code, out = run(capsys, "info", "rps", "--json")
    assert code == 0 and json.loads(out)["simultaneous"] is True
    code, out = run(capsys, "info", "tictactoe", "--json")
    assert json.loads(out)["simultaneous"] is False


def test_match_between_simultaneous_agents(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "match", "goofspiel", "-p", "cards=3", "random", "mcts:iterations=200,select=rm",
                    "--games", "4", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["games"] == 4


@pytest.mark.slow
@pytest.mark.parametrize("select", ["ucb", "rm"])
def test_sm_mcts_mixes_near_the_equilibrium_of_rps(select: str) -> None:
    game = gdl.load("rps")
    agent = make_sim_agent(game, f"mcts:select={select},iterations=3000", seed=3)
    picks = [str(agent.choose_for(game.initial_state(), 0)) for _ in range(40)]
    assert len(set(picks)) == 3  # a pure choice would be exploitable


def test_the_equilibrium_player_beats_random_play_in_goofspiel() -> None:
    game = gdl.load("goofspiel", {"cards": "3"})
    agents = [make_sim_agent(game, "perfect", 1), make_sim_agent(game, "random", 2)]
    perfect, random_player = play_match(game, agents, games=20, seed=5).records
    assert perfect.games == random_player.games == 20
    assert perfect.losses == 0 < perfect.wins  # bidding the prize's value first never loses here


def test_the_solver_and_the_rule_file_agree_with_brute_force_on_rps() -> None:
    game = gdl.load("rps")
    state = game.initial_state()
    matrix = [[game.utilities(game.apply_joint(state, (a, b)))[0] for b in game.legal_moves(state, 1)]
              for a in game.legal_moves(state, 0)]
    assert matrix == [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
    assert solve_simultaneous(game).value[0] == pytest.approx(solve_zero_sum(matrix).value) == pytest.approx(0)


SEXES = """game Sexes "Battle of the sexes"
players P, Q
simultaneous
enum venue: opera, football
state pick[player]: venue? = none
move go(v: venue) when pick[mover] == none:
    pick[mover] = v
terminal when pick[P] != none and pick[Q] != none
def same(v: venue) = pick[P] == v and pick[Q] == v
utility p: (3 if p == P else 2) if same(opera) else ((2 if p == P else 3) if same(football) else 0)
"""


def test_a_general_sum_round_lists_every_pure_equilibrium_and_one_mixed(tmp_path, capsys) -> None:
    path = tmp_path / "sexes.gdl"
    path.write_text(SEXES)
    assert main(["solve", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pure_equilibria"] == [
        {"moves": {"P": "go(opera)", "Q": "go(opera)"}, "value": {"P": 3.0, "Q": 2.0}},
        {"moves": {"P": "go(football)", "Q": "go(football)"}, "value": {"P": 2.0, "Q": 3.0}}]
    mixed = report["mixed_equilibrium"]
    assert mixed["strategy"]["P"] == pytest.approx({"go(opera)": 0.6, "go(football)": 0.4})
    assert mixed["strategy"]["Q"] == pytest.approx({"go(opera)": 0.4, "go(football)": 0.6})
    assert mixed["value"] == pytest.approx({"P": 1.2, "Q": 1.2})
    assert main(["solve", str(path)]) == 0
    out = capsys.readouterr().out
    assert "pure equilibria (neither player gains by changing alone): 2" in out and "a mixed equilibrium" in out
    dilemma = SEXES.replace("utility p: (3 if p == P else 2) if same(opera) else ((2 if p == P else 3) if "
                            "same(football) else 0)",
                            "utility p: (3 if pick[opponent(p)] == opera else 0) + (2 if pick[p] == football else 0)")
    path.write_text(dilemma)  # a prisoner's dilemma: football (talk) dominates
    assert main(["solve", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [e["moves"] for e in report["pure_equilibria"]] == [{"P": "go(football)", "Q": "go(football)"}]
    assert report["mixed_equilibrium"] is None
