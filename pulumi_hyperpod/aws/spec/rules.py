"""The documented rules the service model cannot express (seeds 000 and 001, the API reference).

The spec checks a desired cluster with them before any call (`spec_rules`; the model's
sentence-rules are documented.py's). The simulator keeps its own implementation of the same
documentation (sim/aws/service_rules.py), so a rule written wrong here is not answered the same
wrong way there: tests/input/test_one_rule_source.py runs both and lists where they differ. Every
rule takes plain request-shaped dicts (the model's key spelling) and yields Violations with the field
path: `InstanceGroups[2].MinInstanceCount: …`.

Decisions, with their sources:
- `MinInstanceCount` above 0 needs `NodeProvisioningMode: Continuous` (seed 000: "MinCount only
  applies to clusters with NodeProvisioningMode Continuous"); 0 is accepted everywhere, because it is
  the documented default ("setting MinInstanceCount to 0 (the default) keeps the standard
  behaviour") and the model's minimum.
- The Controller group needs at least one instance, and exactly one in Continuous mode (seed 000:
  multi-head controllers are not supported with continuous provisioning), at creation and on every
  update (UpdateCluster, and BatchAddClusterNodes, which cannot add to it).
- FSx storage (FsxLustreConfig, FsxOpenZfsConfig) needs a custom VPC: the cluster's VpcConfig or the
  group's OverrideVpcConfig (AWS CLI getting-started guide, its list of validation errors).
- Tags: each key once, and no key with the reserved `aws:` prefix (AWS tagging rules).
- A cluster has at least one instance group (the model's `min: 1` on InstanceGroups and
  RestrictedInstanceGroups, which are each optional on their own).
"""

from __future__ import annotations

from collections import Counter
from typing import Any
from collections.abc import Iterable, Iterator

from pulumi_hyperpod.core.errors import Violation

CONTINUOUS = "Continuous"
CONTROLLER, LOGIN, COMPUTE = "Controller", "Login", "Compute"
NO_GROUPS = "a cluster needs at least one instance group (InstanceGroups, or RestrictedInstanceGroups on EKS); got none"
SINGLE_CONTROLLER = "the Controller group runs exactly 1 node in Continuous mode (multi-head controllers are not supported)"


def is_continuous(request: dict[str, Any]) -> bool:
    return request.get("NodeProvisioningMode") == CONTINUOUS


def orchestrator_kind(request: dict[str, Any]) -> str:
    """ "Eks" or "Slurm" — a cluster without an Orchestrator is a Slurm cluster."""
    orchestrator = request.get("Orchestrator") or {}
    return "Eks" if isinstance(orchestrator, dict) and orchestrator.get("Eks") is not None else "Slurm"


def node_type(group: dict[str, Any]) -> str | None:
    slurm = group.get("SlurmConfig")
    return slurm.get("NodeType") if isinstance(slurm, dict) else None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _groups(value: Any) -> list[tuple[int, dict[str, Any]]]:
    return [(i, g) for i, g in enumerate(value) if isinstance(g, dict)] if isinstance(value, list) else []


# ---- whole requests --------------------------------------------------------------------------------
def create_cluster_rules(request: dict[str, Any]) -> list[Violation]:
    """What the service checks on a CreateCluster request beyond the model (and the simulator does)."""
    continuous = is_continuous(request)
    kind = orchestrator_kind(request)
    groups = request.get("InstanceGroups")
    problems = list(orchestrator_rules(request.get("Orchestrator")))
    problems += strategy_rules(request.get("Orchestrator"), continuous)
    if not groups and not request.get("RestrictedInstanceGroups"):
        problems.append(Violation("InstanceGroups", NO_GROUPS))
    problems += group_rules(groups, continuous=continuous, kind=kind)
    problems += fsx_vpc_rules(groups, has_vpc=request.get("VpcConfig") is not None)
    problems += tag_rules(request.get("Tags"))
    problems += autoscaling_rules(request)
    problems += restricted_group_rules(request, kind)
    if kind == "Slurm":
        roles = [(index, node_type(group)) for index, group in _groups(groups) if group.get("SlurmConfig") is not None]
        if roles:
            problems += slurm_topology_rules(roles)
    return problems


