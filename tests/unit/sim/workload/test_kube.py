"""The Kubernetes simulator, driven through the real `kubernetes` client, keeps the documented
semantics the drain relies on: evictions a PodDisruptionBudget forbids are 429 and change nothing,
evicted pods go after their grace period and their controller replaces them, cordon is a patch."""

from __future__ import annotations

import json

import pytest
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from pulumi_hyperpod.sim.workload.kube import GRACE_SECONDS, KubeWorld

NODES = {
    "hyperpod-i-0123456789abcdef0": {"sagemaker.amazonaws.com/node-health-status": "Schedulable"},
    "hyperpod-i-0123456789abcdef1": {"sagemaker.amazonaws.com/node-health-status": "Schedulable"},
}
A, B = sorted(NODES)


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def kube():
    clock = Clock()
    world = KubeWorld(NODES, clock)
    return world, clock, client.CoreV1Api(world.api_client()), client.PolicyV1Api(world.api_client())


def _evict(core, namespace: str, name: str) -> int:
    body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": namespace}}
    try:
        return core.create_namespaced_pod_eviction(name=name, namespace=namespace, body=body, _preload_content=False).status
    except ApiException as error:
        return error.status


def _pods(core, node: str | None = None) -> list[dict]:
    selector = f"spec.nodeName={node}" if node else None
    raw = core.list_pod_for_all_namespaces(field_selector=selector, _preload_content=False)
    return json.loads(raw.data)["items"]


def test_an_eviction_the_budget_forbids_is_429_with_kubernetes_message_and_changes_nothing(kube) -> None:
    world, _clock, core, policy = kube
    state = world.state()
    state.add_pod(A, "default", "StatefulSet", "db", labels={"app": "db"})
    state.add_pdb("default", "db-pdb", {"app": "db"}, min_available=1)
    name = world.data["pods"][0]["name"]
    with pytest.raises(ApiException) as refused:
        core.create_namespaced_pod_eviction(name=name, namespace="default", body={"metadata": {"name": name}}, _preload_content=False)
    body = json.loads(refused.value.body)
    assert refused.value.status == 429 and body["reason"] == "TooManyRequests"
    assert body["message"] == "Cannot evict pod as it would violate the pod's disruption budget."
    assert body["details"]["causes"][0]["reason"] == "DisruptionBudget"
    assert not any(p["metadata"].get("deletionTimestamp") for p in _pods(core, A))
    budget = json.loads(policy.list_pod_disruption_budget_for_all_namespaces(_preload_content=False).data)["items"][0]
    assert budget["status"] == {"currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1, "disruptionsAllowed": 0}


def test_max_unavailable_as_a_percentage_allows_one_of_two_and_the_replacement_restores_the_budget(kube) -> None:
    world, clock, core, _policy = kube
    state = world.state()
    for _ in range(2):
        state.add_pod(A, "default", "Deployment", "web")
    state.add_pdb("default", "web-pdb", {"app": "web"}, max_unavailable="50%")
    first, second = (p["name"] for p in world.data["pods"][:2])
    assert _evict(core, "default", first) == 201
    assert _evict(core, "default", second) == 429  # one already disrupted; its replacement not Ready yet
    clock.now += 11  # the replacement (scheduled on the other node) is Ready 10 s later
    assert _evict(core, "default", second) == 201
    clock.now += GRACE_SECONDS
    on_a = [p for p in _pods(core, A) if p["metadata"]["ownerReferences"][0]["kind"] != "DaemonSet"]
    assert on_a == []  # both gone after their grace period
    web_on_b = [p for p in _pods(core, B) if p["metadata"]["labels"].get("app") == "web"]
    assert len(web_on_b) == 2 and all(p["metadata"]["ownerReferences"][0]["kind"] == "ReplicaSet" for p in web_on_b)


def test_a_cordoned_node_gets_no_replacement_and_an_evicted_pod_shows_terminating_first(kube) -> None:
    world, _clock, core, _policy = kube
    world.state().add_pod(A, "default", "Deployment", "web")
    core.patch_node(name=B, body={"spec": {"unschedulable": True}}, _content_type="application/merge-patch+json")
    name = world.data["pods"][0]["name"]
    assert _evict(core, "default", name) == 201
    evicted = next(p for p in _pods(core) if p["metadata"]["name"] == name)
    assert evicted["metadata"]["deletionTimestamp"]
    pending = [p for p in _pods(core) if p["status"]["phase"] == "Pending"]
    assert len(pending) == 1 and pending[0]["spec"]["nodeName"] is None
    node = json.loads(core.read_node(name=B, _preload_content=False).data)
    assert node["spec"]["unschedulable"] is True


def test_a_pod_with_two_budgets_cannot_be_evicted_and_a_missing_pod_is_404(kube) -> None:
    world, _clock, core, _policy = kube
    state = world.state()
    state.add_pod(A, "default", "Deployment", "web")
    state.add_pdb("default", "one", {"app": "web"}, max_unavailable=1)
    state.add_pdb("default", "two", {"app": "web"}, max_unavailable=1)
    assert _evict(core, "default", world.data["pods"][0]["name"]) == 500
    assert _evict(core, "default", "nope") == 404


def test_field_selectors_filter_pods_and_an_unknown_one_is_400(kube) -> None:
    world, clock, core, _policy = kube
    world.state().add_pod(A, "default", "Job", "train", deadline_seconds=60)
    assert len(_pods(core, A)) == 2  # the Job's pod and the health-monitoring-agent DaemonSet pod
    clock.now += 61
    running = core.list_pod_for_all_namespaces(field_selector=f"spec.nodeName={A},status.phase!=Failed", _preload_content=False)
    assert [p["metadata"]["ownerReferences"][0]["kind"] for p in json.loads(running.data)["items"]] == ["DaemonSet"]
    with pytest.raises(ApiException) as bad:
        core.list_pod_for_all_namespaces(field_selector="spec.schedulerName=x", _preload_content=False)
    assert bad.value.status == 400
