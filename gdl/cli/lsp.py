"""``gdl lsp``: the language server for editors (:mod:`gdl.lsp`)."""

from __future__ import annotations

import argparse
from typing import Any

from gdl.cli.args import add_command
from gdl.cli.errors import UsageError

EXAMPLES = """The editor starts it; see docs/editors.md for VS Code, Neovim and Emacs.
It needs pygls: pip install 'gdl[lsp]'."""


def register(sub: Any) -> None:
    p = add_command(sub, "lsp", "Run the language server for editors (diagnostics, hover, definitions, completion, "
                                "...).", EXAMPLES)
    p.add_argument("--stdio", action="store_true", help="talk over standard input and output (the default and "
                                                         "only transport; accepted because editors pass it)")
    p.set_defaults(run=cmd_lsp)


def cmd_lsp(args: argparse.Namespace) -> int:
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError:
        raise UsageError("the language server needs pygls: pip install 'gdl[lsp]'") from None
    from gdl.lsp import serve

    return serve()
