"""The C emitter's expressions and statements (:class:`ExpressionEmitter`, a base of
:class:`gdl.native.emit_c.CEmitter`), and the checked conversions of IR constants to C.

See :mod:`gdl.native.emit_c` for what is emitted and the safety argument.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gdl.compiler import ir
from gdl.native.emit_c_fraction import FractionEmitter
from gdl.native.emit_c_values import (  # noqa: F401 (re-exported: the emitter's other modules import them here)
    _Q_OPS,
    LIMIT,
    NO_TURN,
    Unsupported,
    _c_type,
    _Function,
    _int,
    _pos,
    _real,
    _table_dims,
    _values,
    _whole,
)
from gdl.native.emitted import Emitted, MoveCode, OutcomeCode, Shape, SymmetryMap  # noqa: F401 (re-exported)


def display_key(typ: Any) -> str | None:
    """The key of the Python game's display of values of ``typ`` (see :class:`Shape`)."""
    if typ.kind == "cell":
        return "cell"
    if typ.kind == "int" and typ.name in ("column", "row"):
        return f"@{typ.name}"
    if typ.kind == "player":
        return "player"
    if typ.kind in ("enum", "dir"):
        return str(typ.name or typ.kind)
    return None


def shape_of(program: ir.Program) -> Shape:
    return Shape(program.layout.nvars, bool(program.simultaneous),
                 tuple((m.name, tuple(display_key(p.var.type) for p in m.params)) for m in program.moves),
                 tuple((int(c.point), len(c.saved), c.var.name if c.var else None,
                        display_key(c.var.type) if c.var else None) for c in program.chance))


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


