"""Node and event operations: ListClusterNodes, DescribeClusterNode, BatchAddClusterNodes,
BatchDeleteClusterNodes, ListClusterEvents, DescribeClusterEvent.

Choices where the service leaves room, documented here because callers depend on them:
- BatchDeleteClusterNodes on a group that is Creating/Updating (MinCount not reached yet) fails
  per node with `InvalidNodeStatus` (the model's per-node error list allows it; the request as a
  whole succeeds), just as a controller node does.
- A reused BatchAddClusterNodes ClientToken with a different request answers ValidationException
  ("idempotency mismatch"); the same request within the token's lifetime (the model's
  documentation says 8 hours; scenario `timing.client_token_ttl_seconds`) returns the same
  NodeLogicalIds with their latest status and adds nothing.
"""

from __future__ import annotations

import json
from collections import Counter

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.sim.aws import events as cluster_events
from pulumi_hyperpod.sim.aws import pagination, provisioning as prov, quota_usage, validation, views
from pulumi_hyperpod.sim.aws.clock import to_seconds
from pulumi_hyperpod.sim.aws.errors import ResourceLimitExceeded, ResourceNotFound, ValidationException
from pulumi_hyperpod.sim.aws.model import CONTROLLER, Cluster, InstanceGroup, Node
from pulumi_hyperpod.sim.aws.mutations import new_nodes, require_writable
from pulumi_hyperpod.sim.aws.world import World


def list_cluster_nodes(world: World, region: str, params: dict) -> dict:
    validation.check_model("ListClusterNodes", params)
    cluster = world.find_cluster(region, params["ClusterName"])
    include = bool(params.get("IncludeNodeLogicalIds"))
    contains = params.get("InstanceGroupNameContains")
    after = to_seconds(params["CreationTimeAfter"]) if params.get("CreationTimeAfter") is not None else None
    before = to_seconds(params["CreationTimeBefore"]) if params.get("CreationTimeBefore") is not None else None
    by_name = params.get("SortBy") == "NAME"

    def listing() -> tuple[list, list]:
        rows = []
        for node in cluster.nodes.values():
            if not views.listed(node, include) or (contains and contains not in node.group):
                continue
            created = node.launch_time if node.launch_time is not None else node.created_at
            if (after is not None and created <= after) or (before is not None and created >= before):
                continue
            key = (node.group, created, node.logical_id) if by_name else (created, node.group, node.logical_id)
            rows.append((key, node))
        rows.sort(key=lambda row: row[0])
        return [node for _, node in rows], [key for key, _ in rows]

    nodes, keys = world.cached(cluster, ("ListClusterNodes", include, contains, after, before, by_name), listing)
    chosen, token = pagination.page(
        nodes,
        keys,
        descending=params.get("SortOrder") == "Descending",
        max_results=params.get("MaxResults"),
        token=params.get("NextToken"),
    )
    response: dict = {"ClusterNodeSummaries": [views.node_summary(cluster, node, include) for node in chosen]}
    if token:
        response["NextToken"] = token
    return response


def describe_cluster_node(world: World, region: str, params: dict) -> dict:
    validation.check_model("DescribeClusterNode", params)
    given = [key for key in ("NodeId", "NodeLogicalId") if params.get(key)]
    if len(given) != 1:
        raise ValidationException.field("NodeId", "specify exactly one of NodeId or NodeLogicalId")
    cluster = world.find_cluster(region, params["ClusterName"])
    wanted = params[given[0]]
    node = cluster.nodes.get(cluster.by_instance.get(wanted, "")) if given[0] == "NodeId" else cluster.nodes.get(wanted)
    if node is None:
        raise ResourceNotFound(f"Node {wanted} not found in cluster {cluster.name}.")
    return {"NodeDetails": views.node_details(cluster, node)}


# -- BatchAddClusterNodes -------------------------------------------------------------------------
def _fingerprint(cluster: Cluster, params: dict) -> str:
    body = {key: value for key, value in params.items() if key not in ("ClientToken", "ClusterName")}
    return json.dumps({"cluster": cluster.id, **body}, sort_keys=True)


def _replay(cluster: Cluster, record: dict) -> dict:
    successful = []
    for item in record["successful"]:
        node = cluster.nodes.get(item["NodeLogicalId"])
        successful.append({**item, "Status": node.status if node is not None else "NotFound"})
    return {"Successful": successful, "Failed": record["failed"]}


