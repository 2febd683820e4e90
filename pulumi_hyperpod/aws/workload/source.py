"""The one small interface every orchestrator's workload implements (Slurm, EKS, saved files).

`read(state)` is read-only and gives the planner its data. The drain operations are what apply's
drain step uses; a source that cannot act (saved files: cli/workload_commands.py) raises
WorkloadError naming what to give. A WorkloadView already read can be given to the pipeline as is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable
from collections.abc import Sequence

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.aws.workload.model import WorkloadView


class WorkloadError(ValueError):
    """The workload could not be read or acted on; one line saying what and where (a ValueError: the
    CLI prints it as one line, exit 1)."""


@runtime_checkable
class WorkloadSource(Protocol):
    orchestrator: str

    def read(self, state: ClusterState) -> WorkloadView:
        """What runs on each node of `state`, now."""

    def cordon(self, names: Sequence[str], reason: str) -> None:
        """No new work lands on these nodes (Slurm DRAIN with `reason`; Kubernetes cordon). Idempotent."""

    def evict(self, names: Sequence[str]) -> list[str]:
        """Ask the work on these nodes to leave (Kubernetes Eviction API); what could not leave yet, and why."""
