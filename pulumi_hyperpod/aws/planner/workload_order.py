"""Victims by policy.scale_in_order, and by what runs on each node when a workload view is given.

Pure, like the planner: the workload (pulumi_hyperpod/workload) is data read before planning.
In every order, nodes listed in `policy.remove_first` go first (Cluster API's delete-machine
annotation), then nodes doing no work for HyperPod (Failure/NotFound, never launched, still in deep
health checks: aws/planner/victims.py's tiers 0–2). Among the rest:

| order    | serving nodes, first to last                                                             |
|----------|------------------------------------------------------------------------------------------|
| state    | newest first (the order before workloads were read)                                      |
| newest   | newest launch first; oldest: oldest launch first (Cluster API's Newest / Oldest)         |
| workload | drained already by an interrupted scale-in; HyperPod marked for replacement; idle; work  |
|          | that ends soonest (a job's time limit, a Job pod's deadline); work with no end known,    |
|          | the fewest jobs/pods first;                                                              |
|          | workload unknown (the view does not cover the node); pods a PodDisruptionBudget allows no|
|          | disruption to now — always said in the reason. Ties: newest first. No view: as `state`.  |
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING
from collections.abc import Callable, Sequence

from pulumi_hyperpod.aws.planner.policy import AwsPolicy, aws_policy
from pulumi_hyperpod.aws.planner.codes import VictimReason
from pulumi_hyperpod.aws.observe.state import NodeState
from pulumi_hyperpod.aws.planner import victims as rules
from pulumi_hyperpod.plans.model import Victim

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.workload.model import NodeWorkload, WorkloadView
    from pulumi_hyperpod.plans.policy import Policy

_EPOCH = dt.datetime.min.replace(tzinfo=dt.timezone.utc)
_FAR = dt.datetime.max.replace(tzinfo=dt.timezone.utc)
_EPOCH_SECONDS = _EPOCH.timestamp()
REPLACEMENT_HEALTH = frozenset({"UnschedulablePendingReplacement", "UnschedulablePendingReboot"})

# workload ranks of a serving node
OURS, MARKED, IDLE, ENDS, ENDLESS, UNKNOWN, BUDGETED = range(7)
_WHY = {
    OURS: "drained already for a scale-in (an interrupted apply): it goes first again",
    MARKED: "HyperPod marked it for replacement or reboot",
    IDLE: "idle nodes go first",
    ENDS: "the work that ends soonest goes first",
    ENDLESS: "its work has no end known: chosen after idle nodes and work that ends",
    UNKNOWN: "its workload is unknown (the orchestrator lists no node for it): chosen after every node whose work is known",
    BUDGETED: "chosen last: a drain waits until the budget allows the eviction",
}


def workload_rank(work: NodeWorkload | None) -> int:
    if work is None:
        return UNKNOWN
    if work.ours:
        return OURS
    if work.health in REPLACEMENT_HEALTH:
        return MARKED
    if work.blocking_budgets:
        return BUDGETED
    if work.idle:
        return IDLE
    return ENDS if work.ends_by() is not None else ENDLESS


def _listed(node: NodeState, hyperpod: AwsPolicy) -> bool:
    return node.instance_id in hyperpod.remove_first or (node.logical_id or "") in hyperpod.remove_first


def _sort_key(hyperpod: AwsPolicy, view: WorkloadView | None) -> Callable[[NodeState], tuple]:
    """The ranking key of a node (smallest goes first), with the policy read once: rank() calls it for
    every removable node of a shrinking group, so its checks are inlined (victims._tier, _listed).

    The order, most significant first: listed in policy.remove_first; the tier (doing no work —
    unhealthy, never launched — then deep health checks, then serving); among serving nodes of the
    workload order, the workload rank and its detail; the launch time (newest first, or as the
    oldest/newest order says); the node id. `first * 10 + tier` stands for the first two (tier < 10),
    and the workload terms are left out where the order has none: shorter keys, cheaper to compare."""
    remove_first, order = hyperpod.remove_first, hyperpod.scale_in_order
    weigh = order == "workload" and view is not None
    aged = order in ("oldest", "newest")
    sign = 1 if order == "oldest" else -1
    tiers, untiered_unlaunched = rules.TIERS, rules.LEAVING | rules.BUSY

    def key(node: NodeState) -> tuple:
        instance_id, status, launch_time = node.instance_id, node.status, node.launch_time
        node_key = instance_id or node.logical_id or ""  # NodeState.key
        first = 0 if remove_first and (instance_id in remove_first or (node.logical_id or "") in remove_first) else 1
        launched = launch_time.timestamp() if launch_time is not None else _EPOCH_SECONDS
        tier = 1 if not instance_id and status not in untiered_unlaunched else tiers.get(status)
        if tier == 0 or tier == 1:  # doing no work (unhealthy, never launched): first in every order
            ordered = (first * 10 + tier, -launched, node_key)
        elif aged:
            ordered = (first * 10 + 2, sign * launched, node_key)
        elif tier == 2:  # still in deep health checks: before serving nodes
            ordered = (first * 10 + 2, -launched, node_key)
        elif weigh:
            work = view.node(instance_id)  # type: ignore[union-attr]
            weight = workload_rank(work)
            # soonest end first among work that ends; the least work first among the rest
            detail = work.ends_by().timestamp() if weight == ENDS else (len(work.jobs) + len(work.pods) if work is not None else 0)
            return (first * 10 + 3, weight, detail, -launched, node_key)
        else:
            ordered = (first * 10 + 3, -launched, node_key)
        return (ordered[0], 0, _FAR, *ordered[1:]) if weigh else ordered

    return key


def _reason(node: NodeState, hyperpod: AwsPolicy, view: WorkloadView | None, tier: int | None, first: bool) -> str:
    """Victim.reason; `tier` and `first` (listed in policy.remove_first) as the caller worked them out."""
    listed = "listed in policy.remove_first; " if first else ""
    if hyperpod.scale_in_order in ("oldest", "newest") and tier not in (0, 1):
        when = rules.launched_at(node.launch_time) if node.launch_time else "unknown"
        base = f"{node.status}, launched {when}: the {hyperpod.scale_in_order} nodes go first"
    else:
        base = rules._reason(node, tier)
    if view is None or tier in (0, 1):  # doing no work: nothing runs there to describe
        return listed + base
    work = view.node(node.instance_id)
    if hyperpod.scale_in_order == "workload" and tier == 3:
        rank = workload_rank(work)
        what = work.describe(view.observed_at) if work is not None else "workload unknown"
        return f"{listed}{what}: {_WHY[rank]}"
    what = work.describe(view.observed_at) if work is not None else "workload unknown"
    return f"{listed}{base}; runs: {what}"


_RANK_CODES = {
    OURS: VictimReason.DRAINED_ALREADY,
    MARKED: VictimReason.MARKED_FOR_REPLACEMENT,
    IDLE: VictimReason.IDLE,
    ENDS: VictimReason.WORK_ENDS_SOONEST,
    ENDLESS: VictimReason.WORK_WITHOUT_END,
    UNKNOWN: VictimReason.WORKLOAD_UNKNOWN,
    BUDGETED: VictimReason.DISRUPTION_BUDGET,
}


def _code(node: NodeState, hyperpod: AwsPolicy, view: WorkloadView | None, tier: int | None, first: bool) -> VictimReason:
    """Victim.code: the stable word a policy matches on (aws/planner/victims.py's CODES, and the workload ranks)."""
    if first:
        return VictimReason.REMOVE_FIRST
    if tier in (0, 1):
        return rules.CODES[tier]
    if hyperpod.scale_in_order in ("oldest", "newest"):
        return VictimReason(hyperpod.scale_in_order)
    if tier == 2:
        return rules.CODES[tier]
    if hyperpod.scale_in_order == "workload" and view is not None:
        return _RANK_CODES[workload_rank(view.node(node.instance_id))]
    return rules.CODES[tier]


def choose(nodes: Sequence[NodeState], count: int, policy: Policy, view: WorkloadView | None = None) -> list[Victim]:
    """The `count` nodes to remove among `nodes` (any nodes: those a plan may not name are left out)."""
    return rank(rules.removable(nodes, None, ()), count, policy, view)


def rank(candidates: Sequence[NodeState], count: int, policy: Policy, view: WorkloadView | None = None) -> list[Victim]:
    """The `count` nodes to remove among `candidates`, which `victims.removable` returned (the planner's
    call: it filters once, with the protected and kept nodes, rather than again here)."""
    hyperpod = aws_policy(policy)  # HyperPod's members, read once for every candidate
    ordered = sorted(candidates, key=_sort_key(hyperpod, view))[: max(count, 0)]
    return [_victim(n, hyperpod, view) for n in ordered]


def _victim(node: NodeState, hyperpod: AwsPolicy, view: WorkloadView | None) -> Victim:
    tier, first = rules._tier(node), _listed(node, hyperpod)
    return Victim(
        group=node.group,
        node_id=node.key,
        logical=not node.launched,
        status=node.status,
        reason=_reason(node, hyperpod, view, tier, first),
        code=_code(node, hyperpod, view, tier, first),
    )
