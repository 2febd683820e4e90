"""The service's cross-field rules, as the simulator answers them: written here from the service's
documentation (the model's sentences, the HyperPod pages, seeds 000 and 001), not imported from the
spec's or the planner's rules. The two are separate witnesses: a rule written wrong on one side is
an answer the other side does not give, and tests/input/test_one_rule_source.py runs both over the
bad-input corpus and generated requests, listing the differences it knows with their reasons.

Every check here reads the request as the wire delivered it (the model's spelling) and gives
Violations with the field path, which `validation.raise_if` turns into one ValidationException.

The sources, by check:
- groups: InstanceType or InstanceRequirements, exactly one (model, ClusterInstanceRequirements:
  "mutually exclusive"); unique group names; MinInstanceCount above 0 only in Continuous mode, never
  above InstanceCount (seed 000); SlurmConfig only on Slurm, KubernetesConfig only on EKS, SlurmConfig
  on every group of a Continuous Slurm cluster, partitions only on Compute groups, a Controller group
  of at least 1 instance and exactly 1 in Continuous mode (seed 000);
- patching (model, ClusterAutoPatchConfig): DrainFirst "Available only for clusters that use Amazon
  EKS" and "Requires MaximumBatchSize in DeploymentConfig"; DrainPolicy "Valid only when
  PatchingStrategy is DrainFirst"; IdleWaitWindowInSeconds "applies only to the WhenIdle and
  WhenAllIdle strategies"; batches (DeploymentConfig) on EKS only (AWS, "Update your AMI version":
  "Updating your cluster in batches is available only for HyperPod clusters integrated with Amazon
  EKS"), as UpdateClusterSoftware answers (software.py);
- ScheduleExpression is a cron expression the scheduler can read (`patching.parse_cron`);
- one lifecycle entrypoint: OnCreate or OnInitComplete (issue 37's outside round);
- EBS (model, ClusterEbsVolumeConfig.RootVolume): the root volume takes no VolumeSizeInGB and needs a
  VolumeKmsKeyId; a secondary volume needs VolumeSizeInGB;
- the cluster: one orchestrator (model, ClusterOrchestrator); no SlurmConfigStrategy in Continuous mode
  (seed 000); AccountingDatabase only in Continuous mode (model); FSx only in a custom VPC (AWS CLI
  getting-started guide); tag keys unique and not `aws:` (AWS tagging rules); AutoScaling Enable needs
  EKS, Continuous, a ClusterRole and NodeRecovery Automatic (AWS, HyperPod autoscaling with Karpenter).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Iterable, Iterator

from pulumi_hyperpod.core.errors import Violation
from pulumi_hyperpod.sim.aws.patching import parse_cron  # croniter: loaded by the requests that carry a schedule

NO_GROUPS = "a cluster needs at least one instance group (InstanceGroups, or RestrictedInstanceGroups on EKS); got none"
SINGLE_CONTROLLER = "the Controller group runs exactly 1 node in Continuous mode (multi-head controllers are not supported)"
CONTROLLER, LOGIN = "Controller", "Login"


@dataclass(frozen=True, slots=True)
class Shape:
    """What a group's rules need to know of its cluster."""

    kind: str  # "Slurm" | "Eks"
    continuous: bool


Finding = tuple[str, str]  # (path below the group, "" for the group itself; the message)
GroupCheck = Callable[[dict, Shape], Iterator[Finding]]


def _dig(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _items(value: Any) -> Iterator[tuple[int, dict]]:
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, dict):
                yield index, item


def _whole(value: Any) -> bool:
    return type(value) is int


# ---- the orchestrator ----------------------------------------------------------------------------------
def orchestrator_problems(orchestrator: Any, path: str = "Orchestrator") -> list[Violation]:
    if not isinstance(orchestrator, dict):
        return []
    chosen = [name for name in ("Eks", "Slurm") if orchestrator.get(name) is not None]
    if len(chosen) != 1:
        return [Violation(path, f"must specify exactly one orchestrator configuration: Eks or Slurm; got {', '.join(chosen) or 'none'}")]
    return []


