"""Check a parsed rule file and compile it into Python functions over a flat state tuple.

One walk over the AST does both jobs: every expression is type-checked and
turned into a fragment of Python source (:class:`Code`), folding whatever is
known at load time (parameters, board geometry) into constants. Problems are
collected as diagnostics; only a rule file without errors is turned into a
module with ``compile()`` and wrapped as a :class:`gdl.runtime.CompiledGame`.

Generated source never contains user text: identifiers are mangled
(``u_<name>``, ``L_<name>``), and every constant -- numbers, tuples, strings for
display -- is passed in through the module's namespace, not spelled in the
source. A map from generated lines back to rule-file spans (as Jinja's
``debug_info``) lets runtime errors point at the rule that failed.

State layout (a tuple): the state variables, flattened in declaration order;
then ``turn`` (player index, CHANCE=-1 or TERMINAL=-2); then ``status`` (0 while
the game runs; otherwise which end rule fired). A chance state in the middle
of a move appends the pending chance point, the mover, the turn assigned so
far and the move's local values, so the move can resume with nature's pick.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from gdl import ast
from gdl import types as T
from gdl.board import Board
from gdl.diagnostics import Diagnostic, ParameterError, RuleFileError, Span, did_you_mean
from gdl.runtime import MAX_OUTCOMES, RUNTIME_HELPERS, MoveFactory, OutcomeFactory
from gdl.symmetry import SYMMETRY_NAMES
from gdl.symmetry import generators as symmetry_generators
from gdl.symmetry import why_not as symmetry_why_not
from gdl.types import Type

NOT_CONST = object()
WIN, LOSE, DRAW = 1, -1, 0
RESERVED = {"mover", "turn", "win", "lose", "draw", "true", "false", "none"}
MAX_DOMAIN = 1_000_000  # a move parameter or loop over more values than this is refused
MAX_STATE = 1_000_000  # slots
UNROLL_MOVES = 128  # moves with at most this many parameter combinations get one specialised function each
UNROLL_QUANTIFIER = 128  # aggregates over at most this many constant values are written out in full
INLINE_LIMIT = 20000  # characters of generated source a function call may be inlined into
# Compile-time budgets: past them the compiler stops an optimisation (the code stays correct, only slower)
# or refuses the rule file with `too-large`/`too-deep` before Python's own limits turn into a traceback.
UNROLL_BUDGET = 20_000  # aggregate bodies written out per rule file (nested unrolling multiplies them)
INLINE_BUDGET = 20_000  # def bodies inlined per rule file (defs that call defs twice double them per level)
MAX_DEF_DEPTH = 40  # defs calling defs, nested (a deeper chain would exhaust Python's recursion)
MAX_BLOCK_DEPTH = 40  # `if`/`for` blocks nested in one move (Python refuses 100 levels of indentation)
MAX_LOOP_DEPTH = 15  # `for` loops, or move parameters, nested (Python refuses 20 nested loops)
MAX_ERRORS = 100  # errors reported per rule file; checking stops at the 100th
MAX_FRACTION_BITS = 1024  # numerator or denominator of a fraction computed at load time
# Run-time polling (see gdl.runtime): a loop whose size times the sizes of the loops around it may pass
# POLL_WEIGHT counts its work; a domain known only at run time counts as UNKNOWN_SIZE values.
POLL_WEIGHT = 100_000
UNKNOWN_SIZE = 1_000
SMALL_NUMBER = 1 << 62  # a product proved within this needs no run-time check of its size (see runtime._big)
# Diagnostics about a constant's value rather than its type: ignored in code that never runs.
VALUE_ERRORS = ("index-out-of-range", "division-by-zero", "out-of-domain", "too-large", "empty", "bad-probability",
                "empty-chance")


@dataclass(slots=True)
class Code:
    """A compiled expression: Python source, its type, and its value when known at load time."""

    src: str
    type: Type
    const: Any = NOT_CONST
    terms: tuple[str, ...] | None = None
    """For a disjunction: the source of each disjunct (end rules are re-checked term by term)."""
    bounds: tuple[Any, Any] | None = None
    """Low and high of a number's possible values, when known (an assignment inside them needs no check)."""

    @property
    def is_const(self) -> bool:
        return self.const is not NOT_CONST


@dataclass(slots=True)
class StateVar:
    name: str
    decl: ast.StateDecl
    type: Type
    offset: int
    dims: list[tuple[int, int]]  # (low index, size) per dimension
    index_types: list[Type]
    lo: int
    hi: int
    used: bool = False
    values: frozenset[int] | None = None  # the values lo..hi allows, when not all of them (`orthogonal`)

    def holds(self, value: int) -> bool:
        return self.lo <= value <= self.hi and (self.values is None or value in self.values)

    @property
    def size(self) -> int:
        n = 1
        for _, size in self.dims:
            n *= size
        return n


@dataclass(slots=True)
class DefInfo:
    decl: ast.DefDecl
    pyname: str
    param_types: list[Type] = field(default_factory=list)
    param_bounds: list[tuple[int, int] | None] = field(default_factory=list)  # of a whole-number range domain
    result: Code | None = None  # set once compiled
    in_progress: bool = False
    used: bool = False
    reads_turn: bool = False  # its body reads `turn`, directly or through defs it calls (not in `utility`)


@dataclass(slots=True)
class Local:
    pyname: str
    type: Type
    mutable: bool
    const: Any = NOT_CONST  # a loop or parameter value fixed at load time (unrolled code)
    bounds: tuple[Any, Any] | None = None  # the values it can take, for a number
    line: int = 0  # where it is declared (for `redeclared`)
    used: bool = False  # read somewhere (for `unused-binder`); set while compiling, never from generated text


@dataclass(slots=True)
class Ctx:
    """Where an expression is compiled: which locals are visible, which extras are."""

    scopes: list[dict[str, Local]]
    in_effect: bool = False  # inside a move's effects (mover, assignment allowed)
    in_move: bool = False  # inside a move's guard or effects (mover allowed)
    in_loop: bool = False
    in_setup: bool = False
    in_end: bool = False  # end rules, utility, heuristic: `no_moves` is allowed
    track_write: bool = False  # the effect writes the state once: record the slot in `_w`
    scoring: bool = False  # utility, heuristic: the state may be terminal or chance, `turn` -2 or -1
    game_over: bool = False  # utility: nobody is to move, so `turn` means nothing

    def lookup(self, name: str) -> Local | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def child(self, **changes: Any) -> Ctx:
        ctx = Ctx([*self.scopes, {}], self.in_effect, self.in_move, self.in_loop, self.in_setup, self.in_end,
                  self.track_write, self.scoring, self.game_over)
        for key, value in changes.items():
            setattr(ctx, key, value)
        return ctx

    def all_locals(self) -> list[tuple[str, Local]]:
        seen: dict[str, Local] = {}
        for scope in self.scopes:
            seen.update(scope)
        return list(seen.items())


class CompileFailed(Exception):
    """Raised inside the walk to abandon one declaration after reporting a diagnostic."""


class TooManyErrors(Exception):
    """Raised by the ``MAX_ERRORS``-th error: the rest of the file is not checked (each error costs a hint)."""


@dataclass
class Program:
    """Everything the runtime needs: generated functions and tables, no AST."""

    name: str
    description: str | None
    meta: dict[str, str]
    players: tuple[str, ...]
    parameters: dict[str, Any]
    nvars: int
    state_vars: list[StateVar]
    board: Board | None
    render_var: str | None
    render_symbols: dict[int, str]
    zero_sum: bool
    utility_bounds: tuple[float, float] | None
    has_chance: bool
    has_heuristic: bool
    namespace: dict[str, Any]
    source: str
    linemap: dict[int, Span]
    spans: list[Span]
    move_actions: list[str]
    fingerprint: str
    enums: dict[str, tuple[str, ...]]
    displayers: dict[str, Callable[[int], str]]
    end_descriptions: list[str]
    factories: list[MoveFactory | OutcomeFactory]
    chance_points: int
    eager_moves: list[tuple[str, str, tuple[Any, ...], str]]
    distributions: list[tuple[str, OutcomeFactory, list[tuple[Any, float]]]]
    symmetries: tuple[str, ...] = ()  # declared board symmetries (generator names), checked at run time
    symmetry_span: Span | None = None
    move_param_types: dict[str, tuple[Type, ...]] = field(default_factory=dict)
    """Each action's parameter types: a `column` or `row` parameter also parses from its index (`drop(3)`)."""
    win_loss: bool = False
    """Two players, and every end is a win for one and a loss for the other: no draws, no other scores."""


def compile_rules(
    rules: ast.RuleFile,
    source: str,
    filename: str = "<string>",
    overrides: dict[str, str] | None = None,
    checked: bool = False,
    incremental_ends: bool = True,
) -> tuple[Program, list[Diagnostic]]:
    """Check and compile; returns the program and the warnings.

    ``incremental_ends=False`` re-checks every end rule in full after every move (the tests
    compare the two).

    :raises RuleFileError: the rule file has errors (all of them are listed).
    :raises ParameterError: an override names no parameter or has a bad value.
    """
    compiler = Compiler(rules, source, filename, overrides or {}, checked)
    compiler.allow_incremental_ends = incremental_ends
    try:
        program = compiler.run()
    except TooManyErrors:
        program = None
        compiler.diagnostics.append(Diagnostic(
            "error", "too-large", f"{MAX_ERRORS} errors: the rest of the file was not checked",
            compiler.diagnostics[-1].span, filename, "fix these first, then check again"))
    except RecursionError:  # the limits on nesting each kind of thing did not stop a mix of them
        program = None
        compiler.diagnostics.append(Diagnostic(
            "error", "too-deep", "the rules nest too deeply to compile (expressions inside defs inside defs ...)",
            Span(1, 1, 1, 2), filename, "flatten the deepest expressions, or call fewer defs inside defs"))
    # A move unrolled per parameter value compiles its body once per value: report each problem once.
    compiler.diagnostics = list(dict.fromkeys(compiler.diagnostics))
    errors = [d for d in compiler.diagnostics if d.is_error]
    if errors or program is None:
        raise RuleFileError(compiler.diagnostics, source)
    return program, compiler.diagnostics


def _bounds(code: Code) -> tuple[Any, Any] | None:
    """The interval of a number's values: a constant's own, else what the compiler derived."""
    if code.is_const and isinstance(code.const, int | Fraction) and not isinstance(code.const, bool):
        return (code.const, code.const)
    return code.bounds


def _var_bounds(var: StateVar) -> tuple[Any, Any] | None:
    return (var.lo, var.hi) if var.type.kind == "int" and not var.type.optional else None  # none is -1


def _domain_bounds(domain: Code) -> tuple[Any, Any] | None:
    """The interval of a loop or chance variable over a domain known at load time."""
    if not domain.is_const or not (domain.type.elem and domain.type.elem.kind == "int"):
        return None
    values = list(domain.const)
    return (min(values), max(values)) if values else None


def _arith_bounds(op: str, a: tuple[Any, Any] | None, b: tuple[Any, Any] | None) -> tuple[Any, Any] | None:
    """Interval arithmetic for ``+``, ``-`` and ``*`` (None for other operators or unknown operands)."""
    if a is None or b is None:
        return None
    if op == "+":
        return (a[0] + b[0], a[1] + b[1])
    if op == "-":
        return (a[0] - b[1], a[1] - b[0])
    if op == "*":
        corners = [x * y for x in a for y in b]
        return (min(corners), max(corners))
    return None


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


def _q(name: str) -> str:
    return f"`{name}`"


