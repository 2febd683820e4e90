"""SageMaker cluster operations: one function per API operation, validate first, then mutate.

Each function takes the world, the caller's region and the decoded request, and returns the
response dict (or raises a ServiceError). Validation always completes before the first change so
an error never leaves half an operation behind. Node- and event-level operations are in
`node_operations.py`; `sagemaker.py` holds the service's table for the wire layer.
"""

from __future__ import annotations

import copy

from pulumi_hyperpod.aws import members
from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.sim.aws import (
    ids,
    pagination,
    provisioning as prov,
    quota_usage,
    reconcile,
    restricted,
    service_rules,
    slurm,
    validation,
    views,
)
from pulumi_hyperpod.sim.aws.clock import to_seconds
from pulumi_hyperpod.sim.aws.errors import ConflictException, ValidationException
from pulumi_hyperpod.sim.aws.model import CONTROLLER, LOGIN, Cluster, InstanceGroup
from pulumi_hyperpod.sim.aws.mutations import new_nodes, require_writable
from pulumi_hyperpod.sim.aws.world import World


# -- helpers --------------------------------------------------------------------------------------
def _min_count(spec: dict, role: str | None, continuous: bool, creating: bool) -> int:
    """MinInstanceCount, defaulting to 1 for Slurm controller/login groups at creation (seed 000)."""
    if spec.get("MinInstanceCount") is not None:
        return spec["MinInstanceCount"]
    if continuous and creating and role in (CONTROLLER, LOGIN):
        return min(1, spec["InstanceCount"])
    return 0


# ThreadsPerCore the service sets when a request gives none: the one value every instance type takes
# ("For instance types that doesn't support multithreading, specify 1"), and what a recorded
# DescribeCluster of such a group reports (cloud-custodian's placebo data for DescribeCluster).
DEFAULT_THREADS_PER_CORE = 1


def _add_group(
    world: World, cluster: Cluster, spec: dict, role: str | None, partitions: list, op_id: str, creating: bool, restricted: bool = False
) -> InstanceGroup:
    minimum = _min_count(spec, role, cluster.continuous, creating)
    group = InstanceGroup(
        name=spec["InstanceGroupName"],
        spec={"ThreadsPerCore": DEFAULT_THREADS_PER_CORE, **copy.deepcopy(spec)},
        target=spec["InstanceCount"],
        min_count=minimum,
        status="Creating",
        role=role,
        partitions=partitions,
        created_at=world.now,
        new_in_op=not cluster.continuous and not creating,
        restricted=restricted,
    )
    if group.flexible:
        group.current_types = group.instance_types
    cluster.groups[group.name] = group
    prov.assign_subnets(world, cluster, list((spec.get("OverrideVpcConfig") or {}).get("Subnets") or []))
    if cluster.continuous:
        if minimum > 0:
            world.schedule_deadline(cluster, group.name, world.now + world.scenario.timing.min_count_timeout_seconds)
        else:
            group.status, group.last_good = "InService", [group.target, 0]
    new_nodes(world, cluster, group, group.target, op_id)
    world.emit(
        cluster,
        "Info",
        "InstanceGroup",
        f"InstanceGroup {group.name} create started successfully in Cluster {cluster.name}",
        group=group.name,
        op_id=op_id,
        metadata={"InstanceGroupScaling": {"InstanceCount": 0, "TargetCount": group.target, "MinCount": group.min_count}},
    )
    return group


def _roles(world: World, cluster_kind: str, groups: list[dict]) -> dict[str, tuple[str | None, list]]:
    if cluster_kind == "Eks":
        return {g["InstanceGroupName"]: (None, []) for g in groups}
    if any("SlurmConfig" in g for g in groups):
        return {g["InstanceGroupName"]: _stated_role(g) for g in groups}
    return validation.legacy_roles(slurm.scenario_with_bundles(world, groups), groups)


def _stated_role(spec: dict) -> tuple[str | None, list]:
    """The role a group's SlurmConfig states; a group without one states none (unknown, not Compute)."""
    slurm_config = spec.get("SlurmConfig") or {}
    return slurm_config.get("NodeType"), list(slurm_config.get("PartitionNames") or [])


