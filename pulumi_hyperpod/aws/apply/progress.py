"""What apply tells its caller while it works; the CLI turns it into a live display."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pulumi_hyperpod.aws.spec.grouplists import group_entries


@dataclass(frozen=True)
class Progress:
    phase: str  # "call", "wait", "retry", "observe"
    message: str
    cluster_status: str | None = None
    groups: tuple[tuple[str, int, int, int], ...] = ()  # (name, current, target, min)
    elapsed: float = 0.0

    def __str__(self) -> str:
        counts = " ".join(f"{name} {current}/{target}" for name, current, target, _ in self.groups)
        status = f" [{self.cluster_status}]" if self.cluster_status else ""
        tail = f" — {counts}" if counts else ""
        return f"{self.message}{status}{tail}"

    @property
    def nodes(self) -> tuple[int, int]:
        """(current, target) summed over groups, for a progress bar."""
        return sum(g[1] for g in self.groups), sum(g[2] for g in self.groups)

    @classmethod
    def from_describe(cls, phase: str, goal: str, response: dict[str, Any], elapsed: float) -> Progress:
        groups = tuple(
            (g.get("InstanceGroupName", "?"), int(g.get("CurrentCount") or 0), int(g.get("TargetCount") or 0), int(g.get("MinCount") or 0))
            for g in group_entries(response)
        )
        status = response.get("ClusterStatus") or response.get("Error", {}).get("Code")
        # a rollout's own progress, as the service reports it: status and nodes on the desired image
        software = ", ".join(
            f"{g.get('InstanceGroupName', '?')} {g['SoftwareUpdateStatus']} {g.get('TargetStateCount', '?')}/{g.get('TargetCount', '?')}"
            for g in response.get("InstanceGroups") or ()
            if g.get("SoftwareUpdateStatus") in ("Pending", "InProgress", "RollbackInProgress")
        )
        return cls(phase, f"waiting for {goal} ({elapsed:.0f}s)" + (f": {software}" if software else ""), status, groups, elapsed)
