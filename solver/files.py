"""The one way gdl writes a file for the user: only over a regular file (or a link), and atomically.

Every such writer -- a solved table or a book (``--save``, ``gdl book --save``), a game record
(``--record``), a new rule file (``gdl new``), a formatted one (``gdl fmt``) -- checks its target with
:func:`check_target` before the work, and writes with :func:`replace_file` or :func:`replace_text`, which
check it again: a new file is written beside the target and renamed over it, so a FIFO, a device node
(``/dev/null``), a socket or a directory at the path is refused and never replaced, a symbolic link at
the path is replaced (never what it points to), and a run killed while writing leaves the old file or
the new one. The check and the rename are two steps: someone who can write the target's directory
could swap in a device between them, as with any rename-based save.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable


class TargetError(ValueError):
    """A path that names something gdl never replaces: a directory, a device node, a FIFO or a socket."""


def check_target(path: str | os.PathLike[str], what: str) -> None:
    """Refuse a target that is not a regular file, a symbolic link or nothing yet.

    ``what`` names the file in the message (``"a solved table"``, ``"a game record"``). The path itself is
    looked at (``lstat``): a link is acceptable because a save replaces the link, not its target.

    :raises TargetError: the path is a directory, a device node, a FIFO or a socket.
    """
    try:
        mode = os.lstat(path).st_mode
    except OSError:  # nothing there yet, or a path the system refuses (too long...): the write says why
        return
    if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
        return
    kind = ("a directory" if stat.S_ISDIR(mode) else "a character device" if stat.S_ISCHR(mode)
            else "a block device" if stat.S_ISBLK(mode) else "a FIFO" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    raise TargetError(f"{os.fspath(path)!r} is {kind}; {what} is saved only as a regular file "
                      "(or in place of a link)")


def replace_file(path: str | os.PathLike[str], write: Callable[[str], None], what: str,
                 prefix: str = ".gdl-") -> None:
    """Call ``write(temporary)`` on a new empty file beside ``path``, then rename it over ``path``.

    The temporary file (``{prefix}*.tmp``) is created with ``O_EXCL`` and without following links; it is
    removed if anything fails. A regular file replaced keeps its permission bits; a new one gets the
    usual ones (0666 less the umask).

    :raises TargetError: as :func:`check_target`, before anything is written.
    :raises OSError: the file could not be written (the directory is missing or not writable...).
    """
    check_target(path, what)
    fd, temporary = _temporary(path, prefix)
    os.close(fd)
    _finish(path, temporary, write)


def replace_text(path: str | os.PathLike[str], text: str, what: str, prefix: str = ".gdl-") -> None:
    """Write ``text`` (UTF-8) to ``path`` as :func:`replace_file` does."""
    check_target(path, what)
    fd, temporary = _temporary(path, prefix)
    file = os.fdopen(fd, "w", encoding="utf-8", newline="")

    def write(_: str) -> None:
        with file:
            file.write(text)

    try:
        _finish(path, temporary, write)
    finally:
        file.close()  # (closed already unless the write failed)


def _temporary(path: str | os.PathLike[str], prefix: str) -> tuple[int, str]:
    """A new file in ``path``'s directory, opened for writing: ``O_EXCL`` and ``O_NOFOLLOW``, so a name
    planted in advance (a link, a FIFO) is never written through."""
    directory = os.path.dirname(os.path.abspath(path))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    while True:
        name = os.path.join(directory, f"{prefix}{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(name, flags, 0o666)
        except FileExistsError:
            continue
        with contextlib.suppress(OSError):  # a regular file replaced keeps its permissions (`gdl fmt`)
            old = os.stat(path, follow_symlinks=False)
            if stat.S_ISREG(old.st_mode):
                os.fchmod(fd, stat.S_IMODE(old.st_mode))
        return fd, name


def _finish(path: str | os.PathLike[str], temporary: str, write: Callable[[str], None]) -> None:
    try:
        write(temporary)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        raise
