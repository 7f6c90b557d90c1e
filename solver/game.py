"""The game interface: the contract between rule files and the solver suite.

Modelled on OpenSpiel's State API, made pythonic and fast. A *game* object
holds the rules; a *state* is a plain immutable, hashable value (for compiled
rule files: a flat tuple of small ints) that the game's methods interpret.
Keeping the methods on the game rather than on the state means a solver never
allocates a wrapper object per node.

Anything that provides these attributes and methods can be solved: a compiled
rule file, a hand-written Python game (subclass :class:`GameBase` for sensible
defaults), or an adapter over another library's game.

Turn encoding (the value of ``game.to_move(state)``):

* ``0 .. len(players) - 1`` -- the index of the player who decides;
* :data:`CHANCE` -- nature picks one of ``game.chance_outcomes(state)``;
* :data:`TERMINAL` -- the game is over; ``game.utilities(state)`` gives one
  number per player;
* :data:`SIMULTANEOUS` -- every player picks one of ``game.legal_moves(state, p)``
  at once and ``game.apply_joint(state, moves)`` applies the joint move (only in
  games with ``simultaneous = True``; see :mod:`solver.simgame`).

Moves are any hashable values whose ``str()`` is a stable, human-readable name
that ``game.parse_move(state, name)`` turns back into the same move (for the
CLI, logs and saved tables). Compiled games use :class:`Move`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Protocol, TypeAlias, TypeVar, runtime_checkable

CHANCE = -1
"""``to_move`` value of a state where nature moves."""

TERMINAL = -2
"""``to_move`` value of a finished game."""

SIMULTANEOUS = -3
"""``to_move`` value of a state where all players move at once (:mod:`solver.simgame`)."""

State: TypeAlias = Hashable
Player: TypeAlias = int


class Move(str):
    """A named move such as ``place(b2)``, ``roll`` or the chance outcome ``d=3``.

    A move *is* its name: ``Move`` subclasses ``str``, so comparing and hashing
    moves (in transposition tables, history tables, move ordering) run at C
    speed, and a move equals its name (``Move("roll") == "roll"``). It also
    keeps the action, the displayed arguments, and ``data``, which is private
    to the game that made the move (a compiled game keeps the move's effect
    there) and not part of its identity. Immutable by convention.

    >>> Move("place", ("b2",))
    Move('place(b2)')
    >>> str(Move("roll"))
    'roll'
    """

    action: str
    args: tuple[Any, ...]
    data: Any

    def __new__(
        cls, action: str, args: tuple[Any, ...] = (), *, name: str | None = None, data: Any = None
    ) -> Move:
        if name is None:
            name = f"{action}({','.join(map(str, args))})" if args else action
        move = super().__new__(cls, name)
        move.action = action
        move.args = args
        move.data = data
        return move

    @property
    def name(self) -> str:
        return str.__str__(self)

    def __str__(self) -> str:
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"Move({str.__repr__(self)})"


class MoveError(ValueError):
    """A move name that cannot be used in a state (base of the two below)."""


class UnknownMoveError(MoveError):
    """A move name that names no move of the game (syntax or unknown action)."""


class IllegalMoveError(MoveError):
    """A well-formed move that is not legal in the given state."""


class AmbiguousMoveError(MoveError):
    """A move prefix that matches several legal moves."""


class DeadEndError(ValueError):
    """A decision state with no legal move where the game is not over: a bug in the game's rules.

    Such a state has no value (a search would have to take the best of no moves, and
    would report an infinite or undefined value), so every algorithm raises this instead.
    ``state`` is the dead end and ``player`` the index of the player to move there (or
    :data:`CHANCE` for a chance state without outcomes). ``moves`` is the line of play that
    reaches it from the state the search started at: a recursive search fills it in as the
    recursion unwinds (:meth:`prepend`, which costs nothing until a dead end is found).
    """

    def __init__(self, state: State, player: int, who: str = "", moves: Sequence[Hashable] = ()) -> None:
        self.state = state
        self.player = player
        self.who = who or ("chance" if player == CHANCE else f"player {player}")
        self._reversed: list[Hashable] = list(reversed(moves))  # appended while unwinding: deepest move first
        super().__init__(self.message)

    @property
    def moves(self) -> list[Hashable]:
        """The moves that reach the dead end from where the search started, first move first."""
        return self._reversed[::-1]

    @property
    def message(self) -> str:
        if self.player == CHANCE:
            return "a chance state has no outcome, and the game is not over"
        return f"{self.who} is to move but has no legal move, and the game is not over"

    def prepend(self, move: Hashable) -> DeadEndError:
        """Record that ``move`` led to the state where the line so far starts; returns ``self`` to re-raise."""
        self._reversed.append(move)
        return self

    def __str__(self) -> str:
        line = ",".join(map(str, self.moves))
        return self.message + (f" (after the moves {line})" if line else " (in the starting state)")

    def __reduce__(self) -> Any:  # picklable (worker processes), with the line found so far
        return (type(self), (self.state, self.player, self.who, self.moves))


def dead_end(game: Game, state: State, player: int) -> DeadEndError:
    """The :class:`DeadEndError` of ``state``, naming the player to move by the game's names."""
    who = str(game.players[player]) if 0 <= player < len(game.players) else ""
    return DeadEndError(state, player, who)


