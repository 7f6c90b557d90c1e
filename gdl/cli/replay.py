"""``gdl replay``: step through a game record written by ``play --record`` or ``match --record``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rich.text import Text

from gdl import records
from gdl.cli.args import add_command, load_game, parse_params
from gdl.cli.backend import add_backend_option
from gdl.cli.errors import EXIT_OK, UsageError
from gdl.cli.output import game_label
from gdl.cli.render import board_text
from gdl.console import format_number, make_console
from gdl.diagnostics import GdlError
from solver.game import CHANCE, MoveError

EXAMPLES = """examples:
  gdl replay games.json
  gdl replay games.json --game 3
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


def cmd_replay(args: argparse.Namespace) -> int:
    out = make_console()
    try:
        record = records.load_record(args.file)
        entry = records.pick_game(record, args.game, args.file)
        names = records.move_names(entry, args.file)
    except records.RecordError as error:
        raise UsageError(str(error)) from None
    game = load_game(record["source"], parse_params(record.get("parameter_args") or []), backend=args.backend)
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
        who = "chance" if mover == CHANCE else game.players[mover]
        out.print()
        out.print(Text(f"{number}. {who}: ", style="bold") + Text(name, style="bold cyan"))
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


def _next(number: int, total: int) -> bool:
    """Wait for Enter before move ``number``; False when the reader quits."""
    try:
        answer = input(f"[move {number}/{total}] Enter: next, q: quit ")
    except EOFError:
        return False
    return answer.strip().lower() not in ("q", "quit")
