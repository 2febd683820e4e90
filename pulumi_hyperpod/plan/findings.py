"""The rows of a plan's preflight section (`sections.QuotaSection.checks`,
`sections.PreflightSection.consistency`): one quota checked, one growing group whose nodes would be
built two ways. Only a plan that adds instances has them, so they are loaded apart from the
sections (a preview with nothing to add does not build these classes); `plan.sections` still
exports both names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from .sections import _tuple


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
    def from_dict(cls, data: Mapping[str, Any]) -> "QuotaCheck":
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
    def from_dict(cls, data: Mapping[str, Any]) -> "ConsistencyFinding":
        return cls(
            **{
                **data,
                "fields": _tuple(data.get("fields")),
                "changed_by_this_plan": _tuple(data.get("changed_by_this_plan")),
                "old_node_ids": _tuple(data.get("old_node_ids")),
                "new_config": dict(data.get("new_config") or {}),
            }
        )
