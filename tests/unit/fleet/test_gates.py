"""A wave's gates (pulumi_hyperpod/fleet/gates.py) read from an in-process simulated world with the
project's observer: InService, failed nodes, error events of the last N minutes, the deep health check. A served world and the engine: tests/engine/test_fleet_apply.py."""

from __future__ import annotations

import datetime as dt

from pulumi_hyperpod import Simulator, connect
from pulumi_hyperpod.fleet.gates import FAILED, PASSED, SKIPPED, check_gates, stack_client
from pulumi_hyperpod.fleet.spec import FleetStack, Gates
from tests.support.sim_helpers import eks_request, group

STACK = FleetStack.model_validate({"name": "east", "project": "p", "stack": "east", "region": "us-west-2"})


def world(continuous=False):
    sim = Simulator(seed=3)
    client = connect(backend="fake", simulator=sim)
    if continuous:  # an EKS cluster in Continuous mode: the service keeps its events
        client.create_cluster(**eks_request("c", [group("workers", 2)]))
    else:
        client.create_cluster(ClusterName="c", InstanceGroups=[group("workers", 2)])
    sim.advance(3600)
    return sim, client


def outcomes(results):
    return [(r.gate, r.outcome) for r in results]


def test_a_healthy_cluster_passes_and_a_failed_node_fails_naming_it():
    sim, client = world()
    gates = Gates(in_service=True, no_failed_nodes=True)
    assert outcomes(check_gates(gates, [(STACK, "c")], lambda stack: client)) == [("in_service", PASSED), ("no_failed_nodes", PASSED)]
    node = client.list_cluster_nodes(ClusterName="c")["ClusterNodeSummaries"][0]["InstanceId"]
    sim.fail_node("c", node, retryable=False)
    results = check_gates(gates, [(STACK, "c")], lambda stack: client)
    assert outcomes(results) == [("in_service", PASSED), ("no_failed_nodes", FAILED)]
    assert results[1].stack == "east" and results[1].cluster == "c"
    assert results[1].detail.startswith(f"node {node} (workers) is Failure: ")


def test_a_missing_cluster_fails_in_service():
    _, client = world()
    (result,) = check_gates(Gates(), [(STACK, "nowhere")], lambda stack: client)
    assert (result.gate, result.outcome, result.detail) == ("in_service", FAILED, "the cluster is not there")


def test_error_events_of_the_last_minutes_fail_older_ones_do_not():
    sim, client = world(continuous=True)
    gates = Gates(in_service=False, no_failed_nodes=False, no_error_events_minutes=10)
    assert outcomes(check_gates(gates, [(STACK, "c")], lambda stack: client, now=sim.now)) == [("no_error_events_minutes", PASSED)]
    node = client.list_cluster_nodes(ClusterName="c")["ClusterNodeSummaries"][0]["InstanceId"]
    sim.fail_node("c", node, retryable=False)
    (result,) = check_gates(gates, [(STACK, "c")], lambda stack: client, now=sim.now)
    assert result.outcome == FAILED and result.detail.startswith("1 error event(s) in the last 10 min: ")
    later = lambda: sim.now() + dt.timedelta(minutes=11)  # the clock 11 minutes on
    assert outcomes(check_gates(gates, [(STACK, "c")], lambda stack: client, now=later)) == [("no_error_events_minutes", PASSED)]


def test_a_wave_with_no_gate_reading_its_clusters_reads_none():
    def no_client(stack):
        raise AssertionError("no cluster is read")

    assert check_gates(Gates(in_service=False, no_failed_nodes=False), [(STACK, "c")], no_client) == []


def test_the_events_gate_is_skipped_where_the_service_keeps_no_events():
    _, client = world()
    (result,) = check_gates(Gates(in_service=False, no_failed_nodes=False, no_error_events_minutes=5), [(STACK, "c")], lambda s: client)
    assert result.outcome == SKIPPED and "Continuous" in result.detail


def test_the_health_check_gate_runs_the_deep_health_check_and_names_the_failing_nodes():
    sim, client = world()
    gates = Gates(in_service=False, no_failed_nodes=False, health_check=True)
    tick = lambda seconds: sim.advance(900)  # the check's polls move the world's clock on
    (result,) = check_gates(gates, [(STACK, "c")], lambda stack: client, sleep=tick)
    assert (result.gate, result.outcome, result.detail) == ("health_check", PASSED, "2 node(s) passed InstanceStress/InstanceConnectivity")
    sim.set_fault_rate("deep_health_check_failure_rate", 1.0)  # the scenario's fault: every check from now on fails
    (result,) = check_gates(gates, [(STACK, "c")], lambda stack: client, sleep=tick)
    nodes = sorted(n["InstanceId"] for n in client.list_cluster_nodes(ClusterName="c")["ClusterNodeSummaries"])
    assert (result.gate, result.outcome, result.cluster) == ("health_check", FAILED, "c")
    assert result.detail.startswith("deep health check InstanceStress/InstanceConnectivity failed on 2 of 2 node(s): ")
    assert all(node in result.detail for node in nodes)


def test_the_health_check_gate_fails_a_cluster_with_no_running_node():
    _, client = world()
    for node in client.list_cluster_nodes(ClusterName="c")["ClusterNodeSummaries"]:
        client.batch_delete_cluster_nodes(ClusterName="c", NodeIds=[node["InstanceId"]])
    (result,) = check_gates(Gates(in_service=False, no_failed_nodes=False, health_check=True), [(STACK, "c")], lambda stack: client)
    assert result.outcome == FAILED and "no Running node to check" in result.detail


def test_the_stacks_client_acts_as_its_account_at_its_endpoint():
    stack = FleetStack.model_validate(
        {
            "name": "e",
            "project": "p",
            "stack": "e",
            "region": "eu-west-1",
            "account": "111122223333",
            "backend": "fake",
            "env": {"AWS_ENDPOINT_URL": "http://127.0.0.1:9"},
        }
    )
    client = stack_client(stack)
    assert client.meta.region_name == "eu-west-1" and client.meta.endpoint_url == "http://127.0.0.1:9"
