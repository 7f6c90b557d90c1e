"""`gdl check`, `gdl list`, `gdl info` driven through ``gdl.cli.main`` (in process, fast)."""

from __future__ import annotations

import json
import re

import pytest
from warp import warp_clocks

from gdl.cli import main

GOOD = 'game T "test"\nplayers A, B\nstate n: 0..3 = 0\nmove inc:\n    n += 1\nwin A when n == 3\n'
BROKEN = 'game T "test"\nplayers A, B\nstate n: 0..3 = 0\nmove inc:\n    n += nn\nwin A when n == 3\n'
STUCK = 'game T "test"\nplayers A, B\nstate n: 0..5 = 0\nmove inc when n < 3:\n    n += 1\nwin A when n == 5\n'
WARN = 'players A, B\nstate n: 0..3 = 0\nmove inc:\n    n += 1\nwin A when n == 3\n'
LONG = ('game T "random games of 17,000 to 20,000 plies"\nplayers A, B\nstate n: 0..20000 = 0\n'
        'move step: n += 1\nmove skip when n % 7 == 3: n += 2\nwin A when n == 20000\n')


@pytest.fixture
def files(tmp_path):
    def write(name: str, text: str | bytes) -> str:
        path = tmp_path / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
        return str(path)

    return write


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_check_good_file(capsys, files):
    code, out, _ = run(capsys, "check", files("good.gdl", GOOD))
    assert code == 0
    assert "1 file checked: 0 errors, 0 warnings" in out


def test_check_warnings_only_exit_zero(capsys, files):
    code, out, _ = run(capsys, "check", files("warn.gdl", WARN), "--playouts", "5")
    assert code == 0
    assert "warning[missing-game]" in out
    assert "0 errors, 1 warning" in out


def test_check_static_error_shows_line_caret_and_hint(capsys, files):
    path = files("broken.gdl", BROKEN)
    code, out, _ = run(capsys, "check", path)
    assert code == 1
    assert f"{path}:5:10: error[undefined-name]" in out
    assert "n += nn" in out and "^^" in out
    assert "hint: did you mean `n`?" in out
    assert "1 file checked: 1 error, 0 warnings" in out


def test_check_dynamic_error_with_moves(capsys, files):
    code, out, _ = run(capsys, "check", files("stuck.gdl", STUCK), "--seed", "3")
    assert code == 1
    assert "error[dead-end]" in out
    assert "note: reproduce with the moves: inc,inc,inc" in out


def test_check_json(capsys, files):
    good, broken, warn = files("good.gdl", GOOD), files("broken.gdl", BROKEN), files("w.gdl", WARN)
    code, out, _ = run(capsys, "check", "--json", good, broken, warn)
    assert code == 1
    data = json.loads(out)
    assert (data["schema_version"], data["files"], data["errors"], data["warnings"]) == (1, 3, 1, 1)
    assert [(d["file"], d["severity"], d["code"]) for d in data["diagnostics"]] == [
        (broken, "error", "undefined-name"), (warn, "warning", "missing-game")]
    first = data["diagnostics"][0]
    assert {"file", "line", "column", "severity", "code", "message"} <= set(first)
    assert (first["line"], first["column"]) == (5, 10)


def test_check_json_lists_all_moves_of_a_dynamic_error(capsys, files):
    code, out, _ = run(capsys, "check", "--json", files("stuck.gdl", STUCK))
    assert code == 1
    [diagnostic] = json.loads(out)["diagnostics"]
    assert diagnostic["code"] == "dead-end"
    assert diagnostic["notes"] == ["reproduce with the moves: inc,inc,inc"]


def test_check_several_files_summary(capsys, files):
    code, out, _ = run(capsys, "check", files("a.gdl", GOOD), files("b.gdl", WARN), files("c.gdl", GOOD))
    assert code == 0
    assert "3 files checked: 0 errors, 1 warning" in out


def summary_counts(out: str) -> tuple[int, int]:
    """The playouts and plies of the summary line."""
    match = re.search(r"\(([\d,]+) random playouts?, ([\d,]+) plies", out)
    assert match, out
    return int(match[1].replace(",", "")), int(match[2].replace(",", ""))


