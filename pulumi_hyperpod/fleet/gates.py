"""A wave's gates (docs/fleet.md): what `fleet apply` checks on the wave's clusters before the next
wave starts, read from the service with the project's own client and observer.

- `in_service`: every cluster is there and InService;
- `no_failed_nodes`: no node is Failure or NotFound (aws/observe's UNHEALTHY) or waiting for a
  replacement instance;
- `no_error_events_minutes: N`: ListClusterEvents reports no event of level Error in the last N
  minutes. The service keeps events of Continuous clusters only: another cluster's check is
  skipped, and says so;
- `health_check`: the deep health check `hyperpod health-check` runs (aws/apply/health.py:
  StartClusterHealthCheck on every Running node, followed to its end); it fails naming the nodes
  that did not pass and the check's word for each.

`policy` is checked before the wave starts, not after it (fleet/policy.py's `wave_gate`).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pulumi_hyperpod.fleet.spec import FleetStack, Gates

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"
Client = Any  # a botocore SageMaker client (aws/clients.py's SageMakerClient)


@dataclass(frozen=True)
class GateResult:
    gate: str  # the fleet file's name of the gate
    stack: str
    cluster: str
    outcome: str  # PASSED, FAILED or SKIPPED
    detail: str = ""  # what failed, or why it was skipped


def stack_client(stack: FleetStack) -> Client:
    """A SageMaker client acting as the stack does: its region, its endpoint ($AWS_ENDPOINT_URL of its
    env: the simulator's), its profile, and the access key its environment gives (on the simulator:
    the account's 12 digits, preview.stack_env)."""
    from pulumi_hyperpod.aws.client import connect  # noqa: PLC0415 - botocore only when a gate reads a cluster
    from pulumi_hyperpod.fleet.preview import stack_access_key, stack_env  # noqa: PLC0415 - preview loads the pool; gates are read after it

    env = stack_env(stack)
    return connect(
        backend="aws",
        region=stack.region,
        profile=env.get("AWS_PROFILE"),
        endpoint_url=env.get("AWS_ENDPOINT_URL") or None,
        access_key=stack_access_key(env),
    )


def check_gates(
    gates: Gates,
    targets: Sequence[tuple[FleetStack, str]],
    client_for: Callable[[FleetStack], Client] = stack_client,
    now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.timezone.utc),
    sleep: Callable[[float], Any] = time.sleep,
) -> list[GateResult]:
    """The gates over each (stack, cluster name) of a wave, in that order; one result per gate and cluster."""
    from pulumi_hyperpod.aws.observe import observe  # noqa: PLC0415 - the observer only when a gate reads a cluster

    results: list[GateResult] = []
    clients: dict[str, Client] = {}
    if not (gates.in_service or gates.no_failed_nodes or gates.no_error_events_minutes or gates.health_check):
        return results  # no gate reads a cluster (a wave may gate on its policy alone, before it starts)
    for stack, name in targets:
        if stack.name not in clients:  # one client per stack, made when its first cluster is read
            clients[stack.name] = client_for(stack)
        client = clients[stack.name]
        state = observe(client, name)

        def result(gate: str, outcome: str, detail: str = "", stack: FleetStack = stack, name: str = name) -> None:
            results.append(GateResult(gate, stack.name, name, outcome, detail))

        if state is None:
            result("in_service", FAILED, "the cluster is not there")
            continue
        if gates.in_service:
            if state.status == "InService":
                result("in_service", PASSED)
            else:
                result("in_service", FAILED, f"status {state.status}" + (f": {state.failure_message}" if state.failure_message else ""))
        if gates.no_failed_nodes:
            bad = [node for node in state.nodes if _failed(node.status, node.message)]
            result("no_failed_nodes", FAILED if bad else PASSED, "; ".join(_node(node) for node in bad))
        if gates.no_error_events_minutes:
            minutes = gates.no_error_events_minutes
            if not state.continuous:
                result("no_error_events_minutes", SKIPPED, "the service keeps events of Continuous clusters only")
            else:
                errors = error_events(client, name, now() - dt.timedelta(minutes=minutes))
                shown = "; ".join(f"{_time(e.get('EventTime'))} {e.get('Description') or e.get('EventId')}" for e in errors[:3])
                more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
                detail = f"{len(errors)} error event(s) in the last {minutes} min: {shown}{more}" if errors else ""
                result("no_error_events_minutes", FAILED if errors else PASSED, detail)
        if gates.health_check:
            outcome, detail = health(client, state, poll_seconds(stack), sleep=sleep)
            result("health_check", outcome, detail)
    return results


def poll_seconds(stack: FleetStack) -> float:
    """How often the health check polls: the simulator's short poll for a simulated stack, the service's otherwise."""
    from pulumi_hyperpod.aws.client import default_poll_seconds  # noqa: PLC0415 - with the health check

    return default_poll_seconds(stack.backend) or 30.0


def health(client: Client, state: Any, poll: float, timeout: float = 7200.0, sleep: Callable[[float], Any] = time.sleep) -> tuple[str, str]:
    """The deep health check of every Running node of the cluster (`hyperpod health-check NAME`'s
    default checks), followed to its end: PASSED, or FAILED naming the nodes that did not pass."""
    from pulumi_hyperpod.aws.apply.health import DEFAULT_CHECKS, HealthCheckError, configurations, run_health_check  # noqa: PLC0415 - with the gate

    try:
        configs = configurations(state, None, (), ())
    except HealthCheckError as error:
        return FAILED, str(error)
    done = run_health_check(client, state, configs, timeout=timeout, poll_seconds=poll, sleep=sleep)
    checks = "/".join(DEFAULT_CHECKS)
    if done.status == "InProgress":
        return FAILED, f"the deep health check ({checks}) did not finish in {timeout:g} s"
    if done.failed:
        shown = "; ".join(
            f"node {node} is {done.nodes[node]}" + (f": {done.messages[node]}" if node in done.messages else "") for node in done.failed[:5]
        )
        more = f" (and {len(done.failed) - 5} more)" if len(done.failed) > 5 else ""
        return FAILED, f"deep health check {checks} failed on {len(done.failed)} of {len(done.nodes)} node(s): {shown}{more}"
    return PASSED, f"{len(done.nodes)} node(s) passed {checks}"


def error_events(client: Client, name: str, since: dt.datetime) -> list[dict[str, Any]]:
    """Every event of level Error at or after `since`, oldest first (every page of ListClusterEvents)."""
    from pulumi_hyperpod.aws.observe.reader import largest_pages  # noqa: PLC0415 - with the observer

    pages = client.get_paginator("list_cluster_events").paginate(
        ClusterName=name, SortOrder="Ascending", EventTimeAfter=since, PaginationConfig=largest_pages("ListClusterEvents")
    )
    return [event for page in pages for event in page.get("Events") or () if event.get("EventLevel") == "Error"]


def _failed(status: str, message: str | None) -> bool:
    from pulumi_hyperpod.aws.observe.state import UNHEALTHY  # noqa: PLC0415 - with the observer

    return status in UNHEALTHY or (status == "Pending" and "replacement" in (message or "").lower())


def _node(node: Any) -> str:
    return f"node {node.key or '?'} ({node.group}) is {node.status}" + (f": {node.message}" if node.message else "")


def _time(value: Any) -> str:
    return value.isoformat() if hasattr(value, "isoformat") else str(value)
