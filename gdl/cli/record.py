"""``gdl play --record``: the game written to a record file however it ends (docs/records.md)."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any

from rich.text import Text

from gdl import records
from gdl.cli.errors import EXIT_INTERRUPTED, UsageError
from gdl.console import make_console
from gdl.runtime import CompiledGame
from solver import match


def recorded(args: argparse.Namespace, play: Callable[[argparse.Namespace, Any], int]) -> int:
    """Run ``gdl play`` and, with ``--record FILE``, write the game to FILE however it ends.

    ``play(args, watch)`` calls ``watch(game, played, agents)`` once the game is set up, ``played()``
    returning the moves so far. A game that is not over when ``play`` returns was quit (or, with
    the interrupted exit status or a Ctrl-C, interrupted).
    """
    if not getattr(args, "record", None):
        return play(args, None)
    try:
        records.check_writable(args.record)
    except records.RecordError as error:
        raise UsageError(str(error)) from None
    seen: dict[str, Any] = {}

    def watch(game: CompiledGame, played: Callable[[], list[str]], agents: dict[int, str]) -> None:
        seen.update(game=game, played=played, agents=agents)

    end = match.GameEnd.QUIT
    try:
        status = play(args, watch)
        if status == EXIT_INTERRUPTED:
            end = match.GameEnd.INTERRUPTED
        elif seen and len(seen["played"]()) >= getattr(args, "max_plies", math.inf):
            end = match.GameEnd.MAX_MOVES  # stopped by --max-plies (no result: not a match draw)
        return status
    except KeyboardInterrupt:
        end = match.GameEnd.INTERRUPTED
        raise
    except Exception:  # re-raised: the record only says that the game did not end normally
        end = match.GameEnd.ERROR
        raise
    finally:
        if seen:
            _write_play_record(args, seen, end)


def _write_play_record(args: argparse.Namespace, seen: dict[str, Any], end: match.GameEnd) -> None:
    game = seen["game"]
    moves = list(seen["played"]())
    record = records.new_record(game, args.game, args.param, args.seed, "play")
    agents = {game.players[p]: label for p, label in seen["agents"].items()}
    entry = records.game_entry(game, moves, agents, end.value)
    if entry["result"]["utilities"] is not None:
        entry["result"]["end"] = match.GameEnd.FINISHED.value
    record["games"].append(entry)
    try:
        records.write_record(record, args.record)
    except records.RecordError as error:  # a FIFO put at the path since the check before the game
        make_console(stderr=True).print(Text("error: ", style="bold red") + Text(str(error)))
        return
    except OSError as error:
        make_console(stderr=True).print(Text("error: ", style="bold red")
                                        + Text(f"--record: cannot write {args.record!r}: {error.strerror or error}"))
        return
    make_console(stderr=True).print(Text(f"game recorded in {args.record} ({len(moves)} moves, "
                                         f"{entry['result']['end']})", style="dim"))
