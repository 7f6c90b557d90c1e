"""``gdl book``: build an opening book (:mod:`solver.book`) and save it for ``book=FILE`` agents."""

from __future__ import annotations

import argparse
import os
from typing import Any

from rich.text import Text

from gdl.cli.args import add_command, game_options, load_game, parse_params
from gdl.cli.backend import add_backend_option
from gdl.cli.errors import EXIT_INTERRUPTED, EXIT_OK, UsageError
from gdl.cli.output import dump_json, error_json, game_label, json_value
from gdl.cli.progress import DelayedProgress
from gdl.cli.rule_errors import rule_errors
from gdl.console import format_number, make_console
from solver.book import (
    MAX_POSITIONS,
    Book,
    BookProgress,
    TooManyPositions,
    build_book,
    check_target,
    save_book,
)
from solver.table import TableError

HELP = ("Build an opening book: the best moves and values of every position up to N plies from the start "
        "(exact, or searched with --depth), for agents' book=FILE.")

EPILOG = """examples:
  gdl book connect4 -p cols=5 -p rows=4 --plies 4 --save c4-5x4.book
  gdl match connect4 -p cols=5 -p rows=4 alphabeta:depth=2,book=c4-5x4.book alphabeta:depth=4 --games 10
  gdl book connect4 --plies 3 --depth 6 --save c4.book      # searched, not exact (7x6 is too big to solve)
  gdl play tictactoe --vs alphabeta:depth=2,table=ttt.book  # an exact book is also a table to probe"""


def register(sub: Any) -> None:
    """Add ``gdl book`` to the sub-command parser ``sub``."""
    p = add_command(sub, "book", HELP, EPILOG)
    game_options(p)
    p.add_argument("--plies", type=int, required=True, metavar="N",
                   help="every position reachable in at most N moves (chance outcomes count) goes in the book")
    p.add_argument("--depth", type=int, metavar="D",
                   help="value each position by a depth-D search (alpha-beta, expectimax with chance, max^n for "
                        "more players) instead of solving it exactly")
    p.add_argument("--save", required=True, metavar="FILE",
                   help="the book's file (SQLite; written only as a regular file, atomically)")
    p.add_argument("--max-positions", type=int, default=MAX_POSITIONS, metavar="N",
                   help=f"refuse to build a book of more positions than this (default {MAX_POSITIONS:,})")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object")
    add_backend_option(p)
    p.set_defaults(run=cmd_book)


def cmd_book(args: argparse.Namespace) -> int:
    if args.plies < 0:
        raise UsageError("--plies must be at least 0")
    if args.depth is not None and args.depth < 1:
        raise UsageError("--depth must be at least 1")
    if args.max_positions < 1:
        raise UsageError("--max-positions must be at least 1")
    _check_target(args.save)
    game: Any = load_game(args.game, parse_params(args.param), backend=args.backend)  # (a CompiledGame is a Game)
    out, err = make_console(), make_console(stderr=True)
    try:
        with rule_errors(game), DelayedProgress(err, "book", None, enabled=not args.json) as display:
            def show(done: BookProgress) -> None:
                display.update(done.done, total=done.total,
                               description=f"book: {done.nodes:,} nodes")

            book = build_book(game, args.plies, args.depth, cap=args.max_positions, progress=show)
    except KeyboardInterrupt:
        err.print(Text("interrupted: no book saved", style="yellow"))
        if args.json:
            print(error_json("interrupted", "interrupted (Ctrl-C) before the book was built: no book saved"))
        return EXIT_INTERRUPTED
    except TooManyPositions as error:
        raise UsageError(f"{error} (or raise --max-positions)") from None
    except ValueError as error:
        raise UsageError(f"cannot build a book of {game.name}: {error}") from None
    try:
        save_book(book, args.save)
    except (TableError, OSError) as error:
        raise UsageError(f"--save: {error}") from None
    report = _report(game, book, args.save)
    if args.json:
        print(dump_json(report))
    else:
        _print(out, game, report)
    return EXIT_OK


def _check_target(path: str) -> None:
    """Fail before the work, not after it: the file's directory must exist, and the file be a regular one."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise UsageError(f"--save: no directory {directory!r}")
    try:
        check_target(path)
    except TableError as error:
        raise UsageError(f"--save: {error}") from None


def _report(game: Any, book: Book, path: str) -> dict[str, Any]:
    root = game.initial_state()
    value = book.values.get(game.key(root))
    moves = book.moves(game, root) if value is not None and game.to_move(root) >= 0 else None
    return {
        "game": game.name,
        "parameters": {k: json_value(v) for k, v in game.parameters.items()},
        "players": list(game.players),
        "plies": book.plies,
        "depth": book.depth,
        "exact": book.exact,
        "method": book.method,
        "positions": len(book),
        "value": None if value is None else dict(zip(game.players, value, strict=True)),
        "best_moves": [str(m) for m in moves or ()],
        "saved": path,
    }


def _print(out: Any, game: Any, report: dict[str, Any]) -> None:
    out.print(Text(game_label(game), style="bold"))
    how = "exact values" if report["exact"] else f"values of a depth-{report['depth']} search"
    plies = f"{report['plies']} ply" if report["plies"] == 1 else f"{report['plies']} plies"
    out.print(f"a book of {report['positions']:,} positions within {plies} of the start: {how} "
              f"({report['method']})")
    if report["value"] is not None:
        value = ", ".join(f"{p} {format_number(v)}" for p, v in report["value"].items())
        best = ", ".join(report["best_moves"])
        out.print(f"from the start: {value}" + (f"; best moves {best}" if best else ""))
    out.print(Text(f"saved to {report['saved']}", style="dim"))
