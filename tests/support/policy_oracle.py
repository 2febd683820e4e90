"""The Policy as it was, a pydantic BaseModel (before issue 30 made it a dataclass): the oracle that
tests/unit/plans/test_policy.py compares the dataclass against. Test-only; never imported by the
package. Copied verbatim but for the absolute import of core.policy_members."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# botocore's sagemaker model: ClusterNodeId and ClusterNodeLogicalId (tests/unit/plans/test_policy_ids.py
# checks these against the model; copied so that a Policy does not load the model)
INSTANCE_ID = re.compile(r"i-[a-f0-9]{8}(?:[a-f0-9]{9})?")
LOGICAL_ID = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9\-]*[a-zA-Z0-9]")


class Policy(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    protected_node_ids: frozenset[str] = Field(default=frozenset(), description="Instance or logical ids a scale-in must never remove.")
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
        default=99, ge=1, le=99, description="Nodes named in one BatchDeleteClusterNodes call (the API reference allows 99)."
    )
    max_hourly_cost_increase: float | None = Field(
        default=None, ge=0.0, description="Refuse a plan that raises the cluster's hourly cost by more than this (USD)."
    )
    quota_warning_margin: float = Field(
        default=0.9, ge=0.0, le=1.0, description="Warn when a plan would use more than this share of a service quota."
    )

    # scale-in by workload and drain before delete (docs/workloads.md; aws/planner/workload_order.py, apply/drain.py)
    scale_in_order: Literal["workload", "state", "oldest", "newest"] = Field(
        default="workload",
        description="Which removable nodes a scale-in names first: workload (idle, then the work "
        "that ends soonest; by state where no workload was read), state (unhealthy, never launched, newest), oldest, newest.",
    )
    remove_first: frozenset[str] = Field(
        default=frozenset(),
        description="Instance or logical ids a scale-in names before any other (Cluster API's "
        "delete-machine annotation); never a protected one.",
    )
    drain: Literal["none", "cordon", "drain"] = Field(
        default="none",
        description="Before deleting nodes: none; cordon (no new work lands; Slurm DRAIN, Kubernetes "
        "cordon), then delete; drain (cordon, evict pods through the Eviction API, wait for the work to end), then delete.",
    )
    drain_timeout: float = Field(default=3600.0, gt=0, le=7 * 86400, description="Seconds a drain waits for the work to end.")
    drain_deadline: Literal["stop", "delete"] = Field(
        default="stop", description="At drain_timeout: stop (exit 1, the nodes left drained and named) or delete them anyway."
    )

    @model_validator(mode="after")
    def _first_not_protected(self) -> Policy:
        both = sorted(self.remove_first & self.protected_node_ids)
        if both:
            raise ValueError(f"remove_first and protected_node_ids both name {', '.join(both)}: a node cannot be kept and removed first")
        return self

    # ---- node lifecycle (docs/lifecycle.md) --------------------------------------------------
    software_deployment: dict[str, Any] | None = Field(
        default=None,
        description="UpdateClusterSoftware DeploymentConfig for rollouts the plan makes (the model's "
        "DeploymentConfiguration: RollingUpdatePolicy, WaitIntervalInSeconds, "
        "AutoRollbackConfiguration); default: the group's ScheduledUpdateConfig.DeploymentConfig.",
    )
    max_unavailable_fraction: float = Field(
        default=1.0,
        ge=0.0,
        le=1.0,
        description="Largest share of a group's nodes a rollout, reboot or replacement may take down at once (1.0 = no limit).",
    )
    allow_login_disruption: bool = Field(
        default=False, description="Allow a rollout, reboot or replacement to take Slurm Login nodes down."
    )
    allow_controller_disruption: bool = Field(
        default=False, description="Allow a software rollout to take a Slurm Controller down (Slurm schedules nothing until it is back)."
    )
    failed_nodes: Literal["delete", "replace", "leave"] = Field(
        default="delete",
        description="Nodes in Failure: removed first on scale-in (delete), replaced with "
        "BatchReplaceClusterNodes (replace), or left where they are and named (leave).",
    )
    canary_nodes: int | None = Field(
        default=None,
        ge=1,
        le=50,
        description="Canary scale-out: a group growing by more than this adds this many nodes first, waits until their "
        "lifecycle scripts and deep health checks pass, then adds the rest; a canary failure stops the apply.",
    )
    replace_node_ids: frozenset[str] = Field(
        default=frozenset(), description="Nodes (instance or logical ids) this plan replaces with BatchReplaceClusterNodes (--replace)."
    )
    reboot_node_ids: frozenset[str] = Field(
        default=frozenset(), description="Nodes (instance or logical ids) this plan reboots with BatchRebootClusterNodes (--reboot)."
    )
    # added with issue 41 (node moves): the dataclass and this oracle keep the same members
    allow_node_moves: bool = Field(
        default=True,
        description="A group lowered while another of the same instance type is raised (EKS, Continuous): move the nodes "
        "with MoveClusterNodes instead of deleting and adding them (False: delete and add).",
    )

    @field_validator("software_deployment")
    @classmethod
    def _deployment(cls, config: dict[str, Any] | None) -> dict[str, Any] | None:
        """HyperPod's member: checked by HyperPod against its service model (core/policy_members.py),
        so a bad one fails here, before any call."""
        if config is None:
            return None
        from pulumi_hyperpod.core.policy_members import check

        checked: dict[str, Any] = check("software_deployment", config)
        return checked

    @field_validator("protected_node_ids", "remove_first", "replace_node_ids", "reboot_node_ids")
    @classmethod
    def _node_ids(cls, ids: frozenset[str]) -> frozenset[str]:
        """A protected id that is not a node id protects nothing: a typo here would let the very
        node it meant to keep be removed, so it is refused rather than ignored."""
        for node_id in sorted(ids):
            if node_id[:2].lower() == "i-" and not INSTANCE_ID.fullmatch(node_id):
                raise ValueError(f"{node_id!r} is not an instance id (i- and 8 or 17 lower-case hex digits)")
            if not INSTANCE_ID.fullmatch(node_id) and not LOGICAL_ID.fullmatch(node_id):
                raise ValueError(
                    f"{node_id!r} is neither an instance id (i-0123456789abcdef0) nor a node logical id (letters, digits and inner dashes)"
                )
        return ids
