"""What a plan costs per hour: before, after and the change, per instance group and for the cluster.

A pure function of (plan, desired, observed, price table, region): `plan_cost` returns the typed
`CostSection`; `with_cost` attaches it as `plan.cost` (and the budget guard's refusal). The
pipeline calls it after `plan()`, which knows nothing of prices.

How a group is priced:
- before: the observed TargetCount. Launched instances are priced by their own type (a flexible
  group's per-type counts come from DescribeCluster's InstanceTypeDetails); capacity still
  pending is priced at the first type of the priority order, the one expected to be provisioned.
- after: existing instances stay what they are (minus the plan's victims); new capacity is priced
  at the desired priority order's first type. A flexible group also states its range: the new
  capacity all of the cheapest type .. all of the dearest.
- the change is counted per instance type, so an unpriced group that does not change does not
  make the cluster's change unknown. A type with no price is "price unknown", never zero.
- capacity that is not on-demand is priced as what it is: a Spot group's instances are
  `ml.g5.xlarge (Spot)` and a training plan's `ml.g5.xlarge (training plan)` (paid up front with
  the plan), each with its own price entry or "price unknown" — never the on-demand price. Launched
  instances keep the capacity they were launched with; new capacity takes the spec's.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any
from collections.abc import Mapping

from pulumi_hyperpod.aws.planner.codes import RefusalRule
from pulumi_hyperpod.plans.model import Plan, Refusal, Victim
from pulumi_hyperpod.plans.sections import ClusterCost, CostSection, GroupCost, PriceUsed
from pulumi_hyperpod.plans.money import signed, usd
from pulumi_hyperpod.aws.cost.prices import PriceTable, as_price_table

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.observe import ClusterState, GroupState
    from pulumi_hyperpod.plans.policy import Policy
    from pulumi_hyperpod.aws.spec import ClusterSpec, InstanceGroupSpec

DEFAULT_REGION = "us-west-2"
UNKNOWN_TYPE = "(unknown type)"
BUDGET_RULE = RefusalRule.MAX_HOURLY_COST_INCREASE
_ARN_REGION = re.compile(r"^arn:[^:]+:sagemaker:([^:]+):")


def region_of(observed: ClusterState | None, region: str | None = None) -> str:
    """The cluster's region: its ARN says it; else the `region` given; else us-west-2."""
    match = _ARN_REGION.match(observed.arn or "") if observed is not None else None
    return match.group(1) if match else (region or DEFAULT_REGION)


def with_cost(
    plan: Plan,
    desired: ClusterSpec | None,
    observed: ClusterState | None,
    policy: Policy,
    prices: PriceTable | Mapping[str, Any] | None = None,
    region: str | None = None,
) -> Plan:
    """The plan with its cost section, refused when it raises the hourly cost past the budget."""
    cost = plan_cost(plan, desired, observed, as_price_table(prices), region)
    priced = dataclasses.replace(plan, cost=cost)
    refusal = budget_refusal(cost, policy.max_hourly_cost_increase)
    return priced.refuse(refusal) if refusal is not None else priced


# ---- one group -----------------------------------------------------------------------------------
class _Mix:
    """A group's instances: launched ones by type, and capacity pending at the priority order. Never
    changed once made. A plain class: a working record, never compared nor shown, and the methods
    a dataclass generates are compiled when the module loads, in every preview."""

    __slots__ = ("launched", "pending", "priority")

    def __init__(self, launched: Mapping[str, int], pending: int, priority: tuple[str, ...]) -> None:
        self.launched = launched
        self.pending = pending
        self.priority = priority

    @property
    def count(self) -> int:
        return sum(self.launched.values()) + self.pending

    def expected(self) -> dict[str, int]:
        counts = dict(self.launched)
        if self.pending:
            first = self.priority[0] if self.priority else UNKNOWN_TYPE
            counts[first] = counts.get(first, 0) + self.pending
        return {t: c for t, c in counts.items() if c}


_NONE = _Mix({}, 0, ())


def _trim(launched: dict[str, int], limit: int, priority: tuple[str, ...]) -> dict[str, int]:
    """At most `limit` instances: types outside the priority order go first, then the last ones."""
    excess = sum(launched.values()) - limit
    order = sorted(launched, key=lambda t: (t in priority, -priority.index(t) if t in priority else 0))
    for name in order:
        if excess <= 0:
            break
        taken = min(launched[name], excess)
        launched[name] -= taken
        excess -= taken
    return {t: c for t, c in launched.items() if c > 0}


SPOT, TRAINING_PLAN = "Spot", "training plan"


def capacity_kind(group: Mapping[str, Any]) -> str | None:
    """How a group's instances are bought, from its spec or its DescribeCluster entry: Spot
    (CapacityRequirements.Spot), a training plan (TrainingPlanArn), or None for on-demand."""
    if group.get("TrainingPlanArn"):
        return TRAINING_PLAN
    if ((group.get("CapacityRequirements") or {}).get("Spot")) is not None:
        return SPOT
    return None


