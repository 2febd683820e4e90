"""The DrainNodes step: before a scale-in deletes launched nodes, cordon (and drain) them in the
orchestrator, as policy.drain says. Pure: node names come from the observed cluster (Slurm: the
private DNS host name; EKS: `hyperpod-<instance id>`), the expected wait from the workload view.

Its request is the plan's record of what apply will do (apply/drain.py reads it):
`{"ClusterName", "Orchestrator", "Mode", "TimeoutSeconds", "AtDeadline", "Nodes": [{"NodeId", "Name",
"Group"}], "ExpectedWaitSeconds"}` — ExpectedWaitSeconds is None when some work has no end known.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING
from collections.abc import Sequence

from pulumi_hyperpod.aws.planner.policy import aws_policy
from pulumi_hyperpod.aws.observe import ClusterState
from pulumi_hyperpod.plans.model import Step, Victim
from pulumi_hyperpod.aws.planner.codes import StepReason

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.workload.model import WorkloadView
    from pulumi_hyperpod.plans.policy import Policy


def node_name(state: ClusterState, victim: Victim) -> str:
    """The orchestrator's name for a launched victim."""
    if state.orchestrator_kind == "Eks":
        from pulumi_hyperpod.aws.workload.match import eks_node_name  # noqa: PLC0415 - not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)

        return eks_node_name(victim.node_id)
    from pulumi_hyperpod.aws.workload.match import slurm_names  # noqa: PLC0415 - not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)

    names = {instance: name for name, instance in slurm_names(state).items()}
    return names.get(victim.node_id, "")


def _minutes(seconds: float) -> str:
    if seconds < 90:
        return f"{max(seconds, 0):.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _wait(victim: Victim, view: WorkloadView | None, mode: str) -> tuple[float | None, str]:
    """(expected seconds, None for unknown/up to the deadline; what runs there in words)."""
    if mode == "cordon":
        return 0.0, "cordoned, then deleted at once (running work ends with the node)"
    work = view.node(victim.node_id) if view is not None else None
    if view is None:
        return None, "workload not read: waits until its work ends, up to the deadline"
    if work is None:
        return None, "not listed by the orchestrator: waits up to the deadline for it to show no work"
    if work.idle:
        return 0.0, "idle: nothing to wait for"
    if work.over_budgeted:
        return None, f"{work.describe()} (500); the drain waits up to the deadline"
    if work.blocking_budgets:
        return None, f"{work.describe(view.observed_at)}: the eviction waits for the budget, up to the deadline"
    pods_only = not work.jobs and all(pod.end_time is None for pod in work.pods)
    if pods_only:
        return 0.0, f"{work.describe(view.observed_at)}: evicted through the Eviction API"
    ends = work.ends_by()
    if ends is None:
        return None, f"{work.describe(view.observed_at)}: no end known, waits up to the deadline"
    return max((ends - view.observed_at).total_seconds(), 0.0), work.describe(view.observed_at)


def drain_steps(state: ClusterState, cluster_name: str, victims: Sequence[Victim], policy: Policy, view: WorkloadView | None) -> list[Step]:
    """One DrainNodes step for the launched victims (none when policy.drain is none or none launched)."""
    hyperpod = aws_policy(policy)
    launched = [v for v in victims if not v.logical]
    if hyperpod.drain == "none" or not launched:
        return []
    nodes, reasons, waits = [], [], []
    for victim in launched:
        name = node_name(state, victim)
        seconds, what = _wait(victim, view, hyperpod.drain)
        waits.append(seconds)
        expected = "up to the deadline" if seconds is None else f"≈ {_minutes(min(seconds, hyperpod.drain_timeout))}"
        nodes.append({"NodeId": victim.node_id, "Name": name, "Group": victim.group})
        reasons.append(f"{name or victim.node_id} ({victim.node_id}): {what}; expected wait {expected}")
    known = [w for w in waits if w is not None]
    expected_all = None if len(known) < len(waits) else min(max(known, default=0.0), hyperpod.drain_timeout)
    then = "then stop, leaving them drained" if hyperpod.drain_deadline == "stop" else "then delete them anyway"
    summary = (
        f"{hyperpod.drain} {len(nodes)} node(s) before deleting them: expected wait "
        f"{'up to the deadline' if expected_all is None else _minutes(expected_all)} "
        f"(deadline {_minutes(hyperpod.drain_timeout)}, {then})"
    )
    request = {
        "ClusterName": cluster_name,
        "Orchestrator": state.orchestrator_kind,
        "Mode": hyperpod.drain,
        "TimeoutSeconds": hyperpod.drain_timeout,
        "AtDeadline": hyperpod.drain_deadline,
        "Nodes": nodes,
        "ExpectedWaitSeconds": None if expected_all is None else math.ceil(expected_all),
    }
    batch = (tuple(node["NodeId"] for node in nodes),)  # drained together (plans/disruption.py reads it)
    return [Step("DrainNodes", request, (summary, *reasons), batches=batch, kind="drain", codes=(StepReason.SCALE_IN,))]
