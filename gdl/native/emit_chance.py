"""Chance in the C emitter (:class:`ChanceEmitter`, a base of :class:`gdl.native.emit_c.CEmitter`).

As in the Python back end (the IR's ``StateLayout``): a move that reaches a chance point stops there
(:class:`gdl.compiler.ir.Suspend`) in a chance state -- the turn ``GDL_CHANCE``, then after the status
the point, the mover, the turn the move has set so far (-1 for none yet: Python's ``None``) and the
move's saved locals. ``g_chance`` lists the point's outcomes (codes after the move codes) with their
probabilities; applying one restores the mover, the turn so far and the locals, binds nature's pick,
runs the point's continuation and finishes the move (the next player, the end rules). Chance points
whose outcomes or probabilities are known only at run time are not translated yet.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from gdl.compiler import ir
from gdl.native.emit_c_expr import (
    ExpressionEmitter,
    MoveCode,
    OutcomeCode,
    Unsupported,
    _Function,
    _int,
    _pos,
    _real,
)
from gdl.native.emitted import NONE_TURN

UNKNOWN_BOUNDS = (-(2**62) + 1, 2**62 - 1)
"""The cell of a local kept across a chance point whose values the compiler cannot bound: every value of an int64
whose sums C checks (a cell of 64 bits; it was 32, and a value past 2^31 that Python kept was a rule error in C).
One beyond is a rule error of C's limit (``GDL_E_OVERFLOW``), as a whole number past 64 bits is."""
"""A chance state's "turn set so far" when the move has set none (Python's ``None``)."""


