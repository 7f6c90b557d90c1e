"""Expectimax in C (solver/native/expectimax.c): on a C-backed game, ``solver.expectimax.expectimax`` gives the
Python search's result field by field -- value (the same doubles), move, exactness, nodes, table hits and
entries, stop and its reason -- for every pruning, with and without the table, at every depth; node and time
limits, progress, Ctrl-C, dead ends and rule errors behave as in Python; what C does not do stays in Python."""

from __future__ import annotations

import random
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gdl
import solver.expectimax
from gdl.rule_helpers import RuleRuntimeError
from solver.expectimax import expectimax
from solver.game import DeadEndError
from solver.limits import Limits, SearchStats
from tests.native_games import skip_reason
from tests.test_properties import playout

pytestmark = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")

ROOT = Path(__file__).resolve().parent.parent
PRUNINGS = ("none", "star1", "star2")

SKEW = """game Skew "a weighted die pushes a token; A wins at 8, B at 0"
players A, B
state pos: 0..8 = 4
state turns: 0..6 = 0
move push when turns < 6:
    turns += 1
    chance d in 0..3 weight d:
        if mover == A: pos = min(pos + d, 8)
        else: pos = max(pos - d, 0)
move wait when turns < 6: turns += 1
win A when pos == 8
win B when pos == 0
draw when turns == 6
"""
"""Non-uniform weights, an outcome of weight 0 (left out by Star1/Star2, searched by plain expectimax), draws."""

CRASH = """game Crash "a roll past 5 is out of range"
players A, B
state n: 0..5 = 0
move roll:
    chance d in 1..3:
        n += d
win A when n == 5
"""
"""A rule error behind chance: a roll from 3 or 4 leaves n's range."""


BOTH_SCORE = """game BothScore "not zero-sum: max^n"
players A, B
state n: 0..4 = 0
move roll:
    chance d in 1..2:
        n = min(n + d, 4)
terminal when n == 4
utility p: 1 if p == A else 0
"""


@cache
def bundled(name: str, params: tuple[tuple[str, str], ...] = ()) -> gdl.CompiledGame:
    return gdl.load(name, dict(params), backend="c")


@cache
def inline(source: str) -> gdl.CompiledGame:
    return gdl.load_source(source, "inline.gdl", None, backend="c")


@contextmanager
def python_loops() -> Iterator[None]:
    """``expectimax`` searches with the Python recursion even on a C-backed game."""
    with mock.patch.object(solver.expectimax, "_native", lambda *args: None):
        yield


def summary(result: Any) -> tuple[Any, ...]:
    stats = result.stats
    return (result.value, [str(m) for m in result.best_moves], [str(m) for m in result.principal_variation],
            result.exact, stats.nodes, stats.tt_hits, stats.tt_size, stats.depth, result.stopped, result.stop_reason,
            result.algorithm)


