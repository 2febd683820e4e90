"""A wave's gates (pulumi_hyperpod/fleet/gates.py) read from an in-process simulated world with the
project's observer: InService, failed nodes, error events of the last N minutes; the gates not
checkable yet refused. A served world and the engine: tests/engine/test_fleet_apply.py."""

from __future__ import annotations

import datetime as dt

from pulumi_hyperpod import Simulator, connect
from pulumi_hyperpod.fleet.gates import FAILED, PASSED, SKIPPED, check_gates, stack_client, unsupported
from pulumi_hyperpod.fleet.spec import FleetStack, Gates, parse_fleet
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


def test_the_events_gate_is_skipped_where_the_service_keeps_no_events():
    _, client = world()
    (result,) = check_gates(Gates(in_service=False, no_failed_nodes=False, no_error_events_minutes=5), [(STACK, "c")], lambda s: client)
    assert result.outcome == SKIPPED and "Continuous" in result.detail


def test_health_check_and_policy_gates_are_refused_naming_the_field():
    fleet = parse_fleet(
        {
            "stacks": [{"name": n, "project": "p", "stack": n, "region": "us-west-2"} for n in "ab"],
            "waves": [
                {"name": "one", "stacks": ["a"]},
                {"name": "two", "stacks": ["b"], "gates": {"health_check": True, "policy": "p.yaml"}},
            ],
        },
        "f",
    )
    assert [(v.path, v.rule) for v in unsupported(fleet)] == [
        ("waves[1].gates.health_check", "is not checked by fleet apply yet"),
        ("waves[1].gates.policy", "is not checked by fleet apply yet"),
    ]


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
