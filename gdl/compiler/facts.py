"""Helpers that combine compiled expressions (short-circuit folding, disjunct terms)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from gdl import types as T
from gdl.compiler.common import Code

_SLOT_NOT_EQUAL = re.compile(r"\(s\[(\d+)\] != (\(-?\d+\)|-?\d+)\)")


_SLOT_READ = re.compile(r"\bs\[(\d+|_T)\]")


_CALL = re.compile(r"(\w+|\])\s*[(\[]")  # a call or an index (either may be a rule error), or a keyword


_KEYWORDS = frozenset({"not", "and", "or", "if", "else", "in", "is"})


def _cannot_fail(code: Code) -> bool:
    """Whether evaluating ``code`` surely raises no rule error: a constant, or only slot reads, locals,
    numbers and operators (no call, no index but a fixed slot). Such code may be left out unevaluated."""
    if code.is_const:
        return True
    rest = _SLOT_READ.sub("0", code.src)
    return "/" not in rest and "*" not in rest and all(m.group(1) in _KEYWORDS for m in _CALL.finditer(rest))


def _short_circuit(op: str, codes: list[Code], *, terms: bool = False) -> Code:
    """``codes`` joined by ``and``/``or`` evaluated left to right, folding what load time decides.

    A constant that decides the result drops the operands after it (they never run), but not the ones
    before it: those run first and may be a rule error (`x or true` still evaluates `x`). With ``terms``,
    a disjunction records its disjuncts (for the end rules' incremental check)."""
    deciding = op == "or"
    before: list[Code] = []
    for code in codes:
        if code.is_const and bool(code.const) == deciding:
            kept = [c for c in before if not _cannot_fail(c)]
            if not kept:
                return Code(repr(deciding), T.BOOL, deciding)
            return Code("(" + f" {op} ".join(c.src for c in kept) + f" {op} {deciding!r})", T.BOOL)
        if not code.is_const:
            before.append(code)
    if not before:
        return Code(repr(not deciding), T.BOOL, not deciding)
    if len(before) == 1:
        return before[0]
    return Code("(" + f" {op} ".join(c.src for c in before) + ")", T.BOOL,
                terms=_disjuncts(before) if terms else None)


def _slice_scan(conds: list[Code]) -> Code | None:
    """``all c in cell: board[c] != none`` over consecutive slots as one C-level scan: ``-1 not in s[a:b]``."""
    if len(conds) < 4:
        return None
    matches = [_SLOT_NOT_EQUAL.fullmatch(c.src) for c in conds]
    if not all(matches):
        return None
    slots = [int(m.group(1)) for m in matches]  # type: ignore[union-attr]
    values = {m.group(2) for m in matches}  # type: ignore[union-attr]
    if len(values) != 1 or slots != list(range(slots[0], slots[0] + len(slots))):
        return None
    return Code(f"({values.pop()} not in s[{slots[0]}:{slots[-1] + 1}])", T.BOOL)


_TABLE_LOOKUP = re.compile(r"(_k\d+)(?:\[[A-Za-z0-9_]+\])+")


_CALLS_DEF = re.compile(r"(?<![A-Za-z0-9_])u_\w+\(s")


_STATE_READ = re.compile(r"(?<![A-Za-z0-9_])s\[")


_CONSTANT_READ = re.compile(r"(?<![A-Za-z0-9_])s\[(\d+)\]")


_STATE_PASSED = re.compile(r"(?<![A-Za-z0-9_])s(?![A-Za-z0-9_\[])")


def _slots_read(src: str) -> set[int] | None:
    """The state slots a generated expression reads, or None if that is not known at load time
    (an index computed at run time, the turn, or the whole state passed to a function)."""
    if _STATE_PASSED.search(src):
        return None
    constant = _CONSTANT_READ.findall(src)
    if len(constant) != len(_STATE_READ.findall(src)):
        return None
    return {int(k) for k in constant}


def _disjuncts(codes: Sequence[Code]) -> tuple[str, ...]:
    out: list[str] = []
    for code in codes:
        out.extend(code.terms or (code.src,))
    return tuple(out)
