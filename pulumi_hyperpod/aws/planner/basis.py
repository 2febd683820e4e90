"""What a plan was computed against, and what it takes for that to still hold.

A Plan records its *basis*: the cluster as observed (ARN, status, each group's counts and status,
each node's state). `apply` compares the cluster with it twice:

- before anything runs (`stale_reasons`, a saved plan's freshness): every change a plan depends on
  is named in words — group counts, targets and MinCounts, groups appeared or vanished, and in the
  groups the plan removes nodes from, nodes appeared, vanished or changed state;
- before every later mutating call (`Expectation.moved`): the cluster must be where the basis plus
  the steps already done left it. Only what the plan depends on counts (targets, MinCounts, which
  groups exist); the service's own progress (capacity arriving, nodes launching or failing) is not
  another writer.

Pure: no I/O. The executor does the observing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from ...plan.basis import Basis, GroupBasis

if TYPE_CHECKING:  # pragma: no cover
    from ...plan.model import Plan, Step
    from ..observe import ClusterState


def basis_of(state: "ClusterState") -> Basis:
    """The Basis of an observed HyperPod cluster: its ARN, status, groups and every node."""
    return Basis.observed(
        state.arn,
        state.status,
        tuple(GroupBasis(g.name, g.target_count, g.min_count, g.current_count, g.status) for g in state.groups),
        state.nodes,  # NodeBasis rows built when read
    )


def fingerprint(observed: "ClusterState | None") -> str | None:
    """What a plan was computed against; a saved plan is stale when this has moved."""
    return None if observed is None else basis_of(observed).fingerprint()


# ---- before anything runs -------------------------------------------------------------------------
def stale_reasons(plan: "Plan", now: "ClusterState | None") -> list[str]:
    """What changed since the plan was made that the plan depends on, in words; [] when it still holds."""
    basis = plan.basis
    if basis is None:
        if plan.action in ("create",) and now is not None:
            return [f"cluster {now.name} now exists ({now.status}); the plan was made to create it"]
        return []
    if now is None:
        return [f"cluster {plan.cluster_name} no longer exists"]
    if now.arn != basis.identity:
        elsewhere = _place(now.arn) != _place(basis.identity)
        if elsewhere:  # the same name in another account or region: not this plan's cluster at all
            return [f"cluster {plan.cluster_name} here is {now.arn}; the plan was made for {basis.identity} (another account or region)"]
        return [f"cluster {plan.cluster_name} was deleted and created again ({basis.identity} → {now.arn})"]
    reasons = []
    if now.status != basis.state and now.status in ("Deleting", "Failed"):
        reasons.append(f"the cluster is now {now.status} (was {basis.state})")
    expected = Expectation.from_basis(basis)
    reasons += expected.moved(now)
    reasons += _node_changes(plan, basis, now)
    return reasons


def _place(arn: str) -> tuple[str, ...]:
    """(region, account) of an ARN."""
    return tuple(arn.split(":")[3:5])


def _node_changes(plan: "Plan", basis: Basis, now: "ClusterState") -> list[str]:
    """Nodes in the groups the plan removes nodes from: the victims were chosen among exactly these."""
    shrinking = {v.group for v in plan.victims} | {g.group for g in plan.groups if g.action in ("shrink", "delete")}
    shrinking |= _lifecycle_groups(plan, basis)
    if plan.action in ("replace", "delete"):
        return []  # every node goes either way
    reasons = []
    planned: dict[str, dict[str, str]] = {group: {} for group in shrinking}  # one pass over the basis, not one per group
    for key, group, status in basis.node_states():
        if group in planned:
            planned[group][key] = status
    for group in sorted(shrinking):
        before = planned[group]
        after = {n.key: n.status for n in now.nodes_of(group) if n.key}
        # a node never launched that launched is one node changing state, not one vanishing and one appearing
        appeared = sorted(set(after) - set(before))
        vanished = sorted(set(before) - set(after))
        changed = sorted(k for k in set(before) & set(after) if before[k] != after[k])
        if appeared:
            reasons.append(f"{group}: {_count(appeared, 'node')} appeared ({_ids(appeared)})")
        if vanished:
            reasons.append(f"{group}: {_count(vanished, 'node')} vanished ({_ids(vanished)})")
        for key in changed[:5]:
            reasons.append(f"{group}: node {key} is now {after[key]} (was {before[key]})")
        if len(changed) > 5:
            reasons.append(f"{group}: {len(changed) - 5} more node(s) changed state")
    return reasons


def _lifecycle_groups(plan: "Plan", basis: Basis) -> set[str]:
    """Groups whose nodes a reboot, a replacement or a rollout names: planned against exactly these nodes."""
    named = {
        node_id
        for step in plan.steps
        for field in ("NodeIds", "NodeLogicalIds")
        for node_id in step.request.get(field) or ()
        if step.operation in ("BatchRebootClusterNodes", "BatchReplaceClusterNodes")
    }
    named |= {node_id for step in plan.steps for batch in step.batches for node_id in batch}
    return {group for key, group, _ in basis.node_states() if key in named} if named else set()


def _count(items: list, noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def _ids(keys: list[str], shown: int = 5) -> str:
    more = f", … {len(keys) - shown} more" if len(keys) > shown else ""
    return ", ".join(keys[:shown]) + more


# ---- before every later call ----------------------------------------------------------------------
@dataclass
class Expectation:
    """Where the cluster should be: the basis plus the effect of the steps done so far.

    `targets`/`mins`: group → count the cluster must report; a group absent from `targets` must not
    exist (or be Deleting). `loose_min`: groups whose MinCount the service decides (a new group
    created without MinInstanceCount)."""

    targets: dict[str, int] = field(default_factory=dict)
    mins: dict[str, int] = field(default_factory=dict)
    loose_min: set[str] = field(default_factory=set)

    @classmethod
    def from_basis(cls, basis: Basis | None) -> "Expectation":
        if basis is None:
            return cls()
        live = [g for g in basis.groups if g.status != "Deleting"]
        return cls({g.name: g.target for g in live}, {g.name: g.min for g in live})

    def after(self, step: "Step", response: Mapping[str, Any] | None = None, removed: Iterable[tuple[str, str]] = ()) -> None:
        """Account for one step that succeeded. `removed`: (group, node id) the service accepted."""
        request = step.request
        if step.operation in ("CreateCluster", "UpdateCluster"):
            if step.operation == "CreateCluster":
                self.targets, self.mins, self.loose_min = {}, {}, set()
            for entry in request.get("InstanceGroups") or ():
                name = entry["InstanceGroupName"]
                self.targets[name] = entry["InstanceCount"]
                if "MinInstanceCount" in entry:
                    self.mins[name] = entry["MinInstanceCount"]
                    self.loose_min.discard(name)
                else:  # the service derives it (all-or-nothing: from InstanceCount)
                    self.loose_min.add(name)
            for name in request.get("InstanceGroupsToDelete") or ():
                self.targets.pop(name, None)
                self.mins.pop(name, None)
        elif step.operation == "BatchAddClusterNodes":
            for entry in request.get("NodesToAdd") or ():
                name = entry["InstanceGroupName"]
                if name in self.targets:
                    self.targets[name] += entry["IncrementTargetCountBy"]
            for failure in (response or {}).get("Failed") or ():
                name = failure.get("InstanceGroupName")
                if name in self.targets:
                    self.targets[name] -= int(failure.get("FailedCount") or 0)
        elif step.operation == "BatchDeleteClusterNodes":
            for group, _ in removed:
                if group in self.targets:
                    self.targets[group] = max(self.targets[group] - 1, 0)
                    if group in self.mins:
                        self.mins[group] = min(self.mins[group], self.targets[group])
        elif step.operation == "DeleteCluster":
            self.targets, self.mins, self.loose_min = {}, {}, set()

    def moved(self, now: "ClusterState | None") -> list[str]:
        """How another writer moved the cluster away from this expectation, in words."""
        if now is None:
            return ["the cluster no longer exists"] if self.targets else []
        reasons = []
        present = {g.name: g for g in now.groups if g.status != "Deleting"}
        for name in sorted(set(present) - set(self.targets)):
            reasons.append(f"group {name} appeared (TargetCount {present[name].target_count})")
        for name in sorted(set(self.targets) - set(present)):
            reasons.append(f"group {name} vanished")
        for name in sorted(set(self.targets) & set(present)):
            have = present[name]
            if have.target_count != self.targets[name]:
                reasons.append(f"{name}: TargetCount {self.targets[name]} → {have.target_count}")
            if name not in self.loose_min and name in self.mins and have.min_count != self.mins[name]:
                reasons.append(f"{name}: MinCount {self.mins[name]} → {have.min_count}")
        return reasons