class ExpressionEmitter(FractionEmitter):
    """Expressions (``ex_*``: a C expression each) and statements (``st_*``: C lines) of one program."""

    p: ir.Program
    vars: dict[str, ir.StateSlotVar]
    nplayers: int
    statics: list[str]
    static_names: dict[tuple[int, ...], str]
    jagged_arrays: dict[int, tuple[Any, str, str]]
    fn: _Function
    def_index: dict[str, int]
    buffers: int = 0  # the `select` arrays named so far (each gets its own name)

    def _var_of_slot(self, name: str) -> ir.StateSlotVar:
        var = self.vars.get(name)
        if var is None:
            raise Unsupported(f"a write to state variable #{len(self.vars)} that the layout does not list")
        return var

    def function(self, signature: str, body: list[str], prologue: Sequence[str] = ()) -> str:
        """A function whose locals were collected while ``body`` was emitted (then reset)."""
        names = sorted(set(self.fn.locals.values()))
        self.fn = _Function()
        decl = [f"  gdl_q {n} = {{0, 1}};" if n.startswith("Q") else f"  int64_t {n} = 0;" for n in names]
        decl += [f"  (void){n};" for n in names]
        return "\n".join([f"{signature} {{", *prologue, *decl, *body, "}"])

    # ------------------------------------------------------------------ expressions

    def ex(self, node: ir.Expr | None) -> str:
        if node is None:
            raise Unsupported("a missing expression")
        if node.type.kind == "real" and not (node.is_const and _whole(node.const)):
            raise Unsupported("a fraction kept in a variable or passed on as a value")  # (q() computes them)
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
            elif op in ("==", "!=", "<", "<=", ">", ">=") and "real" in (left.type.kind, right.type.kind):
                parts.append(f"(gdl_q_cmp({self.q(left)}, {self.q(right)}) {op} 0)")  # exact, as Fractions compare
            elif op in ("==", "!=", "<", "<=", ">", ">="):
                parts.append(f"({self.ex(left)} {op} {self.ex(right)})")
            else:
                raise Unsupported(f"the comparison {op!r}")
        return "((int64_t)(" + " && ".join(parts) + "))"

    def membership(self, value: str, seq: ir.Expr) -> str:
        if not seq.is_const:  # (the value first, then the list: Python's order)
            return (f"({{ int64_t _m = {value}; const int64_t *_sq = K_EMPTY; int64_t _sn = 0; {self.sequence(seq)} "
                    "int64_t _f = 0; for (int64_t _k = 0; _k < _sn; _k++) if (_sq[_k] == _m) { _f = 1; break; } _f; })")
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
        return "((int64_t)(" + joiner.join(self.operand_runs(node)) + "))"

    def operand_runs(self, node: ir.BoolOp) -> list[str]:
        """The operands in C, a run of ``s[k] != v`` over consecutive fixed slots (``==`` for ``or``) as one
        scan: a full-board test in every end check was most of Connect-Four's code, and of its build time.
        (Such tests cannot fail and change nothing, so a scan has the same value as the chain.)"""
        out: list[str] = []
        run: list[tuple[ir.Expr, int, int]] = []  # (operand, slot, value) of the current run

        def flush() -> None:
            if len(run) >= SCAN_RUN:
                helper = "gdl_none_eq" if node.op == "and" else "gdl_any_eq"
                out.append(f"{helper}(s, {run[0][1]}, {len(run)}, {run[0][2]})")
            else:
                out.extend(f"({self.ex(operand)})" for operand, _, _ in run)
            run.clear()

        for operand in node.operands:
            test = _slot_test(operand, "!=" if node.op == "and" else "==")
            if test is None or (run and (test[0] != run[-1][1] + 1 or test[1] != run[-1][2])):
                flush()
            if test is None:
                out.append(f"({self.ex(operand)})")
            else:
                run.append((operand, *test))
        flush()
        return out

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
        if kind in ("min", "max"):
            return self.extremum(node, var, test, body)
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

    def extremum(self, node: ir.Aggregate, var: str, test: str, body: str) -> str:
        """``min``/``max`` of the bodies; a rule error when no value passes the filter (as in Python)."""
        assert node.domain is not None
        line, col = _pos(node.span)
        better = "<" if node.kind == "min" else ">"
        if node.domain.is_const and not _values(node.domain):
            return f"({{ gdl_fail(e, GDL_E_RULE, {line}, {col}, 0); goto fail; (int64_t)0; }})"
        head, tail = self.iterate(node.domain, var)
        return (f"({{ int64_t _r = 0; int _n = 0; {head} if (!{test}) continue; "
                f"{{ int64_t _b = {body}; if (!_n++ || _b {better} _r) _r = _b; }} {tail} "
                f"if (!_n) {{ gdl_fail(e, GDL_E_RULE, {line}, {col}, 0); goto fail; }} _r; }})")

    def ex_Index(self, node: ir.Index) -> str:
        """``seq[i]`` of a list (checked index: an index outside it is a rule error)."""
        if node.seq is None:
            raise Unsupported("indexing a missing list")
        if not node.seq.is_const:  # a list chosen at run time (a conditional, a def, a table entry, a select)
            line, col = _pos(node.span)
            choose = self.sequence(node.seq)  # (the list first, then the index: Python's order)
            return (f"({{ const int64_t *_sq = K_EMPTY; int64_t _sn = 0; {choose} "
                    f"int64_t _ix = GDL_CHECK({self.ex(node.index)}, 0, _sn - 1, GDL_E_INDEX, {line}, {col}); "
                    "_sq[_ix]; })")
        values = _values(node.seq)
        if not values:
            raise Unsupported("indexing an empty list")
        line, col = _pos(node.span)
        name = self.static_array(values)
        return f"{name}[GDL_CHECK({self.ex(node.index)}, 0, {len(values) - 1}, GDL_E_INDEX, {line}, {col})]"

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
        choose = self.sequence(domain)
        return (f"{{ const int64_t *_sq = K_EMPTY; int64_t _sn = 0; {choose} "
                f"for (int64_t _k = 0; _k < _sn; _k++) {{ {var} = _sq[_k];", "} }")

    def sequence(self, domain: ir.Expr, top: bool = True) -> str:
        """C statements that point ``_sq``/``_sn`` at the values of ``domain``, a list chosen at run time
        among constant lists: a conditional, a call of a def whose body is one (inlined: its parameters
        bound in the caller), or a table entry; or a ``select`` (``top``: not inside a conditional), whose
        values are gathered into an array of the block that iterates them."""
        if domain.is_const:
            values = _values(domain)
            return f"_sq = {self.static_array(values) if values else 'K_EMPTY'}; _sn = {len(values)};"
        if isinstance(domain, ir.IfExpr) and domain.then is not None and domain.orelse is not None:
            return (f"if ({self.ex(domain.test)}) {{ {self.sequence(domain.then, False)} }} "
                    f"else {{ {self.sequence(domain.orelse, False)} }}")
        if isinstance(domain, ir.Aggregate) and domain.kind == "select":
            if not top:
                raise Unsupported("`select` inside a conditional list")
            return self.selected(domain)
        if isinstance(domain, ir.Call):
            d = self.p.defs[self.def_index[domain.name]] if domain.name in self.def_index else None
            if d is None or d.calls_defs:
                raise Unsupported("a list computed by a def at run time")
            binds = " ".join(f"{self.fn.local(v)} = {self.ex(a)};" for v, a in zip(d.params, domain.args, strict=True))
            return f"{binds} {self.sequence(d.body)}"
        if isinstance(domain, ir.Table):
            offsets, items, index = self.jagged(domain)
            return (f"{{ int64_t _j = {index}; _sq = {items} + {offsets}[_j]; "
                    f"_sn = {offsets}[_j + 1] - {offsets}[_j]; }}")
        raise Unsupported("a domain computed at run time")

    def selected(self, node: ir.Aggregate) -> str:
        """``select x in D: cond``: the values of D (in order) that pass, gathered into an array as long as D's
        every possible value, then ``_sq``/``_sn`` pointed at it."""
        assert node.var is not None and node.domain is not None
        self.buffers += 1
        buffer = f"_sb{self.buffers}"
        most = max(1, self.longest(node.domain))
        var = self.fn.local(node.var)
        test = f"({self.ex(node.filter)})" if node.filter is not None else "1"
        body = f"({self.ex(node.body)})" if node.body is not None else "1"
        head, tail = self.iterate(node.domain, var)
        full = f"{{ gdl_fail(e, GDL_E_CAPACITY, 0, 0, {most}); goto fail; }}"  # (cannot happen: `most` bounds it)
        return (f"int64_t {buffer}[{most}]; int64_t {buffer}n = 0; {head} if ({test} && {body}) {{ "
                f"if ({buffer}n >= {most}) {full} {buffer}[{buffer}n++] = {var}; }} {tail} "
                f"_sq = {buffer}; _sn = {buffer}n;")

    def longest(self, domain: ir.Expr) -> int:
        """The most values (repeats counted) a list that :meth:`sequence` can make from ``domain`` holds."""
        if domain.is_const:
            return len(_values(domain))
        if isinstance(domain, ir.IfExpr) and domain.then is not None and domain.orelse is not None:
            return max(self.longest(domain.then), self.longest(domain.orelse))
        if isinstance(domain, ir.Call) and domain.name in self.def_index:
            return self.longest(self.p.defs[self.def_index[domain.name]].body)
        if isinstance(domain, ir.Aggregate) and domain.kind == "select" and domain.domain is not None:
            return self.longest(domain.domain)
        if isinstance(domain, ir.Table):
            entries = _flatten(domain.table, len(domain.args), _table_dims(domain))
            return max((len(entry) for entry in entries if isinstance(entry, tuple | list | range)), default=0)
        raise Unsupported("`select` over a list computed at run time")

    def universe(self, domain: ir.Expr) -> list[int]:
        """Every value ``domain`` may hold, in first-seen order (what a move parameter's codes range over)."""
        if domain.is_const:
            return _values(domain)
        if isinstance(domain, ir.IfExpr) and domain.then is not None and domain.orelse is not None:
            return list(dict.fromkeys(self.universe(domain.then) + self.universe(domain.orelse)))
        if isinstance(domain, ir.Call) and domain.name in self.def_index:
            return self.universe(self.p.defs[self.def_index[domain.name]].body)
        if isinstance(domain, ir.Aggregate) and domain.kind == "select" and domain.domain is not None:
            return self.universe(domain.domain)
        raise Unsupported("a move parameter ranging over a list computed at run time")

    def jagged(self, node: ir.Table) -> tuple[str, str, str]:
        """A table whose entries are lists, as one array of items and one of offsets; and the C index
        of the entry ``node`` looks up (checked)."""
        dims = _table_dims(node)
        # The same board table is looked up in many places (othello's rays: 208 times): its arrays once.
        known = self.jagged_arrays.get(id(node.table))
        if known is not None and known[0] is node.table:
            offsets_name, items_name = known[1], known[2]
        else:
            offsets: list[int] = [0]
            items: list[int] = []
            for entry in _flatten(node.table, len(node.args), dims):
                if not isinstance(entry, tuple | list | range):
                    raise Unsupported("a table of lists with an entry that is not a list")
                items.extend(_int(v) for v in entry)
                offsets.append(len(items))
            offsets_name, items_name = self.static_array(offsets), self.static_array(items)
            self.jagged_arrays[id(node.table)] = (node.table, offsets_name, items_name)
        line, col = _pos(node.span)
        index = "0"
        for arg, size in zip(node.args, dims, strict=True):
            index = f"({index}) * {size} + GDL_CHECK({self.ex(arg)}, 0, {size - 1}, GDL_E_INDEX, {line}, {col})"
        return offsets_name, items_name, index

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
        if node.type.kind == "seq":
            raise Unsupported("a list returned by a def, used as a value")
        if index is None:
            raise Unsupported(f"a call of the unknown def #{len(self.def_index)}")
        return f"({{ int64_t _d = D{index}(s, me, {self.call_args(node)}e); if (e->code) goto fail; _d; }})"

    def defs(self) -> tuple[list[str], list[str]]:
        """One C function per def that stayed a function: prototypes first (defs call defs), then bodies.
        A failure inside records the rule error and returns; the caller sees ``e->code`` and fails too."""
        protos, bodies = [], []
        for i, d in enumerate(self.p.defs):
            if d.body.type.kind == "seq":
                continue  # (a list: inlined where it is iterated, see `sequence`)
            real = d.body.type.kind == "real"
            params = "".join(f"{_c_type(v.type)} A{k}, " for k, v in enumerate(d.params))
            signature = f"static {_c_type(d.body.type)} D{i}(const g_cell *s, int64_t me, {params}gdl_error *e)"
            protos.append(signature + ";")
            self.fn = _Function()
            binds = [f"  {self.fn.local(v)} = A{k};" for k, v in enumerate(d.params)]
            value = self.q(d.body) if real else self.ex(d.body)
            failed = "(gdl_q){0, 1}" if real else "0"
            body = ["  (void)me;", *binds, f"  return {value};", "fail:", f"  return {failed};"]
            bodies.append(self.function(signature, body))
        return protos, bodies

    def connected(self, node: ir.Builtin) -> str:
        """``connected(starts, goals, within)``: a depth-first search over the board's neighbours, from the
        cells of ``starts`` inside ``within`` to one of ``goals`` inside it (as ``gdl.rule_helpers._connected``).
        Each list is a constant or a ``select`` over a domain; it becomes a mask of the board's cells."""
        board = self.p.board
        if board is None or len(node.args) != 3:
            raise Unsupported("`connected` without a board")
        neighbors = [list(n) for n in board.neighbors]
        cells = len(neighbors)
        offsets: list[int] = [0]
        items: list[int] = []
        for n in neighbors:
            items.extend(int(c) for c in n)
            offsets.append(len(items))
        off, nb = self.static_array(offsets), self.static_array(items)
        marks = [self.mask(arg, mask, cells) for arg, mask in zip(node.args, ("_sm", "_go", "_in"), strict=True)]
        masks = ", ".join(f"{name}[{cells}] = {{0}}" for name in ("_sm", "_go", "_in", "_seen"))
        return (f"({{ uint8_t {masks}; int32_t _st[{cells}]; int _top = 0; int64_t _res = 0; {' '.join(marks)} "
                f"for (int _c = 0; _c < {cells}; _c++) if (_sm[_c] && _in[_c]) {{ _seen[_c] = 1; _st[_top++] = _c; }} "
                "while (_top > 0) { int32_t _c = _st[--_top]; if (_go[_c] && _in[_c]) { _res = 1; break; } "
                f"for (int64_t _k = {off}[_c]; _k < {off}[_c + 1]; _k++) {{ int32_t _n = (int32_t){nb}[_k]; "
                "if (_in[_n] && !_seen[_n]) { _seen[_n] = 1; _st[_top++] = _n; } } } _res; })")

    def mask(self, seq: ir.Expr, mask: str, cells: int) -> str:
        """C statements that set ``mask[c]`` for each cell ``c`` of the list ``seq`` (cells outside the
        board, such as ``none``, are no cells)."""
        if seq.is_const:
            values = [v for v in _values(seq) if 0 <= v < cells]
            return " ".join(f"{mask}[{v}] = 1;" for v in values)
        if isinstance(seq, ir.Aggregate) and seq.kind == "select" and seq.var is not None and seq.domain is not None:
            var = self.fn.local(seq.var)
            test = f"({self.ex(seq.filter)})" if seq.filter is not None else "1"
            body = self.ex(seq.body) if seq.body is not None else "1"
            head, tail = self.iterate(seq.domain, var)
            return f"{head} if ({test} && ({body}) && {var} >= 0 && {var} < {cells}) {mask}[{var}] = 1; {tail}"
        raise Unsupported("`connected` over a list computed at run time")

    def ex_Evaluate(self, node: ir.Evaluate) -> str:
        """The arguments evaluated in order for the rule errors they may raise, then the value."""
        first = " ".join(f"(void)({self.ex(e)});" for e in node.first)
        return f"({{ {first} {self.ex(node.value)}; }})"

    def ex_Builtin(self, node: ir.Builtin) -> str:
        if node.name == "connected":
            return self.connected(node)
        if node.name == "len" and len(node.args) == 1 and not node.args[0].is_const:
            choose = self.sequence(node.args[0])
            return f"({{ const int64_t *_sq = K_EMPTY; int64_t _sn = 0; {choose} (void)_sq; _sn; }})"
        args = [self.ex(a) for a in node.args]
        if node.name == "abs" and len(args) == 1:
            line, col = _pos(node.span)
            return f"GDL_ABS({args[0]}, {line}, {col})"
        if node.name in ("min", "max") and len(args) >= 2:
            op = "<" if node.name == "min" else ">"  # (the first of equal ones, as Python's min and max)
            steps = " ".join(f"{{ int64_t _y = {a}; if (!(_x {op}= _y)) _x = _y; }}" for a in args[1:])
            return f"({{ int64_t _x = {args[0]}; {steps} _x; }})"
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
        if stmt.var.type.kind == "real":
            line, col = _pos(stmt.span)
            if stmt.op == "=":
                return [f"{indent}{name} = {self.q(stmt.value)};"]
            op = _Q_OPS.get(stmt.op.rstrip("="))
            if op is None:
                raise Unsupported(f"the assignment {stmt.op!r} of a fraction")
            return [f"{indent}{name} = {op}({name}, {self.q(stmt.value)}, {line}, {col});"]
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
        if stmt.var.type.kind == "real":
            return [f"{indent}{self.fn.local(stmt.var)} = {self.q(stmt.value)};"]
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


SCAN_RUN = 4
"""Consecutive slot tests written as one scan (fewer are written out)."""


def _slot_test(node: ir.Expr, op: str) -> tuple[int, int] | None:
    """(slot, value) when ``node`` is ``s[slot] <op> value`` for a fixed slot and a whole-number constant."""
    if not isinstance(node, ir.Compare) or node.ops != (op,) or len(node.operands) != 2:
        return None
    slot, value = node.operands
    if isinstance(value, ir.Slot):
        slot, value = value, slot
    if (not isinstance(slot, ir.Slot) or slot.index is None or not slot.index.is_const
            or not value.is_const or isinstance(value.const, bool) or not isinstance(value.const, int)):
        return None
    return int(slot.index.const), value.const