def _unique_cluster_id(world: World) -> str:
    while True:
        cid = ids.cluster_id(world.rng)
        if cid not in world.clusters:
            return cid


# -- operations -----------------------------------------------------------------------------------
def create_cluster(world: World, region: str, params: dict) -> dict:
    validation.check_model("CreateCluster", params)
    name = params["ClusterName"]
    groups = params.get("InstanceGroups") or []
    rigs = params.get(restricted.RESTRICTED) or []
    if not groups and not rigs:
        raise ValidationException.field("InstanceGroups", validation.NO_GROUPS)
    if any(cluster.name == name for cluster in world.clusters_in(region)):
        raise ValidationException(f"Cluster {name} already exists. Choose a different name.")
    kind = validation.orchestrator_kind(params.get("Orchestrator"))
    continuous = params.get("NodeProvisioningMode") == "Continuous"
    problems = restricted.create_rules(params, kind) + list(service_rules.create_problems(params))
    validation.raise_if(problems)
    quota_usage.check(world, region, name, {g["InstanceGroupName"]: quota_usage.spec_usage(g) for g in groups + rigs})
    roles = _roles(world, kind, groups)
    if kind == "Slurm":
        problems = validation.slurm_topology_rules([roles[g["InstanceGroupName"]][0] for g in groups])
        for index, group in enumerate(groups):
            if roles[group["InstanceGroupName"]][0] == CONTROLLER and group["InstanceCount"] < 1:
                problems.append(
                    validation.Violation(f"InstanceGroups[{index}].InstanceCount", "the controller group needs at least 1 instance")
                )
        validation.raise_if(problems)

    cid = _unique_cluster_id(world)
    op_id = ids.new_uuid(world.rng)
    config = {
        key: copy.deepcopy(value)
        for key, value in params.items()
        if key not in ("ClusterName", "InstanceGroups", restricted.RESTRICTED, "NodeProvisioningMode")
    }
    cluster = Cluster(cid, name, ids.cluster_arn(region, world.account, cid), region, world.now, kind, continuous, config)
    if not continuous:
        cluster.operation = {"kind": "create", "id": op_id}
    prov.assign_subnets(world, cluster, list((params.get("VpcConfig") or {}).get("Subnets") or []))
    world.add_cluster(cluster)
    world.emit(cluster, "Info", "Cluster", f"Cluster {name} create started successfully", op_id=op_id)
    for spec in groups:
        role, partitions = roles[spec["InstanceGroupName"]]
        _add_group(world, cluster, spec, role, partitions, op_id, creating=True)
    for spec in rigs:
        _add_group(world, cluster, spec, None, [], op_id, creating=True, restricted=True)
    return {"ClusterArn": cluster.arn}


def describe_cluster(world: World, region: str, params: dict) -> dict:
    validation.check_model("DescribeCluster", params)
    return views.describe_cluster(world.find_cluster(region, params["ClusterName"]))


def list_clusters(world: World, region: str, params: dict) -> dict:
    validation.check_model("ListClusters", params)
    after = to_seconds(params["CreationTimeAfter"]) if params.get("CreationTimeAfter") is not None else None
    before = to_seconds(params["CreationTimeBefore"]) if params.get("CreationTimeBefore") is not None else None
    clusters = [
        cluster
        for cluster in world.clusters_in(region)
        if (not params.get("NameContains") or params["NameContains"] in cluster.name)
        and (after is None or cluster.created_at > after)
        and (before is None or cluster.created_at < before)
        and (
            not params.get("TrainingPlanArn")
            or any(g.spec.get("TrainingPlanArn") == params["TrainingPlanArn"] for g in cluster.groups.values())
        )
    ]
    by_name = params.get("SortBy") == "NAME"
    keys = [((c.name, c.created_at) if by_name else (c.created_at, c.name)) for c in clusters]
    order = sorted(range(len(clusters)), key=keys.__getitem__)
    chosen, token = pagination.page(
        [clusters[i] for i in order],
        [keys[i] for i in order],
        descending=params.get("SortOrder") == "Descending",
        max_results=params.get("MaxResults"),
        token=params.get("NextToken"),
    )
    response: dict = {"ClusterSummaries": [views.cluster_summary(cluster) for cluster in chosen]}
    if token:
        response["NextToken"] = token
    return response


