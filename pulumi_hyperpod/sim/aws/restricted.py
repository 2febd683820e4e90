"""Restricted instance groups (RIG): the simulator's own rules and shapes for them, written from the
service's documentation, not from the planner's.

Sources: botocore's sagemaker model (ClusterRestrictedInstanceGroupSpecification, its Details
shape, ClusterRestrictedInstanceGroupsConfig and its Output shape: "The specialized instance groups
for training models like Amazon Nova"), and AWS, "Creating a HyperPod EKS cluster with restricted
instance group (RIG)" (Nova customization): a RIG belongs to a HyperPod EKS cluster; it "relies on a
service-managed FSx for Lustre file system", whose volume size and throughput are given when the
RIG is created. A restricted group is otherwise a group like the others: its nodes are listed by
ListClusterNodes, it scales through UpdateCluster (and BatchDeleteClusterNodes names its nodes), and
InstanceGroupsToDelete removes it.

What the simulator cannot know it does not fill: EnvironmentConfigDetails.S3OutputPath (where the
service puts a group's output) is the service's choice, so it is never reported.
"""

from __future__ import annotations

import copy
from typing import Any

from pulumi_hyperpod.core.errors import Violation
from pulumi_hyperpod.sim.aws.model import Cluster

RESTRICTED = "RestrictedInstanceGroups"
SHARED = "RestrictedInstanceGroupsConfig"
# Members an UpdateCluster entry of an existing restricted group must restate unchanged: the group is
# created with them (as an instance group's InstanceType, ExecutionRole, ThreadsPerCore, OverrideVpcConfig)
_CREATE_ONLY = ("InstanceType", "ExecutionRole", "ThreadsPerCore", "OverrideVpcConfig")


def entries(params: dict) -> list[tuple[str, int, dict]]:
    """(list, index, entry) of every group a request names, instance groups first."""
    return [(member, index, entry) for member in ("InstanceGroups", RESTRICTED) for index, entry in enumerate(params.get(member) or ())]


def create_rules(params: dict, kind: str) -> list[Violation]:
    problems = _names_once(params)
    groups = params.get(RESTRICTED) or []
    if groups and kind != "Eks":
        problems.append(Violation(RESTRICTED, "restricted instance groups are available only on a cluster orchestrated by Amazon EKS"))
    shared = (params.get(SHARED) or {}).get("SharedEnvironmentConfig")
    for index, group in enumerate(groups):
        if not ((group.get("EnvironmentConfig") or {}).get("FSxLustreConfig") or shared):
            problems.append(
                Violation(
                    f"{RESTRICTED}[{index}].EnvironmentConfig.FSxLustreConfig",
                    "a restricted instance group needs the size and throughput of its FSx for Lustre file system "
                    "(EnvironmentConfig.FSxLustreConfig, or the cluster's RestrictedInstanceGroupsConfig)",
                )
            )
    if params.get(SHARED) and not groups:
        problems.append(Violation(SHARED, "is given without RestrictedInstanceGroups"))
    return problems


def update_rules(cluster: Cluster, params: dict) -> list[Violation]:
    problems = _names_once(params)
    if params.get(RESTRICTED) and cluster.orchestrator != "Eks":
        problems.append(Violation(RESTRICTED, "restricted instance groups are available only on a cluster orchestrated by Amazon EKS"))
    to_delete = set(params.get("InstanceGroupsToDelete") or ())
    for member, index, entry in entries(params):
        where = f"{member}[{index}]"
        existing = cluster.groups.get(entry["InstanceGroupName"])
        if member == RESTRICTED and entry["InstanceGroupName"] in to_delete:
            problems.append(Violation(where, f"{entry['InstanceGroupName']!r} is also listed in InstanceGroupsToDelete"))
        if existing is None:
            continue
        if existing.restricted != (member == RESTRICTED):
            kind = "a restricted instance group" if existing.restricted else "an instance group"
            problems.append(Violation(where, f"{existing.name!r} is {kind} of cluster {cluster.name}; update it in its own list"))
            continue
        if member != RESTRICTED:
            continue  # an instance group's own rules are validation.update_rules'
        if existing.deleting:
            problems.append(Violation(where, f"restricted instance group {existing.name!r} is being deleted"))
        for key in _CREATE_ONLY:
            if key in entry and entry[key] != existing.spec.get(key):
                problems.append(
                    Violation(
                        f"{where}.{key}",
                        f"cannot be changed on existing restricted instance group {existing.name!r} "
                        "(it is set when the group is created); add a new restricted instance group instead",
                    )
                )
    return problems


def _names_once(params: dict) -> list[Violation]:
    """A group name names one group, in either list (InstanceGroupsToDelete names either kind)."""
    seen: set[str] = set()
    problems = []
    for member, index, entry in entries(params):
        name = entry.get("InstanceGroupName")
        if member == RESTRICTED and name in seen:
            problems.append(Violation(f"{member}[{index}].InstanceGroupName", f"{name!r} names another group of this request"))
        seen.add(name)
    return problems


def kept(previous: dict, spec: dict) -> dict:
    """An existing restricted group's new specification: the entry, with the create-only members it
    leaves out kept from the group (the other members are the entry's: it is the whole specification)."""
    merged = copy.deepcopy(spec)
    for key in _CREATE_ONLY:
        if key not in merged and key in previous:
            merged[key] = copy.deepcopy(previous[key])
    return merged


def environment_details(spec: dict) -> dict[str, Any] | None:
    """EnvironmentConfigDetails: the FSx Lustre config as given (S3OutputPath is the service's: not known here)."""
    lustre = (spec.get("EnvironmentConfig") or {}).get("FSxLustreConfig")
    return {"FSxLustreConfig": copy.deepcopy(lustre)} if lustre else None


def shared_output(config: dict | None) -> dict[str, Any] | None:
    """ClusterRestrictedInstanceGroupsConfigOutput from the last accepted request: the simulator makes a
    change at once, so Current and Desired are the same."""
    shared = (config or {}).get("SharedEnvironmentConfig")
    if not shared:
        return None
    lustre, policy = shared.get("FSxLustreConfig"), shared.get("FSxLustreDeletionPolicy")
    details = {
        "CurrentFSxLustreConfig": copy.deepcopy(lustre),
        "DesiredFSxLustreConfig": copy.deepcopy(lustre),
        "CurrentFSxLustreDeletionPolicy": policy,
        "DesiredFSxLustreDeletionPolicy": policy,
    }
    return {"SharedEnvironmentConfig": {k: v for k, v in details.items() if v is not None}}