def spec_rules(request: dict[str, Any]) -> list[Violation]:
    """A desired cluster: the CreateCluster rules, and what a desired state cannot say."""
    problems = create_cluster_rules(request)
    if request.get("InstanceGroupsToDelete") is not None:
        problems.append(
            Violation(
                "InstanceGroupsToDelete",
                "is not part of a desired spec: remove the group from InstanceGroups and the plan deletes it",
            )
        )
    return problems


# ---- the parts ------------------------------------------------------------------------------------
def restricted_group_rules(request: dict[str, Any], kind: str) -> list[Violation]:
    """Restricted instance groups (AWS, "Creating a HyperPod EKS cluster with restricted instance group
    (RIG)"): they belong to an EKS cluster; each is created with the size and throughput of the
    service-managed FSx for Lustre file system it relies on (its EnvironmentConfig, or the cluster's
    RestrictedInstanceGroupsConfig); a name names one group across both lists."""
    rigs = _groups(request.get("RestrictedInstanceGroups"))
    problems: list[Violation] = []
    if rigs and kind != "Eks":
        problems.append(
            Violation("RestrictedInstanceGroups", "restricted instance groups are available only on an EKS-orchestrated cluster")
        )
    shared = (request.get("RestrictedInstanceGroupsConfig") or {}).get("SharedEnvironmentConfig")
    names = {g.get("InstanceGroupName") for _, g in _groups(request.get("InstanceGroups"))}
    for index, group in rigs:
        if not ((group.get("EnvironmentConfig") or {}).get("FSxLustreConfig") or shared):
            problems.append(
                Violation(
                    f"RestrictedInstanceGroups[{index}].EnvironmentConfig.FSxLustreConfig",
                    "is required: a restricted instance group runs on an FSx for Lustre file system of the size and "
                    "throughput given here (or in RestrictedInstanceGroupsConfig)",
                )
            )
        if group.get("InstanceGroupName") in names:
            problems.append(
                Violation(f"RestrictedInstanceGroups[{index}].InstanceGroupName", f"{group['InstanceGroupName']!r} names another group")
            )
        names.add(group.get("InstanceGroupName"))
    return problems


def orchestrator_rules(orchestrator: Any, path: str = "Orchestrator") -> list[Violation]:
    """Exactly one of Eks or Slurm, when an Orchestrator is given at all."""
    if not isinstance(orchestrator, dict):
        return []
    given = [key for key in ("Eks", "Slurm") if orchestrator.get(key) is not None]
    if len(given) == 1:
        return []
    return [Violation(path, f"must specify exactly one orchestrator configuration: Eks or Slurm; got {', '.join(given) or 'none'}")]


def strategy_rules(orchestrator: Any, continuous: bool) -> list[Violation]:
    slurm = orchestrator.get("Slurm") if isinstance(orchestrator, dict) else None
    if continuous and isinstance(slurm, dict) and slurm.get("SlurmConfigStrategy") is not None:
        return [
            Violation(
                "Orchestrator.Slurm.SlurmConfigStrategy",
                "is not supported in Continuous mode (continuous provisioning manages slurm.conf in merge mode only); remove it",
            )
        ]
    return []


def group_rules(groups: Any, *, continuous: bool, kind: str, path: str = "InstanceGroups") -> list[Violation]:
    """Rules for the groups of a CreateCluster or UpdateCluster request."""
    problems: list[Violation] = []
    pairs = _groups(groups)
    names = Counter(g.get("InstanceGroupName") for _, g in pairs)
    for index, group in pairs:
        where = f"{path}[{index}]"
        name = group.get("InstanceGroupName")
        if isinstance(name, str) and names[name] > 1:
            problems.append(
                Violation(
                    f"{where}.InstanceGroupName",
                    f"duplicate instance group name {name!r}: used by more than one group; names must be unique",
                )
            )
        problems += _instance_type_rules(group, where)
        problems += _min_count_rules(group, where, continuous)
        problems += _orchestrator_member_rules(group, where, kind, continuous)
        problems += _controller_size_rules(group, where, continuous)
    return problems


