"""The match runner (solver/match.py), `gdl match` in process, game records, `gdl replay` and `--moves @FILE`."""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from refgames import Pig, Takeaway3, TicTacToe

from gdl.cli import main
from solver.game import CHANCE
from solver.match import (
    AgentRecord,
    GameEnd,
    MatchStop,
    elo,
    elo_interval,
    head_to_head,
    play_match,
    schedule,
    score_interval,
    wilson_interval,
)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ---------------------------------------------------------------- the runner


def test_match_alternates_seats_and_counts_results() -> None:
    game = TicTacToe()
    result = play_match(game, ["alphabeta:depth=4", "random"], games=6, seed=2)
    strong, weak = result.records
    assert strong.games == weak.games == 6
    assert strong.losses == 0 and strong.wins == weak.losses and strong.draws == weak.draws
    assert [g.seats for g in result.games[:2]] == [(0, 1), (1, 0)]
    assert strong.by_seat[0] and sum(sum(s) for s in strong.by_seat) == 6
    again = play_match(game, ["alphabeta:depth=4", "random"], games=6, seed=2)
    assert [g.moves for g in again.games] == [g.moves for g in result.games]
    assert result.stop is MatchStop.COMPLETE and all(g.end is GameEnd.FINISHED for g in result.games)


def test_match_with_chance_and_three_players() -> None:
    pig = play_match(Pig(6), ["perfect", "random"], games=4, seed=1)
    assert sum(r.wins for r in pig.records) == 4
    rolls = [(m, p) for g in pig.games for m, who, p in zip(g.moves, g.movers, g.probabilities, strict=True)
             if who == CHANCE]
    assert rolls and all(p == pytest.approx(1 / 6) for _, p in rolls)
    three = play_match(Takeaway3(5), ["random", "random", "minimax"], games=3, seed=1)
    assert all(r.games == 3 for r in three.records)
    assert three.labels == ("random", "random#2", "minimax")
    with pytest.raises(ValueError, match="3 players but 2 agents"):
        play_match(Takeaway3(5), ["random", "random"])


def test_schedule_is_a_round_robin_with_every_seat_order() -> None:
    assert schedule(2, 2) == [(0, 1), (1, 0)]
    assert schedule(3, 2) == [(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)]
    three = schedule(3, 3)
    assert len(three) == 6 and all(sorted(s) == [0, 1, 2] for s in three)  # no agent in two seats
    four = schedule(4, 3)
    assert len(four) == 24 and all(len(set(s)) == 3 for s in four)
    for agent in range(4):  # every agent sits in every seat equally often
        assert len({sum(1 for s in four if s[seat] == agent) for seat in range(3)}) == 1
    with pytest.raises(ValueError, match="one-player puzzle"):
        schedule(2, 1)


def test_three_agents_in_a_two_player_game_meet_in_pairs() -> None:
    result = play_match(TicTacToe(), ["random", "alphabeta:depth=2", "mcts:iterations=50"], games=6, seed=0)
    assert [r.games for r in result.records] == [4, 4, 4]
    for record in result.records:
        assert [sum(seat) for seat in record.by_seat] == [2, 2]
    pairs = head_to_head(result)
    assert set(pairs) == {(i, j) for i in range(3) for j in range(3) if i != j}
    for (i, j), (w, d, lo) in pairs.items():
        assert w + d + lo == 2 and pairs[j, i] == (lo, d, w)


def test_a_game_stopped_at_the_move_limit_is_a_draw() -> None:
    result = play_match(TicTacToe(), ["random", "random"], games=2, seed=0, max_moves=3)
    assert all(g.end is GameEnd.MAX_MOVES and g.truncated for g in result.games)
    assert [(r.wins, r.draws, r.losses) for r in result.records] == [(0, 2, 0), (0, 2, 0)]


class _Interrupting:
    name = "ctrl-c"

    def choose(self, state):
        raise KeyboardInterrupt


