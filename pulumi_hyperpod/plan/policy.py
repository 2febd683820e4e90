"""Policy: what a plan may do to a running cluster. Guards refuse, with the reason, what it may not."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Policy(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    protected_node_ids: frozenset[str] = Field(
        default=frozenset(), description="Instance or logical ids a scale-in must never remove."
    )
    max_scale_in_fraction: float = Field(
        default=1.0,
        ge=0.0,
        le=1.0,
        description="Largest share of a group's nodes one plan may remove (1.0 = no limit).",
    )
    allow_controller_scale_in: bool = Field(
        default=False, description="Allow shrinking or deleting a Slurm Controller group (its nodes are still never named)."
    )
    allow_login_scale_in: bool = Field(default=False, description="Allow removing Login nodes or the Login group.")
    allow_replacement: bool = Field(
        default=False, description="Allow a plan that deletes and re-creates the cluster for a change the service cannot make in place."
    )
    max_nodes_per_delete_call: int = Field(
        default=99, ge=1, description="Nodes named in one BatchDeleteClusterNodes call (the API reference allows 99)."
    )
    max_hourly_cost_increase: float | None = Field(
        default=None, ge=0.0, description="Refuse a plan that raises the cluster's hourly cost by more than this (USD)."
    )
    quota_warning_margin: float = Field(
        default=0.9, ge=0.0, le=1.0, description="Warn when a plan would use more than this share of a service quota."
    )