class Compiler:
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
        self.inline_memo: dict[tuple[Any, ...], Code | None] = {}
        self.def_depth = 0
        self.loop_depth = 0
        self.long_ranges: set[str] = set()  # sources of ranges computed at run time, not proved short
        self.after_every: tuple[ast.Stmt, ...] = ()  # the `after every move:` block
        self.binder_tag = ""  # inside an inlined def: its quantifiers bind fresh names (see inline_def)
        self.inlined = 0

    # ------------------------------------------------------------ diagnostics
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

    # ------------------------------------------------------------- constants
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

    # ----------------------------------------------------------------- driver
    def run(self) -> Program | None:
        decls = self.rules.decls
        by_kind: dict[type, list[Any]] = {}
        for decl in decls:
            by_kind.setdefault(type(decl), []).append(decl)
        game_decls = by_kind.get(ast.GameDecl, [])
        for extra in game_decls[1:]:
            self.error("duplicate", "the game is named twice", extra.span)
        game = game_decls[0] if game_decls else None
        if game is None:
            self.warn("missing-game", "no `game Name` line: the game has no name", Span(1, 1, 1, 2),
                      'start the file with `game Name "one-line description"`')
        self.collect_names(decls)
        self.declare_params(by_kind.get(ast.ParamDecl, []))
        self.check_overrides()
        self.declare_players(by_kind.get(ast.PlayersDecl, []))
        self.declare_enums(by_kind.get(ast.EnumDecl, []))
        self.declare_board(by_kind.get(ast.BoardDecl, []))
        self.declare_defs(by_kind.get(ast.DefDecl, []))
        self.declare_state(by_kind.get(ast.StateDecl, []))
        symmetries = self.declare_symmetry(by_kind.get(ast.SymmetryDecl, []))
        if not self.players:
            return None
        meta = self.collect_meta(by_kind.get(ast.MetaDecl, []))
        self.emit_header()
        setup = by_kind.get(ast.SetupDecl, [])
        for extra in setup[1:]:
            self.error("duplicate", "there can be only one `setup` block", extra.span)
        moves = by_kind.get(ast.MoveDecl, [])
        afters = by_kind.get(ast.AfterDecl, [])
        for extra in afters[1:]:
            self.error("duplicate", "there can be only one `after every move` block", extra.span)
        self.after_every = afters[0].body if afters else ()
        self.compile_moves(moves)
        self.compile_setup(setup[0] if setup else None)
        ends = by_kind.get(ast.EndDecl, [])
        utilities = by_kind.get(ast.UtilityDecl, [])
        end_descriptions = self.compile_ends(ends, utilities)
        bounds, zero_sum = self.compile_utilities(ends, utilities, by_kind.get(ast.ZeroSumDecl, []))
        heuristics = by_kind.get(ast.HeuristicDecl, [])
        self.compile_heuristic(heuristics)
        render_var, symbols = self.compile_render(by_kind.get(ast.RenderDecl, []))
        self.warn_unused()
        if any(d.is_error for d in self.diagnostics):
            return None
        source = "\n".join(self.lines) + "\n"
        namespace = dict(self.globals)
        fingerprint = hashlib.sha256(
            (self.source + "\n" + json.dumps(self.params, sort_keys=True, default=_json_exact)).encode()
        ).hexdigest()[:16]
        return Program(
            name=game.name if game else "game",
            description=game.description if game else None,
            meta=meta,
            players=self.players,
            parameters={name: self.enums[name][value] if self.param_types[name].kind == "enum"
                        else float(value) if isinstance(value, Fraction) else value  # numbers leave as int or float
                        for name, value in self.params.items()},
            nvars=self.nvars,
            state_vars=list(self.state.values()),
            board=self.board,
            render_var=render_var,
            render_symbols=symbols,
            zero_sum=zero_sum,
            utility_bounds=bounds,
            has_chance=self.has_chance,
            has_heuristic=bool(heuristics),
            namespace=namespace,
            source=source,
            linemap=self.linemap,
            spans=self.spans,
            move_actions=[m.name for m in moves],
            move_param_types=self.move_param_types,
            win_loss=len(self.players) == 2 and not utilities and bool(ends)
            and all(e.kind in ("win", "lose") for e in ends),
            fingerprint=fingerprint,
            enums=self.enums,
            displayers=self.displayers,
            end_descriptions=end_descriptions,
            factories=self.factories,
            chance_points=self.chance_points,
            eager_moves=self.eager_moves,
            distributions=self.distributions,
            symmetries=symmetries,
            symmetry_span=by_kind[ast.SymmetryDecl][0].span if symmetries else None,
        )

    def collect_names(self, decls: Sequence[ast.Decl]) -> None:
        """Report names declared twice, whatever their kind."""
        seen: dict[str, Span] = {}

        def declare(name: str, span: Span) -> None:
            if name in RESERVED:
                self.error("reserved-name", f"{_q(name)} is a reserved word and cannot be declared", span)
            elif name in seen:
                line = seen[name].line
                self.error("duplicate", f"{_q(name)} is already declared on line {line}", span)
            else:
                seen[name] = span

        for decl in decls:
            if isinstance(decl, (ast.ParamDecl, ast.StateDecl, ast.DefDecl)):
                declare(decl.name, decl.span)
            elif isinstance(decl, ast.EnumDecl):
                declare(decl.name, decl.span)
                for member, span in decl.members:
                    declare(member, span)
            elif isinstance(decl, ast.PlayersDecl):
                for member, span in decl.names:
                    declare(member, span)
        move_names: dict[str, Span] = {}
        for decl in decls:
            if isinstance(decl, ast.MoveDecl):
                if decl.name in move_names:
                    self.error("duplicate", f"move {_q(decl.name)} is already declared on line "
                               f"{move_names[decl.name].line}", decl.span)
                move_names[decl.name] = decl.span

    def collect_meta(self, metas: list[ast.MetaDecl]) -> dict[str, str]:
        known = ("description", "source", "value", "author", "rules")
        out: dict[str, str] = {}
        for meta in metas:
            if meta.key not in known:
                hint = did_you_mean(meta.key, known) or f"known keys: {', '.join(known)}"
                self.warn("unknown-meta", f"unknown metadata key {_q(meta.key)}", meta.span, hint)
            out[meta.key] = meta.value
        return out

    # ------------------------------------------------------------- parameters
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
                        self.displayers[decl.name] = _names_display(members)
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

    # ----------------------------------------------------------- declarations
    def declare_players(self, decls: list[ast.PlayersDecl]) -> None:
        if not decls:
            self.error("missing-players", "the rule file declares no players", Span(1, 1, 1, 2),
                       "add a line like `players X, O`")
            return
        for extra in decls[1:]:
            self.error("duplicate", "players are declared twice", extra.span)
        names = tuple(name for name, _ in decls[0].names)
        if len(names) > 16:
            self.error("too-many-players", "at most 16 players", decls[0].span)
            return
        self.players = names
        self.displayers["player"] = _names_display(names)

    def declare_enums(self, decls: list[ast.EnumDecl]) -> None:
        for decl in decls:
            members = tuple(name for name, _ in decl.members)
            self.enums[decl.name] = members
            for index, member in enumerate(members):
                self.enum_members.setdefault(member, (decl.name, index))
            self.displayers[decl.name] = _names_display(members)

    def declare_board(self, decls: list[ast.BoardDecl]) -> None:
        if not decls:
            return
        for extra in decls[1:]:
            self.error("duplicate", "only one board can be declared", extra.span)
        decl = decls[0]
        empty = Ctx([{}])
        try:
            rows = self.const_int(decl.rows, empty, "the number of rows")
            cols = self.const_int(decl.cols, empty, "the number of columns")
        except CompileFailed:
            return
        if not (1 <= rows <= 99 and 1 <= cols <= 26):
            self.error("board-size", f"a board has 1..99 rows and 1..26 columns, not {rows} x {cols}", decl.span)
            return
        if decl.shape not in (None, "square", "hex"):
            self.error("board-shape", f"unknown board shape {_q(decl.shape)}", decl.shape_span or decl.span,
                       "write `board R x C` (square) or `board R x C hex`")
            return
        self.board = Board(rows, cols, decl.shape or "square")
        self.displayers["cell"] = self.board.cell_name
        self.displayers[T.COLUMN_DISPLAY] = self.board.column_name
        self.displayers[T.ROW_DISPLAY] = self.board.row_name
        self.displayers["dir"] = _names_display(self.board.direction_names)

    def declare_symmetry(self, decls: list[ast.SymmetryDecl]) -> tuple[str, ...]:
        """The generators of ``symmetry ...`` lines; the rules are checked against them at run time."""
        names: list[str] = []
        for decl in decls:
            for name, span in decl.names:
                if name not in SYMMETRY_NAMES:
                    self.error("bad-symmetry", f"unknown symmetry {_q(name)}", span,
                               did_you_mean(name, SYMMETRY_NAMES) or f"symmetries: {', '.join(SYMMETRY_NAMES)}")
                elif self.board is None:
                    self.error("bad-symmetry", f"symmetry {_q(name)} needs a `board R x C` declaration", span)
                elif (reason := symmetry_why_not(self.board, name)) is not None:
                    self.error("bad-symmetry", reason, span)
                else:
                    names.extend(symmetry_generators(self.board, name))
        return tuple(dict.fromkeys(names))

    def const_int(self, expr: ast.Expr, ctx: Ctx, what: str) -> int:
        code = self.expr(expr, ctx)
        if not code.is_const or code.type.kind != "int":
            raise self.fail("not-constant", f"{what} must be a whole number known when the game loads", expr.span)
        return int(code.const)

    def declare_state(self, decls: list[ast.StateDecl]) -> None:
        empty = Ctx([{}])
        offset = 0
        for decl in decls:
            try:
                typ, lo, hi, allowed = self.value_type(decl.type, empty)
                dims: list[tuple[int, int]] = []
                index_types: list[Type] = []
                for index in decl.indices:
                    itype, values = self.index_domain(index, empty)
                    dims.append((values[0], len(values)))
                    index_types.append(itype)
                var = StateVar(decl.name, decl, typ, offset, dims, index_types, lo, hi, values=allowed)
                if var.size > MAX_STATE or offset + var.size > MAX_STATE:
                    raise self.fail("too-large", f"state {_q(decl.name)} has {var.size} slots; at most {MAX_STATE}",
                                    decl.span)
                self.state[decl.name] = var
                offset += var.size
            except CompileFailed:
                continue
        self.nvars = offset
        self.turn_slot = offset
        self.status_slot = offset + 1
        self.extra_base = offset + 2

    def index_domain(self, expr: ast.Expr, ctx: Ctx) -> tuple[Type, list[int]]:
        """An array dimension: a contiguous, load-time constant domain (a type name or a range)."""
        code = self.expr(expr, ctx)
        if not code.is_const or code.type.kind != "seq":
            raise self.fail("bad-index-domain", "an array dimension must be a type such as `player` or `cell`, "
                            "or a range like `0..n-1`", expr.span)
        values = list(code.const)
        if not values:
            raise self.fail("bad-index-domain", "this array dimension is empty", expr.span)
        if values != list(range(values[0], values[0] + len(values))):
            raise self.fail("bad-index-domain", "an array dimension must be a contiguous range", expr.span)
        return code.type.elem or T.INT, values

    def value_type(self, texpr: ast.TypeExpr, ctx: Ctx) -> tuple[Type, int, int, frozenset[int] | None]:
        """The type of a state variable, with its encoded bounds and, if they have gaps, its values."""
        dom = texpr.domain
        if isinstance(dom, ast.Name) and dom.id == "bool":
            if texpr.optional:
                raise self.fail("type", "a boolean cannot be none; use an enumeration", texpr.span)
            return T.BOOL, 0, 1, None
        code = self.expr(dom, ctx)
        if code.type.kind != "seq" or not code.is_const:
            raise self.fail("bad-type", "expected a type: `bool`, `player`, `cell`, an enumeration name "
                            "or a range like `0..9`", dom.span)
        elem = code.type.elem or T.INT
        values = list(code.const)
        if not values:
            raise self.fail("bad-type", "this type has no values", dom.span)
        if elem.kind == "int":
            if texpr.optional:
                raise self.fail("type", "a number cannot be none; widen its range instead", texpr.span)
            # A `column` (`row`) keeps its type, to print as the board labels it; any other range is a number.
            return elem if elem in (T.COLUMN, T.ROW) else T.INT, min(values), max(values), None
        if not elem.is_entity:
            raise self.fail("bad-type", f"a state cannot hold {elem.plural()}", dom.span)
        typ = elem.with_optional(texpr.optional)
        gaps = len(set(values)) != max(values) - min(values) + 1  # (`orthogonal` is every other direction)
        return typ, (-1 if texpr.optional else min(values)), max(values), \
            frozenset([*values, -1] if texpr.optional else values) if gaps else None

    def declare_defs(self, decls: list[ast.DefDecl]) -> None:
        for decl in decls:
            self.defs[decl.name] = DefInfo(decl, f"u_{decl.name}")

    # ------------------------------------------------------------ code output
    def emit(self, line: str, span: Span | None = None) -> None:
        self.lines.append(line)
        if span is not None:
            self.linemap[len(self.lines)] = span

    def emit_header(self) -> None:
        self.globals.update(RUNTIME_HELPERS)
        self.globals["_T"] = self.turn_slot
        self.globals["_NEXT"] = tuple((i + 1) % len(self.players) for i in range(len(self.players)))

    # ------------------------------------------------------------ expressions
    def expr(self, e: ast.Expr, ctx: Ctx) -> Code:
        method = getattr(self, "expr_" + type(e).__name__)
        return method(e, ctx)

    # ----------------------------------------------------------- run-time budget
    def loop_source(self, domain: Code, span: Span, moves: str = "") -> str:
        """What a run-time loop iterates: ``domain``, counted by `_poll` when the loop may be long
        (``moves``: the list of legal moves the loop fills, which `_poll` bounds too)."""
        size = self.domain_size(domain)
        if domain.src in self.long_ranges or self.loop_weight * size > POLL_WEIGHT:
            return f"_poll({domain.src}, {self.span_id(span)}{', ' + moves if moves else ''})"
        return domain.src

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
        lookup = _TABLE_LOOKUP.fullmatch(domain.src)
        if lookup is None or lookup.group(1) not in self.globals:
            return UNKNOWN_SIZE
        rows = [self.globals[lookup.group(1)]]
        try:
            for _ in range(domain.src.count("[")):
                rows = [row for table in rows for row in table]
            return max((len(row) for row in rows), default=0)
        except TypeError:  # not a table of sequences after all
            return UNKNOWN_SIZE

    def check_fraction(self, value: Any, span: Span) -> None:
        """A fraction folded at load time must stay small (squaring one repeatedly doubles its digits)."""
        if isinstance(value, Fraction) and max(value.numerator.bit_length(),
                                               value.denominator.bit_length()) > MAX_FRACTION_BITS:
            raise self.fail("too-large", f"this exact fraction needs more than {MAX_FRACTION_BITS} bits; "
                            "numbers computed when the game loads must stay small", span)

    def expr_Num(self, e: ast.Num, ctx: Ctx) -> Code:
        if isinstance(e.value, Fraction):
            if max(abs(e.value.numerator), e.value.denominator) >= 10**30:  # (see parser.HUGE_LITERAL)
                raise self.fail("too-large", "numbers in rule files are limited to 15 digits", e.span)
            return Code(self.constant(e.value), T.REAL, e.value)
        if abs(e.value) > 10**15:
            raise self.fail("too-large", "numbers in rule files are limited to 15 digits", e.span)
        return Code(self.constant(e.value), T.INT, e.value)

    def expr_Bool(self, e: ast.Bool, ctx: Ctx) -> Code:
        return Code(repr(e.value), T.BOOL, e.value)

    def expr_NoneLit(self, e: ast.NoneLit, ctx: Ctx) -> Code:
        return Code("(-1)", T.NONE, -1)

    def expr_Str(self, e: ast.Str, ctx: Ctx) -> Code:
        raise self.fail("type", "strings are only allowed in `game`, `meta` and `render` lines", e.span)

    def expr_Name(self, e: ast.Name, ctx: Ctx) -> Code:
        name = e.id
        local = ctx.lookup(name)
        if local is not None:
            local.used = True
            if local.const is not NOT_CONST:
                return Code(self.constant(local.const), local.type, local.const)
            return Code(local.pyname, local.type, bounds=local.bounds)
        code = self.global_name(name, e.span, ctx)
        if code is not None:
            return code
        raise self.fail("undefined-name", f"{_q(name)} is not defined", e.span,
                        did_you_mean(name, self.visible_names(ctx)))

    def visible_names(self, ctx: Ctx) -> list[str]:
        names = [n for n, _ in ctx.all_locals()]
        names += list(self.params) + list(self.players) + list(self.state) + list(self.defs)
        names += list(self.enums) + list(self.enum_members) + list(BUILTIN_FUNCTIONS)
        names += ["player", "bool", "mover", "turn", "win", "lose", "draw"]
        if self.board:
            names += ["cell", "dir", "rows", "cols", "column", "row", *self.board.direction_names]
        return names

    def global_name(self, name: str, span: Span, ctx: Ctx) -> Code | None:
        if name in self.params:
            self.param_used.add(name)
            value = self.params[name]
            return Code(self.constant(value), self.param_types[name], value)
        if name in self.players:
            index = self.players.index(name)
            return Code(str(index), T.PLAYER, index)
        if name in self.enum_members:
            enum, index = self.enum_members[name]
            return Code(str(index), Type("enum", enum), index)
        if name in self.state:
            var = self.state[name]
            var.used = True
            if var.dims:
                raise self.fail("type", f"{_q(name)} is an array; give an index, as in `{name}[...]`", span)
            return Code(f"s[{var.offset}]", var.type, bounds=_var_bounds(var))
        if name in self.defs:
            info = self.defs[name]
            if info.decl.params:
                raise self.fail("arity", f"{_q(name)} takes {len(info.decl.params)} argument(s); call it as "
                                f"`{name}(...)`", span)
            return self.call_def(info, [], span, ctx)
        if name == "player":
            return Code(self.constant(range(len(self.players))), T.seq(T.PLAYER), range(len(self.players)))
        if name == "bool":
            return Code("(False, True)", T.seq(T.BOOL), (False, True))
        if name in self.enums:
            members = range(len(self.enums[name]))
            return Code(self.constant(members), T.seq(Type("enum", name)), members)
        if name in ("win", "lose", "draw"):
            value = {"win": WIN, "lose": LOSE, "draw": DRAW}[name]
            return Code(self.constant(value), T.INT, value)
        if name == "mover":
            if not ctx.in_move:
                raise self.fail("mover-outside-move", "`mover` is only defined inside a move", span,
                                "outside moves, `turn` is the player to move")
            return Code("me" if ctx.in_effect else "s[_T]", T.PLAYER)
        if name == "turn" and ctx.in_effect:
            return Code("me", T.PLAYER)  # inside a move `turn` is the mover (also where the move resumes)
        if name == "turn" and ctx.game_over:
            raise self.fail("turn-in-utility", "`turn` has no value in `utility`: the game is over and nobody is "
                            "to move", span, "keep the player who moved last in a state variable, or say who won "
                            "with an end rule such as `win opponent(turn) when ...`")
        if name == "turn":
            self.turn_reads += 1  # (a def that reads it cannot be called from `utility`: see call_def)
            # In a utility or heuristic the state may be terminal (-2) or chance (-1): an index made of
            # `turn` there is checked instead of reading another variable's slot.
            return Code("s[_T]", T.PLAYER, bounds=(-2, len(self.players) - 1) if ctx.scoring else None)
        if name == "no_moves":
            if not ctx.in_end:
                raise self.fail("no-moves-here", "`no_moves` can only be used in end rules, `utility` and "
                                "`heuristic`", span, "move guards cannot depend on the list of legal moves")
            return Code("(not _legal(s))", T.BOOL)
        if self.board is not None:
            board = self.board
            if name == "cell":
                cells = range(board.ncells)
                return Code(self.constant(cells), T.seq(T.CELL), cells)
            if name in ("dir", "orthogonal", "diagonal"):
                dirs = {"dir": board.directions, "orthogonal": board.orthogonal,
                        "diagonal": board.diagonal}[name]
                return Code(self.constant(dirs), T.seq(T.DIR), dirs)
            if name in ("column", "row"):
                # The board's columns (rows) as a set of indexes that read and print as the board labels them.
                indexes = range(board.cols if name == "column" else board.rows)
                return Code(self.constant(indexes), T.seq(T.COLUMN if name == "column" else T.ROW), indexes)
            if name == "rows":
                return Code(str(board.rows), T.INT, board.rows)
            if name == "cols":
                return Code(str(board.cols), T.INT, board.cols)
            if name in board.direction_names:
                index = board.direction_names.index(name)
                return Code(str(index), T.DIR, index)
            cell = board.parse_cell(name)
            if cell is not None:
                return Code(str(cell), T.CELL, cell)
        return None

    def expr_Neg(self, e: ast.Neg, ctx: Ctx) -> Code:
        code = self.expr(e.operand, ctx)
        self.require_number(code, e.operand.span)
        if code.is_const:
            return Code(self.constant(-code.const), code.type, -code.const)
        return Code(f"(-{code.src})", code.type)

    def expr_Not(self, e: ast.Not, ctx: Ctx) -> Code:
        code = self.expr(e.operand, ctx)
        self.require(code, T.BOOL, e.operand.span)
        if code.is_const:
            return Code(repr(not code.const), T.BOOL, not code.const)
        return Code(f"(not {code.src})", T.BOOL)

    def expr_BoolOp(self, e: ast.BoolOp, ctx: Ctx) -> Code:
        parts = []
        for i, value in enumerate(e.values):
            code = self.expr(value, ctx)
            self.require(code, T.BOOL, value.span)
            parts.append(code)
            if code.is_const and bool(code.const) == (e.op == "or"):
                # Short-circuit known at load time (`step(c, d) != none and board[step(c, d)] ...`):
                # the rest is never evaluated, so its constant-folding errors do not count.
                for rest in e.values[i + 1 :]:
                    with self.dead_code():
                        self.expr(rest, ctx)
                break
        return _short_circuit(e.op, parts)

    def expr_Binary(self, e: ast.Binary, ctx: Ctx) -> Code:
        left = self.expr(e.left, ctx)
        right = self.expr(e.right, ctx)
        self.require_number(left, e.left.span)
        self.require_number(right, e.right.span)
        # `//` always gives a whole number (floor division), so fractions can be rounded into the state.
        typ = T.INT if e.op == "//" else T.REAL if e.op == "/" or T.REAL in (left.type, right.type) else T.INT
        if left.is_const and right.is_const:
            try:
                value = _arith(e.op, left.const, right.const)
            except ZeroDivisionError:
                raise self.fail("division-by-zero", "division by zero", e.span) from None
            if isinstance(value, int) and abs(value) > 10**15:
                raise self.fail("too-large", "this number is too large (over 15 digits)", e.span)
            self.check_fraction(value, e.span)
            return Code(self.constant(value), typ, value)
        op = e.op
        if op in ("/", "//", "%") and right.is_const and right.const == 0:
            raise self.fail("division-by-zero", "division by zero", e.span)
        if op == "/" or (op in ("//", "%") and (self.checked or not right.is_const)):
            # Division by a value known only at run time: a zero divisor is a rule error at this line.
            # `/` is exact at run time as it is when folded (Python's `/` on two ints gives a float).
            code = Code(f"_arith({left.src}, {right.src}, {op!r}, {self.span_id(e.span)})", typ)
            return Code(f"int({code.src})", T.INT) if op == "//" and T.REAL in (left.type, right.type) else code
        if op == "//" and T.REAL in (left.type, right.type):
            return Code(f"int({left.src} // {right.src})", T.INT)
        bounds = _arith_bounds(op, _bounds(left), _bounds(right))
        if (op == "*" or typ == T.REAL) and (bounds is None or max(-bounds[0], bounds[1]) > SMALL_NUMBER):
            # Squaring a number again and again doubles its digits: one multiplication of two huge
            # numbers outlasts any budget (it cannot be interrupted), so each such result is bounded.
            return Code(f"_big({left.src} {op} {right.src}, {self.span_id(e.span)})", typ, bounds=bounds)
        return Code(f"({left.src} {op} {right.src})", typ, bounds=bounds)

    def expr_Compare(self, e: ast.Compare, ctx: Ctx) -> Code:
        codes = [self.expr(e.first, ctx)] + [self.expr(x, ctx) for x in e.rest]
        exprs = [e.first, *e.rest]
        parts = [codes[0].src]
        for i, op in enumerate(e.ops):
            a, b = codes[i], codes[i + 1]
            if op in ("in", "not in"):
                if b.type.kind != "seq":
                    raise self.fail("type", f"`{op}` needs a set on its right, not {b.type}", exprs[i + 1].span)
                if b.type.elem is not None and not T.comparable(a.type, b.type.elem):
                    raise self.fail("type", f"cannot look for {a.type} among {b.type.elem.plural()}", e.span)
            elif op in ("==", "!="):
                if not T.comparable(a.type, b.type):
                    raise self.fail("type", f"cannot compare {a.type} with {b.type}", e.span)
            else:
                self.require_number(a, exprs[i].span)
                self.require_number(b, exprs[i + 1].span)
            parts.append(f" {op} {b.src}")
        if all(c.is_const for c in codes):
            value = _compare(e.ops, [c.const for c in codes])
            return Code(repr(value), T.BOOL, value)
        return Code("(" + "".join(parts) + ")", T.BOOL)

    def expr_Range(self, e: ast.Range, ctx: Ctx) -> Code:
        lo = self.expr(e.lo, ctx)
        hi = self.expr(e.hi, ctx)
        self.require(lo, T.INT, e.lo.span)
        self.require(hi, T.INT, e.hi.span)
        if lo.is_const and hi.is_const:
            if hi.const - lo.const > MAX_DOMAIN:
                raise self.fail("too-large", f"the range {lo.const}..{hi.const} is too large", e.span)
            value = range(lo.const, hi.const + 1)
            return Code(self.constant(value), T.seq(T.INT), value)
        src = f"range({lo.src}, {hi.src} + 1)"
        low, high = _bounds(lo), _bounds(hi)
        if low is None or high is None or high[1] - low[0] >= POLL_WEIGHT:
            self.long_ranges.add(src)  # its loops are counted, and refused past MAX_RANGE values
        return Code(src, T.seq(T.INT))

    def expr_IfExpr(self, e: ast.IfExpr, ctx: Ctx) -> Code:
        test = self.expr(e.test, ctx)
        self.require(test, T.BOOL, e.test.span)
        if test.is_const:  # the branch not taken is only type-checked (see dead_code)
            chosen = self.expr(e.then if test.const else e.orelse, ctx)
            with self.dead_code():
                other = self.expr(e.orelse if test.const else e.then, ctx)
                if T.unify(chosen.type, other.type) is None:
                    raise self.fail("type", f"the two branches differ: {chosen.type} and {other.type}", e.span)
                return Code(chosen.src, T.unify(chosen.type, other.type), chosen.const)
            return chosen
        then = self.expr(e.then, ctx)
        orelse = self.expr(e.orelse, ctx)
        typ = T.unify(then.type, orelse.type)
        if typ is None:
            raise self.fail("type", f"the two branches differ: {then.type} and {orelse.type}", e.span)
        if test.is_const:
            chosen = then if test.const else orelse
            return Code(chosen.src, typ, chosen.const)
        return Code(f"({then.src} if {test.src} else {orelse.src})", typ)

    def expr_Quantifier(self, e: ast.Quantifier, ctx: Ctx) -> Code:
        domain = self.expr(e.domain, ctx)
        if domain.type.kind != "seq":
            raise self.fail("type", f"`{e.kind} {e.var} in ...` needs a set to range over, not {domain.type}",
                            e.domain.span)
        general = self.general_quantifier(e, domain, ctx)
        if (domain.is_const and len(domain.const) <= UNROLL_QUANTIFIER and not self.dead_depth
                and self.unrolled + len(domain.const) <= UNROLL_BUDGET):
            self.unrolled += len(domain.const)  # nested unrolling multiplies: the budget stops it, not a hang
            unrolled = self.unrolled_quantifier(e, domain, ctx, general.type)
            if unrolled is not None:
                return unrolled
        return general

    def unrolled_quantifier(self, e: ast.Quantifier, domain: Code, ctx: Ctx, typ: Type) -> Code | None:
        """The aggregate written out value by value, so that each body folds its constants."""
        elem = domain.type.elem or T.INT
        terms: list[tuple[Code | None, Code, Any]] = []
        size = 0
        for value in domain.const:
            inner = ctx.child()
            self.declare_local(inner, e.var, Local(f"L_{e.var}", elem, False, value), e.var_span)
            filt = self.expr(e.filter, inner) if e.filter is not None else None
            if filt is not None and filt.is_const and not filt.const:
                continue
            body = self.expr(e.body, inner)
            terms.append((None if filt is None or filt.is_const else filt, body, value))
            size += len(body.src) + (len(filt.src) if filt is not None else 0)
            if size > INLINE_LIMIT * 4:
                return None
        kind = e.kind
        if kind == "select":
            conds = [self.conjoin(f, b) for f, b, _ in terms]
            if not all(c.is_const for c in conds):
                return None
            chosen = tuple(v for c, (_, _, v) in zip(conds, terms, strict=True) if c.const)
            return Code(self.constant(chosen), typ, chosen)
        if kind in ("any", "all", "count", "first"):
            conds = [self.conjoin(f, b) for f, b, _ in terms]
            if kind == "any":
                return self.disjunction(conds)
            if kind == "all":
                scan = _slice_scan(conds) if all(f is None for f, _, _ in terms) else None
                if scan is not None:
                    return scan
                return self.conjunction([self.implication(f, b) for f, b, _ in terms])
            if kind == "count":
                return self.total([self.indicator(c) for c in conds], T.INT)
            chain = Code("(-1)", typ, -1)
            for cond, (_, _, value) in reversed(list(zip(conds, terms, strict=True))):
                if cond.is_const:
                    chain = Code(self.constant(value), typ, value) if cond.const else chain
                else:
                    chain = Code(f"({self.constant(value)} if {cond.src} else {chain.src})", typ)
            return chain
        if kind == "sum":
            return self.total([b if f is None else Code(f"({b.src} if {f.src} else 0)", b.type) for f, b, _ in terms],
                              typ)
        if any(f is not None for f, _, _ in terms) or not terms:
            return None  # min/max with a filter may be empty: the general form reports that
        bodies = [b for _, b, _ in terms]
        if all(b.is_const for b in bodies):
            value = (min if kind == "min" else max)(b.const for b in bodies)
            return Code(self.constant(value), typ, value)
        if len(bodies) == 1:
            return bodies[0]
        return Code(f"{kind}({', '.join(b.src for b in bodies)})", typ)

    def conjoin(self, filt: Code | None, body: Code) -> Code:
        return body if filt is None else self.conjunction([filt, body])

    def implication(self, filt: Code | None, body: Code) -> Code:
        if filt is None:
            return body
        if body.is_const:
            return Code("True", T.BOOL, True) if body.const else Code(f"(not {filt.src})", T.BOOL)
        return Code(f"(not {filt.src} or {body.src})", T.BOOL)

    def conjunction(self, codes: list[Code]) -> Code:
        return _short_circuit("and", codes)

    def disjunction(self, codes: list[Code]) -> Code:
        return _short_circuit("or", codes, terms=True)

    def indicator(self, cond: Code) -> Code:
        if cond.is_const:
            return Code("1" if cond.const else "0", T.INT, int(bool(cond.const)))
        return Code(f"(1 if {cond.src} else 0)", T.INT)

    def total(self, codes: list[Code], typ: Type) -> Code:
        const = sum(c.const for c in codes if c.is_const)
        rest = [c.src for c in codes if not c.is_const]
        if not rest:
            return Code(self.constant(const), typ, const)
        if const:
            rest.append(self.constant(const))
        return Code("(" + " + ".join(rest) + ")", typ)

    def general_quantifier(self, e: ast.Quantifier, domain: Code, ctx: Ctx) -> Code:
        inner = ctx.child()
        pyname = f"L{self.binder_tag}_{e.var}"
        self.declare_local(inner, e.var, Local(pyname, domain.type.elem or T.INT, False, bounds=_domain_bounds(domain)),
                           e.var_span)
        filt = None
        with self.loop_body(domain):
            if e.filter is not None:
                filt = self.expr(e.filter, inner)
                self.require(filt, T.BOOL, e.filter.span)
            body = self.expr(e.body, inner)
        cond = f" if {filt.src}" if filt is not None else ""
        loop = f"for {pyname} in {self.loop_source(domain, e.domain.span)}"
        kind = e.kind
        if kind in ("any", "all", "count", "first", "select"):
            self.require(body, T.BOOL, e.body.span)
        if kind == "select":
            both = f" if {filt.src} and {body.src}" if filt is not None else f" if {body.src}"
            return Code(f"tuple({pyname} {loop}{both})", domain.type)
        if kind == "any":
            return Code(f"any({body.src} {loop}{cond})", T.BOOL)
        if kind == "all":
            return Code(f"all({body.src} {loop}{cond})", T.BOOL)
        if kind == "count":
            both = f" if {filt.src} and {body.src}" if filt is not None else f" if {body.src}"
            return Code(f"sum(1 {loop}{both})", T.INT)
        if kind == "first":
            elem = domain.type.elem or T.INT
            if not elem.is_entity:
                raise self.fail("type", f"`first` picks among players, cells, directions or named values, "
                                f"not {elem.plural()}", e.domain.span)
            both = f" if {filt.src} and {body.src}" if filt is not None else f" if {body.src}"
            return Code(f"next(({pyname} {loop}{both}), -1)", elem.with_optional())
        self.require_number(body, e.body.span)
        if kind == "sum":
            return Code(f"sum({body.src} {loop}{cond})", body.type)
        sid = self.span_id(e.span)
        return Code(f"_{kind}_of(({body.src} {loop}{cond}), {sid})", body.type)

    def expr_Index(self, e: ast.Index, ctx: Ctx) -> Code:
        if isinstance(e.base, ast.Name) and ctx.lookup(e.base.id) is None and e.base.id in self.state:
            var = self.state[e.base.id]
            var.used = True
            return Code(f"s[{self.slot(var, e.indices, ctx, e.span)}]", var.type, bounds=_var_bounds(var))
        base = self.expr(e.base, ctx)
        if base.type.kind != "seq":
            raise self.fail("type", f"only arrays, lists and sets can be indexed, not {base.type}", e.base.span)
        if len(e.indices) != 1:
            raise self.fail("arity", "a list takes one index", e.span)
        index = self.expr(e.indices[0], ctx)
        self.require(index, T.INT, e.indices[0].span)
        elem = base.type.elem or T.INT
        if base.is_const and index.is_const:
            seq = tuple(base.const)
            if not 0 <= index.const < len(seq):
                raise self.fail("index-out-of-range", f"index {index.const} is outside 0..{len(seq) - 1}",
                                e.indices[0].span)
            value = seq[index.const]
            return Code(self.constant(value), elem, value)
        sid = self.span_id(e.span)
        return Code(f"_at({base.src}, {index.src}, {sid})", elem)

    def slot(self, var: StateVar, indices: Sequence[ast.Expr], ctx: Ctx, span: Span) -> str:
        """Python source for the flat slot of ``var[indices]`` (bounds-checked in checked mode)."""
        if len(indices) != len(var.dims):
            raise self.fail("arity", f"{_q(var.name)} takes {len(var.dims)} index(es), not {len(indices)}", span)
        terms: list[str] = []
        const_part = var.offset
        stride = var.size
        for index_expr, (low, size), itype in zip(indices, var.dims, var.index_types, strict=True):
            stride //= size
            code = self.expr(index_expr, ctx)
            if not T.assignable(code.type.with_optional(False), itype) and not (
                code.type.kind == "int" and itype.kind == "int"
            ):
                raise self.fail("type", f"{_q(var.name)} is indexed by {itype.plural()}, not {code.type}",
                                index_expr.span)
            if code.is_const:
                if not low <= code.const < low + size:
                    raise self.fail("index-out-of-range", f"index {_show(code.const)} is outside "
                                    f"{_q(var.name)}'s {low}..{low + size - 1}", index_expr.span)
                const_part += (code.const - low) * stride
                continue
            src = code.src
            # An index of the dimension's own entity type is in range by construction; anything
            # else is checked, because a wrong flat slot would silently corrupt another variable.
            safe = code.type.is_entity and not code.type.optional and code.type.kind == itype.kind and (
                code.bounds is None or (low <= code.bounds[0] and code.bounds[1] < low + size))
            if self.checked or not safe:
                src = f"_ix({src}, {low}, {low + size - 1}, {self.span_id(index_expr.span)})"
            if low:
                src = f"({src} - {low})"
            terms.append(src if stride == 1 else f"{src} * {stride}")
        if not terms:
            return str(const_part)
        return " + ".join(([str(const_part)] if const_part else []) + terms)

    def expr_ListLit(self, e: ast.ListLit, ctx: Ctx) -> Code:
        return self.sequence_literal(e.items, e.span, ctx, tuple)

    def expr_SetLit(self, e: ast.SetLit, ctx: Ctx) -> Code:
        return self.sequence_literal(e.items, e.span, ctx, lambda values: tuple(dict.fromkeys(values)))

    def sequence_literal(self, items: Sequence[ast.Expr], span: Span, ctx: Ctx, build: Callable) -> Code:
        codes = [self.expr(i, ctx) for i in items]
        elem: Type | None = None
        for item, code in zip(items, codes, strict=True):
            elem = code.type if elem is None else T.unify(elem, code.type)
            if elem is None:
                raise self.fail("type", "the items of a list must all have the same type", item.span)
        if all(c.is_const for c in codes):
            value = build([c.const for c in codes])
            return Code(self.constant(value), T.seq(elem or T.INT), value)
        return Code("(" + "".join(c.src + ", " for c in codes) + ")", T.seq(elem or T.INT))

    def expr_Call(self, e: ast.Call, ctx: Ctx) -> Code:
        if ctx.lookup(e.func) is None and e.func in self.defs:
            info = self.defs[e.func]
            if len(e.args) != len(info.decl.params):
                raise self.fail("arity", f"{_q(e.func)} takes {len(info.decl.params)} argument(s), "
                                f"not {len(e.args)}", e.span)
            args = [self.expr(a, ctx) for a in e.args]
            return self.call_def(info, args, e.span, ctx, e.args)
        builtin = BUILTIN_FUNCTIONS.get(e.func)
        if builtin is None:
            raise self.fail("undefined-function", f"{_q(e.func)} is not a function", e.func_span,
                            did_you_mean(e.func, list(self.defs) + list(BUILTIN_FUNCTIONS)))
        args = [self.expr(a, ctx) for a in e.args]
        return builtin(self, e, args)

    def call_def(self, info: DefInfo, args: list[Code], span: Span, ctx: Ctx,
                 arg_exprs: Sequence[ast.Expr] = ()) -> Code:
        info.used = True
        self.compile_def(info)
        if info.result is None:
            raise CompileFailed()
        if info.reads_turn:
            self.turn_reads += 1  # the caller reads `turn` through this def
            if ctx.game_over:
                raise self.fail("turn-in-utility", f"`turn` has no value in `utility`, and {_q(info.decl.name)} "
                                "reads it: the game is over and nobody is to move", span,
                                "keep the player who moved last in a state variable, or say who won with an end "
                                "rule such as `win opponent(turn) when ...`")
        for i, (code, ptype) in enumerate(zip(args, info.param_types, strict=True)):
            where = arg_exprs[i].span if arg_exprs else span
            if not T.assignable(code.type.with_optional(False), ptype):
                raise self.fail("type", f"argument {i + 1} of {_q(info.decl.name)} must be {ptype}, "
                                f"not {code.type}", where)
            args[i] = self.within_domain(self.coerce(code, ptype, where), info.param_bounds[i], info, i, where)
        if info.result.is_const:
            # The arguments are still evaluated (and checked against their domains) first, unless they
            # surely cannot fail: `one(n + 5)` is a rule error when 5 is outside `x: 0..3`.
            evaluated = [a.src for a in args if not _cannot_fail(a)]
            if evaluated:
                const = info.result.const
                bounds = (const, const) if isinstance(const, int) and not isinstance(const, bool) else None
                return Code(f"({', '.join(evaluated)}, {info.result.src})[-1]", info.result.type, bounds=bounds)
            return Code(info.result.src, info.result.type, info.result.const)
        inlined = self.inline_def(info, args)
        if inlined is not None:
            return inlined
        arg_src = "".join(", " + a.src for a in args)
        return Code(f"{info.pyname}(s{arg_src})", info.result.type)

    def within_domain(self, arg: Code, bounds: tuple[int, int] | None, info: DefInfo, i: int, span: Span) -> Code:
        """An argument kept inside its parameter's range: an error if it is a constant outside,
        a run-time check unless its bounds prove it (the body may index a table with it)."""
        if bounds is None:
            return arg
        lo, hi = bounds
        if arg.is_const:
            if not lo <= arg.const <= hi:
                raise self.fail("out-of-domain", f"argument {i + 1} of {_q(info.decl.name)} is {_show(arg.const)}, "
                                f"outside its domain {lo}..{hi}", span)
            return arg
        known = _bounds(arg)
        if known is not None and lo <= known[0] and known[1] <= hi:
            return arg
        return Code(f"_dom({arg.src}, {lo}, {hi}, {self.span_id(span)})", arg.type, bounds=bounds)

    def inline_def(self, info: DefInfo, args: list[Code]) -> Code | None:
        """The def's body with the arguments substituted, when they are constants or plain names.

        Inlining lets constant arguments fold through the body (a win test for a fixed player
        becomes a chain of slot comparisons), and saves a Python call per use.
        """
        if self.dead_depth or not all(a.is_const or a.src.isidentifier() for a in args):
            return None  # code that never runs is only type-checked: keep it small
        # The same def with the same arguments inlines to the same code: a def calling another twice
        # would otherwise compile 2^n bodies. Past INLINE_BUDGET, calls stay calls.
        key = (info.decl.name, min(self.loop_weight, POLL_WEIGHT + 1), *(a.src for a in args))
        if key in self.inline_memo:
            return self.inline_memo[key]
        if self.inlined >= INLINE_BUDGET:  # (`inline_body` counts the inlinings)
            return None
        self.inline_memo[key] = result = self.inline_body(info, args)
        return result

    def inline_body(self, info: DefInfo, args: list[Code]) -> Code | None:
        ctx = Ctx([{}])
        for p, ptype, arg in zip(info.decl.params, info.param_types, args, strict=True):
            ctx.scopes[-1][p.name] = Local(arg.src, ptype, False, arg.const, line=p.span.line)
        mark = len(self.diagnostics)
        # Hygiene: an argument may be a caller's binder (`all k in D: above(k)`), so the body's own
        # binders get names no other code uses (`L3_k`), and cannot capture it.
        self.inlined += 1
        outer_tag, self.binder_tag = self.binder_tag, str(self.inlined)
        try:
            body = self.expr(info.decl.body, ctx)
        except CompileFailed:
            del self.diagnostics[mark:]  # the def itself was checked; fall back to calling it
            return None
        finally:
            self.binder_tag = outer_tag
        if len(body.src) > INLINE_LIMIT:
            return None
        return body

    def compile_def(self, info: DefInfo) -> None:
        if info.result is not None:
            return
        decl = info.decl
        if info.in_progress:
            raise self.fail("recursive-def", f"{_q(decl.name)} calls itself; functions cannot be recursive",
                            decl.span, "write a bounded loop in a move, or use an aggregate like `any`")
        if self.def_depth >= MAX_DEF_DEPTH:
            raise self.fail("too-deep", f"{_q(decl.name)} is reached through more than {MAX_DEF_DEPTH} defs "
                            "that call one another", decl.span, "call fewer defs inside defs")
        info.in_progress = True
        self.def_depth += 1
        saved_weight, self.loop_weight = self.loop_weight, UNKNOWN_SIZE  # a def may be called inside loops
        try:
            ctx = Ctx([{}])
            params = []
            for p in decl.params:
                ptype = self.param_type(p, ctx)
                info.param_types.append(ptype)
                bounds = _domain_bounds(self.expr(p.type.domain, ctx)) if ptype.kind == "int" else None
                info.param_bounds.append(bounds)
                self.declare_local(ctx, p.name, Local(f"L_{p.name}", ptype, False, bounds=bounds), p.span)
                params.append(f"L_{p.name}")
            reads_before = self.turn_reads
            body = self.expr(decl.body, ctx)
            info.reads_turn = self.turn_reads > reads_before
            if body.is_const:
                info.result = body
                return
            line = f"def {info.pyname}(s{''.join(', ' + p for p in params)}):"
            # Defs go in the module before use; emit into a separate list then splice in front.
            self.emit(line, decl.span)
            if _CALLS_DEF.search(body.src):
                self.emit("    _tick()", decl.span)  # defs calling defs twice double the work per level
            self.emit(f"    return {body.src}", decl.span)
            info.result = Code(f"{info.pyname}(s)", body.type)
        finally:
            info.in_progress = False
            self.def_depth -= 1
            self.loop_weight = saved_weight

    def param_type(self, p: ast.Param, ctx: Ctx) -> Type:
        dom = self.expr(p.type.domain, ctx)
        if dom.type.kind != "seq":
            raise self.fail("bad-type", f"the parameter {_q(p.name)} needs a type or a set", p.type.span)
        elem = dom.type.elem or T.INT
        return elem.with_optional(p.type.optional) if elem.is_entity else elem

    # ------------------------------------------------------------ type checks
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
            return Code(f"_some({code.src}, {self.span_id(span)})", code.type.with_optional(False))
        raise self.fail("type", f"expected {typ}, found {code.type}", span)

    def require_number(self, code: Code, span: Span) -> None:
        if not code.type.is_number:
            raise self.fail("type", f"expected a number, found {code.type}", span)

    # ------------------------------------------------------------------ moves
    def compile_moves(self, moves: list[ast.MoveDecl]) -> None:
        if not moves:
            self.error("missing-moves", "the rule file declares no moves", Span(1, 1, 1, 2),
                       "add a move like `move place(c: cell) when ...:`")
        self.globals["_MOVES"] = {}
        legal_lines: list[str] = []
        otherwise_lines: list[str] = []
        for index, move in enumerate(moves):
            try:
                lines = self.compile_move(index, move)
            except CompileFailed:
                continue
            (otherwise_lines if move.otherwise else legal_lines).extend(lines)
        self.emit("def _legal(s):")
        self.emit("    out = []")
        self.emit("    add = out.append")
        for line, span in legal_lines:
            self.emit("    " + line, span)
        if otherwise_lines:
            self.emit("    if not out:")
            for line, span in otherwise_lines:
                self.emit("        " + line, span)
        self.emit("    return out")

    def compile_move(self, index: int, move: ast.MoveDecl) -> list[tuple[str, Span]]:
        if len(move.params) > MAX_LOOP_DEPTH:
            raise self.fail("too-deep", f"move {_q(move.name)} has {len(move.params)} parameters; at most "
                            f"{MAX_LOOP_DEPTH}", move.params[MAX_LOOP_DEPTH].span)
        saved_weight = self.loop_weight
        try:
            return self.compile_move_loops(index, move)
        finally:
            self.loop_weight = saved_weight

    def compile_move_loops(self, index: int, move: ast.MoveDecl) -> list[tuple[str, Span]]:
        """The lines of ``_legal`` that list ``move``: a loop per parameter, the guard, the move object."""
        ctx = Ctx([{}], in_move=True)
        loops: list[tuple[str, Span]] = []
        names: list[str] = []
        types: list[Type] = []
        depth = 0
        for p in move.params:
            dom = self.expr(p.type.domain, ctx)
            if dom.type.kind != "seq":
                raise self.fail("bad-type", f"the move parameter {_q(p.name)} needs a set of values such as "
                                "`cell` or `1..3`", p.type.span)
            elem = dom.type.elem or T.INT
            if dom.is_const and len(dom.const) > MAX_DOMAIN:
                raise self.fail("too-large", "this move parameter has too many values", p.type.span)
            pyname = f"L_{p.name}"
            self.declare_local(ctx, p.name, Local(pyname, elem, False), p.span)
            loops.append(("    " * depth + f"for {pyname} in {self.loop_source(dom, p.type.span, 'out')}:", p.span))
            self.loop_weight = min(self.loop_weight * self.domain_size(dom), 1 << 62)
            names.append(pyname)
            types.append(elem)
            depth += 1
        self.move_param_types[move.name] = tuple(types)
        guard_src = None
        if move.guard is not None:
            guard = self.expr(move.guard, ctx)
            self.require(guard, T.BOOL, move.guard.span)
            if guard.is_const and not guard.const:
                self.warn("never-legal", f"move {_q(move.name)} can never be played: its condition is always "
                          "false", move.guard.span)
            if not guard.is_const:
                guard_src = guard.src
            elif not guard.const:
                guard_src = "False"
        combos = self.constant_combinations(move)
        if combos is not None:
            lines = self.specialised_move(index, move, types, combos)
            if not lines and guard_src != "False":
                # Every combination's condition folded to false: say so, and still check the body.
                self.warn("never-legal", f"move {_q(move.name)} can never be played: its condition is false "
                          "for every value of its parameters", move.guard.span if move.guard else move.span)
                self.compile_effect(f"_m{index}", names, types, move.body, ctx, move.span)
            elif not lines:
                with self.dead_code():  # never played, but still a part of the rule file to check
                    self.compile_effect(f"_m{index}", names, types, move.body, ctx, move.span)
            return lines
        fn = f"_m{index}"
        self.compile_effect(fn, names, types, move.body, ctx, move.span)
        factory = MoveFactory(move.name, [self.displayer(t) for t in types], fn)
        self.globals[f"_MT{index}"] = factory.cache
        self.globals[f"_MK{index}"] = factory
        self.factories.append(factory)
        key = names[0] if len(names) == 1 else "(" + "".join(n + ", " for n in names) + ")"
        if not names:
            key = "0"
        get = f"_MT{index}.get({key}) or _MK{index}({key})"
        body = ("    " * depth) + (f"if {guard_src}: add({get})" if guard_src else f"add({get})")
        return [*loops, (body, move.span)]

    def constant_combinations(self, move: ast.MoveDecl) -> list[tuple[Any, ...]] | None:
        """All parameter values of a move, if its domains are load-time constants and few (to unroll)."""
        combos: list[tuple[Any, ...]] = [()]
        for p in move.params:
            grown: list[tuple[Any, ...]] = []
            for combo in combos:
                ctx = Ctx([{}], in_move=True)
                for q, value in zip(move.params, combo, strict=False):
                    ctx.scopes[-1][q.name] = Local(f"L_{q.name}", T.INT, False, value, line=q.span.line)
                dom = self.expr(p.type.domain, ctx)
                if not dom.is_const:
                    return None
                grown.extend((*combo, v) for v in dom.const)
                if len(grown) > UNROLL_MOVES:
                    return None
            combos = grown
        return combos

    def specialised_move(self, index: int, move: ast.MoveDecl, types: list[Type],
                         combos: list[tuple[Any, ...]]) -> list[tuple[str, Span]]:
        """One guard test and one effect function per parameter combination, constants folded in."""
        lines: list[tuple[str, Span]] = []
        displays = [self.displayer(t) for t in types]
        for k, combo in enumerate(combos):
            ctx = Ctx([{}], in_move=True)
            for p, typ, value in zip(move.params, types, combo, strict=True):
                ctx.scopes[-1][p.name] = Local(f"L_{p.name}", typ, False, value, line=p.span.line)
            guard_src = None
            if move.guard is not None:
                guard = self.expr(move.guard, ctx)
                if guard.is_const and not guard.const:
                    continue
                if not guard.is_const:
                    guard_src = guard.src
            fn = f"_m{index}_{k}"
            self.compile_effect(fn, [], [], move.body, ctx, move.span)
            shown = tuple(d(v) for d, v in zip(displays, combo, strict=True))
            mv = f"_mv{index}_{k}"
            self.eager_moves.append((mv, move.name, shown, fn))
            lines.append((f"if {guard_src}: add({mv})" if guard_src else f"add({mv})", move.span))
        return lines
    def displayer(self, typ: Type) -> Callable[[Any], str]:
        if typ in (T.COLUMN, T.ROW):
            return self.displayers[T.COLUMN_DISPLAY if typ == T.COLUMN else T.ROW_DISPLAY]
        if typ.kind == "enum":
            return _optional_display(self.displayers[typ.name])
        if typ.kind in self.displayers:
            return _optional_display(self.displayers[typ.kind])
        if typ.kind == "bool":
            return lambda v: "true" if v else "false"
        return str

    # ---------------------------------------------------------------- effects
    def compile_effect(self, fn: str, params: list[str], types: list[Type], body: Sequence[ast.Stmt],
                       ctx: Ctx, span: Span, setup: bool = False) -> None:
        """Emit ``fn(params..., st)``: the move's effects, split at chance points into continuations."""
        after = () if setup else self.after_every
        single = not setup and self.allow_incremental_ends and self.writes_state_once([*body, *after])
        ectx = ctx.child(in_effect=True, in_move=not setup, in_setup=setup, track_write=single)
        out: list[str] = []
        # `after every move:` runs after the move's own effects (and after its chance), as a block of its
        # own: it is written outside every move, so it sees none of the move's parameters or locals.
        actx = Ctx([{}], in_effect=True, in_move=True, track_write=single)
        ended = self.compile_block(list(body), ectx, [(list(after), actx)] if after else [], out, 1, span)
        if after and not ended:
            self.compile_block(list(after), actx.child(), [], out, 1, span)
        self.emit(f"def {fn}({''.join(p + ', ' for p in params)}st):", span)
        self.emit("    s = list(st)", span)
        if setup:
            self.emit("    me = 0; nt = 0", span)
        else:
            self.emit("    me = s[_T]; nt = None" + ("; _w = -1" if single else ""), span)
        self.splice(out)
        if single:
            self.incremental_ends = True
            self.emit("    return _finish_at(s, me, nt, _w)", span)
        else:
            self.emit("    return _finish(s, me, nt)", span)

    def writes_state_once(self, body: Sequence[ast.Stmt]) -> bool:
        """At most one assignment to a state variable, outside loops, and no chance: the move
        changes at most one slot (plus the turn), known when the move runs."""
        writes = 0
        stack: list[tuple[ast.Stmt, bool]] = [(stmt, False) for stmt in body]
        while stack:
            stmt, in_loop = stack.pop()
            if isinstance(stmt, (ast.Chance, ast.ChanceBranches)):
                return False
            if isinstance(stmt, ast.Assign) and stmt.name != "turn":
                if in_loop:
                    return False
                writes += 1
            elif isinstance(stmt, ast.If):
                for _, block in stmt.branches:
                    stack.extend((s, in_loop) for s in block)
                stack.extend((s, in_loop) for s in stmt.orelse or ())
            elif isinstance(stmt, ast.For):
                stack.extend((s, True) for s in stmt.body)
        return writes <= 1

    def splice(self, out: list[str]) -> None:
        for item in out:
            if isinstance(item, tuple):
                self.emit(item[0], item[1])
            else:
                self.emit(item)

    def compile_block(self, stmts: list[ast.Stmt], ctx: Ctx, after: list[tuple[list[ast.Stmt], Ctx]],
                      out: list[Any], indent: int, span: Span) -> bool:
        """Compile ``stmts``; ``after`` holds what follows in enclosing blocks (for chance continuations).

        Returns True when the block suspends at a chance at its top level (the continuation runs the rest).
        """
        pad = "    " * indent
        start = len(out)
        for i, stmt in enumerate(stmts):
            try:
                if isinstance(stmt, (ast.Chance, ast.ChanceBranches)):
                    self.compile_chance(stmt, ctx, [(stmts[i + 1:], ctx), *after], out, pad)
                    return True
                self.compile_stmt(stmt, ctx, after, out, indent, stmts[i + 1:])
            except CompileFailed:
                continue
        if len(out) == start:
            out.append((pad + "pass", span))
        return False

    def compile_stmt(self, stmt: ast.Stmt, ctx: Ctx, after: list[tuple[list[ast.Stmt], Ctx]], out: list[Any],
                     indent: int, rest: list[ast.Stmt]) -> None:
        pad = "    " * indent
        if isinstance(stmt, ast.Assign):
            out.append((pad + self.assignment(stmt, ctx), stmt.span))
        elif isinstance(stmt, ast.Pass):
            out.append((pad + "pass", stmt.span))
        elif isinstance(stmt, ast.Let):
            if stmt.name in self.state and ctx.lookup(stmt.name) is None:
                self.warn("shadowed-state", f"`let {stmt.name}` hides the state variable {_q(stmt.name)}: later "
                          f"assignments to {_q(stmt.name)} change the local", stmt.span, "choose another name")
            value = self.expr(stmt.value, ctx)
            if value.type.kind == "none":
                raise self.fail("type", "cannot tell the type of `none` alone; write a typed value", stmt.span)
            pyname = f"L_{stmt.name}"
            self.declare_local(ctx, stmt.name, Local(pyname, value.type, True), stmt.span)
            out.append((f"{pad}{pyname} = {value.src}", stmt.span))
        elif isinstance(stmt, ast.Again):
            if ctx.in_setup:
                raise self.fail("again-in-setup", "`again` is meaningless in setup; assign `turn` instead", stmt.span)
            out.append((pad + "nt = me", stmt.span))
        elif isinstance(stmt, ast.Break):
            if not ctx.in_loop:
                raise self.fail("break-outside-loop", "`break` outside a `for` loop", stmt.span)
            out.append((pad + "break", stmt.span))
        elif isinstance(stmt, ast.If):
            self.check_block_depth(indent, stmt.span)
            keyword = "if"
            taken = False  # an earlier test is constant true: the branches after it never run
            for test_expr, body in stmt.branches:
                test = self.expr(test_expr, ctx)
                self.require(test, T.BOOL, test_expr.span)
                out.append((f"{pad}{keyword} {test.src}:", test_expr.span))
                with self.dead_code(taken or (test.is_const and not test.const)):
                    self.compile_block(list(body), ctx.child(), [(rest, ctx), *after], out, indent + 1, stmt.span)
                taken = taken or (test.is_const and bool(test.const))
                keyword = "elif"
            if stmt.orelse is not None:
                out.append((pad + "else:", stmt.span))
                with self.dead_code(taken):
                    self.compile_block(list(stmt.orelse), ctx.child(), [(rest, ctx), *after], out, indent + 1,
                                       stmt.span)
        elif isinstance(stmt, ast.For):
            domain = self.expr(stmt.domain, ctx)
            if domain.type.kind != "seq":
                raise self.fail("type", f"`for` needs a set to loop over, not {domain.type}", stmt.domain.span)
            self.check_block_depth(indent, stmt.span)
            if self.loop_depth >= MAX_LOOP_DEPTH:
                raise self.fail("too-deep", f"`for` loops nested more than {MAX_LOOP_DEPTH} deep", stmt.span,
                                "loop over pairs or cells instead of nesting so many loops")
            inner = ctx.child(in_loop=True)
            pyname = f"L_{stmt.var}"
            self.declare_local(inner, stmt.var, Local(pyname, domain.type.elem or T.INT, False,
                                                      bounds=_domain_bounds(domain)), stmt.span)
            out.append((f"{pad}for {pyname} in {self.loop_source(domain, stmt.domain.span)}:", stmt.span))
            self.loop_depth += 1
            try:
                with self.loop_body(domain):
                    self.compile_block(list(stmt.body), inner, [], out, indent + 1, stmt.span)
            finally:
                self.loop_depth -= 1
        else:  # pragma: no cover - the grammar has no other statements
            raise self.fail("internal", f"unknown statement {type(stmt).__name__}", stmt.span)

    def check_block_depth(self, indent: int, span: Span) -> None:
        if indent > MAX_BLOCK_DEPTH:
            raise self.fail("too-deep", f"blocks nested more than {MAX_BLOCK_DEPTH} deep", span,
                            "move the inner part into a `def`, or test several conditions with `and`")

    def assignment(self, stmt: ast.Assign, ctx: Ctx) -> str:
        value = self.expr(stmt.value, ctx)
        local = ctx.lookup(stmt.name)
        if local is not None:
            if not local.mutable:
                raise self.fail("assign-to-constant", f"{_q(stmt.name)} cannot be changed here", stmt.name_span,
                                "only state variables and `let` locals can be assigned")
            if stmt.indices:
                raise self.fail("type", f"{_q(stmt.name)} is not an array", stmt.span)
            target_type = local.type
            target = local.pyname
        elif stmt.name == "turn":
            if stmt.indices:
                raise self.fail("type", "`turn` is not an array", stmt.span)
            self.require(value, T.PLAYER, stmt.value.span)
            if stmt.op != "=":
                raise self.fail("type", "`turn` can only be set with `=`", stmt.span)
            return f"nt = {value.src}"
        elif stmt.name in self.state:
            var = self.state[stmt.name]
            var.used = True
            target_type = var.type
            if var.dims:
                target = f"s[{self.slot(var, stmt.indices, ctx, stmt.span)}]"
            elif stmt.indices:
                raise self.fail("type", f"{_q(stmt.name)} is not an array", stmt.span)
            else:
                target = f"s[{var.offset}]"
            # (with `-=` and friends the constant is a change, not the new value)
            if stmt.op == "=" and value.is_const and isinstance(value.const, int) and not var.holds(int(value.const)):
                raise self.fail("out-of-domain", f"{_show(value.const)} is outside the domain of "
                                f"{_q(stmt.name)} ({self.describe_domain(var)})", stmt.value.span)
        else:
            if self.global_name_kind(stmt.name):
                raise self.fail("assign-to-constant", f"{_q(stmt.name)} is a {self.global_name_kind(stmt.name)} "
                                "and cannot be assigned", stmt.name_span,
                                "only state variables, `let` locals and `turn` can be assigned")
            raise self.fail("undefined-name", f"{_q(stmt.name)} is not defined", stmt.name_span,
                            did_you_mean(stmt.name, list(self.state) + [n for n, _ in ctx.all_locals()]))
        prefix = ""
        if local is None and ctx.track_write:
            # The move's only write to the state: remember its slot so that the end rules are
            # re-checked only where that slot can make them true (see emit_incremental_ends).
            slot = target[2:-1]
            if not slot.isdigit():
                self.written_slots = None  # known only when the move runs: any slot
            elif self.written_slots is not None:
                self.written_slots.add(int(slot))
            prefix = f"_w = {slot}; "
            target = "s[_w]"
        if stmt.op != "=":
            if not target_type.is_number:
                raise self.fail("type", f"`{stmt.op}` needs a number, and {_q(stmt.name)} holds {target_type}",
                                stmt.span)
            self.require_number(value, stmt.value.span)
            src = f"{target} {stmt.op[0]} {value.src}"
        else:
            if not T.assignable(value.type, target_type) and not (
                target_type.kind == "int" and value.type.kind == "int"
            ):
                raise self.fail("type", f"{_q(stmt.name)} holds {target_type}, not {value.type}", stmt.value.span)
            src = value.src
        if (local is None and not value.is_const) or stmt.op != "=":
            var = self.state[stmt.name] if local is None else None
            new = _bounds(value) if stmt.op == "=" else _arith_bounds(stmt.op[0], _var_bounds(var), _bounds(value)) \
                if var is not None else None
            proven = var is not None and new is not None and var.lo <= new[0] and new[1] <= var.hi and \
                var.values is None
            if var is not None and (var.type.kind == "int" or self.checked or not self.holds_every(var)) and not proven:
                # Keep every state value inside its declared domain: the state space stays finite
                # and a mistake in the rules is reported at its line instead of corrupting a solve.
                # (Skipped where the value's bounds already lie inside the domain, and for a player,
                # cell, direction or enumeration state that holds every value of its type.)
                sid = self.span_id(stmt.value.span)
                src = f"_among({src}, {self.constant(var.values)}, {sid})" if var.values is not None else \
                    f"_dom({src}, {var.lo}, {var.hi}, {sid})"
        return f"{prefix}{target} = {src}"

    def global_name_kind(self, name: str) -> str | None:
        if name in self.params:
            return "parameter"
        if name in self.defs:
            return "function"
        if name in self.players:
            return "player"
        if name in self.enum_members:
            return "named value"
        if name == "mover":
            return "the moving player"
        return None

    def holds_every(self, var: StateVar) -> bool:
        """Whether an entity state holds every value of its type (a value of that type needs no check)."""
        kind = var.type.kind
        if not var.type.is_entity:
            return True
        count = {"player": len(self.players), "enum": len(self.enums.get(var.type.name, ())),
                 "cell": self.board.ncells if self.board else 0,
                 "dir": len(self.board.directions) if self.board else 0}[kind]
        return var.values is None and var.lo <= (-1 if var.type.optional else 0) and var.hi >= count - 1

    def describe_domain(self, var: StateVar) -> str:
        if var.type.kind == "int":
            return f"{var.lo}..{var.hi}"
        return str(var.type)

    # ----------------------------------------------------------------- chance
    def compile_chance(self, stmt: ast.Stmt, ctx: Ctx, after: list[tuple[list[ast.Stmt], Ctx]],
                       out: list[Any], pad: str) -> None:
        """Suspend the move here; nature's pick resumes it in a continuation function."""
        if ctx.in_loop:
            raise self.fail("chance-in-loop", "`chance` cannot appear inside a `for` loop", stmt.span,
                            "move the chance before or after the loop")
        if ctx.in_setup:  # (docs 2.13) the game would start at a chance state, before anyone has moved
            raise self.fail("chance-in-setup", "`chance` cannot appear in `setup`", stmt.span,
                            "give the state its starting value, or make the first move a chance")
        self.has_chance = True
        cid = self.chance_points
        self.chance_points += 1
        saved = [(n, loc) for n, loc in ctx.all_locals() if loc.const is NOT_CONST]
        extras = [f"{local.pyname}" for _, local in saved]
        # The chance state: variables, turn=CHANCE, status, then what the continuation needs.
        saved_src = "".join(", " + name for name in extras)
        out.append((f"{pad}s[_T] = -1", stmt.span))
        out.append((f"{pad}return tuple(s) + ({cid}, me, nt{saved_src})", stmt.span))
        restore = [f"    {name} = st[{self.extra_base + 3 + i}]" for i, name in enumerate(extras)]
        # Continuation: chance body, then the rest of every enclosing block.
        kctx = ctx.child()
        for name, local in saved:
            kctx.scopes[-1][name] = local
        if isinstance(stmt, ast.Chance):
            self.compile_chance_var(stmt, cid, ctx, kctx, restore, after)
        else:
            assert isinstance(stmt, ast.ChanceBranches)
            self.compile_chance_branches(stmt, cid, ctx, kctx, restore, after)

    def emit_continuation(self, fn: str, restore: list[str], body: list[Any], span: Span,
                          bind: str | None = None) -> None:
        """``fn(outcome, st)``: restore the move's locals from the chance state, then bind the chance
        variable (after the restore, so that no saved local can overwrite nature's pick), then go on."""
        self.emit(f"def {fn}(_pick, st):", span)
        self.emit(f"    s = list(st[:{self.extra_base}])", span)
        self.emit(f"    me = st[{self.extra_base + 1}]; nt = st[{self.extra_base + 2}]", span)
        self.emit("    s[_T] = me", span)
        for line in restore:
            self.emit(line, span)
        if bind is not None:
            self.emit(f"    {bind} = _pick", span)
        self.splice(body)
        self.emit("    return _finish(s, me, nt)", span)

    def emit_chance_state(self, span: Span) -> None:
        """The start of ``_co<k>(st)``: the outcomes and weights are computed inside the move, so
        ``mover`` and ``turn`` are the mover there (the chance state's own turn slot says CHANCE)."""
        self.emit(f"    s = st; me = st[{self.extra_base + 1}]", span)

    def continuation_body(self, first: Sequence[ast.Stmt], kctx: Ctx,
                          after: list[tuple[list[ast.Stmt], Ctx]], span: Span) -> list[Any]:
        """The code after a chance: ``first`` in ``kctx``, then the rest of each enclosing block, each in
        its own block's scope (a fresh child of it), so that a local of an inner block ends with that
        block here as it does in the code without chance."""
        body: list[Any] = []
        segments = [(list(first), kctx), *((list(rest), self.resumed_scope(rctx, kctx)) for rest, rctx in after)]
        for i, (stmts, sctx) in enumerate(segments):
            if self.compile_block(stmts, sctx, segments[i + 1:], body, 1, span):
                break  # a chance at this level: its continuation runs the segments after it
        return body

    @staticmethod
    def resumed_scope(block: Ctx, kctx: Ctx) -> Ctx:
        """``block``'s locals (all restored in the continuation) plus a new scope, with ``kctx``'s flags."""
        return Ctx([*block.scopes, {}], kctx.in_effect, kctx.in_move, kctx.in_loop, kctx.in_setup, kctx.in_end,
                   kctx.track_write)

    def compile_chance_var(self, stmt: ast.Chance, cid: int, ctx: Ctx, kctx: Ctx, restore: list[str],
                           after: list[tuple[list[ast.Stmt], Ctx]]) -> None:
        domain = self.expr(stmt.domain, ctx)
        if domain.type.kind != "seq":
            raise self.fail("type", f"`chance {stmt.var} in ...` needs a set of outcomes, not {domain.type}",
                            stmt.domain.span)
        if domain.is_const and len(domain.const) > MAX_OUTCOMES:
            # Each outcome is a move object made at load time: a million would take seconds and memory.
            raise self.fail("too-large", f"a chance over {len(domain.const):,} outcomes; at most {MAX_OUTCOMES:,}",
                            stmt.domain.span)
        elem = domain.type.elem or T.INT
        pyname = f"L_{stmt.var}"
        self.declare_local(kctx, stmt.var, Local(pyname, elem, False, bounds=_domain_bounds(domain)), stmt.span)
        wctx = ctx.child()
        wctx.scopes[-1][stmt.var] = Local(pyname, elem, False, bounds=_domain_bounds(domain))
        weight = None
        if stmt.weight is not None:
            weight = self.expr(stmt.weight, wctx)
            self.require_number(weight, stmt.weight.span)
            if domain.is_const and weight.is_const:
                self.check_constant_weights([weight.const] * len(domain.const), stmt.weight.span)
        elif domain.is_const and len(domain.const) == 0:
            raise self.fail("empty-chance", "this chance has no outcomes", stmt.domain.span)
        fn = f"_k{cid}c"
        if stmt.body is None:  # `chance x in D`: x is visible to the end of the enclosing block
            body = self.continuation_body(after[0][0], kctx, after[1:], stmt.span)
        else:  # `chance x in D:` only in its body
            body = self.continuation_body(stmt.body, kctx, after, stmt.span)
        self.emit_continuation(fn, restore, body, stmt.span, bind=pyname)
        # Outcomes function: evaluated in the chance state.
        factory = OutcomeFactory(stmt.var, self.displayer(elem), fn)
        self.globals[f"_CT{cid}"] = factory.cache
        self.globals[f"_CK{cid}"] = factory
        self.factories.append(factory)
        sid = self.span_id(stmt.span)
        fixed = self.constant_distribution(stmt, domain, ctx, elem)
        self.emit(f"def _co{cid}(st):", stmt.span)
        if fixed is not None:
            # Known at load time: one shared list of (outcome, probability), built once.
            self.distributions.append((f"_CD{cid}", factory, fixed))
            self.emit(f"    return _CD{cid}", stmt.span)
            return
        self.emit_chance_state(stmt.span)
        for line in restore:
            self.emit(line, stmt.span)
        self.emit(f"    dom = _outcomes({domain.src}, {sid})", stmt.span)  # bounded before it is built
        if weight is None:
            self.emit(f"    return _uniform(dom, _CT{cid}, _CK{cid}, {sid})", stmt.span)
        else:
            self.emit(f"    ws = [{weight.src} for {pyname} in dom]", stmt.weight.span if stmt.weight else stmt.span)
            self.emit(f"    return _weighted(dom, ws, _CT{cid}, _CK{cid}, {sid})", stmt.span)

    def constant_distribution(self, stmt: ast.Chance, domain: Code, ctx: Ctx,
                              elem: Type) -> list[tuple[Any, float]] | None:
        """The outcomes and exact probabilities of a chance whose domain and weights are constants."""
        if not domain.is_const:
            return None
        values = list(domain.const)
        if stmt.weight is None:
            weights: list[Any] = [1] * len(values)
        else:
            weights = []
            for value in values:
                wctx = ctx.child()
                wctx.scopes[-1][stmt.var] = Local(f"L_{stmt.var}", elem, False, value)
                weight = self.expr(stmt.weight, wctx)
                if not weight.is_const:
                    return None
                weights.append(Fraction(weight.const))
            self.check_constant_weights(weights, stmt.weight.span)
        total = sum(weights)
        return [(v, float(Fraction(w) / total)) for v, w in zip(values, weights, strict=True) if w]

    def check_constant_weights(self, weights: list[Any], span: Span) -> None:
        if any(w < 0 for w in weights):
            raise self.fail("bad-probability", "a chance weight is negative", span)
        if sum(weights) == 0:
            raise self.fail("bad-probability", "the chance weights add up to 0", span)

    def compile_chance_branches(self, stmt: ast.ChanceBranches, cid: int, ctx: Ctx, kctx: Ctx,
                                restore: list[str], after: list[tuple[list[ast.Stmt], Ctx]]) -> None:
        probs = []
        labels: list[str] = []
        for branch in stmt.branches:
            if branch.label in labels:
                raise self.fail("duplicate", f"outcome {_q(branch.label)} appears twice", branch.span)
            labels.append(branch.label)
            prob = self.expr(branch.probability, ctx)
            self.require_number(prob, branch.probability.span)
            probs.append(prob)
        if all(p.is_const for p in probs):
            values = [Fraction(p.const) for p in probs]
            for branch, value in zip(stmt.branches, values, strict=True):
                if value < 0:
                    raise self.fail("bad-probability", f"probability {value} is negative", branch.probability.span)
            if sum(values) != 1:
                raise self.fail("bad-probability", f"the probabilities add up to {sum(values)}, not 1", stmt.span,
                                "write exact fractions such as 1/3; they must sum to exactly 1")
        fns = []
        for index, branch in enumerate(stmt.branches):
            fn = f"_k{cid}b{index}"
            body = self.continuation_body(branch.body, kctx.child(), after, branch.span)
            self.emit_continuation(fn, restore, body, branch.span)
            fns.append(fn)
        outcome_fn = f"_co{cid}"
        factory = OutcomeFactory(None, str, fns)
        self.globals[f"_CB{cid}"] = tuple(labels)
        self.globals[f"_CK{cid}"] = factory
        self.factories.append(factory)
        sid = self.span_id(stmt.span)
        self.emit(f"def {outcome_fn}(st):", stmt.span)
        self.emit_chance_state(stmt.span)
        for line in restore:
            self.emit(line, stmt.span)
        prob_src = ", ".join(p.src for p in probs)
        self.emit(f"    return _branches(_CB{cid}, ({prob_src},), _CK{cid}, {sid})", stmt.span)

    # ------------------------------------------------------------------ setup
    def compile_setup(self, setup: ast.SetupDecl | None) -> None:
        init = [0] * (self.nvars + 2)
        empty = Ctx([{}])
        for var in self.state.values():
            try:
                values = self.initial_values(var, empty)
            except CompileFailed:
                continue
            init[var.offset : var.offset + var.size] = values
        self.globals["_INIT"] = tuple(init)
        self.compile_effect("_setup", [], [], setup.body if setup else (), empty, setup.span if setup else
                            Span(1, 1, 1, 2), setup=True)

    def initial_values(self, var: StateVar, ctx: Ctx) -> list[Any]:
        decl = var.decl
        if decl.init is None:
            low = var.lo
            return [bool(low) if var.type.kind == "bool" else low] * var.size
        code = self.expr(decl.init, ctx)
        if not code.is_const:
            raise self.fail("not-constant", "an initial value must be known when the game loads", decl.init.span,
                            "set computed initial values in a `setup:` block")
        if code.type.kind == "seq":
            values = list(code.const)
            if len(values) != var.size:
                raise self.fail("type", f"{_q(var.name)} has {var.size} slots but the initial list has "
                                f"{len(values)} values", decl.init.span)
            elem = code.type.elem or T.INT
        else:
            values = [code.const] * var.size
            elem = code.type
        if not T.assignable(elem, var.type) and not (elem.kind == "int" and var.type.kind == "int"):
            raise self.fail("type", f"{_q(var.name)} holds {var.type}, not {elem}", decl.init.span)
        for value in values:
            if not var.holds(int(value)):
                raise self.fail("out-of-domain", f"initial value {_show(value)} is outside the domain of "
                                f"{_q(var.name)} ({self.describe_domain(var)})", decl.init.span)
        return values

    # ------------------------------------------------------------- end rules
    def compile_ends(self, ends: list[ast.EndDecl], utilities: list[ast.UtilityDecl]) -> list[str]:
        n = len(self.players)
        if not ends:
            self.error("missing-terminal", "the rule file never ends the game", Span(1, 1, 1, 2),
                       "add `win p when ...`, `draw when ...` or `terminal when ...`")
        if any(e.kind == "terminal" for e in ends) and not utilities:
            first = next(e for e in ends if e.kind == "terminal")
            self.error("missing-utility", "`terminal when` needs a `utility p: ...` line to score the end",
                       first.span, "or use `win p when ...` / `draw when ...`, which score themselves")
        table: list[tuple[float, ...] | None] = [None]
        descriptions = [""]
        # In file order: (condition, status code source, span); a `win p when` rule gives one per player.
        rules: list[tuple[Code, str, Span]] = []
        for end in ends:
            base = len(table)  # not from the rule's index: a rule that failed to compile adds no rows
            try:
                rules.extend(self.end_conditions(end, base))
            except CompileFailed:
                continue
            table.extend([None] * (n + 1))
            descriptions.extend([""] * (n + 1))
            for p in range(-1, n):
                table[base + p + 1] = self.end_utilities(end.kind, p)
                descriptions[base + p + 1] = self.describe_end(end.kind, p)
        self.globals["_UT"] = tuple(table)
        self.emit("def _finish(s, me, nt):")
        self.emit("    s[_T] = _NEXT[me] if nt is None else nt")
        for cond, status, span in rules:
            self.emit(f"    if {cond.src}: return _end(s, {status})", span)
        self.emit("    return tuple(s)")
        if self.incremental_ends:
            self.emit_incremental_ends(rules)
        self.globals["_ST"] = self.status_slot
        return descriptions

    def end_conditions(self, end: ast.EndDecl, base: int) -> list[tuple[Code, str, Span]]:
        """The conditions of one end rule with the status each sets; constant-false ones are dropped."""
        n = len(self.players)
        ctx = Ctx([{}], in_end=True)
        binder = self.end_binder(end)
        binder_local = None
        if binder is not None:
            binder_local = self.declare_local(ctx, binder, Local(f"L_{binder}", T.PLAYER, False), end.span)
        cond = self.expr(end.condition, ctx)
        self.require(cond, T.BOOL, end.condition.span)
        if binder is not None and binder_local is not None and not binder_local.used:
            self.warn("unused-binder", f"{_q(binder)} is not used in the condition, so it stands for "
                      "every player", end.who.span if end.who else end.span,
                      did_you_mean(binder, self.visible_names(ctx)))
        if binder is not None:
            out = []
            for p in range(n):  # one condition per player, with the player folded in
                pctx = Ctx([{}], in_end=True)
                pctx.scopes[-1][binder] = Local(f"L_{binder}", T.PLAYER, False, p)
                out.append((self.expr(end.condition, pctx), str(base + 1 + p), end.span))
            return [rule for rule in out if not (rule[0].is_const and not rule[0].const)]
        status = str(base)
        if end.kind in ("win", "lose"):
            assert end.who is not None
            who = self.expr(end.who, ctx)
            self.require(who, T.PLAYER, end.who.span)
            status = f"{base + 1} + {who.src}"
        if cond.is_const and not cond.const:
            return []
        return [(cond, status, end.span)]

    def emit_incremental_ends(self, rules: list[tuple[Code, str, Span]]) -> None:
        """``_finish_at(s, me, nt, k)``: the end rules after a move that changed only slot ``k``.

        The state before the move was not terminal, so every end condition was false there.
        A condition is a disjunction of terms, each a pure function of the slots it reads; a
        term that does not read slot ``k`` is still false. So only the terms that read ``k``
        (or read the turn, or slots not known at load time) need checking, in file order:
        for Connect Four, the few lines through the new disc instead of every line.
        """
        wanted = range(self.nvars) if self.written_slots is None else sorted(self.written_slots)
        per_slot: dict[int, list[tuple[str, str, Span]]] = {k: [] for k in [*wanted, -1]}  # -1: no write
        shared: dict[str, str] = {}  # a term that reads many slots is written once, as a function
        for cond, status, span in rules:
            for term in cond.terms or (cond.src,):
                reads = _slots_read(term)
                if reads is None or len(reads) > 8:
                    if term not in shared:
                        shared[term] = f"_term{len(shared)}"
                        self.emit(f"def {shared[term]}(s):", span)
                        self.emit(f"    return {term}", span)
                    call = f"{shared[term]}(s)"
                else:
                    call = term
                for k, checks in per_slot.items():
                    if reads is None or k in reads:
                        checks.append((call, status, span))
        table = ["_chk_all"] * (self.nvars + 1)
        for k, checks in per_slot.items():
            name = f"_chk{k}" if k >= 0 else "_chk_none"
            table[k] = name
            self.emit(f"def {name}(s):")
            for term, status, span in checks:
                self.emit(f"    if {term}: return _end(s, {status})", span)
            self.emit("    return tuple(s)")
        self.emit("def _chk_all(s):")  # a slot no single-write move writes: never called, but total
        for cond, status, span in rules:
            self.emit(f"    if {cond.src}: return _end(s, {status})", span)
        self.emit("    return tuple(s)")
        self.emit("def _finish_at(s, me, nt, k):")
        self.emit("    s[_T] = _NEXT[me] if nt is None else nt")
        self.emit("    return _CHK[k](s)")
        self.emit(f"_CHK = ({', '.join(table)},)")

    def end_binder(self, end: ast.EndDecl) -> str | None:
        """``win p when ...``: a bare, otherwise unknown name stands for each player in turn."""
        if end.kind not in ("win", "lose") or not isinstance(end.who, ast.Name):
            return None
        name = end.who.id
        if name in ("mover", "turn") or self.global_name_kind(name) or name in self.state:
            return None
        return name

    def end_utilities(self, kind: str, who: int) -> tuple[float, ...] | None:
        n = len(self.players)
        if kind == "draw":
            return (DRAW,) * n
        if kind == "terminal" or who < 0:
            return None
        if kind == "win":
            return tuple(WIN if p == who else LOSE for p in range(n))
        return tuple(LOSE if p == who else WIN for p in range(n))

    def describe_end(self, kind: str, who: int) -> str:
        if kind == "draw":
            return "draw"
        if kind == "terminal" or who < 0:
            return "game over"
        return f"{self.players[who]} {'wins' if kind == 'win' else 'loses'}"

    def compile_utilities(self, ends: list[ast.EndDecl], utilities: list[ast.UtilityDecl],
                          zero_sums: list[ast.ZeroSumDecl]) -> tuple[tuple[float, float] | None, bool]:
        n = len(self.players)
        lows: list[float] = []
        highs: list[float] = []
        for end in ends:
            if end.kind == "draw":
                lows.append(DRAW)
                highs.append(DRAW)
            elif end.kind in ("win", "lose"):
                lows.append(LOSE)
                highs.append(WIN)
        bounded = True
        for extra in utilities[1:]:
            self.error("duplicate", "there can be only one `utility` line", extra.span)
        if utilities:
            decl = utilities[0]
            ctx = Ctx([{}], in_end=True)
            ctx.scopes[-1][decl.var] = Local(f"L_{decl.var}", T.PLAYER, False)
            try:
                code = self.per_player_number(decl.var, decl.expr, game_over=True)
                self.emit("def _util(s):", decl.span)
                # A fraction (`0.5`, `1/2`) is exact inside the rules; what leaves them is a float, as `n/2` is.
                # A number a float cannot hold is a rule error (`_num`), not an OverflowError in the solver.
                value = code.src if code.is_const else f"_num({code.src}, {self.span_id(decl.expr.span)})"
                value = f"float({value})" if code.type.kind == "real" else value
                self.emit(f"    return tuple({value} for L_{decl.var} in range({n}))", decl.span)
            except CompileFailed:
                pass
            if decl.bounds is not None:
                try:
                    bounds = self.expr(decl.bounds, ctx)
                    if not bounds.is_const or bounds.type.kind != "seq" or not len(bounds.const):
                        raise self.fail("not-constant", "utility bounds must be a constant range like `-1..1`",
                                        decl.bounds.span)
                    lows.append(min(bounds.const))
                    highs.append(max(bounds.const))
                    self.globals["_UB"] = (min(bounds.const), max(bounds.const))
                except CompileFailed:
                    pass
            else:
                bounded = False
        else:
            self.emit("def _util(s):")
            self.emit("    raise _NoUtility()")
        only_outcomes = not utilities and all(e.kind in ("win", "lose", "draw") for e in ends)
        zero_sum = bool(zero_sums) or (only_outcomes and n == 2)
        if zero_sums and n != 2 and any(e.kind in ("win", "lose") for e in ends):
            self.error("not-zero-sum", f"with {n} players a win (+1 for one, -1 for each other) does not sum "
                       "to zero", zero_sums[0].span, "remove `zero_sum`, or score with `utility p: ...`")
        if zero_sums and n == 1:
            self.error("not-zero-sum", "a one-player game cannot be zero-sum", zero_sums[0].span)
        bounds_out = (float(min(lows)), float(max(highs))) if bounded and lows else None
        return bounds_out, zero_sum

    def per_player_number(self, var: str, expr: ast.Expr, game_over: bool = False) -> Code:
        """A number per player (``utility p: ...``, ``heuristic p: ...``), with ``var`` standing for the player."""
        ctx = Ctx([{}], in_end=True, scoring=True, game_over=game_over)
        ctx.scopes[-1][var] = Local(f"L_{var}", T.PLAYER, False, line=expr.span.line)
        code = self.expr(expr, ctx)
        self.require_number(code, expr.span)
        return code

    def compile_heuristic(self, heuristics: list[ast.HeuristicDecl]) -> None:
        n = len(self.players)
        for extra in heuristics[1:]:
            self.error("duplicate", "there can be only one `heuristic` line", extra.span)
        if not heuristics:
            self.emit("def _heur(s):")
            self.emit("    return None")
            return
        decl = heuristics[0]
        try:
            code = self.per_player_number(decl.var, decl.expr)
        except CompileFailed:
            return
        self.emit("def _heur(s):", decl.span)
        self.emit(f"    return tuple(_flt({code.src}, {self.span_id(decl.expr.span)}) for L_{decl.var} in range({n}))",
                  decl.span)

    def compile_render(self, renders: list[ast.RenderDecl]) -> tuple[str | None, dict[int, str]]:
        for extra in renders[1:]:
            self.error("duplicate", "there can be only one `render` line", extra.span)
        if not renders:
            return None, {}
        decl = renders[0]
        var = self.state.get(decl.name)
        if var is None:
            self.error("undefined-name", f"{_q(decl.name)} is not a state variable", decl.span,
                       did_you_mean(decl.name, self.state))
            return None, {}
        var.used = True
        if len(var.index_types) != 1 or var.index_types[0].kind != "cell":
            self.error("type", f"`render` draws an array indexed by `cell`; {_q(decl.name)} is not one", decl.span)
            return None, {}
        symbols: dict[int, str] = {}
        for value_expr, text in decl.symbols:
            try:
                code = self.expr(value_expr, Ctx([{}]))
                if not code.is_const:
                    raise self.fail("not-constant", "render symbols are for constant values", value_expr.span)
                if not T.assignable(code.type, var.type) and not (code.type.kind == var.type.kind == "int"):
                    raise self.fail("type", f"{_q(decl.name)} holds {var.type}, not {code.type}", value_expr.span)
                symbols[int(code.const)] = text
            except CompileFailed:
                continue
        return decl.name, symbols

    def warn_unused(self) -> None:
        for var in self.state.values():
            if not var.used:
                self.warn("unused", f"state {_q(var.name)} is never used", var.decl.span)
        for name, info in self.defs.items():
            if not info.used:
                self.warn("unused", f"function {_q(name)} is never used", info.decl.span)
                with contextlib.suppress(CompileFailed):
                    self.compile_def(info)  # still type-check it
        for name, decl in self.param_decls.items():
            if name not in self.param_used and name in self.params:
                self.warn("unused", f"parameter {_q(name)} is never used", decl.span)


