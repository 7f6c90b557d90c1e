"""Wait until a child process is busy working, not merely started (for the Ctrl-C tests).

A fixed sleep before the interrupt is not enough on a loaded machine: the command may still be
importing its modules, and the test would then check Ctrl-C during start-up instead of during a search.
The child's own CPU time (``/proc/<pid>/stat``) says how far it got, whatever the load.
"""

from __future__ import annotations

import os
import subprocess
import time

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds used so far by process ``pid`` (0.0 where /proc is not available)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime and stime, fields 14 and 15 of stat(5)


def wait_until_busy(process: subprocess.Popen | int, cpu: float = 2.0, timeout: float = 120.0) -> None:
    """Return once the process has used ``cpu`` CPU seconds (or has ended, or ``timeout`` wall seconds passed)."""
    pid = process if isinstance(process, int) else process.pid
    deadline = time.monotonic() + timeout
    if not os.path.exists(f"/proc/{pid}"):
        time.sleep(cpu)  # no /proc: a plain pause is the best there is
        return
    while time.monotonic() < deadline:
        if not isinstance(process, int) and process.poll() is not None:
            return
        if cpu_seconds(pid) >= cpu:
            return
        time.sleep(0.05)
