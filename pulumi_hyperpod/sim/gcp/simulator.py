"""`GcpSimulator`: a world plus the sessions that talk to it."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.sim.gcp.store import MemoryStore, SqliteStore
from pulumi_hyperpod.sim.gcp.wire import SimulatorAdapter
from pulumi_hyperpod.sim.worldfile import ForeignFile, GCP_WORLD, check, places, world_path
from pulumi_hyperpod.sim.clock import SharedClock, default_clock_path
from pulumi_hyperpod.core.extras import needed

if TYPE_CHECKING:  # pragma: no cover
    import contextlib

    from pulumi_hyperpod.sim.gcp.world import GcpWorld

STATE_ENV = "HYPERPOD_GCP_FAKE_STATE"
TICK_ENV = "HYPERPOD_GCP_FAKE_TICK"
CAPACITY_ENV = "HYPERPOD_GCP_FAKE_CAPACITY"  # JSON: {"a4-highgpu-8g": 4}, for a new world


def default_path() -> Path:
    """$HYPERPOD_GCP_FAKE_STATE, else gcp-fake.sqlite beside the HyperPod world
    ($HYPERPOD_FAKE_STATE, default .hyperpod/fake.sqlite): one directory holds both clouds."""
    place = places()[1]  # two of the simulators' files at one path: refused before either is made
    if os.environ.get(STATE_ENV):
        return world_path(STATE_ENV, Path(), GCP_WORLD)  # a bad value or a foreign file: one error naming the variable
    check(place.path, GCP_WORLD, place.source)
    return place.path


class GcpSimulator:
    """`path` None: an in-memory world; else a SQLite world other processes can open too.
    `tick`: virtual seconds each request moves the clock (default 60; $HYPERPOD_GCP_FAKE_TICK).
    `capacity`: machine type → the most nodes of it there are (default unlimited;
    $HYPERPOD_GCP_FAKE_CAPACITY, JSON); an operation that needs more fails with RESOURCE_EXHAUSTED.
    `clock`: a persistent world's time from the directory's one clock (sim/clock.py), shared with
    the HyperPod world (`open_default` passes it); None: the world's own clock."""

    def __init__(
        self,
        path: str | Path | None = None,
        tick: float | None = None,
        capacity: dict[str, int] | None = None,
        clock: SharedClock | None = None,
    ) -> None:
        if tick is None and os.environ.get(TICK_ENV):
            tick = _tick_from_env(os.environ[TICK_ENV])
        if capacity is None and os.environ.get(CAPACITY_ENV):
            capacity = _capacity_from_env(os.environ[CAPACITY_ENV])
        self.path = Path(path) if path is not None else None
        self._store = MemoryStore(tick, capacity) if self.path is None else _sqlite_store(self.path, tick, capacity, clock)
        self.adapter = SimulatorAdapter(self._store.transaction)

    @classmethod
    def open_default(cls) -> GcpSimulator:
        return cls(default_path(), clock=SharedClock(default_clock_path()))

    def session(self) -> Any:
        """google-auth's AuthorizedSession (anonymous credentials: nothing of this machine's is
        read or sent) with this simulator mounted for every https URL."""
        with needed("gcp"):
            from google.auth.credentials import AnonymousCredentials  # noqa: PLC0415 - google-auth (the gcp extra): loaded when a session to the simulated world is made
            from google.auth.transport.requests import AuthorizedSession  # noqa: PLC0415 - google-auth (the gcp extra): loaded when a session to the simulated world is made

        session = AuthorizedSession(AnonymousCredentials())
        session.mount("https://", self.adapter)
        return session

    def world(self) -> contextlib.AbstractContextManager[GcpWorld]:
        """One transaction on the world (for tests and `hyperpod gcp sim` style inspection)."""
        return self._store.transaction()


class SimulatorSettingError(ValueError):
    """A simulator setting (an environment variable) that cannot be used: one line naming it."""


def _tick_from_env(text: str) -> float:
    try:
        tick = float(text)
    except ValueError:
        tick = float("nan")
    if not 0 < tick < 86400 * 365:
        raise SimulatorSettingError(f"${TICK_ENV}: {text[:40]!r} is not a number of virtual seconds above 0")
    return tick


def _capacity_from_env(text: str) -> dict[str, int]:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict) or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in data.values()):
        raise SimulatorSettingError(
            f'${CAPACITY_ENV}: a JSON object of machine type to a node count (0 or more), e.g. {{"a4-highgpu-8g": 4}}'
        )
    return {str(k): v for k, v in data.items()}


def _sqlite_store(path: Path, tick: float | None, capacity: dict[str, int] | None, clock: SharedClock | None = None) -> SqliteStore:
    """The world's file, or one line naming it and $HYPERPOD_GCP_FAKE_STATE (a directory, a device or
    a file the simulator did not make is refused untouched: sim/worldfile.py; a marked one that
    cannot be read is not a world either)."""
    try:
        store = SqliteStore(path, tick, capacity, clock)
        with store.transaction() as world:
            world.data["clusters"]
    except ForeignFile:
        raise
    except (sqlite3.DatabaseError, OSError, KeyError, TypeError, ValueError) as error:
        raise SimulatorSettingError(
            f"{path} (${STATE_ENV} or beside $HYPERPOD_FAKE_STATE): not the Google Cloud "
            f"simulator's world ({type(error).__name__}: {str(error)[:80]})"
        ) from None
    return store
