"""``gdl replay``: step through a game record written by ``play --record`` or ``match --record``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rich.text import Text

from gdl import records
from gdl.cli.args import add_command, load_game, parse_params
from gdl.cli.backend import add_backend_option
from gdl.cli.errors import EXIT_OK, Problem, UsageError
from gdl.cli.output import game_label
from gdl.cli.render import board_text
from gdl.console import format_number, make_console
from gdl.diagnostics import GdlError
from solver.game import CHANCE, SIMULTANEOUS, MoveError

EXAMPLES = """examples:
  gdl replay games.json
  gdl replay games.json --game 3
  gdl replay games.json --rules mygame.gdl # the rules to replay with, in place of the record's source
  gdl solve tictactoe --moves @games.json:4"""


def register(sub: Any) -> None:
    p = add_command(sub, "replay", "Step through a game record written by `play --record` or `match --record`.",
                    EXAMPLES)
    add_replay_options(p)
    add_backend_option(p)
    p.set_defaults(run=cmd_replay)


def add_replay_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE.json", help="a record written by `gdl play --record` or "
                   "`gdl match --record`")
    p.add_argument("--game", type=int, default=1, metavar="N", help="which game of a match record (default 1)")
    p.add_argument("--rules", metavar="GAME", help="the rule file (or bundled game) to replay the record with, "
                   "instead of the one its `source` names (a bundled game or a .gdl file)")


def cmd_replay(args: argparse.Namespace) -> int:
    out = make_console()
    try:
        record = records.load_record(args.file)
        entry = records.pick_game(record, args.game, args.file)
        names = records.move_names(entry, args.file)
    except records.RecordError as error:
        raise UsageError(str(error)) from None
    game = _load(args, record)
    try:
        records.check_fits(record, game, args.file)
    except records.RecordError as error:
        raise UsageError(str(error)) from None
    stepping = sys.stdin.isatty() and sys.stdout.isatty()
    out.print(Text(game_label(game), style="bold") + Text(f"  game {args.game} of {len(record['games'])}, "
                                                          f"seed {record.get('seed')}", style="dim"))
    for player, agent in (entry.get("agents") or {}).items():
        out.print(f"  {player}: {agent}")
    state = game.initial_state()
    out.print()
    out.print(board_text(game, state))
    for number, name in enumerate(names, 1):
        if stepping and not _next(number, len(names)):
            return EXIT_OK
        mover = game.to_move(state)
        try:
            state = game.apply(state, game.parse_move(state, name))
        except (MoveError, GdlError) as error:  # a hand-edited record or changed rules: say where
            raise UsageError(f"{args.file}: move {number} {name!r}: {error}") from None
        out.print()
        out.print(_played(game, number, mover, name))
        if game.to_move(state) != CHANCE:  # a chance state is the next line, its outcome
            out.print(board_text(game, state))
    result = entry.get("result") or {}
    utilities = result.get("utilities")
    ended = result.get("end", "?")
    if utilities:
        shown = ", ".join(f"{p} {format_number(u)}" for p, u in utilities.items() if u is not None)
        out.print(Text(f"{ended}: utilities {shown}", style="bold"))
    else:
        out.print(Text(f"{ended} after {len(names)} moves (no result)", style="bold"))
    return EXIT_OK


def _load(args: argparse.Namespace, record: dict[str, Any]) -> Any:
    """The game of the record: the rules ``--rules`` names, else those its ``source`` names
    (:func:`gdl.records.source_rules`). A rule file the record chose is not one the user named: an error
    of it is one line that quotes nothing of the file (it may not be a rule file at all)."""
    params = parse_params(record.get("parameter_args") or [])
    if args.rules:
        return load_game(args.rules, params, backend=args.backend)
    try:
        rules, bundled = records.source_rules(record, args.file)
    except records.RecordError as error:
        raise UsageError(str(error)) from None
    if bundled:  # our own rule file: its errors (a bad -p of the record's) are shown as they are
        return load_game(str(rules), params, backend=args.backend)
    hint = "; name the rule file with --rules FILE"
    if not rules.is_file():
        raise UsageError(f"{args.file}: the record's rule file {rules} is missing or not a regular file{hint}")
    try:
        return load_game(str(rules), params, backend=args.backend)
    except (UsageError, Problem):
        raise UsageError(f"{args.file}: the record's rule file {rules} does not load (`gdl check {rules}` "
                         f"says why){hint}") from None


def _played(game: Any, number: int, mover: int, name: str) -> Text:
    """``3. chance: d=3``, ``1. X: place(b2)``, or for a simultaneous round every player's move: ``1. Row
    play(rock), Column play(paper)``."""
    if mover == SIMULTANEOUS:
        parts = name.split("|")
        if len(parts) == len(game.players):
            text = Text(f"{number}. ", style="bold")
            for seat, (player, part) in enumerate(zip(game.players, parts, strict=True)):
                text += Text(f"{', ' if seat else ''}{player} ", style="bold") + Text(part, style="bold cyan")
            return text
        who = ", ".join(game.players)
    else:
        who = "chance" if mover == CHANCE else game.players[mover]
    return Text(f"{number}. {who}: ", style="bold") + Text(name, style="bold cyan")


def _next(number: int, total: int) -> bool:
    """Wait for Enter before move ``number``; False when the reader quits."""
    try:
        answer = input(f"[move {number}/{total}] Enter: next, q: quit ")
    except EOFError:
        return False
    return answer.strip().lower() not in ("q", "quit")
