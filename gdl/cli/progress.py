"""Live displays on a terminal: a progress bar for many small jobs, a spinner with node counts for a search.

Both appear only on a terminal and only after a short delay, so that a quick command prints nothing extra
and a pipe or a file gets plain output.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.spinner import Spinner

    from solver.limits import SearchStats


class DelayedProgress:
    """A rich progress bar that appears only on a terminal and only after ``delay`` seconds.

    Use as a context manager; call :meth:`update` with the work done so far.
    """

    def __init__(self, console: Any, description: str, total: float | None, delay: float = 1.0,
                 enabled: bool = True) -> None:
        self.console = console
        self.description = description
        self.total = total
        self.delay = delay
        self.enabled = enabled and console.is_terminal
        self.start = time.monotonic()
        self.progress: Any = None
        self.task: Any = None

    def __enter__(self) -> DelayedProgress:
        return self

    def update(self, completed: float, **fields: Any) -> None:
        if not self.enabled:
            return
        if self.progress is None:
            if time.monotonic() - self.start < self.delay:
                return
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                     TimeElapsedColumn(), console=self.console, transient=True)
            self.progress.start()
            self.task = self.progress.add_task(self.description, total=self.total)
        self.progress.update(self.task, completed=completed, **fields)

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()


class SearchDisplay:
    """A spinner with live node counts while a search runs; only on a terminal, after ``delay`` seconds."""

    def __init__(self, console: Any, label: str, delay: float = 0.3) -> None:
        self.console = console
        self.label = label
        self.delay = delay
        self.enabled = console.is_terminal
        self.started = time.monotonic()
        self.live: Any = None
        self.nodes = 0

    def __enter__(self) -> SearchDisplay:
        return self

    def update(self, stats: SearchStats) -> None:
        if not self.enabled:
            return
        self.nodes = stats.nodes
        if self.live is None:
            if time.monotonic() - self.started < self.delay:
                return
            from rich.live import Live

            self.live = Live(self._render(stats), console=self.console, transient=True, refresh_per_second=8)
            self.live.start()
        else:
            self.live.update(self._render(stats))

    def _render(self, stats: SearchStats) -> Spinner:
        from rich.spinner import Spinner  # (rich is loaded once the display shows: a quick command needs none)
        from rich.text import Text

        rate = stats.nodes / stats.seconds if stats.seconds > 0 else 0
        parts = [f"{stats.nodes:,} nodes", f"{rate:,.0f} nodes/s"]
        if stats.depth:
            parts.append(f"depth {stats.depth}")
        if stats.tt_size:
            parts.append(f"TT {stats.tt_size:,}")
        parts.append(f"{stats.seconds:.1f} s")
        return Spinner("dots", text=Text(f"{self.label}: ", style="bold") + Text(", ".join(parts)),
                       style="cyan")

    def __exit__(self, *exc: object) -> None:
        if self.live is not None:
            self.live.stop()
