"""Per-node requests that contradict each other are refused before any call, with one line naming the
node and both requests (issue 36, item 14): `--reboot X --replace X`, by the same id or by a node's
instance id and its logical id; a node a scale-in removes is never also rebooted or replaced; a node
named twice in one request is named once. And a rollout's RollbackMaximumBatchSize is held to
policy.max_unavailable_fraction as its MaximumBatchSize is."""

from __future__ import annotations

import dataclasses

import pytest

from pulumi_hyperpod import Policy
from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.aws.apply import guards
from pulumi_hyperpod.aws.planner import plan
from tests.support.factories import node_id, observed_from, slurm_spec

from tests.support.lifecycle_eks import NEW, _prepare, _up, eks


@pytest.fixture
def world():
    sim = Simulator(seed=11)
    return sim, connect(backend="fake", simulator=sim, region="us-west-2")


def _rules(the_plan) -> list[str]:
    return [r.rule for r in the_plan.refusals]


def test_rebooting_and_replacing_one_node_is_refused_naming_both():
    observed = observed_from(slurm_spec(workers=4))
    node = observed.node(node_id(2, 1))
    for reboot, replace in ((node.instance_id, node.instance_id), (node.logical_id, node.instance_id), (node.instance_id, node.logical_id)):
        refused = plan(slurm_spec(workers=4), observed, Policy(reboot_node_ids={reboot}, replace_node_ids={replace}))
        assert _rules(refused) == ["conflicting-node-requests"] and refused.steps == ()
        [reason] = [r.reason for r in refused.refusals]
        assert f"--reboot {reboot}" in reason and f"--replace {replace}" in reason and "\n" not in reason


def test_a_node_named_twice_by_its_two_ids_is_rebooted_once():
    observed = observed_from(slurm_spec(workers=4))
    node = observed.node(node_id(2, 1))
    [step] = plan(slurm_spec(workers=4), observed, Policy(reboot_node_ids={node.instance_id, node.logical_id})).steps
    assert step.request["NodeIds"] == [node.instance_id] and step.batches == ((node.instance_id,),)


def test_a_failed_node_asked_to_be_rebooted_is_not_also_replaced_by_the_failed_nodes_rule():
    observed = observed_from(slurm_spec(workers=4), statuses={node_id(2, 1): "Failure"})
    the_plan = plan(slurm_spec(workers=4), observed, Policy(failed_nodes="replace", reboot_node_ids={node_id(2, 1)}))
    assert [s.operation for s in the_plan.steps] == ["BatchRebootClusterNodes"] and not the_plan.refused


def test_a_node_a_scale_in_removes_is_never_rebooted_or_replaced():
    observed = observed_from(slurm_spec(workers=4))
    newest = node_id(2, 3)  # the one a scale-in by one would take
    for policy in (Policy(reboot_node_ids={newest}), Policy(replace_node_ids={newest})):
        the_plan = plan(slurm_spec(workers=3), observed, policy)
        assert not the_plan.refused and newest not in {v.node_id for v in the_plan.victims}
    removed_first = plan(slurm_spec(workers=3), observed, Policy(remove_first={newest}, reboot_node_ids={newest}))
    assert _rules(removed_first) == ["conflicting-node-requests"] and "remove_first" in removed_first.refusals[0].reason


def test_a_group_deleted_in_the_plan_takes_no_repair_of_its_nodes():
    extra = [
        {
            "InstanceGroupName": "old",
            "InstanceType": "ml.p5.48xlarge",
            "InstanceCount": 2,
            "ExecutionRole": "arn:aws:iam::111122223333:role/r",
            "LifeCycleConfig": {"SourceS3Uri": "s3://b/l/", "OnCreate": "on_create.sh"},
            "SlurmConfig": {"NodeType": "Compute"},
        }
    ]
    observed = observed_from(slurm_spec(workers=2, extra_groups=extra))
    doomed = observed.nodes_of("old")[0].instance_id
    refused = plan(slurm_spec(workers=2), observed, Policy(reboot_node_ids={doomed}))
    assert _rules(refused) == ["conflicting-node-requests"] and "old" in refused.refusals[0].reason


