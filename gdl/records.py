"""Game records: the JSON files written by ``--record`` and read by ``gdl replay`` and ``--moves @FILE``.

The format is documented in docs/records.md. A record file holds one or more
games of one game definition (``gdl play`` writes one, ``gdl match`` one per
game played); each game lists every move and chance outcome in order, who made
it, each chance outcome's probability, and how the game ended. Moves are
stored by name, so a record is replayed by parsing each name in the position
where it was played.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gdl.diagnostics import GdlError
from gdl.loader import SUFFIX, bundled_games, read_regular_file
from solver.files import TargetError, check_target, replace_text
from solver.game import CHANCE, SIMULTANEOUS, TERMINAL, Game, MoveError

FORMAT = "gdl-record"
VERSION = 1


class RecordError(ValueError):
    """A record that cannot be read, or that does not fit the game it is used with (a usage error)."""


def game_source(spec: str) -> str:
    """How a record names the rule file: a bundled game by name, a file by its absolute path."""
    return str(Path(spec).resolve()) if os.path.isfile(spec) else spec


def _number(value: float) -> float | None:
    return float(value) + 0.0 if math.isfinite(value) else None


def _json_value(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_json_value(v) for v in value]
    if isinstance(value, float):
        return _number(value)
    return value


def parameters_of(game: Game) -> dict[str, Any]:
    return {k: _json_value(v) for k, v in game.parameters.items()}


def new_record(game: Game, spec: str, param_args: Sequence[str] | None, seed: int | None,
               command: str) -> dict[str, Any]:
    """An empty record of ``game`` (loaded from ``spec`` with ``-p param_args``)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "command": command,
        "game": game.name,
        "source": game_source(spec),
        "parameter_args": list(param_args or []),
        "parameters": parameters_of(game),
        "players": list(game.players),
        "seed": seed,
        "games": [],
    }


def game_entry(game: Game, moves: Sequence[str], agents: Mapping[str, str], end: str,
               utilities: Sequence[float] | None = None) -> dict[str, Any]:
    """One game: its seats, moves (replayed from the start to tell who moved) and result.

    ``end`` is a :class:`solver.match.GameEnd` value; ``utilities`` are taken
    from the final position when it is terminal (or given, for a game stopped
    at the move limit and scored as a draw).
    """
    state = game.initial_state()
    plies: list[dict[str, Any]] = []
    for number, name in enumerate(moves, 1):
        ply: dict[str, Any] = {"ply": number, "move": name}
        try:
            mover = game.to_move(state)
            if mover == CHANCE:
                ply["player"] = None
                ply["chance"] = True
                probability = next((p for o, p in game.chance_outcomes(state) if str(o) == name), None)
                ply["probability"] = None if probability is None else _number(probability)
            elif mover >= 0:
                ply["player"] = game.players[mover]
            elif mover == SIMULTANEOUS:  # a round: every player's move, in seat order, joined by `|`
                ply["simultaneous"] = True
            state = game.apply(state, game.parse_move(state, name))
        except (MoveError, ValueError, IndexError):  # a record is written even of a broken game
            plies.append(ply)
            plies.extend({"ply": n, "move": m} for n, m in enumerate(moves[number:], number + 1))
            state = None
            break
        plies.append(ply)
    result: dict[str, Any] = {"end": end, "utilities": None, "winners": None}
    final = utilities
    if final is None and state is not None and game.to_move(state) == TERMINAL:
        final = game.utilities(state)
    if final is not None:
        result["utilities"] = {p: _number(u) for p, u in zip(game.players, final, strict=False)}
        top = max(final)
        result["winners"] = [p for p, u in zip(game.players, final, strict=False) if u >= top - 1e-9]
    return {"agents": dict(agents), "moves": plies, "result": result}


def write_record(record: Mapping[str, Any], path: str | os.PathLike[str]) -> None:
    """Write ``record`` to ``path`` atomically (a Ctrl-C while writing leaves the previous file), only over a
    regular file or a link (:func:`solver.files.replace_text`).

    :raises RecordError: ``path`` is a directory, a device, a FIFO or a socket.
    :raises OSError: the file could not be written.
    """
    try:
        replace_text(path, dumps(record), "a game record", prefix=".gdl-record-")
    except TargetError as error:
        raise RecordError(f"--record: {error}") from None


def dumps(record: Mapping[str, Any]) -> str:
    """A record as JSON that reads well in an editor: one line per move."""
    head = json.dumps({k: v for k, v in record.items() if k != "games"}, indent=1)
    games = []
    for game in record.get("games", []):
        rest = json.dumps({k: v for k, v in game.items() if k != "moves"})
        moves = ",\n".join("   " + json.dumps(ply) for ply in game.get("moves", []))
        games.append(f'  {{{rest[1:-1]}, "moves": [\n{moves}\n  ]}}')
    return head[:-2] + ',\n "games": [\n' + ",\n".join(games) + "\n ]\n}\n"


