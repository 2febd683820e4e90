"""The simulators' files are their own: each is recognised by a marker written when it is made.

A simulator owns three kinds of file, all SQLite: the HyperPod world (`$HYPERPOD_FAKE_STATE`,
default `.hyperpod/fake.sqlite`), the Google Cloud world (`$HYPERPOD_GCP_FAKE_STATE`, default
`gcp-fake.sqlite` beside the HyperPod world) and their one clock (`clock.sqlite` beside it). Each is
marked in SQLite's own header fields: `application_id` says which kind of file it is, `user_version`
the version of its schema. Both sit at fixed offsets of the first 100 bytes, so a file is told apart
by reading them, without opening it in SQLite (which could write a journal, a WAL or a lock). The
marker is written in rollback-journal mode, before a store switches the file to WAL, so the file's
own header holds it (a header change in WAL mode stays in the -wal file until a checkpoint).

What may be at the path (`problem`):
- nothing: a new file is made there, marked, mode 0600 (`prepare`);
- an empty file (0 bytes: `mktemp`, `touch`): it holds nothing to lose, so the file is made in it;
- a file of this kind, of this version or an older one: the simulator's own;
- a file of this kind's tables and nothing else, with no marker at all: one made before the marker
  existed, marked now (`prepare`);
- anything else is refused, with one line naming the path, where it came from and the rule, before
  anything is written: a directory, a device, a pipe, a file that is not SQLite, an SQLite database
  the simulator did not make, a file of another kind (the clock under the world's variable), or one
  of a newer schema. A refused file is never opened for writing, chmod-ed or deleted (`delete`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from dataclasses import dataclass
from pathlib import Path

SQLITE_HEADER = b"SQLite format 3\x00"
_USER_VERSION = slice(60, 64)  # big-endian 32-bit fields of the database header (sqlite.org/fileformat.html)
_APPLICATION_ID = slice(68, 72)
SIDE_FILES = ("-wal", "-shm", "-journal")  # SQLite's own files beside a database
BUSY_TIMEOUT_SECONDS = 30.0  # how long a writer waits for another process's transaction (sim/store.py)


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of file a simulator owns."""

    name: str  # as the error says it
    application_id: int  # SQLite's header field: which kind
    version: int  # SQLite's user_version: the schema this code reads and writes
    tables: frozenset[str]  # what a file of this kind made before the marker holds


AWS_WORLD = Kind(
    "the HyperPod simulator's world",
    int.from_bytes(b"HPwa", "big"),
    1,
    frozenset({"meta", "clusters", "nodes", "events", "billing", "calls"}),
)
GCP_WORLD = Kind("the Google Cloud simulator's world", int.from_bytes(b"HPwg", "big"), 1, frozenset({"gcp_world"}))
CLOCK = Kind("the simulators' clock", int.from_bytes(b"HPck", "big"), 1, frozenset({"clock"}))
KINDS = (AWS_WORLD, GCP_WORLD, CLOCK)


class ForeignFile(ValueError):
    """A file at a simulator's path that is not its own: one line, nothing written."""


def _header(path: Path) -> bytes | None:
    """The first 100 bytes of a regular file, or None when it does not exist."""
    try:
        with open(path, "rb") as handle:
            return handle.read(100)
    except FileNotFoundError:
        return None


def kind_of(path: str | os.PathLike[str]) -> Kind | None:
    """The kind whose marker the file carries, or None."""
    header = _header(Path(path)) or b""
    if len(header) < 100 or not header.startswith(SQLITE_HEADER):
        return None
    found = int.from_bytes(header[_APPLICATION_ID], "big")
    return next((kind for kind in KINDS if kind.application_id == found), None)


def problem(path: str | os.PathLike[str], kind: Kind) -> str | None:
    """Why the file at `path` is not one `kind`'s store may use, or None (its own, empty or missing)."""
    path = Path(path)
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"cannot be read ({error.strerror or error})"
    if stat.S_ISDIR(found.st_mode):
        return "is a directory"
    if not stat.S_ISREG(found.st_mode):
        return "is not a regular file (a device or a pipe)"
    if found.st_size == 0:
        wal = Path(f"{path}-wal")
        if wal.is_file() and wal.stat().st_size:  # a database whose pages are all still in its -wal file
            return "is an SQLite database not made by the simulator (its content is in its -wal file)"
        return None
    try:
        header = _header(path) or b""
    except OSError as error:
        return f"cannot be read ({error.strerror or error})"
    if len(header) < 100 or not header.startswith(SQLITE_HEADER):
        return "is not a simulator database (not SQLite)"
    application_id = int.from_bytes(header[_APPLICATION_ID], "big")
    version = int.from_bytes(header[_USER_VERSION], "big")
    if application_id == kind.application_id:
        if version > kind.version:
            return f"is {kind.name} of a newer schema (version {version}; this version reads up to {kind.version})"
        return None
    other = next((each for each in KINDS if each.application_id == application_id), None)
    if other is not None:
        return f"is {other.name}, not {kind.name}"
    if application_id == 0 and version == 0 and _tables(path) == kind.tables:
        return None  # made before the marker: marked when it is opened (`prepare`)
    return f"is an SQLite database not made by the simulator (it carries no marker of {kind.name})"


def _tables(path: Path) -> frozenset[str] | None:
    """The tables of an unmarked database, read without writing anything (`immutable`: no lock, no
    journal, no WAL index); None when it cannot be read so."""
    try:
        uri = path.resolve().as_uri() + "?mode=ro&immutable=1"
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
            rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    except sqlite3.Error:
        return None
    return frozenset(name for (name,) in rows) - {"sqlite_sequence"}


