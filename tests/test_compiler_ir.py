"""The compiler's IR (gdl.compiler.ir) means what the generated Python does, and its facts are right.

tests/ir_eval.py evaluates the IR node by node, from its documentation; here it plays the bundled games
side by side with the compiled game: the same initial state, and from every state reached the same set
of successor states (legal moves, their effects, the turn and the end rules).
"""

from __future__ import annotations

import random

import pytest
from ir_eval import Evaluator, initial

import gdl
from gdl.compiler import ir
from solver.game import TERMINAL

GAMES = [("tictactoe", {}), ("connect4", {"cols": "5", "rows": "4"}), ("nim", {}),
         ("kalah", {"pits": "3", "seeds": "2"}), ("kalah", {"capture": "always", "scoring": "winloss"}),
         ("hexapawn", {}), ("clobber", {}), ("breakthrough", {}), ("dots_and_boxes", {}), ("takeaway3", {}),
         ("othello", {}), ("hex", {}), ("eight_puzzle", {})]


def load(name: str, params: dict[str, str]) -> gdl.CompiledGame:
    return gdl.load(name, params)


@pytest.mark.parametrize(("name", "params"), GAMES, ids=[f"{g}-{i}" for i, (g, _) in enumerate(GAMES)])
def test_the_ir_plays_like_the_generated_code(name: str, params: dict[str, str]) -> None:
    game = load(name, params)
    program = game.program.ir
    assert program is not None
    oracle = Evaluator(program)
    state = game.initial_state()
    assert initial(program) == state
    rng = random.Random(7)
    for _ in range(40):
        if state[program.layout.turn_slot] == TERMINAL:
            break
        successors = [game.apply(state, move) for move in game.legal_moves(state)]
        assert sorted(oracle.successors(state), key=repr) == sorted(successors, key=repr)
        state = rng.choice(successors)


def test_the_layout_packs_every_state_variable() -> None:
    program = gdl.load("connect4").program.ir
    assert program is not None
    board = next(v for v in program.layout.vars if len(v.dims) == 2 or v.size > 1)
    assert board.size == sum(v.size for v in program.layout.vars if v is board)
    assert program.layout.nvars == sum(v.size for v in program.layout.vars)
    assert program.layout.max_slots == program.layout.nvars + 2  # no chance: no extras


def test_chance_points_carry_their_distribution() -> None:
    program = gdl.load("pig").program.ir
    assert program is not None and program.layout.has_chance
    (point,) = program.chance
    assert point.distribution is not None
    assert sum(p for _, p in point.distribution) == 1


# ------------------------------------------------------------------------------------ facts


def rules(text: str) -> ir.Program:
    program = gdl.load_source(text).program.ir
    assert program is not None
    return program


HEAD = "game Facts\nplayers A, B\nstate n: 0..9 = 0\nstate board[0..3]: player? = none\nmove go: n += 1\n"


def test_an_aggregate_binds_its_variable_and_reads_the_state_it_mentions() -> None:
    program = rules(HEAD + "win A when any k in 0..n: k == 3 and board[k] == A\ndraw when n == 9\n")
    cond = program.ends[0].condition
    assert cond.free == frozenset()  # k is bound by the aggregate
    assert cond.reads.dynamic  # board[k]: a slot known only at run time
    body = next(node for node in ir.walk(cond) if isinstance(node, ir.Aggregate)).body
    assert body is not None and len(body.free) == 1


def test_fixed_slots_are_known_and_a_constant_folds() -> None:
    program = rules(HEAD + "win A when board[1] == A and n > 2\ndraw when 2 + 3 == 5 and n == 9\n")
    assert program.ends[0].condition.reads.slots_if_known == frozenset({0, 2})
    assert program.ends[1].condition.reads.slots_if_known == frozenset({0})


def test_the_turn_is_a_read_too() -> None:
    program = rules(HEAD + "win A when turn == B and n == 3\ndraw when n == 9\n")
    reads = program.ends[0].condition.reads
    assert reads.turn and reads.slots_if_known is None


def test_bounds_of_a_state_read_and_of_arithmetic() -> None:
    program = rules(HEAD + "win A when n + 1 > 5\ndraw when n == 9\n")
    cond = program.ends[0].condition
    assert isinstance(cond, ir.Compare)
    assert cond.operands[0].bounds == (1, 10)


def test_compile_ir_gives_the_program_a_loaded_game_holds() -> None:
    from gdl.compiler import compile_ir
    from gdl.loader import read_source, resolve
    from gdl.parser import parse

    path = resolve("tictactoe")
    text = read_source(path)
    program = compile_ir(parse(text, str(path)), text, str(path))
    assert program.name == gdl.load("tictactoe").program.ir.name  # type: ignore[union-attr]
    assert [m.name for m in program.moves] == ["place"]
    assert program.layout.nvars == 9
