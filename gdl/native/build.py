"""Building a game's C source into a loadable module, cached by a content hash.

The module is the ABI header and the solver sources of :mod:`solver.native` around the game's
source, compiled by the system C compiler with cffi's wrappers of its entry points into a cffi
extension module: three translation units compiled at the same time and linked, the game with the
searches that call its rules, the solvers over the state graph alone (:mod:`solver.native.units`),
and the wrappers. It is cached in the
``native`` directory of the user's gdl cache (``$GDL_CACHE_DIR``, else ``$XDG_CACHE_HOME/gdl``,
else ``~/.cache/gdl``; an empty ``GDL_CACHE_DIR`` turns the cache off and builds into a fresh
private temporary directory):

* the file name is a SHA-256 over everything that makes the module: the whole C source (the
  game's, the header's and the solvers'), the cffi declarations, the gdl version, the
  compiler's path and the identity of its file (resolved path, size, modification time), the
  flags and the Python ABI. Rule text never
  names a file: the name is a hash, in a directory of ours;
* the directory is used only when it is a real directory (not a link) owned by the user and
  writable by nobody else, opened once and used through its descriptor;
* a build runs in a new private temporary directory inside the cache and ends with an
  atomic ``rename`` onto the final name, so concurrent processes building the same game
  each produce a whole file and the last rename wins (the same bytes) -- nobody ever sees
  half a module;
* a cached file is opened without following links and loaded only when it is a regular
  file owned by the user and not writable by others; it is loaded through
  ``/proc/self/fd`` (Linux), so what is loaded is the file that was checked.

cffi's wrappers are the same C for every game when emitted under one module name
(:data:`WRAPPER_MODULE`): on Linux their object is compiled once and cached beside the modules as
``wrappers-<SHA-256 of their C, the compiler, the flags and the Python ABI>.o``, under the same rules
(a checked file, copied into the build's directory; published by an atomic ``rename`` after a link
that used it succeeded; a damaged one fails the link and is removed and compiled again). Each module
keeps its own name through a one-line ``PyInit_<name>`` in the game's unit that returns the shared
wrappers' module, linked with ``-Bsymbolic`` so that it calls its own.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import importlib.machinery
import importlib.util
import io
import os
import shutil
import signal
import stat
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

import solver.native as solver_native
from solver.native import units

CACHE_SUBDIR = "native"
OPTIMISATION_LEVELS = ("-O0", "-O1", "-O2", "-O3", "-Os")
OPTIMISATION = os.environ.get("GDL_NATIVE_OPT", "-O2")
"""The game's and solvers' optimisation level: ``-O2``, or ``$GDL_NATIVE_OPT`` when it is one of
:data:`OPTIMISATION_LEVELS` (another value is ignored). The test suite builds at ``-O0`` (``tests/conftest.py``):
some 170 builds of a few seconds each, in a seventh of the time; the level is part of the cache key."""
if OPTIMISATION not in OPTIMISATION_LEVELS:
    OPTIMISATION = "-O2"
DEFAULT_FLAGS = (OPTIMISATION, "-fPIC", "-shared", "-std=gnu11", "-fno-strict-aliasing", "-fwrapv", "-pthread")
"""``-fwrapv``: generated arithmetic is checked before it overflows, but wrapping is defined anyway. ``-pthread``:
the state graph explores on several threads (``solver/native/explore.c``)."""
SANITIZE_FLAGS = ("-O0", "-g", "-fsanitize=address,undefined", "-fno-omit-frame-pointer",
                  "-fno-sanitize-recover=all", "-pthread")
"""The tests' standalone sanitizer programs: ``-O0`` compiles them in a third of ``-O1``'s time (Othello's: 2.7 s
against 9.6 s) and leaves every access in the code for the sanitizers to see; the seeded runs take longer, less."""
SHARED_WRAPPERS = sys.platform.startswith("linux")
"""Whether cached builds link one object of cffi's wrappers, compiled once, instead of compiling them for each game
(with GNU ld's ``-Bsymbolic``, which binds each module's init shim to its own wrappers; elsewhere each build
compiles both units)."""
_SYMBOLIC = ("-Wl,-Bsymbolic",) if SHARED_WRAPPERS else ()
WRAPPER_MODULE = "_gdl_c_module"
"""The cffi module name the shared wrappers are emitted under: their C is then the same for every game."""
BUILD_TIMEOUT = 300.0
BUILD_NOTICE: contextvars.ContextVar[Callable[[], None] | None] = contextvars.ContextVar("gdl_build_notice",
                                                                                        default=None)
"""Called just before a module is compiled (not when it comes from the cache): the command line sets it to say
that a game's first use with the C back end takes a moment."""


