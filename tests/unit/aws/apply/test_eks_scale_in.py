"""An EKS group with a PodDisruptionBudget on the simulator: the eviction is refused (429) and waited
on, never forced; at the deadline apply stops naming the node. Pods the budget allows to move are
evicted, replaced on a schedulable node, and the node is deleted."""

from __future__ import annotations

import pytest

from pulumi_hyperpod import pipeline
from pulumi_hyperpod.aws.apply.drain import DrainTimedOut
from pulumi_hyperpod.plans import Policy, plan_text
from pulumi_hyperpod.sim.workload.hyperpod import add_pdb, kube_state, run_pods, workload_source

from tests.support.workload_clusters import eks_request, running_cluster, scaled, workers


@pytest.fixture()
def serving():
    """3 workers: a database pod under a budget allowing no disruption on the first, two web pods on the second."""
    request = eks_request("serve", 3)
    sim, client = running_cluster(request)
    nodes = workers(client, "serve")
    run_pods(sim, "serve", nodes[0]["InstanceId"], owner_kind="StatefulSet", owner_name="db", labels={"app": "db"})
    add_pdb(sim, "serve", "db-pdb", {"app": "db"}, min_available=1)
    run_pods(sim, "serve", nodes[1]["InstanceId"], owner_name="web", count=2)
    return sim, client, request, nodes


def test_the_view_lists_pods_by_owner_without_daemonsets_and_with_their_budgets(serving) -> None:
    sim, client, _request, nodes = serving
    view = workload_source(sim, "serve").read(pipeline.observe(client, "serve"))
    db, web, idle = (view.node(n["InstanceId"]) for n in nodes)
    assert db.name == f"hyperpod-{nodes[0]['InstanceId']}" and db.health == "Schedulable"
    assert [(p.owner_kind, p.owner_name, p.budgets, p.blocked_by) for p in db.pods] == [("StatefulSet", "db", ("db-pdb",), ("db-pdb",))]
    assert web.describe() == "2 pods of deployment web"  # the ReplicaSet's Deployment, not the ReplicaSet
    assert idle.idle  # HyperPod's health-monitoring-agent DaemonSet pod runs there too, and is not counted


def test_the_budget_protected_node_is_chosen_last_and_the_reason_says_so(serving) -> None:
    sim, client, request, nodes = serving
    prepared = pipeline.prepare(client, scaled(request, 0), workload=workload_source(sim, "serve"), skip_preflight="test")
    victims = prepared.plan.victims
    assert [v.node_id for v in victims] == [nodes[2]["InstanceId"], nodes[1]["InstanceId"], nodes[0]["InstanceId"]]
    assert victims[0].reason.startswith("idle: ")
    assert (
        victims[2].reason == "1 pod of statefulset db; protected by PodDisruptionBudget db-pdb (no disruption allowed now): "
        "chosen last: a drain waits until the budget allows the eviction"
    )


def test_web_pods_are_evicted_and_rescheduled_then_the_node_is_deleted(serving) -> None:
    sim, client, request, nodes = serving
    source = workload_source(sim, "serve")
    policy = Policy(drain="drain", drain_timeout=600, remove_first=frozenset({nodes[1]["InstanceId"]}))
    prepared = pipeline.prepare(client, scaled(request, 2), policy=policy, workload=source, skip_preflight="test")
    assert [v.node_id for v in prepared.plan.victims] == [nodes[1]["InstanceId"]]
    result = pipeline.execute(client, prepared.plan, policy=policy, workload=source, poll_seconds=10, sleep=sim.advance)
    assert result.ok, result.failures
    with kube_state(sim, "serve") as kube:
        web = [p for p in kube.data["pods"] if p["owner_name"] == "web"]
    # replaced by the ReplicaSet on the nodes left (the scheduler spreads them), Running
    assert len(web) == 2 and all(p["phase"] == "Running" for p in web)
    assert {p["node"] for p in web} <= {f"hyperpod-{nodes[0]['InstanceId']}", f"hyperpod-{nodes[2]['InstanceId']}"}


def test_the_eviction_waits_on_the_budget_and_at_the_deadline_apply_stops_naming_the_node(serving) -> None:
    sim, client, request, nodes = serving
    source = workload_source(sim, "serve")
    db_node = nodes[0]["InstanceId"]
    policy = Policy(drain="drain", drain_timeout=900, remove_first=frozenset({db_node}))
    prepared = pipeline.prepare(client, scaled(request, 2), policy=policy, workload=source, skip_preflight="test")
    drain = prepared.plan.steps[0]
    assert drain.operation == "DrainNodes" and drain.request["ExpectedWaitSeconds"] is None
    assert drain.reasons[1].endswith("the eviction waits for the budget, up to the deadline; expected wait up to the deadline")
    assert "DrainNodes" in plan_text(prepared.plan, width=300)
    with pytest.raises(DrainTimedOut) as stopped:
        pipeline.execute(client, prepared.plan, policy=policy, workload=source, poll_seconds=60, sleep=sim.advance)
    message = str(stopped.value)
    assert stopped.value.nodes == [f"hyperpod-{db_node}"] and f"hyperpod-{db_node}" in message
    assert "Cannot evict pod as it would violate the pod's disruption budget." in message
    assert "nothing was deleted" in message
    assert all(n["InstanceStatus"]["Status"] == "Running" for n in workers(client, "serve"))
    view = source.read(pipeline.observe(client, "serve"))
    assert view.node(db_node).drained and view.node(db_node).pods  # cordoned, its pod never forced out


def test_with_drain_deadline_delete_the_node_goes_anyway(serving) -> None:
    sim, client, request, nodes = serving
    source = workload_source(sim, "serve")
    db_node = nodes[0]["InstanceId"]
    policy = Policy(drain="drain", drain_timeout=300, drain_deadline="delete", remove_first=frozenset({db_node}))
    prepared = pipeline.prepare(client, scaled(request, 2), policy=policy, workload=source, skip_preflight="test")
    result = pipeline.execute(client, prepared.plan, policy=policy, workload=source, poll_seconds=60, sleep=sim.advance)
    assert any("deleting anyway" in m for m in result.messages)
    assert db_node not in {n["InstanceId"] for n in workers(client, "serve") if n["InstanceStatus"]["Status"] == "Running"}
