"""Opening books: the best moves and values of every position up to N plies from the start, in SQLite.

"Use a catalogue of solved positions ... combine knowledge with search" (the course notes): a
book is built once (:func:`build_book`, ``gdl book``), saved (:func:`save_book`) and read by
agents (``alphabeta:depth=2,book=FILE``, see :mod:`solver.probe`), which play from it while
the position is in it and search once play has left it.

A book holds, for every position reachable in at most ``plies`` moves (chance outcomes count
as plies), its value (one number per player) and its best moves: exact (the book's ``depth``
is None; a small game, or one with chance or more players, solved whole by a graph method of
:mod:`solver.exact` with distances to the end; a big deterministic duel position by position
by MTD(f) with one transposition table shared by every position), or from a depth-limited
search (alpha-beta for two-player zero-sum games, expectimax with chance, max^n otherwise).

Best moves are stored as the keys of the positions they lead to, not as move names: a game
whose keys identify mirror images (``symmetry`` in a rule file) gives every image one entry,
and the names of the moves differ from image to image while the keys of their results do
not. At play, the best moves of a position are its legal moves whose result has such a key.

File format: the solved table's (:mod:`solver.table`; same two tables, same safe writing and
the same checks on reading, since a book is untrusted input), with ``format = 'gdl-book'``,
two more header entries, ``plies`` (N) and ``depth`` (the search depth, or ``exact``), and
in ``states.best`` a JSON array of state keys. An exact book is also a (partial) solved
table: ``table=BOOK`` probes its values inside a search.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
import urllib.parse
from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from solver import table as tables
from solver.alphabeta import CycleFound, NegamaxSearch, TooDeep
from solver.auto import check_players, heuristic_search, is_two_player_zero_sum
from solver.exact import solve
from solver.files import TargetError, replace_file
from solver.game import TERMINAL, Game, State, candidate_moves
from solver.graph import StateGraph
from solver.limits import (
    Budget,
    Limits,
    SearchResult,
    SearchStats,
    SearchStopped,
)
from solver.mtdf import at_least, at_most, mtdf
from solver.table import (
    TIE_TOLERANCE,
    CorruptTableError,
    SolvedTable,
    StaleTableError,
    TableError,
    canonical_json,
    encode_key,
)

FORMAT = "gdl-book"
VERSION = "1"
MAX_POSITIONS = 200_000
"""The most positions :func:`build_book` collects unless told otherwise (``gdl book --max-positions``)."""


class BookError(CorruptTableError):
    """A file that is not a book, or a damaged one (never a traceback: books are untrusted input)."""


class TooManyPositions(TableError):
    """More positions lie within the book's plies than the cap allows."""


@dataclass
class Book:
    """Values and best moves of the positions within ``plies`` plies of the start, by ``game.key``."""

    game: str
    parameters: Mapping[str, Any]
    fingerprint: str
    players: tuple[str, ...]
    method: str
    """How the values were found: ``alphabeta``, ``retrograde``, ``backward``, ... (exact), or the search."""
    plies: int
    depth: int | None
    """The depth of the search that valued the positions; None: the values are exact."""
    values: dict[Hashable, tuple[float, ...]] = field(default_factory=dict)
    best: dict[Hashable, tuple[Hashable, ...]] = field(default_factory=dict)
    """The keys of the positions that the best moves lead to (none at chance states)."""

    @classmethod
    def for_game(cls, game: Game, method: str, plies: int, depth: int | None) -> Book:
        return cls(game.name, dict(game.parameters), game.fingerprint, tuple(game.players), method, plies, depth)

    def __len__(self) -> int:
        return len(self.values)

    @property
    def exact(self) -> bool:
        return self.depth is None

    def moves(self, game: Game, state: State) -> list[Hashable] | None:
        """The book's best moves at ``state`` in the game's move order, or None when it is not in the book.

        :raises BookError: the book names results that no legal move reaches (a damaged book).
        """
        wanted = self.best.get(game.key(state))
        if not wanted:
            return None
        keys = set(wanted)
        found = [move for move in game.legal_moves(state) if game.key(game.apply(state, move)) in keys]
        if not found:
            raise BookError("damaged book: none of the best moves it stores for this position is a legal move here")
        return found

    def check_game(self, game: Game) -> None:
        """:raises StaleTableError: the book was built for another game, other parameters or other rules."""
        if self.game != game.name:
            raise StaleTableError(f"this book was built for the game {tables._shown(self.game)}, not {game.name!r}")
        ours, theirs = canonical_json(dict(game.parameters)), canonical_json(dict(self.parameters))
        if ours != theirs:
            raise StaleTableError(f"this book was built for parameters {tables._shown(theirs, 200)}, not {ours}; "
                                  "build it again")
        if len(self.players) != len(game.players):
            raise BookError(f"damaged book: {len(self.players)} players, but the game has {len(game.players)}")
        if self.fingerprint != game.fingerprint:
            raise StaleTableError(f"the rules of {game.name!r} changed since this book was built "
                                  "(fingerprint differs); build it again")

    def as_table(self) -> SolvedTable:
        """The book's values as a (partial) solved table, for probing inside a search (exact books only)."""
        if not self.exact:
            raise TableError(f"this book holds the estimates of a depth-{self.depth} search, not exact values: "
                             "a table probed inside a search must be exact (build the book without --depth)")
        table = SolvedTable(self.game, dict(self.parameters), self.fingerprint, self.players, f"book ({self.method})",
                            complete=False)
        table.values.update(self.values)
        return table


