"""The Python emitter of the IR's statements and functions: every line of the generated module. An
:class:`ir.Stmt <gdl.compiler.ir.Stmt>` list is written as the lines of a generated function (effects, ``setup``,
chance continuations); the functions around them are written from their IR too (a move's effect function, the
continuations and outcome functions of an :class:`ir.ChancePoint`, an :class:`ir.Def` that stays a function,
utility and heuristic from their :class:`ir.Scoring`, ``quiet``, the end rules' ``_finish`` and ``_finish_at``
from the :class:`ir.EndRule` list, ``_legal`` from each :class:`ir.Move`). The passes build the IR and ask for
the lines here; the expressions inside are the expression emitter's (:mod:`gdl.compiler.emit_py`), the names and
span ids its context's (:class:`gdl.compiler.emit_py.PythonNames`). The module's global names of the tables a
pass registers follow conventions shared with the passes: ``_MT<i>``/``_MK<i>`` (move ``i``'s cache and
factory), ``_mv<i>_<k>`` (a specialised move), ``_CT<k>``/``_CK<k>``/``_CB<k>``/``_CD<k>`` (chance point ``k``).

A line is a ``(text, span)`` pair: the span is where a run-time error on that line is reported (the module's line
map). What the lines are, statement by statement:

* an assignment of a state slot: ``s[i] = v`` (``_w = i; s[_w] = v`` when it is the move's only write,
  ``AssignSlot.track_write``); ``x op= v`` is written ``s[i] = s[i] op v`` (``augmented``), inside the domain check
  ``_dom(..., lo, hi, sid)`` or ``_among(..., allowed, sid)`` when one is kept;
* ``let``/a local's assignment: ``L_x = v``; ``turn = p``: ``nt = p`` (``again``: ``nt = me``);
* ``if``/``elif``/``else``, ``for L_x in D:`` (``_poll(D, sid)`` when the loop may be long), ``break``;
  an empty block is ``pass``;
* a chance point (:class:`ir.Suspend`): the chance state is returned, ``s[_T] = -1`` then
  ``return tuple(s) + (point, me, nt, saved...)``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from gdl.compiler import ir
from gdl.compiler.emit_py import PythonExpressionEmitter, Unsupported
from gdl.diagnostics import Span

Line = tuple[str, Span | None]


class PythonStatementEmitter:
    """Writes IR statements as the Python back end's lines (each with the span its line map gives it)."""

    def __init__(self, exprs: PythonExpressionEmitter) -> None:
        self.exprs = exprs
        self.names = exprs.names

    def block(self, stmts: tuple[ir.Stmt, ...] | list[ir.Stmt], indent: int, span: Span | None) -> list[Line]:
        """The lines of ``stmts`` at ``indent`` (4 spaces each); ``pass`` at ``span`` when there are none."""
        out: list[Line] = []
        self.write_block(stmts, indent, span, out)
        return out

    def write_block(self, stmts: tuple[ir.Stmt, ...] | list[ir.Stmt], indent: int, span: Span | None,
                    out: list[Line]) -> None:
        start = len(out)
        for stmt in stmts:
            self.stmt(stmt, indent, out)
        if len(out) == start:
            out.append(("    " * indent + "pass", span))

    def stmt(self, stmt: ir.Stmt, indent: int, out: list[Line]) -> None:
        pad = "    " * indent
        expr = self.exprs.expr
        if isinstance(stmt, ir.AssignSlot):
            where = self.exprs.flat_slot(stmt.slot)
            target = "s[_w]" if stmt.track_write else f"s[{where}]"
            prefix = f"_w = {where}; " if stmt.track_write else ""
            out.append((f"{pad}{prefix}{target} = {self.assigned(stmt.value, target, stmt.augmented)}", stmt.span))
        elif isinstance(stmt, ir.AssignLocal):
            target = self.names.local_name(stmt.var)
            out.append((f"{pad}{target} = {self.assigned(stmt.value, target, stmt.augmented)}", stmt.span))
        elif isinstance(stmt, ir.Let):
            out.append((f"{pad}{self.names.local_name(stmt.var)} = {expr(stmt.value)}", stmt.span))
        elif isinstance(stmt, ir.SetTurn):
            out.append((f"{pad}nt = {expr(stmt.value)}", stmt.span))
        elif isinstance(stmt, ir.Break):
            out.append((pad + "break", stmt.span))
        elif isinstance(stmt, ir.If):
            keyword = "if"
            spans = stmt.test_spans or (stmt.span,) * len(stmt.branches)
            for (test, body), test_span in zip(stmt.branches, spans, strict=True):
                out.append((f"{pad}{keyword} {expr(test)}:", test_span))
                self.write_block(body, indent + 1, stmt.span, out)
                keyword = "elif"
            if stmt.orelse is not None:
                out.append((pad + "else:", stmt.span))
                self.write_block(stmt.orelse, indent + 1, stmt.span, out)
        elif isinstance(stmt, ir.For):
            domain = expr(stmt.domain)
            if stmt.poll:  # (counted toward the rule budget, the error at the domain's span)
                domain = f"_poll({domain}, {self.exprs.sid(stmt.domain_span or stmt.span)})"
            out.append((f"{pad}for {self.names.local_name(stmt.var)} in {domain}:", stmt.span))
            self.write_block(stmt.body, indent + 1, stmt.span, out)
        elif isinstance(stmt, ir.Suspend):
            saved = "".join(", " + self.names.local_name(var) for var in stmt.saved)
            out.append((f"{pad}s[_T] = -1", stmt.span))
            out.append((f"{pad}return tuple(s) + ({stmt.point}, me, nt{saved})", stmt.span))
        else:
            raise Unsupported(type(stmt).__name__)

    def assigned(self, value: ir.Expr, target: str, augmented: bool) -> str:
        """The text of an assigned value; ``x op= v`` as ``target op v`` (unparenthesised, in its check)."""
        if not augmented:
            return self.exprs.expr(value)
        check: Any = None
        new: ir.Expr | None = value
        if isinstance(value, ir.Check):
            check, new = value, value.value
        assert isinstance(new, ir.Binary) and new.right is not None
        text = f"{target} {new.op} {self.exprs.expr(new.right)}"
        if check is None:
            return text
        if check.kind == "among":
            return f"_among({text}, {self.names.constant(check.allowed)}, {self.exprs.sid(check.span)})"
        assert check.kind == "domain"
        return f"_dom({text}, {check.lo}, {check.hi}, {self.exprs.sid(check.span)})"

    # ----------------------------------------------------------------------------------------- moves

    def move_lines(self, move: ir.Move) -> list[Line]:
        """The lines of ``_legal`` that list ``move`` (at no indent): a loop per parameter (``_poll``ed, counting
        the moves listed so far, when it may be long), the guard, the move object from its factory's cache
        (``_MT<i>``, ``_MK<i>``); a specialised move: one guard and one move object ``_mv<i>_<k>`` per
        combination."""
        if move.specialised is not None:
            ids = move.specialised_ids or tuple(range(len(move.specialised)))
            return [(self.guarded(guard, f"add(_mv{move.index}_{k})"), move.span)
                    for k, (_, guard, _) in zip(ids, move.specialised, strict=True)]
        lines: list[Line] = []
        names = [self.names.local_name(p.var) for p in move.params]
        for depth, (param, name) in enumerate(zip(move.params, names, strict=True)):
            domain = self.exprs.expr(param.domain)
            if param.poll:
                domain = f"_poll({domain}, {self.exprs.sid(param.domain_span or param.span or move.span)}, out)"
            lines.append(("    " * depth + f"for {name} in {domain}:", param.span or move.span))
        key = "0" if not names else names[0] if len(names) == 1 else "(" + "".join(n + ", " for n in names) + ")"
        get = f"_MT{move.index}.get({key}) or _MK{move.index}({key})"
        lines.append(("    " * len(names) + self.guarded(move.guard, f"add({get})"), move.span))
        return lines

    def guarded(self, guard: ir.Expr | None, add: str) -> str:
        if guard is None:
            return add
        if isinstance(guard, ir.Const):  # (always true: no test; never: the move is still written, never added)
            return add if guard.value else f"if False: {add}"
        return f"if {self.exprs.expr(guard)}: {add}"

    def legal(self, moves: list[Line], otherwise: list[Line]) -> list[Line]:
        """``_legal(s)``: the moves' lines (``move_lines``), then, when none is legal, the ``otherwise`` moves'."""
        lines: list[Line] = [("def _legal(s):", None), ("    out = []", None), ("    add = out.append", None)]
        lines += [("    " + line, span) for line, span in moves]
        if otherwise:
            lines.append(("    if not out:", None))
            lines += [("        " + line, span) for line, span in otherwise]
        lines.append(("    return out", None))
        return lines

    # ------------------------------------------------------------------------------------------ ends

    def status(self, rule: ir.EndRule) -> str:
        """The status code an end rule sets: a constant, or ``base + who`` (``win who when ...``)."""
        status = rule.status
        if isinstance(status, ir.Const):
            return str(status.value)
        assert isinstance(status, ir.Binary) and isinstance(status.left, ir.Const) and status.right is not None
        return f"{status.left.value} + {self.exprs.expr(status.right)}"

    def end_checks(self, rules: Sequence[ir.EndRule]) -> list[Line]:
        """Each end rule in file order: the first that holds ends the game with its status."""
        return [(f"    if {self.exprs.expr(rule.condition)}: return _end(s, {self.status(rule)})", rule.span)
                for rule in rules]

    def finish(self, rules: Sequence[ir.EndRule]) -> list[Line]:
        """``_finish(s, me, nt)``: after a move, the turn (the next player unless the move set one), then the
        end rules."""
        return [("def _finish(s, me, nt):", None), ("    s[_T] = _NEXT[me] if nt is None else nt", None),
                *self.end_checks(rules), ("    return tuple(s)", None)]

    def incremental_ends(self, rules: Sequence[ir.EndRule], slots: Sequence[int], nvars: int) -> list[Line]:
        """``_finish_at(s, me, nt, k)``: the end rules after a move that changed only slot ``k`` (one of
        ``slots``; -1: none), through the table ``_CHK`` of one function per slot.

        The state before the move was not terminal, so every end condition was false there. A condition is a
        disjunction of terms (``EndRule.terms``), each a pure function of the slots it reads (``term_slots``); a
        term that does not read slot ``k`` is still false. So only the terms that read ``k`` (or read the turn, or
        slots not known at load time) need checking, in file order: for Connect Four, the few lines through the
        new disc instead of every line. A term that reads many slots is written once, as a function ``_term<i>``.
        """
        lines: list[Line] = []
        per_slot: dict[int, list[tuple[str, str, Span]]] = {k: [] for k in [*slots, -1]}
        shared: dict[str, str] = {}
        for rule in rules:
            status = self.status(rule)
            terms = rule.terms or (rule.condition,)
            counted: Sequence[Collection[int] | None] = rule.term_slots or [t.reads.slots_if_known for t in terms]
            for term, known in zip(terms, counted, strict=True):
                reads = None if known is None else frozenset(known)
                text = self.exprs.expr(term)
                if reads is None or len(reads) > 8:
                    if text not in shared:  # (the same code, written once)
                        shared[text] = f"_term{len(shared)}"
                        lines += [(f"def {shared[text]}(s):", rule.span), (f"    return {text}", rule.span)]
                    call = f"{shared[text]}(s)"
                else:
                    call = text
                for k, checks in per_slot.items():
                    if reads is None or k in reads:
                        checks.append((call, status, rule.span))
        table = ["_chk_all"] * (nvars + 1)
        for k, checks in per_slot.items():
            name = f"_chk{k}" if k >= 0 else "_chk_none"
            table[k] = name
            lines.append((f"def {name}(s):", None))
            lines += [(f"    if {check}: return _end(s, {status})", span) for check, status, span in checks]
            lines.append(("    return tuple(s)", None))
        lines.append(("def _chk_all(s):", None))  # a slot no single-write move writes: never called, but total
        lines += self.end_checks(rules)
        lines += [("    return tuple(s)", None), ("def _finish_at(s, me, nt, k):", None),
                  ("    s[_T] = _NEXT[me] if nt is None else nt", None), ("    return _CHK[k](s)", None),
                  (f"_CHK = ({', '.join(table)},)", None)]
        return lines

    # ------------------------------------------------------------------------------------- functions

    def def_function(self, d: ir.Def) -> list[Line]:
        """A def that stays a function: ``_d_name(s, params...)``; ``_tick()`` first when its body calls defs
        (defs calling defs twice would double the work per level: each call counts toward the rule budget)."""
        params = "".join(", " + self.names.local_name(var) for var in d.params)
        lines: list[Line] = [(f"def {self.names.def_name(d.name)}(s{params}):", d.span)]
        if d.calls_defs:
            lines.append(("    _tick()", d.span))
        lines.append((f"    return {self.exprs.expr(d.body)}", d.span))
        return lines

    def utility(self, scoring: ir.Scoring | None, players: int) -> list[Line]:
        """``_util(s)``: a number per player, a float (a fraction is exact inside the rules only); a value a
        float cannot hold is a rule error (the ``number`` check, ``_num``). Without ``utility``: it raises."""
        if scoring is None:
            return [("def _util(s):", None), ("    raise _NoUtility()", None)]
        value = self.exprs.expr(scoring.expr)
        value = f"float({value})" if scoring.expr.type.kind == "real" else value
        return self.per_player("_util", scoring, value, players)

    def heuristic(self, scoring: ir.Scoring | None, players: int) -> list[Line]:
        """``_heur(s)``: a float per player (``_flt``, also around a constant); without ``heuristic``: None."""
        if scoring is None:
            return [("def _heur(s):", None), ("    return None", None)]
        value = self.exprs.expr(scoring.expr)
        if not (isinstance(scoring.expr, ir.Check) and scoring.expr.kind == "float"):
            value = f"_flt({value}, {self.exprs.sid(scoring.span)})"
        return self.per_player("_heur", scoring, value, players)

    def per_player(self, fn: str, scoring: ir.Scoring, value: str, players: int) -> list[Line]:
        span = scoring.decl_span or scoring.span
        return [(f"def {fn}(s):", span),
                (f"    return tuple({value} for {self.names.local_name(scoring.var)} in range({players}))", span)]

    def quiet(self, condition: ir.Expr, span: Span) -> list[Line]:
        """``_quiet(s)``: whether a depth-limited search may stop at this position."""
        return [("def _quiet(s):", span), (f"    return {self.exprs.expr(condition)}", span)]

    def effect(self, fn: str, params: Sequence[ir.Var], body: list[Line], setup: bool, single: bool,
               span: Span) -> list[Line]:
        """``fn(params..., st)``: a move's effects (or ``setup``) as ``body`` (its lines), then the end rules
        (``_finish``; ``_finish_at`` with the slot ``_w`` the move wrote, when it writes one, ``single``)."""
        names = "".join(self.names.local_name(var) + ", " for var in params)
        lines: list[Line] = [(f"def {fn}({names}st):", span), ("    s = list(st)", span)]
        if setup:
            lines.append(("    me = 0; nt = 0", span))
        else:
            lines.append(("    me = s[_T]; nt = None" + ("; _w = -1" if single else ""), span))
        lines += body
        lines.append(("    return _finish_at(s, me, nt, _w)" if single else "    return _finish(s, me, nt)", span))
        return lines

    def restore(self, saved: tuple[ir.Var, ...], base: int) -> list[str]:
        """The move's locals kept in a chance state (from ``base``, where its extras start), read back."""
        return [f"    {self.names.local_name(var)} = st[{base + 3 + i}]" for i, var in enumerate(saved)]

    def continuation(self, fn: str, saved: tuple[ir.Var, ...], base: int, body: list[Line], span: Span,
                     bind: ir.Var | None = None) -> list[Line]:
        """``fn(outcome, st)``: restore the move's locals from the chance state, then bind the chance variable
        (after the restore, so that no saved local can overwrite nature's pick), then go on with ``body``."""
        lines: list[Line] = [(f"def {fn}(_pick, st):", span), (f"    s = list(st[:{base}])", span),
                             (f"    me = st[{base + 1}]; nt = st[{base + 2}]", span), ("    s[_T] = me", span)]
        lines += [(line, span) for line in self.restore(saved, base)]
        if bind is not None:
            lines.append((f"    {self.names.local_name(bind)} = _pick", span))
        lines += body
        lines.append(("    return _finish(s, me, nt)", span))
        return lines

    def outcomes(self, point: ir.ChancePoint, base: int) -> list[Line]:
        """``_co<k>(st)``: the outcomes of chance point ``k`` with their probabilities, computed in the chance
        state (``_CD<k>``: known at load time; ``_CT<k>``, ``_CK<k>``, ``_CB<k>``: its factory's cache, the
        factory, the labels). ``mover`` and ``turn`` are the mover there: a def's body reads ``turn`` from the
        state, and in the move it is the mover, not the chance state's CHANCE."""
        cid, span = point.point, point.span
        lines: list[Line] = [(f"def _co{cid}(st):", span)]
        if point.distribution is not None:
            lines.append((f"    return _CD{cid}", span))
            return lines
        lines.append((f"    me = st[{base + 1}]; s = list(st[:{base}]); s[_T] = me", span))
        lines += [(line, span) for line in self.restore(point.saved, base)]
        sid = self.exprs.sid(span)
        if point.var is None:  # labelled branches
            probabilities = ", ".join(self.exprs.expr(p) for p in point.probabilities)
            lines.append((f"    return _branches(_CB{cid}, ({probabilities},), _CK{cid}, {sid})", span))
            return lines
        assert point.domain is not None
        lines.append((f"    dom = _outcomes({self.exprs.expr(point.domain)}, {sid})", span))  # (bounded first)
        if point.weight is None:
            lines.append((f"    return _uniform(dom, _CT{cid}, _CK{cid}, {sid})", span))
        else:
            lines.append((f"    ws = [{self.exprs.expr(point.weight)} for {self.names.local_name(point.var)} in dom]",
                          point.weight_span or span))
            lines.append((f"    return _weighted(dom, ws, _CT{cid}, _CK{cid}, {sid})", span))
        return lines
