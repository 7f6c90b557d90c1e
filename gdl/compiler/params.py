"""Pass: parameter declarations, their defaults and domains, and ``-p name=value`` overrides."""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from gdl import ast
from gdl import types as T
from gdl.compiler.base import CompilerBase
from gdl.compiler.common import CompileFailed, Ctx
from gdl.diagnostics import ParameterError, did_you_mean
from gdl.display import NamesDisplay
from gdl.types import Type

_REAL_TEXT = re.compile(r"[+-]?[0-9]{1,30}(\.[0-9]{1,30})?(/[0-9]{1,30})?")


def _real_override(name: str, text: str) -> Fraction:
    """``-p name=1/3`` or ``0.25`` for a real parameter; no exponents (``1e99999999999`` would take for ever)."""
    if not _REAL_TEXT.fullmatch(text):
        raise ParameterError(f"parameter {name} takes a number like 3, 0.25 or 1/3, not {text[:40]!r}")
    try:
        value = Fraction(text)
    except ZeroDivisionError:
        raise ParameterError(f"parameter {name}: {text!r} divides by zero") from None
    if not -10_000 <= value <= 10_000:
        raise ParameterError(f"parameter {name}={text} is out of the range this tool accepts (-10000..10000)")
    return value


class ParameterPass(CompilerBase):
    """Parameter declarations, their defaults and domains, and ``-p name=value`` overrides."""

    def declare_params(self, decls: list[ast.ParamDecl]) -> None:
        empty = Ctx([{}])
        for decl in decls:
            self.param_decls[decl.name] = decl
            try:
                domain_values = None
                if decl.domain is not None:
                    if isinstance(decl.domain, ast.SetLit) and all(
                        isinstance(i, ast.Name) and self.is_fresh(i.id) for i in decl.domain.items
                    ):
                        members = tuple(i.id for i in decl.domain.items)  # type: ignore[attr-defined]
                        self.enums[decl.name] = members
                        for index, member in enumerate(members):
                            self.enum_members[member] = (decl.name, index)
                        self.displayers[decl.name] = NamesDisplay(members)
                        domain_values = members
                    else:
                        dom = self.expr(decl.domain, empty)
                        if not dom.is_const or dom.type.kind != "seq":
                            raise self.fail("type", "a parameter's domain must be a range like `1..10`",
                                            decl.domain.span)
                        domain_values = tuple(dom.const)
                if decl.name in self.enums:
                    value, typ = self.enum_param_default(decl)
                else:
                    code = self.expr(decl.default, empty)
                    if not code.is_const:
                        raise self.fail("not-constant", "a parameter's default must be a constant", decl.default.span)
                    value, typ = code.const, code.type
                    if typ.kind == "seq":
                        value = tuple(value)
                        if not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                            raise self.fail("type", "a list parameter must hold numbers", decl.default.span)
                        typ = T.seq(T.INT)
                    elif typ.kind not in ("int", "bool", "real"):
                        raise self.fail("type", f"a parameter must be a number, a boolean, a list of numbers "
                                        f"or one of a set of names, not {typ}", decl.default.span)
                    if domain_values is not None and value not in domain_values:
                        raise self.fail("out-of-domain", f"default {value} is outside the parameter's domain",
                                        decl.default.span)
                if decl.name in self.overrides:
                    value = self.parse_override(decl.name, self.overrides.pop(decl.name), value, typ, domain_values)
                self.params[decl.name] = value
                self.param_types[decl.name] = typ
            except CompileFailed:
                continue

    def is_fresh(self, name: str) -> bool:
        return name not in self.params and name not in self.enum_members

    def enum_param_default(self, decl: ast.ParamDecl) -> tuple[Any, Type]:
        members = self.enums[decl.name]
        if not isinstance(decl.default, ast.Name) or decl.default.id not in members:
            raise self.fail("type", f"the default must be one of {', '.join(members)}", decl.default.span)
        return members.index(decl.default.id), Type("enum", decl.name)

    def parse_override(self, name: str, text: str, default: Any, typ: Type, domain: Sequence[Any] | None) -> Any:
        text = text.strip()
        try:
            if typ.kind == "enum":
                members = self.enums[name]
                if text not in members:
                    raise ParameterError(f"parameter {name} must be one of {', '.join(members)}, not {text!r}")
                return members.index(text)
            if typ.kind == "bool":
                lowered = text.lower()
                if lowered not in ("true", "false", "1", "0", "yes", "no"):
                    raise ParameterError(f"parameter {name} is a boolean (true or false), not {text!r}")
                return lowered in ("true", "1", "yes")
            if typ.kind == "seq":
                items = [t for t in text.strip("[]()").replace(" ", "").split(",") if t]
                value: Any = tuple(int(t) for t in items)
                if not value:
                    raise ParameterError(f"parameter {name} needs at least one number, e.g. 3,4,5")
                if any(v < 0 for v in value):
                    raise ParameterError(f"parameter {name} takes numbers >= 0, not {text!r}")
                if len(value) > 64 or max(value) > 10_000:
                    raise ParameterError(f"parameter {name}: {text!r} is too large")
                return value
            if typ.kind == "real":
                return _real_override(name, text)
            value = int(text)
        except ValueError as error:
            if isinstance(error, ParameterError):
                raise
            kind = "a list of numbers like 3,4,5" if typ.kind == "seq" else "a whole number"
            raise ParameterError(f"parameter {name} takes {kind}, not {text!r}") from None
        if domain is not None and value not in domain:
            raise ParameterError(f"parameter {name} must be in {min(domain)}..{max(domain)}, not {value}")
        if domain is None and not -10_000 <= value <= 10_000:
            raise ParameterError(f"parameter {name}={value} is out of the range this tool accepts (-10000..10000)")
        return value

    def check_overrides(self) -> None:
        for name in self.overrides:
            hint = did_you_mean(name, self.params)
            known = ", ".join(self.params) or "none"
            raise ParameterError(f"unknown parameter {name!r} (parameters: {known})"
                                 + (f"; {hint}" if hint else ""))