# ------------------------------------------------------------------ building


@dataclass(frozen=True)
class BookProgress:
    """How far :func:`build_book` has come: positions valued of ``total``, nodes searched, seconds."""

    done: int
    total: int
    nodes: int
    seconds: float


def positions(game: Game, plies: int, cap: int = MAX_POSITIONS) -> list[list[State]]:
    """The non-terminal positions within ``plies`` plies of the start, by the ply of their first appearance.

    One position per key (a transposition or a mirror image is met once), breadth first.

    :raises TooManyPositions: more than ``cap`` of them.
    """
    root = game.initial_state()
    if game.to_move(root) == TERMINAL:
        return [[]]
    levels, seen = [[root]], {game.key(root)}
    for _ in range(plies):
        following = []
        for state in levels[-1]:
            for move in candidate_moves(game, state):
                child = game.apply(state, move)
                key = game.key(child)
                if key in seen or game.to_move(child) == TERMINAL:
                    continue
                seen.add(key)
                following.append(child)
                if len(seen) > cap:
                    raise TooManyPositions(f"more than {cap:,} positions lie within {plies} plies of the start "
                                           f"of {game.name}; build a book of fewer plies")
        levels.append(following)
    return levels


def build_book(game: Game, plies: int, depth: int | None = None, *, cap: int = MAX_POSITIONS,
               progress: Callable[[BookProgress], Any] | None = None) -> Book:
    """The book of ``game``: every position within ``plies`` plies, valued exactly or (``depth``) by a search.

    Ctrl-C propagates as :class:`KeyboardInterrupt` (nothing half-built is returned).

    :raises ValueError: the game does not fit (simultaneous moves, no players), ``plies`` < 0 or ``depth`` < 1.
    :raises TooManyPositions: more than ``cap`` positions.
    """
    check_players(game, "a book")
    if plies < 0:
        raise ValueError(f"a book needs plies >= 0, got {plies}")
    if depth is not None and depth < 1:
        raise ValueError(f"a book's search depth must be at least 1, got {depth}")
    levels = positions(game, plies, cap)
    counter = _Counter(sum(map(len, levels)), progress)
    if depth is not None:
        return _searched(game, levels, plies, depth, counter)
    if not (is_two_player_zero_sum(game) and not game.has_chance):
        return _exact_graph(game, levels, plies, counter, "auto")
    small = _small_graph(game)
    if small is not None:  # solved whole, with distances: a winner's book moves make progress, cycles or not
        return _exact_graph(game, levels, plies, counter, "backward" if small.topological_order() else "retrograde")
    try:
        return _exact_duel(game, levels, plies, counter)
    except (CycleFound, TooDeep):
        counter.restart()  # cycles or too long to recurse: the graph methods
        return _exact_graph(game, levels, plies, counter, "retrograde")


SMALL_GRAPH = 20_000
"""A deterministic duel with at most this many reachable states is solved whole by a graph method."""


def _small_graph(game: Game) -> StateGraph | None:
    """Every reachable state, if there are at most :data:`SMALL_GRAPH` (else None, after exploring that many).

    Why: alpha-beta proves values without visiting every state, so it may never walk round a cycle
    that a value-keeping move closes; in a cyclic game a winner's book move must also bring the end
    nearer, which the graph methods' distances to the end tell. A game too big for this test is
    taken to be acyclic unless alpha-beta meets a cycle.
    """
    try:
        return StateGraph.explore(game, game.initial_state(), Budget(Limits()), SMALL_GRAPH)
    except SearchStopped:
        return None