class BuildError(Exception):
    """The C compiler is missing or failed (the message says which, with the compiler's output)."""


class Compiler(NamedTuple):  # (a NamedTuple: a frozen dataclass costs each command a millisecond to define)
    path: str
    version: str


@functools.lru_cache(maxsize=1)
def find_compiler() -> Compiler | None:
    """The system C compiler: ``$CC`` (a bare name or absolute path), else ``cc``, ``gcc``, ``clang``; or None.

    Its ``version`` (part of every module's cache key) is the identity of the file it resolves to: the
    resolved path, size and modification time, so an upgraded or switched compiler builds anew. (Asking it for
    ``--version`` cost every command a process, some 5 ms; a compiler that does not work fails its build,
    which says so.)
    """
    names = [os.environ["CC"]] if os.environ.get("CC") else ["cc", "gcc", "clang"]
    for name in names:
        path = shutil.which(name)
        if path is None:
            continue
        try:
            real = os.path.realpath(path)
            info = os.stat(real)
        except OSError:
            continue
        return Compiler(path, f"{real} {info.st_size} {info.st_mtime_ns}")
    return None


def compiler_missing_reason() -> str | None:
    """Why no native module can be built here (None: it can)."""
    try:
        import cffi  # type: ignore[import-untyped]  # noqa: F401
    except ImportError:
        return "the Python package cffi is not installed"
    if find_compiler() is None:
        return "no C compiler found (set CC, or install cc, gcc or clang)"
    if not Path(sysconfig.get_paths()["include"], "Python.h").is_file():
        return "Python's C headers (Python.h) are not installed"
    return None


def full_source(game_source: str) -> str:
    """The whole module as one translation unit (a standalone program's): the ABI header, the game, the solvers."""
    return units.one_unit(game_source)


def digest(game_source: str, flags: tuple[str, ...] = DEFAULT_FLAGS) -> str:
    from gdl.version import __version__

    compiler = find_compiler()
    parts = [*units.split_units(game_source), solver_native.CDEF, __version__,
             compiler.path if compiler else "", compiler.version if compiler else "", " ".join(flags),
             sysconfig.get_config_var("EXT_SUFFIX") or "", sys.version]
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


_loaded: dict[str, ModuleType] = {}


def build(game_source: str, *, flags: tuple[str, ...] = DEFAULT_FLAGS) -> ModuleType:
    """The built module of ``game_source`` (``module.ffi``, ``module.lib``): from this process, the cache, or built.

    :raises BuildError: no compiler, or it failed.
    """
    reason = compiler_missing_reason()
    if reason is not None:
        raise BuildError(reason)
    name = "_gdl_c_" + digest(game_source, flags)[:32]
    module = _loaded.get(name)
    if module is not None:
        return module
    directory = _open_private_directory()
    if directory is None:
        _announce_build()
        with tempfile.TemporaryDirectory(prefix="gdl-native-") as temp:
            fd = os.open(temp, os.O_RDONLY | os.O_DIRECTORY)
            try:
                module = _build_and_load(fd, temp, name, game_source, flags, cached_wrappers=False)
            finally:
                os.close(fd)
    else:
        try:
            path = str(cache_directory())
            module = _load(directory, path, name)
            if module is None:
                _announce_build()
                module = _build_and_load(directory, path, name, game_source, flags, cached_wrappers=True)
        finally:
            os.close(directory)
    _loaded[name] = module
    return module


def _announce_build() -> None:
    notice = BUILD_NOTICE.get()
    if notice is not None:
        notice()