def kind_of(orchestrator: Any) -> str:
    """A request without an Orchestrator creates a Slurm cluster."""
    return "Eks" if _dig(orchestrator, "Eks") is not None else "Slurm"


# ---- each group ---------------------------------------------------------------------------------------
def _type_choice(group: dict, shape: Shape) -> Iterator[Finding]:
    given = [key for key in ("InstanceType", "InstanceRequirements") if group.get(key) is not None]
    choose = "give exactly one of InstanceType (a fixed type) or InstanceRequirements.InstanceTypes (a flexible group)"
    if len(given) == 2:
        yield "", f"InstanceType and InstanceRequirements are mutually exclusive; {choose}"
    elif not given:
        yield "", f"one of InstanceType or InstanceRequirements is required; {choose}"
    listed = [t for t in _dig(group, "InstanceRequirements", "InstanceTypes") or [] if isinstance(t, str)]
    for twice in sorted({t for t in listed if listed.count(t) > 1}):
        yield ".InstanceRequirements.InstanceTypes", f"{twice!r} appears more than once; give each instance type once"


def _min_count(group: dict, shape: Shape) -> Iterator[Finding]:
    minimum, count = group.get("MinInstanceCount"), group.get("InstanceCount")
    if not _whole(minimum):
        return
    if minimum > 0 and not shape.continuous:
        yield ".MinInstanceCount", "is only supported when NodeProvisioningMode is Continuous (0, its default, is what other clusters take)"
    elif _whole(count) and minimum > count:
        yield ".MinInstanceCount", f"must be between 0 and InstanceCount ({count}); got {minimum}"


def _orchestration(group: dict, shape: Shape) -> Iterator[Finding]:
    slurm = group.get("SlurmConfig")
    if shape.kind == "Eks":
        if slurm is not None:
            yield ".SlurmConfig", "is only valid for Slurm-orchestrated clusters; this cluster is orchestrated by Amazon EKS"
        return
    if group.get("KubernetesConfig") is not None:
        yield ".KubernetesConfig", "is only valid for EKS-orchestrated clusters; this cluster is orchestrated by Slurm"
    if slurm is None and shape.continuous:
        yield ".SlurmConfig", "is required for every instance group of a Slurm cluster with NodeProvisioningMode Continuous"
    role = _dig(slurm, "NodeType")
    if _dig(slurm, "PartitionNames") and role in (CONTROLLER, LOGIN):
        yield ".SlurmConfig.PartitionNames", f"only Compute instance groups are placed in partitions; this one is a {role} group"


def _controller(group: dict, shape: Shape) -> Iterator[Finding]:
    count = group.get("InstanceCount")
    if shape.kind != "Slurm" or _dig(group, "SlurmConfig", "NodeType") != CONTROLLER or not _whole(count):
        return
    if count < 1:
        yield ".InstanceCount", "the controller group needs at least 1 instance"
    elif shape.continuous and count != 1:
        yield ".InstanceCount", f"{SINGLE_CONTROLLER}; got {count}"


def _auto_patch(group: dict, shape: Shape) -> Iterator[Finding]:
    patch = group.get("AutoPatchConfig")
    if not isinstance(patch, dict):
        return
    strategy = patch.get("PatchingStrategy")
    drain_first = strategy == "DrainFirst"
    if drain_first and shape.kind != "Eks":
        yield ".AutoPatchConfig.PatchingStrategy", "DrainFirst is available only for clusters that use Amazon EKS as the orchestrator"
    elif drain_first and _dig(patch, "DeploymentConfig", "RollingUpdatePolicy", "MaximumBatchSize") is None:
        yield (
            ".AutoPatchConfig.DeploymentConfig",
            "PatchingStrategy DrainFirst requires MaximumBatchSize in DeploymentConfig.RollingUpdatePolicy",
        )
    elif patch.get("DeploymentConfig") is not None and shape.kind != "Eks":
        yield (
            ".AutoPatchConfig.DeploymentConfig",
            "updates in batches are available only for clusters that use Amazon EKS as the orchestrator",
        )
    if patch.get("DrainPolicy") is not None and not drain_first:
        yield ".AutoPatchConfig.DrainPolicy", f"is valid only when PatchingStrategy is DrainFirst; got {strategy}"
    if patch.get("IdleWaitWindowInSeconds") is not None and drain_first:
        yield ".AutoPatchConfig.IdleWaitWindowInSeconds", "applies only to the WhenIdle and WhenAllIdle strategies; got DrainFirst"


