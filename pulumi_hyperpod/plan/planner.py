"""plan(desired, observed, policy) -> Plan. Pure: no I/O, no clock, no randomness.

The decision table (also in the README):

| change                                    | call                                   |
|-------------------------------------------|----------------------------------------|
| no cluster yet                            | CreateCluster                          |
| desired is None (destroy)                 | DeleteCluster                          |
| VpcConfig, Orchestrator, leaving Continuous, Failed cluster | replacement: DeleteCluster + CreateCluster, refused unless policy.allow_replacement |
| group config, new group, MinCount, cluster settings | one UpdateCluster (listing only the groups that change) |
| removed group                             | that UpdateCluster's InstanceGroupsToDelete |
| scale-out, all-or-nothing mode            | UpdateCluster (InstanceCount)          |
| scale-out, Continuous mode                | folded into the UpdateCluster when one is needed anyway, or when the group is Creating/Updating (BatchAdd is rejected then), or when BatchAddClusterNodes would take more calls than one UpdateCluster; otherwise BatchAddClusterNodes (≤ 50 per entry, ≤ 5 entries per call) |
| scale-in (any mode)                       | BatchDeleteClusterNodes naming the victims (≤ 99 per call); pending launches with no node to name: UpdateCluster lowers the count |

Order: UpdateCluster, then BatchDeleteClusterNodes, then BatchAddClusterNodes — so a lowered
MinCount is in place before nodes go, and scale-outs never wait behind deletions.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from ..servicemodel import api_limits
from ..cost.estimate import with_cost
from ..observe import ClusterState, GroupState
from ..spec import ClusterSpec, InstanceGroupSpec
from . import compare, victims as victim_rules
from .model import GroupChange, Plan, Refusal, Step, Victim
from .policy import Policy

if TYPE_CHECKING:  # pragma: no cover
    from ..cost.prices import PriceTable

BUSY_GROUP_STATUSES = frozenset({"Creating", "Updating"})


def pack_adds(increments: list[tuple[str, int]], limits: dict[str, int]) -> list[list[dict[str, Any]]]:
    """Scale-outs (group, nodes) into BatchAddClusterNodes requests: each call at most
    `add_entries` entries and `add_total` nodes; greedy filling is optimal for one total cap."""
    calls: list[list[dict[str, Any]]] = []
    current: list[dict[str, Any]] = []
    room = limits["add_total"]
    for name, count in increments:
        while count > 0:
            if room == 0 or len(current) == limits["add_entries"]:
                calls.append(current)
                current, room = [], limits["add_total"]
            chunk = min(count, room, limits["add_increment"])
            current.append({"InstanceGroupName": name, "IncrementTargetCountBy": chunk})
            room -= chunk
            count -= chunk
    if current:
        calls.append(current)
    return calls


def pack_deletes(ids: list[Victim], logical: list[Victim], limits: dict[str, int], id_cap: int) -> list[tuple[list[Victim], list[Victim]]]:
    """Victims into BatchDeleteClusterNodes requests, fewest calls: logical ids go in calls of at
    most `delete_combined` identifiers, topped up with instance ids; the remaining instance ids in
    calls of `id_cap` (≤ 99)."""
    combined = min(limits["delete_combined"], id_cap)
    logical_size = min(limits["delete_logical_ids"], combined)
    calls: list[tuple[list[Victim], list[Victim]]] = []
    ids = list(ids)
    for start in range(0, len(logical), logical_size):
        chunk = logical[start : start + logical_size]
        top_up, ids = ids[: combined - len(chunk)], ids[combined - len(chunk) :]
        calls.append((top_up, chunk))
    size = min(id_cap, limits["delete_ids"])
    for start in range(0, len(ids), size):
        calls.append((ids[start : start + size], []))
    return calls


def fingerprint(observed: ClusterState | None) -> str | None:
    """What a plan was computed against; a saved plan is stale when this has moved."""
    if observed is None:
        return None
    data = [
        observed.arn,
        observed.status,
        sorted((g.name, g.target_count, g.min_count) for g in observed.groups),
        sorted((n.key, n.status) for n in observed.nodes),
    ]
    return hashlib.sha256(json.dumps(data, separators=(",", ":")).encode()).hexdigest()[:16]


def plan(desired: ClusterSpec | None, observed: ClusterState | None, policy: Policy | None = None, *,
         prices: "PriceTable | Mapping[str, Any] | None" = None, region: str | None = None) -> Plan:
    """`prices`: a PriceTable, or a dict merged over the shipped list prices (the default);
    `region`: where the cluster is when `observed` (whose ARN says it) is None — default us-west-2."""
    policy = policy or Policy()
    return with_cost(_plan(desired, observed, policy), desired, observed, policy, prices, region)


def _plan(desired: ClusterSpec | None, observed: ClusterState | None, policy: Policy) -> Plan:
    if desired is None:
        return _delete_plan(observed)
    if observed is None:
        return _create_plan(desired)
    if observed.status == "Deleting":
        return Plan(
            cluster_name=desired.name,
            action="none",
            refusals=(Refusal("cluster-deleting", f"cluster {desired.name} is being deleted; wait until it is gone, then plan again"),),
            observed_fingerprint=fingerprint(observed),
        )
    reasons = compare.replacement_reasons(desired, observed)
    if reasons:
        return _replace_plan(desired, observed, reasons, policy)
    return _Updater(desired, observed, policy).build()


def _create_plan(desired: ClusterSpec) -> Plan:
    groups = tuple(
        GroupChange(
            group=g.name,
            action="create",
            node_type=g.node_type,
            target_after=g.instance_count,
            min_after=g.effective_min_count(desired.continuous),
            instance_types=g.instance_types,
        )
        for g in desired.instance_groups
    )
    total = sum(g.instance_count for g in desired.instance_groups)
    mode = "Continuous" if desired.continuous else "all-or-nothing"
    step = Step("CreateCluster", desired.to_api("CreateCluster"), (f"create cluster {desired.name}: {len(groups)} groups, {total} nodes, {mode} provisioning",))
    return Plan(cluster_name=desired.name, action="create", steps=(step,), groups=groups)


def _delete_plan(observed: ClusterState | None) -> Plan:
    if observed is None:
        return Plan(cluster_name="", action="none")
    groups = tuple(
        GroupChange(group=g.name, action="delete", node_type=g.node_type, target_before=g.target_count, current=g.current_count, min_before=g.min_count)
        for g in observed.groups
    )
    step = Step("DeleteCluster", {"ClusterName": observed.name}, (f"delete cluster {observed.name} and its {len(observed.nodes)} nodes",))
    return Plan(cluster_name=observed.name, action="delete", steps=(step,), groups=groups, observed_fingerprint=fingerprint(observed))


def _replace_plan(desired: ClusterSpec, observed: ClusterState, reasons: list[str], policy: Policy) -> Plan:
    steps = (
        Step("DeleteCluster", {"ClusterName": observed.name}, ("replace: delete the current cluster",)),
        Step("CreateCluster", desired.to_api("CreateCluster"), ("replace: create it again from the desired spec",)),
    )
    refusals: tuple[Refusal, ...] = ()
    if not policy.allow_replacement:
        refusals = (
            Refusal(
                "replacement",
                f"cluster {observed.name} must be replaced ({'; '.join(reasons)}), which deletes all "
                f"{len(observed.nodes)} nodes; set policy.allow_replacement to allow it",
            ),
        )
    return Plan(
        cluster_name=desired.name,
        action="replace",
        steps=steps,
        groups=_Updater(desired, observed, policy).group_changes(),
        replacements=tuple(reasons),
        refusals=refusals,
        observed_fingerprint=fingerprint(observed),
    )


@dataclass
class _Updater:
    desired: ClusterSpec
    observed: ClusterState
    policy: Policy
    limits: dict[str, int] = field(default_factory=api_limits)

    def __post_init__(self) -> None:
        self.refusals: list[Refusal] = []
        self.notes: list[str] = []
        self.update_groups: dict[str, dict[str, Any]] = {}  # group → its UpdateCluster entry
        self.update_reasons: list[str] = []
        self.scale_out: dict[str, int] = {}  # group → nodes to add
        self.victims: list[Victim] = []
        self.delete_reasons: list[str] = []

    # ---- per group ---------------------------------------------------------------------------
    def group_changes(self) -> tuple[GroupChange, ...]:
        changes = []
        continuous = self.desired.continuous
        for want in self.desired.instance_groups:
            have = self.observed.group(want.name)
            if have is None:
                changes.append(
                    GroupChange(want.name, "create", want.node_type, None, want.instance_count, None, None, want.effective_min_count(continuous), want.instance_types)
                )
                continue
            config = compare.group_config_changes(want, have)
            delta = want.instance_count - have.target_count
            action = "grow" if delta > 0 else "shrink" if delta < 0 else ("configure" if config or self._min_change(want, have) is not None else "unchanged")
            min_after = want.min_instance_count if want.min_instance_count is not None else have.min_count
            changes.append(
                GroupChange(want.name, action, want.node_type or have.node_type, have.target_count, want.instance_count, have.current_count, have.min_count, min_after, want.instance_types, tuple(config))
            )
        wanted = {g.name for g in self.desired.instance_groups}
        for have in self.observed.groups:
            if have.name not in wanted:
                changes.append(GroupChange(have.name, "delete", have.node_type, have.target_count, None, have.current_count, have.min_count, None, have.instance_types))
        return tuple(changes)

    def _min_change(self, want: InstanceGroupSpec, have: GroupState) -> int | None:
        if want.min_instance_count is None or want.min_instance_count == have.min_count:
            return None
        return want.min_instance_count

    def build(self) -> Plan:
        groups = self.group_changes()
        cluster_changes = compare.cluster_config_changes(self.desired, self.observed)
        for member in cluster_changes:
            self.update_reasons.append(f"cluster setting {member} changes")
        for change in groups:
            self._plan_group(change)
        steps = self._steps(cluster_changes)
        pending = [g for g in self.observed.groups if g.pending and self.desired.group(g.name) is not None]
        for g in pending:
            self.notes.append(f"{g.name}: {g.current_count}/{g.target_count} running, {g.pending} pending capacity (not drift)")
        action = "update" if steps else "none"
        return Plan(
            cluster_name=self.desired.name,
            action=action,
            steps=tuple(steps),
            groups=groups,
            refusals=tuple(self.refusals),
            notes=tuple(self.notes),
            observed_fingerprint=fingerprint(self.observed),
        )

    def _plan_group(self, change: GroupChange) -> None:
        name = change.group
        if change.action == "create":
            self.update_groups[name] = self.desired.group(name).to_api()
            self.update_reasons.append(f"{name}: new group, {change.target_after} nodes")
            return
        if change.action == "delete":
            self._plan_group_deletion(change)
            return
        want = self.desired.group(name)
        have = self.observed.group(name)
        if have.status == "Deleting":
            self.refusals.append(Refusal("group-deleting", f"{name} is still being deleted; wait until it is gone, then plan again to create it anew", name))
            return
        immutable = compare.group_immutable_changes(want, have)
        if immutable:
            self.refusals.append(Refusal("immutable-group-field", f"{name}: {'; '.join(immutable)} cannot change in place; add a group with a new name and remove this one", name))
        if change.config_changes:
            self._list_in_update(want, have)
            self.update_reasons.append(f"{name}: {', '.join(change.config_changes)} change (existing nodes keep how they were built)")
        if self._min_change(want, have) is not None:
            self._list_in_update(want, have)
            self.update_reasons.append(f"{name}: MinCount {have.min_count} → {want.min_instance_count}")
        if change.delta > 0:
            self.scale_out[name] = change.delta
        elif change.delta < 0:
            self._plan_scale_in(want, have, -change.delta)

    def _list_in_update(self, want: InstanceGroupSpec, have: GroupState) -> None:
        entry = want.to_api()
        entry["InstanceCount"] = have.target_count  # counts move in their own steps (below)
        self.update_groups.setdefault(want.name, entry)

    def _plan_group_deletion(self, change: GroupChange) -> None:
        name, node_type = change.group, change.node_type
        if self.observed.group(name).status == "Deleting":
            self.notes.append(f"{name}: already being deleted")
            return
        if node_type == "Controller":
            self.refusals.append(Refusal("controller-group", f"{name} is the Slurm Controller group; a Slurm cluster cannot run without it", name))
            return
        if node_type == "Login" and not self.policy.allow_login_scale_in and change.target_before:
            self.refusals.append(Refusal("login-scale-in", f"deleting {name} removes the Login nodes users connect through; set policy.allow_login_scale_in to allow it", name))
            return
        if change.target_before and self.policy.max_scale_in_fraction < 1.0:
            self.refusals.append(Refusal("max-scale-in-fraction", f"deleting {name} removes all {change.target_before} of its nodes, more than policy.max_scale_in_fraction ({self.policy.max_scale_in_fraction:.0%})", name))
            return
        self.update_reasons.append(f"{name}: group removed with its {change.target_before or 0} nodes (InstanceGroupsToDelete)")

    def _plan_scale_in(self, want: InstanceGroupSpec, have: GroupState, count: int) -> None:
        name, node_type = want.name, want.node_type or have.node_type
        fraction = count / have.target_count if have.target_count else 1.0
        if node_type == "Controller":
            if not self.policy.allow_controller_scale_in:
                self.refusals.append(Refusal("controller-scale-in", f"{name}: removing {count} Controller node(s) is refused; set policy.allow_controller_scale_in to allow it", name))
                return
            # Controller nodes are never named: the service chooses, through the count.
            entry = self.update_groups.setdefault(name, want.to_api())
            entry["InstanceCount"] = want.instance_count
            self.update_reasons.append(f"{name}: {have.target_count} → {want.instance_count} (the service chooses which controller goes)")
            return
        if node_type == "Login" and not self.policy.allow_login_scale_in:
            self.refusals.append(Refusal("login-scale-in", f"{name}: removing {count} Login node(s) is refused; set policy.allow_login_scale_in to allow it", name))
            return
        if fraction > self.policy.max_scale_in_fraction:
            self.refusals.append(Refusal("max-scale-in-fraction", f"{name}: removing {count} of {have.target_count} nodes ({fraction:.0%}) is more than policy.max_scale_in_fraction ({self.policy.max_scale_in_fraction:.0%})", name))
            return
        nodes = self.observed.nodes_of(name)
        candidates = victim_rules.removable(nodes, node_type, self.policy.protected_node_ids)
        chosen = victim_rules.choose(candidates, count)
        missing = count - len(chosen)
        if missing:
            unlisted = max(have.target_count - sum(1 for n in nodes if n.status not in ("ShuttingDown",)), 0)
            if missing > unlisted:
                protected = sum(1 for n in nodes if n.key in self.policy.protected_node_ids)
                self.refusals.append(Refusal("not-enough-removable", f"{name}: {count} nodes must go but only {len(chosen) + unlisted} can be removed ({protected} protected)", name))
                return
            entry = self.update_groups.setdefault(name, want.to_api())
            entry["InstanceCount"] = have.target_count - missing
            self.update_reasons.append(f"{name}: cancel {missing} pending launch(es) that have no node to name yet")
        self.victims.extend(chosen)
        self.delete_reasons.append(f"{name} {have.target_count} → {want.instance_count}: -{count} nodes")

    # ---- steps -------------------------------------------------------------------------------
    def _steps(self, cluster_changes: dict[str, Any]) -> list[Step]:
        deleted_groups = [g.name for g in self.observed.groups if self.desired.group(g.name) is None and g.status != "Deleting"]
        deletable = [name for name in deleted_groups if not any(r.group == name for r in self.refusals)]
        needs_update = bool(self.update_groups or cluster_changes or deletable)
        fold = needs_update or not self.desired.continuous or self._batch_add_blocked() or self._batch_add_calls() > 1
        steps: list[Step] = []
        if fold:
            for name, count in self.scale_out.items():
                have = self.observed.group(name)
                entry = self.update_groups.setdefault(name, self.desired.group(name).to_api())
                entry["InstanceCount"] = have.target_count + count
                self.update_reasons.append(f"{name} {have.target_count} → {have.target_count + count}: +{count} nodes")
        if self.update_groups or cluster_changes or deletable:
            request: dict[str, Any] = {"ClusterName": self.desired.name}
            if self.update_groups:
                request["InstanceGroups"] = [self.update_groups[g.name] for g in self.desired.instance_groups if g.name in self.update_groups]
            if deletable:
                request["InstanceGroupsToDelete"] = deletable
            request.update(cluster_changes)
            steps.append(Step("UpdateCluster", request, tuple(self.update_reasons)))
        steps.extend(self._delete_steps())
        if not fold:
            steps.extend(self._add_steps())
        return steps

    def _batch_add_blocked(self) -> bool:
        return any((self.observed.group(name).status or "") in BUSY_GROUP_STATUSES for name in self.scale_out)

    def _add_calls(self) -> list[list[dict[str, Any]]]:
        order = [(g.name, self.scale_out[g.name]) for g in self.desired.instance_groups if g.name in self.scale_out]
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
                reasons.append(f"{name} {have.target_count} → {have.target_count + self.scale_out[name]}: +{entry['IncrementTargetCountBy']} nodes")
            steps.append(Step("BatchAddClusterNodes", {"ClusterName": self.desired.name, "NodesToAdd": batch}, tuple(reasons)))
        return steps

    def _delete_steps(self) -> list[Step]:
        by_id = [v for v in self.victims if not v.logical]
        by_logical = [v for v in self.victims if v.logical]
        calls = pack_deletes(by_id, by_logical, self.limits, self.policy.max_nodes_per_delete_call)
        steps = []
        for index, (ids, logical) in enumerate(calls):
            request: dict[str, Any] = {"ClusterName": self.desired.name}
            if ids:
                request["NodeIds"] = [v.node_id for v in ids]
            if logical:
                request["NodeLogicalIds"] = [v.node_id for v in logical]
            reasons = tuple(self.delete_reasons) if index == 0 else (f"continued: call {index + 1} of {len(calls)}",)
            steps.append(Step("BatchDeleteClusterNodes", request, reasons, tuple(ids + logical)))
        return steps
