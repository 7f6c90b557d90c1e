"""OpenSpiel adapters, in both directions (optional: ``pip install -e '.[openspiel]'``).

* :class:`OpenSpielGame` wraps a ``pyspiel`` game in our game interface
  (:class:`solver.game.Game`), so the solver suite runs on any sequential
  OpenSpiel game:

  >>> import pyspiel                                        # doctest: +SKIP
  >>> from gdl.openspiel import OpenSpielGame
  >>> game = OpenSpielGame(pyspiel.load_game("tic_tac_toe"))
  >>> [str(m) for m in game.legal_moves(game.initial_state())][:2]
  ['x(0,0)', 'x(0,1)']

* :func:`register_pyspiel_game` registers a compiled rule file as a pyspiel
  *Python game*, so OpenSpiel's algorithms (and ``pyspiel.random_sim_test``)
  run on it:

  >>> import gdl                                            # doctest: +SKIP
  >>> from gdl.openspiel import register_pyspiel_game
  >>> register_pyspiel_game(gdl.load("kalah"), "gdl_kalah")
  >>> pyspiel.load_game("gdl_kalah", {"pits": 4})

``pyspiel`` is imported lazily: ``import gdl`` (and this module) never needs it.
See docs/openspiel.md.
"""

from __future__ import annotations

import random
import re
from collections.abc import Hashable, Mapping
from typing import Any

from gdl.runtime import CompiledGame
from solver.game import CHANCE, SIMULTANEOUS, TERMINAL, Game, IllegalMoveError, Move

__all__ = ["ActionTable", "OpenSpielGame", "OpenSpielState", "register_pyspiel_game"]


def _pyspiel() -> Any:
    try:
        import pyspiel
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError("the OpenSpiel adapter needs open_spiel: pip install 'gdl[openspiel]'") from error
    return pyspiel


def _move_name(text: str) -> str:
    """An OpenSpiel action string as a move name: without spaces (names are typed and parsed back)."""
    return "".join(text.split())


# ====================================================== OpenSpiel -> our interface


class OpenSpielState:
    """An immutable, hashable handle on a pyspiel state.

    Compared and hashed by ``key``: the action history by default (always
    exact), or ``(current player, str(state))`` when the game was wrapped with
    ``key="string"`` (merges transpositions, for games whose text shows the whole
    state). The wrapped pyspiel state is never mutated: :meth:`OpenSpielGame.apply`
    works on a clone.
    """

    __slots__ = ("_hash", "key", "state")

    def __init__(self, state: Any, key: Hashable) -> None:
        self.state = state
        self.key = key
        self._hash = hash(key)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, OpenSpielState):
            return self.key == other.key
        return NotImplemented

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"OpenSpielState({self.key!r})"

    def __str__(self) -> str:
        return str(self.state)


class SpielStates:
    """What both pyspiel adapters (sequential here, simultaneous in :mod:`gdl.openspiel_sim`) answer alike:
    utilities are OpenSpiel's returns, keys the wrapped states' keys, no heuristic, every position quiet."""

    def _describe(self, pyspiel_game: Any) -> None:
        """The game's name, players, parameters and the facts the solvers read, from its pyspiel type."""
        pyspiel = _pyspiel()
        game_type = pyspiel_game.get_type()
        self._game = pyspiel_game
        self._chance_id = int(pyspiel.PlayerId.CHANCE)
        self.name = game_type.short_name
        self.players = tuple(f"player{i}" for i in range(pyspiel_game.num_players()))
        self.parameters: Mapping[str, Any] = dict(pyspiel_game.get_parameters())
        self.zero_sum = game_type.utility == pyspiel.GameType.Utility.ZERO_SUM
        self.utility_bounds: tuple[float, float] | None = (pyspiel_game.min_utility(), pyspiel_game.max_utility())
        self.has_chance = game_type.chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC
        self.fingerprint = f"openspiel:{pyspiel_game}"

    @property
    def pyspiel_game(self) -> Any:
        return self._game

    def utilities(self, state: OpenSpielState) -> tuple[float, ...]:
        return tuple(state.state.returns())

    def heuristic(self, state: OpenSpielState) -> tuple[float, ...] | None:
        return None

    def is_quiet(self, state: OpenSpielState) -> bool:
        return True

    def key(self, state: OpenSpielState) -> Hashable:
        return state.key

    def render(self, state: OpenSpielState) -> str:
        return str(state.state)


