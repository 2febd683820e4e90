"""Canary scale-out (policy.canary_nodes = k): a group growing by more than k nodes adds k first, and the
rest only once those k have run their lifecycle scripts and deep health checks.

Lifecycle scripts run only when a node is created (seed 004), so a broken script shows on the first new
nodes; adding 2 before 200 costs two failures instead of two hundred. The canary step is a
BatchAddClusterNodes marked `canary`; apply waits for its nodes and, on a failure, stops there: the
capacity already obtained is kept (never released), and the failing node's lifecycle event is shown.

Only the BatchAddClusterNodes path (Continuous clusters) is split; a scale-out folded into an
UpdateCluster (all-or-nothing clusters, or one UpdateCluster needed anyway) grows in one step, and the
plan says so. Pure.
"""

from __future__ import annotations

from pulumi_hyperpod.aws.planner.batches import pack_adds
from pulumi_hyperpod.aws.planner.details import AwsStepDetails
from pulumi_hyperpod.plans.model import Step
from pulumi_hyperpod.aws.planner.codes import StepReason


def canary_steps(steps: list[Step], canary: int | None, limits: dict[str, int], cluster: str) -> tuple[list[Step], list[str]]:
    """The plan's steps with its BatchAddClusterNodes split into a canary step and the rest; notes."""
    if not canary:
        return steps, []
    adds = [s for s in steps if s.operation == "BatchAddClusterNodes"]
    growing = [n for n, d in _growth(steps).items() if d > canary]
    if not adds:
        folded = [e["InstanceGroupName"] for s in steps if s.operation == "UpdateCluster" for e in s.request.get("InstanceGroups") or ()]
        return steps, (
            [
                f"canary scale-out (policy.canary_nodes {canary}) applies to BatchAddClusterNodes only: "
                f"the scale-out in this plan's UpdateCluster ({', '.join(folded)}) grows in one step"
            ]
            if folded
            else []
        )
    if not growing:
        return steps, []
    totals = _growth(steps)
    first = [{"InstanceGroupName": name, "IncrementTargetCountBy": canary} for name in growing]
    rest = [(name, count - canary if name in growing else count) for name, count in totals.items()]
    reasons = tuple(
        f"{name}: canary +{canary} first; the other {totals[name] - canary} after their lifecycle scripts and deep health checks pass"
        for name in growing
    )
    out = [s for s in steps if s.operation != "BatchAddClusterNodes"]
    out.append(
        Step(
            "BatchAddClusterNodes",
            {"ClusterName": cluster, "NodesToAdd": first},
            reasons,
            details=AwsStepDetails(canary=True),
            kind="add-nodes",
            codes=(StepReason.GROW, StepReason.CANARY),
        )
    )
    for batch in pack_adds([(n, c) for n, c in rest if c > 0], limits):
        why = tuple(f"{e['InstanceGroupName']}: +{e['IncrementTargetCountBy']} after the canary" for e in batch)
        out.append(
            Step(
                "BatchAddClusterNodes",
                {"ClusterName": cluster, "NodesToAdd": batch},
                why,
                kind="add-nodes",
                codes=(StepReason.GROW, StepReason.AFTER_CANARY),
            )
        )
    return out, []


def _growth(steps: list[Step]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for step in steps:
        if step.operation == "BatchAddClusterNodes":
            for entry in step.request["NodesToAdd"]:
                totals[entry["InstanceGroupName"]] = totals.get(entry["InstanceGroupName"], 0) + entry["IncrementTargetCountBy"]
    return totals
