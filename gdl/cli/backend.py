"""``--backend auto|c|python``: one option for every command that loads a game, and ``gdl check``'s
comparison of the two back ends (``docs/backends.md``)."""

from __future__ import annotations

import argparse
from typing import Any

from gdl.cli.errors import UsageError
from gdl.diagnostics import Diagnostic, Span
from gdl.runtime import CompiledGame

AGREE_PLAYOUTS = 2000
"""``gdl check --backend c``: the most lockstep playouts (``AGREE_STEPS`` may stop them sooner) ..."""
AGREE_STEPS = 400_000
"""... and the steps they may take (:mod:`gdl.steps`; :data:`gdl.native.agree.ORACLE_WEIGHT` for a state the
interpreter runs too): the bundled games play all their playouts in seconds, Othello in half a minute; a game whose
playouts are all thousands of plies stops after a few. Counted, so that a busy machine compares as much."""
ORACLE_PLAYOUTS = 50
"""... of which the first are also played by the reference interpreter (it is slow)."""


def add_backend_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", choices=("auto", "c", "python"), default="python",
                   help="run the rules in Python (the reference; the default), in C (compiled from the rule file "
                        "with the system C compiler; the solvers' inner loops run there), or auto: C when it can be "
                        "had, else Python with a note (docs/backends.md)")


def apply_backend(game: CompiledGame, backend: str, err: Any) -> CompiledGame:
    """``game`` on ``backend``; a one-line note on ``err`` when ``auto`` keeps Python.

    :raises UsageError: ``--backend c`` cannot be had here (the reason in one line).
    """
    from gdl.native.build import BUILD_NOTICE
    from gdl.native.select import BackendError, with_backend

    def building() -> None:  # (a first build takes seconds: say why the command pauses)
        err.print(f"note: compiling {game.name} to C (its first use; kept in the cache after) ...",
                  markup=False, highlight=False)

    token = BUILD_NOTICE.set(building)
    try:
        chosen, note = with_backend(game, backend)
    except BackendError as error:
        raise UsageError(f"--backend c: {error}") from None
    finally:
        BUILD_NOTICE.reset(token)
    if note is not None:
        err.print(f"note: {note}", markup=False, highlight=False)
    return chosen


def compare_backends(source: str, filename: str, params: dict[str, str], backend: str, playouts: int, seed: int,
                     max_plies: int, time_budget: float | None) -> tuple[list[Diagnostic], str]:
    """``gdl check --backend c|auto``: the C back end against the Python one (and the reference interpreter)
    along seeded random playouts. The diagnostics (a ``backend-disagrees`` error, or why C cannot be
    used with ``--backend c``) and a one-line summary."""
    import gdl
    from gdl.interpreter import Interpreter
    from gdl.native.agree import agree
    from gdl.native.select import c_backend_or_reason
    from gdl.parser import parse

    python = gdl.load_source(source, filename, params)
    native, reason = c_backend_or_reason(python)
    if native is None:
        untranslated = (reason or "").startswith("the C back end does not translate")
        if backend == "c" and untranslated:  # this file's problem: say so, and check the other files
            return [Diagnostic("error", "backend-untranslated", f"--backend c: {reason}", Span(1, 1, 1, 2), filename,
                               "check it with --backend python (or auto), or leave the construct out")], \
                f"{filename}: not compared with C: {reason}"
        if backend == "c":  # no compiler, no cffi: every file would say the same
            raise UsageError(f"--backend c: {filename}: the C back end cannot be used: {reason}")
        return [], f"{filename}: not compared with C: {reason}"
    oracle = Interpreter(parse(source, filename), python.parameters)
    result = agree(python, native, playouts=playouts, seed=seed, max_plies=max_plies, oracle=oracle,
                   oracle_playouts=ORACLE_PLAYOUTS, time_budget=time_budget, steps=AGREE_STEPS)
    if result.agree:
        ended = {"steps": f"; the budget of {AGREE_STEPS:,} steps ended them",
                 "time": "; the --time budget ended them"}.get(result.out_of_budget or "", "")
        return [], (f"{filename}: the C and Python back ends agree along {result.playouts:,} playouts "
                    f"({result.states:,} states; the reference interpreter along the first "
                    f"{min(result.playouts, ORACLE_PLAYOUTS):,}{ended})")
    moves = ", ".join(result.moves) or "(the initial state)"
    if result.failure is not None and getattr(result.failure, "past_64_bits", False):  # C's limit, not a bug
        return _past_64_bits(native, result.failure, filename, backend, moves)
    message = f"the C back end disagrees with Python: {result.disagreement}"
    hint = "a bug in gdl: please report it with these moves (and use --backend python meanwhile)"
    diagnostic = Diagnostic("error", "backend-disagrees", message, Span(1, 1, 1, 2), filename, hint,
                            (f"after the moves: {moves}",))
    return [diagnostic], f"{filename}: the back ends disagree after {len(result.moves)} moves"


def _past_64_bits(native: CompiledGame, failure: BaseException, filename: str, backend: str,
                  moves: str) -> tuple[list[Diagnostic], str]:
    """A number past 64 bits stopped the C rules where Python, whose numbers have no such limit, went on: this
    file is one the C back end cannot run (an error with ``--backend c``, at the rule; with ``auto``, a line)."""
    span = native.explain(failure).span
    summary = (f"{filename}: the C back end stops at a number past 64 bits (line {span.line}, after the moves "
               f"{moves}); the Python back end computes it")
    if backend != "c":
        return [], summary
    diagnostic = Diagnostic("error", "backend-overflow", "--backend c: a number past 64 bits here, which the C back "
                            "end does not compute (Python's numbers have no such limit)", span, filename,
                            "use --backend python for this file (`gdl solve --backend auto` does by itself)",
                            (f"after the moves: {moves}",))
    return [diagnostic], summary