class OpenSpielGame(SpielStates):
    """A sequential, perfect-information pyspiel game behind our game interface.

    Moves are :class:`~solver.game.Move` objects named by OpenSpiel's action
    strings (spaces removed, so that ``parse_move`` finds them: ``Roll 3`` is
    ``Roll3``); ``move.data`` is the action id. ``to_move`` maps OpenSpiel's
    chance and terminal player ids to :data:`~solver.game.CHANCE` and
    :data:`~solver.game.TERMINAL`; utilities are OpenSpiel's returns.

    :param key: ``"history"`` (default: states are equal when their action
        histories are) or ``"string"`` (equal when the player to move and
        ``str(state)`` are: use it only for games whose text is the whole state).
    :raises ValueError: a simultaneous-move game, or an imperfect-information
        game without ``allow_imperfect_information=True`` (our solvers would see
        the hidden information).
    """

    simultaneous = False  # only sequential games are wrapped
    symmetries: tuple[str, ...] = ()  # keys are histories (or texts): no mirror images merged

    def __init__(self, pyspiel_game: Any, *, key: str = "history", allow_imperfect_information: bool = False) -> None:
        pyspiel = _pyspiel()
        game_type = pyspiel_game.get_type()
        if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
            raise ValueError(f"{game_type.short_name}: only sequential games can be wrapped")
        if (game_type.information != pyspiel.GameType.Information.PERFECT_INFORMATION
                and not allow_imperfect_information):
            raise ValueError(f"{game_type.short_name}: an imperfect-information game; pass "
                             "allow_imperfect_information=True to solve it as if everything were visible")
        if key not in ("history", "string"):
            raise ValueError(f"key must be 'history' or 'string', not {key!r}")
        self._describe(pyspiel_game)
        self._key_by_string = key == "string"
        self._terminal_id = int(pyspiel.PlayerId.TERMINAL)
        self._moves: dict[tuple[int, int, str], Move] = {}
        self._initial = self._wrap(pyspiel_game.new_initial_state())

    def _wrap(self, state: Any) -> OpenSpielState:
        if self._key_by_string:
            return OpenSpielState(state, (state.current_player(), str(state)))
        return OpenSpielState(state, tuple(state.history()))

    def _move(self, state: Any, player: int, action: int) -> Move:
        name = _move_name(state.action_to_string(player, action))
        cache_key = (player, action, name)
        move = self._moves.get(cache_key)
        if move is None:
            move = Move(name, name=name, data=action)
            self._moves[cache_key] = move
        return move

    # ------------------------------------------------------------------ interface
    def initial_state(self) -> OpenSpielState:
        return self._initial

    def to_move(self, state: OpenSpielState) -> int:
        player = state.state.current_player()
        if player >= 0:
            return int(player)
        if player == self._chance_id:
            return CHANCE
        if player == self._terminal_id:
            return TERMINAL
        raise ValueError(f"unsupported OpenSpiel player id {player} (simultaneous or mean-field node)")

    def legal_moves(self, state: OpenSpielState) -> list[Move]:
        s = state.state
        player = s.current_player()
        if player < 0:
            return []
        return [self._move(s, player, a) for a in s.legal_actions()]

    def chance_outcomes(self, state: OpenSpielState) -> list[tuple[Move, float]]:
        s = state.state
        if not s.is_chance_node():
            return []
        return [(self._move(s, self._chance_id, a), p) for a, p in s.chance_outcomes()]

    def apply(self, state: OpenSpielState, move: Hashable) -> OpenSpielState:
        action = move.data if isinstance(move, Move) else move
        child = state.state.clone()
        child.apply_action(int(action))  # type: ignore[arg-type]
        return self._wrap(child)

    def parse_move(self, state: OpenSpielState, text: str) -> Move:
        wanted = _move_name(text)
        player = self.to_move(state)
        candidates = ([m for m, _ in self.chance_outcomes(state)] if player == CHANCE
                      else self.legal_moves(state))
        for move in candidates:
            if move.name == wanted:
                return move
        raise IllegalMoveError(f"{text!r} is not a legal move here")

    def __repr__(self) -> str:
        return f"<OpenSpielGame {self._game}>"


