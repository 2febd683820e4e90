"""The live workload of a cluster, chosen by its orchestrator once it is observed: Slurm through its
commands (here, or through a prefix), EKS through a kubeconfig or an EKS token for the cluster's
Orchestrator.Eks.ClusterArn. What the CLI's --read-workload builds; it reads and drains like the
source it delegates to."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Sequence

from pulumi_hyperpod.aws.workload.source import WorkloadError
from pulumi_hyperpod.aws.workload.slurm import CommandRunner, SlurmWorkload
from pulumi_hyperpod.aws.workload.eks import EksWorkload, from_kubeconfig
from pulumi_hyperpod.aws.workload.eks_auth import eks_api_client

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.aws.workload.model import WorkloadView


class LiveWorkload:
    def __init__(
        self, *, command: str = "", kubeconfig: str | None = None, context: str | None = None, session: Callable[[], Any] | None = None
    ) -> None:
        self.command, self.kubeconfig, self.context, self.session = command, kubeconfig, context, session
        self._source: Any = None
        self.orchestrator = ""

    def _for(self, state: ClusterState) -> Any:
        if self._source is not None:
            return self._source
        if state.orchestrator_kind == "Slurm":
            self._source = SlurmWorkload(runner=CommandRunner(prefix=self.command))
        elif self.kubeconfig is not None or self.session is None:
            self._source = from_kubeconfig(self.kubeconfig, self.context)
        else:
            arn = ((state.describe.get("Orchestrator") or {}).get("Eks") or {}).get("ClusterArn")
            if not arn:
                raise WorkloadError(f"cluster {state.name} names no EKS cluster (Orchestrator.Eks.ClusterArn): give --kubeconfig")
            self._source = EksWorkload(eks_api_client(self.session(), arn))
        self.orchestrator = self._source.orchestrator
        return self._source

    def read(self, state: ClusterState) -> WorkloadView:
        return self._for(state).read(state)

    def _built(self) -> Any:
        if self._source is None:
            raise WorkloadError("the workload was not read yet: nothing to drain through")
        return self._source

    def cordon(self, names: Sequence[str], reason: str) -> None:
        self._built().cordon(names, reason)

    def evict(self, names: Sequence[str]) -> list[str]:
        return self._built().evict(names)

    @property
    def clock(self) -> Any:
        return getattr(self._source, "clock", None)
