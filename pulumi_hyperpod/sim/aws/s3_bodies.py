"""Where the simulated S3's object bytes live: beside the world, not in it.

`world.s3` holds buckets and each object's metadata (ETag, size, checksum, dates): small, and saved
with the world's other meta values, which the store fingerprints and compares on every request. The
bytes themselves are kept here, one row per object in the SQLite world (`s3_objects`), read only by
GetObject and the bundle reads, written only by PutObject and DeleteObject. So a DescribeCluster's
cost does not grow with what S3 holds, and a process that opens the world does not decode every
object to answer one request.
"""

from __future__ import annotations

import sqlite3
from typing import Protocol

TABLE = "s3_objects"
SCHEMA = f"CREATE TABLE IF NOT EXISTS {TABLE} (bucket TEXT NOT NULL, key TEXT NOT NULL, body BLOB NOT NULL, PRIMARY KEY (bucket, key))"


class ObjectBodies(Protocol):
    def get(self, bucket: str, key: str) -> bytes | None: ...

    def put(self, bucket: str, key: str, body: bytes) -> None: ...

    def delete(self, bucket: str, key: str) -> None: ...


class MemoryBodies:
    """An in-memory world's object bytes."""

    def __init__(self) -> None:
        self._bodies: dict[tuple[str, str], bytes] = {}

    def get(self, bucket: str, key: str) -> bytes | None:
        return self._bodies.get((bucket, key))

    def put(self, bucket: str, key: str, body: bytes) -> None:
        self._bodies[(bucket, key)] = body

    def delete(self, bucket: str, key: str) -> None:
        self._bodies.pop((bucket, key), None)


class SqliteBodies:
    """A SQLite world's object bytes, in its own table, written inside the request's transaction (a
    rolled-back request leaves no bytes behind)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def get(self, bucket: str, key: str) -> bytes | None:
        row = self._conn.execute(f"SELECT body FROM {TABLE} WHERE bucket = ? AND key = ?", (bucket, key)).fetchone()
        return bytes(row[0]) if row is not None else None

    def put(self, bucket: str, key: str, body: bytes) -> None:
        self._conn.execute(f"INSERT OR REPLACE INTO {TABLE} (bucket, key, body) VALUES (?, ?, ?)", (bucket, key, body))

    def delete(self, bucket: str, key: str) -> None:
        self._conn.execute(f"DELETE FROM {TABLE} WHERE bucket = ? AND key = ?", (bucket, key))