class _Counter:
    """Counts positions and nodes, and tells ``progress`` (after each position and as a search goes)."""

    def __init__(self, total: int, progress: Callable[[BookProgress], Any] | None) -> None:
        self.total, self.progress = total, progress
        self.started = time.perf_counter()
        self.done = self.nodes = self.running = 0

    def restart(self) -> None:
        self.done = 0

    def searching(self, stats: SearchStats) -> None:
        """A search's own progress: its nodes so far, on top of those of the finished positions."""
        self.running = stats.nodes
        self._tell()

    def searched_in_all(self, stats: SearchStats) -> None:
        """The progress of a search whose node count runs on across positions (one shared searcher)."""
        self.running = stats.nodes - self.nodes
        self._tell()

    def finished(self, nodes: int = 0) -> None:
        self.done += 1
        self.nodes += nodes
        self.running = 0
        self._tell()

    def _tell(self) -> None:
        if self.progress is not None:
            self.progress(BookProgress(self.done, self.total, self.nodes + self.running,
                                       time.perf_counter() - self.started))


def _decisions(levels: list[list[State]]) -> Iterator[State]:
    """The positions deepest first: their values, once known, shorten the searches of the ones above."""
    for level in reversed(levels):
        yield from level


def _exact_duel(game: Game, levels: list[list[State]], plies: int, counter: _Counter) -> Book:
    """Exact values by MTD(f) with one transposition table for every position; best moves by null windows."""
    budget = Budget(Limits(), counter.searched_in_all)
    search = NegamaxSearch(game, budget, detect_cycles=True)
    book = Book.for_game(game, "alphabeta", plies, None)
    for state in _decisions(levels):
        before = search.nodes
        score = mtdf(search, state, 0.0)
        side = search.sides[game.to_move(state)]
        best = []
        for move in game.legal_moves(state):
            child = game.apply(state, move)
            # The mover's best keep the value: player 0 wants a child >= score, player 1 a child <= score.
            if at_least(search, child, score) if side == 1 else at_most(search, child, score):
                best.append(game.key(child))
        key = game.key(state)
        book.values[key] = (score + 0.0, 0.0 - score)
        book.best[key] = tuple(dict.fromkeys(best))
        counter.finished(search.nodes - before)
    return book


def _exact_graph(game: Game, levels: list[list[State]], plies: int, counter: _Counter, method: str) -> Book:
    """Exact values from one solve of the whole game by a graph method (chance, N players, cycles)."""
    root = game.initial_state()
    solution = solve(game, root, Limits(), method=method, progress=counter.searching, plies=True)
    if solution.stopped:
        if solution.stop_reason == "interrupt":
            raise KeyboardInterrupt
        raise ValueError(f"the exact solver stopped ({solution.stop_reason}) before it solved {game.name}")
    solved = solution.table
    if solved is None or not solved.complete:
        raise ValueError(f"the exact solver did not value every position of {game.name}")
    book = Book.for_game(game, solution.algorithm, plies, None)
    counter.nodes, counter.running = solution.stats.nodes, 0
    for state in _decisions(levels):
        key = game.key(state)
        book.values[key] = solved.values[key]
        if game.to_move(state) >= 0:
            book.best[key] = _keeping(game, state, solved)
        counter.finished()
    return book


def _keeping(game: Game, state: State, solved: SolvedTable) -> tuple[Hashable, ...]:
    """The keys of the children that keep the state's value for its mover (and, where the distance to the
    end is known, bring the end one ply nearer: a winner's fastest, a loser's slowest)."""
    player, key = game.to_move(state), game.key(state)
    here, distance = solved.values[key], solved.plies.get(key)
    kept: list[Hashable] = []
    fastest: list[Hashable] = []
    for move in game.legal_moves(state):
        child = game.apply(state, move)
        child_key = game.key(child)
        remaining: float | None
        if game.to_move(child) == TERMINAL:
            value, remaining = tuple(game.utilities(child)), 0.0
        else:
            value, remaining = solved.values[child_key], solved.plies.get(child_key)
        if abs(value[player] - here[player]) <= TIE_TOLERANCE:
            kept.append(child_key)
            if distance is not None and remaining is not None and abs(remaining + 1.0 - distance) <= 1e-9:
                fastest.append(child_key)
    return tuple(dict.fromkeys(fastest or kept))


