"""A machine that looks slow to the clocks: every read of a clock sees ``step`` seconds more than the last.

What a command prints must not depend on how fast or busy the machine is (issue 29): a budget that decides
what is reported counts states, steps or nodes; only a user's ``--time`` may read the clock. A test runs the
command once as it is and once with the clocks warped (each read of ``time.process_time``, ``time.monotonic``,
``time.perf_counter`` or ``time.time`` returns the true time plus ``step`` times the reads so far), and the
two outputs must be the same. A budget in seconds runs out at once under the warp, as it does, more slowly,
on a busy machine; a counted one does not notice. Deterministic, unlike a CPU hog beside the test.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

import pytest

CLOCKS = ("process_time", "monotonic", "perf_counter", "time")


def warp_clocks(monkeypatch: pytest.MonkeyPatch, step: float) -> None:
    """Make each clock of the ``time`` module run ``step`` seconds further at every read (until the test ends)."""
    for name in CLOCKS:
        real = getattr(time, name)
        reads = itertools.count(1)

        def warped(real: Callable[[], float] = real, reads: itertools.count[int] = reads) -> float:
            return real() + step * next(reads)

        monkeypatch.setattr(time, name, warped)