S = TypeVar("S", bound=Hashable)
"""The type of a game's states (compiled rule files: ``tuple[int, ...]``)."""
M = TypeVar("M", bound=Hashable)
"""The type of a game's moves and chance outcomes (compiled rule files: :class:`Move`)."""


@runtime_checkable
class Game(Protocol[S, M]):
    """What every solver may rely on: the whole contract, nothing read by ``getattr`` with a default.

    Properties first (read-only here: a game may implement them as plain attributes), then
    methods. A member that changes what a solver does is declared here, even where most
    games leave it at its default; :class:`GameBase` gives every default:

    ==================  ==========  =========================================================
    member              default     what a solver does with it
    ==================  ==========  =========================================================
    ``zero_sum``        False       two players: alpha-beta, MTD(f), retrograde analysis
    ``utility_bounds``  None        the root window, Star1/Star2 pruning, MCTS-Solver's wins
    ``has_chance``      False       deterministic searches refuse a game with chance
    ``simultaneous``    False       only :mod:`solver.simultaneous` solves such a game
    ``symmetries``      ``()``      non-empty: ``key`` merges mirror images, so solved tables
                                    keep values but no moves under such keys
    ``heuristic``       None        the value at a search's horizon (0 without one)
    ``is_quiet``        True        a depth-limited search with ``quiescence`` scores only quiet
                                    positions at its horizon and searches on from the others
    ``key``             the state   transposition-table and solved-table keys
    ==================  ==========  =========================================================
    """

    @property
    def name(self) -> str: ...

    @property
    def players(self) -> tuple[str, ...]: ...

    @property
    def parameters(self) -> Mapping[str, Any]: ...

    @property
    def zero_sum(self) -> bool:
        """Declared (and checked where possible): utilities sum to 0 in every terminal state."""
        ...

    @property
    def utility_bounds(self) -> tuple[float, float] | None:
        """Lowest and highest utility any player can get (None: unknown); enables Star1/Star2 pruning."""
        ...

    @property
    def has_chance(self) -> bool:
        """False when no state of the game can be a chance node."""
        ...

    @property
    def simultaneous(self) -> bool:
        """True when ``to_move`` may return :data:`SIMULTANEOUS` (see :mod:`solver.simgame`)."""
        ...

    @property
    def symmetries(self) -> tuple[str, ...]:
        """The names of the symmetries ``key`` uses; empty when keys are the plain states."""
        ...

    @property
    def fingerprint(self) -> str:
        """A hash of the rules and parameters: a solved table for another fingerprint is stale."""
        ...

    def initial_state(self) -> S: ...

    def to_move(self, state: S) -> int:
        """A player index, :data:`CHANCE` or :data:`TERMINAL` (or :data:`SIMULTANEOUS`)."""
        ...

    def legal_moves(self, state: S) -> Sequence[M]:
        """The moves of a decision state, in the game's preferred order."""
        ...

    def chance_outcomes(self, state: S) -> Sequence[tuple[M, float]]:
        """``(outcome, probability)`` pairs of a chance state; probabilities sum to 1."""
        ...

    def apply(self, state: S, move: M) -> S:
        """The state after ``move`` (a legal move or a chance outcome). Never mutates."""
        ...

    def utilities(self, state: S) -> Sequence[float]:
        """One utility per player at a terminal state."""
        ...

    def heuristic(self, state: S) -> Sequence[float] | None:
        """One estimate per player for a non-terminal state, or None if the game has none."""
        ...

    def is_quiet(self, state: S) -> bool:
        """May a depth-limited search stop here and trust the heuristic? (the horizon effect: Shannon 1950)"""
        ...

    def key(self, state: S) -> Hashable:
        """A compact key for transposition tables and saved tables (equal states, equal keys); no side effect.

        A game may give symmetric states (mirror images with the same value) one key; it
        then has a non-empty ``symmetries``, and the solvers store values, never moves,
        under such keys (a move found in one image is another cell in the next).
        """
        ...

    def parse_move(self, state: S, text: str) -> M:
        """The legal move (or chance outcome) named ``text``.

        :raises UnknownMoveError: no move of the game has that name.
        :raises IllegalMoveError: the move exists but is not legal in ``state``.
        """
        ...

    def render(self, state: S) -> str:
        """A human-readable picture of the state."""
        ...


