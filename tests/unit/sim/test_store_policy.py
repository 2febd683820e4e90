"""The simulators' three SQLite files — the HyperPod world, the Google Cloud world and their clock —
are opened by one helper (sim/store.py) with one policy: the marker checked first, the same busy
timeout, WAL with synchronous=NORMAL, and one BEGIN IMMEDIATE transaction per change."""

from __future__ import annotations

import ast
import contextlib
import sqlite3

import pytest

from tests.support.paths import PACKAGE

from pulumi_hyperpod.sim import store
from pulumi_hyperpod.sim.worldfile import BUSY_TIMEOUT_SECONDS

SIM = PACKAGE / "sim"
OPENERS = {"store.py", "worldfile.py"}  # worldfile: the marker is written before WAL, and read with nothing written


def _pragmas(db: sqlite3.Connection) -> tuple[str, int, int]:
    return (
        db.execute("PRAGMA journal_mode").fetchone()[0],
        db.execute("PRAGMA busy_timeout").fetchone()[0],
        db.execute("PRAGMA synchronous").fetchone()[0],
    )


POLICY = ("wal", int(BUSY_TIMEOUT_SECONDS * 1000), 1)  # synchronous 1: NORMAL


def test_the_hyperpod_world_is_opened_by_the_policy(tmp_path):
    from pulumi_hyperpod.sim.aws.store import SqliteStore

    world = SqliteStore(tmp_path / "fake.sqlite", seed=0, scenario=None)
    assert _pragmas(world.conn) == POLICY


def test_the_google_cloud_world_is_opened_by_the_policy(tmp_path):
    from pulumi_hyperpod.sim.gcp.store import SqliteStore

    world = SqliteStore(tmp_path / "gcp-fake.sqlite")
    with contextlib.closing(world._connect()) as db:
        assert _pragmas(db) == POLICY
    with world.transaction() as state:  # still a world after the switch to WAL
        assert state.data is not None


def test_the_clock_is_opened_by_the_policy(tmp_path):
    from pulumi_hyperpod.sim.clock import SharedClock

    clock = SharedClock(tmp_path / "clock.sqlite")
    clock.advance(5)
    assert _pragmas(clock._connection()) == POLICY


@pytest.mark.parametrize(
    "path", sorted(p for p in SIM.rglob("*.py") if p.name not in OPENERS or p.parent != SIM), ids=lambda p: str(p.relative_to(SIM))
)
def test_no_other_simulator_module_opens_sqlite_itself(path):
    calls = [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "connect"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "sqlite3"
    ]
    assert calls == [], f"{path.name} calls sqlite3.connect at lines {calls}: open the file with sim/store.py"


def test_a_failed_change_is_rolled_back_whole(tmp_path):
    from pulumi_hyperpod.sim.worldfile import CLOCK

    db = store.open_file(tmp_path / "clock.sqlite", CLOCK, "test")
    db.execute("CREATE TABLE clock (id INTEGER PRIMARY KEY, state TEXT)")
    with pytest.raises(RuntimeError), store.immediate(db):
        db.execute("INSERT INTO clock VALUES (1, 'x')")
        raise RuntimeError("half way")
    assert db.execute("SELECT COUNT(*) FROM clock").fetchone()[0] == 0 and not db.in_transaction
