"""Solved tables: the value and optimal moves of many states, saved to and loaded from SQLite.

File format (SQLite 3, read with the standard :mod:`sqlite3` module; no pickle)::

    CREATE TABLE header (name TEXT PRIMARY KEY, value TEXT NOT NULL);
        -- format = 'gdl-solved-table', version = '1', game, parameters (JSON, sorted keys),
        -- fingerprint, players (JSON list), method, complete ('1' or '0')
    CREATE TABLE states (key TEXT PRIMARY KEY, value TEXT NOT NULL, best TEXT NOT NULL, plies REAL);
        -- key: the state key as compact JSON (tuples written as arrays, read back as tuples)
        -- value: JSON array, one number per player
        -- best: JSON array of the names of the optimal moves (empty at terminal and chance states)
        -- plies: the distance to the end under optimal play (solver.remoteness; expected plies with
        --        chance, Inf for endless play), NULL when not computed; tables written before it
        --        existed have no such column and read as NULL

Saving writes a temporary file in the target's directory and moves it over
the target with :func:`os.replace`, so a run killed while saving leaves the
old file intact. Loading refuses a file that is not such a table
(:class:`CorruptTableError`) and, given the game, a table solved for another
game, other parameters or other rules (:class:`StaleTableError`).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sqlite3
import tempfile
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from solver.game import TERMINAL

FORMAT = "gdl-solved-table"
VERSION = "1"


class TableError(ValueError):
    """A solved table that cannot be used."""


class CorruptTableError(TableError):
    """The file is not a solved table (not SQLite, another program's database, or damaged)."""


class StaleTableError(TableError):
    """The table was solved for another game, other parameters or other rules."""


@dataclass
class SolvedTable:
    """Values (one per player) and optimal move names, keyed by ``game.key(state)``."""

    game: str
    parameters: Mapping[str, Any]
    fingerprint: str
    players: tuple[str, ...]
    method: str
    complete: bool
    """Every state reachable from the solved root is in the table (else: only some, e.g. from alpha-beta)."""
    values: dict[Hashable, tuple[float, ...]] = field(default_factory=dict)
    best: dict[Hashable, tuple[str, ...]] = field(default_factory=dict)
    plies: dict[Hashable, float] = field(default_factory=dict)
    """The distance to the end (:mod:`solver.remoteness`) where it was computed."""

    @classmethod
    def for_game(cls, game: Any, method: str, complete: bool) -> SolvedTable:
        return cls(game.name, dict(game.parameters), game.fingerprint, tuple(game.players), method, complete)

    def __len__(self) -> int:
        return len(self.values)

    def best_moves(self, game: Any, state: Any) -> tuple[str, ...] | None:
        """The names of optimal moves at ``state``, or None when the table cannot tell.

        A game whose keys identify symmetric states (it has ``symmetries``) shares one entry
        among mirror images, and a stored move belongs to whichever image was solved: there
        the moves are found again from the children's values (an exact child value equal to
        the state's marks an optimal move). A cyclic game solved by retrograde analysis also
        needs progress, which values alone do not show: None there.
        """
        key = game.key(state)
        if not has_symmetric_keys(game):
            return self.best.get(key)
        here = self.values.get(key)
        player = game.to_move(state)
        if here is None or player < 0 or self.method == "retrograde":
            return None
        found = []
        for move in game.legal_moves(state):
            child = game.apply(state, move)
            value = game.utilities(child) if game.to_move(child) == TERMINAL else self.values.get(game.key(child))
            if value is not None and abs(value[player] - here[player]) <= TIE_TOLERANCE:
                found.append(str(move))
        return tuple(found) or None

    def fastest_moves(self, game: Any, state: Any) -> tuple[str, ...] | None:
        """The optimal moves at ``state`` that follow the distance to the end, or None when the table cannot tell.

        Where the table knows the state's distance, the legal moves whose child keeps the state's
        value and is one ply nearer the end (a winner's fastest, a loser's slowest); else
        :meth:`best_moves`.
        """
        key = game.key(state)
        here, value = self.plies.get(key), self.values.get(key)
        player = game.to_move(state)
        if here is None or value is None or not math.isfinite(here) or player < 0:
            return self.best_moves(game, state)
        kept = []
        for move in game.legal_moves(state):
            child = game.apply(state, move)
            if game.to_move(child) == TERMINAL:
                theirs, distance = tuple(game.utilities(child)), 0.0
            else:
                child_key = game.key(child)
                theirs, distance = self.values.get(child_key), self.plies.get(child_key)
            if (theirs is not None and distance is not None and abs(theirs[player] - value[player]) <= TIE_TOLERANCE
                    and math.isclose(distance + 1.0, here, rel_tol=1e-9, abs_tol=1e-9)):
                kept.append(str(move))
        return tuple(kept) or self.best_moves(game, state)

    def check_game(self, game: Any) -> None:
        """:raises StaleTableError: the table belongs to another game, parameters or rules."""
        if self.game != game.name:
            raise StaleTableError(f"this table was solved for the game {self.game!r}, not {game.name!r}")
        ours, theirs = canonical_json(dict(game.parameters)), canonical_json(dict(self.parameters))
        if ours != theirs:
            raise StaleTableError(f"this table was solved for parameters {theirs}, not {ours}; solve again")
        if self.fingerprint != game.fingerprint:
            raise StaleTableError(f"the rules of {game.name!r} changed since this table was solved "
                                  "(fingerprint differs); solve again")


TIE_TOLERANCE = 1e-9
"""Values this close count as equal when listing optimal moves (after value iteration, or from a table)."""


def has_symmetric_keys(game: Any) -> bool:
    """Whether ``game.key`` gives symmetric states one key (then no move may be stored under a key)."""
    return bool(getattr(game, "symmetries", ()))


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=_refuse)