# ----------------------------------------------------------------- builtins


def _builtin(name: str, arity: int | tuple[int, ...]) -> Callable:
    def register(fn: Callable) -> Callable:
        def checked(compiler: Compiler, call: ast.Call, args: list[Code]) -> Code:
            allowed = arity if isinstance(arity, tuple) else (arity,)
            if len(args) not in allowed and -1 not in allowed:
                want = " or ".join(str(a) for a in allowed)
                raise compiler.fail("arity", f"`{name}` takes {want} argument(s), not {len(args)}", call.span)
            return fn(compiler, call, args)

        BUILTIN_FUNCTIONS[name] = checked
        return fn

    return register


BUILTIN_FUNCTIONS: dict[str, Callable[[Compiler, ast.Call, list[Code]], Code]] = {}


def _fold(compiler: Compiler, fn: Callable, args: list[Code], typ: Type, src: str,
          bounds: tuple[Any, Any] | None = None) -> Code:
    if all(a.is_const for a in args):
        value = fn(*[a.const for a in args])
        return Code(compiler.constant(value), typ, value)
    return Code(src, typ, bounds=bounds)


def _min_max(name: str) -> Callable:
    def build(compiler: Compiler, call: ast.Call, args: list[Code]) -> Code:
        py = min if name == "min" else max
        if not args:
            raise compiler.fail("arity", f"`{name}` needs at least one argument", call.span)
        if len(args) == 1:
            if args[0].type.kind != "seq":
                raise compiler.fail("type", f"`{name}` of one value needs a list", call.span)
            typ = args[0].type.elem or T.INT
            if args[0].is_const:
                values = tuple(args[0].const)
                if not values:
                    raise compiler.fail("empty", f"`{name}` of an empty list", call.span)
                return Code(compiler.constant(py(values)), typ, py(values))
            return Code(f"_{name}_of({args[0].src}, {compiler.span_id(call.span)})", typ)
        for arg, expr in zip(args, call.args, strict=True):
            compiler.require_number(arg, expr.span)
        typ = T.REAL if any(a.type.kind == "real" for a in args) else T.INT
        each = [_bounds(a) for a in args]
        bounds = None if None in each else (py(b[0] for b in each), py(b[1] for b in each))  # type: ignore[index]
        return _fold(compiler, py, args, typ, f"{name}({', '.join(a.src for a in args)})", bounds)

    return build


