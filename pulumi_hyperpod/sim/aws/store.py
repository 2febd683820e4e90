"""Where a world lives: in memory, or in SQLite shared by several processes.

SQLite layout: one row per cluster (groups included), one per node, one per event, one per
billing record, one per received call, and small world-level values in `meta`. Every request is
one `BEGIN IMMEDIATE` transaction (writers queue on the busy timeout). A process keeps its last
loaded world and reloads only when `meta.version` shows that another process committed; saving
writes only rows whose JSON changed in clusters the transaction touched, so paging through a
2,000-node cluster does not rewrite 2,000 rows per request.

Loading reads the meta values and the cluster headers; a cluster's nodes, its events and the
billing records are read on first use, inside a later transaction of the same loaded world (the
version check makes those rows the ones it was loaded from). A plan of one cluster in a fresh
process so decodes that cluster's nodes and nothing else.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING
from collections.abc import Callable, Iterator

from pulumi_hyperpod.sim.store import immediate, open_file, open_read_only
from pulumi_hyperpod.sim.worldfile import AWS_WORLD, delete
from pulumi_hyperpod.sim.aws.clock import SharedClock, clock_from_state, new_persistent_clock
from pulumi_hyperpod.sim.aws.model import NEXT_NODE_DUE, Cluster, EventLog
from pulumi_hyperpod.sim.aws.s3_bodies import SCHEMA as S3_BODIES_SCHEMA, SqliteBodies
from pulumi_hyperpod.sim.aws.world import World, rng_state, set_rng_state

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.sim.aws.scenario import Scenario

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS clusters (id TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS nodes (cluster_id TEXT NOT NULL, logical_id TEXT NOT NULL, data TEXT NOT NULL,
                                  PRIMARY KEY (cluster_id, logical_id));
CREATE TABLE IF NOT EXISTS events (cluster_id TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL,
                                   PRIMARY KEY (cluster_id, seq));
CREATE TABLE IF NOT EXISTS billing (instance_id TEXT PRIMARY KEY, cluster_id TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS calls (seq INTEGER PRIMARY KEY AUTOINCREMENT, operation TEXT NOT NULL,
                                  params TEXT NOT NULL);
"""


def _dumps(value) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _meta_fingerprints(world: World) -> dict[str, object]:
    """Cheap stand-ins for each meta value: equal fingerprint, equal JSON, so a save dumps only what changed.
    Token records are only ever added or expired, never changed in place: key and expiry identify them."""
    return {
        "seed": world.seed,
        "scenario": world.scenario_identity(),
        "rng": world.rng.getstate(),
        "fault_rng": world.fault_rng.getstate(),
        "clock": world.clock.state(),
        "now": world.now,
        "start": world.start,
        "capacity": tuple(sorted(world.capacity.pools.items())),
        "capacity_cursor": world.capacity_cursor,
        "tokens": frozenset((key, record["expires"]) for key, record in world.tokens.items()),
        "s3": _dumps(world.s3),
        "workloads": _dumps(world.workloads),
    }


_META = {
    "seed": lambda world: world.seed,
    "scenario": lambda world: world.scenario_json(),
    "rng": lambda world: rng_state(world.rng),
    "fault_rng": lambda world: rng_state(world.fault_rng),
    "clock": lambda world: world.clock.state(),
    "now": lambda world: world.now,
    "start": lambda world: world.start,
    "capacity": lambda world: world.capacity.to_row(),
    "capacity_cursor": lambda world: world.capacity_cursor,
    "tokens": lambda world: world.tokens,
    "s3": lambda world: world.s3,
    "workloads": lambda world: world.workloads,
}


def world_meta(world: World, keys=None) -> dict[str, str]:
    return {key: _dumps(_META[key](world)) for key in (keys if keys is not None else _META)}


