"""Remembering which compiled games passed the check of their declared symmetries.

:func:`gdl.load` checks a game's ``symmetry`` declaration along seeded random playouts before its keys
use it (:meth:`gdl.runtime.CompiledGame.verify_symmetry`). The check is deterministic: the same compiled
program always passes or always fails. So a pass is remembered -- in this process, and in the file
``symmetry-checked.txt`` of gdl's private cache directory (the parser cache's: ``$GDL_CACHE_DIR``, else
``$XDG_CACHE_HOME/gdl``, else ``~/.cache/gdl``; an empty ``GDL_CACHE_DIR`` turns it off) -- and the next
load of the same program skips it (othello: 17 of its 50 ms; ``bench/load_time.py``).

A pass is keyed by a digest of the rule text and parameters (the program's fingerprint), the generated
code, the check's budget and gdl's code (:func:`gdl.version.code_digest`: another version of gdl, or
an edited checkout, never trusts an older check): any change to one of them is a new key. Failures are never
remembered. The file holds digests only (at most :data:`MAX_ENTRIES`, the oldest dropped first), is
read and replaced only through the private directory's descriptor (:func:`gdl.private_files.
open_private_directory`), and anything unexpected in it is ignored: a damaged file costs a check, no more.
"""

from __future__ import annotations

import hashlib
import os

from gdl.private_files import open_cache_directory, read_private_file, write_private_file
from gdl.version import code_digest

FILE_NAME = "symmetry-checked.txt"
MAX_ENTRIES = 2048
DIGEST_CHARS = 32
_MAX_BYTES = MAX_ENTRIES * (DIGEST_CHARS + 1)

_passed_here: set[str] = set()


def digest(fingerprint: str, generated: str, budget: tuple[int, ...]) -> str:
    """The key of one program's check."""
    text = "\n".join((code_digest(), fingerprint, repr(budget), generated))
    return hashlib.sha256(text.encode()).hexdigest()[:DIGEST_CHARS]


def passed(key: str) -> bool:
    """True when the check of ``key`` passed before (in this process, or remembered on disk)."""
    if key in _passed_here:
        return True
    if key in _read():
        _passed_here.add(key)
        return True
    return False


def remember(key: str) -> None:
    """Remember that the check of ``key`` passed (best effort: a cache that cannot be written is skipped)."""
    _passed_here.add(key)
    directory = open_cache_directory()
    if directory is None:
        return
    try:
        keys = [*[k for k in _read_from(directory) if k != key][-(MAX_ENTRIES - 1):], key]
        _write(directory, keys)
    except OSError:
        pass
    finally:
        os.close(directory)


def _read() -> list[str]:
    directory = open_cache_directory()
    if directory is None:
        return []
    try:
        return _read_from(directory)
    finally:
        os.close(directory)


def _read_from(directory: int) -> list[str]:
    data = read_private_file(directory, FILE_NAME, _MAX_BYTES)
    if data is None:
        return []
    lines = data.decode("ascii", errors="replace").split("\n")
    return [k for k in lines if len(k) == DIGEST_CHARS and not k.strip("0123456789abcdef")]  # (hex digits only)


def _write(directory: int, keys: list[str]) -> None:
    write_private_file(directory, FILE_NAME, "".join(k + "\n" for k in keys).encode("ascii"))
