"""The files generator of ``bench/fuzz.py`` (``--generator files``): hostile game records and write targets.

A case is one shape of :data:`SHAPES`, sized and placed by the seed. Record shapes are read by ``gdl replay
FILE`` and ``gdl solve GAME --moves @FILE``; target shapes are written by one of the CLI's writers
(:data:`WRITERS`: ``--save``, ``book --save``, ``--record`` of ``play`` and ``match``, ``gdl new --force``,
``gdl fmt``); every command runs through the CLI's ``main`` in this process:

* ``fifo``, ``dev-zero``, ``directory``, ``socket``, ``too-large`` (a sparse file past the size cap): a
  record that is no regular file;
* ``deep-json`` (10 to 100,000 levels, at a random field), ``huge-integer`` (90 to 6,000 digits),
  ``huge-number`` (``1e999``, ``NaN``, ``Infinity``): JSON past the reader's limits, or close under them;
* ``source-elsewhere``: a record whose ``source`` names a planted secret (a file without ``.gdl``, a ``.gdl``
  file that is no rule file, a FIFO ``.gdl``, ``/etc/shadow``, ``/dev/zero``, a NUL byte, a name too long
  for the system, a relative path);
* ``wrong-type``: a field of a valid record set to a hostile value (a list, an object, a huge string, a
  number, a boolean, null, control characters);
* ``mutated``: a valid record with bytes flipped, cut short or a token inserted;
* ``simultaneous``: a valid record of a simultaneous game (``rps``, ``goofspiel``), from ``play`` or
  ``match``;
* ``write-fifo``, ``write-directory``, ``write-socket``, ``write-link``: a writer whose target is a FIFO, a
  directory, a socket, or a link to a FIFO.

The properties (a violation is a crash):

1. every command exits 0, 1 or 2 with no traceback and no raw control character, and when it fails, with
   exactly one error line;
2. nothing blocks and nothing reads without end: each command runs under a wall-clock alarm (a FIFO
   opened for reading blocks without using the CPU, which the campaign's CPU alarm does not see) and a
   cap on the address space (``/dev/zero`` read to the end is a ``MemoryError``, a crash);
3. the secret planted in the files a record's ``source`` names is never printed;
4. a FIFO, socket or directory at a writer's target is still one afterwards, nothing is left beside it,
   and a link there is replaced, never written through;
5. a valid record (``simultaneous``) replays with exit 0, and feeds ``--moves``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import resource
import signal
import socket
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from gdl.cli import main as cli_main
from gdl.diagnostics import has_controls

RECORD_SHAPES = ("fifo", "dev-zero", "directory", "socket", "too-large", "deep-json", "huge-integer", "huge-number",
                 "source-elsewhere", "wrong-type", "mutated", "simultaneous")
TARGET_SHAPES = ("write-fifo", "write-directory", "write-socket", "write-link")
SHAPES = RECORD_SHAPES + TARGET_SHAPES
WRITERS = {
    "solve --save": ["solve", "nim", "--save", "{}"],
    "book --save": ["book", "nim", "--plies", "2", "--save", "{}"],
    "play --record": ["play", "nim", "--as", "none", "--vs", "random", "--seed", "1", "--record", "{}"],
    "match --record": ["match", "nim", "random", "random", "--games", "1", "--record", "{}"],
    "new --force": ["new", "{}", "--force"],
    "fmt": ["fmt", "{}"],
}
SECRET = "root:$6$files-fuzz-secret:19000:0:99999:7:::"
"""The first line of every file a hostile record points at: it must never be printed."""
WALL_SECONDS = 30.0
"""The wall-clock alarm of one command: far past any honest run, short of a campaign's stuck-worker check."""
MEMORY_HEADROOM = 2 << 30
"""Address space a command may add to the process (bytes): a read of /dev/zero to the end runs out of it."""
HOSTILE_VALUES: list[Any] = [[], {}, [[["deep"]]], "x" * 200_000, 7, -1, 2.5, True, None, "\x1b]52;c;aGk=\x07\x1b[2J",
                             "[link=http://evil.example]x[/link]", ["a", 1], {"A": "x"}, {"A": [1]}, "\x00"]
