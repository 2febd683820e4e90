"""The rows of a plan's preflight section (`sections.QuotaSection.checks`,
`sections.PreflightSection.consistency`, `sections.PreflightSection.training_plans`): one quota
checked, one growing group whose nodes would be built two ways, one growing group's training plan. Only a plan that adds instances has them, so they are loaded apart from the
sections (a preview with nothing to add does not build these classes); `plan.sections` still
exports both names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Mapping


def _tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value or ())


@dataclass(frozen=True)
class QuotaCheck:
    quota_name: str
    quota_code: str | None
    quota: float | None  # None: no such quota found
    source: str | None  # "applied" | "AWS default"
    instance_type: str | None
    groups: tuple[str, ...]
    in_use: int
    after: int
    adds: int
    status: str = "unknown"  # ok | near | over | over-already | unknown

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QuotaCheck:
        return cls(**{**data, "groups": _tuple(data.get("groups"))})


@dataclass(frozen=True)
class ConsistencyFinding:
    """A growing group whose existing nodes were built differently from the ones it adds."""

    group: str
    fields: tuple[str, ...]
    changed_by_this_plan: tuple[str, ...]
    existing_nodes: int
    old_nodes: int
    new_nodes: int
    sampled: int
    is_sample: bool
    old_node_ids: tuple[str, ...]
    new_config: Mapping[str, Any]
    message: str
    note: str | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ConsistencyFinding:
        return cls(
            **{
                **data,
                "fields": _tuple(data.get("fields")),
                "changed_by_this_plan": _tuple(data.get("changed_by_this_plan")),
                "old_node_ids": _tuple(data.get("old_node_ids")),
                "new_config": dict(data.get("new_config") or {}),
            }
        )


@dataclass(frozen=True, slots=True)
class TrainingPlanFinding:
    """A growing group's training plan, as DescribeTrainingPlan reports it, against what the plan adds.
    `verdict`: fits (a note), waits (the plan is not Active yet: a warning), refused (the window,
    the type or the available count does not fit), unknown (the plan, or the offerings, could not be
    read: a warning), offered (a group on no plan, short of quota: the matching offerings, a note)."""

    group: str
    training_plan: str  # its ARN ("" for offerings)
    verdict: str  # fits | waits | refused | unknown | offered
    message: str
    status: str | None = None  # the model's TrainingPlanStatus
    instance_types: tuple[str, ...] = ()  # what it reserves
    availability_zones: tuple[str, ...] = ()
    total: int | None = None
    available: int | None = None
    in_use: int | None = None
    adds: int = 0
    start: str | None = None  # ISO 8601, UTC
    end: str | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrainingPlanFinding:
        return cls(
            **{**data, "instance_types": _tuple(data.get("instance_types")), "availability_zones": _tuple(data.get("availability_zones"))}
        )
