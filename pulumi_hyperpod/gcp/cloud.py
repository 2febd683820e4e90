"""Google Cloud training clusters behind the `Cloud` interface (core/cloud.py): a
`Cloud[ClusterSpec, GcpClusterState, TrainingClusterClient, None]` (no context of its own: the spec
and the cluster are all a plan is made from).

read is `observe` (GET), plan is the pure planner with its cost (gcp/planner/__init__.py), apply is
`gcp.apply.apply` under the one contract (core/contract.py), preflight reads Compute Engine
(gcp/preflight.py: machine type offered in the zone, named reservation, regional quotas).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pulumi_hyperpod.core.cloud import ApplyRequest, Cloud, InputFiles, PlanRequest, Prepared, Target
from pulumi_hyperpod.core.detect import detect_cloud

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.core.contract import ApplyResult
    from pulumi_hyperpod.gcp.clients import TrainingClusterClient
    from pulumi_hyperpod.gcp.observe import GcpClusterState
    from pulumi_hyperpod.gcp.spec import ClusterSpec
    from pulumi_hyperpod.plans.model import Plan

Request = PlanRequest["ClusterSpec", "GcpClusterState", None]
GcpPrepared = Prepared["ClusterSpec", "GcpClusterState", None]


class GcpCloud(Cloud["ClusterSpec", "GcpClusterState", "TrainingClusterClient", None]):
    name = "gcp"
    title = "Google Cloud training clusters"

    def owns(self, document: object) -> bool:
        return detect_cloud(document) == "gcp"

    def connect(self, backend: str) -> TrainingClusterClient:
        from pulumi_hyperpod.gcp.client import connect  # noqa: PLC0415 - detection loads this facade for every spec (core/cloud.py DETECTION_ORDER): a stage only when called

        return connect("fake" if backend == "fake" else "gcp")

    def load_spec(self, path: str, **context: str | None) -> ClusterSpec:
        from pulumi_hyperpod.gcp.spec import ClusterSpec  # noqa: PLC0415 - detection loads this facade for every spec (core/cloud.py DETECTION_ORDER): a stage only when called

        return ClusterSpec.from_file(path, context.get("project"), context.get("location"), context.get("cluster_id"))

    def read(self, client: TrainingClusterClient, name: str) -> GcpClusterState | None:
        from pulumi_hyperpod.gcp.observe import observe  # noqa: PLC0415 - detection loads this facade for every spec (core/cloud.py DETECTION_ORDER): a stage only when called

        return observe(client, name)

    def read_inputs(self, client: TrainingClusterClient | None, request: Request) -> Request:
        return request  # the spec and the cluster are all a plan is made from

    def plan(self, request: Request) -> Plan:
        from pulumi_hyperpod.gcp.planner import plan  # noqa: PLC0415 - detection loads this facade for every spec (core/cloud.py DETECTION_ORDER): a stage only when called

        return plan(request.desired, request.observed, request.policy)

    def annotate(self, plan: Plan, request: Request) -> Plan:
        return plan  # no section of its own beyond the planner's and the preflight's

    def preflight(self, plan: Plan, request: Request, client: TrainingClusterClient) -> Plan:
        from pulumi_hyperpod.gcp.preflight import preflight  # noqa: PLC0415 - detection loads this facade for every spec (core/cloud.py DETECTION_ORDER): a stage only when called

        return preflight(plan, request.desired, request.observed, client, request.policy)

    def apply(self, client: TrainingClusterClient, request: ApplyRequest[None]) -> ApplyResult:
        from pulumi_hyperpod.gcp.apply import apply  # noqa: PLC0415 - detection loads this facade for every spec (core/cloud.py DETECTION_ORDER): a stage only when called

        # the planner's guards (gcp/planner/__init__.py), checked again before each write
        return apply(client, request.plan, request.options, request.policy)

    def save_plan(self, prepared: GcpPrepared, path: str, *, target: Target | None = None, inputs: InputFiles = ()) -> None:
        from pulumi_hyperpod.gcp.pipeline.saved import save  # noqa: PLC0415 - saved plans: only plan --out and apply --plan read or write one

        backend = (target or {}).get("backend") or "gcp"
        save(prepared.plan, path, spec=prepared.desired, observed=prepared.observed, policy=prepared.policy, backend=backend)

    def load_plan(self, path: str, *, target: Target | None = None) -> GcpPrepared:
        """The plan re-derived from its saved inputs (gcp/pipeline/saved.py) with its steps checked against
        its own cluster and action (apply.check_steps), before any call."""
        from pulumi_hyperpod.gcp.apply import check_steps  # noqa: PLC0415 - detection loads this facade for every spec (core/cloud.py DETECTION_ORDER): a stage only when called
        from pulumi_hyperpod.gcp.pipeline.saved import load_with_inputs  # noqa: PLC0415 - saved plans: only plan --out and apply --plan read or write one

        the_plan, spec, observed, policy = load_with_inputs(path, (target or {}).get("backend"))
        check_steps(the_plan)
        return Prepared(self.name, the_plan, spec, observed, policy)

    def import_(self, client: TrainingClusterClient, name: str) -> GcpClusterState:
        state = self.read(client, name)
        if state is None:
            raise LookupError(f"no cluster {name} to import")
        return state


GCP = GcpCloud()
