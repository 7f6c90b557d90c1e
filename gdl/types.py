"""The static types of the rule language and how their values are encoded.

Every value is stored as a small int in the flat state tuple: booleans as
``False``/``True``, players, cells, directions and enumeration members as
their index, and ``none`` as ``-1``.
"""

from __future__ import annotations

from dataclasses import dataclass

ENTITY_KINDS = ("player", "enum", "cell", "dir")
NONE_VALUE = -1


@dataclass(frozen=True, slots=True)
class Type:
    kind: str  # int bool real player enum cell dir none str seq
    name: str = ""  # the enumeration's name, for kind "enum"
    optional: bool = False  # may be none (entities only)
    elem: Type | None = None  # element type, for kind "seq"

    def __str__(self) -> str:
        if self.kind == "seq":
            return f"a set of {self.elem.plural() if self.elem else 'values'}"
        base = {
            "int": "a whole number",
            "real": "a fractional number",
            "bool": "a boolean",
            "player": "a player",
            "cell": "a cell",
            "dir": "a direction",
            "none": "none",
            "str": "a string",
            "enum": f"a {self.name}",
        }.get(self.kind, self.kind)
        return base + (" or none" if self.optional else "")

    def plural(self) -> str:
        if self.kind == "seq":
            return "sets"
        return {"int": "whole numbers", "real": "fractional numbers", "bool": "booleans", "player": "players",
                "cell": "cells", "dir": "directions", "enum": f"{self.name} values"}.get(self.kind, "values")

    @property
    def is_number(self) -> bool:
        return self.kind in ("int", "real")

    @property
    def is_entity(self) -> bool:
        return self.kind in ENTITY_KINDS

    def with_optional(self, optional: bool = True) -> Type:
        return Type(self.kind, self.name, optional, self.elem)


INT = Type("int")
REAL = Type("real")
BOOL = Type("bool")
PLAYER = Type("player")
CELL = Type("cell")
DIR = Type("dir")
NONE = Type("none")
STR = Type("str")
COLUMN = Type("int", "column")
"""An index of the board's columns (``x: column``): a whole number that reads and prints as the column's letter."""
ROW = Type("int", "row")
"""An index of the board's rows (``r: row``): a whole number that reads and prints as the row's number (from 1)."""
COLUMN_DISPLAY = "@column"  # keys of the compiler's displayers (no enum can have these names)
ROW_DISPLAY = "@row"


def seq(elem: Type) -> Type:
    return Type("seq", elem=elem)


def assignable(value: Type, target: Type) -> bool:
    """Can a value of type ``value`` be stored where ``target`` is expected?"""
    if value.kind == "none":
        return target.optional or target.kind == "none"
    if target.kind == "real":
        return value.kind in ("int", "real")
    if value.kind != target.kind:
        return False
    if value.kind == "enum" and value.name != target.name:
        return False
    if value.kind == "seq":
        return value.elem is None or target.elem is None or assignable(value.elem, target.elem)
    return not (value.optional and not target.optional)


def comparable(a: Type, b: Type) -> bool:
    """May ``a == b`` be asked?"""
    if a.kind == "none":
        return b.is_entity or b.kind == "none"
    if b.kind == "none":
        return a.is_entity
    if a.is_number and b.is_number:
        return True
    if a.kind != b.kind:
        return False
    return a.kind != "enum" or a.name == b.name


def unify(a: Type, b: Type) -> Type | None:
    """The type of ``x if c else y`` with branches of types a and b, or None."""
    if a.kind == "none" and b.is_entity:
        return b.with_optional()
    if b.kind == "none" and a.is_entity:
        return a.with_optional()
    if a.is_number and b.is_number:
        return REAL if "real" in (a.kind, b.kind) else INT
    if comparable(a, b) and a.kind == b.kind:
        return a.with_optional(a.optional or b.optional)
    return None
