"""The service's own record of long operations: ListClusterOperations, DescribeClusterOperation, and
StartClusterHealthCheck, which starts one.

Two kinds, as the model has them:
- `Scaling`: recorded by every write that moves a group's TargetCount or MinCount (UpdateCluster,
  BatchAddClusterNodes, BatchDeleteClusterNodes; `recording_scaling` wraps them in the operation
  table), with each group's counts before (Original) and asked for (Desired). It is Done when every
  group it names has CurrentCount == TargetCount (or is gone), Superseded when a later scaling
  operation names one of its groups first.
- `DeepHealthCheck`: StartClusterHealthCheck puts the named Running nodes (all of the group's when no
  InstanceIds are given) in `DeepHealthCheckInProgress` for `timing.deep_health_check_seconds`; it is
  Done when none of them is still being checked. A node that fails is recovered by the service
  (`provisioning._finish_health_check`).

Statuses are derived when read, from the cluster as it is, so they never go stale.
"""

from __future__ import annotations

from collections.abc import Callable

from pulumi_hyperpod.sim.aws import ids, pagination, reconcile, validation
from pulumi_hyperpod.sim.aws.clock import to_seconds
from pulumi_hyperpod.sim.aws.errors import ResourceNotFound, ValidationException
from pulumi_hyperpod.sim.aws.model import HEALTHCHECK, RUNNING, Cluster
from pulumi_hyperpod.sim.aws.mutations import require_writable
from pulumi_hyperpod.sim.aws.world import World


def _counts(cluster: Cluster) -> dict[str, dict]:
    result = {}
    for name, group in cluster.groups.items():
        current = sum(1 for n in cluster.nodes.values() if n.group == name and n.phase == RUNNING)
        result[name] = {"CurrentCount": current, "TargetCount": group.target, "MinCount": group.min_count}
    return result


def recording_scaling(operation: Callable[[World, str, dict], dict]) -> Callable[[World, str, dict], dict]:
    """`operation`, recording a Scaling operation when it moved a TargetCount or MinCount."""

    def run(world: World, region: str, params: dict) -> dict:
        try:
            cluster = world.find_cluster(region, params["ClusterName"])
        except Exception:  # no such cluster, or no name: the operation itself says so
            cluster = None
        before = _counts(cluster) if cluster is not None else {}
        response = operation(world, region, params)
        if cluster is None:
            return response
        after = _counts(cluster)
        moved = {
            name: (before.get(name), counts)
            for name, counts in after.items()
            if before.get(name) is None
            or (before[name]["TargetCount"], before[name]["MinCount"]) != (counts["TargetCount"], counts["MinCount"])
        }
        if moved:
            cluster.cluster_operations.append(
                {
                    "OperationId": ids.new_uuid(world.rng),
                    "Type": "Scaling",
                    "CreationTime": world.now,
                    "Groups": {
                        name: {"Original": old or {"CurrentCount": 0, "TargetCount": 0, "MinCount": 0}, "Desired": new}
                        for name, (old, new) in moved.items()
                    },
                }
            )
            world.touch(cluster)
        return response

    return run


def start_cluster_health_check(world: World, region: str, params: dict) -> dict:
    validation.check_model("StartClusterHealthCheck", params)
    cluster = world.find_cluster(region, params["ClusterName"])
    require_writable(cluster, "StartClusterHealthCheck")
    chosen, problems = [], []
    for index, config in enumerate(params["DeepHealthCheckConfigurations"]):
        group = cluster.groups.get(config["InstanceGroupName"])
        where = f"DeepHealthCheckConfigurations[{index}]"
        if group is None or group.deleting:
            problems.append(
                validation.Violation(
                    f"{where}.InstanceGroupName", f"instance group {config['InstanceGroupName']!r} does not exist in cluster {cluster.name}"
                )
            )
            continue
        wanted = config.get("InstanceIds")
        nodes = [
            n for n in cluster.nodes.values() if n.group == group.name and n.phase == RUNNING and (not wanted or n.instance_id in wanted)
        ]
        missing = sorted(set(wanted or ()) - {n.instance_id for n in nodes})
        if missing:
            problems.append(
                validation.Violation(f"{where}.InstanceIds", f"{', '.join(missing)}: not a Running instance of group {group.name}")
            )
        chosen.append((group.name, nodes, config["DeepHealthChecks"]))
    validation.raise_if(problems)
    if not any(nodes for _, nodes, _ in chosen):
        raise ValidationException.field("DeepHealthCheckConfigurations", "no Running instance to check")
    op_id = ids.new_uuid(world.rng)
    record = {"OperationId": op_id, "Type": "DeepHealthCheck", "CreationTime": world.now, "Checks": []}
    for name, nodes, checks in chosen:
        record["Checks"].append(
            {"InstanceGroupName": name, "InstanceIds": [n.instance_id for n in nodes], "DeepHealthChecks": list(checks)}
        )
        for node in nodes:
            node.phase, node.status, node.health_check = HEALTHCHECK, "DeepHealthCheckInProgress", op_id
            node.message = "Running deep health checks: " + ", ".join(checks)
            world.schedule_node(cluster, node, world.now + world.scenario.timing.deep_health_check_seconds)
            world.emit(
                cluster,
                "Info",
                "Instance",
                f"Deep health check ({', '.join(checks)}) of EC2 Instance "
                f"{node.instance_id} in Cluster {cluster.name} and IG {name} started",
                node=node,
                op_id=op_id,
            )
    cluster.cluster_operations.append(record)
    world.touch(cluster)
    reconcile.reconcile_pending(world)
    return {"ClusterArn": cluster.arn}


