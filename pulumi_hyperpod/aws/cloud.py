"""Amazon SageMaker HyperPod behind the `Cloud` interface (core/cloud.py).

Each method is the AWS stage the pipeline already had (pipeline/__init__.py): read is
`observe`, plan is `plan()` then its cost (`make_plan`), preflight is the service quotas and
lifecycle consistency checks, apply is `apply.apply` under the one contract.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..core.contract import ApplyOptions, ApplyResult
    from .clients import SageMakerClient
    from .observe import ClusterState
    from .spec import ClusterSpec
    from ..plan.model import Plan
    from ..plan.policy import Policy


class AwsCloud:
    name = "aws"
    title = "Amazon SageMaker HyperPod"

    def owns(self, document: Any) -> bool:
        from ..gcp.detect import detect_cloud  # shape only: no Google Cloud code runs

        return detect_cloud(document) == "hyperpod"

    def connect(self, backend: str) -> "SageMakerClient":
        from .client import connect

        client: SageMakerClient = connect(backend)
        return client

    def load_spec(self, path: str, **context: Any) -> "ClusterSpec":
        from .spec import ClusterSpec

        return ClusterSpec.from_file(path)

    def read(self, client: "SageMakerClient", name: str) -> "ClusterState | None":
        from .observe import observe

        return observe(client, name)

    def plan(self, desired: "ClusterSpec | None", observed: "ClusterState | None", policy: "Policy", **context: Any) -> "Plan":
        from .pipeline import make_plan

        return make_plan(desired, observed, policy, **context)

    def preflight(
        self, plan: "Plan", desired: "ClusterSpec | None", observed: "ClusterState | None", client: "SageMakerClient", policy: "Policy"
    ) -> "Plan":
        from .pipeline import check

        return check(plan, desired, observed, sagemaker=client, policy=policy)

    def apply(self, client: "SageMakerClient", plan: "Plan", options: "ApplyOptions") -> "ApplyResult":
        from .apply import apply

        return apply(client, plan, options=options)

    def import_(self, client: "SageMakerClient", name: str) -> "ClusterState":
        state = self.read(client, name)
        if state is None:
            raise LookupError(f"no cluster {name} to import")
        return state


AWS = AwsCloud()
