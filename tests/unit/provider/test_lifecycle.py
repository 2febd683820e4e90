"""create → scale out → scale in → delete, and adopt, against the in-memory simulator."""

from __future__ import annotations

import json

import pytest

from pulumi_hyperpod import connect, observe
from pulumi_hyperpod.provider import ProviderError

from tests.support.provider_specs import slurm_spec
from tests.support.provider_specs import mutations, props


def operations(sim) -> list[str]:
    return [operation for operation, _ in sim.calls]


def test_create_waits_for_in_service_and_reports_counts_not_nodes(engine, sim):
    arn, outputs = engine.create(props(slurm_spec(workers=2)))

    assert arn == outputs["arn"] and arn.startswith("arn:aws:sagemaker:us-west-2:")
    assert outputs["status"] == "InService"
    assert outputs["groups"]["controller"]["target_count"] == 1
    assert outputs["groups"]["workers"]["target_count"] == 2
    assert outputs["location"] == {"backend": "fake", "region": "us-west-2"}
    assert [op for op, _ in mutations(sim)] == ["CreateCluster"]
    # the state carries counts per group, never a node list
    assert "i-" not in json.dumps(outputs)
    # the inputs the next diff needs are in the outputs
    assert outputs["spec"]["InstanceGroups"][1]["InstanceCount"] == 2 and outputs["wait"] == "InService"


def test_scale_out_is_an_in_place_update_shown_in_the_preview(engine, sim, capsys):
    arn, outputs = engine.create(props(slurm_spec(workers=1)))
    capsys.readouterr()

    diff = engine.diff(arn, outputs, props(slurm_spec(workers=3)))
    assert diff.changes is True and diff.replaces == []
    preview = capsys.readouterr().err
    assert "grow" in preview and "1 → 3" in preview

    before = len(mutations(sim))
    outputs = engine.update(arn, outputs, props(slurm_spec(workers=3), wait="Target"))
    assert outputs["groups"]["workers"]["target_count"] == 3
    assert outputs["groups"]["workers"]["current_count"] == 3
    # Continuous mode: one BatchAddClusterNodes (+2), no UpdateCluster needed
    assert [(op, request.get("NodesToAdd")) for op, request in mutations(sim)[before:]] == [
        ("BatchAddClusterNodes", [{"InstanceGroupName": "workers", "IncrementTargetCountBy": 2}])
    ]


def test_scale_in_names_the_nodes_it_removes(engine, sim, capsys):
    arn, outputs = engine.create(props(slurm_spec(workers=3), wait="Target"))
    capsys.readouterr()
    client = connect("fake", simulator=sim)
    workers = [n.instance_id for n in observe(client, "demo-cluster").nodes_of("workers")]

    engine.diff(arn, outputs, props(slurm_spec(workers=1)))
    preview = capsys.readouterr().err
    assert "Nodes that would be removed" in preview
    named = [node for node in workers if node in preview]
    assert len(named) == 2  # the preview names exactly the two victims

    outputs = engine.update(arn, outputs, props(slurm_spec(workers=1), wait="Target"))
    op, request = mutations(sim)[-1]
    assert op == "BatchDeleteClusterNodes"
    assert sorted(request["NodeIds"]) == sorted(named)
    assert outputs["groups"]["workers"]["target_count"] == 1


def test_a_refused_plan_fails_the_update_with_the_reasons(engine, sim):
    arn, outputs = engine.create(props(slurm_spec(workers=4), wait="Target"))
    mutated = len(mutations(sim))
    with pytest.raises(ProviderError, match="max_scale_in_fraction"):
        engine.update(arn, outputs, props(slurm_spec(workers=1), policy={"max_scale_in_fraction": 0.5}))
    assert len(mutations(sim)) == mutated  # nothing was called