FIELDS = ("format", "version", "game", "source", "parameter_args", "parameters", "players", "seed", "games",
          "games[0]", "games[0].moves", "games[0].moves[0]", "games[0].moves[0].move", "games[0].agents",
          "games[0].result", "games[0].result.utilities", "games[0].result.end")


class FilesViolation(AssertionError):
    """A property of reading records or writing files does not hold."""


# ------------------------------------------------------------------ base records


_FOLDER: list[Path] = []
_BASES: dict[str, Path] = {}


def case_folder() -> Path:
    """One private temporary folder per process for the base records."""
    if not _FOLDER:
        _FOLDER.append(Path(tempfile.mkdtemp(prefix="gdl-fuzz-files-")))
    return _FOLDER[0]


def base_record(name: str) -> Path:
    """A valid record, written once per process: ``nim`` (a match of nim), ``rps`` (a match),
    ``goofspiel`` (a watched ``gdl play``)."""
    if name not in _BASES:
        path = case_folder() / f"base-{name}.json"
        argv = (["play", name, "--as", "none", "--vs", "random", "--vs", "random", "--seed", "5"] if name == "goofspiel"
                else ["match", name, "random", "random", "--games", "2"])
        code, _, err = run_cli([*argv, "--record", str(path)])
        if code != 0:
            raise RuntimeError(f"gdl {' '.join(argv)} --record failed: {err}")
        _BASES[name] = path
    return _BASES[name]


# ------------------------------------------------------------------ running a command


