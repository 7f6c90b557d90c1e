"""Compiled programs kept between runs: loading a rule file that has not changed skips parsing and checking.

Loading a game parses its rule file (Lark), checks it and compiles it (:mod:`gdl.compiler`); in a short
command such as ``gdl solve mnk`` importing the parser and the compiler and running them is a third of
the time. :func:`gdl.load` therefore keeps each program it compiles from a rule file (the
:class:`~gdl.compiler.program.Program`, its warnings, and its IR for the C back end) in the subdirectory
``programs`` of gdl's private cache directory (:mod:`gdl.private_files`), named by a digest of everything
the program depends on: the rule text, the file's name, the parameters, ``checked``, this Python, and
gdl's code (:func:`gdl.version.code_digest`, so that an edited compiler never reads an old program).
A kept program is read with neither the parser nor the compiler imported.

Safety: nothing is unpickled (docs/security.md). A kept program is data: :mod:`marshal`'s plain
values (numbers, strings, tuples, lists, dicts, sets), in which an object is a tagged tuple naming its
class, and the reader builds objects only of gdl's own data classes, from a fixed table
(:data:`_CORE_CLASSES` and the IR's classes), and functions only from a fixed list (gdl's rule helpers and
displays, ``str``, a board's own public methods such as ``cell_name``): no name read from the file
imports a module or reaches anything else, and nothing in it runs as code. The file is read only from the
private directory (a real directory owned by this user and writable by nobody else, used through its
descriptor), only if it is a regular file owned by this user, and only when it records the digest it was
asked for. Rule files never name a cache file: the name is the digest. Anything else -- damaged,
foreign or stale -- is ignored and the rule file compiled again. At most
:data:`MAX_FILES` programs are kept (the least recently written are removed first). ``GDL_CACHE_DIR=``
(empty) turns this off, with the other caches.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import os
import sys
from collections.abc import Callable, Mapping
from fractions import Fraction
from types import BuiltinFunctionType, FunctionType, MethodType
from typing import TYPE_CHECKING, Any

from gdl import display, rule_helpers
from gdl.board import Board
from gdl.compiler.program import Program, StateVar
from gdl.diagnostics import Diagnostic, Span
from gdl.private_files import open_private_subdirectory, prune, read_private_file, write_private_file
from gdl.types import Type
from gdl.version import code_digest

if TYPE_CHECKING:
    from gdl.compiler import ir

FORMAT = b"gdl-program-3\n"
MAX_FILES = 256
MAX_FILE_BYTES = 64_000_000
_SUFFIX = ".program"
_DIGEST = 32


def digest(source: str, filename: str, params: Mapping[str, str], checked: bool) -> bytes:
    """The key of one compilation: everything its product depends on."""
    parts = [code_digest(), sys.version, filename, repr(sorted(params.items())), repr(checked), source]
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).digest()


def read(key: bytes) -> tuple[Program, list[Diagnostic]] | None:
    """The program and warnings kept under ``key``, or None."""
    directory = open_private_subdirectory("programs")
    if directory is None:
        return None
    try:
        data = read_private_file(directory, _name(key), MAX_FILE_BYTES)
    finally:
        os.close(directory)
    header = FORMAT + key
    if data is None or data[:len(header)] != header:
        return None
    try:
        program, ir_data, warnings = _decode(marshal.loads(data[len(header):]), _CORE_CLASSES)
    except (ValueError, TypeError, EOFError, KeyError, AttributeError, RecursionError):  # damaged: a miss
        return None
    if not isinstance(program, Program) or not isinstance(warnings, list):
        return None
    if isinstance(ir_data, bytes):
        program.ir_builder = functools.partial(_read_ir, ir_data)
    return program, warnings


def write(key: bytes, program: Program, warnings: list[Diagnostic]) -> None:
    """Keep ``program`` under ``key`` (best effort: a cache that cannot be written costs a compile next time).

    Called before the program runs (:class:`gdl.runtime.CompiledGame` binds the generated functions into it).
    """
    directory = open_private_subdirectory("programs")
    if directory is None:
        return
    try:
        ir = program.ir  # (made now if it was not: a kept program serves the C back end too)
        ir_data = None if ir is None else marshal.dumps(_encode(ir, {}))
        data = marshal.dumps(_encode((program, ir_data, warnings), {}))
        write_private_file(directory, _name(key), FORMAT + key + data)
        prune(directory, _SUFFIX, MAX_FILES)
    except (OSError, ValueError, TypeError, RecursionError):  # (an object the format does not hold: not kept)
        pass
    finally:
        os.close(directory)


def _read_ir(data: bytes) -> ir.Program:
    return _decode(marshal.loads(data), _ir_classes())


# ---------------------------------------------------------------- the format

_TAG = b"\0gdl"  # (rule values are never bytes: a tuple starting with this is one of ours)
_CORE_CLASSES: dict[str, type] = {f"{cls.__module__}.{cls.__qualname__}": cls for cls in (
    Program, StateVar, Board, Span, Diagnostic, Type, display.NamesDisplay, display.OptionalDisplay,
    rule_helpers.MoveFactory, rule_helpers.OutcomeFactory)}
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    **{f"gdl.rule_helpers.{name}": value for name, value in vars(rule_helpers).items()
       if isinstance(value, (FunctionType, type)) and value.__module__ == rule_helpers.__name__},
    "gdl.display.bool_display": display.bool_display, "builtins.str": str}
_BOARD_METHODS = frozenset(name for name, value in vars(Board).items()
                           if isinstance(value, FunctionType) and not name.startswith("_"))
_NONE = type(None)
_PLAIN = (int, float, str, bool, bytes, _NONE)  # (bytes: only the IR, kept encoded apart)


@functools.cache
def _ir_classes() -> dict[str, type]:
    from gdl.compiler import ir, ir_expr

    found = {f"{module.__name__}.{name}": value for module in (ir_expr, ir) for name, value in vars(module).items()
             if isinstance(value, type) and value.__module__ == module.__name__}
    return {**_CORE_CLASSES, **found}


def _encode(value: Any, seen: dict[int, Any]) -> Any:
    """``value`` as marshal's plain values; an object once, then by reference (an IR variable is one object)."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is tuple:
        return tuple(_encode(v, seen) for v in value)
    if kind is frozenset:
        return frozenset(_encode(v, seen) for v in value)
    if id(value) in seen:  # (an object or a mutable container met before: the same one again)
        return (_TAG, "@", seen[id(value)][0])
    if kind is list or kind is dict or kind is set:  # mutable: shared ones stay shared (a move cache)
        number = len(seen)
        seen[id(value)] = (number, value)
        items = list(value.items()) if kind is dict else list(value)
        return (_TAG, kind.__name__, number, [_encode(item, seen) for item in items])
    if kind is Fraction:
        return (_TAG, "q", value.numerator, value.denominator)
    if kind is range:
        return (_TAG, "r", value.start, value.stop, value.step)
    if kind in (FunctionType, BuiltinFunctionType, type):
        name = f"{value.__module__}.{value.__qualname__}"
        if _FUNCTIONS.get(name) is not value:
            raise TypeError(f"not a kept function: {name}")
        return (_TAG, "f", name)
    if kind is MethodType and isinstance(value.__self__, Board) and value.__name__ in _BOARD_METHODS:
        return (_TAG, "m", _encode(value.__self__, seen), value.__name__)
    name = f"{kind.__module__}.{kind.__qualname__}"
    if _ir_classes().get(name) is not kind:
        raise TypeError(f"not a kept class: {name}")
    seen[id(value)] = (len(seen), value)  # (the value is kept alive, so its id is not reused meanwhile)
    dropped = getattr(kind, "not_kept", ())  # (read back as None, or as the class's default)
    state = {attr: _encode(getattr(value, attr), seen) for attr in _attributes(value) if attr not in dropped}
    return (_TAG, "o", seen[id(value)][0], name, state)


