"""gdl's version (one place: ``gdl.__version__`` re-exports it; ``pyproject.toml`` states the same), and
the digest of this gdl's code, which keys what the caches keep (:func:`code_digest`)."""

from __future__ import annotations

import contextlib
import functools
import hashlib
from pathlib import Path

__version__ = "0.1.0"


@functools.cache
def code_digest() -> str:
    """This gdl's code: every module's and grammar's path, size and modification time, as Python's own
    byte-code cache trusts them (read once per process). A kept program, emitter output or symmetry check
    is used only by the code that made it: an edited or reinstalled gdl keys them anew."""
    package = Path(__file__).resolve().parent
    files = sorted([*package.rglob("*.py"), *package.rglob("*.lark"), *package.parent.glob("grammars/*.lark")])
    hasher = hashlib.sha256()
    for path in files:
        with contextlib.suppress(OSError):
            info = path.stat()
            hasher.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
    return hasher.hexdigest()
