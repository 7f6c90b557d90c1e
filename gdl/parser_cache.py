"""The LALR tables of the rule-file grammar, cached as JSON in a private per-user directory.

Building the tables costs about 0.3 s; reading them back about 20 ms. Lark's own
cache (``cache=True``) unpickles a file with a predictable name in the shared
temporary directory, so anyone who can write there first runs code in every gdl
process: it is never used. This cache is data only:

* the file is JSON (Lark's ``memo_serialize`` form, with tuples and non-string
  keys tagged); reading it builds Lark's own rule, terminal and table objects by
  name from a fixed list, never by a name taken from the file;
* it lives in ``$GDL_CACHE_DIR``, else ``$XDG_CACHE_HOME/gdl``, else
  ``~/.cache/gdl``; the directory is used only if it is a real directory (not a
  link) owned by the user and writable by nobody else, and it is opened once and
  then used through its descriptor, so that it cannot be swapped underneath;
* the file is opened without following links, used only if it is a regular file
  owned by the user, at most :data:`MAX_CACHE_BYTES`, and for exactly this
  grammar, Lark and Python (a SHA-256 over all three); anything else is ignored
  and the tables are built again;
* it is written to a new temporary file (``O_EXCL``, mode 0600) that replaces
  the old one, so a link at the cache's name is replaced, never followed.

``GDL_CACHE_DIR=`` (empty) turns the cache off. When the directory cannot be
used the tables are simply built in each process.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from lark import Lark
from lark import __version__ as lark_version
from lark.grammar import Rule
from lark.lexer import TerminalDef

CACHE_NAME = "parser-tables.json"
MAX_CACHE_BYTES = 8_000_000
_UNSAVED_OPTIONS = ("postlex", "transformer", "lexer_callbacks", "edit_terminals", "_plugins", "tree_class")


def cache_directory() -> Path | None:
    """Where the cache would live (None: turned off with an empty ``GDL_CACHE_DIR``)."""
    explicit = os.environ.get("GDL_CACHE_DIR")
    if explicit is not None:
        return Path(explicit) if explicit else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gdl"


def grammar_digest(grammar: str, options: dict[str, Any]) -> str:
    text = json.dumps([grammar, sorted((k, repr(v)) for k, v in options.items()), lark_version,
                       list(sys.version_info[:2])])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cached_lark(grammar: str, options: dict[str, Any], postlex: Any) -> Lark:
    """``Lark(grammar, postlex=postlex, **options)``, read from the cache when a valid one exists."""
    digest = grammar_digest(grammar, options)
    directory = _open_private_directory()
    if directory is None:
        return Lark(grammar, postlex=postlex, **options)
    try:
        parser = _read(directory, digest, postlex)
        if parser is None:
            parser = Lark(grammar, postlex=postlex, **options)
            with contextlib.suppress(OSError, TypeError, ValueError):
                _write(directory, digest, parser)
        return parser
    finally:
        os.close(directory)


def _open_private_directory() -> int | None:
    """A descriptor of the parser's cache directory, if it is ours alone; None otherwise."""
    return open_private_directory(cache_directory())


def open_private_directory(path: Path | None) -> int | None:
    """A descriptor of directory ``path`` (made with mode 0700 if missing), if it is ours alone: a real
    directory, not a link, owned by this user and writable by nobody else; None otherwise (or for None).

    Every cache of gdl's (the parser's tables, :mod:`gdl.native`'s built modules) is used only through
    such a descriptor, so that no later path lookup can be redirected.
    """
    if path is None or not hasattr(os, "O_NOFOLLOW") or os.open not in os.supports_dir_fd:
        return None
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        path.mkdir(mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return None
    info = os.fstat(fd)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        os.close(fd)
        return None
    return fd


def open_private_subdirectory(name: str) -> int | None:
    """A descriptor of the subdirectory ``name`` of gdl's cache directory (made with mode 0700 if missing),
    if both are ours alone (see :func:`open_private_directory`); None otherwise.

    The subdirectory is made and opened relative to the parent's descriptor, never by its path, so a
    cache directory that is a link (or sits behind one) is not written through.
    """
    parent = open_private_directory(cache_directory())
    if parent is None:
        return None
    try:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o700, dir_fd=parent)
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent)
    except OSError:
        return None
    finally:
        os.close(parent)
    info = os.fstat(fd)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        os.close(fd)
        return None
    return fd


def read_private_file(directory: int, name: str, max_bytes: int) -> bytes | None:
    """The bytes of file ``name`` in the cache directory ``directory`` (a descriptor), or None unless it is a
    regular file (not a link: ``O_NOFOLLOW``), owned by this user, of at most ``max_bytes``."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=directory)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_size > max_bytes:
            return None
        data = file.read(max_bytes + 1)
    return data if len(data) <= max_bytes else None


def write_private_file(directory: int, name: str, data: bytes) -> None:
    """Replace file ``name`` in the cache directory ``directory`` with ``data``: written to a new file
    (``O_EXCL``, mode 0600) and renamed over the old one, so a link at ``name`` is replaced, never followed.

    :raises OSError: the file could not be written (the temporary file is removed).
    """
    temp = f".{name}.{os.getpid()}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=directory)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(temp, name, src_dir_fd=directory, dst_dir_fd=directory)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=directory)
        raise


def _read(directory: int, digest: str, postlex: Any) -> Lark | None:
    data = read_private_file(directory, CACHE_NAME, MAX_CACHE_BYTES)
    if data is None:
        return None
    try:
        document = json.loads(data, object_hook=_decode_object)
        if not isinstance(document, dict) or document.get("digest") != digest:
            return None
        tables = document["tables"]
        return Lark._load_from_dict(tables["data"], tables["memo"], postlex=postlex)
    except Exception:  # a damaged or foreign cache is rebuilt, whatever is wrong with it
        return None


def _write(directory: int, digest: str, parser: Lark) -> None:
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    data["options"] = {k: v for k, v in data["options"].items() if k not in _UNSAVED_OPTIONS}
    text = json.dumps({"digest": digest, "tables": _encode({"data": data, "memo": memo})})
    write_private_file(directory, CACHE_NAME, text.encode("utf-8"))


def _encode(value: Any) -> Any:
    """Lark's serialized tables as JSON: tuples and dicts with non-string keys are tagged."""
    if isinstance(value, dict):
        if all(isinstance(k, str) and not k.startswith("#") for k in value):
            return {k: _encode(v) for k, v in value.items()}
        return {"#pairs": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if isinstance(value, tuple):
        return {"#tuple": [_encode(v) for v in value]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"cannot cache a {type(value).__name__}")


def _decode_object(value: dict[str, Any]) -> Any:
    """The inverse of :func:`_encode`, one JSON object at a time (inner objects come first)."""
    if "#pairs" in value:
        return {key: item for key, item in value["#pairs"]}
    if "#tuple" in value:
        return tuple(value["#tuple"])
    return value
