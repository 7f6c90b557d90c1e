"""Settings every test shares."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fixed_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    # The CLI sizes its tables by $COLUMNS when output is not a terminal. Tests read that output, so it
    # must not depend on where they run (a CI runner, a pytest-xdist worker, a narrow terminal).
    monkeypatch.setenv("COLUMNS", "100")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The slow tests (seconds to a minute each) run first. pytest-xdist hands tests out in collection order,
    # so a slow test collected last would run alone on one worker while the other core idles at the end of
    # the run; started first, the many short tests fill the gaps around them. A stable sort keeps each
    # group's own order, and every worker computes the same order (xdist requires it).
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
