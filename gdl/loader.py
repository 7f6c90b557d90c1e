"""Load a rule file (a path or the name of a bundled game) into a playable game.

>>> from gdl import load
>>> game = load("tictactoe")
>>> len(game.legal_moves(game.initial_state()))
9
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from gdl import program_cache
from gdl.diagnostics import Diagnostic, GdlError, RuleFileError
from gdl.runtime import CompiledGame

if TYPE_CHECKING:
    from gdl.compiler.program import Program

SUFFIX = ".gdl"
MAX_FILE_BYTES = 5_000_000


class GameNotFoundError(GdlError, FileNotFoundError):
    """Neither a readable rule file nor the name of a bundled game."""


def games_dir() -> Path:
    """The bundled game library (inside the installed package, or beside it in a checkout)."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "games", here.parent / "games"):
        if candidate.is_dir():
            return candidate
    return here / "games"


def bundled_games() -> list[Path]:
    return sorted(games_dir().glob("*" + SUFFIX))


def resolve(game: str) -> Path:
    """The rule file for ``game``: an existing path, or a bundled game's name.

    :raises GameNotFoundError: with the bundled names as a hint.
    """
    path = Path(game)
    if os.path.isfile(path):  # (os.path's, not Path's: a name too long for the system is just not a file)
        return path
    if os.path.exists(path) and not path.is_dir():  # a FIFO or a device: read_source says why it is not read
        try:
            read_source(path)
        except GdlError as error:
            raise GameNotFoundError(str(error)) from None
    bundled = games_dir() / (game if game.endswith(SUFFIX) else game + SUFFIX)
    if "/" not in game and os.path.isfile(bundled):
        return bundled
    names = [p.stem for p in bundled_games()]
    import difflib

    close = difflib.get_close_matches(game, names, n=1)
    suggestion = f"; did you mean {close[0]!r}?" if close else ""
    raise GameNotFoundError(f"no rule file or bundled game named {game!r}{suggestion} "
                            f"(bundled: {', '.join(names)})")