def priced_as(instance_type: str, kind: str | None) -> str:
    """The price key of an instance type bought as `kind`: `ml.g5.xlarge (Spot)`."""
    return instance_type if kind is None or instance_type == UNKNOWN_TYPE else f"{instance_type} ({kind})"


def _kinded(mix: _Mix, kind: str | None) -> _Mix:
    if kind is None:
        return mix
    return _Mix({priced_as(t, kind): c for t, c in mix.launched.items()}, mix.pending, tuple(priced_as(t, kind) for t in mix.priority))


def _observed_mix(have: GroupState, observed: ClusterState) -> _Mix:
    return _kinded(_observed_types(have, observed), capacity_kind(have.described))


def _observed_types(have: GroupState, observed: ClusterState) -> _Mix:
    details = have.described.get("InstanceTypeDetails")
    if details:
        launched = {d["InstanceType"]: int(d.get("CurrentCount") or 0) for d in details}
    elif have.instance_type:
        launched = {have.instance_type: have.current_count}
    else:  # a flexible group described without per-type counts: count its nodes
        launched = {}
        for node in observed.nodes_of(have.name):
            if node.launched and node.status != "ShuttingDown":
                key = node.instance_type or UNKNOWN_TYPE
                launched[key] = launched.get(key, 0) + 1
    launched = _trim(launched, have.target_count, have.instance_types)
    return _Mix(launched, max(have.target_count - sum(launched.values()), 0), have.instance_types)


def _after_mix(
    want: InstanceGroupSpec, count: int, before: _Mix, victims: list[Victim], observed: ClusterState, kind: str | None = None
) -> _Mix:
    """The group after the plan: `count` is the plan's count for it (the spec's, or the observed count
    of a group whose counts an autoscaler owns), never the spec's alone."""
    launched = dict(before.launched)
    removed = [v for v in victims if not v.logical]
    if removed and len(launched) == 1:
        only = next(iter(launched))
        launched[only] -= len(removed)
    elif removed:
        have = observed.group(want.name)
        was = capacity_kind(have.described) if have is not None else None
        types = {n.instance_id: priced_as(n.instance_type or UNKNOWN_TYPE, was) for n in observed.nodes_of(want.name) if n.instance_id}
        for victim in removed:
            name = types.get(victim.node_id)
            if name in launched:
                launched[name] -= 1
    priority = tuple(priced_as(t, kind) for t in want.instance_types)
    launched = _trim({t: c for t, c in launched.items() if c > 0}, count, priority)
    return _Mix(launched, max(count - sum(launched.values()), 0), priority)


class _Priced:
    """One group's cost entry with what the cluster's totals need (a working record, as _Mix)."""

    __slots__ = ("entry", "high", "known_delta", "low", "unknown_increase")

    def __init__(self, entry: GroupCost, known_delta: float, unknown_increase: bool, low: float | None, high: float | None) -> None:
        self.entry = entry
        self.known_delta = known_delta  # the change over the priced types only
        self.unknown_increase = unknown_increase  # an unpriced type's count goes up: the change has no upper bound
        self.low = low
        self.high = high


def _price(counts: Mapping[str, int], table: PriceTable, region: str) -> tuple[float | None, float, set[str]]:
    total, unknown = 0.0, set()
    for name, count in counts.items():
        per_hour = table.per_hour(name, region) if name != UNKNOWN_TYPE else None
        if per_hour is None:
            unknown.add(name)
        else:
            total += per_hour * count
    return (None if unknown else total), total, unknown


def _range(after: _Mix, table: PriceTable, region: str) -> tuple[float | None, float | None, set[str]]:
    launched, _, unknown = _price(after.launched, table, region)
    options = [table.per_hour(name, region) for name in after.priority]
    unknown |= {name for name, per_hour in zip(after.priority, options, strict=True) if per_hour is None}
    if launched is None or not options or any(p is None for p in options):
        return None, None, unknown
    return launched + after.pending * min(options), launched + after.pending * max(options), unknown


def _group(name: str, action: str, before: _Mix, after: _Mix, flexible: bool, table: PriceTable, region: str) -> _Priced:
    before_counts, after_counts = before.expected(), after.expected()
    before_cost, _, before_unknown = _price(before_counts, table, region)
    after_cost, _, after_unknown = _price(after_counts, table, region)
    diff = {t: after_counts.get(t, 0) - before_counts.get(t, 0) for t in sorted(set(before_counts) | set(after_counts))}
    diff = {t: d for t, d in diff.items() if d}
    delta, known_delta, delta_unknown = _price(diff, table, region)
    unknown = before_unknown | after_unknown | delta_unknown
    low = high = after_cost
    price_range = None
    if flexible:
        low, high, range_unknown = _range(after, table, region) if after.count else (0.0, 0.0, set())
        unknown |= range_unknown
        price_range = (_round(low), _round(high)) if low is not None else None
    entry = GroupCost(
        group=name,
        action=action,
        instance_types=tuple(after.priority or before.priority),
        before_count=before.count,
        after_count=after.count,
        before_instances=before_counts,
        after_instances=after_counts,
        before_per_hour=_round(before_cost),
        after_per_hour=_round(after_cost),
        delta_per_hour=_round(delta),
        unknown=tuple(sorted(unknown)),
        flexible=flexible,
        range=price_range,
    )
    unknown_increase = any(d > 0 and t in delta_unknown for t, d in diff.items())
    return _Priced(entry, known_delta, unknown_increase, low, high)


