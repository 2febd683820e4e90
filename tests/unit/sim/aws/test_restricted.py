"""Restricted instance groups (RIG, the EKS groups Amazon Nova customization runs on) are planned
through the same rows as instance groups: the count planner, victims, guards, cost and quotas, and
the simulator creates, lists, scales and deletes them. The restricted-only spec is modelled on
awsome-distributed-training's `rig_custom.tfvars` (one p5 group, EBS 850 GB, FSx Lustre 4800 GiB at
250 MB/s/TiB)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from pulumi_hyperpod import ClusterSpec, Policy, apply, connect, observe, pipeline
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.plans import plan_text
from tests.support.paths import DATA

RIG_SPEC = DATA / "restricted-nova.json"
SHARED = {"FSxLustreDeletionPolicy": "Keep", "FSxLustreConfig": {"SizeInGiB": 1200, "PerUnitStorageThroughput": 125}}


def rig_request(**changes: Any) -> dict[str, Any]:
    request = json.loads(RIG_SPEC.read_text())
    request["RestrictedInstanceGroups"][0].update(changes)
    return request


def mixed_request(**changes: Any) -> dict[str, Any]:
    request = rig_request(**changes)
    request["InstanceGroups"] = [
        {
            "InstanceGroupName": "system",
            "InstanceType": "ml.m5.xlarge",
            "InstanceCount": 2,
            "ExecutionRole": request["RestrictedInstanceGroups"][0]["ExecutionRole"],
            "LifeCycleConfig": {"SourceS3Uri": "s3://amzn-s3-demo-bucket/lifecycle/", "OnCreate": "on_create.sh"},
        }
    ]
    return request


class World:
    def __init__(self) -> None:
        self.sim = Simulator(seed=5)
        self.sagemaker = connect("fake", simulator=self.sim, region="us-west-2")
        self.quotas = connect("fake", simulator=self.sim, service="service-quotas", region="us-west-2")

    def prepare(self, request: dict[str, Any], policy: Policy | None = None):
        return pipeline.prepare(self.sagemaker, ClusterSpec.from_dict(request), policy=policy, quotas=self.quotas, region="us-west-2")

    def apply(self, request: dict[str, Any], policy: Policy | None = None):
        prepared = self.prepare(request, policy)
        assert not prepared.plan.refused, prepared.plan.refusals
        result = apply(
            self.sagemaker,
            prepared.plan,
            policy=policy,
            wait="Target",
            timeout=6 * 3600,
            sleep=self.sim.advance,
            monotonic=lambda: self.sim.now().timestamp(),
        )
        assert result.outcome == "done", result
        return prepared.plan

    def calls(self, operation: str) -> list[dict]:
        return [request for op, request in self.sim.calls if op == operation]


@pytest.fixture
def world() -> World:
    return World()


def _update_steps(plan) -> list:
    return [s for s in plan.steps if s.operation == "UpdateCluster"]


def test_a_restricted_only_spec_plans_its_groups_applies_and_re_plans_empty(world):
    prepared = world.prepare(rig_request())
    plan = prepared.plan
    [create] = plan.steps
    assert "InstanceGroups" not in create.request  # the model's InstanceGroups has at least 1 entry
    assert create.request["RestrictedInstanceGroups"][0]["InstanceGroupName"] == "rig-1"
    assert "1 groups, 2 nodes" in create.reasons[0]
    [row] = plan.groups
    assert (row.group, row.action, row.target_after, row.restricted) == ("rig-1", "create", 2, True)
    assert [g.group for g in plan.cost.groups] == ["rig-1"] and plan.cost.group("rig-1").after_per_hour
    p5 = [c for c in plan.preflight.quotas.checks if c.instance_type == "ml.p5.48xlarge"]
    assert p5 and p5[0].after == 2 and p5[0].groups == ("rig-1",)
    text = plan_text(plan)
    assert "rig-1 (restricted)" in text

    world.apply(rig_request())
    described = world.sagemaker.describe_cluster(ClusterName="nova-rig")
    assert described["InstanceGroups"] == [] or "InstanceGroups" not in described
    [rig] = described["RestrictedInstanceGroups"]
    assert (rig["Status"], rig["CurrentCount"], rig["TargetCount"]) == ("InService", 2, 2)
    assert rig["EnvironmentConfig"]["FSxLustreConfig"] == {"SizeInGiB": 4800, "PerUnitStorageThroughput": 250}
    nodes = world.sagemaker.list_cluster_nodes(ClusterName="nova-rig")["ClusterNodeSummaries"]
    assert [(n["InstanceGroupName"], n["InstanceType"], n["InstanceStatus"]["Status"]) for n in nodes] == [
        ("rig-1", "ml.p5.48xlarge", "Running")
    ] * 2
    again = world.prepare(rig_request()).plan
    assert again.steps == () and again.empty, again.steps
    assert observe(world.sagemaker, "nova-rig").group("rig-1").restricted


def test_an_identical_mixed_spec_re_plans_empty_after_apply(world):
    world.apply(mixed_request())
    again = world.prepare(mixed_request()).plan
    assert again.steps == (), [s.reasons for s in again.steps]
    assert [(g.group, g.restricted) for g in again.groups] == [("system", False), ("rig-1", True)]


def test_a_restricted_group_grows_and_shrinks_through_the_count_planner(world):
    world.apply(rig_request())
    grow = world.apply(rig_request(InstanceCount=4))
    [update] = grow.steps
    assert update.operation == "UpdateCluster" and "InstanceGroups" not in update.request
    assert [(g["InstanceGroupName"], g["InstanceCount"]) for g in update.request["RestrictedInstanceGroups"]] == [("rig-1", 4)]
    assert world.sagemaker.describe_cluster(ClusterName="nova-rig")["RestrictedInstanceGroups"][0]["CurrentCount"] == 4

    shrink = world.apply(rig_request(InstanceCount=3), Policy(max_scale_in_fraction=0.5))
    [delete] = shrink.steps
    assert delete.operation == "BatchDeleteClusterNodes" and [v.group for v in delete.victims] == ["rig-1"]
    assert world.prepare(rig_request(InstanceCount=3)).plan.steps == ()
    assert world.sagemaker.describe_cluster(ClusterName="nova-rig")["RestrictedInstanceGroups"][0]["TargetCount"] == 3


def test_a_restricted_group_is_deleted_when_the_spec_leaves_it_out(world):
    world.apply(mixed_request())
    request = mixed_request()
    del request["RestrictedInstanceGroups"]
    plan = world.apply(request, Policy(max_scale_in_fraction=1.0))
    [update] = plan.steps
    assert update.request["InstanceGroupsToDelete"] == ["rig-1"]
    world.sim.advance(3600)
    assert not world.sagemaker.describe_cluster(ClusterName="nova-rig").get("RestrictedInstanceGroups")
    assert world.prepare(request).plan.steps == ()


@pytest.mark.parametrize("restricted", [True, False])
def test_instance_type_change_and_scale_in_to_0_are_refused_as_for_a_normal_group(world, restricted):
    world.apply(mixed_request())

    def changed(**changes: Any) -> dict[str, Any]:
        request = mixed_request()
        group = request["RestrictedInstanceGroups"][0] if restricted else request["InstanceGroups"][0]
        group.update(changes)
        return request

    name = "rig-1" if restricted else "system"
    new_type = world.prepare(changed(InstanceType="ml.p4d.24xlarge")).plan
    assert [(r.rule, r.group) for r in new_type.refusals] == [("immutable-group-field", name)] and new_type.steps == ()
    both = world.prepare(changed(InstanceType="ml.p4d.24xlarge", InstanceCount=0), Policy(max_scale_in_fraction=0.5)).plan
    assert both.refused and both.steps == ()
    assert "immutable-group-field" in {r.rule for r in both.refusals}
    to_zero = world.prepare(changed(InstanceCount=0), Policy(max_scale_in_fraction=0.5)).plan
    assert [(r.rule, r.group) for r in to_zero.refusals] == [("max-scale-in-fraction", name)] and to_zero.steps == ()


def test_a_restricted_groups_config_change_is_one_update_cluster(world):
    first = rig_request()
    first["RestrictedInstanceGroupsConfig"] = {"SharedEnvironmentConfig": copy.deepcopy(SHARED)}
    world.apply(first)
    assert world.prepare(first).plan.steps == ()
    described = world.sagemaker.describe_cluster(ClusterName="nova-rig")["RestrictedInstanceGroupsConfig"]
    assert described["SharedEnvironmentConfig"]["CurrentFSxLustreConfig"] == SHARED["FSxLustreConfig"]

    bigger = copy.deepcopy(first)
    bigger["RestrictedInstanceGroupsConfig"]["SharedEnvironmentConfig"]["FSxLustreConfig"]["SizeInGiB"] = 2400
    plan = world.apply(bigger)
    [update] = plan.steps
    assert update.operation == "UpdateCluster"
    assert update.request["RestrictedInstanceGroupsConfig"] == bigger["RestrictedInstanceGroupsConfig"]
    assert set(update.request) == {"ClusterName", "RestrictedInstanceGroupsConfig"}
    shared = world.sagemaker.describe_cluster(ClusterName="nova-rig")["RestrictedInstanceGroupsConfig"]["SharedEnvironmentConfig"]
    assert shared["DesiredFSxLustreConfig"]["SizeInGiB"] == 2400
    assert world.prepare(bigger).plan.steps == ()


def test_the_simulator_refuses_a_restricted_group_on_a_slurm_cluster(client):
    from botocore.exceptions import ClientError

    request = rig_request()
    request["Orchestrator"] = {"Slurm": {}}
    with pytest.raises(ClientError, match="RestrictedInstanceGroups"):
        client.create_cluster(**request)


def test_a_protected_restricted_node_is_never_a_victim(world):
    world.apply(rig_request())
    node = world.sagemaker.list_cluster_nodes(ClusterName="nova-rig")["ClusterNodeSummaries"][0]["InstanceId"]
    policy = Policy(protected_node_ids=frozenset({node}))
    shrink = world.prepare(rig_request(InstanceCount=1), policy).plan
    [delete] = shrink.steps
    assert [v.node_id for v in delete.victims] != [node] and len(delete.victims) == 1
    to_zero = world.prepare(rig_request(InstanceCount=0), policy).plan
    assert [r.rule for r in to_zero.refusals] == ["not-enough-removable"] and to_zero.steps == ()


def test_a_snapshot_of_a_restricted_cluster_plans_as_the_live_one(world):
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.aws.planner import plan

    world.apply(rig_request())
    live = observe(world.sagemaker, "nova-rig")
    saved = ClusterState.from_snapshot(json.loads(live.to_json()))  # the nodes' group is a restricted group
    assert [(g.name, g.restricted, g.target_count) for g in saved.groups] == [("rig-1", True, 2)]
    assert plan(ClusterSpec.from_dict(rig_request()), saved).steps == ()
    assert plan(ClusterSpec.from_dict(rig_request(InstanceCount=3)), saved).groups[0].action == "grow"


def test_hyperpod_list_counts_restricted_groups_and_their_nodes(world):
    from pulumi_hyperpod.cli.list_commands import aws_rows

    world.apply(rig_request())
    [row] = aws_rows(world.sagemaker)
    assert (row["groups"], row["nodes_current"], row["nodes_target"]) == (1, 2, 2)


def test_a_persistent_world_keeps_restricted_groups_and_stores_no_flag_for_the_others(tmp_path):
    import sqlite3

    path = tmp_path / "world.sqlite"
    sim = Simulator(path)
    client = connect("fake", simulator=sim, region="us-west-2")
    client.create_cluster(**mixed_request())
    sim.advance(3600)
    again = connect("fake", simulator=Simulator(path), region="us-west-2")
    described = again.describe_cluster(ClusterName="nova-rig")
    assert [g["InstanceGroupName"] for g in described["InstanceGroups"]] == ["system"]
    assert [g["InstanceGroupName"] for g in described["RestrictedInstanceGroups"]] == ["rig-1"]
    with sqlite3.connect(path) as db:
        stored = " ".join(str(row) for row in db.execute("SELECT * FROM clusters"))
    assert stored.count('"restricted"') == 1  # the restricted group's row only: an older version reads the others
