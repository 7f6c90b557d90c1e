"""``gdl show``: a rule file with syntax highlighting."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gdl.check import read_rule_file
from gdl.cli.args import add_command
from gdl.cli.errors import EXIT_OK, UsageError
from gdl.console import make_console
from gdl.diagnostics import GdlError, visible

EXAMPLES = """examples:
  gdl show kalah                          # a bundled game, highlighted
  gdl show mygame.gdl -n                  # with line numbers
  gdl show kalah | less -R                # plain text when not on a terminal (or with NO_COLOR)"""


def register(sub: Any) -> None:
    p = add_command(sub, "show", "Print a rule file with syntax highlighting.", EXAMPLES)
    p.add_argument("game", metavar="FILE", help="a rule file, or the name of a bundled game (see `gdl list`)")
    p.add_argument("-n", "--line-numbers", action="store_true", help="number the lines")
    p.set_defaults(run=cmd_show)


def cmd_show(args: argparse.Namespace) -> int:
    from rich.syntax import Syntax

    from gdl.highlight import GdlLexer
    from gdl.loader import GameNotFoundError, resolve

    try:
        path = resolve(args.game)
        source = read_rule_file(path)
    except (GameNotFoundError, GdlError) as error:
        raise UsageError(str(error)) from None
    out = make_console()
    if not out.is_terminal and not args.line_numbers:
        sys.stdout.write(plain_text(source))
        return EXIT_OK
    out.print(Syntax(source.rstrip("\n"), GdlLexer(), theme="ansi_dark", background_color="default",
                     line_numbers=args.line_numbers, word_wrap=False))
    return EXIT_OK


def plain_text(source: str) -> str:
    r"""A rule file as ``gdl show`` writes it where there is no terminal: as it is, but with control characters
    escaped (``\x1b``: :func:`gdl.diagnostics.visible`, as everywhere rule-file text is printed), the line
    breaks kept (``\r\n`` too) and a line break at the end.

    >>> plain_text('game G "\x1b]52;c;aGk=\x07"\r\nplayers A')
    'game G "\\x1b]52;c;aGk=\\x07"\r\nplayers A\n'
    """
    lines = source.split("\n")
    shown = "\n".join(visible(line[:-1]) + "\r" if line.endswith("\r") else visible(line) for line in lines)
    return shown if shown.endswith("\n") or not shown else shown + "\n"