@contextlib.contextmanager
def bounded() -> Iterator[None]:
    """A wall-clock alarm and a cap on the address space around one command (property 2)."""
    def expired(signum: int, frame: object) -> None:
        raise FilesViolation(f"a command still ran after {WALL_SECONDS:g} s of wall time (blocked?)")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, WALL_SECONDS)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = _address_space() + MEMORY_HEADROOM
    capped = hard == resource.RLIM_INFINITY or cap <= hard
    if capped:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        if capped:
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _address_space() -> int:
    """This process's address space now, in bytes (0 where /proc does not say)."""
    try:
        return int(Path("/proc/self/statm").read_text().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(argv)
    return code, out.getvalue(), err.getvalue()


def checked_run(argv: list[str], must_succeed: bool = False) -> tuple[int, str, str]:
    """Run ``argv`` under :func:`bounded` and check property 1 (and 3)."""
    what = f"gdl {argv[0]}"
    with bounded():
        try:
            code, out, err = run_cli(argv)
        except MemoryError:
            raise FilesViolation(f"{what}: MemoryError (read without end?)") from None
    printed = out + err
    if "Traceback" in printed or code not in (0, 1, 2):
        raise FilesViolation(f"{what}: exit {code} or a traceback: {err.strip()[-200:]!r}")
    if has_controls(printed, keep="\n"):
        raise FilesViolation(f"{what}: a raw control character in the output")
    if "files-fuzz-secret" in printed:
        raise FilesViolation(f"{what}: printed the secret of a file a record named")
    if must_succeed and code != 0:
        raise FilesViolation(f"{what}: a valid record failed: {err.strip()[-200:]!r}")
    if code != 0 and len([line for line in err.strip().splitlines() if "error" in line]) != 1:
        raise FilesViolation(f"{what}: not one error line: {err.strip()[:200]!r}")
    return code, out, err


# ------------------------------------------------------------------ record shapes


def _valid(rng: random.Random) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(base_record("nim").read_text(encoding="utf-8"))
    if rng.random() < 0.3:
        record["games"] = record["games"][:1]
    return record


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth if depth % 2 else '{"a":' * depth + "1" + "}" * depth


def _set(record: dict[str, Any], field: str, value: Any) -> None:
    """Set ``field`` (``games[0].moves[0].move``) of ``record`` to ``value`` where the path exists."""
    target: Any = record
    parts = field.replace("]", "").replace("[", ".").split(".")
    for part in parts[:-1]:
        key: Any = int(part) if part.isdigit() else part
        try:
            target = target[key]
        except (KeyError, IndexError, TypeError):
            return
    last: Any = int(parts[-1]) if parts[-1].isdigit() else parts[-1]
    with contextlib.suppress(IndexError, TypeError):
        target[last] = value


def _with_text_at(record: dict[str, Any], rng: random.Random, text: str) -> str:
    """The record as JSON with the raw JSON ``text`` in place of a random field."""
    marker = "@@HOSTILE@@"
    _set(record, rng.choice(FIELDS), marker)
    dumped = json.dumps(record)
    return dumped.replace(f'"{marker}"', text) if marker in dumped else dumped[:-1] + f', "x": {text}}}'


def plant_secrets(folder: Path) -> dict[str, str]:
    """Files a hostile ``source`` may name, each starting with :data:`SECRET`."""
    plain, rules = folder / "secret", folder / "secret.gdl"
    plain.write_text(SECRET + "\n", encoding="utf-8")
    rules.write_text(SECRET + "\nplayers A\n", encoding="utf-8")
    fifo = folder / "fifo.gdl"
    if not fifo.exists():
        os.mkfifo(fifo)
    return {"plain": str(plain), "rules": str(rules), "fifo": str(fifo), "shadow": "/etc/shadow",
            "zero": "/dev/zero", "nul": str(rules) + "\x00.gdl", "long": "s" * 5000 + ".gdl", "relative": "secret.gdl",
            "link": _link(folder / "link.gdl", plain)}


def _link(link: Path, target: Path) -> str:
    if not link.is_symlink():
        link.symlink_to(target)
    return str(link)


def _bind_socket(path: Path) -> socket.socket:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    return server


def make_record_case(shape: str, rng: random.Random, folder: Path) -> tuple[str, str, Callable[[], None]]:
    """(the record's path, a description, a clean-up) of record shape ``shape``."""
    path = folder / "record.json"
    cleanup: Callable[[], None] = lambda: None  # noqa: E731
    if shape == "fifo":
        os.mkfifo(path)
        return str(path), "a FIFO", cleanup
    if shape == "dev-zero":
        return rng.choice(["/dev/zero", "/dev/urandom"]), "a device that never ends", cleanup
    if shape == "directory":
        path.mkdir()
        return str(path), "a directory", cleanup
    if shape == "socket":
        server = _bind_socket(path)
        return str(path), "a socket", server.close
    if shape == "too-large":
        with path.open("wb") as file:
            file.truncate(rng.choice([32_000_001, 50_000_000, 4_000_000_000]))
        return str(path), "a sparse file past the cap", cleanup
    record = _valid(rng)
    if shape == "deep-json":
        depth = rng.choice([10, 30, 31, 32, 33, 40, 990, 1100, 100_000])
        text, described = _with_text_at(record, rng, _deep(depth)), f"JSON nested {depth} deep"
    elif shape == "huge-integer":
        digits = rng.choice([90, 100, 101, 4300, 4301, 6000])
        text, described = _with_text_at(record, rng, "9" * digits), f"an integer of {digits} digits"
    elif shape == "huge-number":
        value = rng.choice(["1e999", "-1e999", "NaN", "Infinity", "-Infinity", "1" + "0" * 400 + ".5"])
        text, described = _with_text_at(record, rng, value), f"the number {value[:20]}"
    elif shape == "source-elsewhere":
        secrets = plant_secrets(folder)
        kind = rng.choice(sorted(secrets))
        record["source"] = secrets[kind]
        text, described = json.dumps(record), f"source names {kind}"
    elif shape == "wrong-type":
        field, value = rng.choice(FIELDS), rng.choice(HOSTILE_VALUES)
        _set(record, field, value)
        text, described = json.dumps(record), f"{field} = {json.dumps(value)[:40]}"
    elif shape == "mutated":
        text, described = _mutate(json.dumps(record, indent=1), rng)
    else:
        name = rng.choice(["rps", "goofspiel"])
        text, described = base_record(name).read_text(encoding="utf-8"), f"a valid record of {name}"
    path.write_text(text, encoding="utf-8")
    return str(path), described, cleanup


def _mutate(text: str, rng: random.Random) -> tuple[str, str]:
    how = rng.choice(["flip", "cut", "insert"])
    at = rng.randrange(len(text))
    if how == "cut":
        return text[:at], f"cut at {at}"
    if how == "flip":
        return text[:at] + chr(rng.randrange(1, 0x250)) + text[at + 1:], f"a character changed at {at}"
    token = rng.choice(['"', "[", "{", "}", "]", ",", ":", "null", "-", "1e999", "\x1b", "\\u0000", "\\ud800"])
    return text[:at] + token + text[at:], f"{token!r} inserted at {at}"


def check_record(shape: str, path: str, rng: random.Random) -> None:
    """Properties 1 to 3, and 5 for a valid record: `gdl replay` and `gdl solve --moves @FILE`."""
    valid = shape == "simultaneous"
    game = "nim"
    if valid:
        game = json.loads(Path(path).read_text(encoding="utf-8"))["source"]
    number = rng.choice([1, 1, 2])
    checked_run(["replay", path, "--game", str(number)], must_succeed=valid and number == 1)
    checked_run(["solve", game, "--moves", f"@{path}:1", "--max-nodes", "20000"], must_succeed=valid)


# ------------------------------------------------------------------ target shapes


def check_target(shape: str, rng: random.Random, folder: Path) -> None:
    """Property 4 for one writer and a target of ``shape``."""
    writer = rng.choice(sorted(WRITERS))
    # (`gdl new NAME` writes NAME.gdl: its target must end in .gdl to be the path under test)
    target = folder / ("target.gdl" if writer in ("new --force", "fmt") else rng.choice(["target.json", "t.sqlite"]))
    fifo = folder / "fifo"
    server = None
    if shape == "write-fifo":
        os.mkfifo(target)
    elif shape == "write-directory":
        target.mkdir()
    elif shape == "write-socket":
        server = _bind_socket(target)
    else:
        os.mkfifo(fifo)
        target.symlink_to(fifo)
    before = sorted(p.name for p in folder.iterdir())
    try:
        code, _, _ = checked_run([str(target) if arg == "{}" else arg for arg in WRITERS[writer]])
    except FilesViolation as violation:
        raise FilesViolation(f"{violation} ({writer} at {target.name})") from None
    finally:
        if server is not None:
            server.close()
    mode = os.lstat(target).st_mode
    if shape == "write-link":
        if not stat.S_ISFIFO(os.lstat(fifo).st_mode):
            raise FilesViolation(f"{writer}: the FIFO a link pointed to was replaced")
        if code == 0 and not stat.S_ISREG(mode):
            raise FilesViolation(f"{writer}: wrote through a link (exit 0, the link is still there)")
    else:
        still = {"write-fifo": stat.S_ISFIFO, "write-directory": stat.S_ISDIR, "write-socket": stat.S_ISSOCK}[shape]
        if code == 0 or not still(mode):
            raise FilesViolation(f"{writer}: exit {code}, and the {shape.removeprefix('write-')} is "
                                 f"{'still there' if still(mode) else 'gone'}")
        if sorted(p.name for p in folder.iterdir()) != before:
            raise FilesViolation(f"{writer}: left a file beside the target")


# ------------------------------------------------------------------ cases


def shape_of(seed: int) -> str:
    return random.Random(seed).choice(SHAPES)


def describe_files(seed: int) -> tuple[str, str]:
    """(kind, a description) of files case ``seed``, without running it."""
    shape = shape_of(seed)
    command = f"python bench/fuzz.py --generator files --start {seed} --cases 1"
    return f"files-{shape}", f"shape {shape} (seed {seed}); {command}\n"


def run_files_case(seed: int) -> str:
    """Check every property on files case ``seed``; returns its kind; raises :class:`FilesViolation`."""
    rng = random.Random(seed)
    shape = rng.choice(SHAPES)
    with tempfile.TemporaryDirectory(prefix="gdl-fuzz-files-case-") as name:
        folder = Path(name)
        try:
            if shape in TARGET_SHAPES:
                check_target(shape, rng, folder)
            else:
                path, described, cleanup = make_record_case(shape, rng, folder)
                try:
                    check_record(shape, path, rng)
                except FilesViolation as violation:
                    raise FilesViolation(f"{violation} ({described})") from None
                finally:
                    cleanup()
        except FilesViolation as violation:
            raise FilesViolation(f"{violation} [{shape}]"[:400]) from None
    return f"files-{shape}"
