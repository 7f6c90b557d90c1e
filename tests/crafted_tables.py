"""Crafted solved tables: valid SQLite files with hostile contents, made from one good table of Nim.

``CRAFTED`` maps a case name to a function that damages a copy of the good table in place (it gets an
open :mod:`sqlite3` connection and the root state's key text). Every case must be refused with
:class:`solver.table.CorruptTableError`: when the table is loaded, or at the latest when the perfect
player reads the damaged entry of the root position. ``tests/test_hostile.py`` runs them all;
``bench/fuzz.py``-style campaigns can reuse them.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable

Damage = Callable[[sqlite3.Connection, str], None]
CRAFTED: dict[str, Damage] = {}

DEEP = "[" * 1000 + "]" * 1000
DEEP_OBJECT = '{"a":' * 1000 + "1" + "}" * 1000
HUGE = "x" * 300_000
HUGE_INT = "1" + "0" * 5000  # more digits than Python converts
BIG_INT = "1" + "0" * 400  # converts, but not to a float
CONTROL = "\x1b]52;c;aGk=\x07\x1b[2J"


def _short(text: str) -> str:
    return repr(text) if len(text) <= 24 else f"{text[:16]!r}...({len(text):,} chars)"


def _case(name: str, damage: Damage) -> None:
    assert name not in CRAFTED, name
    CRAFTED[name] = damage


def _set_header(name: str, value: object) -> Damage:
    def damage(db: sqlite3.Connection, root: str) -> None:
        _loose_header(db)
        db.execute("UPDATE header SET value = ? WHERE name = ?", (value, name))
    return damage


def _drop_header(name: str) -> Damage:
    return lambda db, root: db.execute("DELETE FROM header WHERE name = ?", (name,))


def _loose_header(db: sqlite3.Connection) -> None:
    """The header table without its NOT NULL constraint (so that a NULL can be stored)."""
    rows = db.execute("SELECT name, value FROM header").fetchall()
    db.execute("DROP TABLE header")
    db.execute("CREATE TABLE header (name TEXT PRIMARY KEY, value)")
    db.executemany("INSERT INTO header VALUES (?, ?)", rows)


def _loose_states(db: sqlite3.Connection) -> None:
    """The states table without constraints (no primary key, any type, NULL allowed)."""
    rows = db.execute("SELECT key, value, best FROM states").fetchall()
    db.execute("DROP TABLE states")
    db.execute("CREATE TABLE states (key, value, best)")
    db.executemany("INSERT INTO states VALUES (?, ?, ?)", rows)


def _set_root(column: str, value: object) -> Damage:
    def damage(db: sqlite3.Connection, root: str) -> None:
        _loose_states(db)
        db.execute(f"UPDATE states SET {column} = ? WHERE key = ?", (value, root))
    return damage


def _set_all(column: str, value: object) -> Damage:
    def damage(db: sqlite3.Connection, root: str) -> None:
        _loose_states(db)
        db.execute(f"UPDATE states SET {column} = ?", (value,))
    return damage


def _insert(key: object, value: object = "[1,-1]", best: object = "[]") -> Damage:
    def damage(db: sqlite3.Connection, root: str) -> None:
        _loose_states(db)
        db.execute("INSERT INTO states VALUES (?, ?, ?)", (key, value, best))
    return damage


def _sql(*statements: str) -> Damage:
    def damage(db: sqlite3.Connection, root: str) -> None:
        for statement in statements:
            db.execute(statement)
    return damage


ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT '[0]', '[1,-1]', '[]' FROM c"

# ------------------------------------------------------------------ the header
for text in ("[]", "1", '"heaps"', "null", "true", "[1,2]", DEEP, DEEP_OBJECT, '{"heaps": NaN}',
             '{"heaps": Infinity}', '{"heaps": -Infinity}', '{"heaps": 1e999}',
             '{"heaps": ' + "[" * 40 + "]" * 40 + "}", "{heaps}", "", '{"heaps": [3,4,5]', '{"x": "' + HUGE + '"}'):
    _case(f"parameters={_short(text)}", _set_header("parameters", text))
_case("parameters integer", _set_header("parameters", 7))
_case("parameters blob", _set_header("parameters", b"{}"))
_case("parameters null", _set_header("parameters", None))
for text in ("[]", "{}", "[1,2]", '["First"]', '["First","Second","Third"]', '["",""]', "First,Second", DEEP,
             '[["First"],["Second"]]', "null"):
    _case(f"players={_short(text)}", _set_header("players", text))
for name in ("format", "version", "game", "parameters", "fingerprint", "players", "method", "complete"):
    _case(f"no {name}", _drop_header(name))
for text in ("2", "yes", "", "true"):
    _case(f"complete={text!r}", _set_header("complete", text))
_case("format other", _set_header("format", "other-table"))
_case("version 2", _set_header("version", "2"))
_case("version integer", _set_header("version", 1))
_case("game integer", _set_header("game", 12))
_case("fingerprint blob", _set_header("fingerprint", b"\x00\x01"))
_case("method null", _set_header("method", None))
_case("game huge", _set_header("game", HUGE))

# ------------------------------------------------------------------ values
for text in ("[]", "[1]", "[1,-1,0]", "[NaN,1]", "[1,NaN]", "[Infinity,-1]", "[-Infinity,1]", "[1e999,0]",
             "[true,false]", "[null,1]", '["1","-1"]', '{"a":1}', "1", "nan", "[[1],[-1]]", f"[{HUGE_INT},1]",
             f"[{BIG_INT},1]", DEEP, "[1,-1", ""):
    _case(f"root value={_short(text)}", _set_root("value", text))
_case("every value short", _set_all("value", "[0]"))
_case("value integer", _set_root("value", 1))
_case("value real", _set_root("value", 0.5))
_case("value blob", _set_root("value", b"[1,-1]"))
_case("value null", _set_root("value", None))
_case("value huge", _set_root("value", "[1," + "0" * 300_000 + "]"))

# ------------------------------------------------------------------ best moves
for text in ('"take(0,1)"', "[1]", "[null]", '[""]', '[["take(0,1)"]]', "{}", "take(0,1)", "NaN", DEEP,
             json.dumps(["take(0,1)"] * 20_000), '["take(0,9)"]', '["fly"]', '["take(7,1)"]',
             json.dumps([CONTROL]), '["take(0,1)", "take(9,9)"]', '["TAKE(0,1)"]', "[true]"):
    _case(f"root best={_short(text)}", _set_root("best", text))
_case("best integer", _set_root("best", 3))
_case("best blob", _set_root("best", b"[]"))
_case("best null", _set_root("best", None))
_case("best huge", _set_root("best", json.dumps(["x" * 50] * 10_000)))

# ------------------------------------------------------------------ distances to the end (the plies column)
for value in (-1, -1e300, float("-inf"), "x", b"\x00"):  # ("1" and True are stored as numbers)
    _case(f"root plies={value!r}", lambda db, root, value=value: db.execute(
        "UPDATE states SET plies = ? WHERE key = ?", (value, root)))

# ------------------------------------------------------------------ keys
for text in ("[1,2", "[NaN]", "[Infinity]", DEEP, '{"a":[1]}', "", "[" * 40 + "]" * 40):
    _case(f"key={_short(text)}", _insert(text))
_case("key integer", _insert(5))
_case("key blob", _insert(b"[1]"))
_case("key null", _insert(None))
_case("key huge", _insert("[" + ",".join(["1"] * 100_000) + "]"))
_case("key twice", lambda db, root: _insert(root)(db, root))

# ------------------------------------------------------------------ schema: views, triggers, other objects
_case("states is an endless view", _sql("DROP TABLE states", f"CREATE VIEW states(key, value, best) AS {ENDLESS}"))
_case("header is an endless view", _sql(
    "DROP TABLE header",
    "CREATE VIEW header(name, value) AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
    "SELECT 'format', 'gdl-solved-table' FROM c"))
_case("an extra view", _sql(f"CREATE VIEW extra AS {ENDLESS}"))
_case("a trigger", _sql("CREATE TRIGGER t AFTER INSERT ON states BEGIN DELETE FROM header; END"))
_case("an extra table", _sql("CREATE TABLE extra (x)"))
_case("an extra index", _sql("CREATE INDEX by_value ON states(value)"))
_case("no states", _sql("DROP TABLE states"))
_case("no header", _sql("DROP TABLE header"))

# ------------------------------------------------------------------ columns SQLite computes while reading
# (found by `bench/fuzz.py --generator tables`: a generated column building a 900 MB string took 16 s and
# a gigabyte of memory in one step, out of the progress handler's reach)
HUGE_STRING = "printf('%.*c', 900000000, 'x')"


def _rebuild_states(definition: str, select: str, expression: str | None = None) -> Damage:
    """``expression``: written into the schema in place of the generated column's ``(NULL)`` afterwards (SQLite
    computes a virtual column for every row it inserts: building the file would take seconds; reading it must
    not)."""
    def damage(db: sqlite3.Connection, root: str) -> None:
        db.execute(f"CREATE TABLE new_states {definition}")
        db.execute(f"INSERT INTO new_states (key, v0, best, plies) SELECT {select} FROM states")
        db.execute("DROP TABLE states")
        db.execute("ALTER TABLE new_states RENAME TO states")
        if expression is not None:
            db.execute("PRAGMA writable_schema = ON")
            db.execute("UPDATE sqlite_master SET sql = replace(sql, 'AS (NULL)', ?) WHERE name = 'states'",
                       (f"AS ({expression})",))
    return damage


_case("a generated column building a huge string", _rebuild_states(
    "(key TEXT PRIMARY KEY, v0 TEXT, value TEXT GENERATED ALWAYS AS (NULL) VIRTUAL, best TEXT, plies REAL)",
    "key, value, best, plies", HUGE_STRING))
_case("a generated column", _rebuild_states(
    "(key TEXT PRIMARY KEY, v0 TEXT, value TEXT GENERATED ALWAYS AS (v0) STORED, best TEXT, plies REAL)",
    "key, value, best, plies"))
_case("a column with a default expression", _sql(  # (SQLite does not evaluate it for old rows; refused all the same)
    "CREATE TABLE new_states (key TEXT PRIMARY KEY, value TEXT NOT NULL, best TEXT NOT NULL)",
    "INSERT INTO new_states SELECT key, value, best FROM states", "DROP TABLE states",
    "ALTER TABLE new_states RENAME TO states", "PRAGMA writable_schema = ON",
    "UPDATE sqlite_master SET sql = 'CREATE TABLE states (key TEXT PRIMARY KEY, value TEXT NOT NULL, "
    "best TEXT NOT NULL, plies REAL DEFAULT (length(printf(''%.*c'', 900000000, ''x''))))' WHERE name = 'states'"))


def kind_of(name: str) -> str:
    """The kind of a crafted case: what it damages (``root value``, ``players``, ``no format``, ``key``...)."""
    words = re.split(r"[ =]", name)
    return " ".join(words[:2]) if words[0] in ("root", "no", "a", "an", "every") else words[0]


def one_of_each_kind() -> list[str]:
    """One crafted case of every kind (the first by name)."""
    sample: dict[str, str] = {}
    for name in sorted(CRAFTED):
        sample.setdefault(kind_of(name), name)
    return sorted(sample.values())

# ------------------------------------------------------------------ text that is not UTF-8
# (found by the table generator: `is_book` let the UnicodeDecodeError out, so `alphabeta:table=FILE` failed
# with a bare codec message instead of the damaged-table error)
_case("format not UTF-8", _sql("UPDATE header SET value = CAST(x'67646cf0ff' AS TEXT) WHERE name = 'format'"))
_case("root value not UTF-8", lambda db, root: db.execute(
    "UPDATE states SET value = CAST(x'5b31f0ff5d' AS TEXT) WHERE key = ?", (root,)))


def params() -> list[str]:
    """Every case name, for ``pytest.mark.parametrize``."""
    return sorted(CRAFTED)