def read_source(path: str | Path) -> str:
    """The text of a rule file: the one reader of the CLI and :func:`load` (a byte-order mark is dropped).

    Only regular files are read (a FIFO would block, ``/dev/zero`` never ends), and at most
    :data:`MAX_FILE_BYTES` (:func:`read_regular_file`).

    :raises GdlError: missing, a directory or another non-regular file, unreadable, too large,
        not UTF-8 or binary (a one-line message).
    """
    path = Path(path)
    data = read_regular_file(path, MAX_FILE_BYTES, "rule file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise GdlError(f"{path}:{line}: not a UTF-8 text file (byte 0x{data[error.start]:02x} "
                       f"at offset {error.start})") from None
    if "\x00" in text:
        raise GdlError(f"{path}: a binary file, not a rule file (it contains NUL bytes)")
    return text.removeprefix("\ufeff")


def read_regular_file(path: str | Path, max_bytes: int, what: str) -> bytes:
    """The bytes of a file the user named (a rule file, a game record): the one safe reader of them.

    Only regular files are read: the file is opened without blocking (a FIFO cannot block), checked with
    ``fstat`` on the open descriptor (a FIFO, ``/dev/zero`` or a directory is refused), and read with a cap
    of ``max_bytes``, so a file that grows meanwhile is still refused. ``what`` names the file in the
    messages (``"rule file"``).

    :raises GdlError: missing, a directory or another non-regular file, unreadable, too large (one line).
    """
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise GdlError(f"{path}: no such file") from None
    except OSError as error:
        raise GdlError(f"{path}: {error.strerror or error}") from None
    try:
        _check_regular(path, os.fstat(fd), max_bytes, what)
        with os.fdopen(fd, "rb", closefd=False) as file:
            data = file.read(max_bytes + 1)
    except OSError as error:
        raise GdlError(f"{path}: {error.strerror or error}") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise GdlError(f"{path}: more than {max_bytes} bytes is too large for a {what}")
    return data


def _check_regular(path: Path, info: os.stat_result, max_bytes: int, what: str) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise GdlError(f"{path}: is a directory, not a {what}")
    if not stat.S_ISREG(info.st_mode):
        kind = ("a FIFO" if stat.S_ISFIFO(info.st_mode) else "a character device" if stat.S_ISCHR(info.st_mode)
                else "a block device" if stat.S_ISBLK(info.st_mode) else "a socket" if stat.S_ISSOCK(info.st_mode)
                else "not a regular file")
        raise GdlError(f"{path}: {kind}, not a regular file; {what}s are read only from regular files")
    if info.st_size > max_bytes:
        raise GdlError(f"{path}: {info.st_size} bytes is too large for a {what} (at most {max_bytes})")


def load_source(
    source: str,
    filename: str = "<string>",
    params: Mapping[str, str] | None = None,
    checked: bool = False,
    symmetry: bool = True,
    backend: str = "python",
    keep: bool = False,
) -> CompiledGame:
    """Parse, check and compile rule-file text.

    ``params`` overrides parameters by name with their text form (``{"rows": "4"}``).
    ``checked`` adds run-time checks of every index and assignment (slower; used by ``gdl check``).
    ``symmetry=False`` ignores the rule file's ``symmetry`` line (keys are then the plain states).
    ``backend``: ``"python"`` (the reference), ``"c"`` (the rules compiled to C: the solvers' inner
    loops run there; ``docs/backends.md``) or ``"auto"`` (C when a compiler is found and the rules
    translate, else Python with a :class:`RuntimeWarning` saying why).
    ``keep``: keep the compiled program between runs, and use the one kept for the same text, name,
    parameters and gdl (:mod:`gdl.program_cache`; :func:`load` keeps what it reads from a file).

    :raises RuleFileError: the rule file has errors (a declared symmetry the rules break included).
    :raises ParameterError: a parameter override is unknown or invalid.
    :raises gdl.native.select.BackendError: ``backend="c"`` cannot be had here (the message says why).
    """
    program, warnings = _compile(source, filename, dict(params or {}), checked, keep)
    game = CompiledGame(program, filename, source, warnings, use_symmetry=symmetry)
    game.verify_symmetry()  # keys use the declared symmetries only once they pass their check
    if backend != "python":
        from gdl.native.select import with_backend

        game, note = with_backend(game, backend)
        if note is not None:
            import warnings as warning_module

            warning_module.warn(note, RuntimeWarning, stacklevel=2)
    return game


def _compile(source: str, filename: str, params: dict[str, str], checked: bool,
             keep: bool) -> tuple[Program, list[Diagnostic]]:
    """Parse, check and compile; with ``keep``, through the kept programs (:mod:`gdl.program_cache`)."""
    key = program_cache.digest(source, filename, params, checked) if keep else None
    if key is not None:
        kept = program_cache.read(key)
        if kept is not None:
            return kept
    from gdl.compiler import compile_rules  # (imported only when there is something to compile)
    from gdl.parser import parse

    program, warnings = compile_rules(parse(source, filename), source, filename, params, checked)
    if key is not None:
        program_cache.write(key, program, warnings)
    return program, warnings


def load(game: str | Path, params: Mapping[str, str] | None = None, checked: bool = False,
         symmetry: bool = True, backend: str = "python") -> CompiledGame:
    """Load a rule file by path or bundled name (see :func:`load_source`)."""
    path = resolve(str(game))
    return load_source(read_source(path), str(path), params, checked, symmetry, backend, keep=True)


def check_source(source: str, filename: str = "<string>") -> list[Diagnostic]:
    """Every static diagnostic of a rule file (errors and warnings), without raising."""
    try:
        game = load_source(source, filename, checked=True)
    except RuleFileError as error:
        return error.diagnostics
    return game.warnings
