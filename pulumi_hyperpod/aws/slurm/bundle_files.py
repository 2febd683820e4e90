"""The lifecycle bundle on disk: written without following links, read from a base folder without
leaving it.

`write_bundle`: `slurm render --out DIR` writes DIR/lifecycle/… . A symbolic link already inside
that folder (a file or a folder of the bundle's paths pointing elsewhere) is refused, never written
through; files are opened relative to their folder's descriptor with O_NOFOLLOW and their mode set
on that descriptor, so nothing outside the folder is written or chmod-ed, whatever the links.

`read_base`: `--base DIR` copies lifecycle scripts into the bundle that gets uploaded. A symbolic
link inside DIR is followed only when it stays inside DIR (a file's content, a folder's files);
one that leads out of DIR is refused, naming both.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


MAX_FILES = 10_000  # a base folder's files, links followed: lifecycle scripts are a few dozen


class BundleWriteError(OSError):
    """The bundle cannot be written where asked (a link or another file in the way)."""


def write_bundle(root: str | Path, files: Mapping[str, bytes], executable: tuple[str, ...] = (".sh", ".py")) -> list[Path]:
    """Write every `files` path under `root` (created if missing); returns the paths written.

    Refused before anything is written: a symbolic link anywhere in the folder, a file that is not
    part of the bundle (uploaded with it, a stale script would still be installed)."""
    root = Path(root)
    _refuse_links_and_strangers(root, files)
    root.mkdir(parents=True, exist_ok=True)
    written = []
    top = os.open(root, _DIR_FLAGS)
    try:
        for relative, content in sorted(files.items()):
            parts = relative.split("/")
            folder = _open_folder(top, parts[:-1], root)
            try:
                mode = 0o755 if relative.endswith(executable) else 0o644
                try:
                    fd = os.open(parts[-1], _FILE_FLAGS, mode, dir_fd=folder)
                except OSError as error:
                    raise BundleWriteError(
                        f"{root / relative}: cannot be written without following a link or replacing something else ({error.strerror})"
                    ) from None
                with os.fdopen(fd, "wb") as file:
                    os.fchmod(fd, mode)  # on the file opened, not a path a link could redirect
                    file.write(content)
            finally:
                if folder != top:
                    os.close(folder)
            written.append(root / relative)
    finally:
        os.close(top)
    return written


def _open_folder(top: int, parts: list[str], root: Path) -> int:
    """A descriptor of root/parts…, each created if missing and none a link."""
    current = top
    for index, part in enumerate(parts):
        try:
            os.mkdir(part, 0o755, dir_fd=current)
        except FileExistsError:
            pass
        try:
            following = os.open(part, _DIR_FLAGS, dir_fd=current)
        except OSError as error:
            raise BundleWriteError(
                f"{root.joinpath(*parts[: index + 1])}: not a folder this can write into without following a link ({error.strerror})"
            ) from None
        if current != top:
            os.close(current)
        current = following
    return current


def _refuse_links_and_strangers(root: Path, files: Mapping[str, bytes]) -> None:
    if root.is_symlink() or (root.exists() and not root.is_dir()):
        raise BundleWriteError(f"{root}: is a symbolic link or not a folder; write the bundle to a folder of its own")
    if not root.exists():
        return
    extra, links = [], []
    for folder, dirs, names in os.walk(root, followlinks=False):
        for name in dirs + names:
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            if path.is_symlink():
                links.append(relative)
            elif name in names and relative not in files:
                extra.append(relative)
    if links:
        raise BundleWriteError(
            f"{root} holds symbolic links ({_few(links)}); the bundle is not written through links: remove them or write to an empty folder"
        )
    if extra:
        raise FileExistsError(f"{root} already holds files that are not part of this bundle ({_few(extra)}); write to an empty directory")


def _few(paths: list[str]) -> str:
    paths = sorted(paths)
    return ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")


def read_base(base: str | Path) -> dict[str, bytes]:
    """relative path -> content of every file under `base`, links followed only inside `base`.
    Raises BaseFolderError naming a link that leads out, a loop, or something that is not a file."""
    root = Path(base)
    real_root = root.resolve()
    found: dict[str, bytes] = {}
    pending = [(root, "", frozenset({real_root}))]
    while pending:
        folder, prefix, ancestors = pending.pop()
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            relative = f"{prefix}{entry.name}"
            path = Path(entry.path)
            target = path.resolve() if entry.is_symlink() else path
            if entry.is_symlink() and not _inside(target, real_root):
                raise BaseFolderError(
                    f"{root}/{relative} is a symbolic link to {target}, outside the base folder {root}: copy the file in instead"
                )
            try:
                mode = os.stat(target).st_mode
            except OSError as error:
                raise BaseFolderError(f"{root}/{relative}: cannot be read ({error.strerror})") from None
            if stat.S_ISDIR(mode):
                real = target.resolve()
                if real in ancestors:
                    raise BaseFolderError(f"{root}/{relative}: a link to a folder that holds it (a loop)")
                pending.append((target, f"{relative}/", ancestors | {real}))
            elif stat.S_ISREG(mode):
                if len(found) >= MAX_FILES:
                    raise BaseFolderError(f"{root}: more than {MAX_FILES} files; a lifecycle scripts folder is smaller")
                found[relative] = target.read_bytes()
            else:
                raise BaseFolderError(f"{root}/{relative}: not a regular file or folder")
    return found


class BaseFolderError(ValueError):
    """A base folder that cannot be copied into the bundle as it is."""


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
