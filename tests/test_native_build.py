"""Building native modules: the cache (content-addressed, private, safe under concurrency) and the ABI's checks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gdl.native import build as native_build
from solver.native.rules import NativeRules
from tests.native_games import HERE, RuleError, skip_reason, source

pytestmark = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")

TTT = source("tictactoe.c")


def cached_files(directory: Path) -> list[Path]:
    return sorted(p for p in (directory / "native").iterdir() if p.name.startswith("_gdl_c_"))


def fresh(monkeypatch: pytest.MonkeyPatch, directory: Path) -> None:
    monkeypatch.setenv("GDL_CACHE_DIR", str(directory))
    monkeypatch.setattr(native_build, "_loaded", {})


@pytest.mark.slow
def test_cache_hit_loads_the_same_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh(monkeypatch, tmp_path)
    native_build.build(TTT)
    (first,) = cached_files(tmp_path)
    stamp = first.stat().st_mtime_ns
    monkeypatch.setattr(native_build, "_loaded", {})

    def no_compiler(*args: object, **kwargs: object) -> None:
        raise AssertionError("a cache hit must not compile")

    monkeypatch.setattr(native_build, "_compile", no_compiler)
    module = native_build.build(TTT)
    assert module.lib.gdl_info(module.ffi.new("int64_t[12]"), 12) == 12
    assert [p.stat().st_mtime_ns for p in cached_files(tmp_path)] == [stamp]
    assert (tmp_path / "native").stat().st_mode & 0o777 == 0o700


@pytest.mark.slow  # (a cold C build each: seconds)
def test_other_source_other_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh(monkeypatch, tmp_path)
    native_build.build(TTT)
    native_build.build(source("connect4.c", {"C4_COLS": 3, "C4_ROWS": 3}))
    assert len(cached_files(tmp_path)) == 2
    assert not [p for p in (tmp_path / "native").iterdir() if p.name.startswith(".build-")]


@pytest.mark.slow  # (a cold C build each: seconds)
def test_damaged_cache_file_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh(monkeypatch, tmp_path)
    native_build.build(TTT)
    (first,) = cached_files(tmp_path)
    first.write_bytes(b"not a library")
    monkeypatch.setattr(native_build, "_loaded", {})
    module = native_build.build(TTT)
    assert module.lib.gdl_bound(1) == 1.0
    assert first.read_bytes()[:4] == b"\x7fELF"


@pytest.mark.slow  # (a cold C build each: seconds)
def test_link_in_the_cache_is_not_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh(monkeypatch, tmp_path)
    native_build.build(TTT)
    (first,) = cached_files(tmp_path)
    elsewhere = tmp_path / "elsewhere.so"
    first.rename(elsewhere)
    first.symlink_to(elsewhere)
    monkeypatch.setattr(native_build, "_loaded", {})
    native_build.build(TTT)
    assert not first.is_symlink()  # replaced by a fresh build, never loaded through the link


@pytest.mark.slow
def test_unsafe_cache_directory_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    (shared / "native").mkdir(parents=True)
    (shared / "native").chmod(0o777)
    fresh(monkeypatch, shared)
    module = native_build.build(TTT)  # built in a private temporary directory instead
    assert module.lib.gdl_bound(0) == -1.0
    assert not list((shared / "native").iterdir())


@pytest.mark.slow
def test_cache_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GDL_CACHE_DIR", "")
    monkeypatch.setattr(native_build, "_loaded", {})
    assert native_build.cache_directory() is None
    assert native_build.build(TTT).lib.gdl_bound(1) == 1.0


@pytest.mark.slow
def test_concurrent_builds_of_one_game(tmp_path: Path) -> None:
    """Four processes build the same game into an empty cache at once: all load it; one file remains."""
    script = ("import sys; sys.path.insert(0, sys.argv[1]); from gdl.native.build import build; "
              "from tests.native_games import source; m = build(source('connect4.c', {'C4_COLS': 4, 'C4_ROWS': 3})); "
              "print(m.lib.gdl_bound(1))")
    env = {**os.environ, "GDL_CACHE_DIR": str(tmp_path)}
    root = str(HERE.parent.parent)
    procs = [subprocess.Popen([sys.executable, "-c", script, root], env=env, stdout=subprocess.PIPE, text=True)
             for _ in range(4)]
    outputs = [p.communicate(timeout=300)[0].strip() for p in procs]
    assert [p.returncode for p in procs] == [0] * 4
    assert outputs == ["1.0"] * 4
    assert len(cached_files(tmp_path)) == 1
    assert not [p for p in (tmp_path / "native").iterdir() if p.name.startswith(".build-")]


def test_no_compiler_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", "/nonexistent/cc")
    native_build.find_compiler.cache_clear()
    try:
        assert "no C compiler" in (native_build.compiler_missing_reason() or "")
        monkeypatch.setattr(native_build, "_loaded", {})
        with pytest.raises(native_build.BuildError, match="no C compiler"):
            native_build.build(TTT + "\n/* another */\n")
    finally:
        monkeypatch.delenv("CC")
        native_build.find_compiler.cache_clear()


def test_compiler_error_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh(monkeypatch, tmp_path)
    with pytest.raises(native_build.BuildError, match="C compiler failed"):
        native_build.build("this is not C;")


# ------------------------------------------------------------------ the checked entry points


def rules() -> NativeRules:
    return NativeRules(native_build.build(TTT), lambda e: RuleError(e.code, e.line))


def test_states_from_outside_are_checked() -> None:
    r = rules()
    with pytest.raises(RuleError) as caught:
        r.legal((0, 0, 0, 0, 7, 0, 0, 0, 0, 0))  # cell 4 holds 7: outside 0..2
    assert caught.value.code == 7  # GDL_E_STATE
    with pytest.raises(RuleError):
        r.to_move((0,) * 9 + (-1,))
    with pytest.raises(ValueError, match="10 cells"):
        r.legal((0,) * 3)


def test_illegal_move_from_outside_is_refused() -> None:
    r = rules()
    state = r.apply(r.initial(), 4)
    with pytest.raises(RuleError) as caught:
        r.apply(state, 4)  # taken
    assert caught.value.code == 5  # GDL_E_MOVE
    with pytest.raises(RuleError):
        r.apply(state, 1 << 30)
    assert r.legal(state) == [0, 1, 2, 3, 5, 6, 7, 8]


def test_keys_are_canonical_images() -> None:
    r = rules()
    corner = r.apply(r.initial(), 8)
    other = r.apply(r.initial(), 0)
    assert r.key(corner) == r.key(other)
    assert r.key(corner)[0] == min(corner, other)
    assert r.key(r.apply(r.initial(), 4)) != r.key(corner)


# ------------------------------------------------------------ the emitter's output kept (gdl/native/emit_cache.py)


def _emit_counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the emitter's runs (compile_native imports emit from gdl.native.emit_c when it needs it)."""
    import gdl.native.emit_c as emit_c

    calls: list[int] = []
    real = emit_c.emit

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(emit_c, "emit", counting)
    return calls