def test_check_a_20000_ply_game_stops_at_max_plies_with_a_note(capsys, files):
    path = files("long.gdl", LONG)
    code, out, err = run(capsys, "check", path, "--max-states", "0")  # sampled: the default --max-plies, --time
    assert code == 0, out + err
    assert "warning[no-end]" in out and "no state repeated" in out
    assert "note: only the first 10000 plies of a random game are checked" in out
    assert "--max-plies N" in out
    assert "1 file checked: 0 errors, 1 warning" in out
    playouts, plies = summary_counts(out)
    assert 1 <= playouts <= 3 and 10_000 <= plies <= 30_000
    code, out, _ = run(capsys, "check", path, "--max-plies", "20000", "--playouts", "4", "--time", "0",
                       "--max-states", "0")
    assert code == 0 and "0 errors, 0 warnings" in out
    assert summary_counts(out)[0] == 4


def test_check_time_budget_plays_the_minimum_and_says_so(capsys):
    code, out, _ = run(capsys, "check", "tictactoe", "--time", "1e-9", "--max-states", "0")
    assert code == 0
    assert summary_counts(out)[0] == 10
    assert "the --time budget ended the playouts of 1 file" in out
    code, out, _ = run(capsys, "check", "tictactoe", "--time", "0", "--playouts", "300", "--max-states", "0")
    assert summary_counts(out)[0] == 300 and "--time" not in out


def test_check_says_the_same_on_a_slow_machine(capsys, monkeypatch):
    """Whether a game is explored, and how much it is sampled, is counted in steps: a machine whose clocks run
    fast (a busy one, tests/warp.py) prints the same. Pig's 28,918 states need more than the exploration's
    budget, so it is sampled, on any machine (its budget of 0.25 CPU seconds said "explored" in one run and
    "sampled" in the next on a busy machine; its playouts' 0.04 s played fewer games)."""
    expected = run(capsys, "check", "games/pig.gdl")
    assert expected[0] == 0
    assert ("(200 random playouts, 5,555 plies; sampled: exploring every state would take more than "
            "--explore-steps 100,000 steps (19,994 states found))") in expected[1]
    warp_clocks(monkeypatch, 0.002)
    assert run(capsys, "check", "games/pig.gdl") == expected


def test_check_help_documents_the_limits(capsys):
    code, out, _ = run(capsys, "check", "--help")
    assert code == 0
    text = " ".join(out.split())
    assert "--playout-steps N" in text and "(default 10,000; 0 for no limit" in text
    assert "--time SECONDS" in text and "(default 0: no time limit)" in text
    assert "--max-plies N" in text and "(default 10000)" in text and "(default 200;" in text


def test_check_bundled_name(capsys):
    code, out, _ = run(capsys, "check", "tictactoe", "--playouts", "10")
    assert code == 0 and "1 file checked" in out


@pytest.mark.parametrize("what", ["missing", "directory"])
def test_check_missing_file_or_directory_is_a_usage_error(capsys, files, tmp_path, what):
    target = str(tmp_path / "nope.gdl") if what == "missing" else str(tmp_path)
    code, out, err = run(capsys, "check", target, files("good.gdl", GOOD))
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert ("no such file" if what == "missing" else "is a directory") in err
    assert "Traceback" not in out + err
    assert "1 file checked" in out  # the other file was still checked


def test_check_non_utf8_is_a_one_line_error(capsys, files):
    path = files("latin1.gdl", "game T\n# caf\xe9\n".encode("latin-1"))
    code, out, err = run(capsys, "check", path)
    assert code == 1
    assert f"{path}:2:1: error[encoding]: not a UTF-8 text file" in out
    assert "Traceback" not in out + err
    code, out, _ = run(capsys, "check", "--json", path)
    assert json.loads(out)["diagnostics"][0]["code"] == "encoding"


