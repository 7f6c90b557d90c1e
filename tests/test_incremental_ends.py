"""The per-slot end-rule checks (after a move that changes one slot) agree with full checks."""

from __future__ import annotations

import random

import pytest

import gdl
from gdl.compiler import compile_rules
from gdl.loader import read_source, resolve
from gdl.parser import parse
from gdl.runtime import CompiledGame

CASES = [("tictactoe", {}), ("connect4", {}), ("connect4", {"cols": "4", "rows": "4", "k": "3"}),
         ("hex", {"size": "4"}), ("nim", {}), ("kalah", {"pits": "3", "seeds": "2"}), ("takeaway3", {}),
         ("hexapawn", {"rows": "4"})]


def both(name: str, params: dict[str, str]) -> tuple[CompiledGame, CompiledGame]:
    path = resolve(name)
    source = read_source(path)
    games = []
    for incremental in (True, False):
        program, warnings = compile_rules(parse(source, str(path)), source, str(path), dict(params),
                                          incremental_ends=incremental)
        games.append(CompiledGame(program, str(path), source, warnings))
    return games[0], games[1]


@pytest.mark.parametrize("name, params", CASES)
def test_incremental_and_full_end_checks_agree(name: str, params: dict[str, str]) -> None:
    fast, full = both(name, params)
    uses_incremental = "_finish_at" in fast.program.source
    assert "_finish_at" not in full.program.source
    rng = random.Random(11)
    for _ in range(300):
        a, b = fast.initial_state(), full.initial_state()
        while True:
            assert a == b
            if fast.to_move(a) == -2:
                assert fast.utilities(a) == full.utilities(b)
                break
            names = [str(m) for m in fast.legal_moves(a)]
            assert names == [str(m) for m in full.legal_moves(b)]
            name_ = rng.choice(names)
            a, b = fast.apply(a, fast.parse_move(a, name_)), full.apply(b, full.parse_move(b, name_))
    if name in ("tictactoe", "connect4", "hex", "nim"):
        assert uses_incremental  # these games write one slot per move


def test_incremental_ends_are_used_by_default() -> None:
    assert "_finish_at" in gdl.load("connect4").program.source