@pytest.mark.slow  # (a cold C build each: seconds)
def test_a_cached_c_game_is_not_emitted_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gdl

    fresh(monkeypatch, tmp_path)
    calls = _emit_counting(monkeypatch)
    first = gdl.load("connect4", {"cols": "5", "rows": "4"}, backend="c")
    monkeypatch.setattr(native_build, "_loaded", {})
    again = gdl.load("connect4", {"cols": "5", "rows": "4"}, backend="c")
    assert len(calls) == 1  # the second load read the emitter's output back
    state = again.initial_state()
    assert [str(m) for m in again.legal_moves(state)] == [str(m) for m in first.legal_moves(state)]
    gdl.load("connect4", {"cols": "6", "rows": "4"}, backend="c")  # other parameters: another entry
    assert len(calls) == 2


@pytest.mark.slow  # (a cold C build each: seconds)
def test_a_damaged_emitter_cache_file_is_emitted_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gdl

    fresh(monkeypatch, tmp_path)
    calls = _emit_counting(monkeypatch)
    gdl.load("nim", backend="c")
    (entry,) = (tmp_path / native_build.CACHE_SUBDIR).glob("emitted-*.json")
    for damage in (b"{not json", b'{"source": "x", "codes": [], "state_len": "3", "ranges": []}', b"[]"):
        entry.write_bytes(damage)
        monkeypatch.setattr(native_build, "_loaded", {})
        game = gdl.load("nim", backend="c")
        assert game.legal_moves(game.initial_state())  # a working game, emitted anew
    assert len(calls) == 4


