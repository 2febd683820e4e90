"""Where a world lives: in memory, or one row of a SQLite file that several processes share."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pulumi_hyperpod.sim.store import immediate, open_file
from pulumi_hyperpod.sim.worldfile import AWS_ENV, GCP_ENV, GCP_WORLD
from pulumi_hyperpod.sim.gcp.world import GcpWorld, empty_world

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.sim.clock import SharedClock


class MemoryStore:
    def __init__(self, tick: float | None = None, capacity: dict[str, int] | None = None) -> None:
        self._world = GcpWorld(empty_world(*(() if tick is None else (tick,)), capacity=capacity))
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[GcpWorld]:
        with self._lock:
            yield self._world


class SqliteStore:
    """The whole world as one JSON document in table `gcp_world`; a write transaction
    (BEGIN IMMEDIATE) per request, so concurrent processes see one consistent history."""

    def __init__(
        self, path: Path, tick: float | None = None, capacity: dict[str, int] | None = None, clock: SharedClock | None = None
    ) -> None:
        self.path = Path(path)
        self.clock = clock  # the directory's one clock, shared with the HyperPod world; None: the world's own
        with contextlib.closing(self._connect()) as db:
            db.execute("CREATE TABLE IF NOT EXISTS gcp_world (id INTEGER PRIMARY KEY CHECK (id = 1), data TEXT NOT NULL)")
            # a new world starts with its settings (tick, capacity); an existing one keeps its own
            initial = empty_world(*(() if tick is None else (tick,)), capacity=capacity)
            db.execute("INSERT OR IGNORE INTO gcp_world (id, data) VALUES (1, ?)", (json.dumps(initial, sort_keys=True),))

    def _connect(self) -> sqlite3.Connection:
        """A connection to the world's file, which is this simulator's own (its marker), made when missing:
        anything else at the path is refused before sqlite opens it (sim/worldfile.py)."""
        return open_file(self.path, GCP_WORLD, f"${GCP_ENV} or beside ${AWS_ENV}")

    @contextlib.contextmanager
    def transaction(self) -> Iterator[GcpWorld]:
        with contextlib.closing(self._connect()) as db, immediate(db):
            row = db.execute("SELECT data FROM gcp_world WHERE id = 1").fetchone()
            world = GcpWorld(json.loads(row[0]) if row else empty_world(), clock=self.clock)
            yield world
            db.execute("INSERT OR REPLACE INTO gcp_world (id, data) VALUES (1, ?)", (json.dumps(world.data, sort_keys=True),))
