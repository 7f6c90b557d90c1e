"""Exit statuses and the two errors every command raises instead of printing a traceback.

Exit status, for every command: 0 on success, 1 when the work finds a problem
(a rule file with errors), 2 on a usage error (unknown game, bad option or
parameter, a move that does not exist), 130 when interrupted. User mistakes
never print a traceback: :func:`gdl.cli.app.main` turns these errors into one line (or diagnostics).
"""

from __future__ import annotations

from collections.abc import Sequence

from gdl.diagnostics import Diagnostic

EXIT_OK = 0
EXIT_PROBLEM = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A mistake in the command line: exit status 2, one line on stderr."""


class Problem(Exception):
    """The work found a problem (a rule file with errors): exit status 1."""

    def __init__(self, message: str = "", diagnostics: Sequence[Diagnostic] = (), source: str | None = None,
                 moves: Sequence[str] | None = None):
        super().__init__(message)
        self.message = message
        self.diagnostics = list(diagnostics)
        self.source = source
        self.moves = None if moves is None else list(moves)
        """The moves that reach the problem, when it happens in play and they are known."""
