"""The ``gdl`` command: one module per command, and the modules they share.

:func:`main` (the ``gdl`` entry point, also ``python -m gdl`` and ``python -m gdl.cli``) parses the
command line (:mod:`gdl.cli.app`) and runs one command. The package itself imports nothing, so that
a caller of one of its modules (:mod:`gdl.cli.render`) does not load every command.
"""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``gdl`` command; returns the exit status."""
    import gc

    # The command line of this process (the gdl script, python -m gdl): start-up allocates many objects and
    # frees few, so the cyclic collector would run dozens of times over them for nothing. It is off while the
    # modules load and the command line is parsed, then back on for the command's own work, with everything
    # loaded by then set aside for good (gc.freeze: later collections, the last one at exit included, skip
    # it). Some 10 ms of every command. A caller that passes argv (a test, a program running commands) keeps
    # its collector as it is.
    paused = argv is None and gc.isenabled()
    if paused:
        gc.disable()
    try:
        try:
            from gdl.cli.app import main as run
        except KeyboardInterrupt:  # Ctrl-C while the modules load (a slow disk, a busy machine): no traceback
            import sys

            print("gdl: interrupted", file=sys.stderr)
            return 130
        return run(argv, _resume_collector if paused else None)
    finally:
        if paused:
            gc.enable()


def _resume_collector() -> None:
    import gc

    gc.freeze()
    gc.enable()


__all__ = ["main"]
