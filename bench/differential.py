"""Differential testing: the compiled game against the reference interpreter (:mod:`gdl.interpreter`).

    python bench/differential.py --generator grammar --cases 2000
    python bench/differential.py --generator bundled          # every bundled game, a few parameter sets
    python bench/differential.py --generator docs             # the complete games in docs/*.md

A case is a rule file. If ``gdl.load_source`` refuses it, the case is skipped (the interpreter runs only
rule files the checker accepted) -- except when the refusal is a ``runtime-error`` in ``setup``, which
the interpreter must reproduce. Otherwise both games play the same seeded random playouts and must agree,
at every position, on: the state variables (``values``), whose turn it is (or chance, or the end), the
legal moves (names, **in order**: declaration order, then parameter order, is documented), the chance
outcomes (names in order, probabilities within 1e-9), the end (description and utilities within 1e-9)
the heuristic and ``quiet when``. A rule error (``RuleRuntimeError`` / ``InterpreterError``) on both sides at
the same step is agreement ("both fail") and ends the playout; an error on one side only is a mismatch, and so is
any other exception from the compiled game (a traceback a user would see).

Exit status 1 if any case mismatched; one reproducer per distinct first-mismatch message goes to --out.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT / "tests")]

import gdl  # noqa: E402
from gdl.interpreter import Interpreter, InterpreterError, NotAllowed, redeclarations  # noqa: E402
from gdl.parser import parse  # noqa: E402
from solver.game import CHANCE, TERMINAL  # noqa: E402

TOLERANCE = 1e-9
FENCE = re.compile(r"^```gdl[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
# Parameter sets for the bundled games (besides the defaults), kept small so that playouts are quick: those
# of bench and those the tests use (tests/test_backends.py's TRANSLATED), so a bench run covers both.
BUNDLED_PARAMS: dict[str, list[dict[str, str]]] = {
    "connect4": [{"rows": "4", "cols": "5"}, {"cols": "4", "rows": "4"}],
    "nim": [{"heaps": "1,2,3"}],
    "takeaway3": [],
    "tictactoe": [],
    "hex": [{"size": "3"}, {"size": "4"}],
    "breakthrough": [{"rows": "4", "cols": "3"}],
    "othello": [{"size": "4"}, {"scoring": "margin", "ending": "immediate"}],
    "kalah": [{"pits": "3", "seeds": "3"}],
    "pig": [{"variant": "openspiel"}],
    "race": [],
    "clobber": [{"rows": "3", "cols": "4"}],
    "dots_and_boxes": [{"scoring": "winloss"}],
    "eight_puzzle": [],
    "hexapawn": [],
    "mnk": [{"m": "4", "n": "3", "k": "3"}],
}


class Mismatch(AssertionError):
    """The compiled game and the interpreter disagree."""


@dataclass
class Report:
    """What one case did: ``accepted`` (it loaded), positions compared, playouts ended by a rule error in both."""

    accepted: bool = False
    positions: int = 0
    both_failed: int = 0


def _call(fn: Callable[[], Any], compiled: bool) -> tuple[str, Any]:
    """("ok", value) or ("error", message) for a rule error; anything else from the compiled game is a crash."""
    try:
        return "ok", fn()
    except gdl.RuleRuntimeError as error:
        if compiled:
            return "error", error.message
        raise
    except InterpreterError as error:
        if not compiled:
            return "error", error.message
        raise
    except NotAllowed as error:
        raise Mismatch(f"the checker accepted what the docs do not allow: {error}") from None
    except Exception as error:  # a Python exception from generated code is a bug in itself
        if compiled:
            return "crash", f"{type(error).__name__}: {error}"
        raise


class _BothFailed(Exception):
    pass


def _same(what: str, moves: list[str], c: tuple[str, Any], i: tuple[str, Any],
          equal: Callable[[Any, Any], bool] = lambda a, b: a == b) -> Any:
    where = f" after {','.join(moves) or 'no moves'}"
    if c[0] == "crash":
        raise Mismatch(f"{what}: the compiled game crashed ({c[1]}){where}")
    if c[0] == "error" and i[0] == "error":
        raise _BothFailed()
    if c[0] != i[0]:
        side = "compiled" if c[0] == "error" else "interpreter"
        other = c[1] if c[0] == "error" else i[1]
        raise Mismatch(f"{what}: only the {side} game fails ({other}){where}")
    if not equal(c[1], i[1]):
        raise Mismatch(f"{what} differ{where}: compiled {c[1]!r}, interpreter {i[1]!r}")
    return c[1]


def _numbers_equal(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return len(a) == len(b) and all(abs(float(x) - float(y)) <= TOLERANCE for x, y in zip(a, b, strict=True))


def _outcomes_equal(a: list[tuple[str, Any]], b: list[tuple[str, Any]]) -> bool:
    return [n for n, _ in a] == [n for n, _ in b] and _numbers_equal([p for _, p in a], [p for _, p in b])


def _load(text: str, filename: str, params: Mapping[str, str] | None, checked: bool) -> Any:
    """The compiled game; a rule error met while the declared symmetries were compared with the rules at load
    (not in ``setup``) is left to the playouts: the game is loaded without its symmetries, which change only
    its keys, and the interpreter has none."""
    try:
        return gdl.load_source(text, filename, params, checked)
    except gdl.RuleFileError as error:
        if not any(d.code == "runtime-error" for d in error.diagnostics):
            raise
        try:
            return gdl.load_source(text, filename, params, checked, symmetry=False)
        except gdl.RuleFileError:
            raise error from None


def compare_source(text: str, params: Mapping[str, str] | None = None, *, seed: int = 0, playouts: int = 3,
                   plies: int = 60, checked: bool = False, filename: str = "case.gdl") -> Report:
    """Play ``playouts`` seeded random games of ``text`` in both engines and compare every position.

    :raises Mismatch: at the first disagreement (the message says where and the moves that reach it).
    """
    report = Report()
    try:
        game = _load(text, filename, params, checked)
        rules = parse(text, filename)
    except gdl.RuleFileError as error:
        if not any(d.code == "runtime-error" for d in error.diagnostics):
            return report
        rules = parse(text, filename)  # not accepted: the interpreter has nothing to say
        # `setup` failed while building the initial state: the interpreter must fail there too.
        if params:
            return report  # (the interpreter resolves only default parameters by itself)
        report.accepted = True
        state = _call(Interpreter(rules).initial_state, False)
        if state[0] != "error":
            raise Mismatch("initial state: only the compiled game fails (its setup raised a rule error)") from None
        report.both_failed += 1
        return report
    report.accepted = True
    for name, span in redeclarations(rules):
        raise Mismatch(f"the checker accepted a redeclaration: `{name}` at line {span.line} is already declared "
                       "(scoping rule 3: error `redeclared`)")
    interp = Interpreter(rules, game.parameters)
    rng = random.Random(seed)
    for _ in range(playouts):
        try:
            _playout(game, interp, rng, plies, report)
        except _BothFailed:
            report.both_failed += 1
    return report


def _playout(game: Any, interp: Interpreter, rng: random.Random, plies: int, report: Report) -> None:
    moves: list[str] = []
    first = _call(interp.initial_state, False)
    _same("initial state", moves, ("ok", None), first, lambda a, b: True)
    cs, i = game.initial_state(), first[1]
    for _ in range(plies + 1):
        report.positions += 1

        def both(what: str, compiled: Callable[[Any], Any], interpreted: Callable[[Any], Any],
                 equal: Callable[[Any, Any], bool] = lambda a, b: a == b, c: Any = cs, s: Any = i) -> Any:
            return _same(what, moves, _call(partial(compiled, c), True), _call(partial(interpreted, s), False), equal)

        both("state variables", game.values, interp.values)
        player = both("to_move", game.to_move, interp.to_move)
        if player == TERMINAL:
            both("end", game.describe_end, interp.describe_end)
            both("utilities", game.utilities, interp.utilities, _numbers_equal)
            return
        if player == CHANCE:
            names = [n for n, _ in both("chance outcomes", _named_outcomes(game), _named_outcomes(interp),
                                        _outcomes_equal)]
            c_moves = {str(m): m for m, _ in game.chance_outcomes(cs)}
            i_moves = {str(m): m for m, _ in interp.chance_outcomes(i)}
        else:
            both("heuristic", game.heuristic, interp.heuristic, _numbers_equal)
            both("quiet", game.is_quiet, interp.is_quiet)
            names = both("legal moves", _move_names(game), _move_names(interp))
            if not names:
                return  # a dead end in both (a bug of the rule file, not of either engine)
            c_moves = {str(m): m for m in game.legal_moves(cs)}
            i_moves = {str(m): m for m in interp.legal_moves(i)}
        name = names[rng.randrange(len(names))]
        c_next = _call(partial(game.apply, cs, c_moves[name]), True)
        i_next = _call(partial(interp.apply, i, i_moves[name]), False)
        moves.append(name)
        _same(f"apply {name}", moves, c_next, i_next, lambda a, b: True)
        cs, i = c_next[1], i_next[1]


def _named_outcomes(game: Any) -> Callable[[Any], list[tuple[str, Any]]]:
    return lambda state: [(str(m), p) for m, p in game.chance_outcomes(state)]


def _move_names(game: Any) -> Callable[[Any], list[str]]:
    return lambda state: [str(m) for m in game.legal_moves(state)]


# ------------------------------------------------------------------ case sources


def bundled_cases() -> list[tuple[str, str, dict[str, str]]]:
    """(label, text, params) for every bundled game with its defaults and the parameter sets above."""
    out = []
    for path in gdl.bundled_games():
        text = path.read_text(encoding="utf-8")
        for params in [{}, *BUNDLED_PARAMS.get(path.stem, [])]:
            out.append((f"{path.stem} {params or ''}".strip(), text, params))
    return out


def doc_cases() -> list[tuple[str, str]]:
    """(label, text) for every complete game (a block starting with `game`) in docs/*.md."""
    out = []
    for doc in sorted((ROOT / "docs").glob("*.md")):
        content = doc.read_text(encoding="utf-8")
        for match in FENCE.finditer(content):
            block = match.group(1)
            first = next((ln for ln in block.splitlines() if ln.strip() and not ln.lstrip().startswith("#")), "")
            if first.startswith("game "):
                out.append((f"{doc.name}:{content.count(chr(10), 0, match.start()) + 2}", block))
    return out


def grammar_case(seed: int) -> str:
    """Case ``seed`` of the grammar generator (half whole files, half bundled games with spliced expressions)."""
    import fuzz

    return fuzz.make_case(seed, "grammar")[1]


def generated_cases(generator: str, start: int = 0, count: int = 1000,
                    avoid_known_bugs: bool = False) -> Iterator[tuple[str, str, dict[str, str]]]:
    """``(label, rule text, parameters)`` of each case of ``generator`` (see ``--generator``); also
    bench/native_agree.py's cases."""
    if generator == "bundled":
        yield from bundled_cases()
    elif generator == "docs":
        yield from ((label, text, {}) for label, text in doc_cases())
    elif generator == "scoped":
        import scoped

        yield from ((f"seed {s}", scoped.generate(s, not avoid_known_bugs), {}) for s in range(start, start + count))
    else:
        import fuzz

        yield from ((f"seed {s}", fuzz.make_case(s, generator)[1], {}) for s in range(start, start + count))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--generator", choices=("scoped", "grammar", "mixed", "bundled", "docs"),
                        default="scoped", help="scoped: bench/scoped.py (names reused everywhere); grammar, mixed: "
                        "bench/fuzz.py's generators; bundled: games/*.gdl; docs: the games in docs/*.md")
    parser.add_argument("--cases", type=int, default=1000, help="cases of a random generator")
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--playouts", type=int, default=3)
    parser.add_argument("--plies", type=int, default=60)
    parser.add_argument("--checked", action="store_true", help="compare with the range-checked build")
    parser.add_argument("--avoid-known-bugs", action="store_true",
                        help="scoped: leave out the constructs of the compiler bugs already recorded")
    parser.add_argument("--verbose", action="store_true", help="print the traceback of a harness error")
    parser.add_argument("--out", default="differential-mismatches", help="folder for one reproducer per message")
    args = parser.parse_args(argv)
    cases = generated_cases(args.generator, args.start, args.cases, args.avoid_known_bugs)
    out = Path(args.out)
    stats: Counter[str] = Counter()
    found: dict[str, list[str]] = {}
    started = time.perf_counter()
    for label, text, params in cases:
        stats["cases"] += 1
        try:
            report = compare_source(text, params, seed=0, playouts=args.playouts, plies=args.plies,
                                    checked=args.checked)
        except Mismatch as error:
            stats["accepted"] += 1
            stats["mismatches"] += 1
            key = re.sub(r" after [^:]*(: compiled .*)?$", "", str(error))
            first = key not in found
            found.setdefault(key, []).append(label)
            if first:
                out.mkdir(parents=True, exist_ok=True)
                name = f"mismatch{len(found):03d}.gdl"
                (out / name).write_text(f"# {label}: {error}\n{text}", encoding="utf-8")
                print(f"[{stats['cases']}] {label}: {error}", flush=True)
            continue
        except Exception as error:  # the harness or the interpreter itself failed: report, keep going
            stats["harness errors"] += 1
            print(f"[{stats['cases']}] {label}: harness error {type(error).__name__}: {error}", flush=True)
            if args.verbose:
                traceback.print_exc()
            continue
        stats["accepted"] += report.accepted
        stats["positions"] += report.positions
        stats["both failed"] += report.both_failed
    seconds = time.perf_counter() - started
    print(f"\n{stats['cases']} cases ({stats['accepted']} accepted, {stats['positions']} positions compared, "
          f"{stats['both failed']} playouts ended in a rule error on both sides) in {seconds:.0f} s")
    print(f"{stats['mismatches']} mismatching cases, {len(found)} distinct messages; "
          f"{stats['harness errors']} harness errors")
    for key, labels in sorted(found.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(labels):5d}  {key}  (first: {labels[0]})")
    return 1 if found or stats["harness errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
