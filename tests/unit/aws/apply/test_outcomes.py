"""Issue 36, item 8: `outcome` is `done` only when every step's effect was observed (plans/steps.py's
completion of its kind); a step the service refused per item makes it `partial` or `failed`."""

from __future__ import annotations

import json

import pytest
from botocore.stub import ANY
from click.testing import CliRunner

from pulumi_hyperpod import apply
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.cli import main
from pulumi_hyperpod.core.contract import OUTCOMES, settled_outcome
from pulumi_hyperpod.plans import Policy, steps
from tests.support.cli import SPECS, hyperpod, seed004_world

from tests.support.factories import node_id, observed_from, slurm_spec
from tests.support.stubbed_apply import describe, observes

CLUSTER = {"ClusterName": "my-training-cluster"}


def test_every_completion_an_aws_kind_declares_has_a_check():
    from pulumi_hyperpod.aws.apply.completion import CHECKS

    aws_kinds = set(steps.KINDS)
    # operation-done: Google Cloud's; resource-status: task governance's apply waits on it (aws/governance/apply.py)
    assert {steps.declaration(k).completion for k in aws_kinds} - {"operation-done", "resource-status"} <= set(CHECKS)


def test_the_outcomes_are_documented_values():
    assert {"partial", "failed"} <= set(OUTCOMES)
    assert settled_outcome("done", 0, True) == "done"
    assert settled_outcome("done", 1, True) == "partial"
    assert settled_outcome("started", 1, False) == "failed"
    assert settled_outcome("timeout", 1, False) == "timeout"  # the wait's verdict says more


def test_a_delete_refused_for_every_node_is_failed_not_done(stubbed):
    client, stubber = stubbed
    before = observed_from(slurm_spec(workers=2))
    p = plan(slurm_spec(workers=1), before)
    [victim] = p.victims
    observes(stubber, before, 2)
    stubber.add_response("describe_cluster", describe(before), CLUSTER)
    refused = {"Code": "InvalidNodeStatus", "Message": "instance group is Updating", "NodeId": victim.node_id}
    stubber.add_response("batch_delete_cluster_nodes", {"Failed": [refused]}, {**CLUSTER, "NodeIds": [victim.node_id]})
    observes(stubber, before, 2)  # checked again for another writer; then the end: the count did not move
    result = apply(client, p, wait="none")
    assert result.outcome == "failed" and not result.ok
    assert result.failures == [f"BatchDeleteClusterNodes {victim.node_id}: InvalidNodeStatus (instance group is Updating)"]


def test_a_delete_refused_for_some_nodes_is_partial(stubbed):
    client, stubber = stubbed
    before = observed_from(slurm_spec(workers=3))
    p = plan(slurm_spec(workers=1), before)
    observes(stubber, before, 2)
    stubber.add_response("describe_cluster", describe(before), CLUSTER)
    stubber.add_response(
        "batch_delete_cluster_nodes",
        {"Successful": [node_id(2, 2)], "Failed": [{"Code": "NodeIdInUse", "Message": "busy", "NodeId": node_id(2, 1)}]},
        {**CLUSTER, "NodeIds": ANY},
    )
    observes(stubber, observed_from(slurm_spec(workers=2)), 2)
    result = apply(client, p, wait="none")
    assert result.outcome == "partial"


def test_an_add_the_service_refused_is_failed(stubbed):
    client, stubber = stubbed
    before = observed_from(slurm_spec(workers=2))
    p = plan(slurm_spec(workers=5), before)
    observes(stubber, before, 2)
    failed = {"InstanceGroupName": "worker-gpu-a", "ErrorCode": "IncompatibleInstanceTypes", "FailedCount": 3, "Message": "no"}
    stubber.add_response(
        "batch_add_cluster_nodes", {"Successful": [], "Failed": [failed]}, {**CLUSTER, "ClientToken": ANY, "NodesToAdd": ANY}
    )
    observes(stubber, before)  # the end: TargetCount still 2
    result = apply(client, p, wait="none")
    assert result.outcome == "failed", result.failures
    assert any("IncompatibleInstanceTypes" in f for f in result.failures)


@pytest.mark.parametrize("operation", ["batch_reboot_cluster_nodes", "batch_replace_cluster_nodes"])
def test_a_repair_refused_per_node_is_failed(stubbed, operation):
    client, stubber = stubbed
    before = observed_from(slurm_spec(workers=2))
    worker = node_id(2, 1)
    policy = Policy(**{("reboot_node_ids" if "reboot" in operation else "replace_node_ids"): frozenset({worker})})
    p = plan(slurm_spec(workers=2), before, policy=policy)
    [_step] = p.steps
    observes(stubber, before, 2)  # fresh; then the nodes re-read before the call
    stubber.add_response(operation, {"Failed": [{"NodeId": worker, "ErrorCode": "InternalServerError", "Message": "no"}]}, None)
    observes(stubber, before)
    result = apply(client, p, policy=policy, wait="none", roles={"controller-machine": "Controller", "worker-gpu-a": "Compute"})
    assert result.outcome == "failed", (result.failures, result.messages)


def test_a_count_the_service_did_not_keep_is_not_done(stubbed):
    """An all-or-nothing UpdateCluster rolled back: the waiter sees InService at the old counts."""
    client, stubber = stubbed
    before = observed_from(slurm_spec(workers=1, continuous=False))
    p = plan(slurm_spec(workers=3, continuous=False), before)
    observes(stubber, before)  # unmoved right before the call
    stubber.add_response("update_cluster", {"ClusterArn": before.arn}, p.steps[0].request)
    observes(stubber, before)  # the end: still one worker
    result = apply(client, p, wait="none", check_fresh=False)
    assert result.outcome == "failed"
    assert any("TargetCount is 1, the plan asked for 3" in f for f in result.failures)


def test_the_cli_says_failed_in_json_and_exits_1(monkeypatch, tmp_path):
    """`hyperpod apply --json` of a scale-in whose every node the service refused, the count unmoved."""
    from pulumi_hyperpod.sim.aws import node_operations

    seed004_world(monkeypatch, tmp_path)
    hyperpod("apply", "-f", str(SPECS / "seed004-scale-out.json"), "--yes", "--wait", "Target", "--timeout", "600")
    monkeypatch.setattr(node_operations, "_refusal", lambda cluster, node, wanted: ("InvalidNodeStatus", f"Node {wanted} is busy."))
    result = CliRunner().invoke(
        main, ["--backend", "fake", "apply", "-f", str(SPECS / "seed004-scale-in.json"), "--yes", "--json", "--timeout", "60"]
    )
    assert result.exit_code == 1, result.output
    document = json.loads(result.stdout)
    assert document["result"]["outcome"] == "failed"
    assert document["result"]["failures"] and all("InvalidNodeStatus" in f for f in document["result"]["failures"])
