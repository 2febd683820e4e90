"""The native provider serves Google Cloud too: `hyperpod:index:GcpTrainingCluster`, called as the
gRPC server calls it, on the Google Cloud simulator — check prints the plan, create applies it
through the one pipeline (preflight included), a spec edit is an update, refresh reads the cluster,
import reads it by its name, delete removes it; a refused plan is an error naming the rule."""

from __future__ import annotations

import json

import pytest
from pulumi.provider.experimental.provider import (
    CheckRequest,
    CreateRequest,
    DeleteRequest,
    DiffRequest,
    ReadRequest,
    UpdateRequest,
)

from pulumi_hyperpod.gcp.client import connect
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.sim.gcp.compute import Compute
from pulumi_hyperpod.gcp.observe import observe
from pulumi_hyperpod.native import gcp, wire
from pulumi_hyperpod.native.provider import schema

from .conftest import on_wire, run
from tests.support.paths import EXAMPLES

EXAMPLE = EXAMPLES / "gcp-training-cluster" / "cluster.json"
NAME = "projects/my-project/locations/us-central1/modelDevelopmentClusters/llmtrain"
URN = "urn:pulumi:dev::p::hyperpod:index:GcpTrainingCluster::llm"


@pytest.fixture
def world(tmp_path, monkeypatch):
    path = tmp_path / "gcp.sqlite"
    monkeypatch.setenv("HYPERPOD_GCP_FAKE_STATE", str(path))
    monkeypatch.setenv("HYPERPOD_POLL_SECONDS", "0.001")
    monkeypatch.chdir(tmp_path)
    return GcpSimulator(path)


def _check(h, olds, news):
    result = run(h.provider.check(CheckRequest(URN, olds, on_wire(news), b"")))
    return result


def _created(h, news):
    checked = _check(h, {}, news)
    assert not checked.failures, [(f.property, f.reason) for f in checked.failures]
    return checked.inputs, run(h.provider.create(CreateRequest(URN, checked.inputs, 0, False)))


def test_the_schema_names_the_resource_and_its_inputs_and_outputs():
    resource = schema()["resources"][gcp.TYPE]
    assert set(resource["inputProperties"]) == {wire.camel(k) for k in gcp.INPUTS}
    assert set(resource["properties"]) == {wire.camel(k) for k in (*gcp.INPUTS, *gcp.OUTPUTS)}
    assert gcp.is_gcp(URN) and gcp.is_gcp("urn:pulumi:dev::p::my:Comp$hyperpod:index:GcpTrainingCluster::x")
    assert not gcp.is_gcp("urn:pulumi:dev::p::hyperpod:index:Cluster::c")


def test_create_update_refresh_import_and_delete_on_the_simulator(harness, world):
    inputs, created = _created(harness, {"spec_file": str(EXAMPLE)})
    assert "CreateModelDevelopmentCluster" in harness.said()  # check printed the create plan (offline)
    assert created.resource_id == NAME
    outputs = wire.bag_from_wire(created.properties)
    assert outputs["state"] == "RUNNING" and outputs["node_count"] == 3 and outputs["spec_file"] == str(EXAMPLE)
    assert outputs["backend"] == "fake"  # the provider config hyperpod:backend=fake

    spec = json.loads(EXAMPLE.read_text())
    spec["display_name"] = "renamed"
    news = _check(harness, inputs, {"spec": spec}).inputs
    diff = run(harness.provider.diff(DiffRequest(URN, NAME, created.properties, news, [])))
    assert diff.changes and not diff.replaces
    updated = run(harness.provider.update(UpdateRequest(URN, NAME, created.properties, news, 0, [], False)))
    assert wire.bag_from_wire(updated.properties)["state"] == "RUNNING"
    client = connect("fake", simulator=world, poll_seconds=0)
    assert observe(client, NAME).body["display_name"] == "renamed"

    refreshed = run(harness.provider.read(ReadRequest(URN, NAME, updated.properties, news)))
    assert refreshed.resource_id == NAME and wire.bag_from_wire(refreshed.properties)["node_count"] == 3
    imported = run(harness.provider.read(ReadRequest(URN, NAME, {}, {})))
    assert wire.bag_from_wire(imported.inputs)["spec"]["name"] == NAME
    assert wire.bag_from_wire(imported.inputs)["spec"]["display_name"] == "renamed"

    run(harness.provider.delete(DeleteRequest(URN, NAME, updated.properties, 0)))
    assert observe(client, NAME) is None
    assert run(harness.provider.read(ReadRequest(URN, NAME, updated.properties, news))).resource_id is None


def test_a_plan_its_preflight_refuses_is_an_error_naming_the_rule(harness, world):
    with world.world() as data:
        Compute(data.data).withdraw("us-central1-a", "a4-highgpu-8g")
    checked = _check(harness, {}, {"spec_file": str(EXAMPLE)})
    with pytest.raises(Exception, match="gcp-machine-type"):
        run(harness.provider.create(CreateRequest(URN, checked.inputs, 0, False)))
    assert observe(connect("fake", simulator=world, poll_seconds=0), NAME) is None


def test_an_unknown_input_and_a_bad_spec_are_check_failures(harness, world):
    failures = _check(harness, {}, {"spec_file": str(EXAMPLE), "colour": "blue"}).failures
    assert [f.property for f in failures] == ["colour"]
    spec = json.loads(EXAMPLE.read_text())
    spec["node_pools"][0]["scaling_spec"] = {"min_node_count": 3, "max_node_count": 1}
    failures = _check(harness, {}, {"spec": spec}).failures
    assert failures and all(f.property.startswith("spec") for f in failures)
