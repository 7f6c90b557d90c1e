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

import json
import math
import os
import stat
import urllib.parse
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from solver.files import TargetError, check_target, replace_file
from solver.game import TERMINAL, Game
from solver.limits import TIE_TOLERANCE

if TYPE_CHECKING:
    import sqlite3

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
    def for_game(cls, game: Game, method: str, complete: bool) -> SolvedTable:
        return cls(game.name, dict(game.parameters), game.fingerprint, tuple(game.players), method, complete)

    def __len__(self) -> int:
        return len(self.values)

    def best_moves(self, game: Game, state: Any) -> tuple[str, ...] | None:
        """The names of optimal moves at ``state``, or None when the table cannot tell.

        A game whose keys identify symmetric states (it has ``symmetries``) shares one entry
        among mirror images, and a stored move belongs to whichever image was solved: there
        the moves are found again from the children's values (an exact child value equal to
        the state's marks an optimal move). A cyclic game solved by retrograde analysis also
        needs progress, which values alone do not show: None there.
        """
        key = game.key(state)
        if not has_symmetric_keys(game):
            return self._checked_best(game, state, self.best.get(key))
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

    def _checked_best(self, game: Game, state: Any, names: tuple[str, ...] | None) -> tuple[str, ...] | None:
        """``names`` if each is a legal move at ``state``; a table that says otherwise is damaged."""
        if not names:
            return names
        legal = {str(move) for move in game.legal_moves(state)}
        for name in names:
            if name not in legal:
                raise CorruptTableError(f"damaged solved table: its best move {_shown(name)} is not a legal move "
                                        f"in this position")
        return names

    def fastest_moves(self, game: Game, state: Any) -> tuple[str, ...] | None:
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
            theirs: Sequence[float] | None
            distance: float | None
            if game.to_move(child) == TERMINAL:
                theirs, distance = tuple(game.utilities(child)), 0.0
            else:
                child_key = game.key(child)
                theirs, distance = self.values.get(child_key), self.plies.get(child_key)
            if (theirs is not None and distance is not None and abs(theirs[player] - value[player]) <= TIE_TOLERANCE
                    and math.isclose(distance + 1.0, here, rel_tol=TIE_TOLERANCE, abs_tol=TIE_TOLERANCE)):
                kept.append(str(move))
        return tuple(kept) or self.best_moves(game, state)

    def check_game(self, game: Game) -> None:
        """:raises StaleTableError: the table belongs to another game, parameters or rules."""
        if self.game != game.name:
            raise StaleTableError(f"this table was solved for the game {_shown(self.game)}, not {game.name!r}")
        ours, theirs = canonical_json(dict(game.parameters)), canonical_json(dict(self.parameters))
        if ours != theirs:
            raise StaleTableError(f"this table was solved for parameters {_shown(theirs, 200)}, not {ours}; "
                                  "solve again")
        if len(self.players) != len(game.players):
            raise CorruptTableError(f"damaged solved table: {len(self.players)} players, but the game has "
                                    f"{len(game.players)}")
        if self.fingerprint != game.fingerprint:
            raise StaleTableError(f"the rules of {game.name!r} changed since this table was solved "
                                  "(fingerprint differs); solve again")


"""Values this close count as equal when listing optimal moves (after value iteration, or from a table)."""


def has_symmetric_keys(game: Game) -> bool:
    """Whether ``game.key`` gives symmetric states one key (then no move may be stored under a key)."""
    return bool(game.symmetries)


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=_refuse)


def _refuse(value: Any) -> Any:
    if isinstance(value, Fraction):  # a real parameter: its exact text, `1/2`
        return str(value)
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
    """Write ``table`` to ``path`` atomically (:func:`solver.files.replace_file`: a temporary file, then
    :func:`os.replace`), only over a regular file or a link.

    :raises TableError: ``path`` is a directory, a device, a FIFO or a socket.
    :raises ValueError: a state key cannot be written as JSON.
    """
    try:
        replace_file(path, lambda temporary: _write(table, temporary), "a solved table", prefix=".gdl-table-")
    except TargetError as error:
        raise TableError(str(error)) from None


def check_save_target(path: str | os.PathLike[str], what: str) -> None:
    """:func:`solver.files.check_target` with its refusal as a :class:`TableError` (``what``: a solved table,
    a book).

    :raises TableError: the path is a directory, a device, a FIFO or a socket.
    """
    try:
        check_target(path, what)
    except TargetError as error:
        raise TableError(str(error)) from None


def _write(table: SolvedTable, path: str) -> None:
    import sqlite3  # (here and in the readers: a solve that saves or reads no table needs none of it)

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