class ChanceEmitter(ExpressionEmitter):
    """``Suspend`` statements, ``g_chance`` and the outcomes' part of ``g_apply``."""

    layout: ir.StateLayout
    _assigned: dict[int, ir.Interval | None] | None = None  # (assigned_bounds, made once per program)

    def chance_ranges(self, ranges: list[tuple[int, int]]) -> None:
        """The ranges of a chance state's extra cells (0 in a decision state)."""
        if not self.layout.has_chance:
            return
        base = self.layout.extra_base
        ranges[base] = (0, max(len(self.p.chance) - 1, 0))
        ranges[base + 1] = (0, self.nplayers - 1)
        ranges[base + 2] = (NONE_TURN, self.nplayers - 1)
        for i in range(self.layout.max_saved):
            lo, hi = 0, 0
            for point in self.p.chance:
                if i < len(point.saved):
                    if point.saved[i].type.kind == "real":
                        raise Unsupported("a fraction kept across a chance point")
                    bounds = point.saved[i].bounds or self.assigned_bounds().get(point.saved[i].id) or UNKNOWN_BOUNDS
                    lo, hi = min(lo, _int(bounds[0])), max(hi, _int(bounds[1]))
            ranges[base + 3 + i] = (lo, hi)

    def assigned_bounds(self) -> dict[int, ir.Interval | None]:
        """Per ``let`` local, the interval of every value it is given (None where one is unknown): the range
        of its cell when a move keeps it across a chance point."""
        if self._assigned is None:
            found: dict[int, ir.Interval | None] = {}
            for stmt in _statements(self.p):
                if isinstance(stmt, (ir.Let, ir.AssignLocal)):
                    new = stmt.value.bounds
                    old = found.get(stmt.var.id, new)
                    found[stmt.var.id] = None if new is None or old is None else \
                        (min(old[0], new[0]), max(old[1], new[1]))
            self._assigned = found
        return self._assigned

    def st_Suspend(self, stmt: ir.Suspend, indent: str) -> list[str]:
        base = self.layout.extra_base
        line, col = _pos(stmt.span)
        out = [f"{indent}s[{base}] = {int(stmt.point)};", f"{indent}s[{base + 1}] = (g_cell)me;",
               f"{indent}s[{base + 2}] = (g_cell)(nt == NO_TURN ? {NONE_TURN} : nt);"]
        for i, var in enumerate(stmt.saved):
            slot = base + 3 + i
            # (a value outside bounds the compiler proved cannot be: only an unbounded local's, past C's limit)
            out.append(f"{indent}s[{slot}] = (g_cell)GDL_CHECK({self.fn.local(var)}, g_lo[{slot}], g_hi[{slot}], "
                       f"GDL_E_OVERFLOW, {line}, {col});")
        out.append(f"{indent}s[G_TURN] = GDL_CHANCE;")
        out.append(f"{indent}return 0;")
        return out

    def chance_outcomes(self, codes: list[MoveCode | OutcomeCode], parts: list[str], dispatch: list[str]) -> int:
        """Append the outcome codes, the continuation functions and their dispatch; returns the most
        outcomes of one point (``G_MAX_OUTCOMES``). ``g_chance`` is then :meth:`chance_function`."""
        self.outcome_cases: list[str] = []
        self.chance_fn = _Function()  # g_chance's locals (the weights' variables)
        most = 1
        for point in sorted(self.p.chance, key=lambda c: c.point):
            outcomes = _outcomes(point)
            most = max(most, len(outcomes))
            first = len(codes)
            cases = [f"  case {int(point.point)}:"]
            offered = 0  # (an outcome of probability 0 keeps its code but is not offered, as in Python)
            computed = any(not expr.is_const for expr in point.probabilities)
            for i, (value, label, probability) in enumerate(outcomes):
                codes.append(OutcomeCode(int(point.point), i, value, label))
                if probability is not None and probability != 0 and not computed:
                    cases.append(f"    o[{offered}] = {first + i}; p[{offered}] = {_real(probability)};")
                    offered += 1
            if point.weight is not None:
                cases.extend(self.weighted_case(point, [v for v, _, _ in outcomes if v is not None], first))
            elif computed:
                cases.extend(self.branch_case(point, first))
            else:
                cases.append(f"    return {offered};")
            self.outcome_cases.extend(cases)
            name = f"oc{int(point.point)}"
            parts.append(self.continuation_function(name, point))
            dispatch.append(f"  if (code >= {first} && code < {first + len(outcomes)}) "
                            f"return {name}(s, code - {first}, e);")
        return most

    def weighted_case(self, point: ir.ChancePoint, values: list[int], first: int) -> list[str]:
        """A chance ``var in domain weight w``: the weights computed in the state as the mover sees it (the
        turn is the mover's); as in Python, a negative weight or a zero total is a rule error, an outcome
        of weight 0 is left out, and each probability is ``w / total`` (whole weights, or exact fractions
        rounded as ``float(Fraction)``)."""
        assert point.var is not None and point.weight is not None
        self.check_kept(point, (point.weight,), "a chance weight that reads a local the move does not keep",
                        point.var.id)
        line, col = _pos(point.span)
        array = self.static_array(values)
        n = len(values)
        outer, self.fn = self.fn, self.chance_fn
        var = self.fn.local(point.var)
        prologue = self.mover_view(point)
        if point.weight.type.kind == "real":
            weight, kind, zero, add = self.q(point.weight), "gdl_q", "{0, 1}", "GDL_QADD"
            sign, total_sign, detail, total_detail = "_wt[_i].n", "_total.n", "0", "0"
            probability = f"GDL_QDBL(GDL_QDIV(_wt[_i], _total, {line}, {col}), {line}, {col})"
        else:
            weight, kind, zero, add = self.ex(point.weight), "int64_t", "0", "GDL_ADD"
            sign, total_sign, detail, total_detail = "_wt[_i]", "_total", "_wt[_i]", "_total"
            probability = "(double)_wt[_i] / (double)_total"
        self.chance_fn, self.fn = self.fn, outer
        return [
            *prologue,
            f"      {kind} _wt[{n}], _total = {zero}; int _n = 0;",
            f"      for (int _i = 0; _i < {n}; _i++) {{",
            f"        {var} = {array}[_i]; _wt[_i] = {weight};",
            f"        if ({sign} < 0) {{ gdl_fail(e, GDL_E_RULE, {line}, {col}, {detail}); goto fail; }}",
            f"        _total = {add}(_total, _wt[_i], {line}, {col});",
            "      }",
            f"      if ({total_sign} <= 0) {{ gdl_fail(e, GDL_E_RULE, {line}, {col}, {total_detail}); goto fail; }}",
            f"      for (int _i = 0; _i < {n}; _i++) if ({sign}) {{ o[_n] = {first} + _i; p[_n] = {probability}; "
            "_n++; }",
            "      return _n;",
            "    }",
        ]

    def mover_view(self, point: ir.ChancePoint) -> list[str]:
        """The opening of a chance case: ``s`` becomes the chance state as the mover sees it (the turn is the
        mover's), and the current function's locals get the values the chance state keeps."""
        base = self.layout.extra_base
        return ["    {",
                f"      g_cell _t[G_STATE_LEN]; memcpy(_t, s, sizeof _t); _t[G_TURN] = _t[{base + 1}];",
                f"      const g_cell *s = _t; int64_t me = s[{base + 1}]; (void)me;",
                *(f"      {self.fn.local(var)} = s[{base + 3 + i}];" for i, var in enumerate(point.saved))]

    @staticmethod
    def check_kept(point: ir.ChancePoint, exprs: Sequence[ir.Expr], message: str, *also: int) -> None:
        """Chance outcomes are computed from the chance state alone: the locals they read must be kept in it."""
        kept = {var.id for var in point.saved} | set(also)
        for expr in exprs:
            for node in ir.walk(expr):
                if isinstance(node, ir.Local) and node.var is not None and node.var.id not in kept:
                    raise Unsupported(message)

    def branch_case(self, point: ir.ChancePoint, first: int) -> list[str]:
        """Labelled outcomes whose probabilities are computed when the chance is reached, in the state as the
        mover sees it (the locals the move keeps across the chance restored): as in Python, every probability
        is computed first (exactly: a fraction), then a negative one or a total further than 1e-9 from 1 is a
        rule error, an outcome of probability 0 is left out, and each is offered as ``float(p)``."""
        self.check_kept(point, point.probabilities, "a chance probability that reads a local the move does not keep")
        line, col = _pos(point.span)
        outer, self.fn = self.fn, self.chance_fn
        prologue = self.mover_view(point)
        fractions = [self.q(expr) for expr in point.probabilities]
        self.chance_fn, self.fn = self.fn, outer
        n = len(fractions)
        return [
            *prologue,
            f"      gdl_q _pq[{n}], _total = {{0, 1}}; int _n = 0;",
            *(f"      _pq[{i}] = {q};" for i, q in enumerate(fractions)),
            f"      for (int _i = 0; _i < {n}; _i++)",
            f"        if (_pq[_i].n < 0) {{ gdl_fail(e, GDL_E_RULE, {line}, {col}, 0); goto fail; }}",
            f"      for (int _i = 0; _i < {n}; _i++) _total = GDL_QADD(_total, _pq[_i], {line}, {col});",
            f"      _total = GDL_QSUB(_total, ((gdl_q){{1, 1}}), {line}, {col});",
            "      if ((_total.n < 0 ? -(double)_total.n : (double)_total.n) / (double)_total.d > 1e-9)",
            f"        {{ gdl_fail(e, GDL_E_RULE, {line}, {col}, 0); goto fail; }}",
            f"      for (int _i = 0; _i < {n}; _i++) if (_pq[_i].n) {{ o[_n] = {first} + _i; "
            f"p[_n] = GDL_QDBL(_pq[_i], {line}, {col}); _n++; }}",
            "      return _n;",
            "    }",
        ]

    def chance_function(self) -> str:
        if not self.layout.has_chance:
            return ("static int g_chance(const g_cell *s, int32_t *o, double *p, gdl_error *e) "
                    "{ (void)s; (void)o; (void)p; (void)e; return 0; }")
        base = self.layout.extra_base
        self.fn = self.chance_fn
        return self.function("static int g_chance(const g_cell *s, int32_t *o, double *p, gdl_error *e)",
                             [f"  switch (s[{base}]) {{", *self.outcome_cases, "  default: break;", "  }",
                              f"  return gdl_fail(e, GDL_E_STATE, 0, 0, s[{base}]);", "fail:", "  return GDL_ERROR;"])

    def continuation_function(self, name: str, point: ir.ChancePoint) -> str:
        """``name(s, pick, e)``: nature's pick number ``pick`` at ``point``, then the rest of the move."""
        base = self.layout.extra_base
        self.fn = _Function()
        body = [f"  int64_t me = s[{base + 1}], nt = s[{base + 2}] == {NONE_TURN} ? NO_TURN : s[{base + 2}], _w = -1;",
                "  (void)_w;"]
        body += [f"  {self.fn.local(var)} = s[{base + 3 + i}];" for i, var in enumerate(point.saved)]
        extras = 3 + self.layout.max_saved
        body.append(f"  for (int _x = 0; _x < {extras}; _x++) s[{base} + _x] = 0;")
        body.append("  s[G_TURN] = (g_cell)me;")
        outcomes = _outcomes(point)
        if point.var is not None:
            values = self.static_array([v for v, _, _ in outcomes if v is not None])
            body.append(f"  {self.fn.local(point.var)} = {values}[pick];")
        if len(point.continuations) == 1:
            continuation = point.continuations[0]
            if continuation.bind is not None and continuation.bind is not point.var:
                body.append(f"  {self.fn.local(continuation.bind)} = {self.fn.local(point.var)};"
                            if point.var is not None else "  (void)0;")
            body.extend(self.stmts(continuation.body, "  "))
        else:
            for i, continuation in enumerate(point.continuations):
                body.append(f"  {'if' if i == 0 else '} else if'} (pick == {i}) {{")
                body.extend(self.stmts(continuation.body, "    "))
            body.append("  }")
        body.extend(self.finish_lines(False))
        return self.function(f"static int {name}(g_cell *s, int64_t pick, gdl_error *e)",
                             [*body, "fail:", "  return GDL_ERROR;"])

    def finish_lines(self, single_write: bool = False) -> list[str]:  # (defined by CEmitter)
        raise NotImplementedError


