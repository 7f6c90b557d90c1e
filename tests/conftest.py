"""Settings every test shares."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fixed_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    # The CLI sizes its tables by $COLUMNS when output is not a terminal. Tests read that output, so it
    # must not depend on where they run (a CI runner, a pytest-xdist worker, a narrow terminal).
    monkeypatch.setenv("COLUMNS", "100")
