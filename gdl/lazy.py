"""Packages whose names are imported on first use (PEP 562), so that running a kept program or a short
command does not import the parser, the compiler and the checker it does not need."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any


def lazy_names(package: dict[str, Any], modules: Sequence[str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` (its ``globals()``) finding each name of its ``__all__`` in
    the first of ``modules`` that has it, imported then (tests/test_architecture.py checks every name)."""

    def __getattr__(name: str) -> Any:
        if name not in package["__all__"]:
            raise AttributeError(f"module {package['__name__']!r} has no attribute {name!r}")
        for module in modules:
            found = importlib.import_module(module)
            if hasattr(found, name):
                package[name] = getattr(found, name)
                return package[name]
        raise AttributeError(f"module {package['__name__']!r} lists {name!r} but none of {modules} has it")

    return __getattr__