_builtin("min", (-1,))(_min_max("min"))
_builtin("max", (-1,))(_min_max("max"))


@_builtin("abs", 1)
def _abs(compiler: Compiler, call: ast.Call, args: list[Code]) -> Code:
    compiler.require_number(args[0], call.args[0].span)
    return _fold(compiler, abs, args, args[0].type, f"abs({args[0].src})")


@_builtin("len", 1)
def _len(compiler: Compiler, call: ast.Call, args: list[Code]) -> Code:
    if args[0].type.kind != "seq":
        raise compiler.fail("type", f"`len` needs a list or set, not {args[0].type}", call.args[0].span)
    return _fold(compiler, lambda v: len(tuple(v)), args, T.INT, f"len({args[0].src})")


@_builtin("sum", 1)
def _sum(compiler: Compiler, call: ast.Call, args: list[Code]) -> Code:
    if args[0].type.kind != "seq" or not (args[0].type.elem or T.INT).is_number:
        raise compiler.fail("type", "`sum(...)` needs a list of numbers", call.args[0].span)
    return _fold(compiler, lambda v: sum(v), args, args[0].type.elem or T.INT, f"sum({args[0].src})")


@_builtin("next", 1)
def _next(compiler: Compiler, call: ast.Call, args: list[Code]) -> Code:
    compiler.require(args[0], T.PLAYER, call.args[0].span)
    src = f"_NEXT[{args[0].src}]"
    if args[0].bounds is not None and args[0].bounds[0] < 0:  # `turn` in a utility: never a negative index
        src = f"_at(_NEXT, {args[0].src}, {compiler.span_id(call.span)})"
    return _fold(compiler, lambda p: (p + 1) % len(compiler.players), args, T.PLAYER, src)


