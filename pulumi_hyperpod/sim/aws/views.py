"""World objects → response shapes (moto's `responses.py` serialisation half).

Which request fields echo back in DescribeCluster is read from botocore's model: a group-spec
member is copied when ClusterInstanceGroupDetails has a member of that name, except the few the
service reports differently (counts, flexible types, image ids, Kubernetes and patch configs).
Timestamps stay float epoch seconds; the wire layer sends them as JSON numbers.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.sim.aws import ids, images, restricted, rolling_update
from pulumi_hyperpod.sim.aws.model import (
    BOOTING,
    DETACHING,
    HEALTHCHECK,
    LIFECYCLE,
    RUNNING,
    TERMINATING,
    WAITING,
    Cluster,
    InstanceGroup,
    Node,
)

# Nodes on their way into or out of a group: the group has a scaling operation in progress.
SCALING_PHASES = (WAITING, BOOTING, LIFECYCLE, HEALTHCHECK, DETACHING, TERMINATING)

_TRANSLATED = {
    "InstanceCount",
    "MinInstanceCount",
    "InstanceRequirements",
    "ImageId",
    "ImageReleaseVersion",
    "KubernetesConfig",
    "AutoPatchConfig",
    "InstanceGroupName",
}


@cache
def _members(shape_name: str) -> frozenset[str]:
    return frozenset(servicemodel.shape(shape_name).members)


def _copy(source: dict, shape_name: str, skip: set[str] = frozenset()) -> dict:
    allowed = _members(shape_name)
    return {key: value for key, value in source.items() if key in allowed and key not in skip and value is not None}


def group_counts(nodes: list[Node]) -> dict[str, Any]:
    running = [node for node in nodes if node.phase == RUNNING]
    per_type: dict[str, int] = {}
    for node in running:
        per_type[node.instance_type] = per_type.get(node.instance_type, 0) + 1
    settling = any(node.phase in SCALING_PHASES for node in nodes)
    return {"current": len(running), "per_type": per_type, "settling": settling}


def group_details(cluster: Cluster, group: InstanceGroup, nodes: list[Node]) -> dict:
    counts = group_counts(nodes)
    spec = group.spec
    item: dict[str, Any] = {
        "CurrentCount": counts["current"],
        "TargetCount": group.target,
        "InstanceGroupName": group.name,
        "Status": group.status,
    }
    if cluster.continuous:
        item["MinCount"] = group.min_count
    item.update(described_spec(spec))
    if group.flexible:
        item["InstanceRequirements"] = {
            "CurrentInstanceTypes": list(group.current_types or group.instance_types),
            "DesiredInstanceTypes": group.instance_types,
        }
        details = []
        for instance_type in group.instance_types:
            detail = {"InstanceType": instance_type, "CurrentCount": counts["per_type"].get(instance_type, 0)}
            if spec.get("ThreadsPerCore"):
                detail["ThreadsPerCore"] = spec["ThreadsPerCore"]
            details.append(detail)
        item["InstanceTypeDetails"] = details
    if counts["settling"] or counts["current"] != group.target:
        item["ActiveOperations"] = {"Scaling": 1}
    for key in ("CurrentImageId", "DesiredImageId", "CurrentImageReleaseVersion", "DesiredImageReleaseVersion"):
        item.pop(key, None)
    item.update(_software(cluster, group, nodes))
    return item


def _software(cluster: Cluster, group: InstanceGroup, nodes: list[Node]) -> dict[str, Any]:
    """The group's image, Current and Desired (moved apart by a running update, swapped by its
    rollback), and the last update's SoftwareUpdateStatus, TargetStateCount, ActiveSoftwareUpdateConfig."""
    own = images.of_spec(group.spec)
    desired = rolling_update.wanted(cluster, group.name) or own
    current = rolling_update.running_image(cluster, group.name) or own
    item: dict[str, Any] = {**images.reported(current, "Current"), **images.reported(desired, "Desired")}  # over described_spec's
    if group.software is None:
        return item
    item["SoftwareUpdateStatus"] = group.software["status"]
    # "the number of running nodes using the desired Image ID"
    item["TargetStateCount"] = sum(1 for n in nodes if n.phase == RUNNING and images.runs(images.of_node(n.built_with), desired))
    update = cluster.software_update
    if update is not None and group.name in update["groups"] and update.get("config"):
        item["ActiveSoftwareUpdateConfig"] = update["config"]
    return item


