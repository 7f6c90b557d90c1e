"""Kept programs (gdl/program_cache.py): a rule file loaded again runs the program kept from the first load,
exactly as a fresh compile runs, without the parser or the compiler, and nothing damaged or planted is used."""

from __future__ import annotations

import marshal
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import gdl
from gdl import program_cache
from gdl.loader import read_source, resolve
from solver.game import CHANCE, TERMINAL

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted(str(p) for d in ("interp_cases", "solvefiles") for p in (ROOT / "tests" / d).glob("*.gdl"))
ENV = {k: v for k, v in os.environ.items() if not k.startswith(("GDL_", "PYTEST", "COV_"))}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv("GDL_CACHE_DIR", str(directory))
    return directory


def _trace(game: gdl.CompiledGame, seed: int, plies: int = 60) -> list[object]:
    """What a playout shows: states, move names, chance probabilities, keys, the end and the utilities."""
    rng = random.Random(seed)
    state = game.initial_state()
    seen: list[object] = []
    try:
        _play(game, rng, state, seen, plies)
    except gdl.RuleRuntimeError as error:  # (the corpus has rules that fail: they must fail the same way)
        seen.append(str(error))
    return seen


def _play(game: gdl.CompiledGame, rng: random.Random, state: object, seen: list[object], plies: int) -> None:
    for _ in range(plies):
        player = game.to_move(state)
        seen.append((state, player, game.key(state), game.render(state), game.heuristic(state)))
        if player == TERMINAL:
            seen.append(game.utilities(state))
            break
        if player == CHANCE:
            outcomes = game.chance_outcomes(state)
            seen.append([(str(m), p) for m, p in outcomes])
            move = rng.choices([m for m, _ in outcomes], [p for _, p in outcomes])[0]
        else:
            moves = game.legal_moves(state)
            seen.append([str(m) for m in moves])
            move = rng.choice(moves)
        state = game.apply(state, move)


def _kept_files(cache: Path) -> list[Path]:
    return sorted((cache / "programs").iterdir())


@pytest.mark.parametrize("name", [p.stem for p in gdl.bundled_games()] + CORPUS)
def test_a_kept_program_plays_as_the_compiled_one(cache, name):
    try:
        fresh = gdl.load(name)  # compiled, and kept
    except gdl.RuleFileError as error:  # (a corpus file with errors: never kept, so reported again in full)
        assert not (cache / "programs").exists() or _kept_files(cache) == []
        with pytest.raises(gdl.RuleFileError) as again:
            gdl.load(name)
        assert again.value.diagnostics == error.diagnostics
        return
    assert len(_kept_files(cache)) == 1
    path = resolve(name)
    key = program_cache.digest(read_source(path), str(path), {}, False)
    assert program_cache.read(key) is not None
    kept = gdl.load(name)  # read back
    assert kept.program.source == fresh.program.source and kept.program.linemap == fresh.program.linemap
    assert [(v.name, v.offset, v.dims, v.lo, v.hi, v.values) for v in kept.program.state_vars] == \
        [(v.name, v.offset, v.dims, v.lo, v.hi, v.values) for v in fresh.program.state_vars]
    assert repr(kept.program.ir) == repr(fresh.program.ir)
    assert kept.warnings == fresh.warnings
    for seed in range(5):
        assert _trace(kept, seed) == _trace(fresh, seed)


def test_parameters_and_edits_are_other_programs(cache, tmp_path):
    assert gdl.load("connect4", {"cols": "5", "rows": "4"}).program.parameters["cols"] == 5
    assert gdl.load("connect4", {"cols": "6", "rows": "4"}).program.parameters["cols"] == 6
    assert len(_kept_files(cache)) == 2
    rules = tmp_path / "nim.gdl"
    rules.write_text(read_source(resolve("nim")), encoding="utf-8")
    before = gdl.load(rules)
    rules.write_text(read_source(resolve("nim")).replace("state heap", "# edited\nstate heap", 1), encoding="utf-8")
    after = gdl.load(rules)
    assert after.program.linemap != before.program.linemap or after.source != before.source
    assert len(_kept_files(cache)) == 4


def test_an_empty_cache_setting_keeps_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("GDL_CACHE_DIR", "")
    monkeypatch.chdir(tmp_path)
    assert len(gdl.load("nim").legal_moves(gdl.load("nim").initial_state())) > 0
    assert list(tmp_path.iterdir()) == []


WARM = """\
import sys
seen = []
sys.addaudithook(lambda event, args: seen.append(event) if event == "pickle.find_class" else None)
import gdl
game = gdl.load("connect4")
print(len(game.legal_moves(game.initial_state())), seen,
      sorted(m for m in ("lark", "gdl.parser", "gdl.ast", "gdl.compiler.builder") if m in sys.modules))
"""


