"""apply() against botocore's Stubber: every request is checked against the service model."""

from __future__ import annotations

import pytest
from botocore.stub import ANY

from pulumi_hyperpod import apply
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.aws.apply import ConcurrentChange, PlanRefused, client_token
from pulumi_hyperpod.aws.planner.basis import Expectation

from tests.support.factories import observed_from, node_id, slurm_spec
from tests.support.stubbed_apply import LISTING, describe, nodes, observes


def token(p, attempt=0):
    return client_token(p, p.steps[0], Expectation.from_basis(p.basis), attempt)


def test_scale_out_sends_one_batch_add_with_a_client_token(stubbed):
    client, stubber = stubbed
    before, after = observed_from(slurm_spec(workers=2)), observed_from(slurm_spec(workers=5))
    p = plan(slurm_spec(workers=5), before)
    observes(stubber, before, 2)  # the plan is still fresh; nobody moved the cluster right before the call
    stubber.add_response(
        "batch_add_cluster_nodes",
        {
            "Successful": [
                {"NodeLogicalId": f"worker-gpu-a-n{i}", "InstanceGroupName": "worker-gpu-a", "Status": "Pending"} for i in range(3)
            ],
            "Failed": [],
        },
        {
            "ClusterName": "my-training-cluster",
            "ClientToken": token(p),
            "NodesToAdd": [{"InstanceGroupName": "worker-gpu-a", "IncrementTargetCountBy": 3}],
        },
    )
    for _ in range(2):  # apply checks the target moved, then observes the result
        stubber.add_response("describe_cluster", describe(after), {"ClusterName": "my-training-cluster"})
        stubber.add_response("list_cluster_nodes", nodes(after), LISTING)
    result = apply(client, p, wait="none")
    assert result.calls == ["BatchAddClusterNodes"] and result.ok
    assert result.state.group("worker-gpu-a").target_count == 5


def test_an_add_answered_from_the_idempotency_cache_is_asked_again(stubbed):
    client, stubber = stubbed
    before, after = observed_from(slurm_spec(workers=1)), observed_from(slurm_spec(workers=3))
    p = plan(slurm_spec(workers=3), before)
    replay = {"Successful": [{"NodeLogicalId": "worker-gpu-a-old", "InstanceGroupName": "worker-gpu-a", "Status": "Pending"}], "Failed": []}
    observes(stubber, before, 2)  # fresh; unmoved right before the call
    stubber.add_response(
        "batch_add_cluster_nodes", replay, {"ClusterName": "my-training-cluster", "ClientToken": token(p, 0), "NodesToAdd": ANY}
    )
    observes(stubber, before, 2)  # the target did not move; nobody else moved it either
    stubber.add_response(
        "batch_add_cluster_nodes", replay, {"ClusterName": "my-training-cluster", "ClientToken": token(p, 1), "NodesToAdd": ANY}
    )
    for _ in range(2):
        stubber.add_response("describe_cluster", describe(after), {"ClusterName": "my-training-cluster"})
        stubber.add_response("list_cluster_nodes", nodes(after), LISTING)
    result = apply(client, p, wait="none")
    assert result.calls == ["BatchAddClusterNodes", "BatchAddClusterNodes"] and result.ok
    assert any("same token" in m for m in result.messages)
    assert result.state.group("worker-gpu-a").target_count == 3


def test_victim_that_changed_state_is_chosen_again(stubbed):
    client, stubber = stubbed
    before = observed_from(slurm_spec(workers=3))
    p = plan(slurm_spec(workers=2), before)
    assert [v.node_id for v in p.victims] == [node_id(2, 2)]
    # by the time apply runs, node 0 has failed: it is the better victim now, and node 2 is kept
    # only if it is unchanged — it is, so it stays the victim; node 1 failing changes nothing.
    moved = observed_from(slurm_spec(workers=3), statuses={node_id(2, 2): "Failure"})
    stubber.add_response("describe_cluster", describe(moved), {"ClusterName": "my-training-cluster"})
    stubber.add_response("list_cluster_nodes", nodes(moved), LISTING)
    stubber.add_response("describe_cluster", describe(moved), {"ClusterName": "my-training-cluster"})  # the counts, read again
    stubber.add_response(
        "batch_delete_cluster_nodes", {"Successful": [node_id(2, 2)]}, {"ClusterName": "my-training-cluster", "NodeIds": [node_id(2, 2)]}
    )
    stubber.add_response("describe_cluster", describe(observed_from(slurm_spec(workers=2))), {"ClusterName": "my-training-cluster"})
    stubber.add_response(
        "list_cluster_nodes",
        nodes(observed_from(slurm_spec(workers=2))),
        LISTING,
    )
    result = apply(client, p, wait="none", check_fresh=False)  # (fresh, it would be refused: the victim changed)
    assert any("choosing again" in m for m in result.messages)
    assert result.calls == ["BatchDeleteClusterNodes"]


