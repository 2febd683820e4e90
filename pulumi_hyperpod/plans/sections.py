"""The typed sections later stages add to a Plan: cost (pure, from a price table) and preflight
(read from the account). Plain data with a JSON round trip; rendered only at the edges
(`plan.render`), never stored as text.

They live here, beside the Plan, so `cost/` and `preflight/` import `plans/` and never the other
way round: the layers point one way (docs/DESIGN.md, "Layers").
"""

from __future__ import annotations

from dataclasses import dataclass, asdict
from typing import TYPE_CHECKING, Any
from collections.abc import Mapping

from pulumi_hyperpod._lazy import lazy_exports

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.plans.findings import (  # exported
        ConsistencyFinding as ConsistencyFinding,
        QuotaCheck as QuotaCheck,
        TrainingPlanFinding as TrainingPlanFinding,
    )

# The rows of a preflight section that only a plan adding instances has (quota checks, consistency
# findings) are in findings.py, loaded when one is made or read (PEP 562): a preview with nothing
# to add, most of them, does not build their classes.
_EXPORTS = dict.fromkeys(
    ["ConsistencyFinding", "QuotaCheck", "TrainingPlanFinding"], f"{__package__}.findings"
)  # a module: not relative to itself


def _tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value or ())


def _pair(value: Any) -> tuple[float | None, float | None] | None:
    return None if value is None else (value[0], value[1])


# ---- cost --------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PriceUsed:
    per_hour: float
    source: str


@dataclass(frozen=True, slots=True)
class GroupCost:
    """One instance group's cost per hour, before and after the plan."""

    group: str
    action: str
    instance_types: tuple[str, ...]
    before_count: int
    after_count: int
    before_instances: Mapping[str, int]  # instance type → count
    after_instances: Mapping[str, int]
    before_per_hour: float | None  # None: some type has no price
    after_per_hour: float | None
    delta_per_hour: float | None
    unknown: tuple[str, ...] = ()  # instance types without a price
    flexible: bool = False
    range: tuple[float | None, float | None] | None = None  # a flexible group: cheapest .. dearest

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GroupCost:
        return cls(
            **{
                **data,
                "instance_types": _tuple(data.get("instance_types")),
                "unknown": _tuple(data.get("unknown")),
                "before_instances": dict(data.get("before_instances") or {}),
                "after_instances": dict(data.get("after_instances") or {}),
                "range": _pair(data.get("range")),
            }
        )


@dataclass(frozen=True, slots=True)
class ClusterCost:
    before_per_hour: float | None
    after_per_hour: float | None
    delta_per_hour: float | None
    delta_at_most: float | None = None  # the change is unknown but bounded (only unpriced groups shrink)
    range: tuple[float | None, float | None] | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ClusterCost:
        return cls(**{**data, "range": _pair(data.get("range"))})


@dataclass(frozen=True, slots=True)
class CostSection:
    currency: str
    region: str
    prices_from: str
    prices: Mapping[str, PriceUsed]
    groups: tuple[GroupCost, ...]
    cluster: ClusterCost
    unknown_types: tuple[str, ...] = ()
    add_prices: str = "a $HYPERPOD_PRICES file or the prices setting"  # how to give a missing price

    def group(self, name: str) -> GroupCost | None:
        return next((g for g in self.groups if g.group == name), None)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CostSection:
        return cls(
            currency=data["currency"],
            region=data["region"],
            prices_from=data["prices_from"],
            prices={name: PriceUsed(**price) for name, price in (data.get("prices") or {}).items()},
            groups=tuple(GroupCost.from_dict(g) for g in data.get("groups") or ()),
            cluster=ClusterCost.from_dict(data["cluster"]),
            unknown_types=_tuple(data.get("unknown_types")),
            **({"add_prices": data["add_prices"]} if data.get("add_prices") else {}),
        )


# ---- preflight ---------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class QuotaSection:
    status: str  # checked | not-needed | unreadable
    region: str | None = None
    checks: tuple[QuotaCheck, ...] = ()
    clusters_counted: tuple[str, ...] = ()
    clusters_skipped: tuple[str, ...] = ()
    clusters_error: str | None = None
    error: str | None = None
    title: str | None = None  # what the checks are, in the cloud's words (None: HyperPod's service quotas)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QuotaSection:
        from pulumi_hyperpod.plans.findings import QuotaCheck  # noqa: PLC0415 - the rows only a plan adding instances has (see _EXPORTS)

        return cls(
            **{
                **data,
                "checks": tuple(QuotaCheck.from_dict(c) for c in data.get("checks") or ()),
                "clusters_counted": _tuple(data.get("clusters_counted")),
                "clusters_skipped": _tuple(data.get("clusters_skipped")),
            }
        )


@dataclass(frozen=True, slots=True)
class PreflightSection:
    verdict: str  # ok | warnings | refused
    skipped: str | None = None  # why nothing was read (offline, --no-preflight)
    quotas: QuotaSection | None = None
    consistency: tuple[ConsistencyFinding, ...] = ()
    warnings: tuple[str, ...] = ()
    refused_by: tuple[str, ...] = ()  # the rules that refused the plan, in order (the reasons are on the plan)
    training_plans: tuple[TrainingPlanFinding, ...] = ()  # growing groups' training plans, as read

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PreflightSection:
        from pulumi_hyperpod.plans.findings import ConsistencyFinding, TrainingPlanFinding  # noqa: PLC0415 - the rows only a plan adding instances has

        quotas = data.get("quotas")
        return cls(
            verdict=data["verdict"],
            skipped=data.get("skipped"),
            quotas=QuotaSection.from_dict(quotas) if quotas is not None else None,
            consistency=tuple(ConsistencyFinding.from_dict(f) for f in data.get("consistency") or ()),
            warnings=_tuple(data.get("warnings")),
            refused_by=_tuple(data.get("refused_by")),
            training_plans=tuple(TrainingPlanFinding.from_dict(f) for f in data.get("training_plans") or ()),
        )


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
