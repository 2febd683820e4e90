"""HyperPod's section of the Policy: the members only HyperPod reads (docs/plans.md, "Neutral and
HyperPod's members").

The Policy (plans/policy.py) keeps one flat surface for every cloud — keyword construction, a policy
file, Pulumi's `policy=` input, its dumps inside saved plans and the native schema spell every member
at the top level, as before — and names its neutral members (`NEUTRAL`). The rest are HyperPod's,
declared here as a typed section that HyperPod's planner and apply read (`aws_policy(policy).drain`),
so a member read on the neutral Policy is one every cloud honours (tests/quality/test_neutral_plans.py
checks the split, and that Google Cloud reads none of these). The section is registered by name in
core/policy_members.py, so the core names no cloud.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.plans.policy import Policy


@dataclass(frozen=True, slots=True)
class AwsPolicy:
    """HyperPod's members, as the Policy holds them (already validated there: the Policy's model is
    their one set of rules, defaults and descriptions)."""

    allow_controller_scale_in: bool
    max_nodes_per_delete_call: int
    # scale-in by workload and drain before delete (docs/workloads.md)
    scale_in_order: Literal["workload", "state", "oldest", "newest"]
    remove_first: frozenset[str]
    drain: Literal["none", "cordon", "drain"]
    drain_timeout: float
    drain_deadline: Literal["stop", "delete"]
    # node lifecycle (docs/lifecycle.md)
    software_deployment: dict[str, Any] | None
    max_unavailable_fraction: float
    allow_login_disruption: bool
    allow_controller_disruption: bool
    failed_nodes: Literal["delete", "replace", "leave"]
    canary_nodes: int | None
    replace_node_ids: frozenset[str]
    reboot_node_ids: frozenset[str]
    # node moves (docs/capacity.md, "Node moves")
    allow_node_moves: bool


MEMBERS: tuple[str, ...] = tuple(member.name for member in dataclasses.fields(AwsPolicy))


def aws_policy(policy: Policy) -> AwsPolicy:
    """HyperPod's section of `policy`."""
    return AwsPolicy(**{name: getattr(policy, name) for name in MEMBERS})
