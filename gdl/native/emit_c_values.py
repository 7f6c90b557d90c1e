"""Checked conversions of IR constants to C, and the small helpers every part of the C emitter shares."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from gdl.compiler import ir
from gdl.native.emitted import Unsupported as Unsupported  # (re-exported: the emitter raises it)

LIMIT = 1 << 62
"""Integer constants must lie strictly inside +-LIMIT (then no sum of two overflows int64 unchecked)."""
NO_TURN = -100
"""``nt`` before a move sets the turn (the next player then moves)."""

def _int(value: Any) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, Fraction):
        if value.denominator != 1:
            raise Unsupported("fractions")
        value = value.numerator
    if not isinstance(value, int):
        raise Unsupported(f"a constant of type {type(value).__name__}")
    if not -LIMIT < value < LIMIT:
        raise Unsupported("an integer constant beyond 62 bits")
    return value


def _values(domain: ir.Expr | None) -> list[int]:
    """The values of a constant domain (a range or a sequence of integers)."""
    if domain is None or not domain.is_const:
        raise Unsupported("a domain computed at run time")
    value = domain.const
    if isinstance(value, range | tuple | list | frozenset | set):
        return [_int(v) for v in value]
    raise Unsupported("a domain that is not a sequence")


_Q_OPS = {"+": "GDL_QADD", "-": "GDL_QSUB", "*": "GDL_QMUL", "/": "GDL_QDIV"}
"""The arithmetic of fractions (gdl/native/c_runtime.py)."""


def _whole(value: Any) -> bool:
    """A constant that is a whole number (an int, or a Fraction with denominator 1)."""
    return not isinstance(value, Fraction) or value.denominator == 1


def _real(value: float) -> str:
    text = repr(float(value))
    if text in ("inf", "-inf", "nan"):
        raise Unsupported("an infinite utility")
    return f"({text})"


def _pos(span: Any) -> tuple[int, int]:
    if span is None:
        return (0, 0)
    return (int(span.line), int(span.column or 0))


@dataclass
class _Function:
    """The locals one generated function declares."""

    locals: dict[int, str] = field(default_factory=dict)

    def local(self, var: ir.Var) -> str:
        """The C name of a local: ``L<id>`` (int64_t), or ``Q<id>`` (gdl_q) for a fraction."""
        return self.locals.setdefault(var.id, f"{'Q' if var.type.kind == 'real' else 'L'}{int(var.id)}")


def _c_type(type_: Any) -> str:
    """The C type of a value of a rule-file type: a fraction is a ``gdl_q``, everything else an int64_t."""
    return "gdl_q" if type_.kind == "real" else "int64_t"


def _table_dims(node: ir.Table) -> list[int]:
    """The sizes of a table's dimensions, one per index (a table that is not rectangular is not translated)."""
    dims: list[int] = []
    level: Any = node.table
    for _ in node.args:
        if not isinstance(level, tuple | list) or not level:
            raise Unsupported("a table that is not rectangular")
        dims.append(len(level))
        level = level[0]
    return dims
