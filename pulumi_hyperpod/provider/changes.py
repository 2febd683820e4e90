"""What a change of inputs means for the Pulumi resource: nothing, an update, or a replacement.

Counts and everything UpdateCluster takes change in place. What the service cannot change
(docs/DESIGN.md; `aws.planner.compare.replacement_reasons`) forces a replacement: the cluster name, the VPC,
the orchestrator (or its EKS cluster), leaving Continuous mode, a Slurm cluster entering it — and a move to another backend or
region, which is another cluster altogether. Groups are compared by name, unordered lists
(subnets, security groups, tags) as sets, so reordering is no change.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any
from collections.abc import Mapping

from pulumi_hyperpod.provider.cloud_provider import Replacement
from pulumi_hyperpod.provider.unknowns import is_unknown, unknown_paths
from pulumi_hyperpod.aws.members import rows  # the table: read with the first comparison of specs
from pulumi_hyperpod.aws.spec.rules import CONTINUOUS, orchestrator_kind
from pulumi_hyperpod.aws.planner.compare import provisioning_mode_change

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.provider.settings import Location


def spec_changed(old: Any, new: Any) -> bool:
    """Whether the new spec asks for anything the old one did not. A group member the member table
    keeps when left out (ThreadsPerCore, which the service sets at creation and reports; the
    create-only members) that the new spec leaves out is no change: the cluster keeps it. An
    imported spec, read from DescribeCluster, holds them; the program usually does not."""
    return bool(normalized(_kept_left_out(old, new)) != normalized(new))


_COUNTS = ("InstanceGroupName", "InstanceCount", "MinInstanceCount")


def _kept_left_out(old: Any, new: Any) -> Any:
    if not isinstance(old, Mapping) or not isinstance(new, Mapping):
        return old

    kept = [row.parts for row in rows("group") if row.omitted == "kept" and row.path not in _COUNTS]
    wanted = {g.get("InstanceGroupName"): g for g in new.get("InstanceGroups") or [] if isinstance(g, Mapping)}
    groups = []
    for group in old.get("InstanceGroups") or []:
        other = wanted.get(group.get("InstanceGroupName")) if isinstance(group, Mapping) else None
        if other is not None:
            group = _without(group, [parts for parts in kept if _at(other, parts) is None])
        groups.append(group)
    return {**old, "InstanceGroups": groups} if "InstanceGroups" in old else old


def _at(data: Any, parts: tuple[str, ...]) -> Any:
    for part in parts:
        data = data.get(part) if isinstance(data, Mapping) else None
    return data


def _without(group: Mapping[str, Any], paths: list[tuple[str, ...]]) -> dict[str, Any]:
    result = copy.deepcopy(dict(group))
    for parts in paths:
        holder: Any = result
        for part in parts[:-1]:
            holder = holder.get(part) if isinstance(holder, dict) else None
        if isinstance(holder, dict):
            holder.pop(parts[-1], None)
    return {key: value for key, value in result.items() if value != {} or group.get(key) == {}}


def normalized(spec: Any) -> Any:
    """The spec with order that means nothing taken out."""
    if not isinstance(spec, Mapping):
        return spec
    result = dict(spec)
    for key in ("InstanceGroups", "RestrictedInstanceGroups"):  # groups of either kind are matched by name
        groups = result.get(key)
        if isinstance(groups, list):
            result[key] = {
                (g.get("InstanceGroupName") if isinstance(g, Mapping) and isinstance(g.get("InstanceGroupName"), str) else f"#{i}"): g
                for i, g in enumerate(groups)
            }
    vpc = result.get("VpcConfig")
    if isinstance(vpc, Mapping):
        result["VpcConfig"] = {k: sorted(v, key=str) if isinstance(v, list) else v for k, v in vpc.items()}
    tags = result.get("Tags")
    if isinstance(tags, list):
        result["Tags"] = sorted((t.get("Key"), t.get("Value")) if isinstance(t, Mapping) else (str(t), None) for t in tags)
    return result


def spec_replacements(old: Any, new: Any) -> list[Replacement]:
    # the service's rules load with the first comparison of specs, not with this module

    if not isinstance(old, Mapping):
        return []
    if is_unknown(new):
        # The engine hides a whole property when something it depends on is being replaced
        # (an IAM role, say). Claiming a replacement of the cluster on that ground would be
        # alarming and almost always wrong; `pulumi up` decides with the values known.
        return []
    if not isinstance(new, Mapping):
        return []
    found: list[Replacement] = []
    old_n, new_n = normalized(old), normalized(new)

    def member(key: str, reason: str, compare: bool = True) -> None:
        value = new_n.get(key)
        if unknown_paths(value):
            found.append(Replacement(f"spec.{key}", f"{key} is not known yet; if it differs, {reason}", certain=False))
        elif compare and value != old_n.get(key):
            found.append(Replacement(f"spec.{key}", reason))

    member("ClusterName", f"the cluster name cannot change ({old.get('ClusterName')} → {new.get('ClusterName')})")
    if "VpcConfig" in new:  # left out: the cluster keeps its VPC (as the planner reads it)
        member("VpcConfig", "VpcConfig cannot change after creation")
    orchestrators = (orchestrator_kind(dict(old)), orchestrator_kind(dict(new)))
    eks_arns = tuple(((o.get("Orchestrator") or {}).get("Eks") or {}).get("ClusterArn") for o in (old, new))
    if unknown_paths(new.get("Orchestrator")):
        member("Orchestrator", "the orchestrator cannot change after creation")
    elif orchestrators[0] != orchestrators[1]:
        reason = f"the orchestrator cannot change after creation ({orchestrators[0]} → {orchestrators[1]})"
        found.append(Replacement("spec.Orchestrator", reason))
    elif eks_arns[0] != eks_arns[1]:
        reason = "Orchestrator.Eks.ClusterArn (the EKS cluster) cannot change after creation"
        found.append(Replacement("spec.Orchestrator", reason))
    mode = new.get("NodeProvisioningMode")
    if is_unknown(mode) and old.get("NodeProvisioningMode") == CONTINUOUS:
        reason = "NodeProvisioningMode is not known yet; a cluster cannot leave Continuous mode"
        found.append(Replacement("spec.NodeProvisioningMode", reason, certain=False))
    elif not is_unknown(mode):
        change = provisioning_mode_change(old.get("NodeProvisioningMode") == CONTINUOUS, mode == CONTINUOUS, orchestrators[1])
        if change:
            found.append(Replacement("spec.NodeProvisioningMode", change))
    return found


def location_replacements(old: Location | None, new: Location | None) -> list[Replacement]:
    if old is None or new is None or old.where() == new.where():
        return []
    found = []
    if old.backend != new.backend:
        found.append(Replacement("backend", f"the backend moves ({old.backend} → {new.backend}): another cluster altogether"))
    if old.region != new.region:
        found.append(Replacement("region", f"the region moves ({old.region} → {new.region}): another cluster altogether"))
    return found
