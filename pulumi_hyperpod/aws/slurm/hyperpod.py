"""A Slurm spec on a HyperPod cluster: the rules that hold there, and each group's role.

On HyperPod a node pool is an instance group. Roles come from the Slurm spec (login pool,
controller pool, partitions); where the cluster spec already gives a group `SlurmConfig`, the two
must agree. What HyperPod cannot carry is refused with the reason: a group in two partitions
(`SlurmConfig.PartitionNames` and base-config's `worker_groups[].partition_name` hold one), a
Filestore home, a group with no role.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from pulumi_hyperpod.core.errors import Violation
from pulumi_hyperpod.aws.servicemodel import member_shape, shape
from pulumi_hyperpod.slurm.references import reference_violations
from pulumi_hyperpod.slurm.spec import PartitionNames, SlurmSpec

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.spec import ClusterSpec

CONTROLLER, LOGIN, COMPUTE = "Controller", "Login", "Compute"


@dataclass(frozen=True)
class GroupRole:
    group: str
    node_type: str  # Controller | Login | Compute
    partition: str | None = None


@cache
def partition_names() -> PartitionNames:
    """HyperPod's rule for a partition's id, read from botocore's model (ClusterPartitionName): the
    rule AWS passes when it loads a Slurm spec (slurm/spec.py takes it from the cloud)."""
    meta = shape("ClusterPartitionName").metadata
    return PartitionNames(
        pattern=meta["pattern"],
        maximum=meta.get("max", 1024),
        words="letters and digits, single or repeated '-' between them",
        source="HyperPod's PartitionName pattern",
    )


def max_partitions_per_group() -> int:
    """How many partitions `SlurmConfig.PartitionNames` takes (botocore's model: 1 today)."""
    return member_shape("ClusterSlurmConfig", "PartitionNames").metadata.get("max", 1)


def controller_group(cluster: ClusterSpec, slurm: SlurmSpec) -> str | None:
    declared = [g.name for g in cluster.instance_groups if g.node_type == CONTROLLER]
    return slurm.controller_node_pool_id or (declared[0] if len(declared) == 1 else None)


def hyperpod_violations(cluster: ClusterSpec, slurm: SlurmSpec, *, prefix: str = "slurm") -> list[Violation]:
    """Every reason this Slurm spec cannot run on this HyperPod cluster (empty: it can)."""
    at = (lambda path: f"{prefix}.{path}") if prefix else (lambda path: path)
    names = [g.name for g in cluster.instance_groups]
    problems = reference_violations(slurm, names, kind="instance group", prefix=prefix)
    if cluster.orchestrator_kind != "Slurm":
        problems.append(Violation("Orchestrator", "the cluster is orchestrated by EKS; a Slurm spec needs a Slurm cluster"))
        return problems
    if controller_group(cluster, slurm) is None:
        problems.append(
            Violation(
                at("controller_node_pool_id"),
                "is required on HyperPod: the instance group that runs "
                "slurmctld (or give that group SlurmConfig.NodeType Controller in the cluster spec)",
            )
        )
    problems += spec_violations(slurm, prefix=prefix)
    if not problems:
        problems += _agreement(cluster, slurm)
    return problems


def spec_violations(slurm: SlurmSpec, *, prefix: str = "slurm") -> list[Violation]:
    """What HyperPod cannot carry in any cluster: a group in several partitions, a Filestore home."""
    at = (lambda path: f"{prefix}.{path}") if prefix else (lambda path: path)
    problems = _partition_limits(slurm, at)
    storage = slurm.home_storage
    if storage is not None and storage.kind == "filestore":
        problems.append(
            Violation(
                at("home_directory_storage"),
                "is a Filestore instance, which a HyperPod cluster cannot "
                "mount; give DNS_NAME@tcp:/MOUNT_NAME (FSx for Lustre) or DNS_NAME:/fsx (FSx for OpenZFS)",
            )
        )
    return problems


def group_roles(cluster: ClusterSpec, slurm: SlurmSpec) -> dict[str, GroupRole]:
    """group name -> its role under this Slurm spec (call after `hyperpod_violations` is empty)."""
    controller = controller_group(cluster, slurm)
    partitions = slurm.pool_partitions()
    roles = {}
    for group in cluster.instance_groups:
        if group.name == controller:
            roles[group.name] = GroupRole(group.name, CONTROLLER)
        elif group.name == slurm.login_node_pool_id:
            roles[group.name] = GroupRole(group.name, LOGIN)
        elif partitions.get(group.name):
            roles[group.name] = GroupRole(group.name, COMPUTE, partitions[group.name][0])
    return roles


def no_role_violation(index: int, name: object) -> Violation:
    return Violation(
        f"InstanceGroups[{index}]",
        f"instance group {name!r} has no Slurm role: add it to a partition of the "
        "Slurm spec, or name it login_node_pool_id or controller_node_pool_id",
    )


def _partition_limits(slurm: SlurmSpec, at) -> list[Violation]:
    limit = max_partitions_per_group()
    problems = []
    referenced = slurm.referenced_pools()
    for pool, partitions in slurm.pool_partitions().items():
        if len(partitions) > limit:
            problems.append(
                Violation(
                    at(referenced[pool]),
                    (
                        f"instance group {pool!r} is in {len(partitions)} partitions ({', '.join(partitions)}); on HyperPod a group "
                        f"belongs to at most {limit} (SlurmConfig.PartitionNames, provisioning_parameters.json worker_groups)"
                    ),
                )
            )
    return problems


def _agreement(cluster: ClusterSpec, slurm: SlurmSpec) -> list[Violation]:
    """Every group has a role, and a group's own SlurmConfig says the same as the Slurm spec."""
    roles = group_roles(cluster, slurm)
    problems = []
    for index, group in enumerate(cluster.instance_groups):
        at = f"InstanceGroups[{index}]"
        role = roles.get(group.name)
        if role is None:
            problems.append(no_role_violation(index, group.name))
            continue
        if group.slurm_config is None:
            continue
        if group.slurm_config.node_type != role.node_type:
            problems.append(
                Violation(
                    f"{at}.SlurmConfig.NodeType",
                    f"is {group.slurm_config.node_type} but the Slurm spec makes {group.name!r} a {role.node_type} group",
                )
            )
        declared = list(group.slurm_config.partition_names or [])
        if declared and declared != ([role.partition] if role.partition else []):
            problems.append(
                Violation(
                    f"{at}.SlurmConfig.PartitionNames",
                    f"is {declared} but the Slurm spec puts {group.name!r} in {[role.partition] if role.partition else []}",
                )
            )
    return problems