class MemoryStore:
    """The in-memory world: no persistence, calls kept in a list."""

    def __init__(self, world: World) -> None:
        self.world = world
        self._calls: list[tuple[str, dict]] = []
        self.lock = threading.RLock()

    def close(self) -> None:
        """Nothing to release: the world is this object's."""

    @contextlib.contextmanager
    def transaction(self) -> Iterator[World]:
        with self.lock:
            yield self.world
            self.world.dirty.clear()
            self.world.removed.clear()
            self.world.billing_dirty.clear()

    def record_call(self, operation: str, params: dict) -> None:
        self._calls.append((operation, params))

    def calls(self) -> list[tuple[str, dict]]:
        return list(self._calls)

    def reset_calls(self) -> None:
        self._calls.clear()

    def is_current(self) -> bool:
        return True  # a world in memory is never replaced under its simulator (SqliteStore's file can be)


class SqliteStore:
    def __init__(
        self,
        path: str | Path,
        seed: int,
        scenario: Scenario | None,
        real_time: Callable[[], float] = time.time,
        clock: SharedClock | None = None,
        source: str = "the HyperPod simulator's world",
    ) -> None:
        self.path = Path(path)
        self.real_time = real_time
        self.shared_clock = clock  # the directory's one clock (sim/clock.py), or None: the world's own
        # the simulator's own file (its marker), made 0600 when missing: anything else is refused untouched
        self.conn = open_file(self.path, AWS_WORLD, source)
        self._identity = _identity(self.path)
        self.lock = threading.RLock()
        self.world: World | None = None
        self._version = -1
        self._generation = 0  # bumped whenever the loaded world is dropped: its deferred readers then refuse
        self._reset_snapshots()
        with self.lock, immediate(self.conn):
            for statement in SCHEMA.strip().split(";"):
                if statement.strip():
                    self.conn.execute(statement)
            self.conn.execute(S3_BODIES_SCHEMA)
            if self._meta("seed") is None:
                if scenario is None:  # the defaults; built only for a new world (an existing one keeps its own)
                    from pulumi_hyperpod.sim.aws.scenario import Scenario  # noqa: PLC0415 - pydantic: the scenario's models, not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)

                    scenario = Scenario()
                world = World(scenario, seed, self._clock(new_persistent_clock(scenario.speed, real_time).state()))
                self._write_all(world)
                import uuid  # noqa: PLC0415 - uuid: only a new world (a new world's id; reading a stored world does not need the module)

                self.conn.execute("INSERT INTO meta (key, value) VALUES ('world_id', ?)", (_dumps(uuid.uuid4().hex),))
            self._world_id = self._meta("world_id")

    def _clock(self, state: dict):
        """The world's clock: the shared one (made from, or moved up to, the world's own `state`), else its own."""
        return self.shared_clock.adopt(state) if self.shared_clock is not None else clock_from_state(state, self.real_time)

    def _reset_snapshots(self) -> None:
        self._meta_snap: dict[str, str] = {}
        self._meta_fingerprints: dict[str, object] | None = None
        self._cluster_snap: dict[str, str] = {}
        self._node_snap: dict[str, dict[str, str]] = {}
        self._events_saved: dict[str, int] = {}

    def _meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def _db_version(self) -> int:
        value = self._meta("version")
        return int(value) if value is not None else 0

    # -- transactions --------------------------------------------------------------------------
    @contextlib.contextmanager
    def transaction(self) -> Iterator[World]:
        with self.lock:
            try:
                with immediate(self.conn):
                    if self.world is None or self._db_version() != self._version:
                        self._load()
                    yield self.world
                    self._save(self.world)
            except BaseException:
                self._drop_world()  # the in-memory copy may be half-changed: reload next time
                raise

    def _drop_world(self) -> None:
        self.world, self._version = None, -1
        self._generation += 1

    def _load(self) -> None:
        self._generation += 1
        generation = self._generation
        meta = {key: json.loads(value) for key, value in self.conn.execute("SELECT key, value FROM meta")}
        # the scenario was validated when it was stored: the model is built only if something reads it
        world = World(meta["scenario"], meta["seed"], self._clock(meta["clock"]))
        set_rng_state(world.rng, meta["rng"])
        set_rng_state(world.fault_rng, meta["fault_rng"])
        world.now, world.start = meta["now"], meta["start"]
        world.capacity.pools = meta["capacity"]
        world.capacity_cursor = meta["capacity_cursor"]
        world.tokens = meta["tokens"]
        world.s3 = meta.get("s3", {})
        world.s3_bodies = SqliteBodies(self.conn)
        world.workloads = meta.get("workloads", {})
        self._reset_snapshots()
        counts = dict(self.conn.execute("SELECT cluster_id, COUNT(*) FROM events GROUP BY cluster_id"))
        load_nodes = self._node_loader(world, generation)
        for cluster_id, data in self.conn.execute("SELECT id, data FROM clusters").fetchall():
            header = json.loads(data)
            events = EventLog(stored=counts.get(cluster_id, 0), loader=self._event_loader(cluster_id))
            if NEXT_NODE_DUE in header:
                cluster = Cluster.from_rows(header, None, events)
                cluster.defer_nodes(load_nodes, header[NEXT_NODE_DUE])
            else:  # a header written before nodes were deferred: its node timers are only in the node rows
                cluster = Cluster.from_rows(header, self._read_nodes(cluster_id), events)
            world.clusters[cluster_id] = cluster
            self._cluster_snap[cluster_id] = data
            self._events_saved[cluster_id] = len(cluster.events)
        world.defer_billing(self._billing_loader(generation))
        world.rebuild_heap()
        self._meta_snap = {key: _dumps(value) for key, value in meta.items() if key != "version"}
        self.world = world
        self._version = int(meta.get("version", 0))

    def _require_loaded(self, generation: int, what: str) -> None:
        """Deferred rows are read only inside a transaction on the world they were deferred from: after a
        reload (another process wrote) or a rollback, they may no longer be what that world was."""
        if generation != self._generation or not self.conn.in_transaction:
            raise RuntimeError(f"{what} of the simulated world at {self.path} read outside the transaction of the world they belong to")

    def _read_nodes(self, cluster_id: str) -> list[dict]:
        rows = self.conn.execute("SELECT logical_id, data FROM nodes WHERE cluster_id = ?", (cluster_id,)).fetchall()
        snap = self._node_snap.setdefault(cluster_id, {})
        snap.update(rows)
        # One JSON array for the whole cluster: a third cheaper than a json.loads per row at 5,000 nodes.
        return json.loads("[" + ",".join(data for _, data in rows) + "]")

    def _node_loader(self, world: World, generation: int) -> Callable[[Cluster], None]:
        def load(cluster: Cluster) -> None:
            self._require_loaded(generation, f"the nodes of cluster {cluster.name}")
            cluster.set_nodes(self._read_nodes(cluster.id))
            world.schedule_nodes(cluster)

        return load

    def _billing_loader(self, generation: int) -> Callable[[], dict[str, dict]]:
        def load() -> dict[str, dict]:
            self._require_loaded(generation, "the billing records")
            return {instance_id: json.loads(data) for instance_id, data in self.conn.execute("SELECT instance_id, data FROM billing")}

        return load

    def _event_loader(self, cluster_id: str):
        """Reads a cluster's stored events when first needed (always inside a transaction of this store)."""

        def load() -> list[dict]:
            rows = self.conn.execute("SELECT data FROM events WHERE cluster_id = ? ORDER BY seq", (cluster_id,))
            return [json.loads(data) for (data,) in rows]

        return load

    def _write_all(self, world: World) -> None:
        world.dirty.update(world.clusters)
        world.billing_dirty.update(world.billing)
        self._save(world)
        self._drop_world()  # next transaction loads it like any other process would

    def _save(self, world: World) -> None:
        execute = self.conn.execute
        changed = False
        fingerprints, before = _meta_fingerprints(world), self._meta_fingerprints or {}
        changed_keys = [key for key, value in fingerprints.items() if key not in before or before[key] != value]
        self._meta_fingerprints = fingerprints
        for key, value in world_meta(world, changed_keys).items():
            if self._meta_snap.get(key) != value:
                execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
                self._meta_snap[key] = value
                # Time passing with nothing due changes only `now`, which every process derives from the shared
                # clock anyway: no new version, so the other processes do not reload the world for it.
                changed = changed or key != "now"
        for cluster_id in sorted(world.removed):
            for table, column in (("clusters", "id"), ("nodes", "cluster_id"), ("events", "cluster_id")):
                execute(f"DELETE FROM {table} WHERE {column} = ?", (cluster_id,))
            self._cluster_snap.pop(cluster_id, None)
            self._node_snap.pop(cluster_id, None)
            self._events_saved.pop(cluster_id, None)
            changed = True
        for cluster_id in sorted(world.dirty):
            cluster = world.clusters.get(cluster_id)
            if cluster is not None:
                changed |= self._save_cluster(cluster)
        for instance_id in sorted(world.billing_dirty):
            record = world.billing[instance_id]
            execute(
                "INSERT OR REPLACE INTO billing (instance_id, cluster_id, data) VALUES (?, ?, ?)",
                (instance_id, record["cluster_id"], _dumps(record)),
            )
            changed = True
        world.dirty.clear()
        world.removed.clear()
        world.billing_dirty.clear()
        if changed:
            self._version = max(self._version, self._db_version()) + 1
            execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('version', ?)", (str(self._version),))

    def _save_cluster(self, cluster: Cluster) -> bool:
        execute = self.conn.execute
        changed = False
        header = _dumps(cluster.header_row())
        if self._cluster_snap.get(cluster.id) != header:
            execute("INSERT OR REPLACE INTO clusters (id, data) VALUES (?, ?)", (cluster.id, header))
            self._cluster_snap[cluster.id] = header
            changed = True
        if not cluster.nodes_loaded:  # nothing read, so nothing changed
            return changed | self._save_events(cluster)
        snap = self._node_snap.setdefault(cluster.id, {})
        rows = []
        for logical_id, node in cluster.nodes.items():
            data = _dumps(node.to_row())
            if snap.get(logical_id) != data:
                rows.append((cluster.id, logical_id, data))
                snap[logical_id] = data
        if rows:
            self.conn.executemany("INSERT OR REPLACE INTO nodes (cluster_id, logical_id, data) VALUES (?, ?, ?)", rows)
            changed = True
        gone = [logical_id for logical_id in snap if logical_id not in cluster.nodes]
        if gone:
            self.conn.executemany(
                "DELETE FROM nodes WHERE cluster_id = ? AND logical_id = ?", [(cluster.id, logical_id) for logical_id in gone]
            )
            for logical_id in gone:
                del snap[logical_id]
            changed = True
        return changed | self._save_events(cluster)

    def _save_events(self, cluster: Cluster) -> bool:
        saved = self._events_saved.get(cluster.id, 0)
        if len(cluster.events) <= saved:
            return False
        self.conn.executemany(
            "INSERT OR REPLACE INTO events (cluster_id, seq, data) VALUES (?, ?, ?)",
            [(cluster.id, event["seq"], _dumps(event)) for event in cluster.events.since(saved)],
        )
        self._events_saved[cluster.id] = len(cluster.events)
        cluster.events.saved()
        return True

    # -- calls ---------------------------------------------------------------------------------
    def record_call(self, operation: str, params: dict) -> None:
        self.conn.execute("INSERT INTO calls (operation, params) VALUES (?, ?)", (operation, _dumps(params)))

    def calls(self) -> list[tuple[str, dict]]:
        with self.lock:
            rows = self.conn.execute("SELECT operation, params FROM calls ORDER BY seq").fetchall()
        return [(operation, json.loads(params)) for operation, params in rows]

    def reset_calls(self) -> None:
        with self.lock:
            self.conn.execute("DELETE FROM calls")

    def is_current(self) -> bool:
        """Still the file at `path` (not deleted or replaced since, e.g. by `hyperpod fake reset`)."""
        if _identity(self.path) != self._identity:
            return False
        try:  # inode numbers are reused: a new world at the same path is told apart by its id
            with contextlib.closing(open_read_only(self.path)) as conn:
                row = conn.execute("SELECT value FROM meta WHERE key = 'world_id'").fetchone()
        except sqlite3.Error:
            return False
        return (row[0] if row else None) == self._world_id

    def close(self) -> None:
        self.conn.close()
        if self.shared_clock is not None:
            self.shared_clock.close()


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return None
    return status.st_dev, status.st_ino


def delete_world(path: str | Path, source: str = "$HYPERPOD_FAKE_STATE") -> bool:
    """Remove the simulator's SQLite world and its WAL files; True when something was there. A file
    the simulator did not make is refused (ForeignFile), never deleted."""
    return delete(path, AWS_WORLD, source)


__all__ = ["MemoryStore", "SqliteStore", "delete_world"]
