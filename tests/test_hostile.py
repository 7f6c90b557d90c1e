"""Hostile input (issue 12): caches, saves, crafted tables, terminal text, line breaks, odd files, CLI values.

Most cases run the real ``gdl`` executable (as ``tests/test_cli_e2e.py`` does); the crafted tables
run through the CLI's ``main`` in this process (one subprocess each would take minutes), and one of
each kind (``crafted_tables.one_of_each_kind``) through the executable, four processes at a time.
"No hang" is checked with a 5 s alarm or subprocess timeout: a bound on a hang, not a speed measurement.
"""

from __future__ import annotations

import contextlib
import json
import marshal
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
from busy import wait_until_busy
from crafted_tables import CRAFTED, one_of_each_kind
from crafted_tables import params as crafted_params

import gdl
from gdl.cli import main
from solver.exact import solve
from solver.table import CorruptTableError, TableError, encode_key, load_table, save_table

GDL = shutil.which("gdl")
needs_gdl = pytest.mark.skipif(GDL is None, reason="the gdl console script is not installed (pip install -e .)")
ENV = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}
HANG = 5.0  # seconds: a case that takes longer is taken to hang
ROOT_GAMES = Path(__file__).resolve().parent.parent / "games"


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


@pytest.mark.slow
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
    # The parser's tables (JSON), the record of passed symmetry checks, the generated byte-code, and the
    # kept programs (gdl/program_cache.py).
    assert sorted(f.name for f in cache.iterdir()) == ["code", "parser-tables.json", "programs",
                                                       "symmetry-checked.txt"]
    for directory in (cache, cache / "code", cache / "programs"):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    for file in [cache / "parser-tables.json", cache / "symmetry-checked.txt", *(cache / "code").iterdir(),
                 *(cache / "programs").iterdir()]:
        assert file.is_file() and stat.S_IMODE(file.stat().st_mode) == 0o600, file
    assert isinstance(json.loads((cache / "parser-tables.json").read_text(encoding="utf-8")), dict)
    assert _cache_run(cache, tmp_path).stdout.strip() == "9"  # read back