def _instance_type_rules(group: dict[str, Any], where: str) -> Iterator[Violation]:
    has_type, has_requirements = group.get("InstanceType") is not None, group.get("InstanceRequirements") is not None
    if has_type and has_requirements:
        yield Violation(
            where,
            "InstanceType and InstanceRequirements are mutually exclusive; give exactly one of "
            "InstanceType (a fixed type) or InstanceRequirements.InstanceTypes (a flexible group)",
        )
    elif not has_type and not has_requirements:
        yield Violation(
            where,
            "one of InstanceType or InstanceRequirements is required; give exactly one of "
            "InstanceType (a fixed type) or InstanceRequirements.InstanceTypes (a flexible group)",
        )
    requirements = group.get("InstanceRequirements")
    types = requirements.get("InstanceTypes") if isinstance(requirements, dict) else None
    if isinstance(types, list):
        counts = Counter(t for t in types if isinstance(t, str))
        for duplicate in sorted(t for t, n in counts.items() if n > 1):
            yield Violation(
                f"{where}.InstanceRequirements.InstanceTypes", f"{duplicate!r} is listed more than once; list each instance type once"
            )


def _min_count_rules(group: dict[str, Any], where: str, continuous: bool) -> Iterator[Violation]:
    count, minimum = group.get("InstanceCount"), group.get("MinInstanceCount")
    if not _is_int(minimum):
        return
    if minimum > 0 and not continuous:
        yield Violation(
            f"{where}.MinInstanceCount",
            "is only supported when NodeProvisioningMode is Continuous (0, the default, is the only value other clusters take)",
        )
    elif _is_int(count) and minimum > count:
        yield Violation(f"{where}.MinInstanceCount", f"must be between 0 and InstanceCount ({count}); got {minimum}")


def _orchestrator_member_rules(group: dict[str, Any], where: str, kind: str, continuous: bool) -> Iterator[Violation]:
    slurm = group.get("SlurmConfig")
    if kind == "Eks" and slurm is not None:
        yield Violation(f"{where}.SlurmConfig", "is only valid for Slurm-orchestrated clusters; this cluster is orchestrated by EKS")
    if kind == "Slurm" and group.get("KubernetesConfig") is not None:
        yield Violation(f"{where}.KubernetesConfig", "is only valid for EKS-orchestrated clusters; this cluster is orchestrated by Slurm")
    if kind == "Slurm" and continuous and slurm is None:
        yield Violation(
            f"{where}.SlurmConfig",
            "is required on every instance group of a Slurm cluster in Continuous "
            "mode (NodeType, and PartitionNames for compute groups); "
            "provisioning_parameters.json is not used",
        )
    role = node_type(group)
    partitions = slurm.get("PartitionNames") if isinstance(slurm, dict) else None
    if kind == "Slurm" and partitions and role in (CONTROLLER, LOGIN):
        yield Violation(f"{where}.SlurmConfig.PartitionNames", f"only Compute groups belong to partitions; this group is a {role} group")


def _controller_size_rules(group: dict[str, Any], where: str, continuous: bool) -> Iterator[Violation]:
    count = group.get("InstanceCount")
    if node_type(group) != CONTROLLER or not _is_int(count):
        return
    if count < 1:
        yield Violation(f"{where}.InstanceCount", "the controller group needs at least 1 instance")
    elif continuous and count != 1:
        yield Violation(f"{where}.InstanceCount", f"{SINGLE_CONTROLLER}; got {count}")


