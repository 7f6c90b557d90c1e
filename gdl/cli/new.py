"""``gdl new``: a rule file from a commented template (:mod:`gdl.templates`)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from rich.text import Text

from gdl.cli.args import add_command
from gdl.cli.errors import EXIT_OK, UsageError
from gdl.console import make_console
from solver.files import TargetError, check_target, replace_text

EXAMPLES = """examples:
  gdl new mygame                          # mygame.gdl from the board template
  gdl new pigs --template dice            # a dice game
  gdl new jugs.gdl --template puzzle      # a one-player puzzle
  gdl check mygame.gdl && gdl solve mygame.gdl"""


def register(sub: Any) -> None:
    p = add_command(sub, "new", "Start a rule file from a commented template that checks clean and solves.", EXAMPLES)
    p.add_argument("name", metavar="NAME", help="the new file (NAME.gdl unless NAME ends in .gdl)")
    p.add_argument("--template", default="board", metavar="KIND",
                   help="board (default), dice, puzzle or simultaneous")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.set_defaults(run=cmd_new)


def cmd_new(args: argparse.Namespace) -> int:
    from gdl.templates import NOT_YET, TEMPLATES, game_name, render

    if args.template in NOT_YET:
        raise UsageError(f"--template {args.template}: {NOT_YET[args.template]}")
    if args.template not in TEMPLATES:
        raise UsageError(f"--template {args.template}: no such template; choose one of {', '.join(TEMPLATES)}")
    path = Path(args.name if args.name.endswith(".gdl") else args.name + ".gdl")
    try:
        check_target(path, "a rule file")  # a FIFO, a device or a directory: even --force never replaces one
    except TargetError as error:
        raise UsageError(str(error)) from None
    if os.path.lexists(path) and not args.force:  # (a dangling link too: it is what --force would replace)
        raise UsageError(f"{path} already exists (use --force to overwrite it)")
    name = game_name(path.stem)
    try:
        replace_text(path, render(args.template, name), "a rule file")
    except (OSError, TargetError) as error:
        raise UsageError(f"{path}: {getattr(error, 'strerror', None) or error}") from None
    out = make_console()
    out.print(f"wrote {path} (game {name}, {args.template} template)")
    out.print(Text(f"next: gdl check {path} && gdl solve {path}", style="dim"))
    return EXIT_OK