def _attributes(value: Any) -> list[str]:
    names = list(getattr(value, "__dict__", ()))
    for cls in type(value).__mro__:
        names.extend(n for n in getattr(cls, "__slots__", ()) if n not in names and hasattr(value, n))
    return names


def _container(tag: str, number: int, items: list[Any], classes: dict[str, type], made: dict[int, Any]) -> Any:
    """A list, dict or set, made before its items (so an item may refer back to it)."""
    if tag == "list":
        out: list[Any] = []
        made[number] = out
        out.extend(_decode(item, classes, made) for item in items)
        return out
    if tag == "set":
        found: set[Any] = set()
        made[number] = found
        found.update(_decode(item, classes, made) for item in items)
        return found
    table: dict[Any, Any] = {}
    made[number] = table
    for item in items:
        key, entry = _decode(item, classes, made)
        table[key] = entry
    return table


def _decode(value: Any, classes: dict[str, type], made: dict[int, Any] | None = None) -> Any:
    made = {} if made is None else made
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is frozenset:
        return frozenset(_decode(v, classes, made) for v in value)
    if kind is not tuple:
        raise TypeError(f"unexpected {kind.__name__}")
    if not value or value[0] != _TAG:
        return tuple(_decode(v, classes, made) for v in value)
    tag = value[1]
    if tag == "q":
        return Fraction(value[2], value[3])
    if tag == "r":
        return range(value[2], value[3], value[4])
    if tag == "f":
        return _FUNCTIONS[value[2]]
    if tag == "m":
        board = _decode(value[2], classes, made)
        if not isinstance(board, Board) or value[3] not in _BOARD_METHODS:
            raise TypeError("not a board's method")
        return getattr(board, value[3])
    if tag == "@":
        return made[value[2]]
    if tag in ("list", "dict", "set"):
        return _container(tag, value[2], value[3], classes, made)
    if tag != "o":
        raise ValueError(f"unknown tag {tag!r}")
    _, _, number, name, state = value
    cls = classes[name]
    obj: Any = object.__new__(cls)
    made[number] = obj
    for attr, item in state.items():
        if not isinstance(attr, str) or attr.startswith("__"):
            raise ValueError(f"not an attribute: {attr!r}")
        object.__setattr__(obj, attr, _decode(item, classes, made))
    for attr in getattr(cls, "not_kept", ()):
        if attr in getattr(cls, "__slots__", ()):  # (a class with __dict__ reads its default instead)
            object.__setattr__(obj, attr, None)
    return obj


def _name(key: bytes) -> str:
    return key.hex()[:_DIGEST * 2] + _SUFFIX