def _searched(game: Game, levels: list[list[State]], plies: int, depth: int, counter: _Counter) -> Book:
    """Each position valued by a depth-``depth`` search: alpha-beta, expectimax with chance, else max^n."""
    search = _search_for(game)
    book = Book.for_game(game, f"{_algorithm(game)} depth {depth}", plies, depth)
    for state in _decisions(levels):
        result = search(state, Limits(depth=depth), counter.searching)
        if result.stopped:
            if result.stop_reason == "interrupt":
                raise KeyboardInterrupt
            raise ValueError(f"the depth-{depth} search stopped ({result.stop_reason})")
        key = game.key(state)
        book.values[key] = tuple(float(v) for v in result.value)
        if game.to_move(state) >= 0 and result.best_move is not None:
            book.best[key] = (game.key(game.apply(state, result.best_move)),)
        counter.finished(result.stats.nodes)
    return book


def _algorithm(game: Game) -> str:
    return heuristic_search(game)  # the one chooser (solver.auto)


def _search_for(game: Game) -> Callable[[State, Limits, Callable[[SearchStats], Any]], SearchResult]:
    from solver.alphabeta import alphabeta
    from solver.expectimax import expectimax
    from solver.minimax import minimax

    algorithm = _algorithm(game)
    if algorithm == "expectimax":
        return lambda state, limits, progress: expectimax(game, state, limits, progress=progress)
    if algorithm == "alphabeta":
        return lambda state, limits, progress: alphabeta(game, state, limits, progress=progress)
    return lambda state, limits, progress: minimax(game, state, limits, progress=progress)


# ------------------------------------------------------------------ files


def save_book(book: Book, path: str | os.PathLike[str]) -> None:
    """Write ``book`` to ``path`` atomically (:func:`solver.files.replace_file`), as a solved table is.

    :raises TableError: ``path`` is a directory, a device, a FIFO or a socket (only regular files are written).
    :raises ValueError: a state key cannot be written as JSON.
    """
    try:
        replace_file(path, lambda temporary: _write(book, temporary), "a book", prefix=".gdl-book-")
    except TargetError as error:
        raise TableError(str(error)) from None


def check_target(path: str | os.PathLike[str]) -> None:
    """A book replaces a regular file or a symbolic link (the link, never what it points to), nothing else.

    :raises TableError: the path is a directory, a device, a FIFO or a socket.
    """
    tables.check_save_target(path, "a book")


