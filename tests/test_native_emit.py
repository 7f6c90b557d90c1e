"""The C emitter: games compiled to C from the IR agree with the Python back end and the reference interpreter.

The IR programs come from tests/native_ir.py (written by hand for the Python back end's state layout,
until the compiler builds the IR). Along seeded random playouts the C game, the compiled Python game and
the reference interpreter must show the same player to move, the same legal moves in the same order,
the same utilities at the end, and the C and Python games the same states and keys; solved values agree.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

import gdl
from gdl.compiler import ir
from gdl.interpreter import Interpreter
from gdl.loader import read_source, resolve
from gdl.native.emit_c import Unsupported, emit
from gdl.native.game import NativeGame, compile_native
from gdl.parser import parse
from gdl.runtime import RuleRuntimeError
from solver.exact import solve
from solver.limits import Limits
from solver.mcts import mcts
from tests import native_ir
from tests.native_games import skip_reason

pytestmark = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")

DOMINEERING = str(Path(__file__).resolve().parent / "solvefiles" / "domineering.gdl")
CASES: dict[str, tuple[str, dict[str, str], Callable[[], ir.Program]]] = {
    "tictactoe": ("tictactoe", {}, native_ir.tictactoe),
    "connect4-4x4": ("connect4", {"cols": "4", "rows": "4"}, lambda: native_ir.connect4(4, 4)),
    "connect4-5x4": ("connect4", {"cols": "5", "rows": "4"}, lambda: native_ir.connect4(5, 4)),
    "connect4-7x6": ("connect4", {}, lambda: native_ir.connect4(7, 6)),
    "domineering-4": (DOMINEERING, {"n": "4"}, lambda: native_ir.domineering(4)),
    "domineering-5": (DOMINEERING, {"n": "5"}, lambda: native_ir.domineering(5)),
}
_games: dict[str, tuple[NativeGame, gdl.CompiledGame]] = {}


def games(case: str) -> tuple[NativeGame, gdl.CompiledGame]:
    if case not in _games:
        name, params, make = CASES[case]
        python = gdl.load(name, params)
        _games[case] = (compile_native(python, make()), python)
    return _games[case]


def interpreter(case: str) -> Interpreter:
    name, params, _ = CASES[case]
    text = read_source(resolve(name))
    return Interpreter(parse(text), gdl.load_source(text, params=params).parameters)


def lockstep(native: NativeGame, python: gdl.CompiledGame, oracle: Interpreter | None, playouts: int,
             seed: int) -> int:
    """Random playouts in lockstep; returns the number of states compared."""
    rng = random.Random(seed)
    compared = 0
    for _ in range(playouts):
        sc, sp = native.initial_state(), python.initial_state()
        si = oracle.initial_state() if oracle is not None else None
        while True:
            compared += 1
            assert sc == sp
            player = native.to_move(sc)
            assert player == python.to_move(sp)
            assert native.key(sc) == python.key(sp)
            assert native.heuristic(sc) == python.heuristic(sp)
            if oracle is not None:
                assert oracle.to_move(si) == player
            if player == -2:
                utilities = native.utilities(sc)
                assert utilities == tuple(python.utilities(sp))
                if oracle is not None:
                    assert tuple(Fraction(u) for u in oracle.utilities(si)) == tuple(Fraction(u) for u in utilities)
                break
            ours, theirs = native.legal_moves(sc), python.legal_moves(sp)
            assert [str(m) for m in ours] == [str(m) for m in theirs]
            if oracle is not None:
                reference = oracle.legal_moves(si)
                assert [str(m) for m in reference] == [str(m) for m in ours]
            i = rng.randrange(len(ours))
            sc, sp = native.apply(sc, ours[i]), python.apply(sp, theirs[i])
            if oracle is not None:
                si = oracle.apply(si, reference[i])
    return compared


@pytest.mark.slow
@pytest.mark.parametrize("case", ["tictactoe", "connect4-4x4", "connect4-5x4", "domineering-4"])
def test_backends_agree_along_2000_playouts(case: str) -> None:
    native, python = games(case)
    assert lockstep(native, python, None, 2000, seed=1) > 2000


@pytest.mark.slow
@pytest.mark.parametrize("case", ["tictactoe", "connect4-5x4", "domineering-5"])
def test_reference_interpreter_agrees(case: str) -> None:
    native, python = games(case)
    lockstep(native, python, interpreter(case), 100, seed=2)


@pytest.mark.slow
def test_connect4_7x6_agrees_along_2000_playouts() -> None:
    native, python = games("connect4-7x6")
    lockstep(native, python, None, 2000, seed=3)
    lockstep(native, python, interpreter("connect4-7x6"), 50, seed=4)


@pytest.mark.parametrize("case", ["tictactoe", "connect4-4x4", "domineering-4"])
def test_solved_values_agree(case: str) -> None:
    native, python = games(case)
    ours, theirs = solve(native), solve(python)
    assert ours.value == theirs.value
    assert [str(m) for m in ours.best_moves] == [str(m) for m in theirs.best_moves]
    assert ours.exact


@pytest.mark.slow
def test_connect4_5x4_solved_values_agree() -> None:
    native, python = games("connect4-5x4")
    ours, theirs = solve(native), solve(python)
    assert ours.value == theirs.value == (0.0, 0.0)
    assert [str(m) for m in ours.best_moves] == [str(m) for m in theirs.best_moves]


def test_principal_variation_replays_to_the_value() -> None:
    native, python = games("connect4-4x4")
    result = solve(native)
    state = python.initial_state()
    for move in result.principal_variation:
        state = python.apply(state, python.parse_move(state, str(move)))
    assert python.to_move(state) == -2
    assert python.utilities(state) == result.value


def test_mcts_on_the_c_game() -> None:
    native, _ = games("tictactoe")
    state = native.initial_state()
    for name in ("place(a1)", "place(b2)", "place(c3)"):
        state = native.apply(state, native.parse_move(state, name))
    result = mcts(native, state, Limits(iterations=100_000), seed=1)
    assert result.exact and result.value == solve(games("tictactoe")[1], state).value


def test_moves_parse_leniently_as_in_python() -> None:
    native, python = games("connect4-4x4")
    state = native.initial_state()
    assert str(native.parse_move(state, "DROP(B)")) == "drop(b)"
    assert str(native.parse_move(state, "drop(2)")) == str(python.parse_move(state, "drop(2)"))
    assert native.apply(state, native.parse_move(state, "drop(b)"))[1] == 0


# ------------------------------------------------------------------ rule errors and safety


def broken(value: ir.Expr | None = None, index: ir.Expr | None = None) -> ir.Program:
    """Tic-tac-toe whose move writes ``value`` at ``index`` (line 14): a rule error at run time."""
    program = native_ir.tictactoe()
    c = program.moves[0].params[0].var
    write = ir.AssignSlot(native_ir.span(14), "mark", index or native_ir.local(c), "=",
                          value or ir.Mover(native_ir.PLAYER))
    move = ir.Move("place", 0, program.moves[0].params, program.moves[0].guard, ir.Effect((write,)), native_ir.span(13))
    return ir.Program(**{**{f: getattr(program, f) for f in program.__dataclass_fields__}, "moves": (move,)})


@pytest.mark.slow
def test_value_outside_its_domain_is_a_rule_error_with_the_line() -> None:
    python = gdl.load("tictactoe")
    native = compile_native(python, broken(value=native_ir.const(5)))
    state = native.initial_state()
    with pytest.raises(RuleRuntimeError, match=r"tictactoe.gdl:14:1: value out of its domain"):
        native.apply(state, native.legal_moves(state)[0])


@pytest.mark.slow
def test_index_outside_its_array_is_a_rule_error_not_a_crash() -> None:
    python = gdl.load("tictactoe")
    c = native_ir.var("c", native_ir.CELL)
    far = ir.Binary(native_ir.INT, "+", native_ir.local(c), native_ir.const(9))
    program = broken(index=far)
    move = program.moves[0]
    guard = native_ir.eq(native_ir.slot("mark", native_ir.local(c)), native_ir.const(None, native_ir.OPT_PLAYER))
    move = ir.Move(move.name, 0, (ir.Param(c, native_ir.const(range(9))),), guard, move.effect, move.span)
    program = ir.Program(**{**{f: getattr(program, f) for f in program.__dataclass_fields__}, "moves": (move,)})
    native = compile_native(python, program)
    state = native.initial_state()
    with pytest.raises(RuleRuntimeError, match="index out of range"):
        native.apply(state, native.legal_moves(state)[0])
    with pytest.raises(RuleRuntimeError):
        solve(native)  # inside the C search: reported the same way


def test_no_rule_text_reaches_the_source() -> None:
    """Names from the rule file (actions, variables, players) never appear in the C source."""
    source = emit(native_ir.tictactoe()).source
    for word in ("place", "mark", "TicTacToe"):
        assert word not in source


def test_unsupported_construct_is_named() -> None:
    program = native_ir.tictactoe()
    weird = ir.Program(**{**{f: getattr(program, f) for f in program.__dataclass_fields__},
                          "after_every": (ir.Break(None),)})
    with pytest.raises(Unsupported, match="after every"):
        emit(weird)