def test_victim_gone_before_the_delete_is_not_replaced_when_the_target_already_dropped(stubbed):
    client, stubber = stubbed
    p = plan(slurm_spec(workers=2), observed_from(slurm_spec(workers=3)))
    gone = observed_from(slurm_spec(workers=2))  # someone else already removed a node: target is 2
    observes(stubber, gone)
    with pytest.raises(ConcurrentChange, match="worker-gpu-a: TargetCount 3 → 2") as stopped:
        apply(client, p, wait="none", check_fresh=False)
    assert stopped.value.done == []  # nothing deleted blindly


def test_partial_delete_failures_are_reported(stubbed):
    client, stubber = stubbed
    before = observed_from(slurm_spec(workers=3))
    p = plan(slurm_spec(workers=1), before)
    observes(stubber, before, 2)  # fresh; then the check before the delete
    stubber.add_response("describe_cluster", describe(before), {"ClusterName": "my-training-cluster"})  # the counts, read again
    stubber.add_response(
        "batch_delete_cluster_nodes",
        {"Successful": [node_id(2, 2)], "Failed": [{"Code": "NodeIdInUse", "Message": "node is running a job", "NodeId": node_id(2, 1)}]},
        {"ClusterName": "my-training-cluster", "NodeIds": ANY},
    )
    after = observed_from(slurm_spec(workers=2))  # one node went: TargetCount 2, nobody else moved it
    observes(stubber, after, 2)  # a named node was refused: checked again for another writer; then the end
    result = apply(client, p, wait="none")
    assert not result.ok
    assert result.failures == [f"BatchDeleteClusterNodes {node_id(2, 1)}: NodeIdInUse (node is running a job)"]


def test_conflict_waits_for_in_service_then_retries(stubbed):
    client, stubber = stubbed
    legacy_before, legacy_after = (
        observed_from(slurm_spec(workers=1, continuous=False)),
        observed_from(slurm_spec(workers=3, continuous=False)),
    )
    p = plan(slurm_spec(workers=3, continuous=False), legacy_before)
    observes(stubber, legacy_before)  # unmoved right before the call
    stubber.add_client_error("update_cluster", "ConflictException", "cluster is Updating", expected_params=p.steps[0].request)
    stubber.add_response(
        "describe_cluster", {**describe(legacy_before), "ClusterStatus": "Updating"}, {"ClusterName": "my-training-cluster"}
    )
    stubber.add_response("describe_cluster", describe(legacy_before), {"ClusterName": "my-training-cluster"})
    observes(stubber, legacy_before)  # nobody else moved it while it was busy
    stubber.add_response("update_cluster", {"ClusterArn": legacy_before.arn}, p.steps[0].request)
    stubber.add_response("describe_cluster", describe(legacy_after), {"ClusterName": "my-training-cluster"})
    stubber.add_response("list_cluster_nodes", nodes(legacy_after), LISTING)
    slept = []
    result = apply(client, p, wait="none", poll_seconds=30, sleep=slept.append, check_fresh=False)
    assert result.calls == ["UpdateCluster"] and slept == [30]


def test_wait_policy_times_out_with_the_status_instead_of_hanging(stubbed):
    client, stubber = stubbed
    state = observed_from(slurm_spec(workers=4), counts={"worker-gpu-a": 1}, pending={"worker-gpu-a": 3})
    p = plan(slurm_spec(workers=5), observed_from(slurm_spec(workers=4)))
    observes(stubber, state)  # unmoved right before the call (the same targets; nodes still coming)
    stubber.add_response(
        "batch_add_cluster_nodes",
        {"Successful": [], "Failed": []},
        {"ClusterName": "my-training-cluster", "ClientToken": ANY, "NodesToAdd": ANY},
    )
    for _ in range(4):  # polls at 0, 30 and 60 s, then the final observation
        stubber.add_response("describe_cluster", describe(state), {"ClusterName": "my-training-cluster"})
    stubber.add_response("list_cluster_nodes", nodes(state), LISTING)
    clock = [0.0]
    result = apply(
        client,
        p,
        wait="Target",
        timeout=60,
        poll_seconds=30,
        sleep=lambda s: clock.__setitem__(0, clock[0] + s),
        monotonic=lambda: clock[0],
        check_fresh=False,
    )
    assert result.outcome == "waiting"


def test_refused_plan_makes_no_call(stubbed):
    client, _ = stubbed
    from pulumi_hyperpod import Policy

    p = plan(slurm_spec(workers=1), observed_from(slurm_spec(workers=10)), Policy(max_scale_in_fraction=0.5))
    with pytest.raises(PlanRefused, match="max_scale_in_fraction"):
        apply(client, p)
