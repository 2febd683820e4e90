"""Google Cloud training clusters behind the `Cloud` interface (core/cloud.py).

read is `observe` (GET), plan is the pure planner with its cost (gcp/planner/__init__.py), apply is
`gcp.apply.apply` under the one contract (core/contract.py), preflight reads Compute Engine
(gcp/preflight.py: machine type offered in the zone, named reservation, regional quotas).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.core.contract import ApplyOptions, ApplyResult
    from pulumi_hyperpod.gcp.clients import TrainingClusterClient
    from pulumi_hyperpod.gcp.observe import GcpClusterState
    from pulumi_hyperpod.gcp.spec import ClusterSpec
    from pulumi_hyperpod.plans.model import Plan
    from pulumi_hyperpod.plans.policy import Policy


class GcpCloud:
    name = "gcp"
    title = "Google Cloud training clusters"

    def owns(self, document: Any) -> bool:
        from pulumi_hyperpod.core.detect import detect_cloud

        return detect_cloud(document) == "gcp"

    def connect(self, backend: str) -> "TrainingClusterClient":
        from pulumi_hyperpod.gcp.client import connect

        return connect("fake" if backend == "fake" else "gcp")

    def load_spec(self, path: str, **context: Any) -> "ClusterSpec":
        from pulumi_hyperpod.gcp.spec import ClusterSpec

        return ClusterSpec.from_file(path, context.get("project"), context.get("location"), context.get("cluster_id"))

    def read(self, client: "TrainingClusterClient", name: str) -> "GcpClusterState | None":
        from pulumi_hyperpod.gcp.observe import observe

        return observe(client, name)

    def read_inputs(self, client: Any, desired: Any, observed: Any, context: Any) -> tuple[Any, Any]:
        return observed, context  # the spec and the cluster are all a plan is made from

    def plan(self, desired: "ClusterSpec | None", observed: "GcpClusterState | None", policy: "Policy", context: Any = None) -> "Plan":
        from pulumi_hyperpod.gcp.planner import plan

        return plan(desired, observed, policy)

    def annotate(self, plan: "Plan", desired: Any, observed: Any, context: Any) -> "Plan":
        return plan  # no section of its own beyond the planner's and the preflight's

    def preflight(
        self,
        plan: "Plan",
        desired: "ClusterSpec | None",
        observed: "GcpClusterState | None",
        client: "TrainingClusterClient",
        policy: "Policy",
        context: Any = None,
    ) -> "Plan":
        from pulumi_hyperpod.gcp.preflight import preflight

        return preflight(plan, desired, observed, client, policy)

    def apply(
        self, client: "TrainingClusterClient", plan: "Plan", options: "ApplyOptions", *, policy: "Policy | None" = None, context: Any = None
    ) -> "ApplyResult":
        from pulumi_hyperpod.gcp.apply import apply

        return apply(client, plan, options, policy)  # the planner's guards (gcp/planner/__init__.py), checked again before each write

    def save_plan(self, prepared: Any, path: str, *, target: Any = None, inputs: Any = ()) -> None:
        from pulumi_hyperpod.gcp.pipeline.saved import save

        backend = (target or {}).get("backend") or "gcp"
        save(prepared.plan, path, spec=prepared.desired, observed=prepared.observed, policy=prepared.policy, backend=backend)

    def load_plan(self, path: str, *, target: Any = None) -> Any:
        """The plan re-derived from its saved inputs (gcp/pipeline/saved.py) with its steps checked against
        its own cluster and action (apply.check_steps), before any call."""
        from pulumi_hyperpod.core.cloud import Prepared
        from pulumi_hyperpod.gcp.apply import check_steps
        from pulumi_hyperpod.gcp.pipeline.saved import load_with_inputs

        the_plan, spec, observed, policy = load_with_inputs(path, (target or {}).get("backend"))
        check_steps(the_plan)
        return Prepared(self.name, the_plan, spec, observed, policy)

    def import_(self, client: "TrainingClusterClient", name: str) -> "GcpClusterState":
        state = self.read(client, name)
        if state is None:
            raise LookupError(f"no cluster {name} to import")
        return state


GCP = GcpCloud()
