"""The Python emitter of the IR's expressions: an :class:`ir.Expr <gdl.compiler.ir.Expr>` as Python text. It is
the only writer of expression text: the passes build the IR and its facts and never see an expression's text
(the statement emitter asks for it), so no fact can be learned from generated text (the architecture issue).

What the IR does not say by itself comes from a small context (:class:`PythonNames`): how a constant is named
in the generated module's namespace (``CompilerBase.constant``), the span id a rule error reports, the Python
name of a local (its binder tag inside an inlined def) and of a def, whether the rules are compiled checked,
and the board. Special forms are recognised from the IR's structure: the flat slot of an array read
(``s[3 + L_c * 4]``), the scan of consecutive slots an unrolled ``all`` becomes (``(-1) not in s[0:9]``, in the
IR a conjunction of comparisons marked ``scan``), ``int(a // b)`` of a real floor division.

Each node's text is written once and kept (:attr:`PythonExpressionEmitter.memo`): a parent's text reuses its
children's, so writing nested code stays linear in its size. ``tests/test_emit_py.py`` keeps the generated
modules of a fixed set of rule files byte for byte, and checks that the passes build no expression text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from gdl import types as T
from gdl.compiler import ir
from gdl.diagnostics import Span


class Unsupported(Exception):
    """A node this emitter does not write."""


class PythonNames(Protocol):
    """What the emitter asks of the generated module it writes into (the IR does not say it)."""

    checked: bool
    """The rules are compiled checked (``gdl check``): every ``//`` and ``%`` tests its divisor at run time."""
    board: Any
    """The board (:class:`gdl.board.Board`), when the rules declare one."""

    def constant(self, value: Any) -> str:
        """The text naming ``value`` in the module (``3``, ``(-1)``, ``True``, or a global such as ``_k4``)."""
        ...

    def span_id(self, span: Span) -> int:
        """The id a rule error raised at ``span`` reports (an index into the program's spans)."""
        ...

    def local_name(self, var: ir.Var) -> str:
        """The Python name of a local (``L_x``; ``L3_x`` for a binder of the third inlined def)."""
        ...

    def def_name(self, name: str) -> str:
        """The Python name of the function of the def ``name`` (one that was not inlined)."""
        ...


_BOOL_DOMAIN = (False, True)
"""The value of the name ``bool`` (written out, not a global: ``(False, True)``)."""

SCAN_LENGTH = 4
"""The fewest consecutive slot tests an unrolled ``all`` writes as one scan (gdl.compiler.facts._slice_scan)."""


def _is_plain(node: ir.Expr, op: str) -> bool:
    """A lowering's own arithmetic (no span, unchecked, a constant on the right): a flat slot's terms."""
    return (isinstance(node, ir.Binary) and node.op == op and node.span is None and not node.checked
            and isinstance(node.right, ir.Const))


_RANGE_CHECKS = {"index": "_ix", "domain": "_dom"}
"""The run-time helpers of the checks of a value against an inclusive range (gdl.rule_helpers)."""
_VALUE_CHECKS = {"some": "_some", "number": "_num", "float": "_flt"}
"""... and of the checks of a value alone."""


