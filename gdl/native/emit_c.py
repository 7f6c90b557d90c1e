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
from itertools import product
from typing import Any

from gdl.compiler import ir
from gdl.native.c_runtime import RUNTIME
from gdl.native.emit_c_expr import (
    NO_TURN,
    Emitted,
    MoveCode,
    OutcomeCode,
    SymmetryMap,
    Unsupported,
    _Function,
    _int,
    _pos,
    _real,
    _terms,
    shape_of,
)
from gdl.native.emit_chance import ChanceEmitter


class CEmitter(ChanceEmitter):
    def __init__(self, program: ir.Program, symmetries: Sequence[SymmetryMap] = ()) -> None:
        self.p = program
        self.layout = program.layout
        if program.after_every:
            raise Unsupported("`after every`")
        self.vars = {v.name: v for v in self.layout.vars}
        self.nplayers = len(program.players)
        self.symmetries = list(symmetries)
        self.statics: list[str] = []
        self.static_names: dict[tuple[int, ...], str] = {}
        self.jagged_arrays: dict[int, tuple[Any, str, str]] = {}  # id(table) -> (table, offsets, items)
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
        self.chance_ranges(ranges)
        return ranges

    # ------------------------------------------------------------------ functions


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
        # (each term's reads once: a node computes them from its children at every call)
        terms = [[(term, term.reads) for term in _terms(rule.condition)] for rule in self.p.ends]
        slots = sorted({s for rule in terms for _, reads in rule
                        for s in (reads.slots if not (reads.turn or reads.dynamic) else ())}) if self.p.ends else []
        # One small function per written slot, not one switch with every case in it: an optimising C
        # compiler's time grows faster than a function's size (Connect-Four's end tests took most of its build).
        # Each is called out of line anyway, so a split build compiles them in its other unit (GDL_APART).
        signatures = [f"GDL_APART int g_ends_{k}(g_cell *s, int64_t me, gdl_error *e)" for k in slots]
        bodies = [self.function(signature, ["  (void)me;", *self.end_tests(terms, k), "fail:", "  return GDL_ERROR;"])
                  for k, signature in zip(slots, signatures, strict=True)]
        parts = [*(f"{signature};" for signature in signatures),
                 *(["#ifndef GDL_GAME_UNIT", *bodies, "#endif"] if bodies else [])]
        out = ["  switch (w) {", *(f"  case {k}: return g_ends_{k}(s, me, e);" for k in slots),
               "  default: break;", "  }"] if slots else []
        out.extend(self.end_tests(terms, None))
        parts.append(self.function("static int g_ends(g_cell *s, int64_t me, int64_t w, gdl_error *e)",
                                   ["  (void)me; (void)w;", *out, "fail:", "  return GDL_ERROR;"]))
        return "\n".join(parts)

    def end_tests(self, rule_terms: list[list[tuple[ir.Expr, ir.Reads]]], written: int | None) -> list[str]:
        """The end rules' tests (only the terms that read slot ``written`` or anything unknown; all if None).
        ``rule_terms``: per end rule, its terms with what each reads."""
        out = []
        for rule, each in zip(self.p.ends, rule_terms, strict=True):
            line, col = _pos(rule.span)
            terms = [term for term, reads in each
                     if written is None or reads.turn or reads.dynamic or written in reads.slots]
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

    def moves(self) -> tuple[list[str], list[MoveCode | OutcomeCode]]:
        """One function per move (effects, then the finish), ``g_legal`` and ``g_apply``."""
        parts: list[str] = []
        codes: list[MoveCode | OutcomeCode] = []
        legal: list[str] = []
        otherwise: list[str] = []
        dispatch: list[str] = []
        legal_fn = _Function()  # g_legal's locals, collected across the moves
        for move in self.p.moves:
            if move.specialised is not None:
                self.specialised_move(move, parts, codes, otherwise if move.otherwise else legal, dispatch, legal_fn)
                continue
            domains = [self.universe(param.domain) for param in move.params]
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
        self.max_outcomes = self.chance_outcomes(codes, parts, dispatch) if self.layout.has_chance else 1
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

    def specialised_move(self, move: ir.Move, parts: list[str], codes: list[MoveCode | OutcomeCode],
                         legal: list[str], dispatch: list[str], legal_fn: _Function) -> None:
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
        tails: list[str] = []
        for i, (values, name, param) in enumerate(zip(domains, names, move.params, strict=True)):
            arr = self.static_array(values) if values else "K_EMPTY"
            if param.domain.is_const:
                loop = f"for (int64_t _p{i} = 0; _p{i} < {len(values)}; _p{i}++)"
                lines.append(f"{indent}{loop} {{ {name} = {arr}[_p{i}];")
                tails.append("}")
            else:  # a list chosen at run time: the code numbers the value's place among every possible value
                head, tail = self.iterate(param.domain, name)
                lines.append(f"{indent}{head} int64_t _p{i} = 0; while ({arr}[_p{i}] != {name}) _p{i}++;")
                tails.append(tail)
            index = f"({index}) * {len(values)} + _p{i}"
            indent += "  "
        guard = self.ex(move.guard) if move.guard is not None else "1"
        lines.append(f"{indent}if ({guard}) {{")
        lines.append(f"{indent}  if (n >= G_MAX_MOVES) {{ gdl_fail(e, GDL_E_CAPACITY, 0, 0, n); goto fail; }}")
        lines.append(f"{indent}  moves[n++] = (int32_t)({base} + {index});")
        lines.append(f"{indent}}}")
        for tail in reversed(tails):
            indent = indent[:-2]
            lines.append(f"{indent}{tail}")
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
            value = self.number(p.utility.expr)
            body.append(f"  for (int _q = 0; _q < G_PLAYERS; _q++) {{ {var} = _q; u[_q] = {value}; }}")
            body.append("  return 0;")
        else:
            body.append("  return gdl_fail(e, GDL_E_NO_UTILITY, 0, 0, st);")
        parts.append(self.function("static int g_utilities(const g_cell *s, double *u, gdl_error *e)",
                                   [*body, "fail:", "  return GDL_ERROR;"]))
        if p.heuristic is not None:
            var = self.fn.local(p.heuristic.var)
            value = self.number(p.heuristic.expr)
            body = ["  int64_t me = s[G_TURN]; (void)me;",
                    f"  for (int _q = 0; _q < G_PLAYERS; _q++) {{ {var} = _q; h[_q] = {value}; }}",
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
        # A chance state is its own key, as in Python (gdl.symmetry.canonical_key): the maps move the decision
        # slots only, and a local kept across the chance point (a cell, a point of a move made per cell) would not
        # follow them, so two states that are no images of each other could share an image.
        lines += ["  if (G_HAS_CHANCE && s[G_TURN] == GDL_CHANCE) { g_pack_fast(s, w); return 0; }",
                  "  g_cell best[G_STATE_LEN];", "  memcpy(best, s, sizeof best);"]
        if any(m.value_maps for m in self.symmetries):
            lines += ["  g_cell img[G_STATE_LEN];", "  memcpy(img, s, sizeof img);"]
        for m in self.symmetries:
            if len(m.src) != n:
                raise Unsupported("symmetry maps of different lengths")
            src = self.static_array(m.src)
            if not m.value_maps:
                # Compared while it is read: most images differ from the best so far within a few slots,
                # so most are never built (this was a quarter of m,n,k's search).
                lines.append(f"  {{ int k = 0; while (k < {n} && s[{src}[k]] == best[k]) k++;")
                lines.append(f"    if (k < {n} && s[{src}[k]] < best[k])"
                             f" for (; k < {n}; k++) best[k] = s[{src}[k]]; }}")
                continue
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
        cell = cell_type(lo, hi)
        initial = [_int(v) for v in p.initial]
        initial += [0] * (n - len(initial)) if self.layout.has_chance else []  # (a chance state's extras: 0)
        if len(initial) != n:
            raise Unsupported("an initial state of another length than the layout")
        def_protos, def_bodies = self.defs()
        ends = self.ends_function()
        move_parts, codes = self.moves()
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
            f"#define G_MAX_MOVES {max(len(codes), 1)}",  # (the ABI's arrays have a place: no move may be legal)
            f"#define G_MAX_OUTCOMES {self.max_outcomes}",
            f"#define G_HAS_CHANCE {int(self.layout.has_chance)}",
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
            f"static const int64_t g_lo[{n}] = {{{', '.join(f'{r[0]}LL' for r in ranges)}}};",
            f"static const int64_t g_hi[{n}] = {{{', '.join(f'{r[1]}LL' for r in ranges)}}};",
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
            self.chance_function(),
            *scoring,
            keys,
        ]
        source = "\n".join([*header, *self.statics, *body]) + "\n"
        return Emitted(source, codes, n, ranges, shape_of(p))


def cell_type(lo: int, hi: int) -> str:
    """The C type of a state's cells: the smallest of 8, 16 and 32 bits that holds every value from ``lo`` to
    ``hi``, else 64 (the ranges are constants within 62 bits: a cell past 32 bits, such as a counter of 3e9,
    must not be cut to its low bits)."""
    for bits in (8, 16, 32):
        if -(1 << (bits - 1)) <= lo and hi < 1 << (bits - 1):
            return f"int{bits}_t"
    return "int64_t"


def emit(program: ir.Program, symmetries: Sequence[SymmetryMap] = ()) -> Emitted:
    """The C source of ``program`` (see the module docstring).

    :raises Unsupported: a construct the C emitter does not translate yet.
    """
    return CEmitter(program, symmetries).emit()