def refusal(path: str | os.PathLike[str], source: str, why: str) -> str:
    """The one line a refused file gets: the path, where it came from (a variable), the rule."""
    return (
        f"{os.fspath(path)} ({source}): {why}: refused, left as it is (the simulator opens, changes and "
        "deletes only files it made; give it a new path or an empty file)"
    )


def check(path: str | os.PathLike[str], kind: Kind, source: str) -> None:
    """ForeignFile when the file at `path` is not one `kind`'s store may use."""
    why = problem(path, kind)
    if why is not None:
        raise ForeignFile(refusal(path, source, why))


def prepare(path: str | os.PathLike[str], kind: Kind, source: str) -> None:
    """Make the file at `path` ready for `kind`'s store: refused (ForeignFile, nothing written) when
    it is not its own; made and marked when missing or empty; marked when made before the marker."""
    path = Path(path)
    check(path, kind, source)
    if kind_of(path) == kind:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)  # the world may hold account ids; an empty file is taken
    os.close(fd)
    with contextlib.closing(sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)) as db:
        db.execute("BEGIN EXCLUSIVE")  # another process marking it at once waits, then finds it marked
        try:
            marked = db.execute("PRAGMA application_id").fetchone()[0] == kind.application_id
            tables = frozenset(name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")) - {"sqlite_sequence"}
            if not marked and tables in (frozenset(), kind.tables):
                db.execute(f"PRAGMA application_id = {kind.application_id}")
                db.execute(f"PRAGMA user_version = {kind.version}")
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        if not marked and db.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # into the file's own header (a world made before the marker)
    os.chmod(path, 0o600)
    check(path, kind, source)  # something else put there meanwhile is refused still


def delete(path: str | os.PathLike[str], kind: Kind, source: str) -> bool:
    """Delete `kind`'s file at `path` and SQLite's files beside it; False when there was none.
    ForeignFile, nothing deleted, when it is not the simulator's own."""
    path = Path(path)
    check(path, kind, source)
    found = False
    for candidate in (path, *(Path(str(path) + suffix) for suffix in SIDE_FILES)):
        if candidate.is_file():
            candidate.unlink()
            found = True
    return found


# ---- where they are -------------------------------------------------------------------------------
AWS_ENV = "HYPERPOD_FAKE_STATE"
GCP_ENV = "HYPERPOD_GCP_FAKE_STATE"
DEFAULT_AWS = Path(".hyperpod") / "fake.sqlite"
GCP_FILE = "gcp-fake.sqlite"
CLOCK_FILE = "clock.sqlite"


@dataclass(frozen=True, slots=True)
class Place:
    """Where one of the simulators' files is, as the environment says now."""

    kind: Kind
    path: Path
    source: str  # what put it there, for an error line: the variable, or the default beside it


def places(strict: bool = True) -> tuple[Place, Place, Place]:
    """The HyperPod world, the Google Cloud world and their clock, by the environment (nothing is
    opened: `check` each). `strict`: ForeignFile when two of them are one path (`$HYPERPOD_FAKE_STATE`
    named `clock.sqlite`): each would take the other's file for its own."""
    value = os.environ.get(AWS_ENV)
    aws_path = Path(value) if value else Path.cwd() / DEFAULT_AWS
    aws = Place(AWS_WORLD, aws_path, f"${AWS_ENV}" if value else f"the default of ${AWS_ENV}")
    gcp_value = os.environ.get(GCP_ENV)
    gcp = (
        Place(GCP_WORLD, Path(gcp_value), f"${GCP_ENV}")
        if gcp_value
        else Place(GCP_WORLD, aws_path.with_name(GCP_FILE), f"beside ${AWS_ENV}")
    )
    clock = Place(CLOCK, aws_path.with_name(CLOCK_FILE), f"{CLOCK_FILE} beside ${AWS_ENV}")
    if strict:
        for first, second in ((aws, clock), (aws, gcp), (gcp, clock)):
            if os.path.realpath(first.path) == os.path.realpath(second.path):
                raise ForeignFile(
                    refusal(
                        first.path,
                        first.source,
                        f"is where {second.kind.name} goes ({second.source}): give {first.kind.name} a path of its own",
                    )
                )
    return aws, gcp, clock


def paths_in_use() -> list[tuple[str, str]]:
    """Every file of the simulators' the environment places, there yet or not, SQLite's files beside
    them included, each with what it is: no command writes over one (cli/outputs.py)."""
    found = []
    for place in places(strict=False):
        for suffix in ("", *SIDE_FILES):
            side = f"'s {suffix} file" if suffix else ""
            found.append((f"{place.path}{suffix}", f"{place.kind.name}{side} ({place.source})"))
    return found


def check_all(which: tuple[Kind, ...] = KINDS) -> None:
    """Every one of the simulators' files of `which` kinds is its own (or not there yet): checked
    together, before a command that uses them (`fake serve`) or deletes them (`fake reset`) writes."""
    for place in places():
        if place.kind in which:
            check(place.path, place.kind, place.source)


def world_path(name: str, default: Path, kind: Kind) -> Path:
    """A simulator's SQLite file of `kind`: $name, else `default`. What is at the path must be that
    simulator's own (its marker: `check`), an empty file or nothing yet (it is made): a
    directory, a device (/dev/null), a FIFO, a file of something else, someone's own SQLite database,
    a file of another kind or of a newer schema is refused before anything is written — and
    `hyperpod fake reset` would otherwise delete it."""
    value = os.environ.get(name)
    path = Path(value) if value else default
    check(path, kind, f"${name}" if value else f"the default of ${name}")  # one line naming both, nothing written
    return path
