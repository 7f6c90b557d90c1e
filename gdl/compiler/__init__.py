"""Check a parsed rule file and compile it into Python functions over a flat state tuple.

The compiler is a set of single-job passes over the AST (one module each, mixed into one
:class:`~gdl.compiler.builder.Compiler` that runs them in order: :mod:`gdl.compiler.builder`),
sharing the symbol tables of :class:`~gdl.compiler.base.CompilerBase`. Every expression is
type-checked and folded into a :class:`~gdl.compiler.common.Code`; problems are collected as
diagnostics; only a rule file without errors becomes a :class:`~gdl.compiler.program.Program`,
which :class:`gdl.runtime.CompiledGame` runs. :mod:`gdl.compiler.ir` is the typed intermediate
representation the passes build alongside the Python they write (``Program.ir``), for other back ends
such as the C emitter of :mod:`gdl.native`.

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

from typing import TYPE_CHECKING

from gdl.lazy import lazy_names

if TYPE_CHECKING:
    from gdl.compiler.builder import Compiler, compile_ir, compile_rules
    from gdl.compiler.builtins import BUILTIN_FUNCTIONS
    from gdl.compiler.common import (
        DRAW,
        INLINE_BUDGET,
        INLINE_LIMIT,
        LOSE,
        MAX_BLOCK_DEPTH,
        MAX_DEF_DEPTH,
        MAX_DOMAIN,
        MAX_ERRORS,
        MAX_FRACTION_BITS,
        MAX_LOOP_DEPTH,
        MAX_STATE,
        NOT_CONST,
        POLL_WEIGHT,
        RESERVED,
        SMALL_NUMBER,
        UNKNOWN_SIZE,
        UNROLL_BUDGET,
        UNROLL_MOVES,
        UNROLL_QUANTIFIER,
        VALUE_ERRORS,
        WIN,
        Code,
        CompileFailed,
        Ctx,
        DefInfo,
        Local,
        StateVar,
        TooManyErrors,
    )
    from gdl.compiler.program import Program


__all__ = [
    "BUILTIN_FUNCTIONS", "DRAW", "INLINE_BUDGET", "INLINE_LIMIT", "LOSE", "MAX_BLOCK_DEPTH", "MAX_DEF_DEPTH",
    "MAX_DOMAIN", "MAX_ERRORS", "MAX_FRACTION_BITS", "MAX_LOOP_DEPTH", "MAX_STATE", "NOT_CONST", "POLL_WEIGHT",
    "RESERVED", "SMALL_NUMBER", "UNKNOWN_SIZE", "UNROLL_BUDGET", "UNROLL_MOVES", "UNROLL_QUANTIFIER", "VALUE_ERRORS",
    "WIN", "Code", "CompileFailed", "Compiler", "Ctx", "DefInfo", "Local", "Program", "StateVar", "TooManyErrors",
    "compile_ir", "compile_rules",
]

__getattr__ = lazy_names(globals(), ("gdl.compiler.program", "gdl.compiler.common", "gdl.compiler.builtins",
                                     "gdl.compiler.builder"))
