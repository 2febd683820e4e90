"""Building a shared `Plan` from the GCP planner's pieces: the one place that knows the Plan's shape.

The cost goes to the plan's typed `CostSection` (`cost` in `gcp plan --json`); what the plan was
computed against goes to a `Basis` (the cluster's name, a hash of its configuration, each pool's
target and minimum, and a hash of the whole configuration: the PATCH is checked against all of
it), whose fingerprint is the plan's `observed_fingerprint`.
"""

from __future__ import annotations

from typing import Any

from pulumi_hyperpod.gcp.cost import PRICES_ENV, GcpCost
from pulumi_hyperpod.plans.basis import Basis, GroupBasis
from pulumi_hyperpod.plans.model import Plan
from pulumi_hyperpod.plans.sections import ClusterCost, CostSection, GroupCost, PriceUsed
from pulumi_hyperpod.plans.steps import KINDS


def make(
    cluster_name: str,
    action: str,
    *,
    steps=(),
    groups=(),
    replacements=(),
    refusals=(),
    notes=(),
    state: Any = None,
    cost: GcpCost | None = None,
) -> Plan:
    the_plan = Plan(
        cluster_name=cluster_name,
        action=action,
        steps=tuple(steps),
        groups=tuple(groups),
        replacements=tuple(replacements),
        notes=tuple(notes),
        basis=_basis(state),
        cost=_typed_cost(cost),
    )
    return the_plan.refuse(*refusals) if refusals else the_plan


def fingerprint_of(state: Any) -> str | None:
    """What `plan.observed_fingerprint` is for a plan made against `state`."""
    if state is None:
        return None
    return _basis(state).fingerprint()


def _cluster_moved(the_plan: Plan, state: Any) -> list[str]:
    if state is None:
        return [f"the cluster {the_plan.cluster_name} is gone"] if the_plan.basis is not None else []
    if the_plan.basis is None:
        return [f"the cluster {state.name} now exists; the plan was made to create it"]
    return (
        []
        if state.name == the_plan.basis.identity
        else [f"the cluster here is {state.name}, the plan was made for {the_plan.basis.identity}"]
    )


def _configuration_moved(the_plan: Plan, state: Any) -> list[str]:
    """The whole configuration, hashed (Google Cloud checks a PATCH against all of it): the node
    pools' counts, their Slurm roles and the nodes they hold are part of it."""
    if state is None or the_plan.basis is None or the_plan.basis.configuration is None:
        return []
    return [] if state.fingerprint() == the_plan.basis.configuration else ["its configuration is not the one the plan was computed against"]


# One reader per premise name a Google Cloud step declares (plans/steps.py); the configuration hash
# holds the groups, the roles and the nodes, so they read it.
PREMISE_READERS = {
    "cluster": _cluster_moved,
    "configuration": _configuration_moved,
    "groups": _configuration_moved,
    "roles": _configuration_moved,
    "nodes": _configuration_moved,
}


def stale_reasons(the_plan: Plan, state: Any) -> list[str]:
    """What no longer holds of the premises the plan's steps declare, each reader once."""
    readers = dict.fromkeys(PREMISE_READERS[p] for step in the_plan.steps for p in KINDS[step.kind].premise)
    return list(dict.fromkeys(reason for reader in readers for reason in reader(the_plan, state)))


def cost_delta(the_plan: Plan) -> float | None:
    return the_plan.cost.cluster.delta_per_hour if the_plan.cost is not None else None


def _basis(state: Any):
    if state is None:
        return None
    groups = []
    for pool in state.pools:
        body = state.pool_body(pool.id) or {}
        minimum = int((body.get("scaling_spec") or {}).get("min_node_count") or 0)
        groups.append(GroupBasis(pool.id, pool.target, minimum, pool.target, None))
    return Basis(identity=state.name, state=state.state, groups=tuple(groups), configuration=state.fingerprint())


def _typed_cost(cost: GcpCost | None):
    if cost is None:
        return None
    prices = {p.machine_type: PriceUsed(p.price, "gcp list price") for p in cost.pools if p.price is not None}
    prices.update({p.old_type: PriceUsed(p.old_price, "gcp list price") for p in cost.pools if p.old_price is not None})

    def per_hour(price: float | None, count: int) -> float | None:
        return None if price is None else price * count

    groups = tuple(
        GroupCost(
            group=p.pool,
            action=p.action,
            instance_types=tuple(dict.fromkeys((p.old_type, p.machine_type))),
            before_count=p.before,
            after_count=p.after,
            before_instances={p.old_type: p.before} if p.before else {},
            after_instances={p.machine_type: p.after} if p.after else {},
            before_per_hour=per_hour(p.old_price, p.before),
            after_per_hour=per_hour(p.price, p.after),
            delta_per_hour=None if p.price is None or p.old_price is None else p.price * p.after - p.old_price * p.before,
            unknown=tuple(dict.fromkeys(t for t, price in ((p.old_type, p.old_price), (p.machine_type, p.price)) if price is None)),
        )
        for p in cost.pools
    )
    return CostSection(
        currency=cost.currency,
        region=cost.region,
        prices_from=cost.prices_from,
        prices=prices,
        groups=groups,
        cluster=ClusterCost(cost.before, cost.after, cost.delta),
        unknown_types=cost.unknown,
        add_prices=f"a ${PRICES_ENV} file",
    )
