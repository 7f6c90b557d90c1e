"""The C game ABI and the C solvers under AddressSanitizer and UndefinedBehaviorSanitizer.

Each test game is built with the solver sources and a driver (tests/native/driver.c) into a standalone
program with ``-fsanitize=address,undefined``: a bounded corpus of seeded random playouts through every
ABI function and checked entry point (with out-of-range cells and moves), then alpha-beta with a small
table and MCTS. Any out-of-bounds access, use after free or undefined behaviour aborts the program.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gdl.native.build import BuildError, compile_executable
from tests.native_games import HERE, skip_reason, source

pytestmark = [pytest.mark.slow, pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")]


@pytest.mark.parametrize(("name", "defines"), [("tictactoe.c", {}), ("connect4.c", {"C4_COLS": 4, "C4_ROWS": 4}),
                                               ("connect4.c", {"C4_COLS": 7, "C4_ROWS": 6})])
def test_sanitized_corpus(name: str, defines: dict[str, int], tmp_path: Path) -> None:
    _run_sanitized(source(name, defines), tmp_path)


@pytest.mark.parametrize(("name", "params"), [("pig", {"goal": "30"}), ("hex", {"size": "4"}), ("kalah", {}),
                                              ("breakthrough", {}), ("othello", {"size": "4"})])
def test_sanitized_corpus_of_games_compiled_from_their_rule_files(name: str, params: dict[str, str],
                                                                  tmp_path: Path) -> None:
    """The C the emitter writes from the compiler's IR (chance, symmetries, defs, run-time lists, tables)."""
    import gdl
    from gdl.native.emit_c import emit
    from gdl.native.game import symmetry_maps

    game = gdl.load(name, params)
    assert game.program.ir is not None
    _run_sanitized(emit(game.program.ir, symmetry_maps(game)).source, tmp_path)


def _run_sanitized(game_source: str, tmp_path: Path) -> None:
    program = tmp_path / "driver"
    try:
        compile_executable(game_source, (HERE / "driver.c").read_text(encoding="utf-8"), program)
    except BuildError as error:
        if "sanitize" in str(error) or "asan" in str(error).lower():
            pytest.skip(f"the C compiler cannot build with sanitizers here: {error}")
        raise
    env = {"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0", "UBSAN_OPTIONS": "print_stacktrace=1"}
    result = subprocess.run([str(program), "300", "1"], capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stderr[-4000:]
    assert result.stdout.strip() == "ok"
    assert "runtime error" not in result.stderr
