"""Amazon SageMaker HyperPod behind the `Cloud` interface (core/cloud.py): a
`Cloud[ClusterSpec, ClusterState, SageMakerClient, AwsContext]`.

Each method is an AWS stage: read is `observe`, read_inputs, plan and annotate are aws/stages.py
(tags, Slurm roles, the workload view; plan() then its cost; the legacy migration, the Slurm
section), preflight is the service quotas and lifecycle consistency checks (aws/preflight), apply
is `apply.apply` under the one contract, save_plan/load_plan are aws/saved.py. Nothing here
calls the pipeline (core/cloud.py) or the library API over it (aws/pipeline/__init__.py): they
call this.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from pulumi_hyperpod.aws.context import AwsContext
from pulumi_hyperpod.core.cloud import ApplyRequest, Cloud, InputFiles, PlanRequest, Target
from pulumi_hyperpod.core.detect import detect_cloud
from pulumi_hyperpod.aws import client as _client, planner as _planner, preflight as _preflight, stages as _stages
from pulumi_hyperpod.aws.observe import observe
from pulumi_hyperpod.aws.spec import ClusterSpec

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.clients import SageMakerClient
    from pulumi_hyperpod.aws.context import AwsPrepared
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.core.contract import ApplyResult
    from pulumi_hyperpod.plans.model import Plan

Request = PlanRequest["ClusterSpec", "ClusterState", AwsContext]


class AwsCloud(Cloud["ClusterSpec", "ClusterState", "SageMakerClient", AwsContext]):
    name = "aws"
    title = "Amazon SageMaker HyperPod"

    def owns(self, document: object) -> bool:
        return detect_cloud(document) == "hyperpod"

    def connect(self, backend: str) -> SageMakerClient:
        client: SageMakerClient = _client.connect(backend)
        return client

    def load_spec(self, path: str, **context: str | None) -> ClusterSpec:
        return ClusterSpec.from_file(path)

    def read(self, client: SageMakerClient, name: str) -> ClusterState | None:
        return observe(client, name)

    def read_inputs(self, client: SageMakerClient | None, request: Request) -> Request:
        observed, context = _stages.read_inputs(client, request.desired, request.observed, request.context)
        return replace(request, observed=observed, context=context)

    def plan(self, request: Request) -> Plan:
        context = request.context or AwsContext()
        if not context.cost:
            return _planner.plan(request.desired, request.observed, request.policy, roles=context.roles, workload=context.view)
        return _stages.make_plan(
            request.desired,
            request.observed,
            request.policy,
            roles=context.roles,
            prices=context.prices,
            region=context.region,
            workload=context.view,
        )

    def annotate(self, plan: Plan, request: Request) -> Plan:
        return _stages.annotate(plan, request.desired, request.observed, request.context)

    def preflight(self, plan: Plan, request: Request, client: SageMakerClient) -> Plan:
        quotas = request.context.quotas if request.context is not None else None
        return _preflight.preflight(plan, request.desired, request.observed, sagemaker=client, quotas=quotas, policy=request.policy)

    def apply(self, client: SageMakerClient, request: ApplyRequest[AwsContext]) -> ApplyResult:
        from pulumi_hyperpod.aws.apply import apply  # noqa: PLC0415 - the executor, its waiters and the workload readers: only an apply runs them

        context = request.context or AwsContext()
        return apply(
            client,
            request.plan,
            policy=request.policy,
            options=request.options,
            sleep=context.sleep or time.sleep,
            monotonic=context.monotonic or time.monotonic,
            workload=context.workload,
            roles=context.role_map(),
        )

    def save_plan(self, prepared: AwsPrepared, path: str, *, target: Target | None = None, inputs: InputFiles = ()) -> None:
        from pulumi_hyperpod.aws.saved import save  # noqa: PLC0415 - saved plans: only plan --out and apply --plan read or write one (tests/cli_startup)

        save(prepared, path, target=target, inputs=inputs)

    def load_plan(self, path: str, *, target: Target | None = None) -> AwsPrepared:
        from pulumi_hyperpod.aws.saved import load  # noqa: PLC0415 - saved plans: only plan --out and apply --plan read or write one (tests/cli_startup)

        return load(path, target=target)

    def import_(self, client: SageMakerClient, name: str) -> ClusterState:
        state = self.read(client, name)
        if state is None:
            raise LookupError(f"no cluster {name} to import")
        return state


AWS = AwsCloud()
