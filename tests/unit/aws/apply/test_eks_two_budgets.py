"""Issue 36, item 14: a pod that more than one PodDisruptionBudget selects is never evicted — the
Eviction API answers 500 ("This pod has more than one PodDisruptionBudget, which the eviction
subresource does not support"), whatever each budget allows. The plan says so (not "evicted,
expected wait ≈ 0 s"), ranks its node last, and apply waits on it as on any refusal, never forced."""

from __future__ import annotations

import pytest

from pulumi_hyperpod import pipeline
from pulumi_hyperpod.aws.apply.drain import DrainTimedOut
from pulumi_hyperpod.plans import Policy
from pulumi_hyperpod.sim.workload.hyperpod import add_pdb, kube_state, run_pods, workload_source

from tests.support.workload_clusters import eks_request, running_cluster, scaled, workers


@pytest.fixture()
def doubly_budgeted():
    """3 workers: on the first, a web pod two budgets select, each allowing a disruption; the others idle."""
    request = eks_request("two", 3)
    sim, client = running_cluster(request)
    nodes = workers(client, "two")
    run_pods(sim, "two", nodes[0]["InstanceId"], owner_name="web", labels={"app": "web", "tier": "front"})
    add_pdb(sim, "two", "web-pdb", {"app": "web"}, max_unavailable=1)
    add_pdb(sim, "two", "front-pdb", {"tier": "front"}, max_unavailable=1)
    return sim, client, request, nodes


def test_the_kube_fake_answers_the_eviction_as_the_api_server_does(doubly_budgeted) -> None:
    sim, _client, _request, _nodes = doubly_budgeted
    with kube_state(sim, "two") as kube:
        pod = next(p for p in kube.data["pods"] if p["owner_name"] == "web")
        status, body = kube.evict(pod["namespace"], pod["name"])
    assert status == 500 and body["reason"] == "InternalError"
    assert body["message"] == "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."


def test_the_plan_says_the_eviction_api_refuses_it_and_chooses_it_last(doubly_budgeted) -> None:
    sim, client, request, nodes = doubly_budgeted
    source = workload_source(sim, "two")
    view = source.read(pipeline.observe(client, "two"))
    [pod] = view.node(nodes[0]["InstanceId"]).pods
    assert pod.budgets == ("front-pdb", "web-pdb") and pod.over_budgeted and pod.blocked_by == ("front-pdb", "web-pdb")
    prepared = pipeline.prepare(client, scaled(request, 0), workload=source, skip_preflight="test")
    assert [v.node_id for v in prepared.plan.victims][-1] == nodes[0]["InstanceId"]
    policy = Policy(drain="drain", drain_timeout=600, remove_first=frozenset({nodes[0]["InstanceId"]}))
    drain = pipeline.prepare(client, scaled(request, 2), policy=policy, workload=source, skip_preflight="test").plan.steps[0]
    assert drain.operation == "DrainNodes" and drain.request["ExpectedWaitSeconds"] is None
    reason = drain.reasons[1]
    assert "more than one PodDisruptionBudget (front-pdb, web-pdb): the Eviction API refuses to evict it" in reason, reason
    assert "≈ 0 s" not in reason and reason.endswith("expected wait up to the deadline"), reason


def test_apply_waits_on_the_refusal_and_stops_at_the_deadline_nothing_deleted(doubly_budgeted) -> None:
    sim, client, request, nodes = doubly_budgeted
    source = workload_source(sim, "two")
    node = nodes[0]["InstanceId"]
    policy = Policy(drain="drain", drain_timeout=300, remove_first=frozenset({node}))
    prepared = pipeline.prepare(client, scaled(request, 2), policy=policy, workload=source, skip_preflight="test")
    with pytest.raises(DrainTimedOut) as stopped:
        pipeline.execute(client, prepared.plan, policy=policy, workload=source, poll_seconds=60, sleep=sim.advance)
    assert "This pod has more than one PodDisruptionBudget" in str(stopped.value) and "nothing was deleted" in str(stopped.value)
    assert all(n["InstanceStatus"]["Status"] == "Running" for n in workers(client, "two"))
