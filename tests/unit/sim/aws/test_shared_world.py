"""One simulator store per world per process (issue 16): every client of a persistent world in a process
shares one SQLite connection and one loaded world; service models are parsed once per process."""

from __future__ import annotations

import datetime as dt

import pytest
from botocore.utils import parse_timestamp as botocore_parse_timestamp

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.sim.aws.store import SqliteStore, delete_world
from pulumi_hyperpod.aws.sessions import new_botocore_session, parse_timestamp
from tests.support.sim_helpers import eks_request, events_of, group

FROZEN = {"speed": 0}


@pytest.fixture
def world(tmp_path, monkeypatch):
    path = tmp_path / "world" / "fake.sqlite"
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(path))
    Simulator(path, scenario=FROZEN)
    return path


@pytest.fixture
def loads(monkeypatch) -> list[str]:
    """Every full load of a world from SQLite, by path."""
    seen: list[str] = []
    original = SqliteStore._load

    def counting(self):
        seen.append(str(self.path))
        return original(self)

    monkeypatch.setattr(SqliteStore, "_load", counting)
    return seen


def test_clients_of_one_world_share_one_simulator(world, loads):
    sagemaker, quotas = connect("fake"), connect("fake", service="service-quotas")
    assert Simulator.open_default() is Simulator.open_default()
    sagemaker.create_cluster(**eks_request("shared", [group("a", 2)]))
    for index in range(3):
        quotas.list_service_quotas(ServiceCode="sagemaker")
        sagemaker.update_cluster(ClusterName="shared", InstanceGroups=[group("a", 3 + index)])
        quotas.list_service_quotas(ServiceCode="sagemaker")
    assert len(loads) == 1, "the world was loaded once, not after each other client's write"


def test_another_processs_write_is_seen(world):
    ours = connect("fake")
    ours.create_cluster(**eks_request("seen", [group("a", 1)]))
    other = Simulator(world)  # another process would open its own store
    other.client().update_cluster(ClusterName="seen", InstanceGroups=[group("a", 4)])
    assert ours.describe_cluster(ClusterName="seen")["InstanceGroups"][0]["TargetCount"] == 4


def test_a_reset_world_is_opened_afresh(world):
    first = Simulator.open_default()
    connect("fake").create_cluster(**eks_request("gone", [group("a", 1)]))
    assert delete_world(world)
    Simulator(world, scenario=FROZEN)
    second = Simulator.open_default()
    assert second is not first
    assert connect("fake").list_clusters()["ClusterSummaries"] == []


def test_events_are_read_from_the_store_only_when_asked_and_never_twice(world):
    writer = Simulator.open_default()
    client = connect("fake")
    client.create_cluster(**eks_request("ev", [group("a", 2)]))
    writer.advance(1200)
    before = events_of(client, "ev")
    reader = Simulator(world)  # a fresh load: events stay in the store
    with reader._store.transaction() as loaded:
        log = next(iter(loaded.clusters.values())).events
        assert log._loaded is None and len(log) == len(before)
    reader.client().update_cluster(ClusterName="ev", InstanceGroups=[group("a", 3)])  # appends, saves unread
    reader.advance(1200)
    after = events_of(reader.client(), "ev")
    ids = [event["EventId"] for event in after]
    assert len(ids) == len(set(ids)), "no event listed twice"
    assert ids[: len(before)] == [event["EventId"] for event in before]
    assert len(after) > len(before)
    assert events_of(client, "ev") == after, "the first process sees the same events"


def test_clients_share_the_process_model_loader():
    shared = servicemodel.botocore_session().get_component("data_loader")
    assert new_botocore_session().get_component("data_loader") is shared
    from pulumi_hyperpod.sim.aws.simulator import _botocore_session

    assert _botocore_session().get_component("data_loader") is shared


@pytest.mark.parametrize("value", [0, 1767225600, 1767225600.25, "2026-01-01T00:00:00Z", "1767225600"])
def test_timestamps_parse_to_the_same_instant_as_botocore(value):
    ours, theirs = parse_timestamp(value), botocore_parse_timestamp(value)
    assert ours == theirs and ours.utcoffset() == theirs.utcoffset()
    assert ours.tzinfo is not None and isinstance(ours, dt.datetime)


def test_a_new_world_at_the_same_path_is_never_mistaken_for_the_old_one(world, monkeypatch):
    """Inode numbers are reused; the world id written at creation tells the worlds apart."""
    first = Simulator.open_default()
    connect("fake").create_cluster(**eks_request("old", [group("a", 1)]))
    identity = first._store._identity
    assert delete_world(world)
    Simulator(world, scenario=FROZEN)
    monkeypatch.setattr("pulumi_hyperpod.sim.aws.store._identity", lambda path: identity)  # same inode, say
    assert Simulator.open_default() is not first
    assert connect("fake").list_clusters()["ClusterSummaries"] == []
