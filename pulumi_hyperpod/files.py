"""Files written for someone to read back — a saved plan, a rendered cluster spec, the victims list
of a preview, a parsed-model cache entry: whole or not at all.

Each is written to a temporary file beside it and renamed over it, so a reader (`hyperpod apply
--plan`, a later process) finds the old file or the new one, never a truncated one, and a failure
(a full disk, a read-only directory) leaves what was there. Errors name the file asked for, not the
temporary one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_whole(path: "str | os.PathLike[str]", content: "str | bytes", mode: int | None = None) -> Path:
    """`content` (text as UTF-8) into `path`, atomically; the path. The file keeps the mode of the one
    it replaces; a new one gets `mode`, or what `open` would give it (0o666 less the umask)."""
    target = Path(path)
    data = content.encode("utf-8") if isinstance(content, str) else content
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, _mode_for(target, mode))
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
