"""A reference interpreter: the rule language's documented semantics, walked directly over the AST.

This is the *oracle* the compiled game (:mod:`gdl.compiler`, :mod:`gdl.runtime`) is tested against
(``tests/test_interpreter.py``, ``bench/differential.py``). It is deliberately naive: no constant
folding, no unrolling, no inlining, no precomputed tables, exact arithmetic everywhere. Each construct
is evaluated the way ``docs/language.md`` describes it, and names follow the scoping rule written there
("Names and scope"): lexical block scopes, hygienic defs (a def body sees only its parameters and
global names), a binding ``chance x in D`` visible to the end of its block.

It runs only rule files the checker accepted (it does no type checking of its own): load the file
with :func:`gdl.load_source` first, then build ``Interpreter(rules, game.parameters)``.

The parts: the values and scopes (:mod:`gdl.interpreter.values`), board geometry and its builtins
(:mod:`gdl.interpreter.geometry`), expressions (:mod:`gdl.interpreter.expressions`), the game itself
with its statements (:mod:`gdl.interpreter.game`) and the scoping rule checked statically
(:mod:`gdl.interpreter.scoping`).
"""

from __future__ import annotations

from gdl.interpreter.game import Interpreter
from gdl.interpreter.scoping import redeclarations
from gdl.interpreter.values import Entity, InterpreterError, IState, NotAllowed, show

__all__ = ["Entity", "IState", "Interpreter", "InterpreterError", "NotAllowed", "redeclarations", "show"]
