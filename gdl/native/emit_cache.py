"""The C emitter's output kept between runs: a cache hit loads a C game without emitting it again.

Emitting is deterministic: the same rules, parameters, symmetry maps and gdl give the same C source and move
codes. Connect-Four's emission took 45 of the 63 ms a cached C game cost to load; othello's 50. So the
emitter's output (:class:`gdl.native.emit_c_expr.Emitted`) is stored as JSON in the native back end's private
cache directory (``native/`` of gdl's cache: :func:`gdl.native.build.cache_directory`), under a digest of

* the rule file's fingerprint (its text and parameters) and the Python program the compiler made of it,
* the symmetry maps the C keys use,
* gdl's code (:func:`gdl.version.code_digest`: another version of gdl, or an edited checkout, emits anew).

The file is read and written only through the private directory's descriptor (no links followed, this user's
regular files only: :func:`gdl.private_files.read_private_file`), as the built modules are; anything
unexpected in it is ignored and the game emitted again. Its C source is trusted as the built modules next
to it are: the directory is this user's alone.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Sequence
from typing import Any

from gdl.native.build import CACHE_SUBDIR
from gdl.native.emitted import Emitted, MoveCode, OutcomeCode, Shape, SymmetryMap
from gdl.private_files import open_private_subdirectory, read_private_file, write_private_file
from gdl.version import code_digest

MAX_BYTES = 64 << 20
"""The largest emitted game kept (Connect-Four 7x6 is 0.3 MB of C)."""


def cached_emit(fingerprint: str, program_source: str, maps: Sequence[SymmetryMap],
                emit: Callable[[], Emitted]) -> Emitted:
    """``emit()``, or its output from an earlier run with the same inputs (no cache, or not ours: ``emit()``)."""
    name = f"emitted-{_digest(fingerprint, program_source, maps)}.json"
    directory = open_private_subdirectory(CACHE_SUBDIR)
    if directory is None:
        return emit()
    try:
        found = read_private_file(directory, name, MAX_BYTES)
        if found is not None:
            loaded = _loads(found)
            if loaded is not None:
                return loaded
        emitted = emit()
        with contextlib.suppress(OSError):  # (a cache that cannot be written costs an emission next time)
            write_private_file(directory, name, _dumps(emitted))
        return emitted
    finally:
        os.close(directory)


def _digest(fingerprint: str, program_source: str, maps: Sequence[SymmetryMap]) -> str:
    text = "\n".join((code_digest(), fingerprint, repr(list(maps)), program_source))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _dumps(emitted: Emitted) -> bytes:
    codes = [{"move": c.move, "args": list(c.args)} if isinstance(c, MoveCode)
             else {"point": c.point, "index": c.index, "value": c.value, "label": c.label} for c in emitted.codes]
    shape = emitted.shape
    return json.dumps({"source": emitted.source, "codes": codes, "state_len": emitted.state_len,
                       "ranges": [list(r) for r in emitted.ranges],
                       "shape": {"nvars": shape.nvars, "simultaneous": shape.simultaneous,
                                 "moves": [[name, list(displays)] for name, displays in shape.moves],
                                 "chance": [list(point) for point in shape.chance]}}).encode()


def _loads(data: bytes) -> Emitted | None:
    """The stored output, or None if the file is not exactly what :func:`_dumps` writes."""
    try:
        raw: Any = json.loads(data)
        codes: list[MoveCode | OutcomeCode] = []
        for c in raw["codes"]:
            if set(c) == {"move", "args"}:
                codes.append(MoveCode(_int(c["move"]), tuple(_int(a) for a in c["args"])))
            else:
                value, label = c["value"], c["label"]
                codes.append(OutcomeCode(_int(c["point"]), _int(c["index"]), None if value is None else _int(value),
                                         None if label is None else str(label)))
        ranges = [(_int(lo), _int(hi)) for lo, hi in raw["ranges"]]
        source, state_len = raw["source"], _int(raw["state_len"])
        if not isinstance(source, str) or len(ranges) != state_len:
            return None
        return Emitted(source, codes, state_len, ranges, _shape(raw["shape"]))
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None


def _shape(raw: Any) -> Shape:
    simultaneous = raw["simultaneous"]
    if not isinstance(simultaneous, bool):
        raise TypeError("simultaneous")
    moves = tuple((_str(name), tuple(_key(d) for d in displays)) for name, displays in raw["moves"])
    chance = tuple((_int(point), _int(saved), _key(var), _key(display)) for point, saved, var, display in raw["chance"])
    return Shape(_int(raw["nvars"]), simultaneous, moves, chance)


def _str(value: Any) -> str:
    if type(value) is not str:
        raise TypeError("not a string")
    return value


def _key(value: Any) -> str | None:
    return None if value is None else _str(value)


def _int(value: Any) -> int:
    if type(value) is not int:
        raise TypeError("an integer was expected")
    return value
