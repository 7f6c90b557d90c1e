"""Hostile input (issue 12): caches, saves, crafted tables, terminal text, line breaks, odd files, CLI values.

Most cases run the real ``gdl`` executable (as ``tests/test_cli_e2e.py`` does); the 116 crafted
tables run through the CLI's ``main`` in this process (one subprocess each would take minutes) and a
few of them through the executable. "No hang" is checked with a 5 s alarm or subprocess timeout: a
bound on a hang, not a speed measurement.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from crafted_tables import CRAFTED

import gdl
from gdl.cli import main
from solver.exact import solve
from solver.table import CorruptTableError, TableError, encode_key, load_table, save_table

GDL = shutil.which("gdl")
needs_gdl = pytest.mark.skipif(GDL is None, reason="the gdl console script is not installed (pip install -e .)")
ENV = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}
HANG = 5.0  # seconds: a case that takes longer is taken to hang


def gdl_run(*args: str, env: dict[str, str] | None = None, timeout: float = 60, stdin: str | None = None,
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GDL or "gdl", *args], capture_output=True, text=True, timeout=timeout,
                          env=env or ENV, input=stdin)


def one_line_error(result: subprocess.CompletedProcess[str] | tuple[int, str, str], status: int | tuple[int, ...],
                   ) -> str:
    """The error line of a failed run; asserts the status, no traceback and a single error line."""
    code, out, err = (result.returncode, result.stdout, result.stderr) if not isinstance(result, tuple) else result
    statuses = status if isinstance(status, tuple) else (status,)
    assert code in statuses, (code, out[-500:], err[-1500:])
    assert "Traceback" not in out + err, err[-1500:]
    lines = [line for line in err.strip().splitlines() if "error" in line]
    assert len(lines) == 1, err
    return lines[0]


@contextlib.contextmanager
def alarm(seconds: float = HANG) -> Iterator[None]:
    """Fail (rather than hang) when the block runs longer than ``seconds``."""
    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


COUNTER = """\
game Counter "Count to three"
players A, B
state n: 0..3 = 0
move inc when n < 3: n += 1
win A when n == 3
"""


# ================================================================== 1. no pickle: the parser cache


LARK_CACHE_PROBE = """\
import sys
from lark import Lark
from gdl.parser import GdlIndenter, LARK_OPTIONS, grammar_path
Lark(grammar_path().read_text(encoding="utf-8"), postlex=GdlIndenter(), cache=True, **LARK_OPTIONS)
"""


class _Plant:
    """Unpickling this creates the file ``marker``: proof that a planted pickle was read."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return open, (self.marker, "w")


@needs_gdl
def test_a_pickle_planted_where_lark_caches_is_never_read(tmp_path):
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**ENV, "TMPDIR": str(temp), "GDL_CACHE_DIR": str(tmp_path / "cache")}
    # Lark's own cache=True names its file from the grammar and options: let Lark make it, then poison it.
    subprocess.run([sys.executable, "-c", LARK_CACHE_PROBE], env=env, check=True, timeout=120)
    [lark_file] = temp.glob(".lark_cache_*.tmp")
    marker = tmp_path / "pwned"
    lark_file.write_bytes(lark_file.read_bytes().split(b"\n", 1)[0] + b"\n"
                          + pickle.dumps(_Plant(str(marker))) + pickle.dumps(_Plant(str(marker))))
    result = gdl_run("check", "tictactoe", "--playouts", "1", env=env)
    assert result.returncode == 0, result.stderr
    assert not marker.exists()
    # A symlink there is not followed either: its target is neither read nor written.
    target = tmp_path / "target"
    target.write_text("untouched")
    lark_file.unlink()
    lark_file.symlink_to(target)
    assert gdl_run("check", "tictactoe", "--playouts", "1", env=env).returncode == 0
    assert target.read_text() == "untouched"