def check_writable(path: str) -> None:
    """Fail now, before a game is played, if ``path`` cannot be written.

    :raises RecordError: a directory, a device, a FIFO or a socket (:func:`solver.files.check_target`), a
        missing folder, no permission.
    """
    try:
        check_target(path, "a game record")
    except TargetError as error:
        raise RecordError(f"--record: {error}") from None
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise RecordError(f"--record: no such folder {str(folder)!r}")
    if not os.access(folder, os.W_OK) or (os.path.exists(target) and not os.access(target, os.W_OK)):
        raise RecordError(f"--record: cannot write {path!r} (permission denied)")


MAX_RECORD_BYTES = 32_000_000
"""The largest record file read (a match of thousands of long games fits; ``/dev/zero`` or a huge file does not)."""
MAX_DEPTH = 32
"""The deepest nesting of JSON arrays and objects in a record (gdl writes 5 levels, a parameter's list more)."""
MAX_DIGITS = 100
"""The most digits of an integer in a record (a ``--seed`` or a parameter; Python refuses 4,300 with a traceback)."""
MAX_TEXT = 1_000
"""The longest ``game``, ``source``, agent label or end description (they are printed)."""


def load_record(path: str) -> dict[str, Any]:
    """Read a record file (:func:`gdl.loader.read_regular_file`: a regular file of at most
    :data:`MAX_RECORD_BYTES`, a FIFO refused without blocking) and check its shape.

    :raises RecordError: no such file, not a regular file, too large, not JSON, nested too deeply, a
        number too large, not a record, a version this program does not know, a field of the wrong type.
    """
    if not os.path.lexists(path):
        raise RecordError(f"no such record file {path!r}")
    try:
        text = read_regular_file(path, MAX_RECORD_BYTES, "game record").decode("utf-8")
    except GdlError as error:
        raise RecordError(str(error)) from None
    except UnicodeDecodeError as error:
        raise RecordError(f"{path}: not a UTF-8 text file (at offset {error.start})") from None
    record = _parse(text, path)
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise RecordError(f"{path}: not a game record (no \"format\": \"{FORMAT}\")")
    if record.get("version") != VERSION:
        raise RecordError(f"{path}: record version {_shown(record.get('version'))}; this gdl reads version {VERSION}")
    games = record.get("games")
    if not isinstance(games, list) or not all(isinstance(g, dict) and isinstance(g.get("moves"), list)
                                              for g in games):
        raise RecordError(f"{path}: \"games\" must be a list of games, each with a \"moves\" list")
    if not _is_text(record.get("game")) or not _is_text(record.get("source")):
        raise RecordError(f"{path}: \"game\" and \"source\" must be strings of at most {MAX_TEXT} characters")
    args = record.get("parameter_args")
    if args is not None and not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
        raise RecordError(f"{path}: \"parameter_args\" must be a list of strings (-p NAME=VALUE)")
    if not isinstance(record.get("parameters", {}), dict):
        raise RecordError(f"{path}: \"parameters\" must be an object")
    seed = record.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise RecordError(f"{path}: \"seed\" must be a whole number or null")
    return record


def _parse(text: str, path: str) -> Any:
    """JSON with integers of at most :data:`MAX_DIGITS` digits, finite numbers only, nested at most
    :data:`MAX_DEPTH` levels: anything else is a :class:`RecordError`, not a traceback."""
    try:
        value = json.loads(text, parse_int=_integer, parse_float=_real, parse_constant=_constant)
    except RecursionError:
        raise RecordError(f"{path}: not a game record (JSON nested more than {MAX_DEPTH} levels deep)") from None
    except _NumberError as error:
        raise RecordError(f"{path}: not a game record ({error})") from None
    except json.JSONDecodeError as error:
        raise RecordError(f"{path}: not JSON ({error.msg} at line {error.lineno})") from None
    if _depth(value) > MAX_DEPTH:
        raise RecordError(f"{path}: not a game record (JSON nested more than {MAX_DEPTH} levels deep)")
    return value


class _NumberError(ValueError):
    pass