def cache_directory() -> Path | None:
    """Where built modules are cached (None: the cache is turned off with an empty ``GDL_CACHE_DIR``)."""
    from gdl.private_files import cache_directory as gdl_cache

    base = gdl_cache()
    return None if base is None else base / CACHE_SUBDIR


def _open_private_directory() -> int | None:
    """A descriptor of the cache directory, if it is ours alone; None otherwise."""
    from gdl.private_files import open_private_subdirectory

    return open_private_subdirectory(CACHE_SUBDIR)


def _filename(name: str) -> str:
    return name + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")


def _load(directory: int, path: str, name: str) -> ModuleType | None:
    """The cached module ``name``, if its file passes the checks; None if there is none (or a bad one)."""
    fd = _open_cached(directory, _filename(name))
    if fd is None:
        return None
    try:
        if not os.path.exists(f"/proc/self/fd/{fd}"):  # no /proc: the directory is private, its path will do
            return _import_or_none(name, os.path.join(path, _filename(name)))
        fresh = _fresh_descriptor(fd)
        try:
            return _import_or_none(name, f"/proc/self/fd/{fresh}")
        finally:
            os.close(fresh)
    finally:
        os.close(fd)


def _open_cached(directory: int, name: str) -> int | None:
    """A descriptor of the cached file ``name`` if it is one we may trust: opened without following a link, a
    regular file of this user's that nobody else may write. None otherwise (or when there is none)."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=directory)
    except OSError:
        return None
    from gdl.private_files import keep_if_ours_alone

    return keep_if_ours_alone(fd, stat.S_ISREG)


_used_descriptors: set[int] = set()


def _fresh_descriptor(fd: int) -> int:
    """A duplicate of ``fd`` whose number no earlier load used: the dynamic loader knows a library by its
    path, so ``/proc/self/fd/N`` must never name two libraries in one process."""
    held = []
    fresh = os.dup(fd)
    while fresh in _used_descriptors:
        held.append(fresh)
        fresh = os.dup(fd)
    for extra in held:
        os.close(extra)
    _used_descriptors.add(fresh)
    return fresh


def _import_or_none(name: str, path: str) -> ModuleType | None:
    try:
        return _import(name, path)
    except ImportError:
        return None  # damaged or foreign: built again


def _import(name: str, path: str) -> ModuleType:
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    if spec is None:
        raise ImportError(name)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _build_and_load(directory: int, path: str, name: str, game_source: str, flags: tuple[str, ...], *,
                    cached_wrappers: bool) -> ModuleType:
    """Compile in a private temporary directory inside ``directory`` (at ``path``), rename the result in, load it.

    The compiler gets the path (it is another process); the directory is private, so the path
    names the directory that was checked.
    """
    temp = _make_temp_dir(directory)
    temp_path = os.path.join(path, temp)
    try:
        out = _compile(name, game_source, flags, temp_path, directory if cached_wrappers else None)
        final = _filename(name)
        os.replace(os.path.join(temp, os.path.basename(out)), final, src_dir_fd=directory, dst_dir_fd=directory)
    finally:
        _remove_temp(directory, temp)
    module = _load(directory, path, name)
    if module is None:
        raise BuildError(f"the module built for this game could not be loaded ({name})")
    return module


def _make_temp_dir(directory: int) -> str:
    for attempt in range(100):
        temp = f".build-{os.getpid()}-{attempt}-{os.urandom(4).hex()}"
        try:
            os.mkdir(temp, 0o700, dir_fd=directory)
            return temp
        except FileExistsError:
            continue
    raise BuildError("could not make a temporary build directory in the cache")


def _remove_temp(directory: int, temp: str) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(temp, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=directory)
        try:
            for entry in os.listdir(fd):
                with contextlib.suppress(OSError):
                    os.unlink(entry, dir_fd=fd)
        finally:
            os.close(fd)
        os.rmdir(temp, dir_fd=directory)


def _compile(name: str, game_source: str, flags: tuple[str, ...], workdir: str, cache: int | None = None) -> str:
    """Write the module's C into ``workdir`` and compile it there; returns the output file's path.

    Three translation units, compiled at once by three compiler processes and then linked: the game
    with the searches that call its rules (``game.c``) and the solvers over the state graph alone
    (``solvers.c``), the hot code, at ``flags``' optimisation (:func:`solver.native.units.split_units`:
    on two cores the longer of the two, not their sum, is the build's critical path; without
    optimisation, :func:`splits`, one ``game.c`` of them both); and cffi's
    wrappers of the entry points (called once per call from Python; an optimising compiler spends as
    long on them as on a small game and its solvers, so they are compiled with ``-O1``). With ``cache``
    (the cache directory's descriptor; ``workdir`` is inside it) and :data:`SHARED_WRAPPERS`, the
    wrappers are the same for every game (:data:`WRAPPER_MODULE`): their object is taken from the
    cache when it is there, and put there after a link that used it succeeded.
    """
    compiler = find_compiler()
    assert compiler is not None
    shared = cache is not None and SHARED_WRAPPERS
    include = sysconfig.get_paths()["include"]
    unit_flags = [flag for flag in flags if flag != "-shared"]
    wrapper_flags = tuple("-O1" if flag in ("-O2", "-O3") else flag for flag in unit_flags)
    wrappers = os.path.join(workdir, (WRAPPER_MODULE if shared else name) + ".c")
    if shared:
        with open(wrappers, "w", encoding="utf-8") as f:
            f.write(_shared_wrapper_source())
    else:
        _emit_wrappers(name, wrappers)
    texts = list(units.split_units(game_source)) if splits(flags) else [full_source(game_source)]
    texts[0] += _init_shim(name) if shared else ""
    cores = [os.path.join(workdir, file) for file in ("game.c", "solvers.c")[:len(texts)]]
    for path, text in zip(cores, texts, strict=True):
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    out = os.path.join(workdir, _filename(name))
    compile_cores = [[compiler.path, *unit_flags, "-I", include, "-c", core, "-o", core + ".o"] for core in cores]
    compile_wrappers = [compiler.path, *wrapper_flags, "-I", include, "-c", wrappers, "-o", wrappers + ".o"]
    # -Bsymbolic: the module's calls bind to its own functions (the shim's to its own wrappers, the wrappers' to
    # its own game), even where another module's were global (loaded with RTLD_GLOBAL)
    link = [compiler.path, *flags, *(core + ".o" for core in cores), wrappers + ".o", "-o", out, "-lm", *_SYMBOLIC]
    if cache is None or not shared:
        _run_compilers([*compile_cores, compile_wrappers], compiler.path)
        _run_compilers([link], compiler.path)
        return out
    cached = _wrapper_object_name(compiler, wrapper_flags)
    if _copy_cached_object(cache, cached, wrappers + ".o"):
        _run_compilers(compile_cores, compiler.path)
        try:
            _run_compilers([link], compiler.path)
            return out
        except BuildError:  # a damaged object (or a game that does not link: then the retry says so)
            with contextlib.suppress(OSError):
                os.unlink(cached, dir_fd=cache)
        _run_compilers([compile_wrappers], compiler.path)
    else:
        _run_compilers([*compile_cores, compile_wrappers], compiler.path)
    _run_compilers([link], compiler.path)
    os.chmod(wrappers + ".o", 0o600)  # (the compiler's file follows the umask; the cache wants it ours alone)
    os.replace(wrappers + ".o", cached, dst_dir_fd=cache)
    return out


def splits(flags: tuple[str, ...]) -> bool:
    """Whether a build at ``flags`` compiles the game and the solvers as two units at once (an optimising build,
    ``-O2`` by default), or as one (``-O0`` or ``-O1``: the test suite's builds). Two units compile the game's
    text and the shared helpers twice, for a shorter critical path on an idle machine (Connect-Four at ``-O2``:
    1.5 and 1.8 s of compiler CPU against 3.1 s); unoptimised, each unit takes a fraction of a second and the
    repetition only adds to the total (the fast test subset built 20% slower from an empty cache)."""
    levels = [flag for flag in flags if flag.startswith("-O")]
    return bool(levels) and levels[-1] not in ("-O0", "-O1")


def _emit_wrappers(module: str, path: str) -> None:
    """cffi's wrappers of the entry points, as the C of the extension module named ``module``, into ``path``."""
    import cffi

    ffi = cffi.FFI()
    ffi.cdef(solver_native.CDEF)
    ffi.set_source(module, units.header_text() + solver_native.ENTRY_POINTS)
    with contextlib.redirect_stdout(io.StringIO()):  # cffi says "generating ..."
        ffi.emit_c_code(path)


@functools.lru_cache(maxsize=1)
def _shared_wrapper_source() -> str:
    """The wrappers' C under :data:`WRAPPER_MODULE`: the same for every game, emitted once a process (70 ms)."""
    with tempfile.TemporaryDirectory(prefix="gdl-wrappers-") as temp:
        path = os.path.join(temp, WRAPPER_MODULE + ".c")
        _emit_wrappers(WRAPPER_MODULE, path)
        with open(path, encoding="utf-8") as f:
            return f.read()


@functools.lru_cache(maxsize=8)
def _wrapper_object_name(compiler: Compiler, flags: tuple[str, ...]) -> str:
    """The cached wrappers' file name: a SHA-256 over their C, the compiler, the flags and the Python ABI (not
    ``_gdl_c_...``: that names modules)."""
    parts = [_shared_wrapper_source(), compiler.path, compiler.version, " ".join(flags),
             sysconfig.get_config_var("EXT_SUFFIX") or "", sys.version, sysconfig.get_paths()["include"]]
    return "wrappers-" + hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:32] + ".o"


def _init_shim(name: str) -> str:
    """C that gives the module its own import name: ``PyInit_<name>`` returns the shared wrappers' module (Python
    finds the init function by the name it imports; the loader needs a distinct name for each game)."""
    return (f"\nvoid *PyInit_{WRAPPER_MODULE}(void);\n"
            f"__attribute__((visibility(\"default\"))) void *PyInit_{name}(void);\n"
            f"void *PyInit_{name}(void) {{ return PyInit_{WRAPPER_MODULE}(); }}\n")


def _copy_cached_object(directory: int, name: str, destination: str) -> bool:
    """Copy the cached file ``name`` to ``destination`` if it passes the cache's checks (not a link, a regular
    file of this user's, writable by nobody else): the linker reads the file that was checked."""
    fd = _open_cached(directory, name)
    if fd is None:
        return False
    try:
        with open(fd, "rb", closefd=False) as source, open(destination, "wb") as target:
            shutil.copyfileobj(source, target)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _run_compilers(commands: list[list[str]], compiler: str) -> None:
    """Run the compiler on each command at once, each in its own process group: on a failure, a timeout or
    Ctrl-C every group is killed, each driver's `cc1` included (killing only the driver left it running)."""
    import subprocess  # (here: a cache hit starts no process, and need not import it)

    processes: list[subprocess.Popen[str]] = []
    try:
        for command in commands:
            try:
                processes.append(subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                  text=True, start_new_session=True))
            except OSError as error:
                raise BuildError(f"the C compiler could not run: {error}") from None
        deadline = time.monotonic() + BUILD_TIMEOUT
        for process in processes:
            try:
                _, stderr = process.communicate(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                raise BuildError(f"the C compiler took more than {BUILD_TIMEOUT:g} s; gave up") from None
            if process.returncode != 0:
                raise BuildError(f"the C compiler failed ({compiler}):\n{stderr.strip()[-4000:]}")
    finally:
        for process in processes:
            if process.poll() is None:
                with contextlib.suppress(OSError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.communicate()


def compile_executable(game_source: str, driver: str, out: Path, flags: tuple[str, ...] = SANITIZE_FLAGS) -> None:
    """A standalone program (no Python): the game, the solvers and ``driver`` (a C ``main``); for sanitizer runs.

    :raises BuildError: no compiler, or it failed.
    """
    compiler = find_compiler()
    if compiler is None:
        raise BuildError("no C compiler found (set CC, or install cc, gcc or clang)")
    c_file = out.with_suffix(".c")
    c_file.write_text(full_source(game_source) + "\n" + driver, encoding="utf-8")
    _run_compilers([[compiler.path, *flags, str(c_file), "-o", str(out), "-lm"]], compiler.path)