# ====================================================== our rule files -> pyspiel


class ActionTable:
    """Stable integer ids for the move names of a compiled game (OpenSpiel wants actions as ints).

    Moves whose parameters range over load-time constants are known in advance
    (``program.eager_moves``) and numbered first, in declaration order. Moves
    whose domains depend on the state (Breakthrough's ``go(c, d: forward(turn))``)
    are found by exploring: every reachable state if there are at most
    ``explore_states`` of them (the table is then exact), otherwise along
    ``playouts`` seeded random playouts, with ``spare`` ids in reserve for a
    move first seen later. Found names are numbered in sorted order (numbers
    compared as numbers). Chance outcomes get their own ids the same way.

    The exploration also gives ``longest`` (the longest game: exact for an
    acyclic, fully explored game, else the longest random playout; ``None``
    if an explored game can go on forever) and the utilities seen.
    """

    def __init__(self, game: Game, *, explore_states: int = 20_000, playouts: int = 300, spare: int = 64,
                 seed: int = 0) -> None:
        self.moves: dict[str, int] = {}
        self.outcomes: dict[str, int] = {}
        self.move_names: list[str] = []
        self.outcome_names: list[str] = []
        program = game.program if isinstance(game, CompiledGame) else None  # a rule file's moves are known
        static_moves = program is not None and not any(type(f).__name__ == "MoveFactory" for f in program.factories)
        if isinstance(game, CompiledGame) and program is not None:
            for _, action, shown, _ in program.eager_moves:
                self._add(self.moves, self.move_names, Move(action, shown).name)
            for global_name, _, _ in program.distributions:  # chances with constant outcomes
                for outcome, _ in game._ns[global_name]:
                    self._add(self.outcomes, self.outcome_names, str(outcome))
        known_outcomes = len(self.outcome_names)
        self.lowest, self.highest = float("inf"), float("-inf")
        self._found_moves: set[str] = set()
        self._found_outcomes: set[str] = set()
        self.exact, self.longest = self._explore_all(game, explore_states)
        if not self.exact:
            self.longest = self._explore_playouts(game, playouts, seed)
        for name in sorted(self._found_moves - set(self.moves), key=_natural):
            self._add(self.moves, self.move_names, name)
        for name in sorted(self._found_outcomes - set(self.outcomes), key=_natural):
            self._add(self.outcomes, self.outcome_names, name)
        complete = self.exact or static_moves
        self.num_distinct_actions = max(1, len(self.move_names) + (0 if complete else spare))
        more_outcomes = not self.exact and len(self.outcome_names) > known_outcomes
        self.max_chance_outcomes = len(self.outcome_names) + (spare if more_outcomes else 0)

    @staticmethod
    def _add(table: dict[str, int], names: list[str], name: str) -> int:
        index = table.get(name)
        if index is None:
            index = table[name] = len(names)
            names.append(name)
        return index

    def _see(self, game: Game, state: Any) -> list[Any]:
        """Record the moves or outcomes of ``state`` (or its utilities); returns the moves."""
        player = game.to_move(state)
        if player == TERMINAL:
            utilities = game.utilities(state)
            self.lowest = min(self.lowest, *utilities)
            self.highest = max(self.highest, *utilities)
            return []
        if player == CHANCE:
            moves = [m for m, _ in game.chance_outcomes(state)]
            self._found_outcomes.update(map(str, moves))
            return moves
        if player == SIMULTANEOUS:  # each player's own moves get ids; the joint moves lead on
            for who in range(len(game.players)):
                self._found_moves.update(map(str, game.legal_moves(state, who)))  # type: ignore[call-arg]
            return list(game.legal_moves(state))
        moves = list(game.legal_moves(state))
        self._found_moves.update(map(str, moves))
        return moves

    def _explore_all(self, game: Game, limit: int) -> tuple[bool, int | None]:
        """Every reachable state, if there are at most ``limit``; returns (done, longest game or None)."""
        root = game.initial_state()
        children: dict[Any, list[Any]] = {}
        frontier = [root]
        while frontier:
            state = frontier.pop()
            if state in children:
                continue
            if len(children) >= limit:
                return False, 0
            kids = children[state] = [game.apply(state, move) for move in self._see(game, state)]
            frontier.extend(k for k in kids if k not in children)
        # The longest path from the root (depth-first, iteratively): None if the graph has a cycle.
        longest: dict[Any, int] = {}
        on_path: set[Any] = {root}
        stack = [(root, iter(children[root]))]
        while stack:
            state, pending = stack[-1]
            child = next(pending, None)
            if child is None:
                stack.pop()
                on_path.discard(state)
                longest[state] = max((longest[k] + 1 for k in children[state]), default=0)
            elif child in on_path:
                return True, None
            elif child not in longest:
                on_path.add(child)
                stack.append((child, iter(children[child])))
        return True, longest[root]

    def _explore_playouts(self, game: Game, playouts: int, seed: int) -> int:
        rng = random.Random(seed)
        longest = 0
        for _ in range(playouts):
            state, length = game.initial_state(), 0
            while length < 100_000:
                moves = self._see(game, state)
                if not moves:
                    break
                state = game.apply(state, rng.choice(moves))
                length += 1
            longest = max(longest, length)
        return longest

    def move_id(self, name: str) -> int:
        index = self._add(self.moves, self.move_names, name)
        if index >= self.num_distinct_actions:
            raise RuntimeError(f"move {name!r} was not found while exploring and the {self.num_distinct_actions} "
                               "action ids are used up; register the game with a larger `spare`")
        return index

    def outcome_id(self, name: str) -> int:
        index = self._add(self.outcomes, self.outcome_names, name)
        if index >= max(self.max_chance_outcomes, 1):
            raise RuntimeError(f"chance outcome {name!r} was not found while exploring and the chance ids are "
                               "used up; register the game with a larger `spare`")
        return index