def _status(cluster: Cluster, record: dict) -> str:
    if record["Type"] == "DeepHealthCheck":
        checking = any(n.health_check == record["OperationId"] for n in cluster.nodes.values())
        return "InProgress" if checking else "Done"
    after = cluster.cluster_operations[cluster.cluster_operations.index(record) + 1 :]  # kept in the order they came
    later = [r for r in after if r["Type"] == "Scaling" and set(r["Groups"]) & set(record["Groups"])]
    if later:
        return "Superseded"
    counts = _counts(cluster)
    settled = all(name not in counts or counts[name]["CurrentCount"] == counts[name]["TargetCount"] for name in record["Groups"])
    return "Done" if settled else "InProgress"


def _summary(cluster: Cluster, record: dict) -> dict:
    return {
        "OperationId": record["OperationId"],
        "ClusterArn": cluster.arn,
        "Type": record["Type"],
        "Status": _status(cluster, record),
        "CreationTime": record["CreationTime"],
    }


def list_cluster_operations(world: World, region: str, params: dict) -> dict:
    validation.check_model("ListClusterOperations", params)
    cluster = world.find_cluster(region, params["ClusterName"])
    after = to_seconds(params["CreationTimeAfter"]) if params.get("CreationTimeAfter") is not None else None
    before = to_seconds(params["CreationTimeBefore"]) if params.get("CreationTimeBefore") is not None else None
    rows = []
    for index, record in enumerate(cluster.cluster_operations):
        summary = _summary(cluster, record)
        if params.get("Type") and record["Type"] != params["Type"]:
            continue
        if params.get("Status") and summary["Status"] != params["Status"]:
            continue
        if (after is not None and record["CreationTime"] <= after) or (before is not None and record["CreationTime"] >= before):
            continue
        rows.append(((record["CreationTime"], index), summary))
    return pagination.response("ClusterOperationSummaries", [s for _, s in rows], [k for k, _ in rows], params)


def describe_cluster_operation(world: World, region: str, params: dict) -> dict:
    validation.check_model("DescribeClusterOperation", params)
    cluster = world.find_cluster(region, params["ClusterName"])
    record = next((r for r in cluster.cluster_operations if r["OperationId"] == params["OperationId"]), None)
    if record is None:
        raise ResourceNotFound(f"Operation {params['OperationId']} not found in cluster {cluster.name}.")
    response = _summary(cluster, record)
    if record["Type"] == "Scaling":
        counts = _counts(cluster)
        response["ScalingDetails"] = [
            {
                "InstanceGroupName": name,
                "Status": response["Status"]
                if response["Status"] != "InProgress"
                else ("Done" if name not in counts or counts[name]["CurrentCount"] == counts[name]["TargetCount"] else "InProgress"),
                "Original": detail["Original"],
                "Desired": detail["Desired"],
            }
            for name, detail in record["Groups"].items()
        ]
    else:
        response["DeepHealthCheckDetails"] = [
            dict(check, InstanceIds=check["InstanceIds"]) for check in record["Checks"] if check["InstanceIds"]
        ] or None
        if response["DeepHealthCheckDetails"] is None:
            del response["DeepHealthCheckDetails"]
    return response