IMMUTABLE_ON_UPDATE = {
    "NodeProvisioningMode": "cannot be unset or changed: Continuous is the only value UpdateCluster accepts (it "
    "restates a Continuous cluster's mode), and a Continuous cluster cannot leave it; omit "
    "the field to keep the cluster's mode, or create a new cluster",
    "VpcConfig": "cannot be changed on an existing cluster; create a new cluster",
}


def update_cluster(world: World, region: str, params: dict) -> dict:
    problems = [
        validation.Violation(problem.path, IMMUTABLE_ON_UPDATE[problem.path]) if problem.path in IMMUTABLE_ON_UPDATE else problem
        for problem in servicemodel.violations("UpdateCluster", params)
    ]
    validation.raise_if(problems)
    cluster = world.find_cluster(region, params["ClusterName"])
    require_writable(cluster, "UpdateCluster")
    continuous = cluster.continuous
    specs = params.get("InstanceGroups") or []
    rigs = params.get(restricted.RESTRICTED) or []
    problems = _mode_rules(cluster, params)
    if params.get("NodeProvisioningMode") == "Continuous" and cluster.orchestrator == "Eks":
        continuous = True  # the update moves the cluster to Continuous: its rules are a continuous cluster's
    problems += restricted.update_rules(cluster, params)
    problems += validation.update_rules(cluster, params, continuous)
    problems += validation.group_rules(specs, continuous=continuous, orchestrator=cluster.orchestrator)
    merged = {name: group.spec for name, group in cluster.groups.items() if not group.deleting}
    for name in params.get("InstanceGroupsToDelete") or []:
        merged.pop(name, None)
    merged.update({spec["InstanceGroupName"]: spec for spec in specs + rigs})
    problems += validation.group_limit_rules(len(merged))
    problems += validation.autoscaling_update_rules(cluster, params)
    validation.raise_if(problems)
    usage = quota_usage.cluster_usage(cluster)
    quota_usage.check(
        world,
        region,
        cluster.name,
        quota_usage.with_changes(
            usage,
            {spec["InstanceGroupName"]: quota_usage.spec_usage(spec, usage.get(spec["InstanceGroupName"])) for spec in specs + rigs},
            params.get("InstanceGroupsToDelete") or (),
        ),
    )
    new_specs = [spec for spec in specs if spec["InstanceGroupName"] not in cluster.groups]
    roles = _update_roles(
        world, cluster, new_specs, [spec for name, spec in merged.items() if not _is_restricted(cluster, name, rigs)], continuous
    )
    roles.update({spec["InstanceGroupName"]: (None, []) for spec in rigs})

    op_id = ids.new_uuid(world.rng)
    world.touch(cluster)
    for key in ("NodeRecovery", "TieredStorageConfig", "ClusterRole", "AutoScaling", "Orchestrator", restricted.SHARED):
        if key in params:
            cluster.config[key] = copy.deepcopy(params[key])
    _enter_continuous(world, cluster, params)
    marked = [(spec, False) for spec in specs] + [(spec, True) for spec in rigs]
    if cluster.continuous:
        _update_continuous(world, cluster, params, marked, roles, op_id)
    else:
        _update_all_or_nothing(world, cluster, params, marked, roles, op_id)
    world.emit(cluster, "Info", "Cluster", f"Cluster {cluster.name} update started successfully", op_id=op_id)
    return {"ClusterArn": cluster.arn}


def _is_restricted(cluster: Cluster, name: str, rigs: list[dict]) -> bool:
    group = cluster.groups.get(name)
    return group.restricted if group is not None else any(spec["InstanceGroupName"] == name for spec in rigs)