AUDIT = """\
import os, sys
seen = []
temp = os.environ["TMPDIR"]
def hook(event, args):
    if event == "pickle.find_class" or (event == "open" and str(args[0]).startswith(temp)):
        seen.append((event, str(args[:2])))
sys.addaudithook(hook)
import gdl
gdl.load("tictactoe")
print(seen)
"""


def test_loading_a_game_unpickles_nothing(tmp_path):
    (tmp_path / "tmp").mkdir()
    for _ in range(2):  # a cold start (tables built and cached) and a warm one (read from the cache)
        env = {**ENV, "TMPDIR": str(tmp_path / "tmp"), "GDL_CACHE_DIR": str(tmp_path / "cache")}
        out = subprocess.run([sys.executable, "-c", AUDIT], env=env, capture_output=True, text=True, timeout=120,
                             check=True).stdout
        assert out.strip() == "[]"


def _cache_run(cache: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**ENV, "TMPDIR": str(tmp_path), "GDL_CACHE_DIR": str(cache)}
    code = "import gdl; print(len(gdl.load('tictactoe').legal_moves(gdl.load('tictactoe').initial_state())))"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def test_the_parser_cache_is_private_json(tmp_path):
    cache = tmp_path / "cache"
    assert _cache_run(cache, tmp_path).stdout.strip() == "9"
    files = list(cache.iterdir())
    assert [f.name for f in files] == ["parser-tables.json"]
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700 and stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert isinstance(json.loads(files[0].read_text(encoding="utf-8")), dict)
    assert _cache_run(cache, tmp_path).stdout.strip() == "9"  # read back


@pytest.mark.parametrize("content", [pickle.dumps(_Plant("MARKER")), b"{not json", b'{"digest": "x", "tables": 1}',
                                     b"[" * 100_000, b""])
def test_a_damaged_or_planted_cache_is_rebuilt(tmp_path, content):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    marker = tmp_path / "pwned"
    (cache / "parser-tables.json").write_bytes(content.replace(b"MARKER", str(marker).encode()))
    assert _cache_run(cache, tmp_path).stdout.strip() == "9"
    assert not marker.exists()
    assert json.loads((cache / "parser-tables.json").read_text(encoding="utf-8"))["digest"]


def test_the_cache_never_follows_links(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    target = tmp_path / "elsewhere"
    target.write_text("keep me")
    (cache / "parser-tables.json").symlink_to(target)
    assert _cache_run(cache, tmp_path).stdout.strip() == "9"
    assert target.read_text() == "keep me"  # the link was replaced, its target untouched
    assert not (cache / "parser-tables.json").is_symlink()
    # A cache directory that is a link, or that others may write, is not used at all.
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "linked").symlink_to(real)
    assert _cache_run(tmp_path / "linked", tmp_path).stdout.strip() == "9"
    assert list(real.iterdir()) == []
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    assert _cache_run(shared, tmp_path).stdout.strip() == "9"
    assert list(shared.iterdir()) == []


# ================================================================== 2. --save writes only regular files


@pytest.fixture(scope="module")
def nim_table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tables") / "nim.sqlite"
    save_table(solve(gdl.load("nim")).table, path)
    return path


