"""A stored world's scenario is validated into `Scenario` only when something reads `world.scenario`.

The SQLite store keeps the scenario's JSON (validated when it was stored); a read of a settled world
needs only the values every request reads (`world.SETTINGS`), which come from that JSON with the
model's defaults. Held here: those defaults are the model's, the values are the model's for a
scenario that sets them, a settled world answers every read without building the model, and a world
whose model was built (a write that reads it) stores the same scenario again.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pulumi_hyperpod import connect
from pulumi_hyperpod.sim.aws import Scenario, Simulator
from pulumi_hyperpod.sim.aws.world import CAPACITY, SETTINGS
from tests.support.sim_helpers import seed000_request


def _model_value(scenario: Scenario, path: tuple[str, ...]) -> Any:
    value: Any = scenario
    for part in path:
        value = getattr(value, part)
    return value


@pytest.mark.parametrize("path", sorted(SETTINGS), ids=".".join)
def test_each_setting_defaults_to_the_models_default(path):
    assert SETTINGS[path] == _model_value(Scenario(), path)


SET = {
    "poll_window_seconds": 5,
    "faults": {"throttle_rate": 0.0, "server_error_rate": 0.0},
    "image_release": "1.2.3",
    "image_released_at": 1.5e9,
}


def _stored(tmp_path, scenario: dict | None = None) -> tuple[Simulator, Any]:
    """A settled stored world with one cluster, and a second Simulator on the same file (another process's view)."""
    path = tmp_path / "world.sqlite"
    writer = Simulator(path, seed=0, scenario=scenario)
    writer.client().create_cluster(**seed000_request("demo", workers=2, worker_type="ml.c5.xlarge"))
    writer.advance(3600)
    return Simulator(path), writer


@pytest.mark.parametrize("scenario", [None, SET], ids=["defaults", "set"])
def test_the_settings_read_from_the_stored_json_are_the_models(tmp_path, scenario):
    reader, _ = _stored(tmp_path, scenario)
    with reader._store.transaction() as world:
        from_json = {path: world.setting(*path) for path in SETTINGS}
        assert world._scenario is None  # read without building the model
        built = world.scenario
        assert from_json == {path: _model_value(built, path) for path in SETTINGS}
        assert {path: world.setting(*path) for path in SETTINGS} == from_json  # and the same from the model


def test_a_settled_world_answers_every_read_without_building_the_scenario(tmp_path):
    reader, _ = _stored(tmp_path, SET)
    client = connect("fake", simulator=reader)
    described = client.describe_cluster(ClusterName="demo")
    arn = described["ClusterArn"]
    nodes = [n for page in client.get_paginator("list_cluster_nodes").paginate(ClusterName="demo") for n in page["ClusterNodeSummaries"]]
    client.list_clusters()
    client.list_tags(ResourceArn=arn)
    client.list_cluster_events(ClusterName="demo")
    client.describe_cluster_node(ClusterName="demo", NodeId=nodes[0]["InstanceId"])
    client.list_clusters()  # the same read again: a client polling
    assert all(g.get("ImageVersionStatus") == "UpToDate" for g in described["InstanceGroups"])  # image_release, from the JSON
    assert reader._store.world._scenario is None


def test_a_world_whose_scenario_was_built_stores_the_same_scenario(tmp_path):
    reader, _ = _stored(tmp_path, SET)
    stored = lambda: reader._store.conn.execute("SELECT value FROM meta WHERE key = 'scenario'").fetchone()[0]
    before = stored()
    assert reader.scenario.poll_window_seconds == 5  # builds the model in a transaction that then saves
    assert stored() == before
    reader.set_fault_rate("launch_failure_rate", 0.25)
    assert json.loads(stored())["faults"]["launch_failure_rate"] == 0.25
    assert Simulator(reader.path).scenario.faults.launch_failure_rate == 0.25


def test_capacity_changes_are_scheduled_from_the_stored_json(tmp_path):
    scenario = {
        "capacity": [{"instance_type": "ml.c5.xlarge", "available": 0}],
        "capacity_changes": [
            {"at": 7200, "instance_type": "ml.c5.xlarge", "available": 6},
            {"at": 3600, "instance_type": "ml.m5.xlarge", "add": 1},
        ],
    }
    path = tmp_path / "world.sqlite"
    Simulator(path, seed=0, scenario=scenario).now()
    reader = Simulator(path)
    with reader._store.transaction() as world:
        timers = [(due - world.start, ref) for due, kind, _, ref in world.heap if kind == CAPACITY]
        assert world._scenario is None and timers == [(3600, "0")]  # the first in time order, as the model sorts them
    reader.advance(7300)
    with reader._store.transaction() as world:
        assert world.capacity.available("ml.c5.xlarge", "us-west-2a") == 6 and world.capacity_cursor == 2
