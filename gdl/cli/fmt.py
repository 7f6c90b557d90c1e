"""``gdl fmt``: rule files in the one canonical layout (:mod:`gdl.fmt`)."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from typing import Any

from rich.text import Text

from gdl.check import read_rule_file
from gdl.cli.args import add_command
from gdl.cli.errors import EXIT_OK, EXIT_PROBLEM, EXIT_USAGE, UsageError
from gdl.console import make_console, plural, print_diagnostics
from gdl.diagnostics import GdlError, RuleFileError
from solver.files import TargetError, replace_text

EXAMPLES = """examples:
  gdl fmt games/*.gdl                     # rewrite the files in the canonical layout
  gdl fmt --check games/*.gdl             # for CI: exit 1 and list the files that would change
  gdl fmt --diff mygame.gdl               # show the changes without writing them
  gdl fmt - < mygame.gdl                  # standard input to standard output"""


def register(sub: Any) -> None:
    p = add_command(sub, "fmt", "Format rule files in the one canonical layout (meaning never changes).", EXAMPLES)
    p.add_argument("files", nargs="+", metavar="FILE", help="rule files to format (`-` for standard input)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 and list the files that are not formatted")
    p.add_argument("--diff", action="store_true", help="write nothing; print a unified diff of the changes")
    p.set_defaults(run=cmd_fmt)


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
            try:
                _rewrite(name, result)
            except (OSError, TargetError) as error:
                err.print(Text(f"error: {name}: ", style="bold red") + Text(getattr(error, "strerror", None)
                                                                            or str(error)))
                usage += 1
                continue
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


def _rewrite(name: str, text: str) -> None:
    """Replace the rule file ``name`` with ``text`` atomically; through a link, the file it points to is
    rewritten (the link stays), and only if that is a regular file (:func:`solver.files.replace_text`)."""
    replace_text(os.path.realpath(name), text, "a rule file")