def both(game: Any, **kwargs: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The C search's summary and the Python search's, on the same game."""
    ours = summary(expectimax(game, **kwargs))
    with python_loops():
        theirs = summary(expectimax(game, **kwargs))
    return ours, theirs


def outcome(game: Any, **kwargs: Any) -> tuple[Any, ...]:
    """A summary, or the error's type and message."""
    try:
        return summary(expectimax(game, **kwargs))
    except (DeadEndError, RuleRuntimeError, RecursionError) as error:
        return (type(error).__name__, str(error))


def test_a_c_backed_game_is_searched_in_c() -> None:
    game = bundled("pig", (("goal", "6"),))
    budget = solver.expectimax.Budget(Limits())
    assert isinstance(solver.expectimax._native(game, budget, "star2", True, Limits(depth=3)),
                      solver.expectimax._NativeExpectiMiniMax)
    assert solver.expectimax._native(gdl.load("pig", {"goal": "6"}), budget, "star2", True, Limits()) is None


GAMES = [("pig", (("goal", "6"),)), ("pig", (("goal", "6"), ("variant", "openspiel"))), ("race", (("goal", "8"),))]


@pytest.mark.parametrize(("name", "params"), GAMES, ids=["pig6", "pig6-openspiel", "race8"])
@pytest.mark.parametrize("pruning", PRUNINGS)
@pytest.mark.parametrize("use_tt", [True, False], ids=["tt", "no-tt"])
def test_c_equals_python_on_the_bundled_chance_games(name: str, params: tuple[tuple[str, str], ...], pruning: str,
                                                     use_tt: bool) -> None:
    game = bundled(name, params)
    for depth in (1, 2, 3, 4, 5):
        ours, theirs = both(game, limits=Limits(depth=depth), pruning=pruning, use_tt=use_tt)
        assert ours == theirs, depth


@pytest.mark.slow
@pytest.mark.parametrize(("name", "params", "depths"), [("pig", (("goal", "10"),), (6,)),
                                                        ("race", (("goal", "12"),), (6,))], ids=["pig10", "race12"])
@pytest.mark.parametrize("pruning", PRUNINGS)
def test_c_equals_python_deeper(name: str, params: tuple[tuple[str, str], ...], depths: tuple[int, ...],
                                pruning: str) -> None:
    game = bundled(name, params)
    for depth in depths:
        for use_tt, cap in ((True, None), (True, 500), (False, None)):
            limits = Limits(depth=depth, table_entries=cap)
            ours, theirs = both(game, limits=limits, pruning=pruning, use_tt=use_tt)
            assert ours == theirs, (depth, use_tt, cap)


def test_c_equals_the_python_back_end() -> None:
    """The C game searched in C against the Python game searched in Python (the rules and the search both differ)."""
    for name, params in GAMES:
        native, python = bundled(name, params), gdl.load(name, dict(params))
        for depth in (2, 4):
            for pruning in PRUNINGS:
                kwargs: dict[str, Any] = {"limits": Limits(depth=depth), "pruning": pruning}
                assert summary(expectimax(native, **kwargs)) == summary(expectimax(python, **kwargs))


@pytest.mark.parametrize("source", [SKEW, "tests/interp_cases/columns_and_rows.gdl", "tests/deadends/chance_stuck.gdl"],
                         ids=["skew", "columns-and-rows", "chance-stuck"])
@pytest.mark.parametrize("pruning", PRUNINGS)
def test_c_equals_python_on_small_chance_games(source: str, pruning: str) -> None:
    """Weights and an outcome of probability 0, labelled columns and rows, and a dead end behind a roll (the same
    DeadEndError with the same moves); these games end, so the unlimited depth too."""
    game = inline(source) if source.startswith("game") else gdl.load(str(ROOT / source), backend="c")
    for depth in (1, 2, 3, 4, 6, None):
        for use_tt in (True, False):
            if depth is None and pruning == "none" and not use_tt:
                continue  # (the whole tree, in Python: seconds)
            kwargs: dict[str, Any] = {"limits": Limits(depth=depth), "pruning": pruning, "use_tt": use_tt}
            ours = outcome(game, **kwargs)
            with python_loops():
                theirs = outcome(game, **kwargs)
            assert ours == theirs, (depth, use_tt)


@pytest.mark.parametrize("pruning", PRUNINGS)
def test_a_rule_error_is_a_rule_runtime_error(pruning: str) -> None:
    game = inline(CRASH)
    for use_tt in (True, False):
        with pytest.raises(RuleRuntimeError, match=r"inline\.gdl:6"):
            expectimax(game, limits=Limits(depth=6), pruning=pruning, use_tt=use_tt)
        with python_loops(), pytest.raises(RuleRuntimeError, match=r"inline\.gdl:6"):
            expectimax(game, limits=Limits(depth=6), pruning=pruning, use_tt=use_tt)


@pytest.mark.parametrize("pruning", PRUNINGS)
def test_a_node_limit_stops_both_at_the_same_node(pruning: str) -> None:
    game = bundled("pig", (("goal", "10"),))
    for nodes in (0, 1, 7, 1023, 1024, 1025, 2500, 4000):
        for use_tt in (True, False):
            ours, theirs = both(game, limits=Limits(depth=8, nodes=nodes), pruning=pruning, use_tt=use_tt)
            assert ours == theirs, (nodes, use_tt)
            assert ours[-3:-1] == (True, "nodes") or ours[4] < nodes


def test_progress_and_an_interrupt_from_it_come_at_the_same_nodes() -> None:
    game = bundled("pig", (("goal", "10"),))
    runs = []
    for loops in ("c", "python"):
        seen: list[int] = []

        def progress(stats: SearchStats, seen: list[int] = seen) -> None:
            seen.append(stats.nodes)
            if len(seen) == 3:
                raise KeyboardInterrupt

        if loops == "c":
            result = expectimax(game, limits=Limits(depth=8), pruning="star2", use_tt=False, progress=progress)
        else:
            with python_loops():
                result = expectimax(game, limits=Limits(depth=8), pruning="star2", use_tt=False, progress=progress)
        runs.append((seen, summary(result)))
    assert runs[0] == runs[1]
    assert runs[0][1][-3:-1] == (True, "interrupt") and runs[0][1][1] == ["roll"]


def test_ctrl_c_and_a_time_limit_stop_the_c_search_with_the_best_move_so_far() -> None:
    game = bundled("pig", (("goal", "10"),))

    def interrupt(*_: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        result = expectimax(game, limits=Limits(depth=30), pruning="star2", use_tt=False)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert result.stopped and result.stop_reason == "interrupt" and str(result.best_move) == "roll"
    result = expectimax(game, limits=Limits(depth=30, seconds=0.2), pruning="star1", use_tt=False)
    assert result.stopped and result.stop_reason == "time" and result.stats.seconds < 1.0


def test_an_unlimited_search_of_a_cyclic_game_is_a_recursion_error_as_in_python() -> None:
    game = bundled("pig", (("goal", "6"),))
    for pruning in PRUNINGS:
        with pytest.raises(RecursionError):
            expectimax(game, pruning=pruning)


def test_what_c_does_not_do_stays_in_python() -> None:
    """Quiescence at a depth limit (``is_quiet`` is Python's) and games that are not two-player zero-sum."""
    game = bundled("pig", (("goal", "6"),))
    with mock.patch.object(solver.expectimax, "NativeExpectimax", side_effect=AssertionError("not in C")):
        quiet = expectimax(game, limits=Limits(depth=3, quiescence=2), pruning="star2")
        other = expectimax(inline(BOTH_SCORE), limits=Limits(depth=3), pruning="none")
    with python_loops():
        assert summary(quiet) == summary(expectimax(game, limits=Limits(depth=3, quiescence=2), pruning="star2"))
    assert other.value is not None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["pig", "race", "skew"]), st.integers(0, 10_000), st.integers(0, 12), st.integers(1, 5),
       st.sampled_from(PRUNINGS), st.booleans(), st.sampled_from([None, 3, 40]), st.sampled_from([None, 50, 300]))
