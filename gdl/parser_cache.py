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
import sys
from typing import Any

from lark import Lark
from lark import __version__ as lark_version
from lark.grammar import Rule
from lark.lexer import TerminalDef

from gdl.private_files import open_cache_directory, read_private_file, write_private_file

CACHE_NAME = "parser-tables.json"
MAX_CACHE_BYTES = 8_000_000
_UNSAVED_OPTIONS = ("postlex", "transformer", "lexer_callbacks", "edit_terminals", "_plugins", "tree_class")


def grammar_digest(grammar: str, options: dict[str, Any]) -> str:
    text = json.dumps([grammar, sorted((k, repr(v)) for k, v in options.items()), lark_version,
                       list(sys.version_info[:2])])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cached_lark(grammar: str, options: dict[str, Any], postlex: Any) -> Lark:
    """``Lark(grammar, postlex=postlex, **options)``, read from the cache when a valid one exists."""
    digest = grammar_digest(grammar, options)
    directory = open_cache_directory()
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
