"""Issue 37 items 1, 5 and 6 on the simulator, through a real botocore client: what the member table's
sources decide is what a plan does and what the cluster then reports, and each plan, applied,
re-plans empty.

- item 1: AWS sets AutoPatchConfig's PatchSchedule.NextPatchDate when it detects a patch (read-only
  in the CloudFormation schema); the simulator fills it, and the planner neither diffs it nor drops it.
- item 5: an EKS cluster moves to NodeProvisioningMode Continuous with one UpdateCluster.
- item 6: ExecutionRole, ThreadsPerCore and OverrideVpcConfig change in place (the newest schema).
"""

from __future__ import annotations

from typing import Any

import pytest

from pulumi_hyperpod import ClusterSpec, apply, connect, observe
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.aws.planner import plan

EKS = "arn:aws:eks:us-west-2:111122223333:cluster/ml"
ROLE = "arn:aws:iam::111122223333:role/hyperpod"
LIFECYCLE = {"SourceS3Uri": "s3://amzn-s3-demo-bucket/lifecycle-scripts/src/", "OnCreate": "on_create.sh"}


def spec(continuous: bool = True, **group: Any) -> ClusterSpec:
    data: dict[str, Any] = {
        "ClusterName": "sources",
        "Orchestrator": {"Eks": {"ClusterArn": EKS}},
        "VpcConfig": {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-12345678"]},
        "InstanceGroups": [
            {
                "InstanceGroupName": "gpu",
                "InstanceType": "ml.g5.xlarge",
                "InstanceCount": 2,
                "LifeCycleConfig": dict(LIFECYCLE),
                "ExecutionRole": ROLE,
                **group,
            }
        ],
    }
    if continuous:
        data["NodeProvisioningMode"] = "Continuous"
    return ClusterSpec.from_dict(data)


@pytest.fixture
def world():
    simulator = Simulator(seed=3)
    return simulator, connect(backend="fake", simulator=simulator, region="us-west-2")


def converge(simulator, client, wanted: ClusterSpec):
    """Plan, apply, let the simulated hours pass, and the plan made again is empty; the first plan is returned."""
    first = plan(wanted, observe(client, "sources"))
    assert not first.refused, first.refusals
    apply(client, first, wait="none")
    simulator.advance(2 * 3600)
    again = plan(wanted, observe(client, "sources"))
    assert again.empty, [r for s in again.steps for r in s.reasons]
    return first


def gpu(client) -> dict:
    [group] = client.describe_cluster(ClusterName="sources")["InstanceGroups"]
    return group


@pytest.mark.parametrize("schedule", [None, {}], ids=["no PatchSchedule", "empty PatchSchedule"])
def test_the_next_patch_date_the_service_sets_converges(world, schedule):
    simulator, client = world
    patching = {"PatchingStrategy": "WhenIdle", **({"PatchSchedule": schedule} if schedule is not None else {})}
    wanted = spec(AutoPatchConfig=patching)
    converge(simulator, client, wanted)
    simulator.advance(3600)
    simulator.publish_image_release("2026.12.1")  # a patch the service detects: it sets the next patch date
    date = gpu(client)["AutoPatchConfig"]["DesiredPatchSchedule"]["NextPatchDate"]
    assert date is not None
    assert plan(wanted, observe(client, "sources")).empty  # the service's date is not the spec's to undo
    relabelled = spec(AutoPatchConfig=patching, LifeCycleConfig={**LIFECYCLE, "OnCreate": "on_create_v2.sh"})
    first = converge(simulator, client, relabelled)
    [entry] = first.steps[0].request["InstanceGroups"]
    assert entry["AutoPatchConfig"]["PatchSchedule"]["NextPatchDate"] == date  # kept in the entry, not dropped
    assert gpu(client)["AutoPatchConfig"]["DesiredPatchSchedule"]["NextPatchDate"] == date


def test_an_eks_cluster_moves_to_continuous_in_place(world):
    simulator, client = world
    converge(simulator, client, spec(continuous=False))
    moved = converge(simulator, client, spec(continuous=True))
    assert moved.action == "update" and [s.operation for s in moved.steps] == ["UpdateCluster"]
    assert moved.steps[0].request["NodeProvisioningMode"] == "Continuous"
    assert client.describe_cluster(ClusterName="sources")["NodeProvisioningMode"] == "Continuous"
    assert client.list_cluster_events(ClusterName="sources")["Events"] is not None  # a Continuous cluster's events


@pytest.mark.parametrize(
    "member, before, after",
    [
        ("ExecutionRole", ROLE, "arn:aws:iam::111122223333:role/hyperpod-v2"),
        ("ThreadsPerCore", 2, 1),
        (
            "OverrideVpcConfig",
            {"SecurityGroupIds": ["sg-1"], "Subnets": ["subnet-1"]},
            {"SecurityGroupIds": ["sg-2"], "Subnets": ["subnet-1"]},
        ),
    ],
)
def test_a_member_the_newest_schema_updates_in_place_changes_with_one_update_cluster(world, member, before, after):
    simulator, client = world
    converge(simulator, client, spec(**{member: before}))
    changed = converge(simulator, client, spec(**{member: after}))
    assert [s.operation for s in changed.steps] == ["UpdateCluster"]
    assert gpu(client)[member] == after