class GameBase:
    """Defaults for hand-written games: subclass and fill in the rules.

    Subclasses must set ``name`` and ``players`` and implement
    ``initial_state``, ``to_move``, ``legal_moves``, ``apply`` and
    ``utilities`` (plus ``chance_outcomes`` if they have chance nodes).
    Every other member of :class:`Game` has its documented default here.
    """

    name: str = "game"
    players: tuple[str, ...] = ()
    parameters: Mapping[str, Any] = {}
    zero_sum: bool = False
    utility_bounds: tuple[float, float] | None = None
    has_chance: bool = False
    simultaneous: bool = False
    symmetries: tuple[str, ...] = ()

    @property
    def fingerprint(self) -> str:
        return f"{type(self).__module__}.{type(self).__qualname__}:{sorted(self.parameters.items())!r}"

    def chance_outcomes(self, state: Any) -> Sequence[tuple[Any, float]]:
        return ()

    def heuristic(self, state: Any) -> Sequence[float] | None:
        return None

    def is_quiet(self, state: Any) -> bool:
        return True

    def key(self, state: Any) -> Hashable:
        return state

    def render(self, state: Any) -> str:
        return str(state)

    def parse_move(self, state: Any, text: str) -> Any:
        return parse_move_by_name(self, state, text)  # type: ignore[arg-type]  # a subclass completes the Game


def candidate_moves(game: Game, state: State) -> Sequence[Hashable]:
    """The moves that can be applied in ``state``: legal moves, or chance outcomes."""
    player = game.to_move(state)
    if player == CHANCE:
        return [outcome for outcome, _ in game.chance_outcomes(state)]
    if player == TERMINAL:
        return []
    return game.legal_moves(state)


def parse_move_by_name(game: Game, state: State, text: str) -> Hashable:
    """Find the move of ``state`` whose name is ``text`` (spaces ignored).

    :raises IllegalMoveError: no applicable move has that name.
    """
    wanted = "".join(text.split())
    for move in candidate_moves(game, state):
        if str(move) == wanted:
            return move
    raise IllegalMoveError(f"{text!r} is not a legal move here")


def play_moves(game: Game, names: Sequence[str], state: State | None = None) -> State:
    """Apply moves given by name, from ``state`` or the initial state."""
    if state is None:
        state = game.initial_state()
    for name in names:
        state = game.apply(state, game.parse_move(state, name))
    return state
