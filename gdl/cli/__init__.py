"""The ``gdl`` command: one module per command, and the modules they share.

:func:`main` (the ``gdl`` entry point, also ``python -m gdl`` and ``python -m gdl.cli``) parses the
command line (:mod:`gdl.cli.app`) and runs one command.
"""

from __future__ import annotations

from gdl.cli.app import main

__all__ = ["main"]
