"""What a plan was computed against, and what it takes for that to still hold.

A Plan records its *basis*: the cluster as observed (ARN, status, each group's counts and status,
each node's state). `apply` compares the cluster with it twice:

- before anything runs (premise.py's `stale_reasons`, a saved plan's freshness): every change a plan depends on
  is named in words — group counts, targets and MinCounts, groups appeared or vanished, and in the
  groups the plan removes nodes from, nodes appeared, vanished or changed state;
- before every later mutating call (`Expectation.moved`, expectation.py): the cluster must be where the basis plus
  the steps already done left it. Only what the plan depends on counts (targets, MinCounts, which
  groups exist); the service's own progress (capacity arriving, nodes launching or failing) is not
  another writer.

Pure: no I/O. The executor does the observing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pulumi_hyperpod._lazy import lazy_exports
from pulumi_hyperpod.plans.basis import Basis, GroupBasis

# `Expectation` (expectation.py), what apply checks before each later call, is exported from here on
# first use (PEP 562): planning, as every preview does, does not build it.
_EXPORTS = {"Expectation": f"{__package__}.expectation"}  # a module: not relative to itself

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.planner.expectation import Expectation as Expectation  # exported
    from pulumi_hyperpod.plans.model import Plan
    from pulumi_hyperpod.aws.observe import ClusterState


def basis_of(state: ClusterState) -> Basis:
    """The Basis of an observed HyperPod cluster: its ARN, status, groups and every node."""
    return Basis.observed(
        state.arn,
        state.status,
        tuple(GroupBasis(g.name, g.target_count, g.min_count, g.current_count, g.status) for g in state.groups),
        state.nodes,  # NodeBasis rows built when read
    )


def fingerprint(observed: ClusterState | None) -> str | None:
    """What a plan was computed against; a saved plan is stale when this has moved."""
    return None if observed is None else basis_of(observed).fingerprint()


# ---- before anything runs -------------------------------------------------------------------------
def cluster_moved(plan: Plan, now: ClusterState | None) -> list[str]:
    """The "cluster" premise: the same cluster (not deleted and created again, not another account's), not going away."""
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
    if now.status != basis.state and now.status in ("Deleting", "Failed"):
        return [f"the cluster is now {now.status} (was {basis.state})"]
    return []


def groups_moved(plan: Plan, now: ClusterState | None) -> list[str]:
    """The "groups" premise: targets, MinCounts and which groups exist."""
    if plan.basis is None or now is None:
        return []
    from pulumi_hyperpod.aws.planner.expectation import Expectation  # noqa: PLC0415 - not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)

    return Expectation.from_basis(plan.basis).moved(now)


def nodes_moved(plan: Plan, now: ClusterState | None) -> list[str]:
    """The "nodes" premise: the nodes of the groups the plan removes from or names, and their states."""
    if plan.basis is None or now is None:
        return []
    return _node_changes(plan, plan.basis, now)


def _place(arn: str) -> tuple[str, ...]:
    """(region, account) of an ARN."""
    return tuple(arn.split(":")[3:5])


def _node_changes(plan: Plan, basis: Basis, now: ClusterState) -> list[str]:
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


def _lifecycle_groups(plan: Plan, basis: Basis) -> set[str]:
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


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
