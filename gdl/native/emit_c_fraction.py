"""Fractions in C: the ``q`` side of the expression emitter (``gdl_q``, the helpers GDL_Q* of
:mod:`gdl.native.c_runtime`), exact as Python's ``fractions.Fraction``."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from gdl.compiler import ir
from gdl.native.emit_c_values import _Q_OPS, Unsupported, _Function, _int, _pos, _values


class FractionEmitter:
    """Fractions where the rules compare them, keep them (locals, def parameters and results, aggregates) or
    hand them out (utility, heuristic). A mixin of :class:`gdl.native.emit_c_expr.ExpressionEmitter`."""

    if TYPE_CHECKING:
        p: ir.Program
        fn: _Function
        def_index: dict[str, int]

        def ex(self, node: ir.Expr | None) -> str: ...
        def iterate(self, domain: ir.Expr, var: str) -> tuple[str, str]: ...


    def q(self, node: ir.Expr | None) -> str:
        """A number as an exact fraction (``gdl_q``, C helpers GDL_Q*): what ``/`` makes, as Python's Fraction.

        Fractions are computed where the rules compare them, keep them (a local, a def's result) or hand them
        out (utility, heuristic); a whole number inside is converted."""
        if node is None:
            raise Unsupported("a missing expression")
        line, col = _pos(getattr(node, "span", None))
        if node.is_const and not isinstance(node, ir.Check):
            value = Fraction(node.const)
            return f"((gdl_q){{{_int(value.numerator)}LL, {_int(value.denominator)}LL}})"
        if node.type.kind != "real":
            return f"GDL_QINT({self.ex(node)}, {line}, {col})"
        if isinstance(node, ir.Binary) and node.op in _Q_OPS:
            return f"{_Q_OPS[node.op]}({self.q(node.left)}, {self.q(node.right)}, {line}, {col})"
        if isinstance(node, ir.Unary) and node.op == "-":
            return f"GDL_QNEG({self.q(node.operand)})"
        if isinstance(node, ir.IfExpr):
            return f"(({self.ex(node.test)}) ? ({self.q(node.then)}) : ({self.q(node.orelse)}))"
        if isinstance(node, ir.Check) and node.kind in ("number", "float"):
            return self.q(node.value)
        if isinstance(node, ir.Local) and node.var is not None:
            return self.fn.local(node.var)
        if isinstance(node, ir.Call) and node.name in self.def_index:
            return f"({{ gdl_q _d = D{self.def_index[node.name]}(s, me, {self.call_args(node)}e); " \
                   "if (e->code) goto fail; _d; })"
        if isinstance(node, ir.Evaluate):
            first = " ".join(f"(void)({self.ex(e)});" for e in node.first)
            return f"({{ {first} {self.q(node.value)}; }})"
        if isinstance(node, ir.Aggregate) and node.kind in ("sum", "min", "max"):
            return self.q_aggregate(node)
        if isinstance(node, ir.Builtin) and node.name in ("abs", "min", "max") and node.args:
            return self.q_builtin(node)
        raise Unsupported(f"a fraction computed by {type(node).__name__}")

    def q_aggregate(self, node: ir.Aggregate) -> str:
        """``sum``, ``min`` or ``max`` of fractions (the first of equal ones; no value: a rule error)."""
        assert node.var is not None and node.domain is not None and node.body is not None
        line, col = _pos(node.span)
        var = self.fn.local(node.var)
        test = f"({self.ex(node.filter)})" if node.filter is not None else "1"
        body = self.q(node.body)
        if node.domain.is_const and not _values(node.domain):
            if node.kind == "sum":
                return "((gdl_q){0, 1})"
            return f"({{ gdl_fail(e, GDL_E_RULE, {line}, {col}, 0); goto fail; (gdl_q){{0, 1}}; }})"
        head, tail = self.iterate(node.domain, var)
        if node.kind == "sum":
            return (f"({{ gdl_q _r = {{0, 1}}; {head} if (!{test}) continue; "
                    f"_r = GDL_QADD(_r, {body}, {line}, {col}); {tail} _r; }})")
        better = "<" if node.kind == "min" else ">"
        return (f"({{ gdl_q _r = {{0, 1}}; int _n = 0; {head} if (!{test}) continue; "
                f"{{ gdl_q _b = {body}; if (!_n++ || gdl_q_cmp(_b, _r) {better} 0) _r = _b; }} {tail} "
                f"if (!_n) {{ gdl_fail(e, GDL_E_RULE, {line}, {col}, 0); goto fail; }} _r; }})")

    def q_builtin(self, node: ir.Builtin) -> str:
        """``abs``, ``min`` and ``max`` of fractions (the first of equal ones, as Python's)."""
        args = [self.q(a) for a in node.args]
        if node.name == "abs" and len(args) == 1:
            # (names of their own: GDL_QNEG(_x) would declare an _x initialised from itself)
            return f"({{ gdl_q _qa = {args[0]}; _qa.n < 0 ? GDL_QNEG(_qa) : _qa; }})"
        if node.name in ("min", "max") and len(args) >= 2:
            op = "<" if node.name == "min" else ">"
            steps = " ".join(f"{{ gdl_q _qc = {a}; if (!(gdl_q_cmp(_qm, _qc) {op}= 0)) _qm = _qc; }}" for a in args[1:])
            return f"({{ gdl_q _qm = {args[0]}; {steps} _qm; }})"
        raise Unsupported(f"the built-in {node.name!r} of fractions")

    def call_args(self, node: ir.Call) -> str:
        """A def call's arguments, each followed by a comma: fractions for its fraction parameters."""
        d = self.p.defs[self.def_index[node.name]]
        return "".join(f"{self.q(a) if v.type.kind == 'real' else self.ex(a)}, "
                       for v, a in zip(d.params, node.args, strict=True))

    def number(self, node: ir.Expr) -> str:
        """A utility or heuristic value as a C double (a fraction rounded as Python's ``float()`` rounds it)."""
        if node.type.kind != "real":
            return f"(double)({self.ex(node)})"
        line, col = _pos(getattr(node, "span", None))
        return f"GDL_QDBL({self.q(node)}, {line}, {col})"

