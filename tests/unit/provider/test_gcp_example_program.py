"""examples/gcp-training-cluster under Pulumi's mocks: the program declares one GcpTrainingCluster
whose inputs the real provider `check` accepts (offline backend by default), and the stack config
reaches the spec."""

from __future__ import annotations

import runpy

import pulumi
import pytest
from pulumi.runtime.mocks import MockMonitor

from pulumi_hyperpod.provider.gcp import GcpClusterProvider

from tests.support.gcp import EXAMPLE

GCP_TYPE = "pulumi-python:dynamic/hyperpod:GcpTrainingCluster"


class Mocks(pulumi.runtime.Mocks):
    def __init__(self) -> None:
        self.checks = []

    def new_resource(self, args):
        if args.typ == GCP_TYPE:
            result = GcpClusterProvider().check({}, dict(args.inputs))
            self.checks.append(result)
            return "llmtrain", {**result.inputs, "state": "RUNNING"}
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args):
        return {}, None


@pytest.mark.parametrize("config, a4_count, preempt", [({}, 2, "REQUEUE"), ({"a4Nodes": "4", "preemptMode": "CANCEL"}, 4, "CANCEL")])
def test_example_declares_a_valid_cluster(monkeypatch, config, a4_count, preempt):
    mocks = Mocks()
    monitor = MockMonitor(mocks)
    pulumi.runtime.set_mocks(mocks, project="gcp-training-cluster", stack="dev", preview=False, monitor=monitor)
    pulumi.runtime.set_all_config({f"gcp-training-cluster:{k}": v for k, v in config.items()}, [])
    monkeypatch.chdir(EXAMPLE.parent)

    @pulumi.runtime.test
    def program():
        runpy.run_path(str(EXAMPLE.parent / "__main__.py"), run_name="__main__")

    try:
        program()
    finally:
        pulumi.runtime.set_all_config({}, [])
    (result,) = mocks.checks
    assert not result.failures, [(f.property, f.reason) for f in result.failures]
    assert result.inputs["backend"] == "fake"
    spec = result.inputs["spec"]
    a4 = next(p for p in spec["node_pools"] if p["id"] == "a4")
    assert a4["scaling_spec"] == {"min_node_count": a4_count, "max_node_count": a4_count}
    assert spec["orchestratorSpec"]["slurmSpec"]["config"]["PreemptMode"] == preempt


def test_check_names_the_bad_field():
    provider = GcpClusterProvider()
    import json

    spec = json.loads(EXAMPLE.read_text())
    spec["node_pools"][1]["scaling_spec"]["min_node_count"] = 3
    result = provider.check({}, {"spec": spec, "backend": "fake", "policy": {}})
    assert [(f.property, "is above" in f.reason) for f in result.failures] == [("spec.node_pools[1].scaling_spec.min_node_count", True)]


def test_a_failed_create_leaves_no_cluster(tmp_path, monkeypatch):
    """The provider's create on a world without enough A4 capacity: the error names it, and the
    cluster the failed create left in ERROR is deleted (a create leaves a working cluster or none)."""
    import json

    from pulumi_hyperpod.gcp.client import connect
    from pulumi_hyperpod.sim.gcp import GcpSimulator
    from pulumi_hyperpod.gcp.observe import observe
    from pulumi_hyperpod.provider.gcp import ProviderError

    from tests.support.gcp import NAME

    world = tmp_path / "gcp.sqlite"
    GcpSimulator(world, capacity={"a4-highgpu-8g": 1})  # creates the world with its capacity
    monkeypatch.setenv("HYPERPOD_GCP_FAKE_STATE", str(world))
    monkeypatch.setenv("HYPERPOD_POLL_SECONDS", "0.001")
    inputs = {"spec": json.loads(EXAMPLE.read_text()), "backend": "fake", "policy": {}, "timeout": 600, "wait": True}
    with pytest.raises(ProviderError, match="RESOURCE_EXHAUSTED"):
        GcpClusterProvider().create(inputs)
    assert observe(connect("fake", simulator=GcpSimulator(world), poll_seconds=0), NAME) is None


@pytest.mark.parametrize("setting, value", [("backend", "aws"), ("policy", {"max_scale_in_fraction": 2}), ("timeout", "soon")])
def test_check_names_the_bad_setting(setting, value):
    import json

    inputs = {"spec": json.loads(EXAMPLE.read_text()), "backend": "fake", "policy": {}, setting: value}
    result = GcpClusterProvider().check({}, inputs)
    assert [f.property for f in result.failures] == [setting]


def test_a_refused_replacement_names_the_field_path_both_values_and_the_config_knob():
    """Issue 31: the failure is on `spec.network.network` (Pulumi then prints the path, not the
    whole spec), shows both values whole and suggests the example's own knob."""
    import json

    provider = GcpClusterProvider()
    old = json.loads(EXAMPLE.read_text())
    new = json.loads(EXAMPLE.read_text())
    new["network"]["network"] = "projects/my-project/global/networks/other-training-network"
    result = provider.check({"spec": old, "backend": "fake", "policy": {}}, {"spec": new, "backend": "fake", "policy": {}})
    [failure] = result.failures
    assert failure.property == "spec.network.network"
    assert (
        "projects/my-project/global/networks/training-net → projects/my-project/global/networks/other-training-network"
    ) in failure.reason
    assert "pulumi config set allowReplacement true" in failure.reason
    assert len(failure.reason) < 600
    allowed = provider.check(
        {"spec": old, "backend": "fake", "policy": {}}, {"spec": new, "backend": "fake", "policy": {"allow_replacement": True}}
    )
    assert allowed.failures == []


def test_a_pool_machine_change_is_a_replacement_refused_in_check_naming_the_field():
    import json

    provider = GcpClusterProvider()
    old = json.loads(EXAMPLE.read_text())
    new = json.loads(EXAMPLE.read_text())
    new["node_pools"][0]["machine_spec"]["machine_type"] = "n2-standard-16"
    [failure] = provider.check({"spec": old, "backend": "fake", "policy": {}}, {"spec": new, "backend": "fake", "policy": {}}).failures
    assert failure.property == "spec.node_pools[login].machine_spec.machine_type"
    assert "give the pool a new id" in failure.reason and "allow_replacement" in failure.reason