def _scheduled_update(group: dict, shape: Shape) -> Iterator[Finding]:
    scheduled = group.get("ScheduledUpdateConfig")
    if not isinstance(scheduled, dict):
        return
    if scheduled.get("DeploymentConfig") is not None and shape.kind != "Eks":
        yield (
            ".ScheduledUpdateConfig.DeploymentConfig",
            "updates in batches are available only for clusters that use Amazon EKS as the orchestrator",
        )
    expression = scheduled.get("ScheduleExpression")
    if isinstance(expression, str):
        if parse_cron(expression) is None:
            yield ".ScheduledUpdateConfig.ScheduleExpression", f"{expression!r} is not a valid cron expression"


def _entrypoint(group: dict, shape: Shape) -> Iterator[Finding]:
    if _dig(group, "LifeCycleConfig", "OnCreate") is not None and _dig(group, "LifeCycleConfig", "OnInitComplete") is not None:
        yield ".LifeCycleConfig", "OnCreate and OnInitComplete cannot be used together; specify one entrypoint script"


def _volumes(group: dict, shape: Shape) -> Iterator[Finding]:
    for slot, config in _items(group.get("InstanceStorageConfigs")):
        ebs = config.get("EbsVolumeConfig")
        if not isinstance(ebs, dict):
            continue
        where = f".InstanceStorageConfigs[{slot}].EbsVolumeConfig"
        root, size, key = ebs.get("RootVolume") is True, ebs.get("VolumeSizeInGB"), ebs.get("VolumeKmsKeyId")
        if root and size is not None:
            yield where + ".VolumeSizeInGB", "cannot be specified for the root volume; its size is determined for you"
        if root and key is None:
            yield where + ".VolumeKmsKeyId", "must be specified when RootVolume is true"
        if not root and size is None:
            yield where + ".VolumeSizeInGB", "must be specified for a secondary volume"


GROUP_CHECKS: tuple[GroupCheck, ...] = (
    _type_choice,
    _min_count,
    _orchestration,
    _controller,
    _auto_patch,
    _scheduled_update,
    _entrypoint,
    _volumes,
)
RESTRICTED_CHECKS: tuple[GroupCheck, ...] = (_scheduled_update, _volumes)


def group_problems(groups: Any, shape: Shape, path: str = "InstanceGroups", checks: Iterable[GroupCheck] = GROUP_CHECKS) -> list[Violation]:
    entries = list(_items(groups))
    checks = tuple(checks)
    seen = Counter(group.get("InstanceGroupName") for _, group in entries)
    problems = []
    for index, group in entries:
        where = f"{path}[{index}]"
        name = group.get("InstanceGroupName")
        if isinstance(name, str) and seen[name] > 1:
            problems.append(
                Violation(f"{where}.InstanceGroupName", f"duplicate instance group name {name!r}: each instance group needs its own name")
            )
        problems += [Violation(where + below, message) for check in checks for below, message in check(group, shape)]
    return problems


# ---- Slurm roles across groups ------------------------------------------------------------------------
def topology_problems(roles: Iterable[str | None], path: str = "InstanceGroups") -> list[Violation]:
    """Exactly one Controller group and at most one Login group among the groups whose role is known;
    none when no role is known (a legacy cluster without its provisioning_parameters.json)."""
    roles = list(roles)
    where: dict[str, list[str]] = {CONTROLLER: [], LOGIN: []}
    for index, role in enumerate(roles):
        if role in where:
            where[role].append(f"{path}[{index}]")
    problems: list[Violation] = []
    if all(role is None for role in roles):
        return problems
    if len(where[CONTROLLER]) != 1:
        found = ", ".join(where[CONTROLLER]) or "none"
        problems.append(
            Violation(
                path,
                f"a Slurm cluster needs exactly one instance group with SlurmConfig NodeType Controller; found {len(where[CONTROLLER])} ({found})",
            )
        )
    if len(where[LOGIN]) > 1:
        problems.append(
            Violation(
                path,
                f"a Slurm cluster takes at most one instance group with SlurmConfig NodeType Login; found {len(where[LOGIN])} ({', '.join(where[LOGIN])})",
            )
        )
    return problems