@pytest.mark.slow  # (a cold C build each: seconds)
def test_an_ir_other_than_the_games_own_is_emitted_not_taken_from_the_cache(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache's key describes the game's own IR: an IR a caller changed (the tests' broken games) is emitted."""
    import dataclasses

    import gdl
    from gdl.native.game import compile_native

    fresh(monkeypatch, tmp_path)
    python = gdl.load("tictactoe")
    assert gdl.load("tictactoe", backend="c").initial_state()[0] == -1  # (the cache now holds tictactoe)
    changed = dataclasses.replace(python.program.ir, initial=(0, *python.program.ir.initial[1:]))
    assert compile_native(python, changed).initial_state()[0] == 0  # X already on a1: the changed IR's C


@pytest.mark.slow
def test_the_command_line_says_when_it_compiles_a_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A first build takes seconds: ``--backend c`` says why the command pauses, on stderr; a cache hit is silent."""
    from gdl.cli import main

    fresh(monkeypatch, tmp_path)
    assert main(["solve", "nim", "--backend", "c", "--value-only"]) == 0
    first = capsys.readouterr()
    assert first.err.count("note: compiling Nim") == 1 and "to C" in first.err
    monkeypatch.setattr(native_build, "_loaded", {})
    assert main(["solve", "nim", "--backend", "c", "--value-only"]) == 0
    second = capsys.readouterr()
    assert "compiling" not in second.err
    assert "exact value: First 1" in first.out and "exact value: First 1" in second.out
    assert native_build.BUILD_NOTICE.get() is None  # (the command line's notice does not outlive the command)


@pytest.mark.slow
@pytest.mark.parametrize(("level", "used"), [(None, "-O2"), ("-O1", "-O1"), ("-O9", "-O2")])
def test_the_optimisation_level(tmp_path: Path, level: str | None, used: str) -> None:
    """Users' builds are -O2 (the suite's -O0: tests/conftest.py); ``GDL_NATIVE_OPT`` picks another level, a value
    that is not a level is ignored. The -O2 build solves tic-tac-toe as the suite's builds do (built once: the
    other levels are the same flags with another first word)."""
    script = ("import sys; sys.path.insert(0, sys.argv[1]); import gdl; from gdl.native import build; "
              "from solver.exact import solve; print(build.DEFAULT_FLAGS[0]); "
              + ("print(solve(gdl.load('tictactoe', backend='c')).value)" if level is None else ""))
    env = {key: value for key, value in os.environ.items() if key != "GDL_NATIVE_OPT"}
    env["GDL_CACHE_DIR"] = str(tmp_path)
    if level is not None:
        env["GDL_NATIVE_OPT"] = level
    out = subprocess.run([sys.executable, "-c", script, str(HERE.parent.parent)], env=env, capture_output=True,
                         text=True, timeout=300, check=True).stdout.split()
    assert out == ([used, "(0.0,", "0.0)"] if level is None else [used])


# ------------------------------------------------------------ cffi's wrappers compiled once (build.py: SHARED_WRAPPERS)

shared_wrappers = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="each build compiles its wrappers")
C4_3X3 = source("connect4.c", {"C4_COLS": 3, "C4_ROWS": 3})
UNITS = ("game.c", "solvers.c") if native_build.splits(native_build.DEFAULT_FLAGS) else ("game.c",)
"""The units a build at the default flags compiles (the suite's builds, at -O0: one)."""


def wrapper_objects(directory: Path) -> list[Path]:
    return sorted((directory / "native").glob("wrappers-*.o"))


def _compiler_runs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """Each run of the compilers: the names of the C files it compiles (after ``-c``); ``()`` for a link."""
    runs: list[tuple[str, ...]] = []
    real = native_build._run_compilers

    def counting(commands: list[list[str]], compiler: str) -> None:
        runs.append(tuple(Path(command[command.index("-c") + 1]).name for command in commands if "-c" in command))
        real(commands, compiler)

    monkeypatch.setattr(native_build, "_run_compilers", counting)
    return runs


def _plays(module: object) -> list[int]:
    r = NativeRules(module, lambda e: RuleError(e.code, e.line))
    return r.legal(r.apply(r.initial(), 0))


@shared_wrappers
@pytest.mark.slow  # (cold C builds: seconds)
def test_a_second_game_does_not_compile_the_wrappers_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh(monkeypatch, tmp_path)
    runs = _compiler_runs(monkeypatch)
    native_build.build(TTT)
    (wrappers,) = wrapper_objects(tmp_path)
    before = wrappers.stat()
    assert before.st_mode & 0o777 == 0o600
    assert runs == [(*UNITS, "_gdl_c_module.c"), ()]  # (the units at once, then the link)
    runs.clear()
    assert _plays(native_build.build(C4_3X3)) == [0, 1, 2]  # (a column of three: 0 still open)
    assert runs == [UNITS, ()]
    after = wrappers.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert wrapper_objects(tmp_path) == [wrappers] and len(cached_files(tmp_path)) == 2
    assert not [p for p in (tmp_path / "native").iterdir() if p.name.startswith(".build-")]


@shared_wrappers
@pytest.mark.slow  # (cold C builds: seconds)
@pytest.mark.parametrize("damage", ["garbage", "writable by others", "a link"])
def test_a_bad_wrapper_object_is_compiled_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    """A damaged object fails the link and is compiled again (not an error); one writable by others, or a link, is
    never used; either way the game builds, plays, and the cache holds a good object after."""
    fresh(monkeypatch, tmp_path)
    native_build.build(TTT)
    (wrappers,) = wrapper_objects(tmp_path)
    good = wrappers.read_bytes()
    if damage == "garbage":
        wrappers.write_bytes(b"not an object file")
    elif damage == "writable by others":
        wrappers.write_bytes(good[: len(good) // 2])  # (were it used, the link would fail)
        wrappers.chmod(0o666)
    else:
        elsewhere = tmp_path / "elsewhere.o"
        wrappers.rename(elsewhere)
        wrappers.symlink_to(elsewhere)
    runs = _compiler_runs(monkeypatch)
    assert _plays(native_build.build(C4_3X3)) == [0, 1, 2]
    if damage == "garbage":  # the game's units, a failed link, the wrappers, the link
        assert runs == [UNITS, (), ("_gdl_c_module.c",), ()]
    else:  # never linked: the three units compiled at once
        assert runs == [(*UNITS, "_gdl_c_module.c"), ()]
    assert not wrappers.is_symlink() and wrappers.stat().st_mode & 0o777 == 0o600
    assert wrappers.read_bytes()[:4] == b"\x7fELF"


@shared_wrappers
@pytest.mark.slow  # (cold C builds: seconds)
def test_two_games_with_the_shared_wrappers_in_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each module is its own game under its own name, here and in a process that loads them with RTLD_GLOBAL (where
    without -Bsymbolic the second module's init and entry points bound to the first's)."""
    fresh(monkeypatch, tmp_path)
    ttt, c4 = native_build.build(TTT), native_build.build(C4_3X3)
    assert ttt is not c4 and ttt.lib is not c4.lib
    assert (_plays(ttt), _plays(c4)) == ([1, 2, 3, 4, 5, 6, 7, 8], [0, 1, 2])
    script = ("import os, sys; sys.path.insert(0, sys.argv[1]); sys.setdlopenflags(os.RTLD_NOW | os.RTLD_GLOBAL); "
              "from gdl.native.build import build; from solver.native.rules import NativeRules; "
              "from tests.native_games import RuleError, source; "
              "rules = [NativeRules(build(s), lambda e: RuleError(e.code, e.line)) for s in (source('tictactoe.c'), "
              "source('connect4.c', {'C4_COLS': 3, 'C4_ROWS': 3}))]; "
              "print([r.legal(r.apply(r.initial(), 0)) for r in rules])")
    env = {**os.environ, "GDL_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", script, str(HERE.parent.parent)], env=env, capture_output=True,
                         text=True, timeout=300, check=True).stdout
    assert out.strip() == "[[1, 2, 3, 4, 5, 6, 7, 8], [0, 1, 2]]"


def test_an_optimising_build_compiles_two_units_and_an_unoptimised_one():
    assert native_build.splits(("-O2", "-fPIC")) and native_build.splits(("-O0", "-O3"))
    assert not native_build.splits(("-O0", "-fPIC")) and not native_build.splits(("-O2", "-O1"))
    assert not native_build.splits(("-fPIC",))


@pytest.mark.slow  # (three cold C builds)
@pytest.mark.parametrize(("name", "params", "method"), [
    ("tictactoe", {}, "retrograde"), ("pig", {"goal": "12"}, "auto"),
    ("connect4", {"cols": "4", "rows": "3"}, "backward"),
])
def test_games_built_as_two_units_give_the_one_unit_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            name: str, params: dict[str, str], method: str) -> None:
    """The split build (the default, optimised) at the suite's -O0: the game unit's searches and the solver unit's
    graph passes linked together, with the emitter's end tests compiled in the solver unit (GDL_APART)."""
    import gdl
    from solver.exact import solve

    fresh(monkeypatch, tmp_path)
    one = solve(gdl.load(name, params, backend="c"), method=method, plies=True)
    runs = _compiler_runs(monkeypatch)
    monkeypatch.setattr(native_build, "splits", lambda flags: True)
    monkeypatch.setattr(native_build, "_loaded", {})
    monkeypatch.setattr(native_build, "digest", lambda source, flags=native_build.DEFAULT_FLAGS: "split" + name)
    two = solve(gdl.load(name, params, backend="c"), method=method, plies=True)
    assert runs and runs[0][:2] == ("game.c", "solvers.c")
    assert (two.value, two.plies, [str(m) for m in two.principal_variation]) == (
        one.value, one.plies, [str(m) for m in one.principal_variation])