def _mode_rules(cluster: Cluster, params: dict) -> list[validation.Violation]:
    """A Slurm cluster keeps its provisioning mode. The AWS page on Slurm continuous provisioning:
    "Existing clusters using the previous scaling model cannot be migrated to continuous provisioning at
    this time"; no page says so of EKS, and UpdateCluster takes NodeProvisioningMode (Continuous, its
    only value), so an EKS cluster moves to Continuous with it (`_enter_continuous`)."""
    if params.get("NodeProvisioningMode") == "Continuous" and not cluster.continuous and cluster.orchestrator != "Eks":
        return [
            validation.Violation(
                "NodeProvisioningMode",
                f"cluster {cluster.name} uses all-or-nothing "
                "provisioning, and existing Slurm clusters cannot be migrated to Continuous "
                "provisioning; omit NodeProvisioningMode to update it as it is, or create a "
                "new cluster with NodeProvisioningMode Continuous",
            )
        ]
    return []


def _enter_continuous(world: World, cluster: Cluster, params: dict) -> None:
    """An EKS cluster moved to Continuous: from this update on, its groups scale as continuous ones
    (partial capacity, retries, MinCount reported)."""
    if params.get("NodeProvisioningMode") != "Continuous" or cluster.continuous:
        return
    cluster.continuous = True
    for group in cluster.groups.values():
        group.new_in_op = False


def _update_roles(world: World, cluster: Cluster, new_specs: list[dict], merged: list[dict], continuous: bool) -> dict:
    if cluster.orchestrator == "Eks":
        return {spec["InstanceGroupName"]: (None, []) for spec in new_specs}
    if any("SlurmConfig" in spec for spec in merged):
        roles = {spec["InstanceGroupName"]: _stated_role(spec) for spec in merged}
        validation.raise_if(validation.slurm_topology_rules([role for role, _ in roles.values()]))
        return roles
    known = [g.spec for g in cluster.groups.values()] + new_specs
    legacy = validation.legacy_roles(slurm.scenario_with_bundles(world, known), known)
    return {spec["InstanceGroupName"]: legacy[spec["InstanceGroupName"]] for spec in new_specs}


# Members an UpdateCluster entry may leave out and the group keeps (the member table's `kept` rule):
# the members a group is built with (role, threads, VPC override), the image, the Slurm role and
# partitions. Every other member is the entry's.
_KEPT = tuple(
    m.parts
    for m in members.rows("group")
    if m.omitted == "kept" and m.path not in ("InstanceGroupName", "InstanceCount", "MinInstanceCount")
)


def _apply_spec(group: InstanceGroup, spec: dict, roles: dict) -> None:
    """Record configuration changes; nodes launched from now on are built with them.

    The entry is the group's whole specification: a member it leaves out is removed, except those the
    member table keeps (a group's Slurm node type never changes, so leaving SlurmConfig out keeps it).
    """
    previous = group.spec
    if group.restricted:
        group.spec = restricted.kept(previous, spec)
        return
    group.spec = copy.deepcopy(spec)
    for parts in _KEPT:
        if parts == ("InstanceType",) and "InstanceRequirements" in group.spec:
            continue
        if parts[0] == "InstanceRequirements" and "InstanceType" in group.spec:
            continue
        old = _get(previous, parts)
        if old is not None and _get(group.spec, parts) is None:
            _put(group.spec, parts, old)
    if group.name in roles and roles[group.name][0] is not None:
        group.partitions = roles[group.name][1]


def _get(data: dict, parts: tuple[str, ...]):
    for part in parts:
        data = data.get(part) if isinstance(data, dict) else None
    return data


def _put(data: dict, parts: tuple[str, ...], value) -> None:
    for part in parts[:-1]:
        data = data.setdefault(part, {})
    data[parts[-1]] = copy.deepcopy(value)


def _existing_or_added(world: World, cluster: Cluster, spec: dict, roles: dict, op_id: str, rig: bool) -> InstanceGroup | None:
    """The group an UpdateCluster entry names; a name the cluster does not have yet adds a new
    group (None: it needs no further update). `rig`: the entry is in RestrictedInstanceGroups."""
    group = cluster.groups.get(spec["InstanceGroupName"])
    if group is None:
        role, partitions = roles[spec["InstanceGroupName"]]
        _add_group(world, cluster, spec, role, partitions, op_id, creating=False, restricted=rig)
    return group