def test_a_hand_made_plan_repairing_a_node_it_removes_is_refused_by_the_apply_guard():
    observed = observed_from(slurm_spec(workers=4))
    removal = plan(slurm_spec(workers=3), observed)
    reboot = plan(slurm_spec(workers=4), observed, Policy(reboot_node_ids={removal.victims[0].node_id}))
    both = dataclasses.replace(removal, steps=removal.steps + reboot.steps)
    refusals = guards.plan_refusals(both, Policy())
    assert any(removal.victims[0].node_id in r.reason and "more than one step" in r.reason for r in refusals), refusals


# ---- RollbackMaximumBatchSize ---------------------------------------------------------------------------
def _deployment(rollback: int) -> dict:
    return {
        "RollingUpdatePolicy": {
            "MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 2},
            "RollbackMaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": rollback},
        }
    }


def test_a_rollback_batch_larger_than_the_allowed_share_is_refused(world):
    _up(world, eks())  # 8 nodes
    refused = _prepare(world, eks(image=NEW), Policy(software_deployment=_deployment(8), max_unavailable_fraction=0.25)).plan
    assert _rules(refused) == ["max-unavailable-fraction"] and "RollbackMaximumBatchSize" in refused.refusals[0].reason
    percent = {
        "RollingUpdatePolicy": {
            **_deployment(2)["RollingUpdatePolicy"],
            "RollbackMaximumBatchSize": {"Type": "CAPACITY_PERCENTAGE", "Value": 50},
        }
    }
    assert _rules(_prepare(world, eks(image=NEW), Policy(software_deployment=percent, max_unavailable_fraction=0.25)).plan) == [
        "max-unavailable-fraction"
    ]
    allowed = _prepare(world, eks(image=NEW), Policy(software_deployment=_deployment(2), max_unavailable_fraction=0.25)).plan
    assert [s.operation for s in allowed.steps] == ["UpdateClusterSoftware"]


def test_cli_reboot_and_replace_of_one_node_exits_2_with_one_line_and_calls_nothing(tmp_path, monkeypatch):
    import json

    from tests.support.cli import SPECS, hyperpod, use_fake_world

    use_fake_world(monkeypatch, tmp_path)
    spec = str(SPECS / "slurm-rollout.json")
    hyperpod("apply", "-f", spec, "--yes", "--wait", "Target", "--timeout", "120")
    worker = next(n["instance_id"] for n in json.loads(hyperpod("nodes", "slurm-rollout", "--json")) if n["group"] == "workers")
    out = hyperpod("plan", "-f", spec, "--reboot", worker, "--replace", worker, code=2)
    [line] = [line for line in out.splitlines() if "REFUSED [conflicting-node-requests]" in line]
    assert f"--reboot {worker} and --replace {worker} name the same node" in line
    assert "API calls" not in out


def test_a_rollout_with_a_scale_in_does_not_roll_the_nodes_the_scale_in_removes():
    from pulumi_hyperpod import ClusterSpec

    def imaged(image: str, count: int) -> ClusterSpec:
        api = slurm_spec(workers=4).to_api()
        for group in api["InstanceGroups"]:
            if group["InstanceGroupName"] == "worker-gpu-a":
                group.update(ImageId=image, InstanceCount=count)
        return ClusterSpec.from_dict(api)

    made = plan(imaged(NEW, 3), observed_from(imaged("ami-0123456789abcdef0", 4)))
    [removal, rollout] = made.steps
    gone = {v.node_id for v in removal.victims}
    assert rollout.kind == "update-software" and gone and not gone & {key for batch in rollout.batches for key in batch}
    assert guards.plan_refusals(made, Policy()) == []