# ---- the plan ------------------------------------------------------------------------------------
def plan_cost(
    plan: Plan,
    desired: ClusterSpec | None,
    observed: ClusterState | None,
    table: PriceTable,
    region: str | None = None,
) -> CostSection:
    """The plan's cost section (typed data; `plan.render` draws it)."""
    region = region_of(observed, region)
    victims: dict[str, list[Victim]] = {}
    for victim in plan.victims:
        victims.setdefault(victim.group, []).append(victim)
    priced: list[_Priced] = []
    # desired.group(name) for every group, from one index (the first group of a name, as group() finds it)
    wanted = {g.name: g for g in reversed(desired.groups)} if desired is not None else {}
    for change in plan.groups:
        have = observed.group(change.group) if observed is not None else None
        want = wanted.get(change.group)
        before = _observed_mix(have, observed) if have is not None else _NONE
        # only a group that names its capacity is read in its request form (to_api: a dump per group)
        kind = capacity_kind(want.to_api()) if want is not None and (want.training_plan_arn or want.capacity_requirements) else None
        if want is None:
            after = _NONE
        elif have is None or plan.action == "replace":
            after = _kinded(_Mix({}, want.instance_count, want.instance_types), kind)
        else:
            count = change.target_after if change.target_after is not None else want.instance_count
            after = _after_mix(want, count, before, victims.get(change.group, []), observed, kind)
        flexible = (want is not None and want.instance_requirements is not None) or bool(
            have is not None and have.described.get("InstanceRequirements")
        )
        priced.append(_group(change.group, change.action, before, after, flexible, table, region))
    groups = [p.entry for p in priced]
    totals = {key: _sum(getattr(g, key) for g in groups) for key in ("before_per_hour", "after_per_hour", "delta_per_hour")}
    cluster_range = (_sum(p.low for p in priced), _sum(p.high for p in priced)) if any(g.flexible for g in groups) else None
    at_most = None
    if totals["delta_per_hour"] is None and not any(p.unknown_increase for p in priced):
        at_most = _round(sum(p.known_delta for p in priced))
    unknown = sorted({t for g in groups for t in g.unknown})
    involved = sorted({t for g in groups for t in (*g.before_instances, *g.after_instances, *g.instance_types)} - set(unknown))
    known_prices = {}
    for name in involved:
        price = table.price(name, region)
        if price is not None:
            known_prices[name] = PriceUsed(price.per_hour, price.source)
    return CostSection(
        currency=table.currency,
        region=region,
        prices_from=table.describe(),
        prices=known_prices,
        groups=tuple(groups),
        cluster=ClusterCost(delta_at_most=at_most, range=cluster_range, **totals),
        unknown_types=tuple(unknown),
    )


def budget_refusal(cost: CostSection, limit: float | None) -> Refusal | None:
    """A Refusal when the plan raises the hourly cost by more than `limit`, or it cannot be told."""
    if limit is None:
        return None
    cluster = cost.cluster
    delta = cluster.delta_per_hour
    budget = f"policy.max_hourly_cost_increase ({usd(limit)}/h)"
    if delta is None:
        if cluster.delta_at_most is not None and cluster.delta_at_most <= limit:
            return None  # only unpriced groups shrink: the increase is at most the priced part
        missing = ", ".join(cost.unknown_types)
        return Refusal(
            BUDGET_RULE,
            f"the hourly cost increase cannot be checked against {budget}: no price for {missing} in "
            f"{cost.region}; add it (a $HYPERPOD_PRICES file or the prices setting) or remove the limit",
        )
    if delta <= limit:
        return None
    before, after = cluster.before_per_hour, cluster.after_per_hour
    if before is not None and after is not None:
        change = f"from {usd(before)}/h to {usd(after)}/h ({signed(delta)}/h)"
    else:
        change = f"by {signed(delta)}/h (some unchanged groups have no price)"
    return Refusal(BUDGET_RULE, f"this plan raises the cluster's cost {change}, more than {budget}")


# ---- numbers -------------------------------------------------------------------------------------
def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _sum(values) -> float | None:
    total = 0.0
    for value in values:
        if value is None:
            return None
        total += value
    return round(total, 6)
