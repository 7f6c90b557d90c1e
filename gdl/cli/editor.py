"""The commands for writing rule files: ``gdl fmt``, ``gdl new``, ``gdl show``, ``gdl lsp``.

Registered by :func:`gdl.cli.build_parser` through :func:`add_commands`; errors go through the
CLI's :class:`~gdl.cli.UsageError` (exit 2) and :class:`~gdl.cli.Problem` (exit 1).
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path
from typing import Any

from rich.text import Text

from gdl.check import read_rule_file
from gdl.cli.app import EXIT_OK, EXIT_PROBLEM, EXIT_USAGE, UsageError
from gdl.console import make_console, plural, print_diagnostics
from gdl.diagnostics import GdlError, RuleFileError

EXAMPLES = {
    "fmt": """examples:
  gdl fmt games/*.gdl                     # rewrite the files in the canonical layout
  gdl fmt --check games/*.gdl             # for CI: exit 1 and list the files that would change
  gdl fmt --diff mygame.gdl               # show the changes without writing them
  gdl fmt - < mygame.gdl                  # standard input to standard output""",
    "new": """examples:
  gdl new mygame                          # mygame.gdl from the board template
  gdl new pigs --template dice            # a dice game
  gdl new jugs.gdl --template puzzle      # a one-player puzzle
  gdl check mygame.gdl && gdl solve mygame.gdl""",
    "show": """examples:
  gdl show kalah                          # a bundled game, highlighted
  gdl show mygame.gdl -n                  # with line numbers
  gdl show kalah | less -R                # plain text when not on a terminal (or with NO_COLOR)""",
    "lsp": """The editor starts it; see docs/editors.md for VS Code, Neovim and Emacs.
It needs pygls: pip install 'gdl[lsp]'.""",
}


def add_commands(sub: Any) -> None:
    """Add the editor commands to the ``gdl`` sub-command parser ``sub``."""

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help_text, description=help_text, epilog=EXAMPLES.get(name),
                              formatter_class=argparse.RawDescriptionHelpFormatter)

    p = command("fmt", "Format rule files in the one canonical layout (meaning never changes).")
    p.add_argument("files", nargs="+", metavar="FILE", help="rule files to format (`-` for standard input)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 and list the files that are not formatted")
    p.add_argument("--diff", action="store_true", help="write nothing; print a unified diff of the changes")
    p.set_defaults(run=cmd_fmt)

    p = command("new", "Start a rule file from a commented template that checks clean and solves.")
    p.add_argument("name", metavar="NAME", help="the new file (NAME.gdl unless NAME ends in .gdl)")
    p.add_argument("--template", default="board", metavar="KIND",
                   help="board (default), dice or puzzle (simultaneous: not in the language yet)")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.set_defaults(run=cmd_new)

    p = command("show", "Print a rule file with syntax highlighting.")
    p.add_argument("game", metavar="FILE", help="a rule file, or the name of a bundled game (see `gdl list`)")
    p.add_argument("-n", "--line-numbers", action="store_true", help="number the lines")
    p.set_defaults(run=cmd_show)

    p = command("lsp", "Run the language server for editors (diagnostics, hover, definitions, completion, ...).")
    p.add_argument("--stdio", action="store_true", help="talk over standard input and output (the default and "
                                                         "only transport; accepted because editors pass it)")
    p.set_defaults(run=cmd_lsp)


# ================================================================== fmt


def cmd_fmt(args: argparse.Namespace) -> int:
    from gdl.fmt import FormatError, format_source

    out = make_console()
    err = make_console(stderr=True)
    changed: list[str] = []
    failed = usage = 0
    if args.files.count("-") > 1 or ("-" in args.files and len(args.files) > 1):
        raise UsageError("`-` (standard input) must be the only file")
    for name in args.files:
        try:
            source = sys.stdin.read() if name == "-" else read_rule_file(name)
        except GdlError as error:
            err.print(Text("error: ", style="bold red") + Text(str(error)))
            usage += 1
            continue
        try:
            result = format_source(source)
        except RuleFileError as error:
            print_diagnostics(err, [d.located(name if name != "-" else "<stdin>") for d in error.diagnostics],
                              source)
            failed += 1
            continue
        except FormatError as error:
            err.print(Text(f"error: {name}: ", style="bold red") + Text(str(error)))
            failed += 1
            continue
        if name == "-" and not (args.check or args.diff):
            sys.stdout.write(result)
            continue
        if result == source:
            continue
        changed.append(name)
        if args.diff:
            sys.stdout.writelines(difflib.unified_diff(
                source.splitlines(keepends=True), result.splitlines(keepends=True), f"{name}", f"{name} (formatted)"))
        elif args.check:
            out.print(f"would reformat {name}")
        else:
            Path(name).write_text(result, encoding="utf-8")
            out.print(f"reformatted {name}")
    if usage:
        return EXIT_USAGE
    if failed:
        return EXIT_PROBLEM
    if args.check and changed:
        err.print(f"{plural(len(changed), 'file')} would be reformatted")
        return EXIT_PROBLEM
    if not args.diff and not args.check and args.files != ["-"]:
        unchanged = len(args.files) - len(changed)
        out.print(Text(f"{plural(len(changed), 'file')} reformatted, {unchanged} unchanged", style="dim"))
    return EXIT_OK


# ================================================================== new


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


# ================================================================== show


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
        sys.stdout.write(source if source.endswith("\n") or not source else source + "\n")
        return EXIT_OK
    out.print(Syntax(source.rstrip("\n"), GdlLexer(), theme="ansi_dark", background_color="default",
                     line_numbers=args.line_numbers, word_wrap=False))
    return EXIT_OK


# ================================================================== lsp


def cmd_lsp(args: argparse.Namespace) -> int:
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError:
        raise UsageError("the language server needs pygls: pip install 'gdl[lsp]'") from None
    from gdl.lsp import serve

    return serve()