def test_ctrl_c_stops_the_match_and_keeps_the_games_so_far() -> None:
    game = TicTacToe()
    from solver.agents import RandomAgent

    result = play_match(game, [RandomAgent(game, 1), _Interrupting()], games=4, seed=0)
    assert result.stop is MatchStop.INTERRUPTED
    assert len(result.games) == 1 and result.games[0].end is GameEnd.INTERRUPTED
    assert result.games[0].moves and all(r.games == 0 for r in result.records)  # X moved, then Ctrl-C


# ---------------------------------------------------------------- statistics


def test_score_interval_is_wilson() -> None:
    score, low, high = score_interval(AgentRecord("a", 60, 20, 20))
    assert score == pytest.approx(0.7) and low == pytest.approx(0.60415, abs=1e-4)
    assert high == pytest.approx(0.78105, abs=1e-4)
    assert wilson_interval(0.5, 100) == pytest.approx((0.4038, 0.5962), abs=1e-3)
    assert wilson_interval(0.0, 6)[0] == 0 and wilson_interval(0.0, 6)[1] > 0  # not empty at a sweep


def test_elo_is_finite_at_a_sweep() -> None:
    assert elo(0.5, 10) == 0
    assert elo(0.75, 10) == pytest.approx(190.85, abs=0.01)
    assert elo(1.0, 6) == pytest.approx(400 * math.log10(13))  # 6-0 counts as 6.5 of 7
    assert elo(1.0, 1) == pytest.approx(elo(0.75, 1)) and elo(0.0, 0) == 0
    assert elo(0.0, 6) == -elo(1.0, 6)
    rating, low, high = elo_interval(AgentRecord("a", 6, 0, 0))
    assert all(math.isfinite(x) for x in (rating, low, high)) and low < rating == high


# ---------------------------------------------------------------- gdl match


def test_match_json_has_every_game_its_moves_and_the_seats(capsys) -> None:
    code, out, _ = run(capsys, "match", "tictactoe", "random", "alphabeta:depth=2", "mcts", "--games", "6",
                       "--json")
    assert code == 0
    report = json.loads(out)
    assert report["agents"] == ["random", "alphabeta:depth=2", "mcts:iterations=1000"]  # defaults in labels
    assert len(report["game_log"]) == 6 and all(g["moves"] and g["plies"] == len(g["moves"])
                                                for g in report["game_log"])
    assert {tuple(g["seats"].values()) for g in report["game_log"]} == {
        ("random", "alphabeta:depth=2"), ("alphabeta:depth=2", "random"), ("random", "mcts:iterations=1000"),
        ("mcts:iterations=1000", "random"), ("alphabeta:depth=2", "mcts:iterations=1000"),
        ("mcts:iterations=1000", "alphabeta:depth=2")}
    for label, seats in report["by_seat"].items():
        totals = [sum(s[k] for s in seats.values()) for k in ("wins", "draws", "losses")]
        assert totals == [report["results"][label][k] for k in ("wins", "draws", "losses")]
        assert all(math.isfinite(x) for x in report["ratings"][label]["elo_ci95"])


def test_match_text_labels_a_bare_alphabeta_with_its_depth(capsys) -> None:
    code, out, _ = run(capsys, "match", "nim", "-p", "heaps=[1,2]", "alphabeta", "random", "--games", "4")
    assert code == 0
    assert "alphabeta:depth=4" in out and "as First" in out and "as Second" in out and "Elo difference" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["match", "eight_puzzle", "random", "random"], "one-player puzzle has no opponent"),
    (["match", "takeaway3", "random", "random"], "3 players but 2 agents"),
    (["match", "tictactoe", "random", "alphabet:depth=2"], "did you mean 'alphabeta'?"),
    (["match", "tictactoe", "random", "alphabeta:dpth=2"], "did you mean 'depth'?"),
    (["match", "tictactoe", "random"], "2 players but 1 agents"),
    (["match", "tictactoe", "random", "random", "--record", "/nonexistent/dir/r.json"], "no such folder"),
])
def test_match_usage_errors(capsys, argv, message) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2, out + err
    assert message in err and "Traceback" not in out + err


# ---------------------------------------------------------------- records


