"""gdl's version (one place: ``gdl.__version__`` re-exports it; ``pyproject.toml`` states the same), and
the digest of this gdl's code, which keys what the caches keep (:func:`code_digest`)."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os

__version__ = "0.1.0"


@functools.cache
def code_digest() -> str:
    """This gdl's code: every module's and grammar's path, size and modification time, as Python's own
    byte-code cache trusts them (read once per process). A kept program, emitter output or symmetry check
    is used only by the code that made it: an edited or reinstalled gdl keys them anew."""
    package = os.path.dirname(os.path.realpath(__file__))
    files = sorted([*_files(package, (".py", ".lark")), *_files(os.path.join(os.path.dirname(package), "grammars"),
                                                               (".lark",), deep=False)])
    hasher = hashlib.sha256()
    for path in files:
        with contextlib.suppress(OSError):
            info = os.stat(path)
            hasher.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
    return hasher.hexdigest()


def _files(directory: str, suffixes: tuple[str, ...], deep: bool = True) -> list[str]:
    """The paths of the files in ``directory`` (and, ``deep``, its subdirectories, not through links, as
    ``Path.rglob`` walks) whose names end with one of ``suffixes``; by ``os.scandir``: a pathlib walk took
    4 ms of every command's start-up."""
    try:
        with os.scandir(directory) as listing:
            entries = list(listing)
    except OSError:
        return []
    found = []
    for entry in entries:
        if entry.name.endswith(suffixes):
            found.append(entry.path)
        if deep and entry.is_dir(follow_symlinks=False):
            found.extend(_files(entry.path, suffixes))
    return found