def _update_continuous(world: World, cluster: Cluster, params: dict, specs: list[tuple[dict, bool]], roles: dict, op_id: str) -> None:
    timeout = world.scenario.timing.min_count_timeout_seconds
    for spec, rig in specs:
        group = _existing_or_added(world, cluster, spec, roles, op_id, rig)
        if group is None:
            continue
        old_min = group.min_count
        _apply_spec(group, spec, roles)
        _retarget(world, cluster, group, spec["InstanceCount"], op_id, "Scale-in requested by UpdateCluster")
        group.min_count = spec.get("MinInstanceCount", old_min if old_min <= group.target else group.target)
        current = sum(1 for node in cluster.group_nodes(group.name) if node.phase == "running")
        if group.status in ("Creating", "Updating"):
            if group.min_count != old_min:  # the timeout restarts with each MinCount update
                world.schedule_deadline(cluster, group.name, world.now + timeout)
        elif group.min_count != old_min and group.min_count > current:
            # seed 000: an existing group goes Updating when its MinCount is *modified* and not yet
            # met; restating the same MinCount (a plain scale-out) leaves it InService
            group.status = "Updating"
            world.schedule_deadline(cluster, group.name, world.now + timeout)
        else:
            group.last_good = [group.target, group.min_count]
        world.emit(
            cluster,
            "Info",
            "InstanceGroup",
            f"InstanceGroup {group.name} update started successfully in Cluster {cluster.name}",
            group=group.name,
            op_id=op_id,
            metadata={"InstanceGroupScaling": {"InstanceCount": current, "TargetCount": group.target, "MinCount": group.min_count}},
        )
    for name in params.get("InstanceGroupsToDelete") or []:
        reconcile.delete_group(world, cluster, name)


def _retarget(world: World, cluster: Cluster, group: InstanceGroup, target: int, op_id: str, reason: str) -> None:
    live = [node for node in cluster.group_nodes(group.name) if node.live]
    if target > len(live):
        new_nodes(world, cluster, group, target - len(live), op_id)
    else:
        for victim in prov.choose_victims(live, len(live) - target):
            prov.terminate(world, cluster, victim, reason)
    group.target = target


def _update_all_or_nothing(world: World, cluster: Cluster, params: dict, specs: list[tuple[dict, bool]], roles: dict, op_id: str) -> None:
    snapshot = {name: {"spec": copy.deepcopy(g.spec), "target": g.target, "min_count": g.min_count} for name, g in cluster.groups.items()}
    op = {
        "kind": "update",
        "id": op_id,
        "snapshot": snapshot,
        "scale_in": {},
        "delete_groups": list(params.get("InstanceGroupsToDelete") or []),
    }
    cluster.operation, cluster.status = op, "Updating"
    for spec, rig in specs:
        group = _existing_or_added(world, cluster, spec, roles, op_id, rig)
        if group is None:
            continue
        _apply_spec(group, spec, roles)
        live = [node for node in cluster.group_nodes(group.name) if node.live]
        if spec["InstanceCount"] > len(live):
            new_nodes(world, cluster, group, spec["InstanceCount"] - len(live), op_id)
        elif spec["InstanceCount"] < len(live):
            op["scale_in"][group.name] = len(live) - spec["InstanceCount"]  # applied once additions succeed
        group.target, group.status = spec["InstanceCount"], "Updating"


def delete_cluster(world: World, region: str, params: dict) -> dict:
    validation.check_model("DeleteCluster", params)
    cluster = world.find_cluster(region, params["ClusterName"])
    if cluster.status == "Deleting":
        raise ConflictException(f"Cluster {cluster.name} is already being deleted.")
    cluster.status, cluster.operation = "Deleting", None
    for group in cluster.groups.values():
        group.status = "Deleting"
        world.schedule_retry(cluster, group.name, None)
        world.schedule_deadline(cluster, group.name, None)
    for node in list(cluster.nodes.values()):
        prov.terminate(world, cluster, node, "Cluster is being deleted")
    world.schedule_cluster(cluster, world.now + world.scenario.timing.terminate_seconds)
    world.emit(cluster, "Info", "Cluster", f"Cluster {cluster.name} delete started successfully")
    return {"ClusterArn": cluster.arn}
