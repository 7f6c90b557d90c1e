"""No lost work: a `gdl solve --save` killed with SIGKILL at a random moment leaves the old table or the
new one, never a corrupt file; corrupt or foreign files are refused with a clear message."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

import gdl
from gdl.cli import main
from solver.exact import solve
from solver.table import CorruptTableError, load_table, save_table

OLD = "heaps=[2,3]"
NEW = "heaps=[3,5,6,7,7]"
KILLS = 5


def solve_command(path) -> list[str]:
    code = "import sys; from gdl.cli import main; sys.exit(main(sys.argv[1:]))"
    return [sys.executable, "-c", code, "solve", "nim", "-p", NEW, "--save", str(path), "--json"]


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_during_solve_and_save_leaves_old_or_new_table(tmp_path):
    path = tmp_path / "nim.sqlite"
    assert main(["solve", "nim", "-p", OLD, "--save", str(path), "--json"]) == 0
    rng = random.Random(20240601)
    seen = set()
    for _ in range(KILLS):
        process = subprocess.Popen(solve_command(path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.1, 1.6))
        process.send_signal(signal.SIGKILL)
        process.wait()
        table = load_table(path)  # never corrupt
        heaps = table.parameters["heaps"]
        assert heaps in ([2, 3], [3, 5, 6, 7, 7])
        seen.add(tuple(heaps))
        assert table.values  # a complete table, not a half-written one
    # an uninterrupted run always ends with the new table
    assert subprocess.run(solve_command(path), stdout=subprocess.DEVNULL, timeout=60).returncode == 0
    assert load_table(path).parameters["heaps"] == [3, 5, 6, 7, 7]


# ---------------------------------------------------------------- corrupt and foreign files


def _random_bytes(path):
    path.write_bytes(random.Random(7).randbytes(5000))


def _empty(path):
    path.write_bytes(b"")


def _foreign_sqlite(path):
    connection = sqlite3.connect(path)
    with connection:
        connection.execute("CREATE TABLE people (name TEXT)")
        connection.execute("INSERT INTO people VALUES ('ada')")
    connection.close()


def _sqlite_header_only(path):
    path.write_bytes(b"SQLite format 3\x00" + bytes(84))


def _truncated_table(path):
    save_table(solve(gdl.load("nim")).table, path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _wrong_version(path):
    save_table(solve(gdl.load("nim")).table, path)
    connection = sqlite3.connect(path)
    with connection:
        connection.execute("UPDATE header SET value = '99' WHERE name = 'version'")
    connection.close()


def _bad_json(path):
    save_table(solve(gdl.load("nim")).table, path)
    connection = sqlite3.connect(path)
    with connection:
        connection.execute("UPDATE states SET value = 'not json'")
    connection.close()


BAD_FILES = [_random_bytes, _empty, _foreign_sqlite, _sqlite_header_only, _truncated_table, _wrong_version,
             _bad_json]


@pytest.mark.parametrize("make", BAD_FILES, ids=lambda f: f.__name__.strip("_"))
def test_load_table_refuses_bad_files(tmp_path, make):
    path = tmp_path / "bad.sqlite"
    make(path)
    with pytest.raises(CorruptTableError) as info:
        load_table(path, gdl.load("nim"))
    assert "bad.sqlite" in str(info.value)


@pytest.mark.parametrize("make", BAD_FILES, ids=lambda f: f.__name__.strip("_"))
def test_cli_refuses_bad_table_in_one_line(tmp_path, capsys, make):
    path = tmp_path / "bad.sqlite"
    make(path)
    code = main(["play", "nim", "--vs", f"perfect:table={path}", "--as", "none"])
    captured = capsys.readouterr()
    text = (captured.err or captured.out).strip()
    assert code in (1, 2)
    assert "Traceback" not in captured.out + captured.err
    assert len(text.splitlines()) == 1 and "table" in text, text


def test_table_of_another_game_is_refused(tmp_path, capsys):
    path = tmp_path / "t.sqlite"
    save_table(solve(gdl.load("tictactoe")).table, path)
    code = main(["play", "nim", "--vs", f"perfect:table={path}", "--as", "none"])
    captured = capsys.readouterr()
    assert code == 2 and len((captured.err or captured.out).strip().splitlines()) == 1
    assert os.path.getsize(path) > 0  # refusing never touches the file