def _write(book: Book, path: str) -> None:
    connection = sqlite3.connect(path)
    try:
        with connection:
            connection.execute("CREATE TABLE header (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
            connection.execute("CREATE TABLE states (key TEXT PRIMARY KEY, value TEXT NOT NULL, best TEXT NOT NULL, "
                               "plies REAL)")
            header = {
                "format": FORMAT, "version": VERSION, "game": book.game,
                "parameters": canonical_json(dict(book.parameters)), "fingerprint": book.fingerprint,
                "players": json.dumps(list(book.players)), "method": book.method, "complete": "1",
                "plies": str(book.plies), "depth": "exact" if book.depth is None else str(book.depth),
            }
            connection.executemany("INSERT INTO header VALUES (?, ?)", header.items())
            connection.executemany(
                "INSERT INTO states VALUES (?, ?, ?, NULL)",
                ((encode_key(k), json.dumps(list(v)), "[" + ",".join(map(encode_key, book.best.get(k, ()))) + "]")
                 for k, v in book.values.items()),
            )
    finally:
        connection.close()


def load_book(path: str | os.PathLike[str], game: Game | None = None) -> Book:
    """Read a book saved by :func:`save_book`; with ``game``, check that it belongs to it.

    :raises FileNotFoundError: no such file.
    :raises BookError: the file is not a book, or a damaged one (a solved table is told apart).
    :raises StaleTableError: the book is for another game, other parameters or other rules.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no book at {path!r}")
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise BookError(f"{path!r} is not a regular file, so not a book")
    try:
        uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"  # `#`, `?`, `%` stay in the name
        connection = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise BookError(f"{path!r} cannot be opened as a book: {exc}") from None
    try:
        tables._bound(connection, info.st_size)
        _check_schema(connection, path)
        book = _read(connection, path)
    except sqlite3.DatabaseError as exc:
        raise BookError(f"{path!r} is not a gdl book ({exc})") from None
    except BookError:
        raise
    except CorruptTableError as exc:  # the solved table's checks of a header, a key or a value
        raise BookError(f"{path!r} is a damaged book: {getattr(exc, 'what', exc)}") from None
    except (ValueError, KeyError, TypeError, OverflowError, RecursionError, MemoryError) as exc:
        raise BookError(f"{path!r} is a damaged book ({type(exc).__name__}: {tables._shown(str(exc))})") from None
    finally:
        connection.close()
    if game is not None:
        book.check_game(game)
    return book


def _check_schema(connection: sqlite3.Connection, path: str) -> None:
    """A book is a solved table's file (:func:`solver.table._check_schema`): two plain tables, nothing computed."""
    tables._check_schema(connection, path, "book", BookError)


def _read(connection: sqlite3.Connection, path: str) -> Book:
    capped = tables._CAPPED
    try:
        rows = connection.execute(f"SELECT substr(name, 1, 100), {capped.format('value')} FROM header").fetchall()
    except sqlite3.OperationalError:
        raise BookError(f"{path!r} is an SQLite file but not a gdl book (no header)") from None
    header = {name: tables._typed(value, kind) for name, value, kind in rows if isinstance(name, str)}
    if header.get("format") == tables.FORMAT:
        raise BookError(f"{path!r} is a solved table, not a book: give it as table=FILE (or build a book with "
                        "`gdl book`)")
    if header.get("format") != FORMAT:
        raise BookError(f"{path!r} is an SQLite file but not a gdl book")
    if header.get("version") != VERSION:
        raise BookError(f"{path!r} is a book of version {tables._shown(header.get('version'))}; "
                        f"this gdl reads version {VERSION}")
    solved = tables._header(header)
    plies, depth = _count(header.get("plies"), "plies", 0), header.get("depth")
    book = Book(solved.game, solved.parameters, solved.fingerprint, solved.players, solved.method, plies,
                None if depth == "exact" else _count(depth, "depth", 1))
    columns = ", ".join(capped.format(column) for column in ("key", "value", "best"))
    have = {row[1] for row in connection.execute("PRAGMA table_info(states)")}
    distance = "plies, typeof(plies)" if "plies" in have else "NULL, 'null'"
    for key_text, key_kind, value_text, value_kind, best_text, best_kind, plies_value, plies_kind in (
            connection.execute(f"SELECT {columns}, {distance} FROM states")):
        if plies_kind != "null":  # not used by books (NULL as written), but a stored one must be a distance
            tables._plies(plies_value, plies_kind)
        key = tables._key(tables._typed(key_text, key_kind))
        if key in book.values:
            raise BookError(f"{path!r} is a damaged book: the position {tables._shown(key_text)} appears twice")
        book.values[key] = tables._value(tables._typed(value_text, value_kind), len(book.players))
        best = _best(tables._typed(best_text, best_kind), path)
        if best:
            book.best[key] = best
    return book


def _count(text: Any, what: str, least: int) -> int:
    """A header number (``plies``, ``depth``): decimal digits, at least ``least``."""
    if not (isinstance(text, str) and text.isascii() and text.isdigit() and len(text) <= 6 and int(text) >= least):
        raise BookError(f"damaged book: its {what} is {tables._shown(text)}, not a whole number >= {least}")
    return int(text)


def _best(text: Any, path: str) -> tuple[Hashable, ...]:
    """A JSON array of state keys (the results of the best moves)."""
    keys = tables._json(text, "a list of best moves")
    if not isinstance(keys, list) or len(keys) > tables.MAX_BEST:
        raise BookError(f"{path!r} is a damaged book: the best moves {tables._shown(text)} are not a list of at "
                        f"most {tables.MAX_BEST} positions")
    tables._plain(keys, "a list of best moves")
    found = tables._tuples(keys)
    for key in found:
        try:
            hash(key)
        except TypeError:
            raise BookError(f"{path!r} is a damaged book: a best move leads to {tables._shown(key)}, which is not "
                            "a position") from None
    return tuple(found)


def is_book(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is an SQLite file whose header says it is a book (nothing else is checked)."""
    path = os.fspath(path)
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return False
        uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
        connection = sqlite3.connect(uri, uri=True)
    except (OSError, sqlite3.Error):
        return False
    try:
        tables._bound(connection, info.st_size)
        _check_schema(connection, path)
        row = connection.execute("SELECT substr(value, 1, 100) FROM header WHERE name = 'format'").fetchone()
        return row is not None and row[0] == FORMAT
    except (sqlite3.Error, BookError, ValueError):  # ValueError: text that is not UTF-8 (a damaged file; fuzz)
        return False
    finally:
        connection.close()


def load_exact_table(path: str | os.PathLike[str], game: Game | None = None) -> SolvedTable:
    """A table of exact values to probe inside a search: a solved table (``gdl solve --save``) or an exact book.

    :raises TableError: neither, a book of estimates, or one for another game.
    :raises FileNotFoundError: no such file.
    """
    try:
        return tables.load_table(path, game)
    except CorruptTableError:
        if not is_book(path):
            raise
    return load_book(path, game).as_table()
