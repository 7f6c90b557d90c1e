"""The table generator of ``bench/fuzz.py`` (``--generator tables``): solved tables, mutated.

A case starts from a valid solved table, written by ``gdl solve GAME --save`` (through the CLI's ``main``), or
a valid book (``gdl book GAME --plies N --save``, the same format), for one of :data:`BASES`, and applies 1 to 3
mutations chosen by the seed (:data:`MUTATIONS`):

* the header: a field set to a hostile value (wrong SQL type, not JSON, NaN, deep or huge JSON, control
  characters and markup), deleted, duplicated, or an unknown field added;
* rows: a value, best-move list, key or distance (``plies``) of the root, of a random row or of every row
  set to a hostile value (NaN, infinities, booleans, wrong lengths, huge or deep JSON, illegal or unknown
  best moves, best moves legal elsewhere), values and best moves swapped between rows, rows deleted or
  added, a key of another shape;
* the schema: views (finite, or an endless recursive CTE), triggers, extra tables and indexes, generated
  columns (cheap, or building a huge string), a column added with an expensive default, the ``plies``
  column dropped (the old format, valid), ``WITHOUT ROWID``, ``STRICT``, columns renamed or reordered,
  ``sqlite_master`` edited, WAL mode, another page size;
* the file: truncated, bytes flipped (often in the 100-byte header or a page header), a page zeroed,
  garbage appended, replaced by an empty or random file or by a FIFO.

The properties (a violation is a crash):

1. :func:`solver.table.load_table` (for a book: :func:`solver.book.load_book` and
   :func:`solver.book.load_exact_table`) with the game returns a table or raises :class:`solver.table.TableError`
   (``CorruptTableError`` or ``StaleTableError``), with a one-line message of at most 500 characters and no
   raw control character; nothing else (no ``sqlite3`` error, ``KeyError``, ``RecursionError``...);
2. a table that loads answers ``best_moves`` and ``fastest_moves`` along random playouts with None or legal
   move names, or raises ``CorruptTableError``; a book that loads answers ``moves`` with None or legal moves;
3. ``gdl play GAME --as none --vs perfect:table=FILE`` (and ``alphabeta:depth=2,table=FILE`` in nim, tictactoe
   and hexapawn; for a book ``alphabeta:depth=2,book=FILE`` and ``alphabeta:depth=2,table=FILE``), through the
   CLI's ``main`` in this process, exits 0, or 1 or 2 with exactly one error line that names the table or book;
   no traceback, no raw control character in anything it prints; one case in 4 also runs
   ``gdl match GAME AGENT random... --games 2``;
4. one case in ``EXECUTABLE_EVERY`` also runs ``gdl play`` through the installed ``gdl`` executable in a
   subprocess (same checks);
5. the case ends within the campaign's timeout (CPU seconds; a hang is a crash); a case that runs longer than
   the timeout counts as a hang even when it ends with a clean error.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import shutil
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gdl
from gdl.cli import main as cli_main
from gdl.diagnostics import has_controls
from solver.book import load_book, load_exact_table
from solver.game import CHANCE, TERMINAL
from solver.table import CorruptTableError, TableError, encode_key, load_table

BASES = ("nim", "tictactoe", "takeaway3", "hexapawn", "race", "book:nim", "book:tictactoe", "estimates:hexapawn")
"""Solved tables (``gdl solve GAME --save``) of bundled games that are quick to solve: two players, symmetries
(tictactoe), three players (takeaway3), chance (race, value iteration); and books (``gdl book``, the same file
format): exact ones, and one of estimates from a depth-limited search."""
BOOK_OPTIONS = {"book": ["--plies", "4"], "estimates": ["--plies", "3", "--depth", "2"]}
SEARCHING = {"nim", "tictactoe", "hexapawn"}
"""Games whose tables and books are also given to a searching agent (``alphabeta:depth=2,table=FILE``)."""


def game_of(base: str) -> str:
    """The game of a base (``book:nim`` is a book of nim)."""
    return base.split(":")[-1]


def is_book_base(base: str) -> bool:
    return ":" in base
EXECUTABLE_EVERY = 25
CONTROL = "\x1b]52;c;aGk=\x07\x1b]8;;http://evil.example\x1b\\x\x1b]8;;\x1b\\\x1b[2J\x9b31m\u202e"
MARKUP = "[link=http://evil.example]x[/link][/][bold]"
DEEP = "[" * 1000 + "]" * 1000
ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"
HUGE_STRING = "printf('%.*c', 900000000, 'x')"
"""An SQL expression that builds a 900 MB string in one step (no progress handler can stop it)."""

# Hostile values for a JSON text column (the SQL type varies too: int, real, blob, NULL).
JSON_TEXTS = ["", "[", "[1,", "null", "true", "1", "1e999", "-0", '"x"', "{}", "[]", "[[]]", "NaN", "[NaN]",
              "[Infinity,-Infinity]", "[1e999,0]", "[true,false]", "[null,null]", '["1","-1"]', "[1,-1,0,2]",
              "[1]", "[0.5,0.5]", "[-1e308,1e308]", f"[{'9' * 400},0]", f"[{'1' * 5000},0]", DEEP,
              '{"a":' * 500 + "1" + "}" * 500, "[" * 33 + "]" * 33, json.dumps([CONTROL]), json.dumps([MARKUP]),
              json.dumps(["x" * 200_000]), "[" + ",".join(["1"] * 60_000) + "]", "\x00", "\udcff"[:0] + "\x7f"]
SQL_ODD = [7, -1, 0, 2**63 - 1, 0.5, float("inf"), float("-inf"), b"", b"[1,-1]", b"\x00\xff", None]


def _hostile(rng: random.Random) -> Any:
    return rng.choice(SQL_ODD) if rng.random() < 0.25 else rng.choice(JSON_TEXTS)


# ------------------------------------------------------------------ base tables


_BASE_CACHE: dict[str, Path] = {}


def base_table(base: str) -> Path:
    """A valid table or book, saved once per process by ``gdl solve GAME --save`` or ``gdl book GAME ... --save``
    (the CLI's main)."""
    if base not in _BASE_CACHE:
        path = case_folder() / f"base-{base.replace(':', '-')}.sqlite"
        kind, _, game = base.rpartition(":")
        argv = ["book", game, *BOOK_OPTIONS[kind]] if kind else ["solve", game]
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            status = cli_main([*argv, "--save", str(path)])
        if status != 0:
            raise RuntimeError(f"gdl {' '.join(argv)} --save failed: {err.getvalue()}")
        _BASE_CACHE[base] = path
    return _BASE_CACHE[base]


# ------------------------------------------------------------------ mutations


Mutation = Callable[[sqlite3.Connection, random.Random, "Context"], str]


class Context:
    """What a mutation may use: the game, its root key and some legal move names."""

    def __init__(self, game: Any, rng: random.Random) -> None:
        self.game = game
        state = game.initial_state()
        self.root = encode_key(game.key(state))
        self.moves: list[str] = []
        for _ in range(6):  # move names legal somewhere (not necessarily where they end up)
            player = game.to_move(state)
            if player == TERMINAL:
                break
            if player == CHANCE:
                options = [outcome for outcome, _ in game.chance_outcomes(state)]
            else:
                options = list(game.legal_moves(state))
                self.moves += [str(m) for m in options[:3]]
            state = game.apply(state, rng.choice(options))
        self.moves = self.moves or ["x"]


def _loose(db: sqlite3.Connection, table: str) -> None:
    """``table`` rebuilt without constraints, so that any value can be stored in it."""
    columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
    listed = ", ".join(columns)
    db.execute(f"CREATE TABLE loose_copy ({listed})")
    db.execute(f"INSERT INTO loose_copy SELECT {listed} FROM {table}")
    db.execute(f"DROP TABLE {table}")
    db.execute(f"ALTER TABLE loose_copy RENAME TO {table}")


def _states_columns(db: sqlite3.Connection) -> list[str]:
    return [row[1] for row in db.execute("PRAGMA table_info(states)")]


def header_set(db: sqlite3.Connection, rng: random.Random, ctx: Context) -> str:
    name = rng.choice(["format", "version", "game", "parameters", "fingerprint", "players", "method", "complete"])
    value = rng.choice([_hostile(rng), CONTROL, MARKUP, "x" * 200_000, "gdl-solved-table", "1", "0", "2",
                        '["A"]', '["A","B","C","D"]', json.dumps([CONTROL, MARKUP]), '{"heaps":[1,2]}'])
    _loose(db, "header")
    db.execute("UPDATE header SET value = ? WHERE name = ?", (value, name))
    return f"header {name} = {value!r:.60}"


def header_drop(db: sqlite3.Connection, rng: random.Random, ctx: Context) -> str:
    name = rng.choice(["format", "version", "game", "parameters", "fingerprint", "players", "method", "complete"])
    db.execute("DELETE FROM header WHERE name = ?", (name,))
    return f"header without {name}"


def header_extra(db: sqlite3.Connection, rng: random.Random, ctx: Context) -> str:
    _loose(db, "header")
    name = rng.choice(["format", "game", "players", "x" * 300, CONTROL, None, 5])
    value = _hostile(rng)
    db.execute("INSERT INTO header VALUES (?, ?)", (name, value))
    return f"header row {name!r:.40} = {value!r:.40} added"


def row_set(db: sqlite3.Connection, rng: random.Random, ctx: Context) -> str:
    columns = _states_columns(db)
    column = rng.choice([c for c in ("key", "value", "value", "best", "best", "plies") if c in columns])
    if column == "best" and rng.random() < 0.5:
        value: Any = json.dumps(rng.sample(ctx.moves, min(len(ctx.moves), rng.randint(1, 3))) if rng.random() < 0.7
                                else [rng.choice(["fly", "take(9,9)", "", CONTROL, MARKUP, "x" * 1000])])
    elif column == "plies":
        value = rng.choice([-1, -0.5, float("inf"), float("-inf"), 0, 1e308, "x", b"\x01", "NaN", 10**18])
    else:
        value = _hostile(rng)
    _loose(db, "states")
    where = rng.choice(["root", "random", "all", "half"])
    if where == "root":
        db.execute(f"UPDATE states SET {column} = ? WHERE key = ?", (value, ctx.root))
    elif where == "random":
        db.execute(f"UPDATE states SET {column} = ? WHERE rowid = (SELECT rowid FROM states ORDER BY random() "
                   f"LIMIT 1)", (value,))
    elif where == "all":
        db.execute(f"UPDATE states SET {column} = ?", (value,))
    else:
        db.execute(f"UPDATE states SET {column} = ? WHERE rowid % 2 = 0", (value,))
    return f"{where} {column} = {value!r:.60}"


def row_shuffle(db: sqlite3.Connection, rng: random.Random, ctx: Context) -> str:
    """Values or best moves moved between rows: every row well-formed, the contents wrong."""
    column = rng.choice(["value", "best"])
    rows = db.execute(f"SELECT rowid, {column} FROM states").fetchall()
    texts = [text for _, text in rows]
    rng.shuffle(texts)
    moved = [(text, rowid) for (rowid, _), text in zip(rows, texts, strict=True)]
    db.executemany(f"UPDATE states SET {column} = ? WHERE rowid = ?", moved)
    return f"{column} shuffled between rows"


def row_delete(db: sqlite3.Connection, rng: random.Random, ctx: Context) -> str:
    if rng.random() < 0.5:
        db.execute("DELETE FROM states WHERE key = ?", (ctx.root,))
        return "root row deleted"
    share = rng.choice([2, 3, 10])
    db.execute(f"DELETE FROM states WHERE rowid % {share} = 0")
    return f"every {share}th row deleted"


def row_insert(db: sqlite3.Connection, rng: random.Random, ctx: Context) -> str:
    _loose(db, "states")
    count = rng.choice([1, 1, 5, 2000])
    key = rng.choice([ctx.root, "[" + ctx.root + "]", "[]", "[0]", '"x"', _hostile(rng)])
    columns = _states_columns(db)
    row = [key, rng.choice(["[1,-1]", _hostile(rng)]), rng.choice(["[]", _hostile(rng)])][: len(columns)]
    row += [None] * (len(columns) - len(row))
    db.executemany(f"INSERT INTO states VALUES ({', '.join('?' * len(columns))})", [row] * count)
    return f"{count} rows with key {key!r:.40} added"


def schema_view(db: sqlite3.Connection, rng: random.Random, ctx: Context) -> str:
    which = rng.choice(["states", "header", "extra"])
    endless = rng.random() < 0.5
    source = f"{ENDLESS} SELECT " if endless else "SELECT "
    if which == "states":
        db.execute("ALTER TABLE states RENAME TO old_states")
        rows = "'[0]', '[1,-1]', '[]' FROM c" if endless else "key, value, best FROM old_states"
        db.execute(f"CREATE VIEW states(key, value, best) AS {source}{rows}")
    elif which == "header":
        db.execute("ALTER TABLE header RENAME TO old_header")
        rows = "'format', 'gdl-solved-table' FROM c" if endless else "name, value FROM old_header"
        db.execute(f"CREATE VIEW header(name, value) AS {source}{rows}")
    else:
        db.execute(f"CREATE VIEW extra AS {source}{'x FROM c' if endless else '1'}")
    return f"{which} is {'an endless' if endless else 'a'} view"


def schema_object(db: sqlite3.Connection, rng: random.Random, ctx: Context) -> str:
    statement = rng.choice([
        "CREATE TRIGGER t AFTER INSERT ON states BEGIN DELETE FROM header; END",
        "CREATE TRIGGER t BEFORE DELETE ON header BEGIN SELECT 1; END",
        "CREATE TABLE extra (x)", "CREATE INDEX by_value ON states(value)", "CREATE UNIQUE INDEX k ON states(key)",
        "CREATE INDEX expr ON states(length(value) * 2)", "CREATE INDEX part ON states(key) WHERE value > '['",
        "CREATE VIRTUAL TABLE v USING fts5(x)", "CREATE VIRTUAL TABLE r USING rtree(id, a, b)",
        "CREATE TABLE sqlite_stat1_x (tbl, idx, stat)", "ANALYZE",
    ])
    try:
        db.execute(statement)
    except sqlite3.OperationalError as exc:  # a module this SQLite lacks
        return f"schema object not made ({exc})"
    return f"schema: {statement[:60]}"


def _rebuild_states(db: sqlite3.Connection, definition: str, select: str) -> None:
    db.execute(f"CREATE TABLE new_states {definition}")
    columns = [row[1] for row in db.execute("PRAGMA table_info(new_states)")]
    insertable = [c for c in columns if c in ("key", "value", "best", "plies", "v0")]
    db.execute(f"INSERT INTO new_states ({', '.join(insertable)}) SELECT {select} FROM states")
    db.execute("DROP TABLE states")
    db.execute("ALTER TABLE new_states RENAME TO states")


def schema_columns(db: sqlite3.Connection, rng: random.Random, ctx: Context) -> str:
    has_plies = "plies" in _states_columns(db)
    plies = "plies" if has_plies else "NULL"
    shape = rng.choice(["generated", "generated-huge", "default-huge", "no-plies", "without-rowid", "strict",
                        "reordered", "renamed", "extra-column", "typed", "collate"])
    if shape == "generated":
        _rebuild_states(db, "(key TEXT PRIMARY KEY, v0 TEXT, value TEXT GENERATED ALWAYS AS (v0) VIRTUAL, best TEXT, "
                            "plies REAL)", f"key, value, best, {plies}")
    elif shape == "generated-huge":
        _rebuild_states(db, f"(key TEXT PRIMARY KEY, v0 TEXT, value TEXT GENERATED ALWAYS AS ({HUGE_STRING}) VIRTUAL, "
                            "best TEXT, plies REAL)", f"key, value, best, {plies}")
    elif shape == "default-huge":  # rows stored before the column was added read its default
        _rebuild_states(db, "(key TEXT PRIMARY KEY, value TEXT NOT NULL, best TEXT NOT NULL)", "key, value, best")
        db.execute(f"ALTER TABLE states ADD COLUMN plies REAL DEFAULT (length({HUGE_STRING}))")
    elif shape == "no-plies":  # the format before the distance column: valid
        _rebuild_states(db, "(key TEXT PRIMARY KEY, value TEXT NOT NULL, best TEXT NOT NULL)", "key, value, best")
    elif shape == "without-rowid":
        _rebuild_states(db, "(key TEXT PRIMARY KEY, value TEXT, best TEXT, plies REAL) WITHOUT ROWID",
                        f"key, value, best, {plies}")
    elif shape == "strict":
        _rebuild_states(db, "(key TEXT PRIMARY KEY, value TEXT, best TEXT, plies REAL) STRICT",
                        f"key, value, best, {plies}")
    elif shape == "reordered":
        _rebuild_states(db, "(best TEXT, plies REAL, value TEXT, key TEXT PRIMARY KEY)", f"best, {plies}, value, key")
    elif shape == "renamed":
        db.execute("ALTER TABLE states RENAME COLUMN value TO worth")
    elif shape == "extra-column":
        db.execute("ALTER TABLE states ADD COLUMN extra BLOB DEFAULT x'00ff'")
    elif shape == "typed":
        _rebuild_states(db, "(key INTEGER PRIMARY KEY, value REAL, best BLOB, plies TEXT)",
                        f"key, value, best, {plies}")
    else:
        _rebuild_states(db, "(key TEXT PRIMARY KEY COLLATE NOCASE, value TEXT, best TEXT, plies REAL)",
                        f"key, value, best, {plies}")
    return f"columns: {shape}"


def schema_master(db: sqlite3.Connection, rng: random.Random, ctx: Context) -> str:
    """``sqlite_master`` edited by hand: the schema text no longer matches the pages."""
    sql = rng.choice(["CREATE TABLE states (key TEXT PRIMARY KEY)", "CREATE TABLE states (a, b, c, d, e, f, g)",
                      "CREATE TABLE states (key TEXT, value TEXT, best TEXT, plies REAL, x AS (zeroblob(1e9)))",
                      "CREATE VIEW states AS SELECT 1", "CREATE TABLE  states(x", "create table states (key)",
                      "CREATE TABLE \"states\" (key TEXT PRIMARY KEY, value TEXT NOT NULL, best TEXT NOT NULL, "
                      "plies REAL)"])
    db.execute("PRAGMA writable_schema = ON")
    db.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'states'", (sql,))
    db.commit()
    db.execute("PRAGMA writable_schema = OFF")
    return f"sqlite_master: {sql[:50]}"


def pragma(db: sqlite3.Connection, rng: random.Random, ctx: Context) -> str:
    statement = rng.choice(["PRAGMA journal_mode = WAL", "PRAGMA user_version = 99", "PRAGMA application_id = 7",
                            "PRAGMA page_size = 512", "PRAGMA page_size = 65536", "PRAGMA auto_vacuum = FULL",
                            "PRAGMA encoding = 'UTF-16le'"])
    db.execute(statement)
    if "page_size" in statement or "auto_vacuum" in statement:
        db.commit()
        db.execute("VACUUM")
    return statement


MUTATIONS: dict[str, Mutation] = {
    "header-set": header_set, "header-drop": header_drop, "header-extra": header_extra,
    "row-set": row_set, "row-set-2": row_set, "row-shuffle": row_shuffle, "row-delete": row_delete,
    "row-insert": row_insert, "schema-view": schema_view, "schema-object": schema_object,
    "schema-columns": schema_columns, "schema-master": schema_master, "pragma": pragma,
}


def damage_file(path: Path, rng: random.Random) -> str:
    """A mutation of the file's bytes (after the SQL ones), or of what the path is."""
    data = bytearray(path.read_bytes())
    kind = rng.choice(["truncate", "flip", "flip-header", "zero-page", "append", "empty", "random", "fifo", "text"])
    if kind == "truncate":
        data = data[: rng.choice([0, 50, 100, 512, rng.randrange(len(data) + 1), len(data) - 1])]
    elif kind in ("flip", "flip-header"):
        for _ in range(rng.randint(1, 20)):
            i = rng.randrange(100 if kind == "flip-header" else len(data))
            data[i] = rng.randrange(256)
    elif kind == "zero-page":
        size = int.from_bytes(data[16:18], "big") or 65536
        page = rng.randrange(max(1, len(data) // size))
        data[page * size:(page + 1) * size] = bytes(size)[: len(data[page * size:(page + 1) * size])]
    elif kind == "append":
        data += rng.randbytes(rng.choice([1, 100, 4096]))
    elif kind == "empty":
        data = bytearray()
    elif kind == "random":
        data = bytearray(rng.randbytes(rng.choice([16, 4096, 100_000])))
    elif kind == "text":
        data = bytearray(b"SQLite format 3\x00" + CONTROL.encode())
    if kind == "fifo":
        path.unlink()
        os.mkfifo(path)
    else:
        path.write_bytes(bytes(data))
    return f"file: {kind}"


def _step_budget(calls: int) -> Callable[[], int]:
    """A progress handler that interrupts the statement after ``calls`` calls."""
    left = [calls]

    def tick() -> int:
        left[0] -= 1
        return int(left[0] < 0)
    return tick


def make_table(seed: int, folder: Path) -> tuple[str, str, Path, list[str]]:
    """(kind, base, path, mutations applied) of table case ``seed``, written under ``folder``."""
    rng = random.Random(seed)
    name = rng.choice(BASES)
    path = folder / f"case-{seed}.sqlite"
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    shutil.copy(base_table(name), path)
    game = gdl.load(game_of(name))
    ctx = Context(game, rng)
    applied: list[str] = []
    # rows before the schema: a row mutation cannot read through an endless view made first
    chosen = sorted(rng.sample(sorted(MUTATIONS), rng.choice([1, 1, 2, 3])), key=lambda m: m.startswith(("schema",
                                                                                                          "pragma")))
    db = sqlite3.connect(path)
    db.set_progress_handler(_step_budget(20_000), 1000)  # a mutation reading an endless view stops, not hangs
    try:
        for mutation in chosen:
            try:
                with db:
                    applied.append(MUTATIONS[mutation](db, rng, ctx))
            except sqlite3.Error as exc:  # a combination SQLite refuses (a view where a table was): skip it
                applied.append(f"{mutation} refused by SQLite ({exc})")
    finally:
        db.close()
    kinds = [m.split("-")[0] for m in chosen]
    if rng.random() < 0.25:
        applied.append(damage_file(path, rng))
        kinds.append("file")
    return "tables-" + "+".join(sorted(set(kinds))), name, path, applied


# ------------------------------------------------------------------ the properties


class TableViolation(AssertionError):
    """A property of the table readers does not hold."""


def _clean_message(error: BaseException) -> None:
    message = str(error)
    if "\n" in message or len(message) > 500 or has_controls(message):
        raise TableViolation(f"the table error is not one clean line: {message[:120]!r}")


def _playout_states(game: Any, rng: random.Random) -> Iterator[Any]:
    """The decision states of two random playouts of at most 40 plies."""
    for _ in range(2):
        state = game.initial_state()
        for _ in range(40):
            player = game.to_move(state)
            if player == TERMINAL:
                break
            if player == CHANCE:
                outcomes = game.chance_outcomes(state)
                state = game.apply(state, rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0])
                continue
            yield state
            state = game.apply(state, rng.choice(game.legal_moves(state)))


def check_book(game: Any, path: Path, rng: random.Random) -> None:
    """Properties 1 and 2 for a book: load_book, load_exact_table, and the book's moves along random playouts."""
    with contextlib.suppress(TableError):
        load_exact_table(path, game)  # (an exact book is a table; a book of estimates is refused as one)
    try:
        book = load_book(path, game)
    except TableError as error:
        _clean_message(error)
        return
    try:
        for state in _playout_states(game, rng):
            moves = book.moves(game, state)
            if moves is not None and not set(moves) <= set(game.legal_moves(state)):
                raise TableViolation(f"the book answers moves that are not legal: {list(moves)[:3]}")
    except CorruptTableError as error:  # (BookError: its best moves lead nowhere legal)
        _clean_message(error)


def check_library(game: Any, path: Path, rng: random.Random, book: bool = False) -> None:
    """Properties 1 and 2: load_table and the table's answers along random playouts."""
    if book:
        check_book(game, path, rng)
        return
    try:
        table = load_table(path, game)
    except TableError as error:
        _clean_message(error)
        return
    try:
        for state in _playout_states(game, rng):
            legal = {str(move) for move in game.legal_moves(state)}
            for answer in (table.best_moves(game, state), table.fastest_moves(game, state)):
                if answer is not None and not set(answer) <= legal:
                    raise TableViolation(f"the table answers moves that are not legal: {answer[:3]}")
    except CorruptTableError as error:
        _clean_message(error)


def _cli_output_ok(code: int, out: str, err: str, what: str) -> None:
    if "Traceback" in out + err:
        raise TableViolation(f"{what}: a traceback ({err.strip().splitlines()[-1][:100]!r})")
    if has_controls(out + err, keep="\n"):
        raise TableViolation(f"{what}: a raw control character in the output")
    if code == 0:
        return
    if code not in (1, 2):
        raise TableViolation(f"{what}: exit status {code}")
    lines = [line for line in err.strip().splitlines() if "error" in line]
    if len(lines) != 1 or not ("table" in lines[0] or "book" in lines[0]):
        raise TableViolation(f"{what}: not one error line about the table: {err.strip()[:160]!r}")


def check_cli(base: str, players: int, path: Path, rng: random.Random, executable: bool) -> None:
    """Properties 3 and 4: `gdl play` (and sometimes `gdl match`) in this process, sometimes the executable.

    A table goes to ``perfect:table=FILE`` (and, in SEARCHING games, ``alphabeta:depth=2,table=FILE``); a book
    to ``alphabeta:depth=2,book=FILE`` and ``alphabeta:depth=2,table=FILE`` (where an exact book is a table)."""
    name = game_of(base)
    agents = ([f"alphabeta:depth=2,book={path}", f"alphabeta:depth=2,table={path}"] if is_book_base(base)
              else [f"perfect:table={path}", *([f"alphabeta:depth=2,table={path}"] if name in SEARCHING else [])])
    runs = [["play", name, "--as", "none", "--vs", agent, "--seed", str(rng.randrange(100))] for agent in agents]
    if rng.random() < 0.25:
        runs.append(["match", name, agents[0], *["random"] * (players - 1), "--games", "2"])
    for argv in runs:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli_main(argv)
        _cli_output_ok(code, out.getvalue(), err.getvalue(), f"gdl {argv[0]}")
    if executable:
        gdl_path = shutil.which("gdl")
        if gdl_path is None:
            raise TableViolation("no gdl executable on PATH")
        env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}
        result = subprocess.run([gdl_path, *runs[0]], capture_output=True, text=True, env=env, timeout=60)
        _cli_output_ok(result.returncode, result.stdout, result.stderr, "the gdl executable")


_FOLDER: list[Path] = []


def case_folder() -> Path:
    """One private temporary folder per process for base tables and cases."""
    if not _FOLDER:
        _FOLDER.append(Path(tempfile.mkdtemp(prefix="gdl-fuzz-tables-")))
    return _FOLDER[0]


def run_table_case(seed: int, timeout: float) -> str:
    """Check every property on table case ``seed``; returns its kind; raises on a violation."""
    started = time.process_time()  # CPU time: the machine may be shared
    kind, name, path, applied = make_table(seed, case_folder())
    rng = random.Random(seed + 1)
    try:
        game = gdl.load(game_of(name))
        check_library(game, path, rng, book=is_book_base(name))
        check_cli(name, len(game.players), path, rng, executable=seed % EXECUTABLE_EVERY == 0)
    except TableViolation as violation:
        raise TableViolation(f"{violation} [{'; '.join(applied)}]"[:400]) from None
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
    used = time.process_time() - started
    if used > timeout:
        raise TimeoutError(f"the case ended after {used:.0f} s of CPU, over the {timeout:g} s timeout")
    return kind


def describe_table(seed: int) -> tuple[str, str]:
    """(kind, a description of the mutations) of table case ``seed``."""
    kind, name, path, applied = make_table(seed, case_folder())
    with contextlib.suppress(OSError):
        path.unlink()
    return kind, f"base {name} (game {game_of(name)})\n" + "\n".join(applied) + "\n"


def reproduce_table(seed: int, target: Path) -> str:
    """Write table case ``seed`` to ``target`` (a FIFO case is written as a note); returns the game's name."""
    _, name, path, _ = make_table(seed, case_folder())
    if path.is_fifo():
        path.unlink()
        target.write_text("a FIFO in place of the table\n", encoding="utf-8")
    else:
        shutil.move(path, target)
    return game_of(name)
