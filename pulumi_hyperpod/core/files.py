"""Files written for someone to read back — a saved plan, a rendered cluster spec, the victims list
of a preview, a parsed-model cache entry: whole or not at all.

Each is written to a temporary file beside it and renamed over it, so a reader (`hyperpod apply
--plan`, a later process) finds the old file or the new one, never a truncated one, and a failure
(a full disk, a read-only directory) leaves what was there. Errors name the file asked for, not the
temporary one.

Written only where asked: the path is a regular file (replaced) or a new path. A directory, a
device (/dev/stdout, /dev/null), a FIFO, a socket or a symbolic link is refused (`UnsafeTarget`),
never replaced — a rename would put a regular file in its place, and as root that is the system's
/dev/stdout. A symlink is not followed either: the file written is the one named. And never one of
the command's own input files (`inputs`: `plan -f X --out X`), under any name (hard links too).

And files a user names to be read (`read_bounded`): regular files only, at most a size limit, so
/dev/zero, a named pipe or a huge file is refused at once instead of read forever.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Iterable


@dataclass(frozen=True, slots=True)
class Input:
    """A file a command reads that is not a path the user gave it (a simulator's world): `label` says
    what it is in the refusal."""

    path: str
    label: str

    def __fspath__(self) -> str:
        return self.path


def describe_input(given: str | os.PathLike[str]) -> str:
    """How a refusal names an input: `the input file X`, or what an `Input` is."""
    label = getattr(given, "label", None)
    return f"{label} {os.fspath(given)}" if label else f"the input file {os.fspath(given)}"


class UnsafeTarget(OSError):
    """A path to write that is not a regular file or a new path, or is an input: refused, untouched."""


def write_whole(
    path: str | os.PathLike[str], content: str | bytes, mode: int | None = None, *, inputs: Iterable[str | os.PathLike[str]] = ()
) -> Path:
    """`content` (text as UTF-8) into `path`, atomically; the path. The file keeps the mode of the one
    it replaces; a new one gets `mode`, or what `open` would give it (0o666 less the umask).
    UnsafeTarget when `path` is not a regular file or a new path, or is one of `inputs`."""
    target = Path(path)
    inputs = tuple(inputs)
    _refuse_unsafe(target, inputs)
    data = content.encode("utf-8") if isinstance(content, str) else content
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, _mode_for(target, mode))
        _refuse_unsafe(target, inputs)  # again at the last moment: the path may have changed meanwhile
        os.replace(temporary, target)
    except OSError as error:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
        raise type(error)(error.errno, error.strerror, str(target)) from None
    except BaseException:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
        raise
    return target


def unsafe_reason(path: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]] = ()) -> str | None:
    """Why `path` may not be written (what is there is not a regular file, or it is an input), or None."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return _input_at(path, inputs)  # a new path, unless an input is to be made there (a simulator's world)
    except OSError:
        return None  # the write itself reports it (a missing directory, permission)
    kind = _KINDS.get(stat.S_IFMT(found.st_mode))
    if kind is not None:
        return f"is {kind}, not a regular file: refused, never replaced"
    return _input_at(path, inputs)


def _input_at(path: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]]) -> str | None:
    """Why `path` is one of `inputs` (the same file under any name, hard links too; or, for one not
    made yet, the same path), or None."""
    for given in inputs:
        try:
            same = os.path.samefile(path, given)
        except OSError:  # one of them is not there (yet): the same path is the same file to be
            same = os.path.realpath(path) == os.path.realpath(given)
        if same:
            return f"is {describe_input(given)}: refused, never overwritten (write to another path)"
    return None


_KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFIFO: "a named pipe (FIFO)",
    stat.S_IFSOCK: "a socket",
    stat.S_IFLNK: "a symbolic link (written files never follow one)",
}


def _refuse_unsafe(target: Path, inputs: tuple[str | os.PathLike[str], ...]) -> None:
    reason = unsafe_reason(target, inputs)
    if reason is not None:
        raise UnsafeTarget(errno.EEXIST, reason, str(target))


def _mode_for(target: Path, mode: int | None) -> int:
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        pass
    if mode is not None:
        return mode
    umask = os.umask(0o022)  # read it: os has no getter; put back at once
    os.umask(umask)
    return 0o666 & ~umask


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes:
    """At most `limit + 1` bytes of the regular file `path` (more than `limit` tells the caller it is
    too large). OSError as `open` raises it (FileNotFoundError, PermissionError...), and
    NotARegularFile for a directory, a device (/dev/zero) or a pipe, which would never end or block."""
    # O_NONBLOCK for the open only: opening a FIFO without a writer would wait forever
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotARegularFile(errno.EINVAL, "not a regular file (a directory, device or pipe)", str(path))
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=True) as handle:
            fd = -1
            return handle.read(limit + 1)
    finally:
        if fd != -1:
            os.close(fd)


class NotARegularFile(OSError):
    """A path to read that is not a regular file."""


def why_unwritable(path: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]] = ()) -> str | None:
    """Why `write_whole(path, …, inputs=inputs)` would fail for where the file goes, or None: checked
    before the work whose result it saves (the calls that make a plan), not after."""
    target = Path(path)
    reason = unsafe_reason(target, tuple(inputs))
    if reason is not None:
        return reason
    parent = target.parent
    if not parent.is_dir():
        return f"no such directory {str(parent)!r}"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot write in {str(parent)!r}: permission denied"
    return None
