"""The ``gdl`` command: one module per command, and the modules they share.

:func:`main` (the ``gdl`` entry point, also ``python -m gdl`` and ``python -m gdl.cli``) parses the
command line (:mod:`gdl.cli.app`) and runs one command. The package itself imports nothing, so that
a caller of one of its modules (:mod:`gdl.cli.render`) does not load every command.
"""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``gdl`` command; returns the exit status."""
    try:
        from gdl.cli.app import main as run
    except KeyboardInterrupt:  # Ctrl-C while the modules load (a slow disk, a busy machine): no traceback
        import sys

        print("gdl: interrupted", file=sys.stderr)
        return 130
    return run(argv)


__all__ = ["main"]
