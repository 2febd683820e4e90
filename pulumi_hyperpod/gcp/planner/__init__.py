"""plan(desired, observed, policy) -> Plan: pure (no I/O, no clock), the same inputs give the same plan.

Create is one CreateModelDevelopmentCluster; a change is one PatchModelDevelopmentCluster with the
smallest update mask (repeated fields — node_pools, partitions, scripts — sent whole, as the API
replaces them whole); delete is one DeleteModelDevelopmentCluster. An immutable field — of the
cluster, or of a pool under its id (its machine spec, reservation, provisioning model: immutable in
magic-modules) — makes a replacement (delete, then create), refused unless policy.allow_replacement;
a pool under a new id is added, and the old one removed, in place. A pool that shrinks is
a count change: the service chooses which nodes go, so the plan says so instead of naming them,
and a guard refuses it when a protected node could be among them.
"""

from __future__ import annotations

import copy
from typing import Any

from pulumi_hyperpod.plans.model import GroupChange, Plan, Refusal, Step
from pulumi_hyperpod.plans.policy import Policy
from pulumi_hyperpod.gcp.planner import compare, build as plan_build
from pulumi_hyperpod.gcp import cost
from pulumi_hyperpod.gcp.observe import GcpClusterState, PoolState
from pulumi_hyperpod.gcp.spec import ClusterSpec
from pulumi_hyperpod.gcp.planner.codes import RefusalRule, StepReason

CREATE, PATCH, DELETE = "CreateModelDevelopmentCluster", "PatchModelDevelopmentCluster", "DeleteModelDevelopmentCluster"
WAITABLE_STATES = ("PROVISIONING", "UPDATING")


def plan(desired: ClusterSpec | None, observed: GcpClusterState | None, policy: Policy | None = None) -> Plan:
    policy = policy or Policy()
    if desired is None:
        return _delete_plan(observed, policy)
    if observed is None:
        return _create_plan(desired, policy)
    if observed.state in ("STOPPING",):
        return plan_build.make(
            desired.name,
            "update",
            state=observed,
            refusals=(
                Refusal(
                    RefusalRule.CLUSTER_STATE,
                    f"the cluster is {observed.state} (being deleted); wait until it is gone, then apply again to create it",
                ),
            ),
        )
    found = compare.differences(desired, observed)
    if found.replacements:
        return _replace_plan(desired, observed, found, policy)
    return _update_plan(desired, observed, found, policy)


# ---- create / delete / replace -----------------------------------------------------------------
def create_step(desired: ClusterSpec, reason: str, code: StepReason = StepReason.ABSENT) -> Step:
    name = desired.resource_name()
    request = {"parent": name.parent, "modelDevelopmentClusterId": name.cluster_id, "body": desired.body()}
    return Step(CREATE, request, (reason,), kind="create-cluster", codes=(code,))


def delete_step(name: str, reason: str, code: StepReason = StepReason.NOT_DESIRED) -> Step:
    return Step(DELETE, {"name": name}, (reason,), kind="delete-cluster", codes=(code,))


def _create_plan(desired: ClusterSpec, policy: Policy) -> Plan:
    groups = tuple(
        GroupChange(p.id, "create", node_type=p.machine_spec.machine_type, target_after=p.count, min_after=p.scaling_spec.min_node_count)
        for p in desired.node_pools
    )
    groups += (_slurm_row("create", tuple(compare.slurm_change_lines("config", {}, desired.slurm.get("config")))),)
    pools = ", ".join(f"{p.id}: {p.count} × {p.machine_spec.machine_type}" for p in desired.node_pools)
    step = create_step(desired, f"no cluster {desired.name}: create it with node pools {pools}")
    section = cost.estimate([], _counts(desired), desired.resource_name().location)
    the_plan = plan_build.make(desired.name, "create", steps=(step,), groups=groups, cost=section)
    return _cost_guard(the_plan, section, policy)