def tag_rules(tags: Any, path: str = "Tags") -> list[Violation]:
    """AWS tagging rules: each key once per resource, and the `aws:` prefix is reserved for AWS use."""
    pairs = _groups(tags)
    counts = Counter(tag.get("Key") for _, tag in pairs)
    problems = []
    for index, tag in pairs:
        key = tag.get("Key")
        if not isinstance(key, str):
            continue
        if key.lower().startswith("aws:"):
            problems.append(Violation(f"{path}[{index}].Key", f"{key!r}: the aws: prefix is reserved for AWS use"))
        elif counts[key] > 1:
            problems.append(Violation(f"{path}[{index}].Key", f"duplicate tag key {key!r}: give each key once"))
    return problems


def autoscaling_rules(request: dict[str, Any]) -> list[Violation]:
    """AutoScaling Mode Enable (Karpenter) needs an EKS cluster in Continuous mode, a ClusterRole for the
    autoscaler to assume, and NodeRecovery Automatic (AWS, HyperPod autoscaling with Karpenter; the
    model's ClusterRole: "the cluster role for the autoscaler to assume"). `request` is the cluster as
    it will be: a CreateCluster request, or the cluster's settings with an UpdateCluster's on top."""
    scaling = request.get("AutoScaling")
    if not isinstance(scaling, dict) or scaling.get("Mode") != "Enable":
        return []
    needs = []
    if orchestrator_kind(request) != "Eks":
        needs.append(("Orchestrator", "an EKS orchestrator (Orchestrator.Eks)"))
    if not is_continuous(request):
        needs.append(("NodeProvisioningMode", "NodeProvisioningMode Continuous"))
    if not request.get("ClusterRole"):
        needs.append(("ClusterRole", "a ClusterRole for the autoscaler to assume"))
    if request.get("NodeRecovery", "Automatic") != "Automatic":
        needs.append(("NodeRecovery", "NodeRecovery Automatic"))
    return [Violation("AutoScaling.Mode", f"Enable needs {what}; give {path} or set AutoScaling Mode Disable") for path, what in needs]


FSX = ("FsxLustreConfig", "FsxOpenZfsConfig")


def fsx_vpc_rules(groups: Any, *, has_vpc: bool, path: str = "InstanceGroups") -> list[Violation]:
    """FSx file systems mount only in a custom VPC (AWS CLI getting-started guide: "FSx configurations
    are only supported for Custom VPC"; "If using FSx, you must specify a Custom VPC configuration")."""
    problems = []
    for index, group in _groups(groups):
        if has_vpc or group.get("OverrideVpcConfig") is not None:
            continue
        storage = group.get("InstanceStorageConfigs")
        for slot, config in enumerate(storage if isinstance(storage, list) else []):
            kind = next((key for key in FSX if isinstance(config, dict) and config.get(key) is not None), None)
            if kind:
                problems.append(
                    Violation(
                        f"{path}[{index}].InstanceStorageConfigs[{slot}].{kind}",
                        "FSx configurations are only supported for a custom VPC: give the cluster "
                        "a VpcConfig (Subnets and SecurityGroupIds)",
                    )
                )
    return problems


def slurm_topology_rules(roles: Iterable[tuple[int, str | None]], path: str = "InstanceGroups") -> list[Violation]:
    """Exactly one Controller group and at most one Login group; `roles` is (group index, node type)."""
    roles = list(roles)
    controllers = [index for index, role in roles if role == CONTROLLER]
    logins = [index for index, role in roles if role == LOGIN]
    problems = []
    if len(controllers) != 1:
        where = ", ".join(f"{path}[{i}]" for i in controllers) or "none"
        problems.append(
            Violation(
                path,
                "a Slurm cluster needs exactly one instance group with SlurmConfig NodeType "
                f"Controller; found {len(controllers)} ({where})",
            )
        )
    if len(logins) > 1:
        where = ", ".join(f"{path}[{i}]" for i in logins)
        problems.append(
            Violation(
                path, f"a Slurm cluster can have at most one instance group with SlurmConfig NodeType Login; found {len(logins)} ({where})"
            )
        )
    return problems
