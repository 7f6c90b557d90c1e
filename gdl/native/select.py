"""Choosing the back end of a loaded game: ``python``, ``c``, or ``auto`` (C when it can be had).

``gdl.load(..., backend=...)`` and every command's ``--backend`` come here. ``auto`` builds the C back
end when a C compiler is found and the C emitter translates every construct of the rule file, and
otherwise keeps the Python back end with a one-line note that says why; ``c`` makes that reason an
error. The Python back end is the reference: :mod:`gdl.native.agree` compares the two.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gdl.diagnostics import GdlError

if TYPE_CHECKING:
    from gdl.runtime import CompiledGame

BACKENDS = ("auto", "c", "python")


class BackendError(GdlError):
    """``backend="c"`` was asked for and cannot be had (the message says why)."""


def c_backend_or_reason(game: CompiledGame) -> tuple[CompiledGame | None, str | None]:
    """The C back end of ``game`` (a :class:`gdl.native.game.NativeGame`, which answers every other
    question as ``game`` does), or None and why not."""
    from gdl.native.build import BuildError, compiler_missing_reason

    missing = compiler_missing_reason()
    if missing is not None:
        return None, missing
    from gdl.native.emitted import Unsupported
    from gdl.native.game import compile_native

    try:
        native = compile_native(game)
    except Unsupported as error:
        return None, f"the C back end does not translate {error} yet"
    except BuildError as error:
        return None, str(error).splitlines()[0]
    return native, None  # type: ignore[return-value]  # (a NativeGame stands in for the CompiledGame)


def with_backend(game: CompiledGame, backend: str) -> tuple[CompiledGame, str | None]:
    """``game`` on the back end asked for, and a one-line note when ``auto`` fell back to Python.

    :raises BackendError: ``backend`` is ``c`` and the C back end cannot be had, or is unknown.
    """
    if backend == "python":
        return game, None
    if backend not in BACKENDS:
        raise BackendError(f"unknown back end {backend!r} (choose from {', '.join(BACKENDS)})")
    native, reason = c_backend_or_reason(game)
    if native is not None:
        return native, None
    if backend == "c":
        raise BackendError(f"the C back end cannot be used: {reason}")
    return game, f"using the Python back end: {reason}"