def test_match_record_replays_and_feeds_solve(capsys, tmp_path: Path) -> None:
    path = tmp_path / "games.json"
    code, out, _ = run(capsys, "match", "pig", "-p", "goal=6", "random", "random", "--games", "2", "--record",
                       str(path), "--json")
    assert code == 0
    record = json.loads(path.read_text())
    assert record["format"] == "gdl-record" and record["game"] == "Pig" and record["seed"] == 0
    assert record["parameters"]["goal"] == 6 and record["parameter_args"] == ["goal=6"]
    assert len(record["games"]) == 2
    game = record["games"][0]
    assert [m["move"] for m in game["moves"]] == json.loads(out)["game_log"][0]["moves"]
    chance = [m for m in game["moves"] if m.get("chance")]
    assert chance and all(m["player"] is None and m["probability"] == pytest.approx(1 / 6) for m in chance)
    assert game["result"]["end"] == "finished" and len(game["result"]["winners"]) == 1
    assert set(game["agents"]) == {"A", "B"}

    code, out, _ = run(capsys, "replay", str(path), "--game", "2")
    assert code == 0
    moves = [m["move"] for m in record["games"][1]["moves"]]
    assert f"{len(moves)}. " in out and "finished: utilities" in out and "chance: d=" in out

    code, out, _ = run(capsys, "solve", "pig", "-p", "goal=6", "--moves", f"@{path}#1:3", "--json")
    assert code == 0
    assert json.loads(out)["moves"] == [m["move"] for m in game["moves"][:3]]
    code, _, err = run(capsys, "solve", "pig", "--moves", f"@{path}")
    assert code == 2 and "other parameters (-p goal=6)" in err
    code, _, err = run(capsys, "solve", "tictactoe", "--moves", f"@{path}")
    assert code == 2 and "record of Pig, not TicTacToe" in err


