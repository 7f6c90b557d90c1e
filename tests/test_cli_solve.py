"""`gdl solve`, `gdl play`, `gdl match` in process (fast), and the agent specs."""

from __future__ import annotations

import json

import pytest

import gdl
from gdl.cli import main
from gdl.cli.engine import EngineError, make_agent, parse_spec
from gdl.moves import match_move
from solver.game import AmbiguousMoveError, IllegalMoveError, UnknownMoveError, play_moves


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_solve_text_output(capsys):
    code, out, _ = run(capsys, "solve", "tictactoe")
    assert code == 0
    assert "exact value: X 0, O 0" in out and "draw under perfect play" in out
    assert "principal variation:" in out and "nodes in" in out and "nodes/s" in out and "TT" in out


def test_solve_from_a_position(capsys):
    code, out, _ = run(capsys, "solve", "tictactoe", "--moves", "place(a1),place(b1)", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["value"] == {"X": 1, "O": -1}  # O's edge reply loses
    assert report["moves"] == ["place(a1)", "place(b1)"]


def test_solve_with_chance_gives_the_expected_utility(capsys):
    code, out, _ = run(capsys, "solve", "pig", "-p", "goal=10", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["value"]["A"] == pytest.approx(2 * 0.709424 - 1, abs=1e-5)  # Neller & Presser
    assert report["exact"] is True


def test_solve_heuristic_depth(capsys):
    code, out, _ = run(capsys, "solve", "connect4", "--depth", "2", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["exact"] is False and report["best_moves"]


def test_solve_save_then_play_from_the_table(capsys, tmp_path):
    table = tmp_path / "ttt.sqlite"
    code, _, _ = run(capsys, "solve", "tictactoe", "--save", str(table))
    assert code == 0 and table.exists()
    code, out, _ = run(capsys, "match", "tictactoe", f"perfect:table={table}", "random", "--games", "4", "--json")
    assert code == 0
    assert json.loads(out)["results"][f"perfect:table={table}"]["losses"] == 0


@pytest.mark.parametrize(("argv", "message"), [
    (["solve", "tictactoe", "--moves", "place(z9)"], "is not legal here"),
    (["solve", "tictactoe", "--moves", "jump(a1)"], "not a move of TicTacToe"),
    (["solve", "tictactoe", "--depth", "0"], "--depth"),
    (["solve", "tictactoe", "--algorithm", "magic"], "invalid choice"),
    (["solve", "nosuch"], "no rule file or bundled game"),
    (["match", "tictactoe", "random", "genius"], "unknown agent 'genius'"),
    (["match", "tictactoe", "random", "alphabeta:depht=3"], "no option 'depht'"),
    (["match", "tictactoe", "random", "random", "--games", "0"], "--games"),
    (["play", "tictactoe", "--vs", "alphabeta:depth=x"], "whole number"),
    (["play", "tictactoe", "--as", "Z"], "not a player"),
    (["play", "pig", "--vs", "alphabeta"], "chance"),
])
def test_usage_errors(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2, out + err
    assert message in err
    assert "Traceback" not in out + err


def test_match_json_and_table(capsys):
    code, out, _ = run(capsys, "match", "tictactoe", "random", "perfect", "--games", "6", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["results"]["perfect:seconds=60"]["losses"] == 0  # (labelled with its cap per move)
    assert sum(report["results"]["random"].values()) > 0
    assert [g["seats"]["X"] for g in report["game_log"][:2]] == ["random", "perfect:seconds=60"]  # seats alternate
    code, out, _ = run(capsys, "match", "nim", "-p", "heaps=[1,2]", "alphabeta:depth=3", "random", "--games", "4")
    assert code == 0 and "Elo difference" in out and "95% CI" in out


def test_play_in_process(capsys, monkeypatch):
    lines = iter(["", "moves", "zz", "pl", "b2", "undo", "b2", "hint", "a1", "c3", "quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))
    code, out, _ = run(capsys, "play", "tictactoe", "--vs", "random", "--seed", "2")
    assert code == 0
    assert "legal moves: place(a1)" in out
    assert "'zz' is not a move of TicTacToe" in out
    assert "'pl' could be 9 moves" in out
    assert "took back your last move" in out
    assert "hint: place(" in out


def test_watch_agents_play(capsys):
    code, out, _ = run(capsys, "play", "pig", "-p", "goal=5", "--as", "none", "--vs", "random", "--vs", "perfect",
                       "--seed", "4")
    assert code == 0
    assert "chance: d=" in out and "game over:" in out


def test_match_move():
    game = gdl.load("tictactoe")
    state = play_moves(game, ["place(b2)"])
    assert str(match_move(game, state, "a1")) == "place(a1)"
    assert str(match_move(game, state, "place( c3 )")) == "place(c3)"
    with pytest.raises(AmbiguousMoveError):
        match_move(game, state, "pla")
    with pytest.raises(IllegalMoveError, match=r"place\(b2\) is not legal"):
        match_move(game, state, "b2")
    with pytest.raises(UnknownMoveError):
        match_move(game, state, "jump")


def test_agent_specs():
    game = gdl.load("tictactoe")
    assert parse_spec("alphabeta:depth=6,time=1") == ("alphabeta", {"depth": 6, "seconds": 1.0})
    assert make_agent("alphabeta", game).search  # a depth-limited default (4 plies), not an endless search
    assert make_agent("perfect", game).name == "perfect:seconds=60"  # its default cap per move, stated
    assert make_agent("perfect:nodes=100", game).name == "perfect:nodes=100"
    for bad in ("", "perfect:table", "mcts:depth=3", "alphabeta:time=-1"):
        with pytest.raises(EngineError):
            make_agent(bad, game)


@pytest.mark.parametrize("backend", ["python", "c"])
def test_solve_value_only(capsys, backend):
    """`--value-only`: the value and one best move, nothing else computed (no other move's value, no distance)."""
    code, out, _ = run(capsys, "solve", "tictactoe", "--moves", "place(a1),place(b1)", "--value-only", "--json",
                       "--backend", backend)
    assert code == 0
    report = json.loads(out)
    full = json.loads(run(capsys, "solve", "tictactoe", "--moves", "place(a1),place(b1)", "--json",
                          "--backend", backend)[1])
    assert report["value"] == full["value"] == {"X": 1, "O": -1}
    assert len(report["best_moves"]) == 1 and report["best_moves"][0] in full["best_moves"]
    assert report["move_values"] == {} and report["plies_to_end"] is None and full["plies_to_end"] is not None
    assert report["stats"]["nodes"] < full["stats"]["nodes"]
    code, text, _ = run(capsys, "solve", "tictactoe", "--value-only", "--backend", backend)
    assert code == 0 and "best move:" in text and "distance to the end" not in text  # (not asked for: not excused)


def test_a_command_line_imports_only_its_own_command():
    """Start-up is part of every command's time: `gdl solve ...` does not import the other commands' modules."""
    import subprocess
    import sys

    code = ("import sys; from gdl.cli.app import main; main(['solve', 'nim', '--value-only', '--json']); "
            "print(sorted(m for m in sys.modules if m.startswith('gdl.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = out.strip().splitlines()[-1]
    assert "gdl.cli.solve" in loaded
    for other in ("gdl.cli.play", "gdl.cli.match", "gdl.cli.book", "gdl.cli.check", "gdl.cli.lsp"):
        assert f"'{other}'" not in loaded, other