def test_a_warm_load_needs_neither_parser_nor_compiler_and_unpickles_nothing(tmp_path):
    env = {**ENV, "GDL_CACHE_DIR": str(tmp_path / "cache")}
    cold, warm = (subprocess.run([sys.executable, "-c", WARM], env=env, capture_output=True, text=True, timeout=120,
                                 check=True).stdout.split(None, 1) for _ in range(2))
    assert cold[0] == warm[0] == "7"
    assert warm[1].strip() == "[] []"  # no unpickling, and none of the four imported
    assert "lark" in cold[1]


def _planted(cls_name: str) -> bytes:
    """A well-formed kept program whose only object names a class outside the table."""
    return marshal.dumps(((b"\0gdl", "o", 0, cls_name, {"x": 1}), None, []))


@pytest.mark.parametrize("damage", ["garbage", "truncated", "other-key", "foreign-class", "dunder", "link"])
def test_a_damaged_or_planted_program_is_ignored(cache, tmp_path, damage):
    expected = _trace(gdl.load("tictactoe"), 0)
    [file] = _kept_files(cache)
    data = file.read_bytes()
    header = len(program_cache.FORMAT) + 32
    if damage == "garbage":
        file.write_bytes(data[:header] + b"\xff" * 100)
    elif damage == "truncated":
        file.write_bytes(data[: len(data) // 2])
    elif damage == "other-key":
        file.write_bytes(program_cache.FORMAT + b"\0" * 32 + data[header:])
    elif damage == "foreign-class":
        file.write_bytes(data[:header] + _planted("os.system"))
    elif damage == "dunder":  # an attribute that would change what an object is
        payload = marshal.dumps(((b"\0gdl", "o", 0, "gdl.diagnostics.Span", {"__class__": 1}), None, []))
        file.write_bytes(data[:header] + payload)
    else:
        target = tmp_path / "elsewhere"
        target.write_bytes(data)
        file.unlink()
        file.symlink_to(target)
    assert _trace(gdl.load("tictactoe"), 0) == expected  # compiled again
    assert not file.is_symlink() and file.read_bytes() == data  # and kept again, in place of what was there
    if damage == "link":
        assert target.read_bytes() == data  # never followed


WARM_C = """\
import sys
import gdl
game = gdl.load("tictactoe", backend="c")
print(len(game.legal_moves(game.initial_state())), str(game.legal_moves(game.initial_state())[4]),
      sorted(m for m in ("lark", "gdl.ast", "gdl.compiler.ir", "gdl.native.emit_c") if m in sys.modules))
"""


@pytest.mark.slow
def test_a_warm_load_on_the_c_back_end_needs_neither_the_ir_nor_the_emitter(tmp_path):
    pytest.importorskip("cffi")
    from gdl.native.build import compiler_missing_reason

    if compiler_missing_reason() is not None:
        pytest.skip("no C compiler")
    env = {**ENV, "GDL_CACHE_DIR": str(tmp_path / "cache")}
    cold, warm = (subprocess.run([sys.executable, "-c", WARM_C], env=env, capture_output=True, text=True,
                                 timeout=300, check=True).stdout.split(None, 2) for _ in range(2))
    assert cold[:2] == warm[:2] == ["9", "place(b2)"]  # the moves named from the kept shape, as from the IR
    assert warm[2].strip() == "[]" and "gdl.native.emit_c" in cold[2]


@pytest.mark.parametrize("name", ["breakthrough", "hexapawn", "pig"])
def test_what_a_program_shares_stays_shared(cache, name):
    """A move factory's cache is also a name in the generated code: kept as two copies, every move would be
    made anew on every call (breakthrough's playouts ran 4x slower, bench/against.py found it)."""
    gdl.load(name)
    kept = gdl.load(name)
    state = kept.initial_state()
    first, again = kept.legal_moves(state), kept.legal_moves(state)
    assert first and all(a is b for a, b in zip(first, again, strict=True))  # made once, then cached


# ------------------------------------------------------------------ the parser's memory of recent texts

PARSED = 'game P\nplayers A, B\nstate n: 0..2 = 0\nmove go when n < 2: n += 1\nwin A when n == 2\n'


def test_a_text_parsed_again_is_not_parsed_again_whatever_its_file_name() -> None:
    from gdl.parser import parse

    first = parse(PARSED, "a.gdl")
    assert parse(PARSED, "b.gdl") is first  # the AST names no file
    for i in range(16):  # sixteen other texts push it out
        parse(PARSED.replace("0..2", f"0..{i + 3}"))
    assert parse(PARSED, "a.gdl") is not first and parse(PARSED, "a.gdl") == first


def test_a_syntax_error_names_the_file_it_was_read_from_each_time() -> None:
    from gdl.diagnostics import RuleFileError
    from gdl.parser import parse

    for name in ("one.gdl", "two.gdl", "one.gdl"):
        with pytest.raises(RuleFileError) as info:
            parse(PARSED + "move )\n", name)
        assert info.value.diagnostics[0].file == name and str(info.value).startswith(name + ":")
