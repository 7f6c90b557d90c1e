"""``gdl new``: a rule file from a commented template (:mod:`gdl.templates`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.text import Text

from gdl.cli.args import add_command
from gdl.cli.errors import EXIT_OK, UsageError
from gdl.console import make_console

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
    if path.is_dir():
        raise UsageError(f"{path}: is a directory")
    if path.exists() and not args.force:
        raise UsageError(f"{path} already exists (use --force to overwrite it)")
    name = game_name(path.stem)
    try:
        path.write_text(render(args.template, name), encoding="utf-8")
    except OSError as error:
        raise UsageError(f"{path}: {error.strerror or error}") from None
    out = make_console()
    out.print(f"wrote {path} (game {name}, {args.template} template)")
    out.print(Text(f"next: gdl check {path} && gdl solve {path}", style="dim"))
    return EXIT_OK