def restricted_group_details(group: InstanceGroup, nodes: list[Node]) -> dict:
    """ClusterRestrictedInstanceGroupDetails: counts and status as an instance group's, the members of
    the same name copied, EnvironmentConfig as EnvironmentConfigDetails (restricted.py)."""
    counts = group_counts(nodes)
    item: dict[str, Any] = {
        "CurrentCount": counts["current"],
        "TargetCount": group.target,
        "InstanceGroupName": group.name,
        "Status": group.status,
    }
    item.update(_copy(group.spec, "ClusterRestrictedInstanceGroupDetails", {"InstanceCount", "InstanceGroupName", "EnvironmentConfig"}))
    if group.spec.get("TrainingPlanArn"):
        item["TrainingPlanStatus"] = "Active"  # as for an instance group (described_spec)
    environment = restricted.environment_details(group.spec)
    if environment:
        item["EnvironmentConfig"] = environment
    return item


def described_spec(spec: dict) -> dict:
    """A group specification as DescribeCluster reports it: members of the same name copied, the
    image, Kubernetes and patch members under their Current/Desired names (counts and flexible
    types are the caller's: they depend on the nodes; a running software update moves the image apart)."""
    item = _copy(spec, "ClusterInstanceGroupDetails", _TRANSLATED)
    image = images.of_spec(spec)
    item.update({**images.reported(image, "Current"), **images.reported(image, "Desired")})
    kubernetes = spec.get("KubernetesConfig")
    if kubernetes:
        item["KubernetesConfig"] = _kubernetes(kubernetes)
    patch = spec.get("AutoPatchConfig")
    if patch:
        converted = {k: v for k, v in patch.items() if k != "PatchSchedule"}
        if patch.get("PatchSchedule") is not None:  # an empty schedule is still one
            converted["CurrentPatchSchedule"] = converted["DesiredPatchSchedule"] = patch["PatchSchedule"]
        item["AutoPatchConfig"] = converted
    return item


def capacity_type(spec: dict) -> str:
    """Spot when the group asks for it (CapacityRequirements.Spot), else OnDemand, the service's default."""
    return "Spot" if (spec.get("CapacityRequirements") or {}).get("Spot") is not None else "OnDemand"


def _kubernetes(config: dict) -> dict:
    out = {}
    if config.get("Labels") is not None:
        out["CurrentLabels"] = out["DesiredLabels"] = config["Labels"]
    if config.get("Taints") is not None:
        out["CurrentTaints"] = out["DesiredTaints"] = config["Taints"]
    return out


def describe_cluster(cluster: Cluster) -> dict:
    grouped = cluster.nodes_by_group()
    item: dict[str, Any] = {
        "ClusterArn": cluster.arn,
        "ClusterName": cluster.name,
        "ClusterStatus": cluster.status,
        "CreationTime": cluster.created_at,
        "InstanceGroups": [group_details(cluster, g, grouped.get(g.name, [])) for g in cluster.groups.values() if not g.restricted],
    }
    rigs = [restricted_group_details(g, grouped.get(g.name, [])) for g in cluster.groups.values() if g.restricted]
    if rigs:
        item[restricted.RESTRICTED] = rigs
    if cluster.failure_message:
        item["FailureMessage"] = cluster.failure_message
    item.update(
        _copy(cluster.config, "DescribeClusterResponse", {"AutoScaling", "InstanceGroups", restricted.RESTRICTED, restricted.SHARED})
    )
    shared = restricted.shared_output(cluster.config.get(restricted.SHARED))
    if shared:
        item[restricted.SHARED] = shared
    if cluster.config.get("Orchestrator"):  # as given: a cluster created without one is described without one
        item["Orchestrator"] = cluster.config["Orchestrator"]
    item["NodeRecovery"] = cluster.node_recovery
    if cluster.continuous:
        item["NodeProvisioningMode"] = "Continuous"
    scaling = cluster.config.get("AutoScaling")
    if scaling:
        item["AutoScaling"] = {**scaling, "Status": "InService"}
    return item


