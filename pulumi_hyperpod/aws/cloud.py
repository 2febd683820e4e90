"""Amazon SageMaker HyperPod behind the `Cloud` interface (core/cloud.py).

Each method is an AWS stage: read is `observe`, read_inputs and annotate are aws/stages.py (tags,
Slurm roles, the workload view; the legacy migration, the Slurm section), plan is `plan()` then its
cost (`pipeline.make_plan`), preflight is the service quotas and lifecycle consistency checks,
apply is `apply.apply` under the one contract, save_plan/load_plan are pipeline/saved.py. The
context is aws/context.AwsContext.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.core.contract import ApplyOptions, ApplyResult
    from pulumi_hyperpod.aws.clients import SageMakerClient
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.aws.spec import ClusterSpec
    from pulumi_hyperpod.plans.model import Plan
    from pulumi_hyperpod.plans.policy import Policy
    from pulumi_hyperpod.aws.context import AwsContext


class AwsCloud:
    name = "aws"
    title = "Amazon SageMaker HyperPod"

    def owns(self, document: Any) -> bool:
        from pulumi_hyperpod.core.detect import detect_cloud  # shape only: no Google Cloud code runs

        return detect_cloud(document) == "hyperpod"

    def connect(self, backend: str) -> "SageMakerClient":
        from pulumi_hyperpod.aws.client import connect

        client: SageMakerClient = connect(backend)
        return client

    def load_spec(self, path: str, **context: Any) -> "ClusterSpec":
        from pulumi_hyperpod.aws.spec import ClusterSpec

        return ClusterSpec.from_file(path)

    def read(self, client: "SageMakerClient", name: str) -> "ClusterState | None":
        from pulumi_hyperpod.aws.observe import observe

        return observe(client, name)

    def read_inputs(
        self, client: "SageMakerClient | None", desired: "ClusterSpec | None", observed: "ClusterState | None", context: "AwsContext | None"
    ) -> tuple[Any, "AwsContext"]:
        from pulumi_hyperpod.aws.stages import read_inputs

        return read_inputs(client, desired, observed, context)

    def plan(
        self, desired: "ClusterSpec | None", observed: "ClusterState | None", policy: "Policy", context: "AwsContext | None" = None
    ) -> "Plan":
        from pulumi_hyperpod.aws.context import AwsContext

        context = context or AwsContext()
        if not context.cost:
            from pulumi_hyperpod.aws.planner import plan

            return plan(desired, observed, policy, roles=context.roles, workload=context.view)
        from pulumi_hyperpod.aws.pipeline import make_plan

        return make_plan(
            desired, observed, policy, roles=context.roles, prices=context.prices, region=context.region, workload=context.view
        )

    def annotate(
        self, plan: "Plan", desired: "ClusterSpec | None", observed: "ClusterState | None", context: "AwsContext | None"
    ) -> "Plan":
        from pulumi_hyperpod.aws.stages import annotate

        return annotate(plan, desired, observed, context)

    def preflight(
        self,
        plan: "Plan",
        desired: "ClusterSpec | None",
        observed: "ClusterState | None",
        client: "SageMakerClient",
        policy: "Policy",
        context: "AwsContext | None" = None,
    ) -> "Plan":
        from pulumi_hyperpod.aws.pipeline import check

        quotas = context.quotas if context is not None else None
        return check(plan, desired, observed, sagemaker=client, quotas=quotas, policy=policy)

    def apply(
        self,
        client: "SageMakerClient",
        plan: "Plan",
        options: "ApplyOptions",
        *,
        policy: "Policy | None" = None,
        context: "AwsContext | None" = None,
    ) -> "ApplyResult":
        import time

        from pulumi_hyperpod.aws.apply import apply

        return apply(
            client,
            plan,
            policy=policy,
            options=options,
            sleep=(context and context.sleep) or time.sleep,
            monotonic=(context and context.monotonic) or time.monotonic,
            workload=context.workload if context is not None else None,
            roles=context.role_map() if context is not None else {},
        )

    def save_plan(self, prepared: Any, path: str, *, target: Any = None, inputs: Any = ()) -> None:
        from pulumi_hyperpod.aws.pipeline.saved import save

        save(prepared, path, target=target, inputs=inputs)

    def load_plan(self, path: str, *, target: Any = None) -> Any:
        from pulumi_hyperpod.aws.pipeline.saved import load

        return load(path, target=target)

    def import_(self, client: "SageMakerClient", name: str) -> "ClusterState":
        state = self.read(client, name)
        if state is None:
            raise LookupError(f"no cluster {name} to import")
        return state


AWS = AwsCloud()