def load_table(path: str | os.PathLike[str], game: Game | None = None) -> SolvedTable:
    """Read a table saved by :func:`save_table`; with ``game``, check that it belongs to it.

    :raises FileNotFoundError: no such file.
    :raises CorruptTableError: the file is not a solved table.
    :raises StaleTableError: the table is for another game, other parameters or other rules.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no solved table at {path!r}")
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise CorruptTableError(f"{path!r} is not a regular file, so not a solved table")
    import sqlite3

    try:
        # The path is quoted into the URI: `#`, `?` and `%` in a file name stay part of the name.
        uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
        connection = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise CorruptTableError(f"{path!r} cannot be opened as a solved table: {exc}") from None
    try:
        _bound(connection, info.st_size)
        _check_schema(connection, path)
        table = _read(connection, path)
    except sqlite3.DatabaseError as exc:
        raise CorruptTableError(f"{path!r} is not a gdl solved table ({exc})") from None
    except _Damaged as exc:
        raise CorruptTableError(f"{path!r} is a damaged solved table: {exc.what}") from None
    except CorruptTableError:
        raise
    except (ValueError, KeyError, TypeError, OverflowError, RecursionError, MemoryError) as exc:
        raise CorruptTableError(f"{path!r} is a damaged solved table ({type(exc).__name__}: "
                                f"{_shown(str(exc))})") from None
    finally:
        connection.close()
    if game is not None:
        table.check_game(game)
    return table


MAX_TEXT = 100_000
"""The longest header value, state key or move list (characters) a table may hold."""
MAX_DEPTH = 32
"""The deepest nesting of JSON arrays and objects in a state key or the parameters."""
MAX_BEST = 10_000
"""The most optimal moves stored for one state."""
_PROGRESS_STEP = 1000
_OPS_PER_BYTE = 64


def _bound(connection: sqlite3.Connection, size: int) -> None:
    """Cap the work SQLite may do on this file: proportional to its size, so a legitimate table always
    loads and nothing can run for ever (the schema check already refuses views and triggers)."""
    connection.execute("PRAGMA trusted_schema = OFF")
    connection.execute("PRAGMA query_only = ON")
    budget = [(size * _OPS_PER_BYTE) // _PROGRESS_STEP + 10_000]

    def tick() -> int:
        budget[0] -= 1
        return 1 if budget[0] < 0 else 0  # non-zero interrupts the statement

    connection.set_progress_handler(tick, _PROGRESS_STEP)


def _check_schema(connection: sqlite3.Connection, path: str, what: str = "solved table",
                  error: type[CorruptTableError] = CorruptTableError) -> None:
    """Exactly the two plain tables (and their primary-key indexes): no views, triggers or virtual tables.

    Books (:mod:`solver.book`) share the format and this check: ``what`` and ``error`` name the kind of file.
    """
    import sqlite3

    try:
        rows = connection.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
    except sqlite3.DatabaseError as exc:
        raise error(f"{path!r} is not a gdl {what} ({exc})") from None
    for kind, name, sql in rows:
        plain_table = kind == "table" and name in ("header", "states") and isinstance(sql, str) \
            and sql.lstrip().upper().startswith("CREATE TABLE")
        own_index = kind == "index" and isinstance(name, str) and name.startswith("sqlite_autoindex_") and sql is None
        if not (plain_table or own_index):
            raise error(f"{path!r} is not a gdl {what} (its schema has {_shown(kind)} "
                        f"{_shown(name)}, which a {what} never has)")
    for table in ("header", "states"):
        for column in connection.execute(f"PRAGMA table_xinfo({table})"):
            if column[4] is not None or column[6] != 0:  # dflt_value, hidden (1 virtual table, 2-3 generated)
                raise error(f"{path!r} is not a gdl {what} (its column {table}.{_shown(column[1])} "
                            f"is computed or has a default, which a {what} never has)")


def _shown(value: Any, limit: int = 60) -> str:
    """A value for an error message: quoted, control characters escaped, shortened."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _read(connection: sqlite3.Connection, path: str) -> SolvedTable:
    import sqlite3

    try:
        rows = connection.execute(f"SELECT substr(name, 1, 100), {_CAPPED.format('value')} FROM header").fetchall()
    except sqlite3.OperationalError:
        raise CorruptTableError(f"{path!r} is an SQLite file but not a gdl solved table (no header)") from None
    header = {name: _typed(value, kind) for name, value, kind in rows if isinstance(name, str)}
    if header.get("format") != FORMAT:
        raise CorruptTableError(f"{path!r} is an SQLite file but not a gdl solved table")
    if header.get("version") != VERSION:
        raise CorruptTableError(f"{path!r} is a solved table of version {_shown(header.get('version'))}; "
                                f"this gdl reads version {VERSION}")
    table = _header(header)
    values, best, plies, count = table.values, table.best, table.plies, len(table.players)
    columns = {row[1] for row in connection.execute("PRAGMA table_info(states)")}
    distance = "plies, typeof(plies)" if "plies" in columns else "NULL, 'null'"  # tables saved before the column
    capped = ", ".join(_CAPPED.format(column) for column in ("key", "value", "best"))
    for key_text, key_kind, value_text, value_kind, best_text, best_kind, distance_value, distance_kind in (
            connection.execute(f"SELECT {capped}, {distance} FROM states")):
        key_text, value_text, best_text = (_typed(key_text, key_kind), _typed(value_text, value_kind),
                                           _typed(best_text, best_kind))
        key = _key(key_text)
        if key in values:
            raise ValueError(f"the state {_shown(key_text)} appears twice")
        values[key] = _value(value_text, count)
        names = _best(best_text)
        if names:
            best[key] = names
        if distance_kind != "null":
            plies[key] = _plies(distance_value, distance_kind)
    return table