class PythonExpressionEmitter:
    """Writes IR expressions as the Python back end's source text."""

    def __init__(self, names: PythonNames) -> None:
        self.names = names
        self.memo: dict[ir.Expr, str] = {}
        """The text of each node written so far (by identity: a node is written once, however often used)."""
        self.emitters: dict[type, Callable[[Any], str]] = {
            ir.Const: self.const, ir.Local: self.local, ir.Slot: self.slot, ir.Turn: lambda _: "s[_T]",
            ir.Mover: lambda _: "me", ir.NoMoves: lambda _: "(not _legal(s))", ir.Unary: self.unary,
            ir.Binary: self.binary, ir.Compare: self.compare, ir.BoolOp: self.bool_op, ir.IfExpr: self.if_expr,
            ir.Range: self.range, ir.SeqLit: self.seq_lit, ir.Index: self.index, ir.Table: self.table,
            ir.Builtin: self.builtin, ir.Check: self.check, ir.Aggregate: self.aggregate,
            ir.Evaluate: self.evaluate, ir.Call: self.call,
        }

    def expr(self, node: ir.Expr) -> str:
        """The Python text of ``node``."""
        text = self.memo.get(node)
        if text is None:
            emit = self.emitters.get(type(node))
            if emit is None:
                raise Unsupported(type(node).__name__)
            text = self.memo[node] = emit(node)
        return text

    def sid(self, span: Span | None) -> str:
        assert span is not None  # (every node that may raise a rule error has the span it reports)
        return str(self.names.span_id(span))

    # ------------------------------------------------------------------------------------- leaves

    def const(self, node: ir.Const) -> str:
        if node.type == T.seq(T.BOOL) and type(node.value) is tuple and node.value == _BOOL_DOMAIN:
            return "(False, True)"
        return self.names.constant(node.value)

    def local(self, node: ir.Local) -> str:
        assert node.var is not None
        return self.names.local_name(node.var)

    def slot(self, node: ir.Slot) -> str:
        assert node.index is not None
        return f"s[{self.flat_slot(node.index)}]"

    def flat_slot(self, index: ir.Expr) -> str:
        """``offset + term + ...``: the offset (left out when 0) then each index's term, as ExpressionPass.slot."""
        if isinstance(index, ir.Const):
            return str(index.value)
        if not self.flat_chain(index):
            return self.expr(index)  # (not a flat slot: a back end built it otherwise)
        terms: list[ir.Expr] = []
        offset = index
        while isinstance(offset, ir.Binary):
            assert offset.right is not None and offset.left is not None
            terms.append(offset.right)
            offset = offset.left
        assert isinstance(offset, ir.Const)
        parts = [str(offset.value)] if offset.value else []
        return " + ".join(parts + [self.slot_term(t) for t in reversed(terms)])

    @staticmethod
    def flat_chain(node: ir.Expr) -> bool:
        """Whether ``node`` is a flat slot: unchecked ``+`` without a span down to the offset, a constant."""
        while isinstance(node, ir.Binary) and node.op == "+" and node.span is None and not node.checked:
            assert node.left is not None
            node = node.left
        return isinstance(node, ir.Const)

    def slot_term(self, term: ir.Expr) -> str:
        """One index's term: ``(_ix(i, lo, hi, sid) - low) * stride``, each part only when needed."""
        stride = None
        if _is_plain(term, "*"):
            assert isinstance(term, ir.Binary) and isinstance(term.right, ir.Const) and term.left is not None
            stride, term = term.right.value, term.left
        if _is_plain(term, "-"):
            assert isinstance(term, ir.Binary) and isinstance(term.right, ir.Const) and term.left is not None
            text = f"({self.expr(term.left)} - {term.right.value})"
        else:
            text = self.expr(term)
        return text if stride is None else f"{text} * {stride}"

    # ---------------------------------------------------------------------------------- operators

    def unary(self, node: ir.Unary) -> str:
        assert node.operand is not None
        return f"(-{self.expr(node.operand)})" if node.op == "-" else f"(not {self.expr(node.operand)})"

    def binary(self, node: ir.Binary) -> str:
        assert node.left is not None and node.right is not None
        if node.chained:
            return self.sum_chain(node)
        if self.flat_chain(node):  # (a flat slot: `offset + term + ...`, no parentheses)
            return self.flat_slot(node)
        left, right, op = self.expr(node.left), self.expr(node.right), node.op
        if not node.checked:
            return f"({left} {op} {right})"
        if op == "/" or (op in ("//", "%") and (self.names.checked or not isinstance(node.right, ir.Const))):
            return f"_arith({left}, {right}, {op!r}, {self.sid(node.span)})"  # (the divisor may be 0)
        return f"_big({left} {op} {right}, {self.sid(node.span)})"  # (the result may be huge)

    def sum_chain(self, node: ir.Binary) -> str:
        """A sum of many terms written as one, ``(a + b + c)`` (AggregatePass.total): a chain of ``chained`` links."""
        assert node.right is not None
        links = [node.right]
        link = node
        while link.chained:
            above = link.left
            assert isinstance(above, ir.Binary) and above.right is not None
            links.append(above.right)
            link = above
        assert link.left is not None
        return "(" + " + ".join(self.expr(t) for t in [link.left, *reversed(links)]) + ")"

    def compare(self, node: ir.Compare) -> str:
        return "(" + self.expr(node.operands[0]) + "".join(
            f" {op} {self.expr(b)}" for op, b in zip(node.ops, node.operands[1:], strict=True)) + ")"

    def bool_op(self, node: ir.BoolOp) -> str:
        scan = self.slice_scan(node)
        if scan is not None:
            return scan
        if node.implication:
            test, body = node.operands
            assert isinstance(test, ir.Unary) and test.operand is not None
            return f"(not {self.expr(test.operand)} or {self.expr(body)})"
        return "(" + f" {node.op} ".join(self.expr(o) for o in node.operands) + ")"

    def slice_scan(self, node: ir.BoolOp) -> str | None:
        """``value not in s[a:b]`` for a conjunction of ``s[i] != value`` over consecutive fixed slots (one an
        unrolled ``all`` built, marked ``scan``: the same conjunction written out in the rules keeps its ``and``s)."""
        if not node.scan or node.op != "and" or len(node.operands) < SCAN_LENGTH:
            return None
        slots: list[int] = []
        values: set[str] = set()
        for term in node.operands:
            if not (isinstance(term, ir.Compare) and term.ops == ("!=",)):
                return None
            read, value = term.operands
            if not (isinstance(read, ir.Slot) and isinstance(read.index, ir.Const) and isinstance(value, ir.Const)
                    and type(value.value) is int and abs(value.value) < 10**15):
                return None
            slots.append(int(read.index.value))
            values.add(self.expr(value))
        if len(values) != 1 or slots != list(range(slots[0], slots[0] + len(slots))):
            return None
        return f"({values.pop()} not in s[{slots[0]}:{slots[-1] + 1}])"

    def if_expr(self, node: ir.IfExpr) -> str:
        assert node.test is not None and node.then is not None and node.orelse is not None
        return f"({self.expr(node.then)} if {self.expr(node.test)} else {self.expr(node.orelse)})"

    # ---------------------------------------------------------------------------------- sequences

    def range(self, node: ir.Range) -> str:
        assert node.lo is not None and node.hi is not None
        return f"range({self.expr(node.lo)}, {self.expr(node.hi)} + 1)"

    def seq_lit(self, node: ir.SeqLit) -> str:
        return "(" + "".join(self.expr(item) + ", " for item in node.items) + ")"

    def index(self, node: ir.Index) -> str:
        assert node.seq is not None and node.index is not None
        return f"_at({self.expr(node.seq)}, {self.expr(node.index)}, {self.sid(node.span)})"

    def table(self, node: ir.Table) -> str:
        """``table[a][b]``, a checked argument as ``_board_arg(a, size, name, sid)`` (BuiltinPass's sizes)."""
        data = node.table
        src = self.names.constant(data)
        size = len(data)
        spans = node.arg_spans or (node.span,) * len(node.args)
        for arg, checked, span in zip(node.args, node.checked, spans, strict=True):
            if checked:
                src += (f"[_board_arg({self.expr(arg)}, {size}, {self.names.constant(node.name)}, "
                        f"{self.sid(span)})]")
            else:
                src += f"[{self.expr(arg)}]"
            size = len(data[0]) if size and isinstance(data[0], tuple | list) else size
        return src

    def builtin(self, node: ir.Builtin) -> str:
        name, args = node.name, node.args
        if name == "int":
            (arg,) = args
            if isinstance(arg, ir.Binary) and not arg.checked and arg.op == "//":
                assert arg.left is not None and arg.right is not None
                return f"int({self.expr(arg.left)} // {self.expr(arg.right)})"  # (floor of reals)
            return f"int({self.expr(arg)})"
        if name in ("min_of", "max_of"):
            return f"_{name}({self.expr(args[0])}, {self.sid(node.span)})"
        if name == "next":
            bounds = args[0].bounds
            if bounds is not None and bounds[0] < 0:  # `turn` in a utility: never a negative index
                return f"_at(_NEXT, {self.expr(args[0])}, {self.sid(node.span)})"
            return f"_NEXT[{self.expr(args[0])}]"
        if name == "connected":
            neighbors = self.names.constant(self.names.board.neighbors)
            return f"_connected({neighbors}, " + ", ".join(self.expr(a) for a in args) + ")"
        if name == "cell_at":
            return f"{self.names.constant(self.names.board.cell_at)}({', '.join(self.expr(a) for a in args)})"
        if name in ("min", "max", "abs", "len", "sum"):
            return f"{name}({', '.join(self.expr(a) for a in args)})"
        raise Unsupported(f"Builtin {name}")

    def check(self, node: ir.Check) -> str:
        assert node.value is not None
        value, sid = self.expr(node.value), self.sid(node.span)
        if node.kind in _RANGE_CHECKS:
            return f"{_RANGE_CHECKS[node.kind]}({value}, {node.lo}, {node.hi}, {sid})"
        if node.kind == "among":
            return f"_among({value}, {self.names.constant(node.allowed)}, {sid})"
        if node.kind in _VALUE_CHECKS:
            return f"{_VALUE_CHECKS[node.kind]}({value}, {sid})"
        raise Unsupported(f"Check {node.kind}")

    # ------------------------------------------------------------------------- aggregates, calls

    def aggregate(self, node: ir.Aggregate) -> str:
        """The run-time loop of AggregatePass.general_quantifier, as a generator expression."""
        assert node.var is not None and node.domain is not None and node.body is not None
        name = self.names.local_name(node.var)
        domain = self.expr(node.domain)
        if node.poll:  # (the domain's span: the loop's budget error points there)
            domain = f"_poll({domain}, {self.sid(node.domain_span)})"
        loop = f"for {name} in {domain}"
        body = self.expr(node.body)
        filt = self.expr(node.filter) if node.filter is not None else None
        cond = f" if {filt}" if filt is not None else ""
        both = f" if {filt} and {body}" if filt is not None else f" if {body}"
        kind = node.kind
        if kind == "select":
            return f"tuple({name} {loop}{both})"
        if kind in ("any", "all", "sum"):
            return f"{kind}({body} {loop}{cond})"
        if kind == "count":
            return f"sum(1 {loop}{both})"
        if kind == "first":
            return f"next(({name} {loop}{both}), -1)"
        return f"_{kind}_of(({body} {loop}{cond}), {self.sid(node.span)})"

    def evaluate(self, node: ir.Evaluate) -> str:
        assert node.value is not None
        return f"({', '.join(self.expr(a) for a in node.first)}, {self.expr(node.value)})[-1]"

    def call(self, node: ir.Call) -> str:
        return f"{self.names.def_name(node.name)}(s{''.join(', ' + self.expr(a) for a in node.args)})"
