"""What commands print besides boards: ``--json`` objects and the labels of games and values."""

from __future__ import annotations

import json
import math
import numbers
from fractions import Fraction
from typing import Any

from gdl.cli.errors import Problem
from gdl.runtime import CompiledGame

SCHEMA_VERSION = 1
"""The version of every ``--json`` output's layout (docs/json.md); raised when a field changes meaning."""


def dump_json(data: Any, indent: int | None = None) -> str:
    """Strict JSON: ``schema_version`` first, and no ``Infinity`` or ``NaN`` (a ``ValueError`` if one slips in)."""
    if isinstance(data, dict):
        data = {"schema_version": SCHEMA_VERSION, **data}
    return json.dumps(data, indent=indent, allow_nan=False)


def error_json(code: str, message: str, problem: Problem | None = None) -> str:
    """The one object a ``--json`` command prints on failure: ``{"schema_version": 1, "error": {...}}``."""
    error: dict[str, Any] = {"code": code, "message": message}
    if problem is not None:
        first = next((d for d in problem.diagnostics if d.is_error), None)
        if first is not None:  # its code, message and place
            error.update({k: v for k, v in first.to_json().items() if k != "severity"})
        error["moves"] = problem.moves
        error["diagnostics"] = [d.to_json() for d in problem.diagnostics]
    return dump_json({"error": error})


def game_label(game: CompiledGame) -> str:
    params = game.parameters
    if not params:
        return game.name
    return f"{game.name}(" + ", ".join(f"{k}={param_text(v)}" for k, v in params.items()) + ")"


def param_text(value: Any) -> str:
    if isinstance(value, tuple | list):
        return "[" + ",".join(map(str, value)) + "]"
    return str(value)


def json_value(value: Any) -> Any:
    """Parameters and utilities as plain JSON (tuples become lists, whole floats stay floats)."""
    if isinstance(value, tuple | list):
        return [json_value(v) for v in value]
    if isinstance(value, numbers.Rational) and not isinstance(value, int):
        value = float(value)  # a Fraction utility or parameter: JSON has no fractions
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Fraction):  # numbers are one kind in JSON: a fraction is a float
        return float(value)
    return value
