"""The state every pass shares (symbol tables, diagnostics, generated lines) and the small services they use."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from gdl import ast
from gdl import types as T
from gdl.board import Board
from gdl.compiler import ir
from gdl.compiler.common import (
    MAX_ERRORS,
    MAX_FRACTION_BITS,
    POLL_WEIGHT,
    UNKNOWN_SIZE,
    VALUE_ERRORS,
    Code,
    CompileFailed,
    Ctx,
    DefInfo,
    Local,
    StateVar,
    TooManyErrors,
    _hashable,
    _q,
    derived,
    node,
)
from gdl.compiler.emit_py import PythonExpressionEmitter
from gdl.compiler.emit_py_stmt import PythonStatementEmitter
from gdl.diagnostics import Diagnostic, Span
from gdl.rule_helpers import RUNTIME_HELPERS, MoveFactory, OutcomeFactory
from gdl.types import Type


class CompilerBase:
    """The shared state of the passes, and what every pass uses."""

    def __init__(
        self, rules: ast.RuleFile, source: str, filename: str, overrides: dict[str, str], checked: bool
    ) -> None:
        self.rules = rules
        self.source = source
        self.filename = filename
        self.overrides = dict(overrides)
        self.checked = checked
        self.diagnostics: list[Diagnostic] = []
        self.globals: dict[str, Any] = {}
        self.const_ids: dict[Any, str] = {}
        self.spans: list[Span] = []
        self.lines: list[str] = []
        self.linemap: dict[int, Span] = {}
        # symbol tables
        self.params: dict[str, Any] = {}
        self.param_types: dict[str, Type] = {}
        self.param_decls: dict[str, ast.ParamDecl] = {}
        self.param_used: set[str] = set()
        self.players: tuple[str, ...] = ()
        self.enums: dict[str, tuple[str, ...]] = {}
        self.enum_members: dict[str, tuple[str, int]] = {}
        self.board: Board | None = None
        self.state: dict[str, StateVar] = {}
        self.defs: dict[str, DefInfo] = {}
        self.nvars = 0
        self.chance_points = 0
        self.has_chance = False
        self.turn_reads = 0  # how many reads of `turn` were compiled (to find the defs that read it)
        self.turn_slot = 0
        self.status_slot = 0
        self.extra_base = 0
        self.displayers: dict[str, Callable[[int], str]] = {}
        self.move_param_types: dict[str, tuple[Type, ...]] = {}
        self.factories: list[MoveFactory | OutcomeFactory] = []
        self.eager_moves: list[tuple[str, str, tuple[Any, ...], str]] = []
        self.distributions: list[tuple[str, OutcomeFactory, list[tuple[Any, float]]]] = []
        self.incremental_ends = False  # some move writes one slot: emit per-slot end checks
        self.allow_incremental_ends = True
        self.dead_depth = 0  # > 0 while compiling code that constant folding proved never runs
        self.written_slots: set[int] | None = set()  # by single-write moves; None: not known at load time
        # budgets (see UNROLL_BUDGET and the constants after it)
        self.errors: set[tuple[str, str, Span]] = set()
        self.loop_weight = 1  # the product of the sizes of the run-time loops around the code being compiled
        self.unrolled = 0
        self.inline_memo: dict[tuple[Any, ...], tuple[Code | None, tuple[Code, ...]]] = {}
        self.table_rows: dict[tuple[str, int], int | None] = {}
        """The longest row of each board table at each depth (one board per compile: keyed by function name)."""
        self.def_depth = 0
        self.def_calls = 0  # the def calls made by the def body being compiled (DefInfo.cost)
        self.loop_depth = 0
        self.after_every: tuple[ast.Stmt, ...] = ()  # the `after every move:` block
        self.binder_tag = ""  # inside an inlined def: its quantifiers bind fresh names (see inline_def)
        self.inlined = 0
        self.var_ids = itertools.count()  # the ids of the IR's variables
        self.local_pynames: dict[int, str] = {}  # the Python name of each IR variable (by id), for the emitter
        self.emitter = PythonExpressionEmitter(self)  # writes every expression's Python text from its IR
        self.statements = PythonStatementEmitter(self.emitter)  # writes the statements' lines from their IR
        # The IR the passes build and the statement emitter writes the module from; the ir.Program that holds it
        # is put together when asked for (Program.ir).
        self.ir_defs: list[ir.Def] = []  # the defs that stay functions
        self.ir_out: list[ir.Stmt] = []  # where compiled statements put their IR (see collecting)
        self.ir_chance: list[ir.ChancePoint] = []
        self.ir_moves: list[ir.Move] = []
        self.ir_ends: list[ir.EndRule] = []
        self.ir_scoring: dict[str, ir.Scoring] = {}  # "utility", "heuristic"
        self.ir_setup: ir.Effect | None = None
        self.max_saved = 0  # the most locals a chance state keeps
        self.ir_quiet: ir.Expr | None = None  # `quiet when`: its condition's IR

    def error(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic("error", code, message, span, self.filename, hint))
        if not self.dead_depth:  # (an unrolled move reports one problem once per value: count it once)
            self.errors.add((code, message, span))
            if len(self.errors) >= MAX_ERRORS:
                raise TooManyErrors()

    def warn(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic("warning", code, message, span, self.filename, hint))

    def declare_local(self, ctx: Ctx, name: str, local: Local, span: Span) -> Local:
        """Bind ``name`` in the innermost scope of ``ctx`` (docs/language.md, "Names and scope").

        A local may not take the name of a local that is visible here (`redeclared`): the inner one
        would silently change what the rest of the outer block means.
        """
        previous = ctx.lookup(name)
        if previous is not None:
            self.error("redeclared", f"{_q(name)} is already declared at line {previous.line}; use another name",
                       span)
        local.line = span.line
        ctx.scopes[-1][name] = local
        return local

    def local_node(self, local: Local, name: str) -> ir.Expr:
        """The IR of a local's value: an :class:`ir.Local` of its own variable, made on first use."""
        return local_node(local, name, self.var_ids, self.local_pynames)

    def local_var(self, local: Local, name: str) -> ir.Var:
        """The IR variable a binder (loop, aggregate, chance, parameter) binds."""
        return local_var(local, name, self.var_ids, self.local_pynames)

    # The context the Python emitter asks for (gdl.compiler.emit_py.PythonNames): `constant`, `span_id`,
    # `checked`, `board`, and these two.

    def local_name(self, var: ir.Var) -> str:
        """The Python name of a local (``L_x``; ``L3_x``: a binder of the third inlined def)."""
        return self.local_pynames[var.id]

    def def_name(self, name: str) -> str:
        """The Python name of the function of the def ``name``."""
        return self.defs[name].pyname

    def folded(self, value: Any, typ: Type) -> Code:
        """A value known at load time, named in the module now (``_k4``: names follow the order of folding)."""
        self.constant(value)
        return Code(typ, value)

    def fail(self, code: str, message: str, span: Span, hint: str | None = None) -> CompileFailed:
        self.error(code, message, span, hint)
        return CompileFailed()

    @contextlib.contextmanager
    def dead_code(self, dead: bool = True) -> Iterator[None]:
        """Compile code that constant folding proved never runs (a branch behind a constant test).

        Its type errors still count; errors about constant *values* (an index of ``none``
        in ``board[step(c, north)]`` at the top row) do not, since the value never occurs.
        """
        mark = len(self.diagnostics)
        self.dead_depth += dead
        try:
            yield
        except CompileFailed:
            if not dead:
                raise
            self.diagnostics[mark:] = [d for d in self.diagnostics[mark:] if d.code not in VALUE_ERRORS]
            if len(self.diagnostics) > mark:
                raise
        else:
            if dead:
                self.diagnostics[mark:] = [d for d in self.diagnostics[mark:] if d.code not in VALUE_ERRORS]
        finally:
            self.dead_depth -= dead

    def constant(self, value: Any) -> str:
        """A name in the generated module bound to ``value`` (so user data never becomes source)."""
        if isinstance(value, bool):
            return "True" if value else "False"
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**15:
            return f"({value})" if value < 0 else str(value)
        key = (type(value).__name__, value) if _hashable(value) else None
        if key is not None and key in self.const_ids:
            return self.const_ids[key]
        name = f"_k{len(self.globals)}"
        self.globals[name] = value
        if key is not None:
            self.const_ids[key] = name
        return name

    def span_id(self, span: Span) -> int:
        self.spans.append(span)
        return len(self.spans) - 1

    def emit(self, line: str, span: Span | None = None) -> None:
        self.lines.append(line)
        if span is not None:
            self.linemap[len(self.lines)] = span

    def emit_header(self) -> None:
        self.globals.update(RUNTIME_HELPERS)
        self.globals["_T"] = self.turn_slot
        self.globals["_NEXT"] = tuple((i + 1) % len(self.players) for i in range(len(self.players)))

    def expr(self, e: ast.Expr, ctx: Ctx) -> Code:
        method = getattr(self, "expr_" + type(e).__name__)
        return method(e, ctx)

    @contextlib.contextmanager
    def collecting(self) -> Iterator[list[ir.Stmt]]:
        """Collect the IR of the statements compiled inside the block."""
        saved, self.ir_out = self.ir_out, []
        try:
            yield self.ir_out
        finally:
            self.ir_out = saved

    def needs_poll(self, domain: Code) -> bool:
        """Whether a run-time loop over ``domain`` here may be long (so it counts toward the rule budget)."""
        return domain.long_range or self.loop_weight * self.domain_size(domain) > POLL_WEIGHT

    @contextlib.contextmanager
    def loop_body(self, domain: Code) -> Iterator[None]:
        """Compile the body of a run-time loop over ``domain`` (its size weighs on the loops inside)."""
        saved = self.loop_weight
        self.loop_weight = min(saved * self.domain_size(domain), 1 << 62)
        try:
            yield
        finally:
            self.loop_weight = saved

    def domain_size(self, domain: Code) -> int:
        """The most values a loop over ``domain`` sees: a constant's length, the longest row of a board
        table looked up at run time (``neighbors(c)``, ``ray(c, d)``), else ``UNKNOWN_SIZE``."""
        if domain.is_const:
            return len(domain.const)
        return UNKNOWN_SIZE if domain.rows is None else domain.rows

    def check_fraction(self, value: Any, span: Span) -> None:
        """A fraction folded at load time must stay small (squaring one repeatedly doubles its digits)."""
        if isinstance(value, Fraction) and max(value.numerator.bit_length(),
                                               value.denominator.bit_length()) > MAX_FRACTION_BITS:
            raise self.fail("too-large", f"this exact fraction needs more than {MAX_FRACTION_BITS} bits; "
                            "numbers computed when the game loads must stay small", span)

    def require(self, code: Code, typ: Type, span: Span) -> None:
        if not T.assignable(code.type, typ):
            raise self.fail("type", f"expected {typ}, found {code.type}", span)

    def coerce(self, code: Code, typ: Type, span: Span) -> Code:
        """``code`` as a value of ``typ``; a `T or none` is accepted where a `T` is expected, checked at run time."""
        if T.assignable(code.type, typ):
            return code
        if code.type.optional and T.assignable(code.type.with_optional(False), typ):
            if code.is_const:
                raise self.fail("type", f"expected {typ}, found none", span)
            typ = code.type.with_optional(False)
            return derived(typ, [code], fails=True,
                           node=lambda: ir.Check(typ, kind="some", value=node(code), span=span))
        raise self.fail("type", f"expected {typ}, found {code.type}", span)

    def require_number(self, code: Code, span: Span) -> None:
        if not code.type.is_number:
            raise self.fail("type", f"expected a number, found {code.type}", span)

    def splice(self, out: Sequence[str | tuple[str, Span | None]]) -> None:
        for item in out:
            if isinstance(item, tuple):
                self.emit(item[0], item[1])
            else:
                self.emit(item)

    if TYPE_CHECKING:  # implemented by the passes (gdl.compiler.builder.Compiler mixes them in)
        def declare_params(self, decls: list[ast.ParamDecl]) -> None: ...
        def is_fresh(self, name: str) -> bool: ...
        def enum_param_default(self, decl: ast.ParamDecl) -> tuple[Any, Type]: ...
        def parse_override(self, name: str, text: str, default: Any, typ: Type,
                           domain: Sequence[Any] | None) -> Any: ...
        def check_overrides(self) -> None: ...
        def collect_names(self, decls: Sequence[ast.Decl]) -> None: ...
        def collect_meta(self, metas: list[ast.MetaDecl]) -> dict[str, str]: ...
        def declare_players(self, decls: list[ast.PlayersDecl]) -> None: ...
        def declare_enums(self, decls: list[ast.EnumDecl]) -> None: ...
        def declare_board(self, decls: list[ast.BoardDecl]) -> None: ...
        def declare_symmetry(self, decls: list[ast.SymmetryDecl]) -> tuple[str, ...]: ...
        def const_int(self, expr: ast.Expr, ctx: Ctx, what: str) -> int: ...
        def declare_state(self, decls: list[ast.StateDecl]) -> None: ...
        def index_domain(self, expr: ast.Expr, ctx: Ctx) -> tuple[Type, list[int]]: ...
        def value_type(self, texpr: ast.TypeExpr, ctx: Ctx) -> tuple[Type, int, int, frozenset[int] | None]: ...
        def declare_defs(self, decls: list[ast.DefDecl]) -> None: ...
        def global_name_kind(self, name: str) -> str | None: ...
        def holds_every(self, var: StateVar) -> bool: ...
        def describe_domain(self, var: StateVar) -> str: ...
        def displayer(self, typ: Type) -> Callable[[Any], str]: ...
        def visible_names(self, ctx: Ctx) -> list[str]: ...
        def global_name(self, name: str, span: Span, ctx: Ctx) -> Code | None: ...
        def slot(self, var: StateVar, indices: Sequence[ast.Expr], ctx: Ctx, span: Span) -> Code: ...
        def sequence_literal(self, items: Sequence[ast.Expr], span: Span, ctx: Ctx, build: Callable) -> Code: ...
        def unrolled_quantifier(self, e: ast.Quantifier, domain: Code, ctx: Ctx, typ: Type) -> Code | None: ...
        def conjoin(self, filt: Code | None, body: Code) -> Code: ...
        def implication(self, filt: Code | None, body: Code) -> Code: ...
        def conjunction(self, codes: list[Code]) -> Code: ...
        def disjunction(self, codes: list[Code]) -> Code: ...
        def indicator(self, cond: Code) -> Code: ...
        def total(self, codes: list[Code], typ: Type) -> Code: ...
        def general_quantifier(self, e: ast.Quantifier, domain: Code, ctx: Ctx) -> Code: ...
        def call_def(self, info: DefInfo, args: list[Code], span: Span, ctx: Ctx,
                     arg_exprs: Sequence[ast.Expr] = ()) -> Code: ...
        def within_domain(self, arg: Code, bounds: tuple[int, int] | None, info: DefInfo, i: int,
                          span: Span) -> Code: ...
        def inline_def(self, info: DefInfo, args: list[Code]) -> Code | None: ...
        def inline_body(self, info: DefInfo, args: list[Code]) -> Code | None: ...
        def compile_def(self, info: DefInfo) -> None: ...
        def param_type(self, p: ast.Param, ctx: Ctx) -> Type: ...
        def compile_moves(self, moves: list[ast.MoveDecl]) -> None: ...
        def compile_move(self, index: int, move: ast.MoveDecl) -> ir.Move: ...
        def compile_move_loops(self, index: int, move: ast.MoveDecl) -> ir.Move: ...
        def constant_combinations(self, move: ast.MoveDecl) -> list[tuple[Any, ...]] | None: ...
        def compile_effect(self, fn: str, params: Sequence[ir.Var], types: list[Type], body: Sequence[ast.Stmt],
                           ctx: Ctx, span: Span, setup: bool = False) -> ir.Effect: ...
        def writes_state_once(self, body: Sequence[ast.Stmt]) -> bool: ...
        def compile_segment(self, stmts: list[ast.Stmt], ctx: Ctx, after: list[tuple[list[ast.Stmt], Ctx]],
                            out: list[tuple[str, Span | None]], span: Span) -> bool: ...
        def compile_block(self, stmts: list[ast.Stmt], ctx: Ctx, after: list[tuple[list[ast.Stmt], Ctx]],
                          depth: int, span: Span) -> bool: ...
        def compile_stmt(self, stmt: ast.Stmt, ctx: Ctx, after: list[tuple[list[ast.Stmt], Ctx]], depth: int,
                         rest: list[ast.Stmt]) -> None: ...
        def check_block_depth(self, depth: int, span: Span) -> None: ...
        def assignment(self, stmt: ast.Assign, ctx: Ctx) -> None: ...
        def compile_setup(self, setup: ast.SetupDecl | None) -> None: ...
        def initial_values(self, var: StateVar, ctx: Ctx) -> list[Any]: ...
        def compile_chance(self, stmt: ast.Stmt, ctx: Ctx, after: list[tuple[list[ast.Stmt], Ctx]]) -> None: ...
        def continuation_body(self, first: Sequence[ast.Stmt], kctx: Ctx,
                              after: list[tuple[list[ast.Stmt], Ctx]], span: Span) -> list[tuple[str, Span | None]]: ...
        @staticmethod
        def resumed_scope(block: Ctx, kctx: Ctx) -> Ctx: ...
        def compile_chance_var(self, stmt: ast.Chance, cid: int, ctx: Ctx, kctx: Ctx, saved: tuple[ir.Var, ...],
                               after: list[tuple[list[ast.Stmt], Ctx]]) -> None: ...
        def check_constant_weights(self, weights: list[Any], span: Span) -> None: ...
        def compile_chance_branches(self, stmt: ast.ChanceBranches, cid: int, ctx: Ctx, kctx: Ctx,
                                    saved: tuple[ir.Var, ...], after: list[tuple[list[ast.Stmt], Ctx]]) -> None: ...
        def compile_ends(self, ends: list[ast.EndDecl], utilities: list[ast.UtilityDecl]) -> list[str]: ...
        def end_conditions(self, end: ast.EndDecl, base: int) -> list[ir.EndRule]: ...
        def end_binder(self, end: ast.EndDecl) -> str | None: ...
        def end_utilities(self, kind: str, who: int) -> tuple[float, ...] | None: ...
        def describe_end(self, kind: str, who: int) -> str: ...
        def compile_utilities(self, ends: list[ast.EndDecl], utilities: list[ast.UtilityDecl],
                              zero_sums: list[ast.ZeroSumDecl]) -> tuple[tuple[float, float] | None, bool]: ...
        def per_player_number(self, var: str, expr: ast.Expr, span: Span, game_over: bool = False) -> ir.Scoring: ...
        def compile_heuristic(self, heuristics: list[ast.HeuristicDecl]) -> None: ...
        def compile_render(self, renders: list[ast.RenderDecl]) -> tuple[str | None, dict[int, str]]: ...
        def warn_unused(self) -> None: ...


def local_node(local: Local, name: str, var_ids: Iterator[int], pynames: dict[int, str]) -> ir.Expr:
    """The IR of a local's value: an :class:`ir.Local` of its own variable (numbered from ``var_ids``, its Python
    name kept in ``pynames``), made on first use. (A function, not a method: the IR made later must not keep
    the compiler alive.)"""
    if local.node is None:
        var = ir.Var(next(var_ids), name, local.type, local.bounds, local.mutable)
        pynames[var.id] = local.pyname
        local.node = ir.Local(local.type, var=var)
    return local.node


def local_var(local: Local, name: str, var_ids: Iterator[int], pynames: dict[int, str]) -> ir.Var:
    """The IR variable a binder (loop, aggregate, chance, parameter) binds."""
    node = local_node(local, name, var_ids, pynames)
    assert isinstance(node, ir.Local) and node.var is not None
    return node.var
