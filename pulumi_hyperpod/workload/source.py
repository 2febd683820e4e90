"""The one small interface every orchestrator's workload implements (Slurm, EKS, saved files).

`read(state)` is read-only and gives the planner its data. The drain operations are what apply's
drain step uses; a source that cannot act (saved files) raises WorkloadError naming what to give.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, Sequence, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover
    from ..observe import ClusterState
    from .model import WorkloadView


class WorkloadError(ValueError):
    """The workload could not be read or acted on; one line saying what and where (a ValueError: the
    CLI prints it as one line, exit 1)."""


@runtime_checkable
class WorkloadSource(Protocol):
    orchestrator: str

    def read(self, state: "ClusterState") -> "WorkloadView":
        """What runs on each node of `state`, now."""

    def cordon(self, names: Sequence[str], reason: str) -> None:
        """No new work lands on these nodes (Slurm DRAIN with `reason`; Kubernetes cordon). Idempotent."""

    def evict(self, names: Sequence[str]) -> list[str]:
        """Ask the work on these nodes to leave (Kubernetes Eviction API); what could not leave yet, and why."""


class FixedWorkload:
    """A view read earlier (files a user saved, a saved plan): it can inform a plan, not drain."""

    def __init__(self, view: "WorkloadView") -> None:
        self.view = view
        self.orchestrator = view.orchestrator

    def read(self, state: "ClusterState") -> "WorkloadView":
        return self.view

    def cordon(self, names: Sequence[str], reason: str) -> None:
        raise WorkloadError(f"the workload was read from {self.view.source or 'a file'}, which cannot drain nodes: "
                            "give --slurm-command (or run on the head node) or --kubeconfig to drain")

    def evict(self, names: Sequence[str]) -> list[str]:
        self.cordon(names, "")
        return []