def _delete_plan(observed: GcpClusterState | None, policy: Policy) -> Plan:
    if observed is None:
        return plan_build.make("", "none", notes=("there is no cluster: nothing to delete",))
    if observed.state == "STOPPING":
        return plan_build.make(
            observed.name, "none", state=observed, notes=("the cluster is already being deleted (STOPPING): nothing to call",)
        )
    groups = tuple(GroupChange(p.id, "delete", node_type=p.machine_type, target_before=p.target, current=p.running) for p in observed.pools)
    step = delete_step(observed.name, f"delete the cluster and its {observed.node_count} node(s)")
    location = observed.name.split("/")[3]
    section = cost.estimate(_observed_counts(observed), [], location)
    return plan_build.make(observed.name, "delete", steps=(step,), groups=groups, cost=section, state=observed)


def _replace_plan(desired: ClusterSpec, observed: GcpClusterState, found: compare.Differences, policy: Policy) -> Plan:
    steps = (
        delete_step(observed.name, "replace: delete the cluster (every node goes)", StepReason.CANNOT_UPDATE_IN_PLACE),
        create_step(desired, "replace: create it again with the new immutable fields", StepReason.CANNOT_UPDATE_IN_PLACE),
    )
    fields = "; ".join(str(item) for item in found.immutable) or "; ".join(found.replacements)
    refusals = (
        ()
        if policy.allow_replacement
        else (
            Refusal(
                RefusalRule.REPLACEMENT,
                f"{fields}: the service cannot change this in place; that deletes every node of the cluster "
                "and creates it again. To allow it set `allow_replacement: true` in the --policy file, or "
                "undo the change",
            ),
        )
    )
    groups = tuple(GroupChange(p.id, "delete", node_type=p.machine_type, target_before=p.target, current=p.running) for p in observed.pools)
    groups += tuple(GroupChange(p.id, "create", node_type=p.machine_spec.machine_type, target_after=p.count) for p in desired.node_pools)
    section = cost.estimate(_observed_counts(observed, desired), _counts(desired), desired.resource_name().location)
    return plan_build.make(
        desired.name,
        "replace",
        steps=steps,
        groups=groups,
        replacements=found.replacements,
        refusals=refusals,
        cost=section,
        state=observed,
    )


# ---- update ------------------------------------------------------------------------------------
def _update_plan(desired: ClusterSpec, observed: GcpClusterState, found: compare.Differences, policy: Policy) -> Plan:
    groups = _pool_rows(desired, observed, found) + ((_slurm_row("configure", found.slurm_lines),) if found.slurm_lines else ())
    notes = _scale_in_notes(groups, observed, desired)
    if not found.mask:
        refusals = (_error_refusal(observed),) if observed.state == "ERROR" else ()
        return plan_build.make(desired.name, "none", groups=groups, state=observed, notes=notes + _state_notes(observed), refusals=refusals)
    request = {"name": observed.name, "updateMask": ",".join(found.mask), "body": patch_body(desired, observed, found.mask)}
    step = Step(
        PATCH, request, _reasons(found, groups), kind="update-cluster", codes=tuple(StepReason.changed(field) for field in found.mask)
    )
    location = desired.resource_name().location
    section = cost.estimate(_observed_counts(observed, desired), _counts(desired), location)
    refusals = _scale_in_refusals(groups, observed, desired, policy)
    if observed.state == "ERROR":
        refusals += (_error_refusal(observed),)
    the_plan = plan_build.make(
        desired.name,
        "update",
        steps=(step,),
        groups=groups,
        refusals=refusals,
        notes=notes + _state_notes(observed),
        state=observed,
        cost=section,
    )
    return _cost_guard(the_plan, section, policy)


def patch_body(desired: ClusterSpec, observed: GcpClusterState, mask: tuple[str, ...]) -> dict[str, Any]:
    """Only the masked fields; node_pools whole, each existing pool starting from what the service
    has (so its defaults are kept, not reset) with the spec's fields over it."""
    wanted = desired.body()
    body: dict[str, Any] = {}
    for path in mask:
        if path == "node_pools":
            body["node_pools"] = [_merge(copy.deepcopy(observed.pool_body(p["id"]) or {}), p) for p in wanted["node_pools"]]
        elif path.startswith(compare.SLURM_PREFIX):
            field = path[len(compare.SLURM_PREFIX) :]
            value = desired.slurm.get(field)
            body.setdefault("orchestrator_spec", {}).setdefault("slurm_spec", {})[field] = copy.deepcopy(value)
        else:
            body[path] = copy.deepcopy(wanted.get(path))
    return body


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict) and key not in ("labels",):
            base[key] = _merge(base[key], value)
        else:
            base[key] = copy.deepcopy(value)
    return base


