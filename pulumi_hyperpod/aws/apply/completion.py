"""How apply knows each step is done: the step kind's `completion` (plans/steps.py), checked on the
cluster as observed at the end of the run.

A step whose effect was not observed — a node the service refused to delete (BatchDeleteClusterNodes'
per-node Failed), a group it did not grow (BatchAddClusterNodes' Failed), a node a reboot or a
replacement left in Failure, a node a move did not hand to its target group, a rollout that left the
old image, a count the service did not keep —
is *short*; the run's outcome is then `partial` or `failed`, never `done` (core/contract.py,
`settled_outcome`). The checks read the final observation only: they make no call of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.plans.steps import declaration
from pulumi_hyperpod.aws.apply import extensions
from pulumi_hyperpod.aws.apply.lifecycle import image_shortfalls
from pulumi_hyperpod.aws.apply.moves import elsewhere, not_moved
from pulumi_hyperpod.aws.observe import observe
from pulumi_hyperpod.aws.planner.victims import LEAVING

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.plans import Step
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.aws.apply.executor import _Run

Check = Callable[["_Run", "Step", "ClusterState", frozenset[str]], list[str]]


def _cluster_status(run: _Run, step: Step, state: ClusterState, sent: frozenset[str]) -> list[str]:
    # the waiter (apply/waiters.py) decides InService or gone; only a cluster missing after its create is short here
    if step.kind == "create-cluster" and state is None:
        return [f"cluster {run.name} is not there after CreateCluster"]
    return []


def _requested_groups(step: Step) -> Iterable[str]:
    for field in ("NodesToAdd", "InstanceGroups"):
        for entry in step.request.get(field) or ():
            yield entry["InstanceGroupName"]


def _group_targets(run: _Run, step: Step, state: ClusterState, sent: frozenset[str]) -> list[str]:
    """Each group the step resizes is at the plan's target: an all-or-nothing update the service rolled
    back (no capacity, failing lifecycle scripts) ends InService at the old counts, which every waiter
    accepts; another writer may move a count after the plan's last call."""
    if state is None or run.plan.action == "delete":
        return []
    rows = {g.group: g for g in run.plan.groups if g.action in ("create", "grow", "shrink") and g.target_after is not None}
    short = []
    for name in dict.fromkeys(_requested_groups(step)):
        change, have = rows.get(name), state.group(name)
        if change is not None and have is not None and have.target_count != change.target_after:
            short.append(
                f"{name}: TargetCount is {have.target_count}, the plan asked for {change.target_after} "
                f"(the service did not keep the change, or another writer changed it; cluster {state.status}"
                f"{': ' + state.failure_message if state.failure_message else ''})"
            )
    return short


def _nodes_gone(run: _Run, step: Step, state: ClusterState, sent: frozenset[str]) -> list[str]:
    if state is None:
        return []
    still = [(key, state.node(key)) for key in sorted(sent)]
    return [
        f"{key} is still {node.status} after {step.operation}" for key, node in still if node is not None and node.status not in LEAVING
    ]


def _nodes_running(run: _Run, step: Step, state: ClusterState, sent: frozenset[str]) -> list[str]:
    # a node still coming back (Pending) is in flight, not short: only a node gone or in Failure is
    if state is None:
        return []
    short = []
    for key in sorted(sent):
        node = state.node(key)
        if node is None:
            short.append(f"{key} is gone after {step.operation}")
        elif node.status == "Failure":
            short.append(f"{key} is in Failure after {step.operation}: {node.message or 'no reason given'}")
    return short


def _software_status(run: _Run, step: Step, state: ClusterState, sent: frozenset[str]) -> list[str]:
    return image_shortfalls(step, state) if state is not None else []


def _nodes_moved(run: _Run, step: Step, state: ClusterState, sent: frozenset[str]) -> list[str]:
    target = elsewhere(step)  # a fleet's move: the nodes are looked for in the other cluster
    return not_moved(step, observe(run.client, target) if target and sent else state, sent)


def _answered(run: _Run, step: Step, state: ClusterState, sent: frozenset[str]) -> list[str]:
    # AddTags/DeleteTags answer once the tags are set; a drain ends when the orchestrator reports the
    # nodes drained or raises (apply/drain.py): an answer is the observation
    return []


def _extension_status(run: _Run, step: Step, state: ClusterState, sent: frozenset[str]) -> list[str]:
    return extensions.shortfalls(step, state)


CHECKS: dict[str, Check] = {
    "cluster-status": _cluster_status,
    "group-targets": _group_targets,
    "nodes-gone": _nodes_gone,
    "nodes-running": _nodes_running,
    "software-status": _software_status,
    "tags-match": _answered,
    "drained": _answered,
    "nodes-moved": _nodes_moved,
    "extension-status": _extension_status,
}


def shortfalls(run: _Run, step: Step, state: Any, sent: frozenset[str]) -> list[str]:
    """What of `step`'s effect the final observation does not show (empty: done). `sent`: the nodes
    its calls named."""
    return CHECKS[declaration(step.kind).completion](run, step, state, sent)
