"""Byte-code of generated game modules, kept between runs (as Python keeps ``.pyc`` files).

Building a loaded game compiles its generated Python (:class:`gdl.runtime.CompiledGame`); for a game
with large unrolled rules that is the biggest part of loading it (Connect-Four: 30 of its 57 ms). The
byte-code depends only on the generated source and the Python version, so it is kept in the
subdirectory ``code`` of gdl's private cache directory (the parser cache's: ``$GDL_CACHE_DIR``, else
``$XDG_CACHE_HOME/gdl``, else ``~/.cache/gdl``; an empty ``GDL_CACHE_DIR`` turns it off), one file per
generated module, named by a digest of the source, and reused when the same source is built again.

Safety: the generated source contains no rule-file text (identifiers are mangled, constants travel in
the module's namespace), and a cached file is used only when it was read through the private directory's
descriptor (:func:`gdl.private_files.open_private_subdirectory`: a real directory, owned by this user, writable
by nobody else), is a regular file owned by this user, starts with this Python's byte-code magic number,
and records the SHA-256 of exactly the source being built. Anything else -- a damaged, foreign or stale
file -- is ignored and the source compiled again. At most :data:`MAX_FILES` modules are kept (the least
recently written are removed first).
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import os
from types import CodeType

from gdl.private_files import open_private_subdirectory, prune, read_private_file, write_private_file

MAX_FILES = 256
MAX_FILE_BYTES = 64_000_000
_MAGIC = importlib.util.MAGIC_NUMBER
_HEADER = len(_MAGIC) + 32  # the magic number, then the SHA-256 of the source
_SUFFIX = ".code"
_in_process: dict[bytes, CodeType] = {}


def compile_cached(source: str, filename: str) -> CodeType:
    """``compile(source, filename, "exec")``, or the same byte-code from the cache.

    :raises SyntaxError, RecursionError, MemoryError: as :func:`compile` (nothing is cached then).
    """
    source_digest = hashlib.sha256(f"{filename}\n{source}".encode()).digest()
    code = _in_process.get(source_digest)
    if code is not None:
        return code
    name = (_MAGIC + source_digest).hex()[:40] + _SUFFIX
    directory = open_private_subdirectory("code")
    try:
        code = _read(directory, name, source_digest) if directory is not None else None
        if code is None:
            code = compile(source, filename, "exec")
            if directory is not None:
                _write(directory, name, source_digest, code)
    finally:
        if directory is not None:
            os.close(directory)
    if len(_in_process) >= 64:
        _in_process.clear()
    _in_process[source_digest] = code
    return code


def _read(directory: int, name: str, source_digest: bytes) -> CodeType | None:
    data = read_private_file(directory, name, MAX_FILE_BYTES)
    if data is None or data[:_HEADER] != _MAGIC + source_digest:
        return None
    try:
        code = marshal.loads(data[_HEADER:])
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, CodeType) else None


def _write(directory: int, name: str, source_digest: bytes, code: CodeType) -> None:
    """Best effort: a cache that cannot be written costs the next load a compile, nothing more."""
    try:
        write_private_file(directory, name, _MAGIC + source_digest + marshal.dumps(code))
        prune(directory, _SUFFIX, MAX_FILES)
    except OSError:
        pass

