"""Settings every test shares."""

from __future__ import annotations

import os

import pytest

# The C back end's builds at -O0 (gdl/native/build.py: OPTIMISATION): the suite builds some 170 modules (each
# bundled game, the docs' and the corpora's rule files, at several parameters), and -O0 compiles them in a
# seventh of the time of -O2 (Connect-Four: 0.55 s against 3.8 s) with the same semantics; the sanitizer builds
# are -O0 too, and a test builds at -O2 (test_native_build.py). The benchmarks, and users, build at -O2. Set before
# any test imports gdl.native.build; subprocesses inherit it.
os.environ.setdefault("GDL_NATIVE_OPT", "-O0")


@pytest.fixture(autouse=True)
def _fixed_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    # The CLI sizes its tables by $COLUMNS when output is not a terminal. Tests read that output, so it
    # must not depend on where they run (a CI runner, a pytest-xdist worker, a narrow terminal).
    monkeypatch.setenv("COLUMNS", "100")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The slow tests (seconds to a minute each) run first. pytest-xdist hands tests out in collection order,
    # one at a time (`--dist load --maxschedchunk 1` in pyproject.toml: a worker is never given a queue of
    # tests it must finish while the other waits), so a slow test collected last would run alone on one
    # worker at the end while the other core idles; started first, the many short tests fill the gaps
    # around them. A stable sort keeps each group's own order, and every worker computes the same order
    # (xdist requires it).
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
