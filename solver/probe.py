"""Knowledge combined with search: ``book=FILE`` and ``table=FILE`` on every searching agent.

* ``book=FILE`` (:mod:`solver.book`): while the position is in the book, the agent plays the
  book's first best move (in the game's move order) without searching; once play has left
  the book, it searches as it would without one.
* ``table=FILE`` (a solved table, ``gdl solve --save``, or an exact book): the table is probed
  inside the search. A position found in it is an exact value and ends that branch: the
  search sees it as a terminal state whose utilities are the table's values. That is the
  whole hook (:class:`TableProbe`, a view of the game), so minimax, alpha-beta, expectimax
  and MCTS all use it unchanged; the position the search starts at is never cut (the agent
  has to choose a move there).

The idea is the course notes' "use a catalogue of solved positions ... combine knowledge
with search", as endgame tablebases do in chess programs (Thompson 1986) and opening books
in Deep Blue (Campbell, Hoane & Hsu 2002).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, Protocol

from solver.book import Book, load_book, load_exact_table
from solver.game import TERMINAL, Game, State
from solver.limits import SearchResult, SearchStats
from solver.table import SolvedTable


class _Agent(Protocol):
    name: str
    seconds: float | None

    def choose(self, state: State) -> Hashable: ...


class TableProbe:
    """``game`` seen through a solved table: a position in the table (other than ``root``) is terminal,
    worth the table's value. Everything else is the game's own."""

    def __init__(self, game: Game, table: SolvedTable) -> None:
        table.check_game(game)
        self.game = game
        self.name, self.players, self.parameters = game.name, game.players, game.parameters
        self.zero_sum, self.utility_bounds, self.has_chance = game.zero_sum, game.utility_bounds, game.has_chance
        self.fingerprint = game.fingerprint
        self.values = table.values
        self.root: Hashable = None
        """The key of the position a search starts at: never cut (:meth:`start` sets it)."""
        self.hits = 0
        """Positions answered by the table (each ended a branch)."""
        self._last: tuple[State, tuple[float, ...] | None] | None = None  # to_move's find, for utilities

    def start(self, state: State) -> None:
        """A search is about to start at ``state``: never cut it."""
        self.root = self.game.key(state)
        self._last = None

    def _known(self, state: State) -> tuple[float, ...] | None:
        last = self._last
        if last is not None and last[0] is state:
            return last[1]
        key = self.game.key(state)
        value = self.values.get(key) if key != self.root else None
        self._last = (state, value)
        return value

    # -------------------------------------------------------------- the probed methods
    def to_move(self, state: State) -> int:
        player = self.game.to_move(state)
        if player != TERMINAL and self._known(state) is not None:
            self.hits += 1
            return TERMINAL
        return player

    def utilities(self, state: State) -> tuple[float, ...]:
        if self.game.to_move(state) == TERMINAL:
            return tuple(self.game.utilities(state))
        value = self._known(state)
        if value is None:
            raise ValueError("utilities asked of a position that is neither terminal nor in the table")
        return value

    # -------------------------------------------------------------- the game's own
    def initial_state(self) -> State:
        return self.game.initial_state()

    def legal_moves(self, state: State) -> Sequence[Hashable]:
        return self.game.legal_moves(state)

    def chance_outcomes(self, state: State) -> Sequence[tuple[Hashable, float]]:
        return self.game.chance_outcomes(state)

    def apply(self, state: State, move: Hashable) -> State:
        return self.game.apply(state, move)

    def heuristic(self, state: State) -> Sequence[float] | None:
        return self.game.heuristic(state)

    def is_quiet(self, state: State) -> bool:
        return self.game.is_quiet(state)

    def key(self, state: State) -> Hashable:
        return self.game.key(state)

    def parse_move(self, state: State, text: str) -> Hashable:
        return self.game.parse_move(state, text)

    def render(self, state: State) -> str:
        return self.game.render(state)

    @property
    def symmetries(self) -> tuple[str, ...]:
        return self.game.symmetries

    @property
    def simultaneous(self) -> bool:
        return self.game.simultaneous

    # Nothing else of the game shows through (no __getattr__): a fast path that a search takes for the
    # game's own type or attributes (a compiled inner loop, say) would search without the table.


class KnowingAgent:
    """An agent with a book and/or a table: book moves while in the book, else ``inner``'s search
    (which, with a table, searches the game through a :class:`TableProbe`).

    ``from_book`` counts the moves played from the book; ``last`` is the last move's result
    (algorithm ``"book"`` for a book move).
    """

    def __init__(self, game: Game, inner: _Agent, name: str, book: Book | None = None,
                 probe: TableProbe | None = None) -> None:
        self.game = game
        self.inner = inner
        self.name = name
        self.seconds = inner.seconds
        self.book = book
        self.probe = probe
        self.from_book = 0
        self.last: SearchResult | None = None

    @property
    def progress(self) -> Any:
        return getattr(self.inner, "progress", None)

    @progress.setter
    def progress(self, display: Any) -> None:
        if hasattr(self.inner, "progress"):
            self.inner.progress = display

    def choose(self, state: State) -> Hashable:
        if self.book is not None:
            moves = self.book.moves(self.game, state)
            if moves:
                self.from_book += 1
                value = self.book.values[self.game.key(state)]
                self.last = SearchResult(value, (moves[0],), (moves[0],), self.book.exact, SearchStats(), "book")
                return moves[0]
        if self.probe is not None:
            self.probe.start(state)
        move = self.inner.choose(state)
        self.last = getattr(self.inner, "last", None)
        return move


def knowing(game: Game, name: str, book_path: str | None, table_path: str | None,
            build: Callable[[Game], _Agent]) -> KnowingAgent:
    """The agent ``build`` makes (given the game to search: the game, or it seen through the table),
    with the book at ``book_path`` and the table at ``table_path`` (either may be None).

    :raises TableError: a file that is not a book or table, a damaged one, one for another game, or a
        book of estimates given as a table (see :func:`solver.book.load_exact_table`).
    :raises FileNotFoundError: no such file.
    """
    book = load_book(book_path, game) if book_path is not None else None
    probe = TableProbe(game, load_exact_table(table_path, game)) if table_path is not None else None
    return KnowingAgent(game, build(probe if probe is not None else game), name, book, probe)