def _pool_rows(desired: ClusterSpec, observed: GcpClusterState, found: compare.Differences) -> tuple[GroupChange, ...]:
    rows = []
    for pool in desired.node_pools:
        have = observed.pool(pool.id)
        if have is None:
            rows.append(
                GroupChange(
                    pool.id,
                    "create",
                    node_type=pool.machine_spec.machine_type,
                    target_after=pool.count,
                    min_after=pool.scaling_spec.min_node_count,
                )
            )
            continue
        before_min = int(((observed.pool_body(pool.id) or {}).get("scaling_spec") or {}).get("min_node_count") or 0)
        before = size_before(have, pool)
        action = (
            "grow"
            if pool.count > before
            else (
                "shrink"
                if pool.count < before
                else "configure"
                if found.pool_lines.get(pool.id) or before_min != pool.scaling_spec.min_node_count
                else "unchanged"
            )
        )
        node_type = have.machine_type
        rows.append(
            GroupChange(
                pool.id,
                action,
                node_type=node_type,
                target_before=before,
                target_after=pool.count,
                current=have.running,
                min_before=before_min,
                min_after=pool.scaling_spec.min_node_count,
                config_changes=found.pool_lines.get(pool.id, ()),
            )
        )
    rows += [
        GroupChange(p.id, "delete", node_type=p.machine_type, target_before=p.target, current=p.running)
        for p in observed.pools
        if desired.pool(p.id) is None
    ]
    return tuple(rows)


def size_before(have: PoolState, pool: Any) -> int:
    """The size a pool change is measured from: its max_node_count, the size the service keeps it at —
    but the nodes it has now when an autoscaled pool (min < max) is made fixed (min = max), since
    from then on the count is the spec's: 1 node of a 1–3 pool made 2/2 is a pool that grows."""
    fixed = pool.scaling_spec.min_node_count == pool.scaling_spec.max_node_count
    return len(have.nodes) if have.autoscaled and fixed else have.target


def _slurm_row(action: str, lines: tuple[str, ...]) -> GroupChange:
    return GroupChange("slurm", action, node_type="slurm.conf", config_changes=lines)


def _reasons(found: compare.Differences, groups: tuple[GroupChange, ...]) -> tuple[str, ...]:
    reasons = [f"update mask: {', '.join(found.mask)}"]
    reasons += list(found.top_lines)
    for g in groups:
        if g.group == "slurm":
            continue
        if g.action in ("grow", "shrink"):
            reasons.append(f"node_pools: {g.group} {g.target_before} → {g.target_after} node(s) ({g.delta:+d})")
        elif g.action in ("create", "delete"):
            reasons.append(f"node_pools: {g.action} pool {g.group}")
        reasons += [f"node_pools: {g.group} {line}" for line in g.config_changes if g.action != "create"]
    reasons += [f"slurm_spec: {line}" for line in found.slurm_lines]
    return tuple(reasons)


def nodes_lost(g: GroupChange, observed: GcpClusterState) -> tuple[int, int]:
    """(nodes the change removes at most, nodes the pool has): a delete removes every node;
    a shrink removes what is above the new max_node_count — of an autoscaled pool (min < max), only
    the nodes it has now count, not its maximum."""
    pool = observed.pool(g.group)
    present = len(pool.nodes) if pool is not None and pool.autoscaled else (g.target_before or 0)
    if g.action == "delete":
        return present, present
    if g.action == "shrink":
        return max(present - (g.target_after or 0), 0), present
    return 0, present


def _scale_in_notes(groups: tuple[GroupChange, ...], observed: GcpClusterState, desired: ClusterSpec) -> tuple[str, ...]:
    notes = []
    for g in groups:
        removed, _present = nodes_lost(g, observed)
        if g.action in ("shrink", "delete") and removed > 0:
            notes.append(
                f"pool {g.group} loses {removed} node(s): Google Cloud chooses which ones (the API takes a "
                "node count, not node names), so this plan cannot name them"
            )
    for pool in observed.pools:
        wanted = desired.pool(pool.id)
        if pool.autoscaled and wanted is not None and wanted.scaling_spec.min_node_count == wanted.scaling_spec.max_node_count:
            notes.append(
                f"pool {pool.id}'s autoscaling ends: it has {len(pool.nodes)} node(s) now and is kept at "
                f"{wanted.count} from here on (the spec's count, no longer the service's within {pool.minimum}–{pool.target})"
            )
            continue
        if pool.autoscaled:
            notes.append(
                f"pool {pool.id} autoscales between {pool.minimum} and {pool.target} node(s) (has {len(pool.nodes)} "
                "now): its node count is the service's, within that range; the plan changes only the range, "
                "and its cost is shown at max_node_count (the most it can cost)"
            )
    return tuple(notes)


