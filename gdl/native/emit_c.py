"""The C emitter: an :class:`gdl.compiler.ir.Program` as one C source implementing the game ABI.

A second emitter, not a second compiler: it reads only the checked IR (node kinds, constants that the
compiler computed, the state layout) and writes C. Nothing from the rule file's text reaches the
source: identifiers are mangled from numbers (``L12`` for the local with id 12, ``mv3`` for move 3),
constants are integers (checked to fit 62 bits) or floats printed with ``repr``, and rule-file
positions appear only as line and column numbers in error reports.

Safety, independently of what the IR proves: every state read and write goes through a slot index
that is either a constant inside its variable's slots or checked at run time against them; every
value written into the state is checked against the slot's declared range (so states always hold
in-range cells, which :mod:`solver.native` relies on); arithmetic is checked for overflow and division
by zero. A failed check returns ``GDL_ERROR`` with the rule file's line and column.

Supported today (anything else raises :class:`Unsupported`, and ``backend="auto"`` falls back to
Python): integer, boolean, player, cell and none values; constants, locals, slot reads (fixed or
computed index), ``turn``, ``mover``, unary and binary arithmetic (``+ - * // %``), comparison chains
(with ``in`` over constant sequences), ``and or not``, conditional expressions, run-time checks, ``no_moves``,
aggregates over constant domains, constant tables, ``abs min max opponent``; statements: slot and local
assignment, ``let``, ``turn =``, ``if``, ``for`` over constant domains, ``break``; moves with parameters
over constant domains, ``otherwise`` moves, setup, end rules, fixed utilities per end status, a
``utility`` and a ``heuristic`` per player; symmetric keys from slot maps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from typing import Any

from gdl.compiler import ir
from gdl.native.c_runtime import RUNTIME

LIMIT = 1 << 62
"""Integer constants must lie strictly inside +-LIMIT (then no sum of two overflows int64 unchecked)."""
NO_TURN = -100
"""``nt`` before a move sets the turn (the next player then moves)."""


class Unsupported(Exception):
    """A construct the C emitter does not translate yet (the message names it)."""


@dataclass(frozen=True)
class SymmetryMap:
    """A symmetry as it acts on a decision state's first ``len(src)`` slots: ``image[j] = vmap(state[src[j]])``."""

    src: tuple[int, ...]
    value_maps: tuple[tuple[int, dict[int, int]], ...] = ()


@dataclass(frozen=True)
class MoveCode:
    """Move code ``code`` is move ``move`` (IR index) with parameter values ``args``."""

    move: int
    args: tuple[int, ...]


@dataclass
class Emitted:
    source: str
    codes: list[MoveCode]
    state_len: int
    ranges: list[tuple[int, int]]


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
        return self.locals.setdefault(var.id, f"L{int(var.id)}")


