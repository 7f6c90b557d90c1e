"""Command-line arguments shared by the commands: parameters, numbers, the game and the position to start from.

Every check here fails with :class:`~gdl.cli.errors.UsageError` (exit 2, one line) or, for a rule file
with errors, :class:`~gdl.cli.errors.Problem` (exit 1, its diagnostics).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import Any

import gdl
from gdl.check import read_rule_file, split_moves
from gdl.cli.errors import Problem, UsageError
from gdl.cli.plain import console
from gdl.cli.rule_errors import rule_errors
from gdl.diagnostics import GdlError, ParameterError, RuleFileError
from gdl.lines import plural
from gdl.loader import GameNotFoundError, resolve
from gdl.moves import match_move
from gdl.runtime import CompiledGame
from solver.game import TERMINAL, MoveError


def parse_params(pairs: Sequence[str] | None) -> dict[str, str]:
    """``["rows=4", "cols=5"]`` -> ``{"rows": "4", "cols": "5"}``.

    :raises UsageError: a pair without ``=`` or with an empty name.
    """
    params: dict[str, str] = {}
    for pair in pairs or ():
        name, sep, value = pair.partition("=")
        name = name.strip()
        if not sep or not name or not value.strip():
            raise UsageError(f"-p takes name=value, not {pair!r}")
        params[name] = value.strip()
    return params


def finite_number(text: str) -> float:
    """argparse type: a finite number; ``inf``, ``nan`` and ``1e999`` are refused (exit 2, one line)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def seconds(text: str) -> float:
    """argparse type: a finite number of seconds, at least 0."""
    value = finite_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative; give seconds >= 0")
    return value


MAX_DELAY = 60.0


def delay_seconds(text: str) -> float:
    """argparse type of ``--delay``: 0 to :data:`MAX_DELAY` seconds."""
    value = seconds(text)
    if value > MAX_DELAY:
        raise argparse.ArgumentTypeError(f"{text!r} is more than {MAX_DELAY:g} seconds")
    return value


def load_game(spec: str, params: dict[str, str], checked: bool = False, symmetry: bool = True,
              backend: str = "python") -> gdl.CompiledGame:
    """Load a game by path or bundled name, on ``backend`` (``--backend``: :mod:`gdl.cli.backend`).

    :raises UsageError: no such game, a bad parameter, an unreadable file.
    :raises Problem: the rule file has errors.
    """
    try:
        path = resolve(spec)
    except GameNotFoundError as error:
        raise UsageError(str(error)) from None
    try:
        source = read_rule_file(path)
    except GdlError as error:
        raise UsageError(str(error)) from None
    try:
        game = gdl.load_source(source, str(path), params, checked, symmetry, keep=True)
        game.verify_symmetry()  # now, so that a broken symmetry is a load error
    except ParameterError as error:
        raise UsageError(str(error)) from None
    except RuleFileError as error:
        errors = [d for d in error.diagnostics if d.is_error]
        raise Problem(f"{path}: {plural(len(errors), 'error')}; run `gdl check {path}` for the details",
                      error.diagnostics, source) from None
    except Exception as error:  # a rule failed while the initial state was built (setup)
        from gdl.check import compile_checked

        _, diagnostics = compile_checked(source, str(path), params)
        if not any(d.is_error for d in diagnostics):
            raise error
        raise Problem("", [d for d in diagnostics if d.is_error], source) from None
    if backend == "python":
        return game
    from gdl.cli.backend import apply_backend

    return apply_backend(game, backend, console(stderr=True))


def replay(game: CompiledGame, moves_text: str | None) -> tuple[Any, list[str]]:
    """The state after ``--moves m1,m2,...`` and the move names as played.

    :raises UsageError: a move that does not exist or is not legal where it is played.
    """

    state = game.initial_state()
    played: list[str] = []
    names = split_moves(moves_text or "")
    if moves_text and moves_text.startswith("@"):  # the moves of a game record (docs/records.md)
        from gdl.records import RecordError, moves_argument

        try:
            names = moves_argument(moves_text[1:], game)
        except RecordError as error:
            raise UsageError(f"--moves: {error}") from None
    with rule_errors(game, line=lambda: played):  # a rule that fails on the way: the moves so far reach it
        for index, name in enumerate(names):
            if game.to_move(state) == TERMINAL:
                raise UsageError(f"--moves: the game is over after {index} moves; {name!r} cannot be played")
            try:
                move = match_move(game, state, name)  # as the prompt reads it: `b2`, `D`, `drop(d)`
            except MoveError as error:
                raise UsageError(f"--moves: move {index + 1}: {error}") from None
            played.append(str(move))  # before applying it: a rule failing in the move is reached by it
            state = game.apply(state, move)
    return state, played


def add_command(sub: Any, name: str, help_text: str, examples: str | None) -> argparse.ArgumentParser:
    """A sub-command parser with its help, and its examples after the options."""
    return sub.add_parser(name, help=help_text, description=help_text, epilog=examples,
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def game_options(p: argparse.ArgumentParser) -> None:
    """The game to load and its parameters (``GAME -p NAME=VALUE ...``)."""
    p.add_argument("game", metavar="GAME", help="a rule file, or the name of a bundled game (see `gdl list`)")
    p.add_argument("-p", "--param", action="append", metavar="NAME=VALUE",
                   help="set a parameter of the game (repeatable)")