def _natural(name: str) -> list[Any]:
    """Sort key comparing the numbers in a name as numbers: ``d=2`` before ``d=10``."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _param_value(game: CompiledGame, name: str, value: Any) -> Any:
    """A rule-file parameter as an OpenSpiel game parameter (int, bool, float or str)."""
    enums = game.program.enums
    if name in enums and isinstance(value, int) and not isinstance(value, bool):
        return enums[name][value]
    if isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, tuple):  # OpenSpiel's game strings separate parameters by commas: "3;4;5"
        return ";".join(map(str, value))
    return str(value)


def _param_text(value: Any) -> str:
    """An OpenSpiel parameter value as the text a rule file's parameter override takes."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).replace(";", ",")


def register_pyspiel_game(
    gdl_game: CompiledGame,
    short_name: str,
    *,
    long_name: str | None = None,
    max_game_length: int | None = None,
    explore_states: int = 20_000,
    playouts: int = 300,
    spare: int = 64,
) -> Any:
    """Register a compiled rule file as the pyspiel Python game ``short_name``; returns its ``GameType``.

    A `simultaneous` rule file becomes a game with SIMULTANEOUS dynamics (each player's actions are its own
    moves, ``apply_actions`` plays a round; perfect information otherwise, as OpenSpiel's goofspiel with
    ``imp_info=false``). Otherwise the
    game is sequential, perfect-information, with explicit chance nodes if
    the rule file has any, zero-sum if it declares ``zero_sum`` (general-sum
    otherwise), and rewards at the end only. Its parameters are the rule file's
    (lists as ``"3,4,5"``, enumerations by member name), so
    ``pyspiel.load_game(short_name, {"rows": 5})`` recompiles the rule file.
    Action ids come from an :class:`ActionTable` (one per parameter set);
    ``explore_states``, ``playouts`` and ``spare`` are passed to it.
    ``max_game_length`` (which ``pyspiel.random_sim_test`` checks) defaults to
    the longest game when the whole state space was explored and has no cycle,
    else to ten times the longest explored playout, at least 1000: pass it for
    a game that can go on for ever (Pig), as OpenSpiel's own games have horizons.
    Registering a name again replaces the game.
    """
    pyspiel = _pyspiel()
    from gdl.loader import load_source

    base = gdl_game
    spec = {name: _param_value(base, name, value) for name, value in base.parameters.items()}
    base_texts = {name: _param_text(value) for name, value in spec.items()}
    compiled_games: dict[tuple[tuple[str, str], ...], tuple[Any, ActionTable]] = {}
    n = len(base.players)
    game_type = pyspiel.GameType(
        short_name=short_name,
        long_name=long_name or f"{base.name} (gdl rule file)",
        dynamics=(pyspiel.GameType.Dynamics.SIMULTANEOUS if base.simultaneous
                  else pyspiel.GameType.Dynamics.SEQUENTIAL),
        chance_mode=(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if base.has_chance
                     else pyspiel.GameType.ChanceMode.DETERMINISTIC),
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,  # simultaneous too (as goofspiel imp_info=false)
        utility=pyspiel.GameType.Utility.ZERO_SUM if base.zero_sum else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=n,
        min_num_players=n,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=False,
        parameter_specification=spec,
    )

    class _Observer:
        """The whole state as a string (perfect information): the state tuple and the rendered board."""

        def __init__(self, params: Mapping[str, Any] | None) -> None:
            if params:
                raise ValueError(f"observation parameters are not supported; passed {params}")
            self.tensor = None
            self.dict: dict[str, Any] = {}

        def set_from(self, state: Any, player: int) -> None:
            pass

        def string_from(self, state: Any, player: int) -> str:
            return f"{state._s!r}\n{state.get_game().gdl.render(state._s)}"

    # pyspiel has no type stubs: its base classes are Any to mypy, named here as such.
    state_base: Any = pyspiel.State
    game_base: Any = pyspiel.Game

    class GdlState(state_base):
        """A pyspiel state holding one state tuple of the rule file (the only attribute: cheap to clone and pickle)."""

        _s: Any  # the state tuple

        def __init__(self, game: GdlGame) -> None:
            super().__init__(game)
            self._s = game.gdl.initial_state()

        def _g(self) -> GdlGame:
            game: GdlGame = self.get_game()
            return game

        def current_player(self) -> int:
            player = self._g().gdl.to_move(self._s)
            if player == TERMINAL:
                return int(pyspiel.PlayerId.TERMINAL)
            if player == CHANCE:
                return int(pyspiel.PlayerId.CHANCE)
            if player == SIMULTANEOUS:
                return int(pyspiel.PlayerId.SIMULTANEOUS)
            return int(player)

        def _legal_actions(self, player: int) -> list[int]:
            game = self._g()
            if game.gdl.to_move(self._s) == SIMULTANEOUS:  # this player's own moves
                return sorted(game.table.move_id(str(m)) for m in game.gdl.legal_moves(self._s, player))
            return sorted(game.table.move_id(str(m)) for m in game.gdl.legal_moves(self._s))

        def _apply_actions(self, actions: list[int]) -> None:
            """A simultaneous move: one action per player."""
            game = self._g()
            names = [game.table.move_names[a] for a in actions]
            self._s = game.gdl.apply(self._s, game.gdl.parse_move(self._s, "|".join(names)))

        def chance_outcomes(self) -> list[tuple[int, float]]:
            game = self._g()
            return sorted((game.table.outcome_id(str(m)), float(p)) for m, p in game.gdl.chance_outcomes(self._s))

        def _apply_action(self, action: int) -> None:
            game = self._g()
            gdl_game = game.gdl
            if gdl_game.to_move(self._s) == CHANCE:
                name = game.table.outcome_names[action]
                candidates = [m for m, _ in gdl_game.chance_outcomes(self._s)]
            else:
                name = game.table.move_names[action]
                candidates = gdl_game.legal_moves(self._s)
            for move in candidates:
                if str(move) == name:
                    self._s = gdl_game.apply(self._s, move)
                    return
            raise IllegalMoveError(f"action {action} ({name}) is not legal here")

        def _action_to_string(self, player: int, action: int) -> str:
            table = self._g().table
            names = table.outcome_names if player == int(pyspiel.PlayerId.CHANCE) else table.move_names
            return names[action] if 0 <= action < len(names) else f"action{action}"

        def is_terminal(self) -> bool:
            return bool(self._g().gdl.to_move(self._s) == TERMINAL)

        def returns(self) -> list[float]:
            gdl_game = self._g().gdl
            if gdl_game.to_move(self._s) != TERMINAL:
                return [0.0] * len(gdl_game.players)
            return [float(u) for u in gdl_game.utilities(self._s)]

        def __str__(self) -> str:
            return str(self._g().gdl.render(self._s))

    class GdlGame(game_base):
        """A rule file compiled for one parameter set, as a pyspiel game."""

        def __init__(self, params: Mapping[str, Any] | None = None) -> None:
            texts = {name: _param_text(value) for name, value in (params or {}).items()}
            texts = {name: texts.get(name, text) for name, text in base_texts.items()} | texts
            cache_key = tuple(sorted(texts.items()))
            if cache_key not in compiled_games:  # deserializing a state loads the game again: compile once
                compiled = base if texts == base_texts else load_source(base.source, base.filename, texts)
                compiled_games[cache_key] = (compiled, ActionTable(
                    compiled, explore_states=explore_states, playouts=playouts, spare=spare))
            compiled, table = compiled_games[cache_key]
            if compiled.utility_bounds is not None:
                low, high = compiled.utility_bounds
            elif table.lowest <= table.highest:
                low, high = table.lowest, table.highest
            else:
                low, high = -1.0, 1.0
            if max_game_length is not None:
                length = max_game_length
            elif table.exact and table.longest is not None:
                length = max(1, table.longest)
            else:  # a game that can go on for ever, or too big to explore: a generous guess
                length = max(1000, 10 * (table.longest or 0))
            info = pyspiel.GameInfo(
                num_distinct_actions=table.num_distinct_actions,
                max_chance_outcomes=table.max_chance_outcomes,
                num_players=len(compiled.players),
                min_utility=float(low),
                max_utility=float(high),
                utility_sum=0.0 if compiled.zero_sum else None,
                max_game_length=length,
            )
            super().__init__(game_type, info, dict(params or spec))
            self.gdl = compiled
            self.table = table

        def new_initial_state(self) -> GdlState:
            return GdlState(self)

        def make_py_observer(self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None) -> Any:
            if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
                return _Observer(params)
            from open_spiel.python.observation import IIGObserverForPublicInfoGame

            return IIGObserverForPublicInfoGame(iig_obs_type, params)

    GdlGame.__name__ = GdlGame.__qualname__ = f"GdlGame_{short_name}"
    GdlState.__name__ = GdlState.__qualname__ = f"GdlState_{short_name}"
    pyspiel.register_game(game_type, GdlGame)
    return game_type
