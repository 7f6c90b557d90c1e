"""The ``gdl`` command line: one parser, one sub-command per module of this package, one way to fail.

Exit status, for every command: 0 on success, 1 when the work finds a problem
(a rule file with errors), 2 on a usage error (unknown game, bad option or
parameter, a move that does not exist), 130 when interrupted. User mistakes
never print a traceback (:mod:`gdl.cli.errors`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import NoReturn

import gdl
from gdl.cli.errors import EXIT_INTERRUPTED, EXIT_OK, EXIT_PROBLEM, EXIT_USAGE, Problem, UsageError
from gdl.cli.output import error_json
from gdl.cli.plain import console
from gdl.diagnostics import visible
from gdl.lines import Line

COMMANDS = ("check", "list", "info", "solve", "play", "match", "replay", "book", "fmt", "new", "show", "lsp")
"""The sub-commands in the order ``gdl --help`` lists them: each is the module ``gdl.cli.<name>``, with
``register(sub)``. A command line that names one imports only that one (start-up time is every command's)."""


class _Parser(argparse.ArgumentParser):
    """argparse with our exit status (2) and a one-line error."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {visible(message)}\n")  # it may quote the command line
        raise SystemExit(EXIT_USAGE)


def command_module(name: str) -> ModuleType:
    return importlib.import_module(f"gdl.cli.{name}")


def named_command(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names before any other argument, if it is one of ours (else None: every command's
    parser is built, for ``--help`` and for the error that lists them)."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return first if first in COMMANDS and argv and argv[0] == first else None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="gdl",
        description="Games as declarative rule files: check, describe, solve and play them.",
        epilog="examples:\n  gdl list\n  gdl check games/*.gdl\n  gdl solve tictactoe\n  gdl play tictactoe\n\n"
               "Run `gdl COMMAND --help` for a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"gdl {gdl.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    for name in (only,) if only else COMMANDS:
        command_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None, parsed: Callable[[], None] | None = None) -> int:
    """Run the ``gdl`` command; returns the exit status. ``parsed()`` is called once the command line is
    parsed, before the command runs (:func:`gdl.cli.main` turns the cyclic collector back on there)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(named_command(argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0) if not isinstance(exit_.code, str) else EXIT_USAGE
    if getattr(args, "run", None) is None:
        parser.print_help()
        return EXIT_USAGE
    err = console(stderr=True)  # (rich is loaded only to print what needs it: a plain line on a pipe does not)
    if parsed is not None:
        parsed()
    try:
        status = args.run(args)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return status
    except UsageError as error:
        err.print(Line(f"gdl {args.command}: error: ", style="bold red") + Line(str(error)))
        if getattr(args, "json", False):
            print(error_json("usage", str(error)))
        return EXIT_USAGE
    except Problem as problem:
        if problem.diagnostics:
            from gdl.console import print_diagnostics

            print_diagnostics(err, problem.diagnostics, problem.source)
        if problem.message:
            err.print(Line("error: ", style="bold red") + Line(problem.message))
        if getattr(args, "json", False):
            first = next((d for d in problem.diagnostics if d.is_error), None)
            print(error_json(first.code if first else "problem", problem.message, problem))
        return EXIT_PROBLEM
    except KeyboardInterrupt:
        err.print(Line("interrupted", style="yellow"))
        if getattr(args, "json", False):
            print(error_json("interrupted", "interrupted (Ctrl-C) before the command finished"))
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (`gdl list | head`): nothing more to say
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
