"""The quotas enforced: CreateCluster, UpdateCluster and BatchAddClusterNodes answer
ResourceLimitExceeded (the model lists it for all three) when the instances they ask for would pass
a Service Quotas value in effect (`quotas.value`: the applied value, else the AWS default).

Usage is counted the way the preflight counts it (`preflight/quotas.py`), so the simulator never
refuses what a clean preflight let through: every cluster of the caller's account in the region that is not Deleting, by
TargetCount; a flexible group's launched instances by their type, and its capacity still to come
only in the cluster-wide totals (HyperPod places it on whichever of its types has room). A request
is refused only for a count it raises: a cluster already over a lowered quota can still scale in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from pulumi_hyperpod.sim.aws import quotas
from pulumi_hyperpod.sim.aws.errors import ResourceLimitExceeded
from pulumi_hyperpod.sim.aws.model import Cluster, InstanceGroup
from pulumi_hyperpod.sim.aws.world import World

# What a group asks for: (the key of the per-type quota its instances count against — `key()` —, or
# None for a flexible group's capacity still to come, count).
Usage = Counter
SPOT, TRAINING_PLAN = " (Spot)", " (training plan)"


def key(spec: Mapping, instance_type: str) -> str:
    """The usage key of a group's instances: the instance type for on-demand capacity, marked for Spot
    (CapacityRequirements.Spot: "<type> for spot cluster usage") and for a training plan's
    reservation (TrainingPlanArn: no per-type quota, the plan reserved them)."""
    if spec.get("TrainingPlanArn"):
        return instance_type + TRAINING_PLAN
    if (spec.get("CapacityRequirements") or {}).get("Spot") is not None:
        return instance_type + SPOT
    return instance_type


def _type_code(usage_key: str) -> str | None:
    if usage_key.endswith(TRAINING_PLAN):
        return None
    if usage_key.endswith(SPOT):
        return quotas.type_quota_code(usage_key[: -len(SPOT)], spot=True)
    return quotas.type_quota_code(usage_key)


def group_usage(cluster: Cluster, group: InstanceGroup) -> Usage:
    if not group.flexible:
        return Counter({key(group.spec, group.instance_types[0]): group.target})
    launched = Counter(key(group.spec, node.instance_type) for node in cluster.group_nodes(group.name) if node.live and node.instance_type)
    pending = group.target - sum(launched.values())
    return launched + Counter({None: pending}) if pending > 0 else launched


def spec_usage(spec: Mapping, current: Usage | None = None) -> Usage:
    """A ClusterInstanceGroupSpecification's usage; `current`: the group's usage now (a flexible
    group keeps its launched instances, up to the new count)."""
    count = spec["InstanceCount"]
    if spec.get("InstanceType"):
        return Counter({key(spec, spec["InstanceType"]): count})
    kept: Usage = Counter()
    for instance_type, launched in sorted((current or Counter()).items(), key=lambda item: item[0] is None):
        if instance_type is not None and count > 0:
            kept[instance_type] = min(launched, count)
            count -= kept[instance_type]
    return kept + Counter({None: count}) if count > 0 else kept


def cluster_usage(cluster: Cluster) -> dict[str, Usage]:
    return {name: group_usage(cluster, group) for name, group in cluster.groups.items() if not group.deleting}


def check(world: World, region: str, cluster_name: str, after: Mapping[str, Usage]) -> None:
    """Refuse a request that leaves `cluster_name`'s groups at `after` (group → usage) when that
    raises a count past its quota."""
    others: Usage = Counter()
    mine_before: Usage = Counter()
    for cluster in world.clusters_in(region):
        if cluster.status == "Deleting":
            continue
        usage = sum(cluster_usage(cluster).values(), Counter())
        if cluster.name == cluster_name:
            mine_before = usage
        else:
            others += usage
    mine_after = sum(after.values(), Counter())
    for usage_key in sorted(t for t in mine_after if t is not None):
        code = _type_code(usage_key)
        if code is not None:
            _refuse_if(world, region, code, others[usage_key] + mine_before[usage_key], others[usage_key] + mine_after[usage_key])
    total_before, total_after = sum(mine_before.values()), sum(mine_after.values())
    _refuse_if(world, region, quotas.PER_CLUSTER[0], total_before, total_after)
    _refuse_if(world, region, quotas.ACROSS_CLUSTERS[0], sum(others.values()) + total_before, sum(others.values()) + total_after)


def with_changes(current: Mapping[str, Usage], changed: Mapping[str, Usage], removed: Iterable[str] = ()) -> dict[str, Usage]:
    after = {name: usage for name, usage in current.items() if name not in set(removed)}
    after.update(changed)
    return after


def _refuse_if(world: World, region: str, code: str, before: int, after: int) -> None:
    limit = quotas.value(world, region, code)
    if after > before and after > limit:
        raise ResourceLimitExceeded(
            f"The account-level service limit '{quotas.defaults()[code][0]}' is {limit:g} Instances, with current "
            f"utilization of {before} Instances and a request delta of {after - before} Instances. Please use AWS "
            "Service Quotas to request an increase for this quota. If AWS Service Quotas is not available, contact "
            "AWS support to request an increase for this quota."
        )
