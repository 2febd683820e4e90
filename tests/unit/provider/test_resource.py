"""The Cluster resource in a program: its type token, and the spec it sends (spec, file, fields)."""

from __future__ import annotations

import json

import pulumi
from pulumi.runtime.mocks import MockMonitor

from pulumi_hyperpod.provider import Cluster, ClusterArgs

from tests.support.provider_specs import slurm_spec


class Recorder(pulumi.runtime.Mocks):
    def __init__(self):
        self.resources = []

    def new_resource(self, args):
        self.resources.append(args)
        return "arn:aws:sagemaker:us-west-2:123456789012:cluster/abcdef123456", {**args.inputs, "status": "InService"}

    def call(self, args):
        return {}, None


def run(program) -> Recorder:
    recorder = Recorder()
    pulumi.runtime.set_mocks(recorder, project="demo", stack="test", preview=False, monitor=MockMonitor(recorder))

    @pulumi.runtime.test
    def wrapped():
        return program().status

    wrapped()
    return recorder


def test_type_token_and_provider_property():
    recorder = run(lambda: Cluster("demo", spec=slurm_spec(), backend="fake"))
    (resource,) = recorder.resources
    assert resource.typ == "pulumi-python:dynamic/hyperpod:Cluster"
    assert resource.inputs["__provider"]  # the pickled provider travels with the inputs
    assert resource.inputs["backend"] == "fake"


def test_spec_file_then_snake_case_fields_win(tmp_path):
    path = tmp_path / "create_cluster.json"
    path.write_text(json.dumps(slurm_spec(workers=16)))
    override = slurm_spec(workers=4)["InstanceGroups"]
    recorder = run(
        lambda: Cluster(
            "demo",
            ClusterArgs(spec_file=str(path), node_recovery="Automatic"),
            instance_groups=override,
            tags={"team": "ml"},
            policy={"protected_node_ids": ["i-2", "i-1"]},
        )
    )
    (resource,) = recorder.resources
    spec = resource.inputs["spec"]
    assert spec["ClusterName"] == "demo-cluster" and spec["NodeProvisioningMode"] == "Continuous"
    assert spec["InstanceGroups"][1]["InstanceCount"] == 4
    assert spec["NodeRecovery"] == "Automatic"
    assert spec["Tags"] == [{"Key": "team", "Value": "ml"}]
    assert resource.inputs["policy"] == {"protected_node_ids": ["i-2", "i-1"]}


def test_unknown_arguments_are_a_type_error():
    import pytest

    with pytest.raises(TypeError, match="instance_group"):
        Cluster("demo", instance_group=[])


def test_the_snake_case_fields_name_createcluster_members():
    """The program spells the fields it is given without loading the model; the model decides."""
    from pulumi_hyperpod.aws import servicemodel
    from pulumi_hyperpod.provider.resource import SPEC_MEMBERS

    members = servicemodel.input_shape("CreateCluster").members
    for name, member in SPEC_MEMBERS.items():
        assert member in members and servicemodel.fold(name) == servicemodel.fold(member), name


def test_a_later_source_replaces_every_spelling_of_a_field_and_check_spells_the_rest(tmp_path):
    from pulumi_hyperpod.provider.resource import build_spec
    from pulumi_hyperpod.provider.props import canonical_spec

    spec = {**slurm_spec(), "cluster_name": "from-spec"}
    del spec["ClusterName"]
    merged = build_spec(ClusterArgs(spec=spec, cluster_name="from-field"))
    assert merged["ClusterName"] == "from-field" and "cluster_name" not in merged
    without_vpc = {k: v for k, v in slurm_spec().items() if k != "VpcConfig"}
    nested = build_spec(ClusterArgs(spec={**without_vpc, "vpc_config": {"subnets": ["subnet-1"], "security_group_ids": ["sg-1"]}}))
    canonical, failures = canonical_spec(nested)
    assert failures == [] and canonical["VpcConfig"] == {"Subnets": ["subnet-1"], "SecurityGroupIds": ["sg-1"]}
    twice = build_spec(ClusterArgs(spec={**slurm_spec(), "cluster_name": "other"}))  # one source, two spellings
    _, failures = canonical_spec(twice)
    assert any("given twice" in reason for _, reason in failures), failures


def test_a_policy_instance_is_stored_as_its_fields():
    """A Policy (not its dict) given to the resource: the fields that differ from the defaults,
    as check stores them (the module looked up by its path after the move to plans/)."""
    from pulumi_hyperpod.plans.policy import Policy

    recorder = run(
        lambda: Cluster("demo", spec=slurm_spec(), policy=Policy(protected_node_ids={"i-0bbbbbbbbbbbbbbbb", "i-0aaaaaaaaaaaaaaaa"}))
    )
    (resource,) = recorder.resources
    assert resource.inputs["policy"] == {"protected_node_ids": ["i-0aaaaaaaaaaaaaaaa", "i-0bbbbbbbbbbbbbbbb"]}
