"""How every simulator file is opened and written: the HyperPod world (sim/aws/store.py; the
workload simulator's jobs and pods are kept in it, beside the nodes they run on), the Google Cloud
world (sim/gcp/store.py) and their one clock (sim/clock.py).

One policy for all of them: the file is the simulators' own (sim/worldfile.py's marker, checked and
made before SQLite opens it), several processes write it at once (a writer waits up to
`BUSY_TIMEOUT_SECONDS` for another's transaction: the CLI, a Pulumi provider and `fake serve` may
share a world), WAL with `synchronous = NORMAL` (a request is one short transaction: no fsync of a
rollback journal each time; a crash loses at most the last one, never the file), and every change
is one `BEGIN IMMEDIATE` transaction, rolled back whole when anything in it fails.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from pulumi_hyperpod.sim.worldfile import BUSY_TIMEOUT_SECONDS, Kind, prepare

PRAGMAS = ("PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL")


def open_file(path: str | os.PathLike[str], kind: Kind, source: str) -> sqlite3.Connection:
    """A connection to `kind`'s file at `path` (made and marked when missing; ForeignFile, nothing
    written, when it is not the simulators' own), with the one timeout and pragmas. Autocommit
    (`isolation_level=None`): transactions are `immediate`'s; usable from any thread (each store
    holds its own lock)."""
    prepare(path, kind, source)
    db = sqlite3.connect(os.fspath(path), timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False)
    for pragma in PRAGMAS:
        db.execute(pragma)
    return db


def open_read_only(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """A read-only connection (no file made, nothing written), with the same busy timeout."""
    return sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True, timeout=BUSY_TIMEOUT_SECONDS)


@contextlib.contextmanager
def immediate(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction (`BEGIN IMMEDIATE`: writers queue on the busy timeout, not on a lock
    upgrade that can deadlock): committed when the block ends, rolled back when it raises."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