def _refuse(value: Any) -> Any:
    raise TypeError(f"{value!r} ({type(value).__name__}) cannot be stored in a solved table")


def encode_key(key: Hashable) -> str:
    """A state key as JSON text; tuples become arrays (and come back as tuples).

    >>> encode_key((1, (True, None), "x"))
    '[1,[true,null],"x"]'
    >>> decode_key(encode_key((1, (True, None), "x")))
    (1, (True, None), 'x')
    """
    if isinstance(key, float) and not math.isfinite(key):
        raise ValueError(f"state key {key!r} cannot be saved")
    try:
        return json.dumps(key, separators=(",", ":"), allow_nan=False, default=_refuse)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"state key {key!r} cannot be saved: {exc}") from None


def decode_key(text: str) -> Hashable:
    return _tuples(json.loads(text))


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def save_table(table: SolvedTable, path: str | os.PathLike[str]) -> None:
    """Write ``table`` to ``path`` atomically (temporary file, then :func:`os.replace`).

    :raises ValueError: a state key cannot be written as JSON.
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(prefix=".gdl-table-", suffix=".tmp", dir=directory)
    os.close(fd)
    try:
        _write(table, temp)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temp)
        raise


def _write(table: SolvedTable, path: str) -> None:
    connection = sqlite3.connect(path)
    try:
        with connection:
            connection.execute("CREATE TABLE header (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
            connection.execute("CREATE TABLE states (key TEXT PRIMARY KEY, value TEXT NOT NULL, best TEXT NOT NULL, "
                               "plies REAL)")
            header = {
                "format": FORMAT, "version": VERSION, "game": table.game,
                "parameters": canonical_json(dict(table.parameters)), "fingerprint": table.fingerprint,
                "players": json.dumps(list(table.players)), "method": table.method,
                "complete": "1" if table.complete else "0",
            }
            connection.executemany("INSERT INTO header VALUES (?, ?)", header.items())
            best, plies = table.best, table.plies
            connection.executemany(
                "INSERT INTO states VALUES (?, ?, ?, ?)",
                ((encode_key(k), json.dumps(list(v)), json.dumps(list(best.get(k, ()))), plies.get(k))
                 for k, v in table.values.items()),
            )
    finally:
        connection.close()


def load_table(path: str | os.PathLike[str], game: Any = None) -> SolvedTable:
    """Read a table saved by :func:`save_table`; with ``game``, check that it belongs to it.

    :raises FileNotFoundError: no such file.
    :raises CorruptTableError: the file is not a solved table.
    :raises StaleTableError: the table is for another game, other parameters or other rules.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no solved table at {path!r}")
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise CorruptTableError(f"{path!r} cannot be opened as a solved table: {exc}") from None
    try:
        table = _read(connection, path)
    except sqlite3.DatabaseError as exc:
        raise CorruptTableError(f"{path!r} is not a gdl solved table ({exc})") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise CorruptTableError(f"{path!r} is a damaged solved table ({exc})") from None
    finally:
        connection.close()
    if game is not None:
        table.check_game(game)
    return table


def _read(connection: sqlite3.Connection, path: str) -> SolvedTable:
    try:
        header = dict(connection.execute("SELECT name, value FROM header").fetchall())
    except sqlite3.OperationalError:
        raise CorruptTableError(f"{path!r} is an SQLite file but not a gdl solved table (no header)") from None
    if header.get("format") != FORMAT:
        raise CorruptTableError(f"{path!r} is an SQLite file but not a gdl solved table")
    if header.get("version") != VERSION:
        raise CorruptTableError(f"{path!r} is a solved table of version {header.get('version')!r}; "
                                f"this gdl reads version {VERSION}")
    table = SolvedTable(header["game"], json.loads(header["parameters"]), header["fingerprint"],
                        tuple(json.loads(header["players"])), header["method"], header["complete"] == "1")
    values, best, plies = table.values, table.best, table.plies
    columns = {row[1] for row in connection.execute("PRAGMA table_info(states)")}
    distance = "plies" if "plies" in columns else "NULL"  # tables saved before the column existed
    for key_text, value_text, best_text, distance_value in connection.execute(
            f"SELECT key, value, best, {distance} FROM states"):
        key = decode_key(key_text)
        values[key] = tuple(float(x) for x in json.loads(value_text))
        names = json.loads(best_text)
        if names:
            best[key] = tuple(names)
        if distance_value is not None:
            plies[key] = float(distance_value)
    return table