@pytest.mark.parametrize("argv", [
    ["check"],
    ["check", "x.gdl", "--playouts", "many"],
    ["check", "x.gdl", "--bogus"],
    ["check", "x.gdl", "--playouts", "-1"],
    ["check", "x.gdl", "--time", "-1"],
    ["check", "x.gdl", "--time", "nan"],
    ["check", "x.gdl", "--max-plies", "0"],
    ["check", "x.gdl", "-p", "novalue"],
    ["frobnicate"],
    [],
])
def test_usage_errors_exit_2(capsys, argv, files):
    argv = [files("x.gdl", GOOD) if a == "x.gdl" else a for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert "Traceback" not in out + err


def test_check_unknown_parameter_exit_2(capsys, files):
    code, _, err = run(capsys, "check", files("x.gdl", GOOD), "-p", "size=3")
    assert code == 2
    assert "unknown parameter 'size'" in err


def test_list(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0
    assert "tictactoe" in out and "connect4" in out and "cols=7" in out
    code, out, _ = run(capsys, "list", "--json")
    games = {g["name"]: g for g in json.loads(out)["games"]}
    assert games["tictactoe"]["players"] == ["X", "O"]
    assert games["pig"]["chance"] is True


def test_info(capsys):
    code, out, _ = run(capsys, "info", "tictactoe", "--playouts", "50")
    assert code == 0
    for word in ("TicTacToe", "players", "X, O", "branching", "length", "zero-sum", "known value", "draw"):
        assert word in out
    code, out, _ = run(capsys, "info", "connect4", "-p", "cols=4", "-p", "rows=4", "--json", "--playouts", "20")
    info = json.loads(out)
    assert info["parameters"] == {"cols": 4, "rows": 4, "k": 4}
    assert info["random_playouts"]["playouts"] == 20
    assert 1 < info["random_playouts"]["mean_branching"] <= 4
    assert info["chance"] is False and info["zero_sum"] is True


def test_info_plays_the_same_on_a_slow_machine(capsys, monkeypatch):
    """`gdl info`'s playouts are bounded in steps: a machine whose clocks run fast (tests/warp.py) plays the same
    200 games (its 10 wall-clock seconds played fewer on a busy machine, and the statistics changed)."""
    expected = run(capsys, "info", "connect4")
    assert expected[0] == 0 and re.search(r"playouts +200 random games \(seed 0\) *\n", expected[1])
    warp_clocks(monkeypatch, 0.1)
    assert run(capsys, "info", "connect4") == expected


def test_info_steps_bound_the_playouts_and_say_so(capsys):
    """A game whose random games rarely end: --steps stops the playouts, the same number on any machine."""
    code, out, _ = run(capsys, "info", "eight_puzzle", "--steps", "50000")
    assert code == 0
    assert "8 random games (seed 0; --steps 50,000 ended them)" in out
    code, out, _ = run(capsys, "info", "eight_puzzle", "--steps", "50000", "--json")
    stats = json.loads(out)["random_playouts"]
    assert (stats["playouts"], stats["stopped_by"]) == (8, "steps")
    code, out, _ = run(capsys, "info", "connect4", "--json")
    assert json.loads(out)["random_playouts"]["stopped_by"] is None


@pytest.mark.parametrize(("argv", "message"), [
    (["info", "connect4", "--steps", "-1"], "--steps"),
    (["info", "tictactoo"], "did you mean 'tictactoe'"),
    (["info", "connect4", "-p", "cols=abc"], "whole number"),
    (["info", "connect4", "-p", "colz=4"], "unknown parameter"),
    (["info", "connect4", "-p", "cols=99"], "cols"),
])
def test_info_usage_errors(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert message in err
    assert "Traceback" not in out + err


def test_info_on_a_broken_rule_file_exit_1(capsys, files):
    code, _, err = run(capsys, "info", files("broken.gdl", BROKEN))
    assert code == 1
    assert "error[undefined-name]" in err


@pytest.mark.parametrize("command", ["check", "list", "info", "solve", "play", "match"])
def test_every_command_has_help_with_an_example(capsys, command):
    code, out, _ = run(capsys, command, "--help")
    assert code == 0
    assert "examples:" in out and f"gdl {command}" in out


NINES = ('game Nines "B is stuck once A has picked 9 six times in a row"\nplayers A, B\n'
         "state run: 0..6 = 0\nstate rounds: 0..12 = 0\n"
         "move pick(d: 0..9) when turn == A:\n    if d == 9: run += 1\n    else: run = 0\n    rounds += 1\n"
         "move answer when turn == B and run < 6\nwin A when rounds == 12\n")


def test_check_finds_the_six_nines_dead_end_by_exploring_every_state(capsys, files):
    path = files("nines.gdl", NINES)
    code, out, err = run(capsys, "check", path, "--explore-time", "0")
    assert code == 1, out + err
    assert f"{path}:5:1: error[dead-end]: B is to move but has no legal move" in out
    assert "note: reproduce with the moves: " + ",".join(["pick(9)", "answer"] * 5 + ["pick(9)"]) + "\n" in out
    assert "1 file checked: 1 error, 0 warnings (explored all 126 states)" in out
    code, out, _ = run(capsys, "check", path, "--max-states", "0")  # sampling alone misses it
    assert code == 0 and "0 errors" in out and "explored" not in out
    code, out, _ = run(capsys, "check", "--json", path, "--explore-time", "0")
    [diagnostic] = json.loads(out)["diagnostics"]
    assert diagnostic["code"] == "dead-end" and len(diagnostic["notes"]) == 4  # nearest, count, two more


def test_check_over_the_budget_says_it_sampled(capsys, files):
    path = files("long.gdl", LONG)
    # (--explore-steps 0: the state budget alone stops it)
    code, out, _ = run(capsys, "check", path, "--max-states", "1000", "--explore-steps", "0", "--playouts", "2",
                       "--max-plies", "100")
    assert code == 0
    assert "sampled: more than 1,000 reachable states (--max-states)" in out
    assert summary_counts(out)[0] == 2
    code, out, _ = run(capsys, "check", "tictactoe", "--explore-time", "1e-9", "--playouts", "5")
    assert "sampled: exploring every state would take more than --explore-time 1e-09 s" in out
    code, out, _ = run(capsys, "check", path)  # 39,996 states fit the default budget
    assert code == 0 and "0 errors, 0 warnings (explored all 39,996 states)" in out


def test_check_several_files_says_which_were_explored(capsys, files):
    good, long = files("good.gdl", GOOD), files("long.gdl", LONG)
    code, out, _ = run(capsys, "check", good, long, "--max-states", "5000", "--explore-steps", "0", "--playouts", "2",
                       "--max-plies", "50")  # (the state budget alone: see test_check_over_the_budget_says_it_sampled)
    assert code == 0
    assert f"{good}: explored all 4 states" in out
    assert f"{long}: sampled: more than 5,000 reachable states (--max-states)" in out
    assert "1 of 2 files explored in full, 4 states)" in out


def test_check_an_endless_cycle_is_an_info_not_a_warning(capsys, files):
    cycle = ('game T "test"\nplayers A, B\nstate n: 0..5 = 0\nmove go when n == 0: n = 1\n'
             "move loop when n == 1 or n == 2: n = 3 - n\nmove out when n == 2: n = 5\nwin A when n == 5\n")
    code, out, _ = run(capsys, "check", files("cycle.gdl", cycle))
    assert code == 0
    assert "info[endless-cycle]: the game can go on forever" in out and "solvers score endless play 0" in out
    assert "note: from there, the moves loop,loop come back to the same state" in out
    assert "1 file checked: 0 errors, 0 warnings (explored all 4 states)" in out


def test_check_help_documents_the_exploration(capsys):
    code, out, _ = run(capsys, "check", "--help")
    assert code == 0
    text = " ".join(out.split())
    assert "--max-states N" in text and "(default 200,000; 0 to only sample)" in text
    assert "--explore-steps N" in text and "(default 100,000; 0 for no limit" in text
    assert "--explore-time SECONDS" in text and "(default 0: no time limit)" in text


@pytest.mark.parametrize("argv", [["--max-states", "-1"], ["--explore-time", "-1"], ["--explore-time", "inf"],
                                  ["--explore-time", "nan"], ["--max-states", "lots"], ["--explore-steps", "-1"],
                                  ["--playout-steps", "-1"], ["--explore-steps", "lots"]])
def test_check_exploration_usage_errors_exit_2(capsys, files, argv):
    code, out, err = run(capsys, "check", files("x.gdl", GOOD), *argv)
    assert code == 2 and "Traceback" not in out + err


def test_check_only_missing_files_prints_only_the_error(capsys, tmp_path):
    # "0 files checked: 0 errors" after "no such file" read as a success; nothing was checked
    code, out, err = run(capsys, "check", str(tmp_path / "nope.gdl"))
    assert code == 2
    assert "no such file" in err and len(err.strip().splitlines()) == 1
    assert "checked" not in out + err


def test_time_is_cpu_in_check_and_wall_clock_in_info_and_help_says_so(capsys):
    _, check_help, _ = run(capsys, "check", "--help")
    _, info_help, _ = run(capsys, "info", "--help")
    assert "CPU (not wall-clock) seconds" in " ".join(check_help.split())
    assert "wall-clock seconds" in " ".join(info_help.split())