def _scale_in_refusals(
    groups: tuple[GroupChange, ...], observed: GcpClusterState, desired: ClusterSpec, policy: Policy
) -> tuple[Refusal, ...]:
    """The guards of any removal: a shrink, a pool deleted (every node of it goes)."""
    refusals = []
    login = desired.slurm.get("login_node_pool_id")
    for g in groups:
        removed, present = nodes_lost(g, observed)
        if g.action not in ("shrink", "delete") or removed <= 0:
            continue
        fraction = removed / (present or 1)
        if fraction > policy.max_scale_in_fraction:
            refusals.append(
                Refusal(
                    RefusalRule.MAX_SCALE_IN_FRACTION,
                    f"pool {g.group} would lose {removed} of {present} "
                    f"nodes ({fraction:.0%}), more than the policy's {policy.max_scale_in_fraction:.0%}",
                    g.group,
                )
            )
        if g.group == login and not policy.allow_login_scale_in:
            refusals.append(
                Refusal(
                    RefusalRule.LOGIN_SCALE_IN,
                    f"pool {g.group} is the Slurm login pool; set allow_login_scale_in in the policy to shrink it",
                    g.group,
                )
            )
        pool = observed.pool(g.group)
        protected = sorted(n for n in policy.protected_node_ids if pool is not None and pool.holds(n))
        if protected:
            refusals.append(
                Refusal(
                    RefusalRule.PROTECTED_NODES,
                    f"pool {g.group} is deleted: every node of it goes, protected node(s) {', '.join(protected)} included"
                    if g.action == "delete"
                    else f"pool {g.group} shrinks and Google Cloud chooses the nodes that go: protected "
                    f"node(s) {', '.join(protected)} could be among them",
                    g.group,
                )
            )
    return tuple(refusals)


def _error_refusal(observed: GcpClusterState) -> Refusal:
    return Refusal(
        RefusalRule.CLUSTER_STATE,
        f"the cluster is in ERROR ({observed.detail or 'no detail'}): it does not take "
        "updates; delete it (`hyperpod gcp delete`) and apply again to create it anew",
    )


def _state_notes(observed: GcpClusterState) -> tuple[str, ...]:
    if observed.state in WAITABLE_STATES:
        return (f"the cluster is {observed.state}: apply waits for it to be RUNNING before it calls",)
    return ()


def _cost_guard(the_plan: Plan, section: plan_build.GcpCost, policy: Policy) -> Plan:
    limit = policy.max_hourly_cost_increase
    if limit is None:
        return the_plan
    if section.delta is not None and section.delta > limit:
        reason = f"the plan raises the cluster's cost by ${section.delta:.2f}/h, more than the policy's ${limit:.2f}/h"
    elif section.unknown_increase:
        reason = (
            f"a pool with no known price grows ({', '.join(section.unknown)}): the cost increase cannot be "
            f"checked against the policy's ${limit:.2f}/h"
        )
    else:
        return the_plan
    return the_plan.refuse(Refusal(RefusalRule.MAX_HOURLY_COST_INCREASE, reason))


def _counts(desired: ClusterSpec) -> list[cost.PoolCount]:
    return [cost.PoolCount(p.id, p.machine_spec.machine_type, p.provisioning_model, p.count) for p in desired.node_pools]


def _observed_counts(observed: GcpClusterState, desired: ClusterSpec | None = None) -> list[cost.PoolCount]:
    """Each pool at the size the plan measures it from (`size_before`; an autoscaled pool at its maximum, the most it can cost)."""
    counts = []
    for p in observed.pools:
        wanted = desired.pool(p.id) if desired is not None else None
        counts.append(
            cost.PoolCount(p.id, p.machine_type, p.provisioning_model, size_before(p, wanted) if wanted is not None else p.target)
        )
    return counts
