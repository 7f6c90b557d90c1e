"""The driver: runs the passes in order over one rule file and packs the result.

Lark's grammar compiler is the model: single-job passes, one builder that runs them.
"""

from __future__ import annotations

import gc
import hashlib
import json
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from gdl import ast
from gdl.compiler import ir
from gdl.compiler.aggregates import AggregatePass
from gdl.compiler.base import CompilerBase
from gdl.compiler.calls import CallPass
from gdl.compiler.chance import ChancePass
from gdl.compiler.common import MAX_ERRORS, TooManyErrors, _json_exact
from gdl.compiler.declarations import DeclarationPass
from gdl.compiler.effects import EffectPass
from gdl.compiler.ends import EndRulePass
from gdl.compiler.expressions import ExpressionPass
from gdl.compiler.moves import MovePass
from gdl.compiler.names import NamePass
from gdl.compiler.params import ParameterPass
from gdl.compiler.program import Program
from gdl.compiler.quiet import QuietPass
from gdl.compiler.scoring import ScoringPass
from gdl.compiler.simultaneous import SimultaneousPass
from gdl.compiler.unused import UnusedPass
from gdl.diagnostics import Diagnostic, RuleFileError, Span


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
    # The walk makes tens of thousands of short-lived objects (compiled code and its IR, built when asked
    # for) and no garbage cycles worth collecting meanwhile: the cyclic collector waits until it is done.
    collecting = gc.isenabled()
    gc.disable()
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
    finally:
        if collecting:
            gc.enable()
    # A move unrolled per parameter value compiles its body once per value: report each problem once.
    compiler.diagnostics = list(dict.fromkeys(compiler.diagnostics))
    errors = [d for d in compiler.diagnostics if d.is_error]
    if errors or program is None:
        raise RuleFileError(compiler.diagnostics, source)
    return program, compiler.diagnostics



def compile_ir(rules: ast.RuleFile, source: str, filename: str = "<string>",
               overrides: dict[str, str] | None = None) -> ir.Program:
    """Check a parsed rule file and give its typed IR (for a back end other than Python); the same as
    ``compile_rules(...)[0].ir``, and as ``game.program.ir`` of a loaded game.

    :raises RuleFileError: the rule file has errors.
    :raises ParameterError: an override names no parameter or has a bad value.
    """
    program, _ = compile_rules(rules, source, filename, overrides)
    assert program.ir is not None
    return program.ir

class Compiler(
    ParameterPass,
    DeclarationPass,
    NamePass,
    ExpressionPass,
    AggregatePass,
    CallPass,
    MovePass,
    EffectPass,
    ChancePass,
    EndRulePass,
    ScoringPass,
    UnusedPass,
    SimultaneousPass,
    QuietPass,
    CompilerBase,
):
    """Checks one rule file and compiles it: every pass is a mixin over the shared state."""

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
        simultaneous = self.declare_simultaneous(by_kind.get(ast.SimultaneousDecl, []), moves, afters)
        self.compile_moves(moves)
        self.compile_setup(setup[0] if setup else None)
        ends = by_kind.get(ast.EndDecl, [])
        utilities = by_kind.get(ast.UtilityDecl, [])
        end_descriptions = self.compile_ends(ends, utilities)
        bounds, zero_sum = self.compile_utilities(ends, utilities, by_kind.get(ast.ZeroSumDecl, []))
        heuristics = by_kind.get(ast.HeuristicDecl, [])
        self.compile_heuristic(heuristics)
        quiet = self.compile_quiet(by_kind.get(ast.QuietDecl, []), has_heuristic=bool(heuristics))
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
            simultaneous=simultaneous,
            has_quiet=quiet,
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
            ir_builder=self.ir_program(game.name if game else "game", bounds, zero_sum, render_var, symbols,
                                       simultaneous),
        )

    def ir_program(self, name: str, bounds: tuple[float, float] | None, zero_sum: bool, render_var: str | None,
                   symbols: dict[int, str], simultaneous: bool = False) -> Callable[[], ir.Program]:
        """How to make the checked rule file's IR, for back ends other than Python (``Program.ir`` calls it
        on first use). It keeps what it needs, not the compiler."""
        layout = ir.StateLayout(tuple(ir.StateSlotVar(v.name, v.type, v.offset, tuple(v.dims), tuple(v.index_types),
                                                      v.lo, v.hi, v.values) for v in self.state.values()),
                                self.nvars, self.has_chance, self.max_saved)
        assert self.ir_setup is not None
        players, initial, setup, board = self.players, tuple(self.globals["_INIT"]), self.ir_setup, self.board
        defs, moves, ends = tuple(self.ir_defs), tuple(self.ir_moves), tuple(self.ir_ends)
        scoring = dict(self.ir_scoring)
        chance, end_utilities, params = sorted(self.ir_chance, key=lambda c: c.point), self.globals["_UT"], self.params
        quiet = self.ir_quiet

        def build() -> ir.Program:
            utility, heuristic = scoring.get("utility"), scoring.get("heuristic")
            return ir.Program(
                name=name, players=players, layout=layout, initial=initial, setup=setup,
                defs=defs, moves=moves, chance=tuple(chance), ends=ends, end_utilities=tuple(end_utilities),
                utility=utility, utility_bounds=bounds, heuristic=heuristic,
                render=(render_var, symbols) if render_var else None, zero_sum=zero_sum, parameters=dict(params),
                board=board, simultaneous=simultaneous, quiet=quiet)

        return build