def batch_add_cluster_nodes(world: World, region: str, params: dict) -> dict:
    validation.check_model("BatchAddClusterNodes", params)
    total, cap = sum(e["IncrementTargetCountBy"] for e in params["NodesToAdd"]), servicemodel.api_limits()["add_total"]
    if total > cap:
        raise ValidationException.field("NodesToAdd", f"at most {cap} nodes in total per request; this one adds {total}")
    cluster = world.find_cluster(region, params["ClusterName"])
    if not cluster.continuous:
        raise ValidationException(
            f"BatchAddClusterNodes is only supported for clusters whose NodeProvisioningMode "
            f"is Continuous; cluster {cluster.name} uses all-or-nothing provisioning "
            "(use UpdateCluster)."
        )
    require_writable(cluster, "BatchAddClusterNodes")
    token = params.get("ClientToken")
    key = f"{cluster.id}/{token}" if token else None
    for stale in [k for k, record in world.tokens.items() if record["expires"] <= world.now]:
        del world.tokens[stale]
    if key and key in world.tokens:
        record = world.tokens[key]
        if record["fingerprint"] != _fingerprint(cluster, params):
            raise ValidationException(
                f"ClientToken {token!r} was already used with a different "
                "BatchAddClusterNodes request (idempotency mismatch); use a new token."
            )
        return _replay(cluster, record)

    maximum = servicemodel.limit("ClusterInstanceGroupSpecification", "InstanceCount")
    planned: dict[str, int] = {}
    usage = quota_usage.cluster_usage(cluster)
    for index, entry in enumerate(params["NodesToAdd"]):
        group = cluster.groups.get(entry["InstanceGroupName"])
        if group is not None and not group.deleting:
            if group.role == CONTROLLER and cluster.orchestrator == "Slurm":
                raise ValidationException.field(f"NodesToAdd[{index}].InstanceGroupName", validation.SINGLE_CONTROLLER)
            planned[group.name] = planned.get(group.name, group.target) + entry["IncrementTargetCountBy"]
            if planned[group.name] > maximum:
                raise ResourceLimitExceeded(
                    f"Instance group {group.name} would have {planned[group.name]} instances; the maximum is {maximum}."
                )
            grows = None if group.flexible else quota_usage.key(group.spec, group.instance_types[0])
            usage[group.name] = usage[group.name] + Counter({grows: entry["IncrementTargetCountBy"]})
    quota_usage.check(world, region, cluster.name, usage)
    successful, failed = [], []
    for entry in params["NodesToAdd"]:
        outcome = _add_entry(world, cluster, entry)
        if isinstance(outcome, dict):
            failed.append(outcome)
        else:
            successful.extend(outcome)
    if key:
        world.tokens[key] = {
            "fingerprint": _fingerprint(cluster, params),
            "successful": successful,
            "failed": failed,
            "expires": world.now + world.scenario.timing.client_token_ttl_seconds,
        }
    return {"Successful": successful, "Failed": failed}


def _add_entry(world: World, cluster: Cluster, entry: dict):
    name, count = entry["InstanceGroupName"], entry["IncrementTargetCountBy"]
    group = cluster.groups.get(name)

    def failure(code: str, message: str) -> dict:
        item = {"InstanceGroupName": name, "ErrorCode": code, "FailedCount": count, "Message": message}
        for field in ("InstanceTypes", "AvailabilityZones"):
            if entry.get(field):
                item[field] = entry[field]
        return item

    if group is None or group.deleting:
        return failure("InstanceGroupNotFound", f"Instance group {name} not found in cluster {cluster.name}.")
    if group.status in ("Creating", "Updating"):
        return failure(
            "InvalidInstanceGroupStatus",
            f"Instance group {name} is {group.status} (MinCount "
            f"{group.min_count} not reached yet); BatchAddClusterNodes is blocked until it is InService. "
            "UpdateCluster can still change its counts.",
        )
    unknown = [t for t in entry.get("InstanceTypes") or [] if t not in group.instance_types]
    if unknown:
        return failure(
            "IncompatibleInstanceTypes",
            f"Instance group {name} does not use {', '.join(unknown)}; its instance types are {', '.join(group.instance_types)}.",
        )
    zones = prov.group_zones(world, cluster, group)
    outside = [az for az in entry.get("AvailabilityZones") or [] if az not in zones]
    if outside:
        return failure(
            "IncompatibleAvailabilityZones",
            f"Instance group {name} has no subnet in {', '.join(outside)}; its Availability Zones are {', '.join(zones)}.",
        )
    group.target += count
    group.spec = {**group.spec, "InstanceCount": group.target}
    nodes = new_nodes(world, cluster, group, count, None, entry.get("InstanceTypes"), entry.get("AvailabilityZones"))
    _scaled(world, cluster, group, "scale-up", count)
    results = []
    for node in nodes:
        item = {"NodeLogicalId": node.logical_id, "InstanceGroupName": name, "Status": node.status}
        for field in ("InstanceTypes", "AvailabilityZones"):
            if entry.get(field):
                item[field] = entry[field]
        results.append(item)
    return results