def _outcomes(point: ir.ChancePoint) -> list[tuple[int | None, str | None, Any]]:
    """(value, label, probability) of each outcome, in the Python back end's order."""
    if point.var is not None:
        if point.distribution is not None:
            return [(_int(value), None, probability) for value, probability in point.distribution]
        if point.weight is None or point.domain is None or not point.domain.is_const:
            raise Unsupported("a chance distribution computed at run time")
        return [(_int(value), None, None) for value in point.domain.const]  # (the weights are computed)
    probabilities = [expr.const if expr.is_const else None for expr in point.probabilities]  # (None: computed)
    return [(None, label, probability) for label, probability in zip(point.labels, probabilities, strict=True)]


def _statements(program: ir.Program) -> Iterator[ir.Stmt]:
    """Every statement of the program's moves, setup and chance continuations, nested ones included."""
    stack: list[Any] = [program.setup.body]
    for move in program.moves:
        if move.effect is not None:
            stack.append(move.effect.body)
        for _, _, effect in move.specialised or ():
            stack.append(effect.body)
    for point in program.chance:
        stack.extend(c.body for c in point.continuations)
    while stack:
        item = stack.pop()
        if isinstance(item, ir.Stmt):
            yield item
            stack.extend(getattr(item, name) for name in ("branches", "orelse", "body") if hasattr(item, name))
        elif isinstance(item, tuple):
            stack.extend(x for x in item if isinstance(x, (ir.Stmt, tuple)))