def test_from_any_reachable_state_c_equals_python(name: str, seed: int, plies: int, depth: int, pruning: str,
                                                  use_tt: bool, cap: int | None, nodes: int | None) -> None:
    game = inline(SKEW) if name == "skew" else bundled(name, (("goal", "8"),))
    state = playout(game, random.Random(seed), plies)[-1]  # (a random reachable state)
    kwargs: dict[str, Any] = {"limits": Limits(depth=depth, nodes=nodes, table_entries=cap), "pruning": pruning,
                              "use_tt": use_tt}
    ours = outcome(game, state=state, **kwargs)
    with python_loops():
        theirs = outcome(game, state=state, **kwargs)
    assert ours == theirs


DRIVER = r"""
#include <stdio.h>
static int64_t drv_calls;
static int64_t drv_check(int64_t nodes) { drv_calls++; return nodes >= 200000 ? -1 : nodes + 1024; }
int main(void) {
    gdl_error e = {0, 0, 0, 0};
    g_cell s[G_STATE_LEN];
    int64_t root[G_STATE_LEN];
    int32_t path[64];
    g_setup();
    if (g_initial(s, &e) < 0) return 1;
    gdl_export(s, root);
    for (int mode = 0; mode < 6; mode++) {
        ex_ctx *c = gdl_ex_new(mode % 3 != 0, mode % 3 == 2, mode < 3, mode == 1 ? 7 : INT64_MAX, G_UTIL_LOW,
                               G_UTIL_HIGH, drv_check);
        if (!c) return 1;
        double v = 0.0;
        for (int depth = 1; depth <= 6; depth++) {
            int st = gdl_ex_value(c, root, depth, 1, -INFINITY, INFINITY, 1024, &v);
            if (st != EX_OK && st != EX_STOP && st != EX_ERROR && st != EX_DEAD_END) return 2;
            gdl_ex_path(c, path, 64);
        }
        int st = gdl_ex_value(c, root, 0, 0, -1.0, 1.0, 1024, &v); /* unlimited: deep, stopped or done */
        if (st == EX_MEMORY) return 3;
        int64_t stats[4];
        gdl_ex_stats(c, stats);
        gdl_ex_free(c);
    }
    printf("ok\n");
    return 0;
}
"""


@pytest.mark.slow
@pytest.mark.parametrize(("name", "params"), [("pig", {"goal": "12"}), ("race", {"goal": "10"})])
def test_the_c_search_under_the_sanitizers(name: str, params: dict[str, str], tmp_path: Path) -> None:
    """Star1, Star2, plain, with a table, a tiny table and none, to the recursion limit, under ASan and UBSan."""
    from gdl.native.build import BuildError, compile_executable
    from gdl.native.emit_c import emit
    from gdl.native.game import symmetry_maps

    game = gdl.load(name, params)
    assert game.program.ir is not None
    program = tmp_path / "driver"
    try:
        compile_executable(emit(game.program.ir, symmetry_maps(game)).source, DRIVER, program)
    except BuildError as error:
        if "sanitize" in str(error) or "asan" in str(error).lower():
            pytest.skip(f"the C compiler cannot build with sanitizers here: {error}")
        raise
    env = {"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0", "UBSAN_OPTIONS": "print_stacktrace=1"}
    result = subprocess.run([str(program)], capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stderr[-4000:]
    assert result.stdout.strip() == "ok"
    assert "runtime error" not in result.stderr
