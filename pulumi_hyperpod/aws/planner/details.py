"""HyperPod's own part of a plan's step (the `details` slot of plans/model.py's Step): what the neutral
model has no word for. Made by HyperPod's planner; read by HyperPod's apply."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pulumi_hyperpod.plans.model import Step


@dataclass(frozen=True, slots=True)
class AwsStepDetails:
    # BatchAddClusterNodes of a canary scale-out: apply waits for these nodes to run (lifecycle scripts,
    # deep health checks) before the next step, and stops on a failure (aws/planner/canary.py)
    canary: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"canary": self.canary}  # the member's spelling on the wire since hyperpod-plan/3


def is_canary(step: Step) -> bool:
    return isinstance(step.details, AwsStepDetails) and step.details.canary
