"""The documented rules the service model cannot express (seeds 000 and 001, the API reference).

Each rule looks at the request-shaped dict (model key spelling) and yields Violations with the
field path, so a user sees `InstanceGroups[2].MinInstanceCount: …` and knows what to change.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterator

from ..servicemodel import Violation

CONTINUOUS = "Continuous"


def is_continuous(request: dict[str, Any]) -> bool:
    return request.get("NodeProvisioningMode") == CONTINUOUS


def orchestrator_kind(request: dict[str, Any]) -> str:
    """"Eks" or "Slurm" — a cluster without an Orchestrator is a Slurm cluster."""
    orchestrator = request.get("Orchestrator") or {}
    return "Eks" if isinstance(orchestrator, dict) and "Eks" in orchestrator else "Slurm"


def _groups(request: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    groups = request.get("InstanceGroups") or []
    return [(i, g) for i, g in enumerate(groups) if isinstance(g, dict)] if isinstance(groups, list) else []


def _node_type(group: dict[str, Any]) -> str | None:
    slurm = group.get("SlurmConfig")
    return slurm.get("NodeType") if isinstance(slurm, dict) else None


def cluster_rules(request: dict[str, Any]) -> Iterator[Violation]:
    continuous = is_continuous(request)
    kind = orchestrator_kind(request)
    groups = _groups(request)
    orchestrator = request.get("Orchestrator")

    if isinstance(orchestrator, dict) and "Eks" in orchestrator and "Slurm" in orchestrator:
        yield Violation("Orchestrator", "give either Eks or Slurm, not both")
    if request.get("InstanceGroupsToDelete") is not None:
        yield Violation(
            "InstanceGroupsToDelete",
            "is not part of a desired spec: remove the group from InstanceGroups and the plan deletes it",
        )
    strategy = (orchestrator or {}).get("Slurm", {}) if isinstance(orchestrator, dict) else {}
    if continuous and isinstance(strategy, dict) and strategy.get("SlurmConfigStrategy") is not None:
        yield Violation(
            "Orchestrator.Slurm.SlurmConfigStrategy",
            "is not supported with NodeProvisioningMode Continuous (continuous provisioning manages "
            "slurm.conf in merge mode only); remove it",
        )

    names = Counter(g.get("InstanceGroupName") for _, g in groups)
    for index, group in groups:
        name = group.get("InstanceGroupName")
        if name is not None and names[name] > 1:
            yield Violation(f"InstanceGroups[{index}].InstanceGroupName", f"{name!r} is used by more than one group; names must be unique")
    yield from _group_rules(groups, continuous, kind)
    if kind == "Slurm":
        yield from _slurm_topology(groups, continuous)


def _group_rules(groups, continuous: bool, kind: str) -> Iterator[Violation]:
    for index, group in groups:
        at = f"InstanceGroups[{index}]"
        has_type = group.get("InstanceType") is not None
        has_requirements = group.get("InstanceRequirements") is not None
        if has_type == has_requirements:
            yield Violation(
                at,
                "give exactly one of InstanceType (a fixed type) or InstanceRequirements.InstanceTypes (a flexible group)",
            )
        count, minimum = group.get("InstanceCount"), group.get("MinInstanceCount")
        if _is_int(minimum) and minimum > 0 and not continuous:
            yield Violation(f"{at}.MinInstanceCount", "is only supported with NodeProvisioningMode Continuous")
        if _is_int(minimum) and _is_int(count) and minimum > count:
            yield Violation(f"{at}.MinInstanceCount", f"must be between 0 and InstanceCount ({count}); got {minimum}")
        requirements = group.get("InstanceRequirements")
        if isinstance(requirements, dict) and isinstance(requirements.get("InstanceTypes"), list):
            types = requirements["InstanceTypes"]
            for dup in sorted({t for t in types if types.count(t) > 1}, key=str):
                yield Violation(f"{at}.InstanceRequirements.InstanceTypes", f"{dup!r} is listed more than once")
        if kind == "Eks" and group.get("SlurmConfig") is not None:
            yield Violation(f"{at}.SlurmConfig", "only applies to Slurm clusters; this cluster is orchestrated by EKS")
        if kind == "Slurm" and group.get("KubernetesConfig") is not None:
            yield Violation(f"{at}.KubernetesConfig", "only applies to EKS clusters; this cluster is orchestrated by Slurm")


def _slurm_topology(groups, continuous: bool) -> Iterator[Violation]:
    with_config = [(i, g) for i, g in groups if g.get("SlurmConfig") is not None]
    if continuous:
        for index, group in groups:
            if group.get("SlurmConfig") is None:
                yield Violation(
                    f"InstanceGroups[{index}].SlurmConfig",
                    "is required on every group of a Slurm cluster in Continuous mode "
                    "(NodeType, and PartitionNames for compute groups); provisioning_parameters.json is not used",
                )
    if not with_config:
        return
    controllers = [(i, g) for i, g in with_config if _node_type(g) == "Controller"]
    logins = [(i, g) for i, g in with_config if _node_type(g) == "Login"]
    if len(controllers) != 1:
        where = ", ".join(f"InstanceGroups[{i}]" for i, _ in controllers) or "none"
        yield Violation("InstanceGroups", f"a Slurm cluster needs exactly one group with SlurmConfig.NodeType Controller; found {len(controllers)} ({where})")
    if len(logins) > 1:
        where = ", ".join(f"InstanceGroups[{i}]" for i, _ in logins)
        yield Violation("InstanceGroups", f"a Slurm cluster has at most one Login group; found {len(logins)} ({where})")
    for index, group in controllers:
        if continuous and _is_int(group.get("InstanceCount")) and group["InstanceCount"] != 1:
            yield Violation(
                f"InstanceGroups[{index}].InstanceCount",
                f"the Controller group runs exactly 1 node in Continuous mode (multi-head controllers are not supported); got {group['InstanceCount']}",
            )
    for index, group in with_config:
        partitions = group["SlurmConfig"].get("PartitionNames") if isinstance(group["SlurmConfig"], dict) else None
        if partitions and _node_type(group) in ("Controller", "Login"):
            yield Violation(f"InstanceGroups[{index}].SlurmConfig.PartitionNames", f"only Compute groups belong to partitions; this group is a {_node_type(group)} group")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