# ---- the cluster ---------------------------------------------------------------------------------------
def slurm_settings_problems(orchestrator: Any, continuous: bool) -> list[Violation]:
    slurm = _dig(orchestrator, "Slurm")
    problems = []
    if continuous and _dig(slurm, "SlurmConfigStrategy") is not None:
        problems.append(
            Violation(
                "Orchestrator.Slurm.SlurmConfigStrategy",
                "is not supported in Continuous mode (continuous provisioning keeps slurm.conf in merge mode); remove it",
            )
        )
    if not continuous and _dig(slurm, "AccountingDatabase") is not None:
        problems.append(
            Violation(
                "Orchestrator.Slurm.AccountingDatabase", "is only supported for clusters using Continuous as the NodeProvisioningMode"
            )
        )
    return problems


_FSX = ("FsxLustreConfig", "FsxOpenZfsConfig")


def fsx_problems(groups: Any, *, has_vpc: bool, path: str = "InstanceGroups") -> list[Violation]:
    problems = []
    for index, group in _items(groups):
        if has_vpc or group.get("OverrideVpcConfig") is not None:
            continue
        for slot, config in _items(group.get("InstanceStorageConfigs")):
            for kind in (k for k in _FSX if config.get(k) is not None):
                problems.append(
                    Violation(
                        f"{path}[{index}].InstanceStorageConfigs[{slot}].{kind}",
                        "FSx configurations are only supported for a custom VPC; specify a VpcConfig for the cluster",
                    )
                )
    return problems


def tag_problems(tags: Any, path: str = "Tags") -> list[Violation]:
    entries = list(_items(tags))
    keys = Counter(tag.get("Key") for _, tag in entries)
    problems = []
    for index, tag in entries:
        key = tag.get("Key")
        if isinstance(key, str) and key.lower().startswith("aws:"):
            problems.append(Violation(f"{path}[{index}].Key", f"{key!r}: the aws: prefix is reserved for AWS use"))
        elif isinstance(key, str) and keys[key] > 1:
            problems.append(
                Violation(f"{path}[{index}].Key", f"tag key {key!r} is given more than once; tag keys must be unique per resource")
            )
    return problems


def autoscaling_problems(cluster: dict) -> list[Violation]:
    """`cluster`: the cluster as the request leaves it (CreateCluster's request, or the settings with an
    UpdateCluster's on top)."""
    if _dig(cluster, "AutoScaling", "Mode") != "Enable":
        return []
    missing = [
        (kind_of(cluster.get("Orchestrator")) == "Eks", "an Amazon EKS orchestrator (Orchestrator.Eks)"),
        (cluster.get("NodeProvisioningMode") == "Continuous", "NodeProvisioningMode Continuous"),
        (bool(cluster.get("ClusterRole")), "a ClusterRole for the autoscaler to assume"),
        (cluster.get("NodeRecovery", "Automatic") == "Automatic", "NodeRecovery Automatic"),
    ]
    return [Violation("AutoScaling.Mode", f"Enable requires {what}") for held, what in missing if not held]


def create_problems(params: dict) -> list[Violation]:
    """A CreateCluster request's cross-field rules (the orchestrator is known to be valid)."""
    continuous = params.get("NodeProvisioningMode") == "Continuous"
    kind = kind_of(params.get("Orchestrator"))
    shape = Shape(kind, continuous)
    groups = params.get("InstanceGroups")
    problems = group_problems(groups, shape)
    problems += group_problems(params.get("RestrictedInstanceGroups"), shape, "RestrictedInstanceGroups", RESTRICTED_CHECKS)
    problems += slurm_settings_problems(params.get("Orchestrator"), continuous)
    problems += fsx_problems(groups, has_vpc=params.get("VpcConfig") is not None)
    problems += tag_problems(params.get("Tags"))
    problems += autoscaling_problems(params)
    return problems
