"""Desired vs observed configuration: what changed, what can change in place, what cannot.

Every member is compared as the member table says (`pulumi_hyperpod.aws.members`, `aws/planner/members.py`):
a group member the spec leaves out is removed or kept by the table's rule for it, and a cluster
member UpdateCluster takes is left as it is when the spec leaves it out (seed 004's
update_cluster.json has no VpcConfig). Lists whose order means nothing (subnets, security groups,
health checks) compare as sets; InstanceTypes of a flexible group keep their order, because order
is provisioning priority (seed 001).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any
from collections.abc import Mapping

from pulumi_hyperpod.aws.planner import members
from pulumi_hyperpod.aws.members import rows
from pulumi_hyperpod.aws.members.table import Scope
from pulumi_hyperpod.aws.planner.members import MemberChange

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.observe import ClusterState, GroupState
    from pulumi_hyperpod.aws.spec import AnyGroupSpec, ClusterSpec, InstanceGroupSpec

_UNORDERED = frozenset({"VpcConfig"})


def same(observed: Any, desired: Any, unordered: bool = False) -> bool:
    if observed == desired:  # the fast path: most members of most groups are unchanged
        return True
    from deepdiff import DeepDiff  # noqa: PLC0415 - deepdiff: heavy, loaded only when a member differs

    return not DeepDiff(observed, desired, ignore_order=unordered)


def group_member_changes(desired: InstanceGroupSpec, observed: GroupState) -> list[MemberChange]:
    """Every member of the group whose value the plan changes, each with the member table's verdict
    (`aws/planner/members.py`): set after creation, changed, or removed because the spec leaves it out."""
    changes = members.group_member_changes(desired.to_api(), observed.described, desired.name, scope_of(desired))
    if desired.node_type is not None and observed.node_type is None and not observed.described.get("SlurmConfig"):
        # a legacy group (roles from provisioning_parameters.json) given its role: the migration to
        # API-driven Slurm (AWS, "Migrating to API-driven Slurm configuration") sets it on every group
        changes.append(MemberChange(desired.name, "SlurmConfig.NodeType", "UpdateCluster", "set", None, desired.node_type))
    if desired.instance_requirements is not None and tuple(desired.instance_requirements.instance_types) != observed.instance_types:
        changes.append(
            MemberChange(
                desired.name,
                "InstanceRequirements.InstanceTypes",
                "UpdateCluster",
                "change",
                list(observed.instance_types),
                list(desired.instance_requirements.instance_types),
            )
        )
    return changes


def scope_of(group: AnyGroupSpec | GroupState) -> Scope:
    """The member table's rows a group is compared by: a restricted group's own shape, or an instance group's."""
    return "restricted-group" if group.restricted else "group"


def group_config_changes(desired: InstanceGroupSpec, observed: GroupState) -> list[str]:
    """Members of the group whose desired value differs from what the cluster has."""
    return [change.member for change in group_member_changes(desired, observed)]


def group_entry(desired: InstanceGroupSpec, observed: GroupState) -> dict[str, Any]:
    """The UpdateCluster entry for an existing group: its whole specification (`members.complete_entry`)."""
    return members.complete_entry(desired.to_api(), observed.described, scope_of(desired))


def group_immutable_changes(desired: InstanceGroupSpec, observed: GroupState) -> list[str]:
    """Changes UpdateCluster cannot make to an existing group, in words."""
    problems = []
    if desired.restricted != observed.restricted:
        # the two are different lists of the request (InstanceGroups, RestrictedInstanceGroups) and different shapes
        problems.append("a restricted instance group cannot become an instance group, nor the other way")
        return problems
    if desired.node_type is not None and observed.node_type is not None and desired.node_type != observed.node_type:
        problems.append(f"SlurmConfig.NodeType {observed.node_type} → {desired.node_type}")
    if (
        desired.instance_type is not None
        and observed.instance_type
        and not observed.described.get("InstanceRequirements")
        and desired.instance_type != observed.instance_type
    ):
        # "Updating SageMaker HyperPod cluster configuration" (update-cluster): to update an existing
        # instance group, specify the instance type initially assigned to it
        problems.append(
            f"InstanceType {observed.instance_type} → {desired.instance_type} (UpdateCluster takes only the type the group was created with)"
        )
    # each part names a change (what → what), as the others do: the refusal adds the verdict after them
    flexible = observed.described.get("InstanceRequirements")
    if desired.instance_requirements is not None and observed.instance_type and not flexible:
        types = json.dumps(list(desired.instance_requirements.instance_types))
        problems.append(f"InstanceType {observed.instance_type} → InstanceRequirements {types} (a fixed-type group made flexible)")
    if desired.instance_type is not None and flexible:
        types = json.dumps(list(flexible.get("DesiredInstanceTypes") or flexible.get("InstanceTypes") or []))
        problems.append(f"InstanceRequirements {types} → InstanceType {desired.instance_type} (a flexible group made fixed-type)")
    return problems