def test_a_quit_game_is_recorded(capsys, monkeypatch, tmp_path: Path) -> None:
    path = tmp_path / "quit.json"
    lines = iter(["b2", "undo", "a1", "quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))
    code, _, err = run(capsys, "play", "tictactoe", "--vs", "random", "--seed", "2", "--record", str(path))
    assert code == 0 and "game recorded" in err
    entry = json.loads(path.read_text())["games"][0]
    assert entry["agents"] == {"X": "you", "O": "random"}
    assert entry["moves"][0]["move"] == "place(a1)"  # the undone move is not in the record
    assert len(entry["moves"]) == 2 and entry["result"] == {"end": "quit", "utilities": None, "winners": None}


def test_an_interrupted_game_is_recorded(capsys, monkeypatch, tmp_path: Path) -> None:
    path = tmp_path / "ctrl-c.json"

    def interrupt(prompt: str = "") -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr("builtins.input", interrupt)
    code, _, _ = run(capsys, "play", "tictactoe", "--vs", "random", "--moves", "place(b2),place(a1)",
                     "--record", str(path))
    assert code == 130
    entry = json.loads(path.read_text())["games"][0]
    assert [m["move"] for m in entry["moves"]] == ["place(b2)", "place(a1)"]
    assert entry["result"]["end"] == "interrupted"


@pytest.mark.parametrize(("content", "message"), [
    ("not json", "not JSON"),
    ('{"format": "other"}', "not a game record"),
    ('{"format": "gdl-record", "version": 99, "games": []}', "record version 99"),
    ('{"format": "gdl-record", "version": 1, "game": "TicTacToe", "source": "tictactoe", "games": []}',
     "holds no game"),
])
def test_bad_records_are_one_line_errors(capsys, tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and message in err and "Traceback" not in out + err
    code, _, err = run(capsys, "replay", str(tmp_path / "missing.json"))
    assert code == 2 and "no such record file" in err


# ---------------------------------------------------------------- records of simultaneous games (issue 29)


@pytest.mark.parametrize("name", ["rps", "goofspiel"])
def test_records_of_simultaneous_games_replay(capsys, tmp_path: Path, name: str) -> None:
    # `gdl replay` failed with IndexError on every record of a simultaneous game, from play and from match
    played, matched = tmp_path / "play.json", tmp_path / "match.json"
    code, _, err = run(capsys, "play", name, "--as", "none", "--vs", "random", "--vs", "random", "--seed", "3",
                       "--record", str(played))
    assert code == 0, err
    code, _, err = run(capsys, "match", name, "random", "random", "--games", "2", "--record", str(matched))
    assert code == 0, err
    for path in (played, matched):
        record = json.loads(path.read_text())
        moves = record["games"][-1]["moves"]
        assert moves and all(m["simultaneous"] is True and "player" not in m for m in moves)
        code, out, err = run(capsys, "replay", str(path), "--game", str(len(record["games"])))
        assert code == 0, err
        first, second = record["players"]
        for number, ply in enumerate(moves, 1):
            mine, theirs = ply["move"].split("|")
            assert f"{number}. {first} {mine}, {second} {theirs}" in out
        assert "finished: utilities" in out
    code, out, err = run(capsys, "solve", name, "--moves", f"@{matched}#2:1", "--json")
    assert code == 0, err
    assert json.loads(out)["moves"] == [json.loads(matched.read_text())["games"][1]["moves"][0]["move"]]


# ---------------------------------------------------------------- hostile records (issue 29)


@contextlib.contextmanager
def no_hang(seconds: float = 20.0) -> Iterator[None]:
    """Fail (rather than hang) when the block runs longer than ``seconds`` (a FIFO opened for reading)."""
    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _record(tmp_path: Path, **fields: object) -> dict[str, object]:
    record: dict[str, object] = {"format": "gdl-record", "version": 1, "command": "play", "game": "Nim",
                                 "source": "nim", "parameter_args": [], "players": ["First", "Second"],
                                 "seed": 1, "games": [{"agents": {}, "moves": [{"ply": 1, "move": "take(0,1)"}]}]}
    record["parameters"] = json.loads((tmp_path / "nim-parameters.json").read_text())
    record.update(fields)
    return record


@pytest.fixture
def nim_parameters(tmp_path: Path, capsys) -> None:
    path = tmp_path / "real.json"
    assert run(capsys, "match", "nim", "random", "random", "--games", "1", "--record", str(path))[0] == 0
    (tmp_path / "nim-parameters.json").write_text(json.dumps(json.loads(path.read_text())["parameters"]))


HOSTILE_RECORDS = {
    "deep nesting": ('{"format": "gdl-record", "version": 1, "games": ' + "[" * 100_000 + "]" * 100_000 + "}",
                     "nested more than 32 levels"),
    "nesting past the cap": ('{"format": "gdl-record", "version": 1, "x": ' + "[" * 40 + "]" * 40 + ', "games": []}',
                             "nested more than 32 levels"),
    "a 5,000-digit integer": ('{"format": "gdl-record", "version": 1, "seed": ' + "7" * 5000 + ', "games": []}',
                              "5,000 digits"),
    "a number past a float": ('{"format": "gdl-record", "version": 1, "seed": 1e999, "games": []}', "too large"),
    "NaN": ('{"format": "gdl-record", "version": NaN, "games": []}', "NaN"),
}


@pytest.mark.parametrize("shape", list(HOSTILE_RECORDS))
def test_hostile_json_in_a_record_is_a_one_line_error(capsys, tmp_path: Path, shape: str) -> None:
    text, message = HOSTILE_RECORDS[shape]
    path = tmp_path / "hostile.json"
    path.write_text(text)
    for argv in (["replay", str(path)], ["solve", "nim", "--moves", f"@{path}"]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and message in err and "Traceback" not in out + err, (argv, err[-800:])
        assert len(err.strip().splitlines()) == 1, err[-800:]


@pytest.mark.parametrize("kind", ["FIFO", "/dev/zero", "directory", "too large"])
def test_a_record_that_is_no_regular_file_is_refused_without_blocking(capsys, tmp_path: Path, kind: str) -> None:
    path = tmp_path / "record.json"
    if kind == "FIFO":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "too large":
        with path.open("wb") as file:  # a sparse file: its size is refused before it is read
            file.truncate(33_000_000)
    else:
        path = Path("/dev/zero")
    word = {"/dev/zero": "character device"}.get(kind, kind)
    for argv in (["replay", str(path)], ["solve", "nim", "--moves", f"@{path}"]):
        with no_hang():
            code, out, err = run(capsys, *argv)
        assert code == 2 and word in err and "Traceback" not in out + err, (argv, err[-800:])


SECRET = "root:$6$do-not-print-me:19000:0:99999:7:::"


@pytest.mark.usefixtures("nim_parameters")
@pytest.mark.parametrize("source", ["secret", "secret.gdl", "/etc/shadow", "nim\x00.gdl", "missing.gdl"])
def test_a_records_source_cannot_choose_a_file_to_open_or_quote(capsys, tmp_path: Path, source: str) -> None:
    # a record's `source` chose the rule file gdl replay opened, and the error quoted its first line
    for name in ("secret", "secret.gdl"):
        (tmp_path / name).write_text(SECRET + "\n")
    chosen = str(tmp_path / source) if source.startswith(("secret", "missing")) else source
    path = tmp_path / "record.json"
    path.write_text(json.dumps(_record(tmp_path, source=chosen)))
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and "Traceback" not in out + err, err
    assert "do-not-print-me" not in out + err and "--rules FILE" in err
    assert len(err.strip().splitlines()) == 1, err
    # the user may name the rules: then they are the user's file, and used
    code, out, err = run(capsys, "replay", str(path), "--rules", "nim")
    assert code == 0 and "1. First: take(0,1)" in out, err


@pytest.mark.usefixtures("nim_parameters")
def test_a_records_source_may_name_a_bundled_game_or_a_gdl_file(capsys, tmp_path: Path) -> None:
    from gdl.loader import games_dir

    copy = tmp_path / "mynim.gdl"
    copy.write_text((games_dir() / "nim.gdl").read_text())
    (tmp_path / "nim").write_text(SECRET + "\n")  # a file named as the bundled game: not the one used
    for source in ("nim", str(copy)):
        path = tmp_path / "record.json"
        path.write_text(json.dumps(_record(tmp_path, source=source)))
        code, out, err = run(capsys, "replay", str(path))
        assert code == 0 and "1. First: take(0,1)" in out, err


@pytest.mark.usefixtures("nim_parameters")
@pytest.mark.parametrize(("fields", "message"), [
    ({"games": [{"moves": [], "agents": ["random"]}]}, "\"agents\" must map players"),
    ({"games": [{"moves": [], "result": {"end": "finished", "utilities": [1, -1]}}]}, "\"result\" must hold"),
    ({"games": [{"moves": [], "result": "finished"}]}, "\"result\" must hold"),
    ({"games": [{"moves": [{"move": "x" * 5000}]}]}, "every move must be"),
    ({"parameter_args": [7]}, "\"parameter_args\" must be a list of strings"),
    ({"parameters": [1]}, "\"parameters\" must be an object"),
    ({"seed": "7"}, "\"seed\" must be a whole number"),
    ({"game": "N" * 5000}, "\"game\" and \"source\" must be strings"),
])
def test_a_record_with_fields_of_the_wrong_type_is_a_one_line_error(capsys, tmp_path: Path, fields, message) -> None:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(_record(tmp_path, **fields)))
    for argv in (["replay", str(path)], ["solve", "nim", "--moves", f"@{path}"]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and message in err and "Traceback" not in out + err, (argv, err[-800:])


def test_a_name_too_long_for_the_system_is_a_one_line_error(capsys) -> None:
    name = "a" * 5000
    for argv in (["replay", name], ["solve", "nim", "--moves", f"@{name}#{'9' * 5000}"], ["check", name],
                 ["info", name], ["new", name], ["solve", "nim", "--save", name]):
        code, out, err = run(capsys, *argv)
        assert code in (1, 2) and "Traceback" not in out + err, (argv[0], err[-800:])
