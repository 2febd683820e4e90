"""What the code calls on a Google Cloud client, as a typing Protocol: the training-cluster resource
(observe, apply), its long-running operations, and the Compute Engine reads of preflight.

`GcpClient` (client.py) is the implementation, REST through google-auth's session, with the
simulator answering at the `requests` transport; observe, apply, preflight and the Cloud are written
against this protocol, so they name what they need of a client and nothing else.
tests/unit/gcp/test_clients.py checks that the client `connect` makes satisfies it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable
from collections.abc import Callable, Iterator

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.gcp.client import OperationProgress


@runtime_checkable
class TrainingClusterClient(Protocol):
    backend: str  # "gcp", or "fake" for the simulator
    poll_seconds: float  # how often a wait polls

    # the clock a wait reads and sleeps on (tests inject the simulator's)
    @property
    def sleep(self) -> Callable[[float], None]: ...

    @property
    def monotonic(self) -> Callable[[], float]: ...

    # the cluster resource (modelDevelopmentClusters)
    def find_cluster(self, name: str) -> dict[str, Any] | None: ...

    def list_clusters(self, parent: str, page_size: int | None = None) -> Iterator[dict[str, Any]]: ...

    def create_cluster(self, parent: str, cluster_id: str, body: dict[str, Any]) -> dict[str, Any]: ...

    def patch_cluster(self, name: str, update_mask: list[str] | tuple[str, ...], body: dict[str, Any]) -> dict[str, Any]: ...

    def delete_cluster(self, name: str) -> dict[str, Any]: ...

    # long-running operations
    def wait_operation(
        self,
        operation: dict[str, Any],
        timeout: float,
        verb: str = "operation",
        progress: Callable[[OperationProgress], None] | None = None,
    ) -> dict[str, Any]: ...

    # Compute Engine: what preflight reads
    def get_region(self, project: str, region: str) -> dict[str, Any]: ...

    def get_machine_type(self, project: str, zone: str, machine_type: str) -> dict[str, Any]: ...

    def get_reservation(self, project: str, zone: str, name: str) -> dict[str, Any]: ...