@_builtin("opponent", 1)
def _opponent(compiler: Compiler, call: ast.Call, args: list[Code]) -> Code:
    if len(compiler.players) != 2:
        raise compiler.fail("type", "`opponent` is for two-player games; use `next(p)`", call.span)
    compiler.require(args[0], T.PLAYER, call.args[0].span)
    bounds = args[0].bounds and (1 - args[0].bounds[1], 1 - args[0].bounds[0])
    return _fold(compiler, lambda p: 1 - p, args, T.PLAYER, f"(1 - {args[0].src})", bounds)


def _board(compiler: Compiler, call: ast.Call) -> Board:
    if compiler.board is None:
        raise compiler.fail("no-board", f"`{call.func}` needs a `board R x C` declaration", call.span)
    return compiler.board


def _board_table(name: str, arg_types: tuple[Type, ...], result: Type, table: Callable[[Board], Any]) -> None:
    """A board function that is a lookup in a precomputed table."""

    @_builtin(name, len(arg_types))
    def build(compiler: Compiler, call: ast.Call, args: list[Code]) -> Code:
        board = _board(compiler, call)
        args = [compiler.coerce(arg, typ, expr.span) for arg, typ, expr in zip(args, arg_types, call.args, strict=True)]
        data = table(board)
        if all(a.is_const for a in args):
            value = data
            for a, expr in zip(args, call.args, strict=True):
                if isinstance(a.const, bool) or not isinstance(a.const, int) or not 0 <= a.const < len(value):
                    raise compiler.fail("index-out-of-range", f"`{call.func}` of {_show(a.const)}: outside "
                                        f"0..{len(value) - 1} on this board", expr.span)
                value = value[a.const]
            return Code(compiler.constant(value), result, value)
        src = compiler.constant(data)
        size = len(data)
        for a, expr in zip(args, call.args, strict=True):
            # A cell or direction is in range by construction; a number (`cells_in_row(n - 1)`) is
            # checked, so that -1 is a rule error instead of Python's last row.
            known = _bounds(a)
            proven = a.type.is_entity or (known is not None and known[0] >= 0 and known[1] < size)
            if compiler.checked or not proven:
                name = compiler.constant(call.func)
                src += f"[_board_arg({a.src}, {size}, {name}, {compiler.span_id(expr.span)})]"
            else:
                src += f"[{a.src}]"
            size = len(data[0]) if size and isinstance(data[0], tuple | list) else size
        return Code(src, result)