def test_delete_waits_until_the_cluster_is_gone(engine, sim):
    arn, outputs = engine.create(props(slurm_spec()))
    engine.delete(arn, outputs)
    assert observe(connect("fake", simulator=sim), "demo-cluster") is None
    assert "DeleteCluster" in operations(sim)
    engine.delete(arn, outputs)  # already gone: nothing to do, no error


def test_create_refuses_an_existing_cluster_unless_adopt(engine, sim):
    client = connect("fake", simulator=sim)
    existing = client.create_cluster(**{**slurm_spec(workers=2), "ClusterName": "demo-cluster"})["ClusterArn"]
    sim.advance(3600)

    with pytest.raises(ProviderError, match="adopt=True"):
        engine.create(props(slurm_spec(workers=3)))

    calls = len(mutations(sim))
    arn, outputs = engine.create(props(slurm_spec(workers=3), adopt=True, wait="Target"))
    assert arn == existing
    assert "CreateCluster" not in [op for op, _ in mutations(sim)[calls:]]
    assert outputs["groups"]["workers"]["target_count"] == 3


def test_waiting_on_capacity_returns_with_the_status_instead_of_hanging(simulator_name):
    """Continuous mode, no capacity for the workers: create returns at the provider's timeout."""
    from pulumi_hyperpod.sim.aws import Simulator
    from pulumi_hyperpod.provider import ClusterProvider, register_simulator, unregister_simulator

    from tests.support.provider_specs import Engine

    world = Simulator(seed=3, scenario={"capacity": [{"instance_type": "ml.g5.xlarge", "available": 0}]})
    register_simulator(simulator_name, world)
    try:
        engine = Engine(ClusterProvider(simulator=simulator_name))
        _arn, outputs = engine.create(props(slurm_spec(workers=2), wait="Target", timeout=900))
        assert outputs["status"] == "InService"  # the controller is up; workers are pending
        assert outputs["groups"]["workers"]["current_count"] == 0
        assert outputs["pending_count"] == 2
    finally:
        unregister_simulator(simulator_name)


def test_scale_out_in_and_out_again(engine, sim):
    arn, outputs = engine.create(props(slurm_spec(workers=1), wait="Target"))
    outputs = engine.update(arn, outputs, props(slurm_spec(workers=3), wait="Target"))
    outputs = engine.update(arn, outputs, props(slurm_spec(workers=1), wait="Target"))
    sim.advance(600)
    outputs = engine.update(arn, outputs, props(slurm_spec(workers=3), wait="Target"))
    assert outputs["groups"]["workers"]["target_count"] == 3


def test_an_update_that_did_not_take_is_an_error_not_a_success(engine, sim):
    """Whatever the cause, the provider never records a spec the cluster is not in."""
    arn, outputs = engine.create(props(slurm_spec(workers=1), wait="Target"))
    outputs = engine.update(arn, outputs, props(slurm_spec(workers=3), wait="Target"))
    outputs = engine.update(arn, outputs, props(slurm_spec(workers=1), wait="Target"))
    sim.advance(600)
    try:
        outputs = engine.update(arn, outputs, props(slurm_spec(workers=3), wait="Target"))
    except ProviderError as error:
        assert "does not match the spec after the update" in str(error)
    else:
        assert outputs["groups"]["workers"]["target_count"] == 3


def test_a_secret_in_the_spec_keeps_the_whole_spec_secret(engine, sim):
    from pulumi.runtime import rpc

    spec = slurm_spec()
    spec["Tags"] = [{"Key": "cost-center", "Value": rpc.wrap_rpc_secret("cc-4711")}]
    inputs = engine.checked(props(spec))
    assert rpc.is_rpc_secret(inputs["spec"])

    arn, outputs = engine.create(props(spec))
    assert rpc.is_rpc_secret(outputs["spec"]) and outputs["status"] == "InService"
    assert engine.diff(arn, outputs, props(spec)).changes is False
    _, refreshed, refreshed_inputs = engine.read(arn, outputs)
    assert rpc.is_rpc_secret(refreshed["spec"]) and rpc.is_rpc_secret(refreshed_inputs["spec"])