class CEmitter:
    def __init__(self, program: ir.Program, symmetries: Sequence[SymmetryMap] = ()) -> None:
        self.p = program
        self.layout = program.layout
        if self.layout.has_chance or program.chance:
            raise Unsupported("chance")
        if program.after_every:
            raise Unsupported("`after every`")
        self.vars = {v.name: v for v in self.layout.vars}
        self.nplayers = len(program.players)
        self.symmetries = list(symmetries)
        self.statics: list[str] = []
        self.static_names: dict[tuple[int, ...], str] = {}
        self.fn = _Function()
        self.nstatus = max(len(program.end_utilities), 1)
        self.def_index = {d.name: i for i, d in enumerate(program.defs)}

    # ------------------------------------------------------------------ layout

    def slot_ranges(self) -> list[tuple[int, int]]:
        ranges = [(0, 0)] * self.layout.max_slots
        for var in self.layout.vars:
            for i in range(var.offset, var.offset + var.size):
                ranges[i] = (_int(var.lo), _int(var.hi))
        ranges[self.layout.turn_slot] = (ir.TERMINAL, self.nplayers - 1)
        ranges[self.layout.status_slot] = (0, self.nstatus - 1)
        return ranges

    def _var_of_slot(self, name: str) -> ir.StateSlotVar:
        var = self.vars.get(name)
        if var is None:
            raise Unsupported(f"a write to state variable #{len(self.vars)} that the layout does not list")
        return var

    # ------------------------------------------------------------------ expressions

    def ex(self, node: ir.Expr | None) -> str:
        if node is None:
            raise Unsupported("a missing expression")
        if node.is_const and not isinstance(node, ir.Check):
            value = node.const
            if value is None:
                return "((int64_t)-1)"
            if isinstance(value, range | tuple | list):
                raise Unsupported("a sequence value")
            return f"((int64_t){_int(value)}LL)"
        method = getattr(self, f"ex_{type(node).__name__}", None)
        if method is None:
            raise Unsupported(f"the expression {type(node).__name__}")
        return str(method(node))

    def ex_Local(self, node: ir.Local) -> str:
        assert node.var is not None
        return self.fn.local(node.var)

    def ex_Slot(self, node: ir.Slot) -> str:
        var = self._var_of_slot(node.var)
        return f"((int64_t)s[{self.slot_index(var, node.index, None)}])"

    def slot_index(self, var: ir.StateSlotVar, index: ir.Expr | None, span: Any) -> str:
        """A C expression of a slot index inside ``var``'s slots: a constant proved there, or checked."""
        lo, hi = var.offset, var.offset + var.size - 1
        if index is not None and index.is_const:
            i = _int(index.const)
            if not lo <= i <= hi:
                raise Unsupported("a constant slot outside its variable (the checker should have refused it)")
            return str(i)
        line, col = _pos(span if span is not None else getattr(index, "span", None))
        return f"GDL_CHECK(({self.ex(index)}), {lo}, {hi}, GDL_E_INDEX, {line}, {col})"

    def ex_Turn(self, node: ir.Turn) -> str:
        return "((int64_t)s[G_TURN])"

    def ex_Mover(self, node: ir.Mover) -> str:
        return "me"

    def ex_NoMoves(self, node: ir.NoMoves) -> str:
        # the player to move (already the next one, in a finish) has no legal move
        return ("({ int32_t _mv[G_MAX_MOVES]; int _n = g_legal(s, _mv, e); if (_n < 0) goto fail; "
                "(int64_t)(_n == 0); })")

    def ex_Unary(self, node: ir.Unary) -> str:
        inner = self.ex(node.operand)
        if node.op == "not":
            return f"((int64_t)!({inner}))"
        if node.op == "-":
            return f"GDL_NEG({inner}, {', '.join(map(str, _pos(None)))})"
        raise Unsupported(f"the unary operator {node.op!r}")

    def ex_Binary(self, node: ir.Binary) -> str:
        ops = {"+": "GDL_ADD", "-": "GDL_SUB", "*": "GDL_MUL", "//": "GDL_FLOORDIV", "%": "GDL_MOD"}
        # A left-nested chain (an unrolled sum: ((a + b) + c) + ...) is accumulated statement by statement:
        # nested checked operations as deep as the chain made C compilers take minutes.
        chain: list[ir.Binary] = []
        left: ir.Expr | None = node
        while isinstance(left, ir.Binary):
            if left.op not in ops:
                raise Unsupported(f"the operator {left.op!r}")
            chain.append(left)
            left = left.left
        first = self.ex(left)
        if len(chain) == 1:
            line, col = _pos(node.span)
            return f"{ops[node.op]}({first}, {self.ex(node.right)}, {line}, {col})"
        steps = []
        for link in reversed(chain):
            line, col = _pos(link.span)
            steps.append(f"_acc = {ops[link.op]}(_acc, {self.ex(link.right)}, {line}, {col});")
        return f"({{ int64_t _acc = {first}; {' '.join(steps)} _acc; }})"

    def ex_Compare(self, node: ir.Compare) -> str:
        parts = []
        operands = list(node.operands)
        for op, left, right in zip(node.ops, operands, operands[1:], strict=False):
            if op in ("in", "not in"):
                test = self.membership(self.ex(left), right)
                parts.append(test if op == "in" else f"(!{test})")
            elif op in ("==", "!=", "<", "<=", ">", ">="):
                parts.append(f"({self.ex(left)} {op} {self.ex(right)})")
            else:
                raise Unsupported(f"the comparison {op!r}")
        return "((int64_t)(" + " && ".join(parts) + "))"

    def membership(self, value: str, seq: ir.Expr) -> str:
        if not seq.is_const:
            raise Unsupported("`in` a sequence computed at run time")
        const = seq.const
        if isinstance(const, range) and const.step == 1:
            return f"({{ int64_t _m = {value}; _m >= {_int(const.start)} && _m < {_int(const.stop)}; }})"
        items = [_int(v) for v in const]
        if not items:
            return "0"
        name = self.static_array(items)
        return f"gdl_member({value}, {name}, {len(items)})"

    def ex_BoolOp(self, node: ir.BoolOp) -> str:
        if node.op not in ("and", "or"):
            raise Unsupported(f"the boolean operator {node.op!r}")
        joiner = " && " if node.op == "and" else " || "
        return "((int64_t)(" + joiner.join(f"({self.ex(o)})" for o in node.operands) + "))"

    def ex_IfExpr(self, node: ir.IfExpr) -> str:
        return f"(({self.ex(node.test)}) ? ({self.ex(node.then)}) : ({self.ex(node.orelse)}))"

    def ex_Check(self, node: ir.Check) -> str:
        line, col = _pos(node.span)
        value = self.ex(node.value)
        if node.kind in ("index", "domain"):
            code = "GDL_E_INDEX" if node.kind == "index" else "GDL_E_DOMAIN"
            return f"GDL_CHECK({value}, {_int(node.lo)}, {_int(node.hi)}, {code}, {line}, {col})"
        if node.kind == "some":
            return f"GDL_SOME({value}, {line}, {col})"
        if node.kind == "among" and node.allowed is not None:
            name = self.static_array(sorted(_int(v) for v in node.allowed))
            return (f"({{ int64_t _a = {value}; if (!gdl_member(_a, {name}, {len(node.allowed)})) "
                    f"{{ gdl_fail(e, GDL_E_DOMAIN, {line}, {col}, _a); goto fail; }} _a; }})")
        if node.kind in ("number", "float"):  # (a utility or heuristic: the C side returns it as a double)
            return value
        raise Unsupported(f"the check {node.kind!r}")

    def ex_Aggregate(self, node: ir.Aggregate) -> str:
        assert node.var is not None and node.domain is not None
        var = self.fn.local(node.var)
        test = f"({self.ex(node.filter)})" if node.filter is not None else "1"
        body = self.ex(node.body) if node.body is not None else "1"
        kind = node.kind
        start = {"any": "0", "all": "1", "count": "0", "sum": "0", "first": "-1"}.get(kind)
        if start is None:
            raise Unsupported(f"the aggregate {kind!r}")
        step = {
            "any": f"if ({body}) {{ _r = 1; break; }}",
            "all": f"if (!({body})) {{ _r = 0; break; }}",
            "count": f"if ({body}) _r++;",
            "sum": f"_r = GDL_ADD(_r, {body}, 0, 0);",
            "first": f"if ({body}) {{ _r = {var}; break; }}",
        }[kind]
        if node.domain.is_const and not _values(node.domain):
            return f"((int64_t){start})"
        head, tail = self.iterate(node.domain, var)
        return f"({{ int64_t _r = {start}; {head} if (!{test}) continue; {step} {tail} _r; }})"

    def iterate(self, domain: ir.Expr, var: str) -> tuple[str, str]:
        """A C loop over ``domain`` that sets ``var`` to each value in order: its head and its tail
        (``break`` and ``continue`` in between act on it). A constant list, a range computed at run time,
        or a table lookup whose entries are lists."""
        if domain.is_const:
            values = _values(domain)
            name = self.static_array(values) if values else "K_EMPTY"
            return f"for (int _k = 0; _k < {len(values)}; _k++) {{ {var} = {name}[_k];", "}"
        if isinstance(domain, ir.Range):
            lo, hi = self.ex(domain.lo), self.ex(domain.hi)
            return f"for (int64_t _k = {lo}, _h = {hi}; _k <= _h; _k++) {{ {var} = _k;", "}"
        if isinstance(domain, ir.Table):
            offsets, items, index = self.jagged(domain)
            return (f"{{ int64_t _j = {index}; for (int64_t _k = {offsets}[_j]; _k < {offsets}[_j + 1]; _k++) "
                    f"{{ {var} = {items}[_k];", "} }")
        raise Unsupported("a domain computed at run time")

    def jagged(self, node: ir.Table) -> tuple[str, str, str]:
        """A table whose entries are lists, as one array of items and one of offsets; and the C index
        of the entry ``node`` looks up (checked)."""
        dims: list[int] = []
        level: Any = node.table
        for _ in node.args:
            if not isinstance(level, tuple | list) or not level:
                raise Unsupported("a table that is not rectangular")
            dims.append(len(level))
            level = level[0]
        entries = _flatten(node.table, len(node.args), dims)
        offsets, items = [0], []
        for entry in entries:
            if not isinstance(entry, tuple | list | range):
                raise Unsupported("a table of lists with an entry that is not a list")
            items.extend(_int(v) for v in entry)
            offsets.append(len(items))
        line, col = _pos(node.span)
        index = "0"
        for arg, size in zip(node.args, dims, strict=True):
            index = f"({index}) * {size} + GDL_CHECK({self.ex(arg)}, 0, {size - 1}, GDL_E_INDEX, {line}, {col})"
        return self.static_array(offsets), self.static_array(items), index

    def ex_Table(self, node: ir.Table) -> str:
        table = node.table
        dims: list[int] = []
        level = table
        for _ in node.args:
            if not isinstance(level, tuple | list) or not level:
                raise Unsupported("a table that is not rectangular")
            dims.append(len(level))
            level = level[0]
        flat = [_int(v) for v in _flatten(table, len(node.args), dims)]
        name = self.static_array(flat)
        line, col = _pos(node.span)
        index = "0"
        for arg, size in zip(node.args, dims, strict=True):
            index = f"({index}) * {size} + GDL_CHECK({self.ex(arg)}, 0, {size - 1}, GDL_E_INDEX, {line}, {col})"
        return f"((int64_t){name}[{index}])"

    def ex_Call(self, node: ir.Call) -> str:
        index = self.def_index.get(node.name)
        if index is None:
            raise Unsupported(f"a call of the unknown def #{len(self.def_index)}")
        args = "".join(f"{self.ex(a)}, " for a in node.args)
        return f"({{ int64_t _d = D{index}(s, me, {args}e); if (e->code) goto fail; _d; }})"

    def defs(self) -> tuple[list[str], list[str]]:
        """One C function per def that stayed a function: prototypes first (defs call defs), then bodies.
        A failure inside records the rule error and returns; the caller sees ``e->code`` and fails too."""
        protos, bodies = [], []
        for i, d in enumerate(self.p.defs):
            params = "".join(f"int64_t A{k}, " for k in range(len(d.params)))
            signature = f"static int64_t D{i}(const g_cell *s, int64_t me, {params}gdl_error *e)"
            protos.append(signature + ";")
            self.fn = _Function()
            binds = [f"  {self.fn.local(v)} = A{k};" for k, v in enumerate(d.params)]
            value = self.ex(d.body)
            body = ["  (void)me;", *binds, f"  return {value};", "fail:", "  return 0;"]
            bodies.append(self.function(signature, body))
        return protos, bodies

    def ex_Builtin(self, node: ir.Builtin) -> str:
        args = [self.ex(a) for a in node.args]
        if node.name == "abs" and len(args) == 1:
            return f"({{ int64_t _x = {args[0]}; _x < 0 ? -_x : _x; }})"
        if node.name in ("min", "max") and len(args) == 2:
            op = "<" if node.name == "min" else ">"
            return f"({{ int64_t _x = {args[0]}, _y = {args[1]}; _x {op}= _y ? _x : _y; }})"
        if node.name == "next" and len(args) == 1:
            line, col = _pos(node.span)
            checked = f"GDL_CHECK({args[0]}, 0, {self.nplayers - 1}, GDL_E_DOMAIN, {line}, {col})"
            return f"(({checked} + 1) % {self.nplayers})"
        if node.name == "cell_at" and len(args) == 2 and self.p.board is not None:
            rows, cols = int(self.p.board.rows), int(self.p.board.cols)
            return (f"({{ int64_t _r = {args[0]}, _c = {args[1]}; "
                    f"(_r >= 0 && _r < {rows} && _c >= 0 && _c < {cols}) ? _r * {cols} + _c : (int64_t)-1; }})")
        if node.name == "int" and len(args) == 1:
            return f"((int64_t)({args[0]}))"
        if node.name == "opponent" and len(args) == 1:
            line, col = _pos(node.span)
            return (f"(({self.nplayers - 1}) - GDL_CHECK({args[0]}, 0, {self.nplayers - 1}, GDL_E_DOMAIN, "
                    f"{line}, {col}))" if self.nplayers == 2 else _unsupported("opponent with more players"))
        raise Unsupported(f"the built-in {node.name}")

    def static_array(self, values: Sequence[int]) -> str:
        """The name of a constant array of ``values`` (one array per distinct list)."""
        key = tuple(_int(v) for v in values)
        name = self.static_names.get(key)
        if name is None:
            name = self.static_names[key] = f"K{len(self.statics)}"
            body = ", ".join(f"{v}LL" for v in key)
            self.statics.append(f"static const int64_t {name}[{max(1, len(key))}] = {{{body or '0'}}};")
        return name

    # ------------------------------------------------------------------ statements

    def stmts(self, body: Sequence[ir.Stmt], indent: str) -> list[str]:
        out: list[str] = []
        for stmt in body:
            method = getattr(self, f"st_{type(stmt).__name__}", None)
            if method is None:
                raise Unsupported(f"the statement {type(stmt).__name__}")
            out.extend(method(stmt, indent))
        return out

    def st_AssignSlot(self, stmt: ir.AssignSlot, indent: str) -> list[str]:
        var = self._var_of_slot(stmt.var)
        line, col = _pos(stmt.span)
        index = self.slot_index(var, stmt.slot, stmt.span)
        value = self.ex(stmt.value)
        ops = {"+": "GDL_ADD", "-": "GDL_SUB", "*": "GDL_MUL", "//": "GDL_FLOORDIV", "%": "GDL_MOD"}
        lines = [f"{indent}{{ int64_t _i = {index};"]
        if stmt.op == "=":
            lines.append(f"{indent}  int64_t _v = {value};")
        elif stmt.op.rstrip("=") in ops:
            lines.append(f"{indent}  int64_t _v = {ops[stmt.op.rstrip('=')]}((int64_t)s[_i], {value}, {line}, {col});")
        else:
            raise Unsupported(f"the assignment {stmt.op!r}")
        # every write keeps the slot in its declared range: what every reader of a state relies on
        lines.append(f"{indent}  if (_v < g_lo[_i] || _v > g_hi[_i]) {{ gdl_fail(e, GDL_E_DOMAIN, {line}, {col}, _v); "
                     "goto fail; }")
        lines.append(f"{indent}  s[_i] = (g_cell)_v; _w = _i; }}")
        return lines

    def st_AssignLocal(self, stmt: ir.AssignLocal, indent: str) -> list[str]:
        name = self.fn.local(stmt.var)
        value = self.ex(stmt.value)
        if stmt.op == "=":
            return [f"{indent}{name} = {value};"]
        ops = {"+": "GDL_ADD", "-": "GDL_SUB", "*": "GDL_MUL", "//": "GDL_FLOORDIV", "%": "GDL_MOD"}
        op = ops.get(stmt.op.rstrip("="))
        if op is None:
            raise Unsupported(f"the assignment {stmt.op!r}")
        line, col = _pos(stmt.span)
        return [f"{indent}{name} = {op}({name}, {value}, {line}, {col});"]

    def st_Let(self, stmt: ir.Let, indent: str) -> list[str]:
        return [f"{indent}{self.fn.local(stmt.var)} = {self.ex(stmt.value)};"]

    def st_SetTurn(self, stmt: ir.SetTurn, indent: str) -> list[str]:
        line, col = _pos(stmt.span)
        return [f"{indent}nt = GDL_CHECK({self.ex(stmt.value)}, 0, {self.nplayers - 1}, GDL_E_DOMAIN, {line}, {col});"]

    def st_If(self, stmt: ir.If, indent: str) -> list[str]:
        out = []
        for i, (test, body) in enumerate(stmt.branches):
            out.append(f"{indent}{'if' if i == 0 else '} else if'} ({self.ex(test)}) {{")
            out.extend(self.stmts(body, indent + "  "))
        if stmt.orelse is not None:
            out.append(f"{indent}}} else {{")
            out.extend(self.stmts(stmt.orelse, indent + "  "))
        out.append(f"{indent}}}")
        return out

    def st_For(self, stmt: ir.For, indent: str) -> list[str]:
        if stmt.domain.is_const and not _values(stmt.domain):
            return []
        head, tail = self.iterate(stmt.domain, self.fn.local(stmt.var))
        return [f"{indent}{head}", *self.stmts(stmt.body, indent + "  "), f"{indent}{tail}"]

    def st_Break(self, stmt: ir.Break, indent: str) -> list[str]:
        return [f"{indent}break;"]

    # ------------------------------------------------------------------ functions

    def function(self, signature: str, body: list[str], prologue: Sequence[str] = ()) -> str:
        """A function whose locals were collected while ``body`` was emitted (then reset)."""
        names = sorted(set(self.fn.locals.values()))
        self.fn = _Function()
        decl = [f"  int64_t {n} = 0;" for n in names] + [f"  (void){n};" for n in names]
        return "\n".join([f"{signature} {{", *prologue, *decl, *body, "}"])

    def finish_lines(self, single_write: bool = False) -> list[str]:
        """After a move's effects (or setup): the next player, then the end rules (``g_ends``)."""
        written = "_w" if single_write else "-1"
        return ["  s[G_TURN] = (g_cell)(nt == NO_TURN ? g_next[me] : nt);", f"  return g_ends(s, me, {written}, e);"]

    def ends_function(self) -> str:
        """``g_ends``: the end rules in order, written once for every move.

        After a move that wrote only slot ``w`` (``w >= 0``), only the terms of the end rules that can
        have become true are tested: those that read that slot, the turn, or slots known only at run
        time (the state before the move was not over, so no other term holds). As in the Python back end.
        """
        self.fn = _Function()
        out: list[str] = []
        if self.p.ends:
            slots = sorted({s for rule in self.p.ends for term in _terms(rule.condition)
                            for s in (term.reads.slots if not (term.reads.turn or term.reads.dynamic) else ())})
            out.append("  switch (w) {")
            for k in slots:
                out.append(f"  case {k}:")
                out.extend("  " + line for line in self.end_tests(k))
            out.append("  default: break;")
            out.append("  }")
        out.extend(self.end_tests(None))
        return self.function("static int g_ends(g_cell *s, int64_t me, int64_t w, gdl_error *e)",
                             ["  (void)me; (void)w;", *out, "fail:", "  return GDL_ERROR;"])

    def end_tests(self, written: int | None) -> list[str]:
        """The end rules' tests (only the terms that read slot ``written`` or anything unknown; all if None)."""
        out = []
        for rule in self.p.ends:
            line, col = _pos(rule.span)
            terms = [term for term in _terms(rule.condition)
                     if written is None or term.reads.turn or term.reads.dynamic or written in term.reads.slots]
            if not terms:
                continue
            status = self.ex(rule.status)
            parts = [rule.condition] if written is None else terms
            test = " || ".join(f"({self.ex(term)})" for term in parts)
            out.append(f"  if ({test}) {{")
            out.append(f"    int64_t _st = GDL_CHECK({status}, 1, {self.nstatus - 1}, GDL_E_DOMAIN, {line}, {col});")
            out.append("    s[G_TURN] = GDL_TERMINAL; s[G_STATUS] = (g_cell)_st; return 0;")
            out.append("  }")
        out.append("  return 0;")
        return out

    def moves(self) -> tuple[list[str], list[MoveCode]]:
        """One function per move (effects, then the finish), ``g_legal`` and ``g_apply``."""
        parts: list[str] = []
        codes: list[MoveCode] = []
        legal: list[str] = []
        otherwise: list[str] = []
        dispatch: list[str] = []
        legal_fn = _Function()  # g_legal's locals, collected across the moves
        for move in self.p.moves:
            if move.specialised is not None:
                self.specialised_move(move, parts, codes, otherwise if move.otherwise else legal, dispatch, legal_fn)
                continue
            domains = [_values(param.domain) for param in move.params]
            base = len(codes)
            combos = list(product(*domains))
            codes.extend(MoveCode(move.index, tuple(c)) for c in combos)
            self.fn = _Function()
            names = [self.fn.local(param.var) for param in move.params]
            body = [f"  {n} = args[{i}];" for i, n in enumerate(names)]
            body.append("  int64_t me = s[G_TURN], nt = NO_TURN, _w = -1; (void)_w;")
            body.extend(self.stmts(move.effect.body if move.effect else (), "  "))
            body.extend(self.finish_lines(move.effect is not None and move.effect.single_write))
            signature = f"static int mv{int(move.index)}(g_cell *s, const int64_t *args, gdl_error *e)"
            parts.append(self.function(signature, [*body, "fail:", "  return GDL_ERROR;"]))
            # legal: nested loops over the parameters' domains, in order (the Python back end's order)
            self.fn = legal_fn
            names = [self.fn.local(param.var) for param in move.params]
            target = otherwise if move.otherwise else legal
            target.extend(self.legal_loops(move, domains, names, base))
            legal_fn, self.fn = self.fn, _Function()
            dispatch.append(self.dispatch(move, domains, base, len(combos)))
        legal_body = [*legal]
        if otherwise:
            legal_body.append("  if (n == 0) {")
            legal_body.extend("  " + line for line in otherwise)
            legal_body.append("  }")
        self.fn = legal_fn
        parts.append(self.function("static int g_legal(const g_cell *s, int32_t *moves, gdl_error *e)",
                                   ["  int n = 0;", "  int64_t me = s[G_TURN]; (void)me;", *legal_body, "  return n;",
                                    "fail:", "  return GDL_ERROR;"]))
        parts.append("\n".join(["static int g_apply(g_cell *s, int32_t code, gdl_error *e) {",
                                "  int64_t args[GDL_MAX_PARAMS + 1];", *dispatch,
                                "  return gdl_fail(e, GDL_E_MOVE, 0, 0, code);", "}"]))
        return parts, codes

    def specialised_move(self, move: ir.Move, parts: list[str], codes: list[MoveCode], legal: list[str],
                         dispatch: list[str], legal_fn: _Function) -> None:
        """A move the compiler wrote out per constant parameter combination: one function, one guard and
        one code each, in the Python back end's order."""
        assert move.specialised is not None
        for j, (values, guard, effect) in enumerate(move.specialised):
            code = len(codes)
            codes.append(MoveCode(move.index, tuple(values)))
            self.fn = _Function()
            body = [f"  {self.fn.local(param.var)} = {_int(value)}LL;"
                    for param, value in zip(move.params, values, strict=True)]
            body.append("  int64_t me = s[G_TURN], nt = NO_TURN, _w = -1; (void)_w;")
            body.extend(self.stmts(effect.body, "  "))
            body.extend(self.finish_lines(effect.single_write))
            name = f"mv{int(move.index)}_{j}"
            signature = f"static int {name}(g_cell *s, gdl_error *e)"
            parts.append(self.function(signature, [*body, "fail:", "  return GDL_ERROR;"]))
            self.fn = legal_fn
            binds = " ".join(f"{self.fn.local(param.var)} = {_int(value)}LL;"
                             for param, value in zip(move.params, values, strict=True))
            test = self.ex(guard) if guard is not None else "1"
            legal.append(f"  {{ {binds} if ({test}) {{")
            legal.append("    if (n >= G_MAX_MOVES) { gdl_fail(e, GDL_E_CAPACITY, 0, 0, n); goto fail; }")
            legal.append(f"    moves[n++] = {code};")
            legal.append("  } }")
            dispatch.append(f"  if (code == {code}) return {name}(s, e);")

    def legal_loops(self, move: ir.Move, domains: list[list[int]], names: list[str], base: int) -> list[str]:
        lines: list[str] = []
        indent = "  "
        index = "0"
        for i, (values, name) in enumerate(zip(domains, names, strict=True)):
            arr = self.static_array(values) if values else "K_EMPTY"
            lines.append(f"{indent}for (int64_t _p{i} = 0; _p{i} < {len(values)}; _p{i}++) {{ {name} = {arr}[_p{i}];")
            index = f"({index}) * {len(values)} + _p{i}"
            indent += "  "
        guard = self.ex(move.guard) if move.guard is not None else "1"
        lines.append(f"{indent}if ({guard}) {{")
        lines.append(f"{indent}  if (n >= G_MAX_MOVES) {{ gdl_fail(e, GDL_E_CAPACITY, 0, 0, n); goto fail; }}")
        lines.append(f"{indent}  moves[n++] = (int32_t)({base} + {index});")
        lines.append(f"{indent}}}")
        for _ in domains:
            indent = indent[:-2]
            lines.append(f"{indent}}}")
        return lines

    def dispatch(self, move: ir.Move, domains: list[list[int]], base: int, count: int) -> str:
        lines = [f"  if (code >= {base} && code < {base + count}) {{", f"    int64_t _r = code - {base};"]
        for i in reversed(range(len(domains))):
            arr = self.static_array(domains[i])
            lines.append(f"    args[{i}] = {arr}[_r % {len(domains[i])}]; _r /= {len(domains[i])};")
        lines.append(f"    return mv{int(move.index)}(s, args, e);")
        lines.append("  }")
        return "\n".join(lines)

    def scoring(self) -> list[str]:
        p = self.p
        parts = []
        body = ["  int64_t st = s[G_STATUS], me = s[G_TURN]; (void)me;"]
        for status, fixed in enumerate(p.end_utilities):
            if fixed is not None:
                values = " ".join(f"u[{i}] = {_real(v)};" for i, v in enumerate(fixed))
                body.append(f"  if (st == {status}) {{ {values} return 0; }}")
        if p.utility is not None:
            var = self.fn.local(p.utility.var)
            value = self.ex(p.utility.expr)
            body.append(f"  for (int _q = 0; _q < G_PLAYERS; _q++) {{ {var} = _q; u[_q] = (double)({value}); }}")
            body.append("  return 0;")
        else:
            body.append("  return gdl_fail(e, GDL_E_NO_UTILITY, 0, 0, st);")
        parts.append(self.function("static int g_utilities(const g_cell *s, double *u, gdl_error *e)",
                                   [*body, "fail:", "  return GDL_ERROR;"]))
        if p.heuristic is not None:
            var = self.fn.local(p.heuristic.var)
            value = self.ex(p.heuristic.expr)
            body = ["  int64_t me = s[G_TURN]; (void)me;",
                    f"  for (int _q = 0; _q < G_PLAYERS; _q++) {{ {var} = _q; h[_q] = (double)({value}); }}",
                    "  return 1;"]
        else:
            body = ["  (void)s; (void)h; (void)e;", "  return 0;"]
        parts.append(self.function("static int g_heuristic(const g_cell *s, double *h, gdl_error *e)",
                                   [*body, *(["fail:", "  return GDL_ERROR;"] if p.heuristic is not None else [])]))
        return parts

    def keys(self) -> str:
        """``g_key``: the smallest image (compared slot by slot, as Python compares tuples), packed."""
        lines = ["static int g_key(const g_cell *s, uint64_t *w, gdl_error *e) {", "  (void)e;"]
        if not self.symmetries:
            lines += ["  g_pack_fast(s, w);", "  return 0;", "}"]
            return "\n".join(lines)
        n = len(self.symmetries[0].src)
        lines += ["  g_cell best[G_STATE_LEN], img[G_STATE_LEN];", "  memcpy(best, s, sizeof best);",
                  "  memcpy(img, s, sizeof img);"]
        for m in self.symmetries:
            if len(m.src) != n:
                raise Unsupported("symmetry maps of different lengths")
            src = self.static_array(m.src)
            lines.append(f"  for (int j = 0; j < {n}; j++) img[j] = s[{src}[j]];")
            for slot, vmap in m.value_maps:
                cases = " ".join(f"case {_int(k)}: img[{_int(slot)}] = {_int(v)}; break;"
                                 for k, v in sorted(vmap.items()))
                lines.append(f"  switch (img[{_int(slot)}]) {{ {cases} default: break; }}")
            lines.append("  if (gdl_less(img, best, G_STATE_LEN)) memcpy(best, img, sizeof best);")
        lines += ["  g_pack_fast(best, w);", "  return 0;", "}"]
        return "\n".join(lines)

    def pack_tables(self, ranges: list[tuple[int, int]]) -> list[str]:
        words, shifts, bits = [], [], []
        word = shift = 0
        for lo, hi in ranges:
            width = max(1, (hi - lo).bit_length())
            if shift + width > 64:
                word, shift = word + 1, 0
            words.append(word)
            shifts.append(shift)
            bits.append(width)
            shift += width
        n = len(ranges)
        # the same packing written out with constant shifts (the key of every child goes through it)
        fast = [f"  w[{k}] = 0;" for k in range(word + 1)]
        fast += [f"  w[{words[i]}] |= (uint64_t)((int64_t)s[{i}] - ({lo})) << {shifts[i]};"
                 for i, (lo, _) in enumerate(ranges)]
        return [f"#define G_KEY_WORDS {word + 1}",
                "static inline void g_pack_fast(const g_cell *s, uint64_t *w) {", *fast, "}",
                f"static const int g_pack_word[{n}] = {{{', '.join(map(str, words))}}};",
                f"static const int g_pack_shift[{n}] = {{{', '.join(map(str, shifts))}}};",
                f"static const int g_pack_bits[{n}] = {{{', '.join(map(str, bits))}}};"]

    def emit(self) -> Emitted:
        p = self.p
        ranges = self.slot_ranges()
        n = len(ranges)
        lo = min(r[0] for r in ranges)
        hi = max(r[1] for r in ranges)
        cell = "int8_t" if lo >= -128 and hi <= 127 else "int16_t" if lo >= -32768 and hi <= 32767 else "int32_t"
        initial = [_int(v) for v in p.initial]
        if len(initial) != n:
            raise Unsupported("an initial state of another length than the layout")
        def_protos, def_bodies = self.defs()
        ends = self.ends_function()
        move_parts, codes = self.moves()
        if not codes:
            raise Unsupported("a game without moves")
        setup_body = ["  int64_t me = 0, nt = 0, _w = -1; (void)_w;",
                      *(f"  s[{i}] = (g_cell){v};" for i, v in enumerate(initial)),
                      *self.stmts(p.setup.body, "  "), *self.finish_lines()]
        setup = self.function("static int g_initial(g_cell *s, gdl_error *e)",
                              [*setup_body, "fail:", "  return GDL_ERROR;"])
        scoring = self.scoring()
        keys = self.keys()
        bounds = p.utility_bounds
        max_params = max((len(m.params) for m in p.moves), default=0)
        nexts = [str((i + 1) % self.nplayers) for i in range(self.nplayers)]
        header = [
            "/* generated by gdl.native.emit_c from the checked IR: no rule-file text below */",
            f"#define G_STATE_LEN {n}",
            f"#define G_PLAYERS {self.nplayers}",
            f"#define G_MAX_MOVES {len(codes)}",
            "#define G_MAX_OUTCOMES 1",
            "#define G_HAS_CHANCE 0",
            f"#define G_ZERO_SUM {int(bool(p.zero_sum))}",
            f"#define G_HAS_BOUNDS {int(bounds is not None)}",
            f"#define G_UTIL_LOW {_real(bounds[0]) if bounds else '0.0'}",
            f"#define G_UTIL_HIGH {_real(bounds[1]) if bounds else '0.0'}",
            f"#define G_HAS_HEURISTIC {int(p.heuristic is not None)}",
            f"#define G_SYMMETRIC {int(bool(self.symmetries))}",
            f"#define G_TURN {self.layout.turn_slot}",
            f"#define G_STATUS {self.layout.status_slot}",
            f"#define NO_TURN {NO_TURN}",
            f"#define GDL_MAX_PARAMS {max_params}",
            f"typedef {cell} g_cell;",
            f"static const int32_t g_lo[{n}] = {{{', '.join(str(r[0]) for r in ranges)}}};",
            f"static const int32_t g_hi[{n}] = {{{', '.join(str(r[1]) for r in ranges)}}};",
            *self.pack_tables(ranges),
            f"static const int64_t g_next[{self.nplayers}] = {{{', '.join(nexts)}}};",
            "static const int64_t K_EMPTY[1] = {0};",
            "static int g_legal(const g_cell *s, int32_t *moves, gdl_error *e);",
            RUNTIME,
        ]
        body = [
            "static void g_setup(void) {}",
            *def_protos,
            *def_bodies,
            ends,
            setup,
            *move_parts,
            "static int g_to_move(const g_cell *s, gdl_error *e) { (void)e; return s[G_TURN]; }",
            "static int g_chance(const g_cell *s, int32_t *o, double *p, gdl_error *e) "
            "{ (void)s; (void)o; (void)p; (void)e; return 0; }",
            *scoring,
            keys,
        ]
        source = "\n".join([*header, *self.statics, *body]) + "\n"
        return Emitted(source, codes, n, ranges)


def _terms(condition: ir.Expr) -> tuple[ir.Expr, ...]:
    return condition.disjuncts() if isinstance(condition, ir.BoolOp) else (condition,)


def _flatten(table: Any, depth: int, dims: list[int]) -> list[Any]:
    if depth == 0:
        return [table]
    if not isinstance(table, tuple | list) or len(table) != dims[0]:
        raise Unsupported("a table that is not rectangular")
    out: list[Any] = []
    for row in table:
        out.extend(_flatten(row, depth - 1, dims[1:]))
    return out


def _unsupported(what: str) -> str:
    raise Unsupported(what)




def emit(program: ir.Program, symmetries: Sequence[SymmetryMap] = ()) -> Emitted:
    """The C source of ``program`` (see the module docstring).

    :raises Unsupported: a construct the C emitter does not translate yet.
    """
    return CEmitter(program, symmetries).emit()
