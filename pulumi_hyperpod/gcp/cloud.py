"""Google Cloud training clusters behind the `Cloud` interface (core/cloud.py).

read is `observe` (GET), plan is the pure planner with its cost (gcp/planner.py), apply is
`gcp.apply.apply` under the one contract (core/contract.py), preflight reads Compute Engine
(gcp/preflight.py: machine type offered in the zone, named reservation, regional quotas).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..core.contract import ApplyOptions, ApplyResult
    from .clients import TrainingClusterClient
    from .observe import GcpClusterState
    from .spec import ClusterSpec
    from ..plan.model import Plan
    from ..plan.policy import Policy


class GcpCloud:
    name = "gcp"
    title = "Google Cloud training clusters"

    def owns(self, document: Any) -> bool:
        from .detect import detect_cloud

        return detect_cloud(document) == "gcp"

    def connect(self, backend: str) -> "TrainingClusterClient":
        from .client import connect

        return connect("fake" if backend == "fake" else "gcp")

    def load_spec(self, path: str, **context: Any) -> "ClusterSpec":
        from .spec import ClusterSpec

        return ClusterSpec.from_file(path, context.get("project"), context.get("location"), context.get("cluster_id"))

    def read(self, client: "TrainingClusterClient", name: str) -> "GcpClusterState | None":
        from .observe import observe

        return observe(client, name)

    def plan(self, desired: "ClusterSpec | None", observed: "GcpClusterState | None", policy: "Policy", **context: Any) -> "Plan":
        from .planner import plan

        return plan(desired, observed, policy)

    def preflight(
        self,
        plan: "Plan",
        desired: "ClusterSpec | None",
        observed: "GcpClusterState | None",
        client: "TrainingClusterClient",
        policy: "Policy",
    ) -> "Plan":
        from .preflight import preflight

        return preflight(plan, desired, observed, client, policy)

    def apply(self, client: "TrainingClusterClient", plan: "Plan", options: "ApplyOptions") -> "ApplyResult":
        from .apply import apply

        return apply(client, plan, options)

    def import_(self, client: "TrainingClusterClient", name: str) -> "GcpClusterState":
        state = self.read(client, name)
        if state is None:
            raise LookupError(f"no cluster {name} to import")
        return state


GCP = GcpCloud()