class _Damaged(CorruptTableError):
    def __init__(self, what: str) -> None:
        super().__init__(f"damaged solved table: {what}")
        self.what = what


def _damaged(what: str) -> CorruptTableError:
    return _Damaged(what)


_CAPPED = f"substr({{0}}, 1, {MAX_TEXT + 1}), typeof({{0}})"
"""A column as at most one character more than :data:`MAX_TEXT` (a huge row never reaches Python), and its type."""


class _NotText:
    """A column that held a number, a blob or NULL where text belongs."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __repr__(self) -> str:
        return f"<{self.kind}>"


def _typed(value: Any, kind: str) -> Any:
    return value if kind == "text" else _NotText(kind)


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        kind = value.kind if isinstance(value, _NotText) else type(value).__name__
        raise _damaged(f"{what} is {kind}, not text")
    if len(value) > MAX_TEXT:
        raise _damaged(f"{what} is {len(value):,} characters long (at most {MAX_TEXT:,})")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a solved table may hold")


def _json(text: Any, what: str) -> Any:
    try:
        return json.loads(_text(text, what), parse_constant=_no_constant)
    except RecursionError:
        raise _damaged(f"{what} is nested too deeply") from None
    except ValueError as exc:
        raise _damaged(f"{what} is not valid JSON ({_shown(str(exc))})") from None


def _plain(value: Any, what: str, depth: int = 0) -> None:
    """JSON data as gdl writes it: numbers (finite), strings, booleans, null, arrays and objects, not deep."""
    if depth > MAX_DEPTH:
        raise _damaged(f"{what} is nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, float) and not math.isfinite(value):
        raise _damaged(f"{what} holds {value!r}")
    if isinstance(value, list):
        for item in value:
            _plain(item, what, depth + 1)
    elif isinstance(value, dict):
        for item in value.values():
            _plain(item, what, depth + 1)


def _header(header: dict[str, Any]) -> SolvedTable:
    fields = {}
    for name in ("game", "parameters", "fingerprint", "players", "method", "complete"):
        if name not in header:
            raise _damaged(f"the header has no {name!r}")
        fields[name] = _text(header[name], f"the header's {name!r}")
    parameters = _json(fields["parameters"], "the parameters")
    if not isinstance(parameters, dict):
        raise _damaged(f"the parameters are a {type(parameters).__name__}, not an object")
    _plain(parameters, "the parameters")
    players = _json(fields["players"], "the players")
    if not (isinstance(players, list) and players and all(isinstance(p, str) and p for p in players)):
        raise _damaged("the players are not a non-empty list of names")
    if fields["complete"] not in ("0", "1"):
        raise _damaged(f"'complete' is {_shown(fields['complete'])}, not '0' or '1'")
    return SolvedTable(fields["game"], parameters, fields["fingerprint"], tuple(players), fields["method"],
                       fields["complete"] == "1")


def _key(text: Any) -> Hashable:
    value = _json(text, "a state key")
    _plain(value, "a state key")
    key = _tuples(value)
    try:
        hash(key)
    except TypeError:
        raise _damaged(f"the state key {_shown(text)} is not a list of plain values") from None
    return key


def _value(text: Any, players: int) -> tuple[float, ...]:
    value = _json(text, "a value")
    if not isinstance(value, list) or len(value) != players:
        raise _damaged(f"the value {_shown(text)} is not a list of {players} numbers (one per player)")
    numbers = []
    for number in value:
        if isinstance(number, bool) or not isinstance(number, int | float):
            raise _damaged(f"the value {_shown(text)} holds {_shown(number)}, not a number")
        number = float(number)  # OverflowError for a huge integer: damaged
        if not math.isfinite(number):
            raise _damaged(f"the value {_shown(text)} is not finite")
        numbers.append(number)
    return tuple(numbers)


def _plies(value: Any, kind: str) -> float:
    """A distance to the end: a number >= 0, or infinity for endless play (``Inf`` in SQLite)."""
    if kind not in ("real", "integer") or isinstance(value, bool):
        raise _damaged(f"a distance to the end is {kind}, not a number")
    distance = float(value)
    if not distance >= 0:  # negative or NaN
        raise _damaged(f"a distance to the end is {distance!r}")
    return distance


def _best(text: Any) -> tuple[str, ...]:
    names = _json(text, "a list of best moves")
    if not isinstance(names, list) or len(names) > MAX_BEST:
        raise _damaged(f"the best moves {_shown(text)} are not a list of at most {MAX_BEST} moves")
    for name in names:
        if not isinstance(name, str) or not name:
            raise _damaged(f"the best moves {_shown(text)} hold {_shown(name)}, not a move name")
    return tuple(names)
