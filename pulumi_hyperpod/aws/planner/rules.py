"""plan(desired, observed, policy) -> Plan. Pure: no I/O, no clock, no randomness.

The decision table (also in docs/plans.md):

| change                                    | call                                   |
|-------------------------------------------|----------------------------------------|
| no cluster yet                            | CreateCluster                          |
| desired is None (destroy)                 | DeleteCluster                          |
| VpcConfig, Orchestrator, leaving Continuous, a Slurm cluster entering it, Failed cluster | replacement: DeleteCluster + CreateCluster, refused unless policy.allow_replacement |
| InstanceType, NodeType, fixed ↔ flexible of an existing group | refused: a new group with a new name |
| group config, new group, MinCount, cluster settings | one UpdateCluster (listing only the groups that change, each entry the group's whole specification: aws/members.py) |
| cluster Tags                              | AddTags / DeleteTags (tags.py)         |
| Extensions (a spec that names them)       | Create/Update/DeleteClusterExtension, last; on a new cluster after CreateCluster (extensions.py) |
| counts of an autoscaled cluster's groups  | none: shown as the autoscaler's (a spec disabling autoscaling takes them back: a note) |
| removed group                             | that UpdateCluster's InstanceGroupsToDelete |
| scale-out, all-or-nothing mode            | UpdateCluster (InstanceCount)          |
| scale-out, Continuous mode                | folded into the UpdateCluster when one is needed anyway, or when the group is Creating/Updating (BatchAdd is rejected then), or when BatchAddClusterNodes would take more calls than one UpdateCluster; otherwise BatchAddClusterNodes (≤ 50 per entry, ≤ 5 entries per call) |
| scale-in (any mode)                       | BatchDeleteClusterNodes naming the victims (≤ 99 per call); pending launches with no node to name: UpdateCluster lowers the count |
| scale-in of a Creating/Updating group     | UpdateCluster lowers the count (BatchDelete is blocked then; seed 000) |
| a group's ImageId / ImageReleaseVersion   | UpdateClusterSoftware, after the count steps (software.py: batches on EKS, all at once on Slurm) |
| --replace / --reboot, failed_nodes=replace | BatchReplaceClusterNodes / BatchRebootClusterNodes, last (repair.py: ≤ 25 per call, never a Slurm controller) |
| a group lowered and another of the same instance type raised, EKS + Continuous, InService | MoveClusterNodes for what can move (moves.py: the scale-in's Running victims, never below the source's MinCount; policy.allow_node_moves), then delete and add only the rest |

Guards refuse (a refused plan lists no steps): protected nodes in any step, the Slurm controller and
login groups, max_scale_in_fraction, replacement, and on a Slurm cluster whose roles are not known
(no SlurmConfig.NodeType, no `roles`), deleting a group or scaling one to 0.

Order: UpdateCluster, then MoveClusterNodes, then BatchDeleteClusterNodes, then BatchAddClusterNodes
— so a lowered MinCount is in place before nodes go, and scale-outs never wait behind deletions. With
policy.drain, a DrainNodes step (aws/planner/drain_step.py) comes right before the MoveClusterNodes
and BatchDeleteClusterNodes steps (a moved node's volumes are replaced: its work goes too).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any
from collections.abc import Mapping

from pulumi_hyperpod.aws.planner.policy import aws_policy
from pulumi_hyperpod.aws.observe import ClusterState, GroupState
from pulumi_hyperpod.aws.servicemodel import api_limits
from pulumi_hyperpod.aws.spec import AnyGroupSpec, ClusterSpec
from pulumi_hyperpod.aws.planner import compare, software
from pulumi_hyperpod.aws.planner.drain_step import drain_steps
from pulumi_hyperpod.aws.planner.basis import basis_of
from pulumi_hyperpod.aws.planner.batches import pack_adds, pack_deletes
from pulumi_hyperpod.aws.planner.members import member_line
from pulumi_hyperpod.aws.planner.ownership import autoscaling_refusals, count_owner, handback_notes
from pulumi_hyperpod.aws.planner.tags import tag_steps
from pulumi_hyperpod.aws.planner.extensions import creations, extension_changes
from pulumi_hyperpod.plans.model import GroupChange, Plan, Refusal, Step, Victim
from pulumi_hyperpod.plans.policy import Policy
from pulumi_hyperpod.aws.planner.premise import record  # what the steps assume (plans/steps.py), recorded with the plan's basis
from pulumi_hyperpod.aws.planner.codes import RefusalRule, StepReason

BUSY_GROUP_STATUSES = frozenset({"Creating", "Updating"})


def plan(
    desired: ClusterSpec | None,
    observed: ClusterState | None,
    policy: Policy | None = None,
    *,
    roles: Mapping[str, str] | None = None,
    workload: Any = None,
) -> Plan:
    """The plan that takes `observed` to `desired` (None: delete the cluster). Pure.

    `roles`: instance group name → Slurm role ("Controller" | "Login" | "Compute"), for clusters whose
    groups do not say it in SlurmConfig.NodeType (legacy Slurm clusters configured by the lifecycle
    scripts' provisioning_parameters.json). A group's role is its NodeType, else `roles[name]`.
    `workload`: what runs on each node (a pulumi_hyperpod.aws.workload.WorkloadView, read before planning):
    victims by policy.scale_in_order, and the DrainNodes step's expected wait (aws/planner/workload_order.py).
    Cost and preflight are later stages (`pipeline`)."""
    roles = dict(roles or {})
    return record(_plan(desired, observed, policy or Policy(), roles, workload), observed, roles, workload)


def _plan(desired: ClusterSpec | None, observed: ClusterState | None, policy: Policy, roles: dict[str, str], workload: Any = None) -> Plan:
    if desired is None:
        return _delete_plan(observed, policy)
    if observed is None:
        return _create_plan(desired)
    if observed.status == "Deleting":
        return Plan(
            cluster_name=desired.name,
            action="none",
            refusals=(
                Refusal(RefusalRule.CLUSTER_DELETING, f"cluster {desired.name} is being deleted; wait until it is gone, then plan again"),
            ),
            basis=basis_of(observed),
        )
    reasons = compare.replacement_reasons(desired, observed)
    if reasons:
        return _replace_plan(desired, observed, reasons, policy, roles)
    return _Updater(desired, observed, policy, roles, workload=workload).build()


def _create_plan(desired: ClusterSpec) -> Plan:
    groups = tuple(
        GroupChange(
            group=g.name,
            action="create",
            node_type=g.node_type,
            target_after=g.instance_count,
            min_after=g.effective_min_count(desired.continuous),
            instance_types=g.instance_types,
            restricted=g.restricted,
        )
        for g in desired.groups
    )
    total = sum(g.instance_count for g in desired.groups)
    mode = "Continuous" if desired.continuous else "all-or-nothing"
    step = Step(
        "CreateCluster",
        desired.to_api("CreateCluster"),
        (f"create cluster {desired.name}: {len(groups)} groups, {total} nodes, {mode} provisioning",),
        kind="create-cluster",
        codes=(StepReason.ABSENT,),
    )
    return Plan(cluster_name=desired.name, action="create", steps=(step, *creations(desired)), groups=groups)


def _protected_nodes(nodes, policy: Policy) -> list[str]:
    """The protected nodes among `nodes` (by instance or logical id)."""
    guarded = policy.protected_node_ids
    if not guarded:
        return []
    return sorted(n.key for n in nodes if n.key and (n.instance_id in guarded or (n.logical_id is not None and n.logical_id in guarded)))


def _unmatched_protection(observed: ClusterState, policy: Policy) -> list[str]:
    """A note for protected ids that name no node of this cluster, when the plan removes nodes:
    a policy may list several clusters' nodes, but a mistyped id protects nothing."""
    if not policy.protected_node_ids:
        return []  # nothing protected: no need to index every node's ids
    known = {node_id for node in observed.nodes for node_id in (node.instance_id, node.logical_id) if node_id}
    unmatched = sorted(policy.protected_node_ids - known)
    if not unmatched:
        return []
    return [
        f"protected node id(s) {', '.join(unmatched)} match no node of cluster {observed.name}: "
        "they protect nothing here (check them if they were meant for this cluster)"
    ]


def _protected_refusal(what: str, keys: list[str], group: str | None = None) -> Refusal:
    shown = ", ".join(keys[:5]) + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")
    return Refusal(
        RefusalRule.PROTECTED_NODE,
        f"{what} would remove protected node(s) {shown}; a protected node is never removed "
        "(take it out of policy.protected_node_ids / --protect first)",
        group,
    )


def _delete_plan(observed: ClusterState | None, policy: Policy) -> Plan:
    if observed is None:
        return Plan(cluster_name="", action="none")
    groups = tuple(
        GroupChange(
            group=g.name,
            action="delete",
            node_type=g.node_type,
            target_before=g.target_count,
            current=g.current_count,
            min_before=g.min_count,
            restricted=g.restricted,
        )
        for g in observed.groups
    )
    step = Step(
        "DeleteCluster",
        {"ClusterName": observed.name},
        (f"delete cluster {observed.name} and its {len(observed.nodes)} nodes",),
        kind="delete-cluster",
        codes=(StepReason.NOT_DESIRED,),
    )
    deletion = Plan(cluster_name=observed.name, action="delete", steps=(step,), groups=groups, basis=basis_of(observed))
    protected = _protected_nodes(observed.nodes, policy)
    return deletion.refuse(_protected_refusal(f"deleting cluster {observed.name}", protected)) if protected else deletion


def _replace_plan(desired: ClusterSpec, observed: ClusterState, reasons: list[str], policy: Policy, roles: dict[str, str]) -> Plan:
    steps = (
        Step(
            "DeleteCluster",
            {"ClusterName": observed.name},
            ("replace: delete the current cluster",),
            kind="delete-cluster",
            codes=(StepReason.CANNOT_UPDATE_IN_PLACE,),
        ),
        Step(
            "CreateCluster",
            desired.to_api("CreateCluster"),
            ("replace: create it again from the desired spec",),
            kind="create-cluster",
            codes=(StepReason.CANNOT_UPDATE_IN_PLACE,),
        ),
    )
    refusals: list[Refusal] = []
    if not policy.allow_replacement:
        refusals.append(
            Refusal(
                RefusalRule.REPLACEMENT,
                f"cluster {observed.name} must be replaced ({'; '.join(reasons)}), which deletes all "
                f"{len(observed.nodes)} nodes; set policy.allow_replacement to allow it",
            )
        )
    protected = _protected_nodes(observed.nodes, policy)
    if protected:
        refusals.append(_protected_refusal(f"replacing cluster {observed.name}", protected))
    # a replacement is exactly its two calls (integrity.py): the new cluster's extensions are the next plan's
    wanted = len(desired.extensions or ())
    later = (f"Extensions: the new cluster's {wanted} extension(s) are created by the next plan, once it is InService",)
    replacement = Plan(
        cluster_name=desired.name,
        action="replace",
        steps=steps,
        groups=_Updater(desired, observed, policy, roles).group_changes(),
        replacements=tuple(reasons),
        notes=later if wanted else (),
        basis=basis_of(observed),
    )
    return replacement.refuse(*refusals)


def _repairs(observed: ClusterState, policy: Policy, role: Any) -> Any:
    """repair.py's plan (steps, refusals, notes, the nodes replaced). It repairs only nodes the
    policy names and nodes in Failure: a cluster with neither, as most plans are, has nothing to
    repair under any policy, and the same empty record comes without loading repair.py's rules."""
    hyperpod = aws_policy(policy)
    if hyperpod.replace_node_ids or hyperpod.reboot_node_ids or any(n.status == "Failure" for n in observed.nodes):
        from pulumi_hyperpod.aws.planner import repair  # noqa: PLC0415 - not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)

        return repair.plan_repairs(observed, policy, role)
    return SimpleNamespace(steps=[], refusals=[], notes=[], replaced=set())


class _Updater:
    """One plan being built. A plain class, not a dataclass: a builder is never compared nor shown,
    and the methods a dataclass generates are compiled when the module loads, in every preview."""

    def __init__(self, desired: ClusterSpec, observed: ClusterState, policy: Policy, roles: dict[str, str], workload: Any = None) -> None:
        self.desired = desired
        self.observed = observed
        self.policy = policy
        self.roles = roles
        self.limits = api_limits()
        self.workload = workload  # a WorkloadView, or None (not read)
        self.refusals: list[Refusal] = []
        self.notes: list[str] = []
        self.update_groups: dict[str, dict[str, Any]] = {}  # group → its UpdateCluster entry
        self.update_reasons: list[str] = []
        self.scale_out: dict[str, int] = {}  # group → nodes to add
        self.victims: list[Victim] = []  # every node the scale-ins take out of their groups, moved or deleted
        self.deleted_victims: list[Victim] | None = None  # of those, the ones deleted when some move (None: all)
        self.delete_reasons: list[str] = []
        self.kept_nodes: set[str] = set()  # nodes a repair takes care of: never scale-in victims (build)
        self.deleted_groups: set[str] = set()  # the groups this plan deletes (build)
        self._member_changes: dict[str, list[compare.MemberChange]] = {}  # group → its member changes (member_changes)
        self._wanted = {g.name: g for g in reversed(self.desired.groups)}  # the first of a name, as desired.group

    # ---- per group ---------------------------------------------------------------------------
    def wanted(self, name: str) -> AnyGroupSpec | None:
        """desired.group(name), from an index: the planner asks it for every group several times."""
        return self._wanted.get(name)

    def role(self, name: str) -> str | None:
        """A group's Slurm role: its SlurmConfig.NodeType (desired, else as described), else `roles`."""
        want, have = self.wanted(name), self.observed.group(name)
        return (want.node_type if want is not None else None) or (have.node_type if have is not None else None) or self.roles.get(name)

    def unknown_roles(self) -> list[str]:
        """Groups of a Slurm cluster whose role nothing states (legacy clusters: lifecycle scripts decide)."""
        if self.desired.orchestrator_kind != "Slurm":
            return []
        names = dict.fromkeys([g.name for g in self.desired.instance_groups] + [g.name for g in self.observed.groups])
        return [name for name in names if self.role(name) is None]

    def group_changes(self) -> tuple[GroupChange, ...]:
        changes = []
        continuous = self.desired.continuous
        for want in self.desired.groups:
            have = self.observed.group(want.name)
            if have is None:
                changes.append(
                    GroupChange(
                        want.name,
                        "create",
                        self.role(want.name),
                        None,
                        want.instance_count,
                        None,
                        None,
                        want.effective_min_count(continuous),
                        want.instance_types,
                        restricted=want.restricted,
                    )
                )
                continue
            config = [c.member for c in self.member_changes(want, have) if c.member not in software.IMAGE_MEMBERS]  # a rollout moves images
            config += software.rollout_labels(want, have)
            wanted = (
                have.target_count if count_owner(self.desired, self.observed) else want.instance_count
            )  # an autoscaler's count is its own
            delta = wanted - have.target_count
            action = (
                "grow"
                if delta > 0
                else "shrink"
                if delta < 0
                else ("configure" if config or self._min_change(want, have) is not None else "unchanged")
            )
            min_after = want.min_instance_count if want.min_instance_count is not None else have.min_count
            changes.append(
                GroupChange(
                    want.name,
                    action,
                    self.role(want.name),
                    have.target_count,
                    wanted,
                    have.current_count,
                    have.min_count,
                    min_after,
                    want.instance_types,
                    tuple(config),
                    restricted=want.restricted,
                )
            )
        wanted = {g.name for g in self.desired.groups}
        for have in self.observed.groups:
            if have.name not in wanted:
                changes.append(
                    GroupChange(
                        have.name,
                        "delete",
                        self.role(have.name),
                        have.target_count,
                        None,
                        have.current_count,
                        have.min_count,
                        None,
                        have.instance_types,
                        restricted=have.restricted,
                    )
                )
        return tuple(changes)

    def member_changes(self, want: AnyGroupSpec, have: GroupState) -> list[compare.MemberChange]:
        """compare.group_member_changes, once per group: the group's verdict and its plan both read it."""
        if want.name not in self._member_changes:
            self._member_changes[want.name] = compare.group_member_changes(want, have)
        return self._member_changes[want.name]

    def _min_change(self, want: AnyGroupSpec, have: GroupState) -> int | None:
        if want.min_instance_count is None or want.min_instance_count == have.min_count:
            return None
        return want.min_instance_count

    def build(self) -> Plan:
        # node lifecycle (software.py, repair.py): rollouts and repairs, and the nodes they keep out of scale-ins
        hyperpod = aws_policy(self.policy)
        self.rollouts = software.plan_rollouts(self.desired, self.observed, self.policy, self.role)
        self.repairs = _repairs(self.observed, self.policy, self.role)
        self.kept_nodes = (
            self.repairs.replaced
            | set(hyperpod.reboot_node_ids)
            | ({n.key for n in self.observed.nodes if n.status == "Failure"} if hyperpod.failed_nodes != "delete" else set())
        )
        groups = self.group_changes()
        self.deleted_groups = {change.group for change in groups if change.action == "delete"}
        cluster_changes = compare.cluster_config_changes(self.desired, self.observed)
        for member in cluster_changes:
            self.update_reasons.append(compare.cluster_change_reason(member, self.desired, self.observed))
        self.refusals.extend(autoscaling_refusals(self.desired, self.observed))
        self.notes.extend(handback_notes(self.desired, self.observed))
        unknown = self.unknown_roles()
        for change in groups:
            if unknown and self._empties(change):
                self.refusals.append(self._roles_unknown(change, unknown))
                continue
            self._plan_group(change)
        steps = self._steps(cluster_changes)
        tagging, tag_notes = tag_steps(self.desired, self.observed)
        if hyperpod.canary_nodes:  # canary.py only when the policy asks for a canary (otherwise it changes nothing)
            from pulumi_hyperpod.aws.planner import canary  # noqa: PLC0415 - not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)

            steps, canary_notes = canary.canary_steps(steps, hyperpod.canary_nodes, self.limits, self.desired.name)
            self.notes += canary_notes
        steps += self._lifecycle_steps(steps)
        steps.extend(tagging)
        self.notes.extend(tag_notes)
        extensions = extension_changes(self.desired, self.observed)
        steps.extend(extensions.steps)
        self.notes.extend(extensions.notes)
        self.refusals.extend(extensions.refusals)
        pending = [g for g in self.observed.groups if g.pending and self.wanted(g.name) is not None]
        for g in pending:
            self.notes.append(_pending_note(g, self.observed))
        if any(change.action in ("shrink", "delete") for change in groups):
            self.notes.extend(_unmatched_protection(self.observed, self.policy))
        action = "update" if steps else "none"
        updated = Plan(
            cluster_name=self.desired.name,
            action=action,
            steps=tuple(steps),
            groups=groups,
            notes=tuple(self.notes),
            basis=basis_of(self.observed),
        )
        return updated.refuse(*self.refusals)

    def _empties(self, change: GroupChange) -> bool:
        """Deletes a group (not one already going), or scales one that has nodes to 0."""
        if change.action == "delete":
            return self.observed.group(change.group).status != "Deleting"
        return change.action == "shrink" and change.target_after == 0

    def _roles_unknown(self, change: GroupChange, unknown: list[str]) -> Refusal:
        doing = f"deleting group {change.group}" if change.action == "delete" else f"scaling {change.group} to 0"
        return Refusal(
            RefusalRule.SLURM_ROLES_UNKNOWN,
            f"{doing} is refused: cluster {self.desired.name} is a Slurm cluster and the role of {', '.join(unknown)} is not known "
            "(no SlurmConfig.NodeType), so this could remove the Slurm controller or the login nodes. State the roles: "
            "SlurmConfig.NodeType on each group in the spec, or the lifecycle bundle's provisioning_parameters.json "
            "(--lifecycle DIR)",
            change.group,
        )

    def _plan_group(self, change: GroupChange) -> None:
        name = change.group
        if change.action == "create":
            self.update_groups[name] = self.wanted(name).to_api()
            self.update_reasons.append(f"{name}: new group, {change.target_after} nodes")
            return
        if change.action == "delete":
            self._plan_group_deletion(change)
            return
        want = self.wanted(name)
        have = self.observed.group(name)
        if have.status == "Deleting":
            self.refusals.append(
                Refusal(
                    RefusalRule.GROUP_DELETING,
                    f"{name} is still being deleted; wait until it is gone, then plan again to create it anew",
                    name,
                )
            )
            return
        member_changes = self.member_changes(want, have)
        immutable = compare.group_immutable_changes(want, have) + [c.line() for c in member_changes if c.refused]
        if immutable:
            self.refusals.append(
                Refusal(
                    RefusalRule.IMMUTABLE_GROUP_FIELD,
                    f"{name}: {'; '.join(immutable)} cannot change in place; add a group with a new name and remove this one",
                    name,
                )
            )
            return
        # the image members move through an UpdateClusterSoftware rollout (aws/planner/software.py), not UpdateCluster
        applied = [c for c in member_changes if not c.refused and c.member not in software.IMAGE_MEMBERS]
        if applied:
            self._list_in_update(want, have)
            self.update_reasons.extend(f"{name}: {member_line(c)}" for c in applied)
        owner = count_owner(self.desired, self.observed)
        if owner and want.instance_count != have.target_count:
            self.notes.append(
                f"{name}: {have.target_count} now, spec {want.instance_count}, owned by {owner} "
                "(AutoScaling Mode Enable): shown, not reconciled"
            )
        if have.described.get("TrainingPlanArn") and change.delta > 0:
            self.notes.append(
                f"{name}: capacity comes from training plan {have.described['TrainingPlanArn']}; "
                "its reserved instances bound how far the group can grow"
            )
        if self._min_change(want, have) is not None:
            self._list_in_update(want, have)
            self.update_reasons.append(f"{name}: MinCount {have.min_count} → {want.min_instance_count}")
        if change.delta > 0:
            self.scale_out[name] = change.delta
        elif change.delta < 0:
            self._plan_scale_in(want, have, -change.delta)

    def _list_in_update(self, want: AnyGroupSpec, have: GroupState) -> None:
        entry = compare.group_entry(want, have)
        entry["InstanceCount"] = have.target_count  # counts move in their own steps (below)
        self.update_groups.setdefault(want.name, entry)

    def _entry(self, name: str) -> dict[str, Any]:
        """The group's UpdateCluster entry: the whole specification (kept members copied from the cluster)."""
        want, have = self.wanted(name), self.observed.group(name)
        if name not in self.update_groups:
            self.update_groups[name] = compare.group_entry(want, have) if have is not None else want.to_api()
        return self.update_groups[name]

    def _plan_group_deletion(self, change: GroupChange) -> None:
        name, node_type = change.group, change.node_type
        if self.observed.group(name).status == "Deleting":
            self.notes.append(f"{name}: already being deleted")
            return
        if node_type == "Controller":
            self.refusals.append(
                Refusal(RefusalRule.CONTROLLER_GROUP, f"{name} is the Slurm Controller group; a Slurm cluster cannot run without it", name)
            )
            return
        if node_type == "Login" and not self.policy.allow_login_scale_in and change.target_before:
            self.refusals.append(
                Refusal(
                    RefusalRule.LOGIN_SCALE_IN,
                    f"deleting {name} removes the Login nodes users connect through; set policy.allow_login_scale_in to allow it",
                    name,
                )
            )
            return
        protected = _protected_nodes(self.observed.nodes_of(name), self.policy)
        if protected:
            self.refusals.append(_protected_refusal(f"deleting group {name} (removed from the spec, or renamed)", protected, name))
            return
        if change.target_before and self.policy.max_scale_in_fraction < 1.0:
            self.refusals.append(
                Refusal(
                    RefusalRule.MAX_SCALE_IN_FRACTION,
                    f"deleting {name} removes all {change.target_before} of its nodes, more than policy.max_scale_in_fraction ({self.policy.max_scale_in_fraction:.0%})",
                    name,
                )
            )
            return
        self.update_reasons.append(f"{name}: group removed with its {change.target_before or 0} nodes (InstanceGroupsToDelete)")

    def _plan_scale_in(self, want: AnyGroupSpec, have: GroupState, count: int) -> None:
        name, node_type = want.name, self.role(want.name)
        fraction = count / have.target_count if have.target_count else 1.0
        protected = _protected_nodes(self.observed.nodes_of(name), self.policy)
        if node_type == "Controller":
            if not aws_policy(self.policy).allow_controller_scale_in:
                self.refusals.append(
                    Refusal(
                        RefusalRule.CONTROLLER_SCALE_IN,
                        f"{name}: removing {count} Controller node(s) is refused; set policy.allow_controller_scale_in to allow it",
                        name,
                    )
                )
                return
            if protected:  # the service chooses which controller goes: it could be a protected one
                self.refusals.append(
                    _protected_refusal(f"{name}: lowering the Controller count (the service chooses which node goes)", protected, name)
                )
                return
            # Controller nodes are never named: the service chooses, through the count.
            self._lower_count(
                want, have, f"{name}: {have.target_count} → {want.instance_count} (the service chooses which controller goes)"
            )
            return
        if node_type == "Login" and not self.policy.allow_login_scale_in:
            self.refusals.append(
                Refusal(
                    RefusalRule.LOGIN_SCALE_IN,
                    f"{name}: removing {count} Login node(s) is refused; set policy.allow_login_scale_in to allow it",
                    name,
                )
            )
            return
        if fraction > self.policy.max_scale_in_fraction:
            self.refusals.append(
                Refusal(
                    RefusalRule.MAX_SCALE_IN_FRACTION,
                    f"{name}: removing {count} of {have.target_count} nodes ({fraction:.0%}) is more than policy.max_scale_in_fraction ({self.policy.max_scale_in_fraction:.0%})",
                    name,
                )
            )
            return
        if (have.status or "") in BUSY_GROUP_STATUSES:
            # BatchDeleteClusterNodes is blocked while the group is Creating/Updating (seed 000); its
            # counts can still change through UpdateCluster, and the service chooses which nodes go.
            if protected:
                self.refusals.append(
                    _protected_refusal(
                        f"{name}: lowering the count of a {have.status} group (the service chooses which nodes go)", protected, name
                    )
                )
                return
            self._lower_count(
                want,
                have,
                f"{name} {have.target_count} → {want.instance_count}: -{count} nodes through UpdateCluster "
                f"(the group is {have.status}: BatchDeleteClusterNodes is blocked until it is InService; "
                "the service chooses which nodes go)",
            )
            return
        from pulumi_hyperpod.aws.planner import (  # noqa: PLC0415 - not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)
            victims as victim_rules,
            workload_order,
        )  # a scale-in's rules: loaded when a plan removes nodes

        nodes = self.observed.nodes_of(name)
        candidates = victim_rules.removable(nodes, node_type, self.policy.protected_node_ids, self.kept_nodes)
        chosen = workload_order.rank(candidates, count, self.policy, self.workload)
        missing = count - len(chosen)
        if missing:
            unlisted = max(have.target_count - sum(1 for n in nodes if n.status not in victim_rules.LEAVING), 0)
            if missing > unlisted:
                held = victim_rules.held_back(nodes, self.policy.protected_node_ids)
                self.refusals.append(
                    Refusal(
                        RefusalRule.NOT_ENOUGH_REMOVABLE,
                        f"{name}: {count} nodes must go but only {len(chosen) + unlisted} can be removed ({held})",
                        name,
                    )
                )
                return
            entry = self._entry(name)
            entry["InstanceCount"] = have.target_count - missing
            self.update_reasons.append(f"{name}: cancel {missing} pending launch(es) that have no node to name yet")
        self.victims.extend(chosen)
        self.delete_reasons.append(f"{name} {have.target_count} → {want.instance_count}: -{count} nodes")

    def _lower_count(self, want: AnyGroupSpec, have: GroupState, reason: str) -> None:
        entry = self._entry(want.name)
        entry["InstanceCount"] = want.instance_count
        self.update_reasons.append(reason)

    # ---- steps -------------------------------------------------------------------------------
    def _lifecycle_steps(self, steps: list[Step]) -> list[Step]:
        """Rollouts and repairs after the count steps (aws/planner/software.py, aws/planner/repair.py)."""
        leaving = frozenset(v.node_id for v in self.victims)
        if leaving and self.rollouts.steps:  # the nodes a scale-in removes first are not rolled
            self.rollouts = software.plan_rollouts(self.desired, self.observed, self.policy, self.role, leaving)
        if self.repairs.steps:  # a repair of a node the plan takes down otherwise (repair.py)
            from pulumi_hyperpod.aws.planner import repair  # noqa: PLC0415 - not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)

            self.refusals.extend(repair.plan_conflicts(self.observed, self.repairs.steps, self.rollouts.steps, self.deleted_groups))
        for step in steps:
            if step.operation == "UpdateCluster":
                software.hold_images(step.request, self.observed, self.rollouts.groups)
        self.refusals += self.rollouts.refusals + self.repairs.refusals
        self.notes += self.rollouts.notes + self.repairs.notes
        return self.rollouts.steps + self.repairs.steps

    def _plan_moves(self) -> list[Step]:
        """Moves instead of deleting in one group and adding in another (aws/planner/moves.py): what
        can move leaves the scale-ins and scale-outs, the rest is deleted and added as before."""
        if not (self.victims and self.scale_out):
            return []
        from pulumi_hyperpod.aws.planner import moves  # noqa: PLC0415 - not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)

        moved = moves.plan_moves(self.desired, self.observed, self.policy, self.victims, self.scale_out)
        if not moved.moves:
            return []
        self.scale_out, self.deleted_victims = moved.scale_out, moved.victims
        self.notes += [*moved.notes, moves.cost_note(moved)]
        for move in moved.moves:
            self.delete_reasons.append(f"{move.source}: {len(move.nodes)} of them move to {move.target} (MoveClusterNodes)")
        return moves.move_steps(self.observed.arn, moved)

    def _steps(self, cluster_changes: dict[str, Any]) -> list[Step]:
        moving = self._plan_moves()
        deleted_groups = [g.name for g in self.observed.groups if self.wanted(g.name) is None and g.status != "Deleting"]
        deletable = [name for name in deleted_groups if not any(r.group == name for r in self.refusals)]
        needs_update = bool(self.update_groups or cluster_changes or deletable)
        fold = needs_update or not self.desired.continuous or self._batch_add_blocked() or self._batch_add_calls() > 1
        steps: list[Step] = []
        if fold:
            for name, count in self.scale_out.items():
                have = self.observed.group(name)
                entry = self._entry(name)
                entry["InstanceCount"] = have.target_count + count
                self.update_reasons.append(f"{name} {have.target_count} → {have.target_count + count}: +{count} nodes")
        if self.update_groups or cluster_changes or deletable:
            request: dict[str, Any] = {"ClusterName": self.desired.name}
            # each entry in its own list: a restricted group's is a ClusterRestrictedInstanceGroupSpecification
            for member, listed in (
                ("InstanceGroups", self.desired.instance_groups),
                ("RestrictedInstanceGroups", self.desired.restricted_instance_groups or ()),
            ):
                entries = [self.update_groups[g.name] for g in listed if g.name in self.update_groups]
                if entries:  # the model's lists have at least one entry
                    request[member] = entries
            if deletable:
                request["InstanceGroupsToDelete"] = deletable
            request.update(cluster_changes)
            steps.append(Step("UpdateCluster", request, tuple(self.update_reasons), kind="update-cluster", codes=update_codes(request)))
        # a moved node's volumes are replaced: it is drained before it goes, as a removed one is
        steps.extend(drain_steps(self.observed, self.desired.name, self.victims, self.policy, self.workload))
        steps.extend(moving)
        steps.extend(self._delete_steps())
        if not fold:
            steps.extend(self._add_steps())
        return steps

    def _batch_add_blocked(self) -> bool:
        return any((self.observed.group(name).status or "") in BUSY_GROUP_STATUSES for name in self.scale_out)

    def _add_calls(self) -> list[list[dict[str, Any]]]:
        order = [(g.name, self.scale_out[g.name]) for g in self.desired.groups if g.name in self.scale_out]
        return pack_adds(order, self.limits)

    def _batch_add_calls(self) -> int:
        return len(self._add_calls())

    def _add_steps(self) -> list[Step]:
        steps = []
        for batch in self._add_calls():
            reasons = []
            for entry in batch:
                name = entry["InstanceGroupName"]
                have = self.observed.group(name)
                reasons.append(
                    f"{name} {have.target_count} → {have.target_count + self.scale_out[name]}: +{entry['IncrementTargetCountBy']} nodes"
                )
            steps.append(
                Step(
                    "BatchAddClusterNodes",
                    {"ClusterName": self.desired.name, "NodesToAdd": batch},
                    tuple(reasons),
                    kind="add-nodes",
                    codes=(StepReason.GROW,),
                )
            )
        return steps

    def _delete_steps(self) -> list[Step]:
        deleted = self.victims if self.deleted_victims is None else self.deleted_victims
        by_id = [v for v in deleted if not v.logical]
        by_logical = [v for v in deleted if v.logical]
        calls = pack_deletes(by_id, by_logical, self.limits, aws_policy(self.policy).max_nodes_per_delete_call)
        steps = []
        for index, (ids, logical) in enumerate(calls):
            request: dict[str, Any] = {"ClusterName": self.desired.name}
            if ids:
                request["NodeIds"] = [v.node_id for v in ids]
            if logical:
                request["NodeLogicalIds"] = [v.node_id for v in logical]
            reasons = tuple(self.delete_reasons) if index == 0 else (f"continued: call {index + 1} of {len(calls)}",)
            steps.append(
                Step(
                    "BatchDeleteClusterNodes",
                    request,
                    reasons,
                    tuple(ids + logical),
                    kind="remove-nodes",
                    codes=(StepReason.SHRINK, *dict.fromkeys(v.code for v in ids + logical if v.code)),
                )
            )
        return steps


def update_codes(request: dict[str, Any]) -> tuple[str, ...]:
    """Why an UpdateCluster is made, as codes: groups created or changed, groups deleted, cluster settings."""
    codes = []
    if request.get("InstanceGroups") or request.get("RestrictedInstanceGroups"):
        codes.append("group-settings")
    if request.get("InstanceGroupsToDelete"):
        codes.append("groups-deleted")
    if set(request) - {"ClusterName", "InstanceGroups", "RestrictedInstanceGroups", "InstanceGroupsToDelete"}:
        codes.append("cluster-settings")
    return tuple(codes)


def _pending_note(group: GroupState, observed: ClusterState) -> str:
    """A group short of its target, in words: capacity is named only for the nodes the service says
    wait for it (aws/planner/victims.py)."""
    from pulumi_hyperpod.aws.planner.victims import short_of_capacity  # noqa: PLC0415 - not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)

    short = sum(1 for node in observed.nodes if node.group == group.name and short_of_capacity(node))
    waiting = f", {short} of them waiting for capacity" if short else ""
    return f"{group.name}: {group.current_count}/{group.target_count} running, {group.pending} not running yet{waiting} (not drift)"