def _integer(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise _NumberError(f"an integer of {len(digits.lstrip('-')):,} digits; at most {MAX_DIGITS}")
    return int(digits)


def _real(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NumberError("a number too large for a float")
    return value


def _constant(name: str) -> float:
    raise _NumberError(f"{name} is not a number a record holds")


def _depth(value: Any) -> int:
    """How deeply arrays and objects nest in ``value`` (iteratively: no recursion limit to meet)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_TEXT


def _shown(value: Any) -> str:
    """A value of a record for a message: its repr, cut short."""
    return _cut(repr(value), 60)


def _cut(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def pick_game(record: Mapping[str, Any], number: int, path: str) -> dict[str, Any]:
    """Game ``number`` (from 1) of a record.

    :raises RecordError: no such game.
    """
    games = record["games"]
    if not games:
        raise RecordError(f"{path}: the record holds no game")
    if not 1 <= number <= len(games):
        raise RecordError(f"{path}: no game {number}; the record holds {len(games)}")
    game: dict[str, Any] = games[number - 1]
    _check_entry(game, number, path)
    return game


def _check_entry(entry: Mapping[str, Any], number: int, path: str) -> None:
    """The fields of one game that ``gdl replay`` prints: ``agents`` (labels by player) and ``result``.

    :raises RecordError: a field of the wrong type.
    """
    agents = entry.get("agents")
    if agents is not None and not (isinstance(agents, dict)
                                   and all(_is_text(k) and _is_text(v) for k, v in agents.items())):
        raise RecordError(f"{path}: game {number}: \"agents\" must map players to agent labels")
    result = entry.get("result")
    if result is not None and not (isinstance(result, dict) and _is_text(result.get("end", ""))
                                   and _utilities(result.get("utilities"))):
        raise RecordError(f"{path}: game {number}: \"result\" must hold an \"end\" and \"utilities\" "
                          "(numbers by player, or null)")


def _utilities(value: Any) -> bool:
    """A result's utilities as gdl writes them: null, or a number (or null) by player."""
    if value is None:
        return True
    return isinstance(value, dict) and all(_is_text(player) and (u is None or _is_number(u))
                                           for player, u in value.items())


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def move_names(entry: Mapping[str, Any], path: str) -> list[str]:
    names = [ply.get("move") if isinstance(ply, dict) else None for ply in entry["moves"]]
    if not all(_is_text(n) for n in names):
        raise RecordError(f"{path}: every move must be an object with a \"move\" name "
                          f"(of at most {MAX_TEXT} characters)")
    return [str(n) for n in names]


def check_fits(record: Mapping[str, Any], game: Game, path: str) -> None:
    """The record must be of ``game`` with the same parameters.

    :raises RecordError: another game or other parameters (with the ``-p`` that fixes it).
    """
    if record["game"] != game.name:
        raise RecordError(f"{path} is a record of {record['game']}, not {game.name}")
    if record.get("parameters", {}) != parameters_of(game):
        given = " ".join(f"-p {a}" for a in record.get("parameter_args") or []) or "no -p"
        raise RecordError(f"{path} was played with other parameters ({_cut(given)}): "
                          f"{_cut(str(record.get('parameters')))} instead of {parameters_of(game)}")


def source_rules(record: Mapping[str, Any], path: str) -> tuple[Path, bool]:
    """The rule file ``gdl replay`` loads for a record, and whether it is a bundled game.

    A record is not trusted to choose which file gdl opens: its ``source`` may name a bundled game or a
    ``.gdl`` file, nothing else (``/etc/shadow`` is refused unread); the caller shows no error of a file
    chosen so (it may not be a rule file). A bundled name is always the bundled file, even where a file of
    that name sits in the current directory.

    :raises RecordError: another kind of source (the message says to name the rules with ``--rules``).
    """
    source = record["source"]
    bundled = {p.stem: p for p in bundled_games()}
    if source in bundled:
        return bundled[source], True
    if source.endswith(SUFFIX) and len(source) > len(SUFFIX) and "\x00" not in source:
        return Path(source), False
    raise RecordError(f"{path}: the record's source {_shown(source)} is neither a bundled game nor a "
                      f"{SUFFIX} file; name the rule file with --rules FILE")


_SUFFIX = re.compile(r"^(?P<file>.*?)(?:#(?P<game>\d{1,9}))?(?::(?P<plies>\d{1,9}))?$")


def moves_argument(text: str, game: Game) -> list[str]:
    """The moves of ``--moves @FILE``, ``@FILE#G`` (game G of a match record) or ``@FILE:N`` (its first N).

    :raises RecordError: as :func:`load_record`, :func:`pick_game`, :func:`check_fits`.
    """
    path, number, plies = text, 1, None
    if not os.path.isfile(text):  # (os.path's: a name too long for the system is just not a file)
        found = _SUFFIX.match(text)
        assert found is not None  # the pattern matches every string
        path = found["file"]
        number = int(found["game"] or 1)
        plies = int(found["plies"]) if found["plies"] else None
    record = load_record(path)
    check_fits(record, game, path)
    names = move_names(pick_game(record, number, path), path)
    if plies is not None and plies > len(names):
        raise RecordError(f"{path}: game {number} has {len(names)} moves, not {plies}")
    return names if plies is None else names[:plies]