def _never_replace(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError(f"os.replace{args} was called")
    monkeypatch.setattr(os, "replace", refuse)


def test_save_refuses_dev_null_without_touching_it(monkeypatch, nim_table):
    _never_replace(monkeypatch)  # even a broken check could not replace the device
    with pytest.raises(TableError, match="character device"):
        save_table(load_table(nim_table), "/dev/null")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@needs_gdl
def test_save_refuses_fifo_directory_and_devices(tmp_path):
    fifo = tmp_path / "fifo.sqlite"
    os.mkfifo(fifo)
    directory = tmp_path / "dir.sqlite"
    directory.mkdir()
    targets = [(fifo, stat.S_ISFIFO, "FIFO"), (directory, stat.S_ISDIR, "directory")]
    with contextlib.suppress(PermissionError, OSError):  # a device node of our own: only where allowed (root)
        device = tmp_path / "null.sqlite"
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        targets.append((device, stat.S_ISCHR, "character device"))
    for path, still, word in targets:
        line = one_line_error(gdl_run("solve", "nim", "--save", str(path), timeout=HANG * 4), 2)
        assert word in line and "regular file" in line
        assert still(os.lstat(path).st_mode), path
    assert not list(tmp_path.glob(".gdl-table-*"))  # nothing left behind


@needs_gdl
def test_save_replaces_a_symlink_not_its_target(tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("do not overwrite")
    link = tmp_path / "link.sqlite"
    link.symlink_to(target)
    result = gdl_run("solve", "nim", "--save", str(link))
    assert result.returncode == 0, result.stderr
    assert target.read_text() == "do not overwrite"
    assert not link.is_symlink() and load_table(link).game == "Nim"


@pytest.mark.parametrize("name", ["h#frag.sqlite", "pct%41.sqlite", "X?mode=rwc&x=.sqlite", "sp ace?.sqlite"])
def test_table_paths_are_paths_not_uris(tmp_path, nim_table, name):
    path = tmp_path / name
    shutil.copy(nim_table, path)
    # decoys: the files an unescaped URI would open instead
    for decoy in ("h", "pctA.sqlite", "X", "sp ace"):
        (tmp_path / decoy).write_bytes(b"not a table")
    before = sorted(p.name for p in tmp_path.iterdir())
    table = load_table(path, gdl.load("nim"))
    assert table.game == "Nim" and len(table) == len(load_table(nim_table))
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # read-only: nothing created
    save_table(table, path)  # and saving writes that very file
    assert load_table(path).game == "Nim"


# ================================================================== 3. crafted tables


def _crafted(tmp_path: Path, nim_table: Path, name: str) -> Path:
    path = tmp_path / "crafted.sqlite"
    shutil.copy(nim_table, path)
    game = gdl.load("nim")
    root = encode_key(game.key(game.initial_state()))
    db = sqlite3.connect(path)
    with db:
        CRAFTED[name](db, root)
    db.close()
    return path


def test_there_are_about_a_hundred_crafted_tables():
    assert len(CRAFTED) >= 99


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_crafted_table_is_refused_by_the_library(tmp_path, nim_table, name):
    path = _crafted(tmp_path, nim_table, name)
    game = gdl.load("nim")
    with alarm(), pytest.raises(CorruptTableError) as info:
        table = load_table(path, game)
        table.best_moves(game, game.initial_state())  # the damage may be in the root's entry
    message = str(info.value)
    assert "\n" not in message and "\x1b" not in message and len(message) < 400, message


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_crafted_table_is_one_line_from_gdl_play(tmp_path, capsys, nim_table, name):
    path = _crafted(tmp_path, nim_table, name)
    with alarm():
        code = main(["play", "nim", "--vs", f"perfect:table={path}", "--as", "none"])
    captured = capsys.readouterr()
    line = one_line_error((code, captured.out, captured.err), (1, 2))
    assert "table" in line and "\x1b" not in line


@needs_gdl
@pytest.mark.parametrize("name", ["states is an endless view", "header is an endless view", "root best='[\"fly\"]'",
                                  "root value='[NaN,1]'", "parameters='[]'", "value huge"])
def test_crafted_table_through_the_executable(tmp_path, nim_table, name):
    path = _crafted(tmp_path, nim_table, name)
    result = gdl_run("play", "nim", "--vs", f"perfect:table={path}", "--as", "none", timeout=HANG * 4)
    assert "table" in one_line_error(result, (1, 2))


def test_a_good_table_still_plays_perfectly(tmp_path, capsys, nim_table):
    code = main(["play", "nim", "--vs", f"perfect:table={nim_table}", "--as", "none"])
    assert code == 0, capsys.readouterr().err