def cluster_summary(cluster: Cluster) -> dict:
    item = {
        "ClusterArn": cluster.arn,
        "ClusterName": cluster.name,
        "CreationTime": cluster.created_at,
        "ClusterStatus": cluster.status,
    }
    plans = [g.spec["TrainingPlanArn"] for g in cluster.groups.values() if g.spec.get("TrainingPlanArn")]
    if plans:
        item["TrainingPlanArns"] = plans
    return item


def _status(node: Node) -> dict:
    status = {"Status": node.status}
    if node.message:
        status["Message"] = node.message
    return status


def _instance_type(cluster: Cluster, node: Node) -> str:
    if node.instance_type:
        return node.instance_type
    group = cluster.groups.get(node.group)
    if node.want_types:
        return node.want_types[0]
    return group.instance_types[0] if group else "ml.m5.large"


def node_summary(cluster: Cluster, node: Node, include_logical: bool) -> dict:
    """`include_logical`: the request's IncludeNodeLogicalIds; the model documents NodeLogicalId as
    "only included when IncludeNodeLogicalIds is set to True"."""
    item = {
        "InstanceGroupName": node.group,
        "InstanceId": node.instance_id or "",
        "InstanceType": _instance_type(cluster, node),
        "LaunchTime": node.launch_time if node.launch_time is not None else node.created_at,
        "InstanceStatus": _status(node),
    }
    if include_logical:
        item["NodeLogicalId"] = node.logical_id
    if node.software_updated_at is not None:
        item["LastSoftwareUpdateTime"] = node.software_updated_at
    if node.ip:
        item["PrivateDnsHostname"] = ids.dns_hostname(node.ip, cluster.region)
    release = images.of_node(node.built_with)["ImageReleaseVersion"]
    if release is not None:  # ClusterNodeSummary has the release, not the AMI id
        item["CurrentImageReleaseVersion"] = release
    return item


def node_details(cluster: Cluster, node: Node) -> dict:
    group = cluster.groups.get(node.group)
    spec = group.spec if group else {}
    built = node.built_with or {key: spec.get(key) for key in ("LifeCycleConfig", "ThreadsPerCore", "InstanceStorageConfigs", "ImageId")}
    item: dict[str, Any] = {
        "InstanceGroupName": node.group,
        "InstanceId": node.instance_id or "",
        "NodeLogicalId": node.logical_id,
        "InstanceStatus": _status(node),
        "InstanceType": _instance_type(cluster, node),
        "LaunchTime": node.launch_time if node.launch_time is not None else node.created_at,
        "CapacityType": capacity_type(spec),
    }
    item.update(_copy(built, "ClusterNodeDetails"))
    if spec.get("OverrideVpcConfig"):
        item["OverrideVpcConfig"] = spec["OverrideVpcConfig"]
    if node.software_updated_at is not None:
        item["LastSoftwareUpdateTime"] = node.software_updated_at
    current = images.of_node(built)
    item.update(images.reported(current, "Current"))
    item.update(images.reported((rolling_update.wanted(cluster, node.group) if group else None) or current, "Desired"))
    if node.ip:
        item["PrivatePrimaryIp"] = node.ip
        item["PrivateDnsHostname"] = ids.dns_hostname(node.ip, cluster.region)
    if node.az:
        item["Placement"] = {"AvailabilityZone": node.az, "AvailabilityZoneId": ids.availability_zone_id(node.az)}
    if spec.get("KubernetesConfig"):
        item["KubernetesConfig"] = _kubernetes(spec["KubernetesConfig"])
    if spec.get("NetworkInterface"):
        item["NetworkInterface"] = spec["NetworkInterface"]
    return item


def listed(node: Node, include_logical: bool) -> bool:
    """ListClusterNodes shows never-launched nodes only with IncludeNodeLogicalIds=true."""
    return include_logical or node.launched


__all__ = ["cluster_summary", "describe_cluster", "listed", "node_details", "node_summary"]