def _code_files(cache: Path) -> list[Path]:
    return sorted((cache / "code").iterdir())


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["garbage", "other-source", "truncated", "link"])
def test_a_damaged_or_planted_byte_code_file_is_ignored(tmp_path, damage):
    cache = tmp_path / "cache"
    assert _cache_run(cache, tmp_path).stdout.strip() == "9"
    marker = tmp_path / "pwned"
    planted = compile(f"open({str(marker)!r}, 'w').close()", "<gdl-generated>", "exec")
    for file in _code_files(cache):
        data = file.read_bytes()
        if damage == "garbage":
            file.write_bytes(data[:36] + b"\xff" * 100)
        elif damage == "other-source":  # right magic number, wrong source digest: a planted module
            file.write_bytes(data[:4] + b"\0" * 32 + marshal.dumps(planted))
        elif damage == "truncated":
            file.write_bytes(data[: len(data) // 2])
        else:
            target = tmp_path / f"elsewhere-{file.name}"
            target.write_bytes(data[:4] + data[4:36] + marshal.dumps(planted))
            file.unlink()
            file.symlink_to(target)
    assert _cache_run(cache, tmp_path).stdout.strip() == "9"
    assert not marker.exists()
    if damage == "link":
        assert not any(f.is_symlink() for f in _code_files(cache))  # replaced by a fresh file


def test_a_planted_symmetry_record_is_harmless(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    (cache / "symmetry-checked.txt").write_bytes(b"\xff\xfe not a digest\n" + b"0" * 10_000 + b"\n" * 5)
    assert _cache_run(cache, tmp_path).stdout.strip() == "9"
    lines = (cache / "symmetry-checked.txt").read_text().split()
    assert lines and all(len(line) == 32 and set(line) <= set("0123456789abcdef") for line in lines)


@pytest.mark.parametrize("content", [pickle.dumps(_Plant("MARKER")), b"{not json", b'{"digest": "x", "tables": 1}',
                                     b"[" * 100_000, b""])
@pytest.mark.slow
def test_a_damaged_or_planted_cache_is_rebuilt(tmp_path, content):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    marker = tmp_path / "pwned"
    (cache / "parser-tables.json").write_bytes(content.replace(b"MARKER", str(marker).encode()))
    assert _cache_run(cache, tmp_path).stdout.strip() == "9"
    assert not marker.exists()
    assert json.loads((cache / "parser-tables.json").read_text(encoding="utf-8"))["digest"]


@pytest.mark.slow
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


@pytest.mark.slow
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


# Every writer of the CLI, as the arguments that make it write FILE (issue 29: `--record` replaced a FIFO or,
# as root, /dev/null; solver/files.py is now the one check of them all).
WRITERS = {
    "solve --save": ["solve", "nim", "--save", "{}"],
    "book --save": ["book", "nim", "--plies", "2", "--save", "{}"],
    "play --record": ["play", "nim", "--as", "none", "--vs", "random", "--seed", "1", "--record", "{}"],
    "match --record": ["match", "nim", "random", "random", "--games", "1", "--record", "{}"],
    "new --force": ["new", "{}", "--force"],
    "fmt": ["fmt", "{}"],
}


def _writer(name: str, path: Path) -> list[str]:
    return [str(path) if arg == "{}" else arg for arg in WRITERS[name]]


def _run_in_process(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    with alarm(HANG * 4):  # a writer that opened the FIFO would block here for good
        code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("writer", list(WRITERS))
def test_no_writer_replaces_a_fifo_or_a_directory(tmp_path, capsys, writer):
    fifo = tmp_path / "target.gdl"
    os.mkfifo(fifo)
    directory = tmp_path / "folder.gdl"
    directory.mkdir()
    for path, still, word in [(fifo, stat.S_ISFIFO, "FIFO"), (directory, stat.S_ISDIR, "directory")]:
        line = one_line_error(_run_in_process(capsys, _writer(writer, path)), 2)
        assert word in line, line
        assert still(os.lstat(path).st_mode), (writer, path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder.gdl", "target.gdl"]  # no file left behind


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_link_to_a_fifo_is_replaced_or_refused_never_written_through(tmp_path, capsys, writer):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link.gdl"
    link.symlink_to(fifo)
    code, out, err = _run_in_process(capsys, _writer(writer, link))
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    if writer == "fmt":  # a rule file to rewrite is read first: a FIFO is no rule file
        assert "FIFO" in one_line_error((code, out, err), 2)
        assert link.is_symlink()
    else:  # the link is replaced by the file, as --save always did
        assert code == 0, err
        assert not link.is_symlink() and stat.S_ISREG(os.lstat(link).st_mode)


@pytest.mark.parametrize("writer", ["play --record", "match --record"])
def test_record_refuses_dev_null_without_touching_it(monkeypatch, capsys, writer):
    _never_replace(monkeypatch)  # even a broken check could not replace the device
    monkeypatch.setattr(os, "rename", os.replace)
    line = one_line_error(_run_in_process(capsys, _writer(writer, Path("/dev/null"))), 2)
    assert "character device" in line and "regular file" in line
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_fmt_rewrites_the_file_a_link_points_to_and_keeps_its_mode(tmp_path, capsys):
    rules = write(tmp_path / "rules.gdl", COUNTER.replace("n += 1", "n  +=  1"))
    rules.chmod(0o640)
    link = tmp_path / "link.gdl"
    link.symlink_to(rules)
    code, _, err = _run_in_process(capsys, ["fmt", str(link)])
    assert code == 0, err
    assert link.is_symlink() and "n += 1" in rules.read_text()
    assert stat.S_IMODE(rules.stat().st_mode) == 0o640


@needs_gdl
def test_record_through_the_executable_leaves_a_fifo_alone(tmp_path):
    fifo = tmp_path / "game.json"
    os.mkfifo(fifo)
    result = gdl_run("play", "nim", "--as", "none", "--vs", "random", "--record", str(fifo), timeout=HANG * 4)
    assert "FIFO" in one_line_error(result, 2)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


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


@pytest.mark.parametrize("name", crafted_params())
def test_crafted_table_is_refused_by_the_library(tmp_path, nim_table, name):
    path = _crafted(tmp_path, nim_table, name)
    game = gdl.load("nim")
    with alarm(), pytest.raises(CorruptTableError) as info:
        table = load_table(path, game)
        table.best_moves(game, game.initial_state())  # the damage may be in the root's entry
    message = str(info.value)
    assert "\n" not in message and "\x1b" not in message and len(message) < 400, message


@pytest.mark.parametrize("name", crafted_params())
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


@pytest.mark.slow
@needs_gdl
def test_every_kind_of_crafted_table_through_the_executable(tmp_path, nim_table):
    # One case of each kind (31 kinds: each header field, values, best moves, distances, keys, views,
    # triggers, computed columns...) through the installed `gdl`, four processes at a time.
    names = one_of_each_kind()
    assert len(names) >= 30
    paths = []
    for number, name in enumerate(names):
        folder = tmp_path / str(number)
        folder.mkdir()
        paths.append(_crafted(folder, nim_table, name))
    results: dict[str, subprocess.CompletedProcess[str]] = {}
    for start in range(0, len(names), 4):
        batch = [(name, subprocess.Popen([GDL or "gdl", "play", "nim", "--vs", f"perfect:table={path}", "--as", "none"],
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV))
                 for name, path in zip(names[start:start + 4], paths[start:start + 4], strict=True)]
        for name, child in batch:
            try:
                out, err = child.communicate(timeout=HANG * 4)
            except subprocess.TimeoutExpired:
                child.kill()
                child.communicate()
                pytest.fail(f"{name}: gdl play still running after {HANG * 4} s")
            results[name] = subprocess.CompletedProcess(child.args, child.returncode, out, err)
    for name, result in results.items():
        line = one_line_error(result, (1, 2))
        assert "table" in line and "\x1b" not in line, name


def test_a_good_table_still_plays_perfectly(tmp_path, capsys, nim_table):
    code = main(["play", "nim", "--vs", f"perfect:table={nim_table}", "--as", "none"])
    assert code == 0, capsys.readouterr().err


# ================================================================== 4. terminal text

ESCAPES = ["\x1b]52;c;aGVsbG8=\x07", "\x1b]8;;http://evil.example\x1b\\hidden\x1b]8;;\x1b\\", "\x1b[2J", "\x1b[H",
           "\x9b31m", "\u202e"]
EVIL = "".join(ESCAPES)
MARKUP = "[link=http://evil.example]click[/link] [/] [bold]x"


def evil_game(tmp_path: Path) -> Path:
    return write(tmp_path / "evil.gdl", textwrap.dedent(f"""\
        game Evil "title {EVIL} {MARKUP}"
        meta source = "meta {EVIL} {MARKUP}"
        meta value = "{MARKUP} {EVIL}"
        players A, B
        board 1 x 3
        state mark[cell]: player? = none
        state n: 0..3 = 0
        move inc when n < 3:
            mark[cell(0, n)] = mover
            n += 1
        win A when n == 3
        render mark: A "{EVIL}", B "[/]X", none "."
        """))


def assert_no_raw_controls(text: str, colour: bool = False) -> None:
    for sequence in ESCAPES:
        assert sequence not in text
    assert "\x07" not in text and "\x9b" not in text and "\u202e" not in text
    if not colour:
        assert "\x1b" not in text
    else:  # only rich's own colour codes (CSI ... m) may remain
        assert "\x1b]" not in text and "\x1b[2J" not in text and "\x1b[H" not in text


@pytest.mark.slow
@needs_gdl
@pytest.mark.parametrize("colour", [False, True])
def test_user_text_reaches_the_terminal_as_text(tmp_path, colour):
    path = evil_game(tmp_path)
    env = {**ENV, "FORCE_COLOR": "1", "TERM": "xterm-256color"} if colour else ENV
    if colour:
        env.pop("NO_COLOR")
    runs = [("info", str(path), "--playouts", "3"), ("solve", str(path)),
            ("play", str(path), "--as", "none", "--vs", "random", "--seed", "1")]
    for args in runs:
        result = gdl_run(*args, env=env)
        assert result.returncode == 0, (args, result.stderr)
        assert "Traceback" not in result.stderr
        assert_no_raw_controls(result.stdout + result.stderr, colour)
    info = gdl_run("info", str(path), "--playouts", "0").stdout
    assert "[/]" in info and "[link=http://evil.example]click[/link]" in info  # shown, not parsed as markup
    assert "\\x1b]52;c;aGVsbG8=" in info  # escaped, visibly


@needs_gdl
def test_show_on_a_pipe_escapes_control_characters(tmp_path):
    # `gdl show FILE | cat` wrote a rule file's escape sequences raw (in strings and comments)
    path = evil_game(tmp_path)
    source = path.read_text(encoding="utf-8") + f"# a comment {EVIL}\n"
    write(path, source.replace("\n", "\r\n"))
    result = subprocess.run([GDL or "gdl", "show", str(path)], capture_output=True, env=ENV, timeout=60)
    assert result.returncode == 0, result.stderr
    shown = result.stdout.decode("utf-8")  # (bytes: text mode would turn \r\n into \n)
    assert_no_raw_controls(shown.replace("\r\n", "\n"))
    assert "\\x1b]52;c;aGVsbG8=\\x07" in shown and "[link=http://evil.example]click[/link]" in shown
    lines = shown.split("\r\n")  # the line breaks of the file are kept: a line for a line
    assert len(lines) == source.count("\n") + 1 and lines[-1] == ""
    clean = gdl_run("show", "tictactoe").stdout  # a file without control characters is written as it is
    assert clean == (ROOT_GAMES / "tictactoe.gdl").read_text(encoding="utf-8")


@needs_gdl
def test_diagnostic_excerpts_escape_control_characters(tmp_path):
    path = write(tmp_path / "bad.gdl", COUNTER + f'move oops: n = "{EVIL}" +\n')
    result = gdl_run("check", str(path))
    assert result.returncode == 1
    assert_no_raw_controls(result.stdout + result.stderr)
    lines = result.stdout.splitlines()
    code_line = next(i for i, line in enumerate(lines) if line.startswith("   6 | "))
    assert "\\x1b]52" in lines[code_line] and "^" in lines[code_line + 1]


def test_library_diagnostics_show_control_characters_escaped(tmp_path):
    path = write(tmp_path / "token.gdl", COUNTER + f'move oops: n = "a" "{EVIL}"\n')
    with pytest.raises(gdl.RuleFileError) as info:
        gdl.load(str(path))
    text = str(info.value)
    assert_no_raw_controls(text)
    assert "\\x1b]52;c;aGVsbG8=" in text and "error[syntax]" in text


@pytest.mark.slow
@needs_gdl
def test_markup_and_escapes_in_command_line_values_are_text(tmp_path):
    name = str(tmp_path / f"no{EVIL}[/]such.gdl")
    for args in [("check", name), ("solve", name), ("play", "nim", "--vs", f"[/]{EVIL}"),
                 ("match", "nim", "random", f"bogus{EVIL}[/]")]:
        result = gdl_run(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert "Traceback" not in result.stderr
        assert_no_raw_controls(result.stdout + result.stderr)


# ================================================================== 5. line breaks

ODD_BREAKS = {"\r": "carriage return", "\x0c": "form feed", "\x0b": "vertical tab", "\x85": "U+0085",
              "\u2028": "U+2028", "\u2029": "U+2029"}


@needs_gdl
@pytest.mark.parametrize("char", list(ODD_BREAKS), ids=lambda c: f"U+{ord(c):04X}")
def test_odd_line_breaks_are_a_diagnostic(tmp_path, char):
    # `cat` would show `move hidden: n = 3` as a line of its own; gdl must not silently ignore it
    source = COUNTER.replace("players A, B\n", f"players A, B\n# note{char}move hidden: n = 3\n")
    path = write(tmp_path / "breaks.gdl", source)
    result = gdl_run("check", str(path), "--playouts", "0")
    assert result.returncode == 1, result.stdout
    assert f"{path}:3:7: error[line-break]: " in result.stdout and ODD_BREAKS[char] in result.stdout
    caret = result.stdout.splitlines()[2]
    assert caret.index("^") == result.stdout.splitlines()[1].index("\\")  # under the escaped character
    assert_no_raw_controls(result.stdout)
    with pytest.raises(gdl.RuleFileError) as info:
        gdl.load(str(path))
    assert info.value.diagnostics[0].code == "line-break"


def test_crlf_files_and_a_bom_load_the_same_way_everywhere(tmp_path):
    crlf = tmp_path / "crlf.gdl"
    crlf.write_bytes(COUNTER.replace("\n", "\r\n").encode())
    bom = tmp_path / "bom.gdl"
    bom.write_bytes(b"\xef\xbb\xbf" + COUNTER.encode())
    for path in (crlf, bom):
        assert gdl.load(str(path)).name == "Counter"  # the library path
        assert main(["check", str(path), "--playouts", "2"]) == 0  # the CLI path
    # line numbers after CRLF lines are those an editor shows
    broken = tmp_path / "broken.gdl"
    broken.write_bytes((COUNTER + "move bad: n = m\n").replace("\n", "\r\n").encode())
    with pytest.raises(gdl.RuleFileError) as info:
        gdl.load(str(broken))
    assert info.value.diagnostics[0].span.line == 6


def test_the_cli_and_the_library_share_one_reader():
    from gdl import check, loader

    assert check.read_rule_file is loader.read_source


# ================================================================== 6. reading odd files


@pytest.mark.slow
@needs_gdl
def test_check_refuses_fifos_and_devices_without_hanging(tmp_path):
    fifo = tmp_path / "rules.gdl"
    os.mkfifo(fifo)
    for path, word in [(str(fifo), "FIFO"), ("/dev/zero", "character device"), ("/dev/urandom", "character device")]:
        result = gdl_run("check", path, timeout=HANG * 4)
        assert result.returncode == 1, result.stdout + result.stderr
        assert "Traceback" not in result.stderr and word in result.stdout and "regular file" in result.stdout
        result = gdl_run("info", path, timeout=HANG * 4)
        assert result.returncode == 2 and "Traceback" not in result.stderr


def test_library_refuses_fifos_devices_and_huge_files(tmp_path):
    fifo = tmp_path / "rules.gdl"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.gdl"
    huge.write_bytes(b"# " + b"x" * 6_000_000 + b"\n")
    with alarm():
        for path, words in [(fifo, "FIFO"), (Path("/dev/zero"), "character device"), (huge, "too large")]:
            with pytest.raises(gdl.GdlError, match=words):
                gdl.loader.read_source(path)


# ================================================================== 7. command-line values

FRACTION = COUNTER.replace("players A, B\n", "players A, B\nparam bonus = 0.5\n")


@needs_gdl
@pytest.mark.parametrize("args", [
    ("solve", "nim", "--memory", "inf"), ("solve", "nim", "--memory", "nan"), ("solve", "nim", "--time", "nan"),
    ("solve", "nim", "--time", "-inf"), ("play", "nim", "--delay", "-1"), ("play", "nim", "--delay", "nan"),
    ("play", "nim", "--delay", "1e300"), ("check", "nim", "--time", "inf"), ("info", "nim", "--time", "-1"),
    ("play", "nim", "--as", "none", "--max-plies", "0"), ("play", "nim", "--as", "none", "--vs", "perfect:seconds=inf"),
    ("play", "nim", "--as", "none", "--vs", "mcts:c=nan"), ("solve", "nim", "--memory", "1e305", "--time", "1e999"),
], ids=" ".join)
def test_bad_numbers_are_usage_errors(args):
    one_line_error(gdl_run(*args, timeout=HANG * 4), 2)


@needs_gdl
@pytest.mark.parametrize("value", ["1/0", "1e99999999999", "1e5", "nan", "0x10", "1/3/4", "9" * 50])
def test_bad_real_parameters_are_usage_errors(tmp_path, value):
    path = write(tmp_path / "frac.gdl", FRACTION)
    assert "bonus" in one_line_error(gdl_run("solve", str(path), "-p", f"bonus={value}", timeout=HANG * 4), 2)


@pytest.mark.slow
@needs_gdl
def test_fractional_parameters_work_everywhere(tmp_path):
    path = write(tmp_path / "frac.gdl", FRACTION)
    for args in [("info", str(path), "--playouts", "2"), ("solve", str(path), "-p", "bonus=3/4"),
                 ("check", str(path), "-p", "bonus=0.25")]:
        result = gdl_run(*args)
        assert result.returncode == 0, (args, result.stderr)
    assert json.loads(gdl_run("info", str(path), "--json", "--playouts", "0").stdout)["parameters"] == {"bonus": 0.5}
    table = tmp_path / "t.sqlite"
    assert gdl_run("solve", str(path), "-p", "bonus=3/4", "--save", str(table)).returncode == 0
    assert gdl_run("play", str(path), "-p", "bonus=3/4", "--as", "none", "--vs", f"perfect:table={table}"
                   ).returncode == 0
    one_line_error(gdl_run("play", str(path), "--as", "none", "--vs", f"perfect:table={table}"), 2)  # bonus 1/2


@needs_gdl
@pytest.mark.parametrize("columns", ["abc", "-5", "", "99999999999999999999", "1e3"])
def test_odd_columns_in_the_environment(columns):
    result = gdl_run("list", env={**ENV, "COLUMNS": columns})
    assert result.returncode == 0 and "Traceback" not in result.stderr and "tictactoe" in result.stdout


NEVER_ENDS = """\
game Loop
players A, B
state n: 0..1 = 0
move flip: n = 1 - n
win A when false
"""


@needs_gdl
def test_watching_a_game_that_never_ends_stops(tmp_path):
    path = write(tmp_path / "loop.gdl", NEVER_ENDS)
    result = gdl_run("play", str(path), "--as", "none", "--vs", "random", "--max-plies", "25")
    assert result.returncode == 0
    assert "stopped: the game has not ended after 25 plies (--max-plies 25)" in result.stdout
    assert result.stdout.count("plays flip") == 25
    assert "default 100,000" in gdl_run("play", "--help").stdout  # the bound without the option


@pytest.mark.slow
@needs_gdl
@pytest.mark.parametrize("args", [("play", "connect4", "--as", "none", "--vs", "alphabeta:depth=12"),
                                  ("play", "connect4", "--as", "none", "--vs", "perfect"),
                                  ("match", "connect4", "perfect", "alphabeta:depth=12", "--games", "2")])
def test_a_first_ctrl_c_stops_play_and_match(args):
    # The searches catch KeyboardInterrupt to return their best move so far: the command must still stop.
    child = subprocess.Popen([GDL or "gdl", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    try:
        wait_until_busy(child)  # let it get into a search, whatever the machine's load
        assert child.poll() is None, "the command ended before the interrupt"
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=HANG * 2)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 130, err.decode()[-800:]
    assert b"Traceback" not in err and b"interrupted" in err
