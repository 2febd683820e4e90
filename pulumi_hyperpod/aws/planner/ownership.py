"""Who owns what the spec does not: an autoscaler's counts, and the rules that come with it.

With AutoScaling Mode Enable (Karpenter), a group's count is the autoscaler's: the plan shows it
("5 now, spec 3, owned by Karpenter") and never moves it back (AWS, HyperPod autoscaling with
Karpenter). The autoscaler assumes the ClusterRole, which cannot change while autoscaling is on.
A spec that turns autoscaling off takes the counts back: the plan reconciles them to the spec and
says so, since the nodes the autoscaler added are then the spec's to keep or remove.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pulumi_hyperpod.plans.model import Refusal
from pulumi_hyperpod.aws.planner.codes import RefusalRule

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.aws.spec import ClusterSpec


def count_owner(desired: ClusterSpec, observed: ClusterState) -> str | None:
    """The autoscaler owning the groups' counts (its type, Karpenter by default), when the cluster
    has autoscaling on and the spec keeps it on; None: the spec owns them."""
    scaling = observed.describe.get("AutoScaling") or {}
    wanted = desired.auto_scaling.mode if desired.auto_scaling is not None else scaling.get("Mode")
    if scaling.get("Mode") == "Enable" and wanted == "Enable":
        return scaling.get("AutoScalerType") or "Karpenter"
    return None


def handback_notes(desired: ClusterSpec, observed: ClusterState) -> list[str]:
    """The note of a plan that disables autoscaling: the counts are the spec's again."""
    scaling = observed.describe.get("AutoScaling") or {}
    if scaling.get("Mode") != "Enable" or desired.auto_scaling is None or desired.auto_scaling.mode == "Enable":
        return []
    moved = []
    for want in desired.instance_groups:
        have = observed.group(want.name)
        if have is not None and have.target_count != want.instance_count:
            moved.append(f"{want.name}: {have.target_count} now, spec {want.instance_count}")
    owner = scaling.get("AutoScalerType") or "Karpenter"
    counts = "; ".join(moved) if moved else f"every group is at its spec count already, so {owner} leaves none behind"
    return [
        f"AutoScaling Mode Enable → {desired.auto_scaling.mode}: the group counts are the spec's again ({counts}); the plan reconciles them"
    ]


def autoscaling_refusals(desired: ClusterSpec, observed: ClusterState) -> list[Refusal]:
    """ClusterRole cannot change while autoscaling is on."""
    scaling = (observed.describe.get("AutoScaling") or {}).get("Mode")
    have, want = observed.describe.get("ClusterRole"), desired.cluster_role
    if scaling == "Enable" and want is not None and have is not None and want != have:
        return [
            Refusal(
                RefusalRule.AUTOSCALING_CLUSTER_ROLE,
                f"ClusterRole {have} → {want} cannot change while AutoScaling Mode is "
                "Enable; disable autoscaling first, then change the role",
            )
        ]
    return []