def provisioning_mode_change(was_continuous: bool, continuous: bool, orchestrator: str) -> str | None:
    """What NodeProvisioningMode cannot do on an existing cluster: the one rule the planner (desired vs
    observed) and the provider's diff (old vs new inputs) both apply. UpdateCluster takes the member,
    Continuous being its only value (the model; sagemaker-core PR 348), so no cluster leaves it; only
    the Slurm page forbids moving an existing cluster to it, so an EKS cluster moves with UpdateCluster
    (the member table's NodeProvisioningMode row)."""
    if was_continuous and not continuous:
        return "NodeProvisioningMode cannot leave Continuous once set"
    if continuous and not was_continuous and orchestrator != "Eks":
        # AWS, continuous provisioning for Slurm: existing clusters cannot be migrated to it
        return "an existing Slurm cluster cannot be switched to NodeProvisioningMode Continuous (only a new cluster can use it)"
    return None


def replacement_reasons(desired: ClusterSpec, observed: ClusterState) -> list[str]:
    """Cluster-level changes the service cannot make in place."""
    reasons: list[str] = []
    described = observed.describe
    want = desired.to_api()
    if observed.status == "Failed":
        reasons.append(f"the cluster is Failed ({observed.failure_message or 'no reason given'}); a Failed cluster cannot be updated")
    if "VpcConfig" in want and described.get("VpcConfig") and not same(described["VpcConfig"], want["VpcConfig"], True):
        reasons.append("VpcConfig cannot change after creation")
    if desired.orchestrator_kind != observed.orchestrator_kind:
        reasons.append(f"Orchestrator {observed.orchestrator_kind} → {desired.orchestrator_kind} cannot change after creation")
    elif desired.orchestrator_kind == "Eks":
        have_arn = (described.get("Orchestrator") or {}).get("Eks", {}).get("ClusterArn")
        want_arn = want["Orchestrator"]["Eks"]["ClusterArn"]
        if have_arn and have_arn != want_arn:
            reasons.append("Orchestrator.Eks.ClusterArn (the EKS cluster) cannot change after creation")
    mode = provisioning_mode_change(observed.continuous, desired.continuous, observed.orchestrator_kind)
    if mode:
        reasons.append(mode)
    return reasons


def restricted_config(described: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """DescribeCluster's ClusterRestrictedInstanceGroupsConfigOutput in the request's form
    (ClusterRestrictedInstanceGroupsConfig): the Desired FSx Lustre config and deletion policy, what
    the last UpdateCluster asked for (the Current ones follow once the service has made them)."""
    environment = (described or {}).get("SharedEnvironmentConfig")
    if not environment:
        return None
    request = {
        "FSxLustreDeletionPolicy": environment.get("DesiredFSxLustreDeletionPolicy", environment.get("CurrentFSxLustreDeletionPolicy")),
        "FSxLustreConfig": environment.get("DesiredFSxLustreConfig", environment.get("CurrentFSxLustreConfig")),
    }
    return {"SharedEnvironmentConfig": {k: v for k, v in request.items() if v is not None}}


def cluster_config_changes(desired: ClusterSpec, observed: ClusterState) -> dict[str, Any]:
    """Cluster-level members UpdateCluster takes that differ: member → desired value."""
    want = desired.to_api("UpdateCluster")
    described: Mapping[str, Any] = observed.describe
    changes: dict[str, Any] = {}
    for member in ("NodeRecovery", "ClusterRole", "TieredStorageConfig", "NodeProvisioningMode"):
        if member in want and not same(described.get(member), want[member]):
            changes[member] = want[member]
    # restricted groups are groups (the count planner's rows), not a cluster member; their shared config is one
    shared = "RestrictedInstanceGroupsConfig"
    if shared in want and not same(restricted_config(described.get(shared)), want[shared]):
        changes[shared] = want[shared]
    for row in rows("cluster"):  # structures whose parts the table lists: a part the spec gives and the cluster lacks
        top = row.parts[0]
        if row.change != "UpdateCluster" or len(row.parts) == 1 or top not in want:
            continue
        desired_part = members.get(want, row.parts)
        if desired_part is not None and not same(members.get(described, row.parts), desired_part):
            changes[top] = want[top]
    return changes


def cluster_change_reason(member: str, desired: ClusterSpec, observed: ClusterState) -> str:
    """The plan line of a cluster-level member UpdateCluster changes; a part no source decides says so."""
    want, described = desired.to_api("UpdateCluster"), observed.describe
    missing = [
        row.unverified
        for row in rows("cluster")
        if row.unverified
        and row.parts[0] == member
        and members.get(want, row.parts) is not None
        and not same(members.get(described, row.parts), members.get(want, row.parts))
    ]
    return f"cluster setting {member} changes" + "".join(f" (unverified: {text})" for text in missing)