_board_table("row", (T.CELL,), T.INT, lambda b: b.row_of)
_board_table("col", (T.CELL,), T.INT, lambda b: b.col_of)
_board_table("step", (T.CELL, T.DIR), T.CELL.with_optional(), lambda b: b.step_table)
_board_table("ray", (T.CELL, T.DIR), T.seq(T.CELL), lambda b: b.ray_table)
_board_table("neighbors", (T.CELL,), T.seq(T.CELL), lambda b: b.neighbors)
_board_table("cells_in_row", (T.INT,), T.seq(T.CELL), lambda b: b.row_cells)
_board_table("cells_in_column", (T.INT,), T.seq(T.CELL), lambda b: b.col_cells)


@_builtin("lines", 1)
def _lines(compiler: Compiler, call: ast.Call, args: list[Code]) -> Code:
    board = _board(compiler, call)
    if not args[0].is_const or args[0].type.kind != "int":
        raise compiler.fail("not-constant", "the line length must be known when the game loads", call.args[0].span)
    value = board.lines(int(args[0].const))
    return Code(compiler.constant(value), T.seq(T.seq(T.CELL)), value)


@_builtin("connected", 3)
def _connected(compiler: Compiler, call: ast.Call, args: list[Code]) -> Code:
    """``connected(A, B, S)``: some cell of A reaches some cell of B through neighbouring cells of S."""
    board = _board(compiler, call)
    for arg, expr in zip(args, call.args, strict=True):
        if arg.type.kind != "seq" or (arg.type.elem is not None and arg.type.elem.kind != "cell"):
            raise compiler.fail("type", f"`connected` takes three sets of cells, not {arg.type}", expr.span)
    neighbors = compiler.constant(board.neighbors)
    return Code(f"_connected({neighbors}, {args[0].src}, {args[1].src}, {args[2].src})", T.BOOL)


