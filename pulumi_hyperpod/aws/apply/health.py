"""Deep health checks on demand: StartClusterHealthCheck, followed to the end through the service's own
record of it (ListClusterOperations → DescribeClusterOperation until it is no longer InProgress), then
each checked node's status read back (a node that failed is in Failure; the service reboots or replaces
it). Where the account's API has no operations list, the nodes themselves are followed until none is
DeepHealthCheckInProgress."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from botocore.exceptions import ClientError

from pulumi_hyperpod.aws.observe import ClusterState, observe

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.clients import SageMakerClient

DEFAULT_CHECKS = ("InstanceStress", "InstanceConnectivity")


class HealthCheckError(Exception):
    """The request cannot be made as asked (checked before any call): one line naming what is wrong."""


@dataclass
class HealthCheckResult:
    operation_id: str | None
    status: str  # Done | Superseded | InProgress (the deadline passed)
    nodes: dict[str, str] = field(default_factory=dict)  # instance id → status after the check
    messages: dict[str, str] = field(default_factory=dict)  # instance id → the service's message, when it gave one

    @property
    def failed(self) -> list[str]:
        return sorted(node for node, status in self.nodes.items() if status != "Running")


def configurations(state: ClusterState, group: str | None, nodes: tuple[str, ...], checks: tuple[str, ...]) -> list[dict[str, Any]]:
    """DeepHealthCheckConfigurations for StartClusterHealthCheck: per group, the nodes named (all Running
    nodes when none), from what the cluster has; HealthCheckError for a group or node it does not have."""
    checks = tuple(checks) or DEFAULT_CHECKS
    if group is not None and state.group(group) is None:
        raise HealthCheckError(
            f"--group {group}: no such instance group in cluster {state.name} (groups: {', '.join(g.name for g in state.groups)})"
        )
    by_group: dict[str, list[str]] = {}
    for node_id in nodes:
        node = state.node(node_id)
        if node is None or not node.instance_id:
            raise HealthCheckError(f"--nodes {node_id}: no launched node with this id in cluster {state.name}")
        if group is not None and node.group != group:
            raise HealthCheckError(f"--nodes {node_id}: the node is in group {node.group}, not {group}")
        by_group.setdefault(node.group, []).append(node.instance_id)
    if not nodes:
        for g in state.groups if group is None else [state.group(group)]:
            by_group[g.name] = []
    configs = []
    for name, ids in by_group.items():
        entry: dict[str, Any] = {"InstanceGroupName": name, "DeepHealthChecks": list(checks)}
        if ids:
            entry["InstanceIds"] = ids
        elif not any(n.status == "Running" for n in state.nodes_of(name)):
            continue  # nothing Running to check in this group
        configs.append(entry)
    if not configs:
        raise HealthCheckError(f"cluster {state.name}: no Running node to check")
    return configs


def run_health_check(
    client: SageMakerClient,
    state: ClusterState,
    configs: list[dict[str, Any]],
    *,
    timeout: float = 7200.0,
    poll_seconds: float = 30.0,
    sleep: Callable[[float], Any] = time.sleep,
    monotonic: Callable[[], float] = time.monotonic,
    progress: Callable[[str], Any] | None = None,
) -> HealthCheckResult:
    say = progress or (lambda message: None)
    known = set(_operation_ids(client, state.name) or ())
    client.start_cluster_health_check(ClusterName=state.name, DeepHealthCheckConfigurations=configs)
    checked = {i for c in configs for i in c.get("InstanceIds") or ()} or {
        n.instance_id for c in configs for n in state.nodes_of(c["InstanceGroupName"]) if n.status == "Running" and n.instance_id
    }
    new = [op for op in _operation_ids(client, state.name) or () if op not in known]
    operation = new[0] if new else None
    say(f"deep health check started on {len(checked)} node(s)" + (f": operation {operation}" if operation else ""))
    deadline = monotonic() + timeout
    status = "InProgress"
    while monotonic() < deadline:
        status = _status(client, state.name, operation, checked)
        if status != "InProgress":
            say(f"operation {operation or '(nodes)'}: {status}")
            break
        sleep(min(poll_seconds, max(deadline - monotonic(), 0)))
    after = observe(client, state.name)
    result = HealthCheckResult(operation, status)
    for node_id in sorted(checked):
        node = after.node(node_id) if after is not None else None
        result.nodes[node_id] = node.status if node is not None else "gone"
        if node is not None and node.message:
            result.messages[node_id] = node.message
    return result


def _operation_ids(client: SageMakerClient, name: str) -> list[str] | None:
    """Deep health check operations, newest first; None where the API has no operations list."""
    try:
        page = client.list_cluster_operations(ClusterName=name, Type="DeepHealthCheck", SortOrder="Descending", MaxResults=20)
    except (ClientError, AttributeError):
        return None
    return [s["OperationId"] for s in page.get("ClusterOperationSummaries") or ()]


def _status(client: SageMakerClient, name: str, operation: str | None, checked: set[str]) -> str:
    if operation is not None:
        return client.describe_cluster_operation(ClusterName=name, OperationId=operation)["Status"]
    state = observe(client, name)
    busy = state is not None and any(n.instance_id in checked and n.status == "DeepHealthCheckInProgress" for n in state.nodes)
    return "InProgress" if busy else "Done"