# -- BatchDeleteClusterNodes ----------------------------------------------------------------------
def _refusal(cluster: Cluster, node: Node | None, wanted: str) -> tuple[str, str] | None:
    if node is None:
        return "NodeIdNotFound", f"Node {wanted} not found in cluster {cluster.name}."
    group = cluster.groups.get(node.group)
    if group is not None and group.role == CONTROLLER and cluster.orchestrator == "Slurm":
        return "InvalidNodeStatus", (
            f"Node {wanted} is in the Slurm controller group {group.name}; the controller node cannot be removed (Slurm needs it to run)."
        )
    if group is not None and group.status in ("Creating", "Updating"):
        return "InvalidNodeStatus", (
            f"Instance group {group.name} is {group.status} until MinCount "
            f"{group.min_count} is reached; BatchDeleteClusterNodes is blocked (use "
            "UpdateCluster to change its counts)."
        )
    if not node.live:
        return "InvalidNodeStatus", f"Node {wanted} is already {node.status}."
    return None


def batch_delete_cluster_nodes(world: World, region: str, params: dict) -> dict:
    validation.check_model("BatchDeleteClusterNodes", params)
    if not params.get("NodeIds") and not params.get("NodeLogicalIds"):
        raise ValidationException.field("NodeIds", "specify NodeIds, NodeLogicalIds, or both")
    limits = servicemodel.api_limits()
    ids, logical = len(params.get("NodeIds") or []), len(params.get("NodeLogicalIds") or [])
    if ids > limits["delete_ids"]:
        raise ValidationException.field(
            "NodeIds", f"at most {limits['delete_ids']} node ids per request (more needs AWS Support); got {ids}"
        )
    if logical and ids + logical > limits["delete_combined"]:
        raise ValidationException.field(
            "NodeLogicalIds", f"at most {limits['delete_combined']} identifiers in all when NodeLogicalIds are given; got {ids + logical}"
        )
    cluster = world.find_cluster(region, params["ClusterName"])
    require_writable(cluster, "BatchDeleteClusterNodes")
    response: dict = {}
    removed: dict[str, int] = {}  # group → nodes this request removed
    for field, failed_field, ok_field, id_field in (
        ("NodeIds", "Failed", "Successful", "NodeId"),
        ("NodeLogicalIds", "FailedNodeLogicalIds", "SuccessfulNodeLogicalIds", "NodeLogicalId"),
    ):
        for wanted in dict.fromkeys(params.get(field) or []):
            node = cluster.node(wanted) if field == "NodeIds" else cluster.nodes.get(wanted)
            if node is not None and field == "NodeIds" and node.instance_id != wanted:
                node = None  # a NodeId must name the current instance
            refusal = _refusal(cluster, node, wanted)
            if refusal:
                response.setdefault(failed_field, []).append({"Code": refusal[0], "Message": refusal[1], id_field: wanted})
                continue
            group = cluster.groups[node.group]
            group.target = max(0, group.target - 1)
            group.min_count = min(group.min_count, group.target)
            group.spec = {**group.spec, "InstanceCount": group.target}
            prov.terminate(world, cluster, node, "Deleted by BatchDeleteClusterNodes")
            removed[group.name] = removed.get(group.name, 0) + 1
            response.setdefault(ok_field, []).append(wanted)
    for name, count in removed.items():  # the lower target, as a scale-up's event gives the higher one
        _scaled(world, cluster, cluster.groups[name], "scale-down", count)
    return response


def _scaled(world: World, cluster: Cluster, group: InstanceGroup, verb: str, count: int) -> None:
    """The group's event for a BatchAdd/BatchDelete: its new TargetCount in InstanceGroupScaling."""
    world.emit(
        cluster,
        "Info",
        "InstanceGroup",
        f"InstanceGroup {group.name} {verb} by {count} started successfully in Cluster {cluster.name}",
        group=group.name,
        metadata={"InstanceGroupScaling": {"TargetCount": group.target, "MinCount": group.min_count}},
    )


# -- events ---------------------------------------------------------------------------------------
def _continuous(cluster: Cluster, operation: str) -> None:
    if not cluster.continuous:
        raise ValidationException(
            f"{operation} is only supported for clusters whose NodeProvisioningMode is Continuous; cluster {cluster.name} does not use it."
        )


def list_cluster_events(world: World, region: str, params: dict) -> dict:
    validation.check_model("ListClusterEvents", params)
    cluster = world.find_cluster(region, params["ClusterName"])
    _continuous(cluster, "ListClusterEvents")
    items, token = cluster_events.query(cluster, params)
    response: dict = {"Events": items}
    if token:
        response["NextToken"] = token
    return response


def describe_cluster_event(world: World, region: str, params: dict) -> dict:
    validation.check_model("DescribeClusterEvent", params)
    cluster = world.find_cluster(region, params["ClusterName"])
    _continuous(cluster, "DescribeClusterEvent")
    return {"EventDetails": cluster_events.detail(cluster, cluster_events.find(cluster, params["EventId"]))}