@_builtin("cell", 2)
def _cell(compiler: Compiler, call: ast.Call, args: list[Code]) -> Code:
    board = _board(compiler, call)
    for arg, expr in zip(args, call.args, strict=True):
        compiler.require(arg, T.INT, expr.span)
    return _fold(compiler, board.cell_at, args, T.CELL.with_optional(),
                 f"{compiler.constant(board.cell_at)}({args[0].src}, {args[1].src})")


# ------------------------------------------------------------------ helpers


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


_REAL_TEXT = re.compile(r"[-+]?[0-9]{1,15}(\.[0-9]{1,15})?(/[0-9]{1,15})?")


def _real_override(name: str, text: str) -> Fraction:
    """``-p bonus=0.25`` or ``1/3``: a short decimal or fraction (an exponent like ``1e999999999`` would hang)."""
    if not _REAL_TEXT.fullmatch(text):
        raise ParameterError(f"parameter {name} takes a number like 0.5 or 1/3, not {text!r}")
    number, _, denominator = text.partition("/")
    if denominator and int(denominator) == 0:
        raise ParameterError(f"parameter {name}: {text!r} divides by zero")
    value = Fraction(number) / (int(denominator) if denominator else 1)
    if not -10_000 <= value <= 10_000:
        raise ParameterError(f"parameter {name}={text} is out of the range this tool accepts (-10000..10000)")
    return value


def _json_exact(value: Any) -> Any:
    """A parameter value for the fingerprint: a fraction exactly (``1/3``), a sequence as a list."""
    return str(value) if isinstance(value, Fraction) else list(value)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _show(value: Any) -> str:
    if isinstance(value, Fraction):
        return str(value)
    return repr(value)


def _arith(op: str, a: Any, b: Any) -> Any:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return Fraction(a) / Fraction(b)
    if op == "//":
        return int(a // b)
    return a % b


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "in": lambda a, b: a in tuple(b),
    "not in": lambda a, b: a not in tuple(b),
}


def _compare(ops: Sequence[str], values: list[Any]) -> bool:
    return all(_COMPARE[op](a, b) for op, a, b in zip(ops, values, values[1:], strict=False))


def _names_display(names: Sequence[str]) -> Callable[[int], str]:
    names = tuple(names)
    return lambda v: names[v] if 0 <= v < len(names) else "none"


def _optional_display(display: Callable[[int], str]) -> Callable[[int], str]:
    return lambda v: "none" if v == -1 else display(v)


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
