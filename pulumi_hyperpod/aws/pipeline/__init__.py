"""HyperPod's library API over the one pipeline: spec + observed → plan → cost → preflight →
(save | apply), with HyperPod's keywords, for Python callers.

It sits on top: these functions call core/cloud.py (`prepare`, `deletion`, `execute`) and
core/planfile.py (`save`, `load`) with the AWS cloud (aws/cloud.py) and its context
(aws/context.AwsContext); the cloud's stages (aws/stages.py, aws/preflight, `saved`) never call
back into them. What they return is core/cloud.Prepared, the one prepared plan of every cloud
(`prepared.context.role_map()`: the Slurm roles; `prepared.context.view`: the workload view).

- `make_plan(desired, observed, policy, *, roles, prices, region)` — plan → cost. Pure
  (aws/stages.make_plan, the AWS cloud's plan stage).
- `check(plan, desired, observed, *, sagemaker, quotas, policy, skip)` — preflight (reads the
  account), or a section saying why it was skipped.
- `prepare(sagemaker, desired, *, ...)` — observe (unless a snapshot is given) → Slurm roles from
  the lifecycle bundle (unless given) → make_plan → check.
- `deletion(sagemaker, name, *, policy)` — the plan that deletes a cluster.
- `save(prepared, path)` / `load(path)` — a saved plan file (aws/saved.py, through core/planfile.py).
- `execute(client, plan, *, policy, wait, timeout, check_fresh, ...)` — apply.

`observed=OBSERVE` (the default; core/cloud.OBSERVE) reads the live cluster; a ClusterState (a
snapshot) or None (no cluster) is planned against instead.

`roles` flows from here into `plan()`: instance group name → "Controller" | "Login" | "Compute",
for Slurm clusters whose groups do not state SlurmConfig.NodeType (the lifecycle scripts'
provisioning_parameters.json decides them); a saved plan keeps them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.aws.cloud import AWS
from pulumi_hyperpod.aws.context import AwsContext, Quotas, S3
from pulumi_hyperpod.aws.observe import ClusterState, observe
from pulumi_hyperpod.aws.stages import make_plan
from pulumi_hyperpod.core import cloud as _core
from pulumi_hyperpod.core.cloud import OBSERVE, InputFiles, Prepared, Read
from pulumi_hyperpod.plans import Plan, Policy
from pulumi_hyperpod.aws import preflight
from pulumi_hyperpod.core.contract import ApplyOptions
from pulumi_hyperpod.core import planfile

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.apply import ApplyResult, Progress
    from pulumi_hyperpod.aws.clients import SageMakerClient
    from pulumi_hyperpod.aws.context import AwsPrepared
    from pulumi_hyperpod.aws.cost.prices import PriceTable
    from pulumi_hyperpod.aws.spec import ClusterSpec
    from pulumi_hyperpod.aws.workload.model import WorkloadView
    from pulumi_hyperpod.aws.workload.source import WorkloadSource
    from pulumi_hyperpod.core.contract import ApplyOptions
    from pulumi_hyperpod.slurm.spec import SlurmSpec

__all__ = ["OBSERVE", "Prepared", "check", "deletion", "execute", "load", "make_plan", "observe", "prepare", "save"]


def check(
    the_plan: Plan,
    desired: ClusterSpec | None,
    observed: ClusterState | None,
    *,
    sagemaker: SageMakerClient | None = None,
    quotas: Quotas | None = None,
    policy: Policy | None = None,
    skip: str | None = None,
) -> Plan:
    """The preflight stage: service quotas and lifecycle consistency read through `sagemaker` and
    `quotas` (a service-quotas client or a function returning one; None: reported as not readable). `skip`: the reason the
    checks are not run (offline, asked not to) — the section says it instead."""
    if skip is not None or sagemaker is None:
        return preflight.skipped(the_plan, skip or "no client to read the account with")
    return preflight.preflight(the_plan, desired, observed, sagemaker=sagemaker, quotas=quotas, policy=policy)


def prepare(
    sagemaker: SageMakerClient | None,
    desired: ClusterSpec,
    *,
    policy: Policy | None = None,
    roles: Mapping[str, str] | None = None,
    prices: PriceTable | Mapping[str, Any] | None = None,
    region: str | None = None,
    quotas: Quotas | None = None,
    observed: ClusterState | Read | None = OBSERVE,
    skip_preflight: str | None = None,
    s3: S3 | None = None,
    lifecycle_dir: str | None = None,
    slurm: SlurmSpec | None = None,
    workload: WorkloadSource | WorkloadView | None = None,
) -> AwsPrepared:
    """observe → (Slurm roles) → plan → cost → preflight: the one pipeline (core/cloud.prepare)
    with HyperPod's context (aws/context.AwsContext says what each keyword is). `observed`: a
    ClusterState (a snapshot) or None (no cluster) to plan against instead of observing;
    `sagemaker` may then be None (offline)."""
    context = AwsContext(
        roles=roles, lifecycle_dir=lifecycle_dir, s3=s3, quotas=quotas, slurm=slurm, workload=workload, prices=prices, region=region
    )
    return _core.prepare(AWS, sagemaker, desired, policy or Policy(), observed=observed, skip_preflight=skip_preflight, context=context)


def deletion(
    sagemaker: SageMakerClient | None, name: str, *, policy: Policy | None = None, observed: ClusterState | Read | None = OBSERVE
) -> AwsPrepared:
    """The plan that deletes cluster `name` (action "none" when there is no such cluster); `observed`:
    the cluster as the caller already read it (default: read it now)."""
    return _core.deletion(AWS, sagemaker, name, policy or Policy(), observed=observed, context=AwsContext(cost=False))


def execute(
    client: SageMakerClient,
    the_plan: Plan,
    *,
    policy: Policy | None = None,
    wait: str = "InService",
    timeout: float = 1800.0,
    poll_seconds: float | None = None,
    progress: Callable[[Progress], Any] | None = None,
    sleep: Callable[[float], Any] | None = None,
    monotonic: Callable[[], float] | None = None,
    check_fresh: bool = True,
    workload: WorkloadSource | WorkloadView | None = None,
    roles: Mapping[str, str] | None = None,
    options: ApplyOptions | None = None,
) -> ApplyResult:
    """Apply the plan (see `apply.apply`) through core/cloud.execute: refused plans raise
    PlanRefused, stale ones PlanStale. `options` (core/contract.ApplyOptions) replaces
    wait/timeout/poll_seconds/progress/check_fresh."""
    if options is None:
        options = ApplyOptions(wait=wait, timeout=timeout, poll_seconds=poll_seconds, check_fresh=check_fresh, progress=progress)
    context = AwsContext(roles=dict(roles or {}), workload=workload, sleep=sleep, monotonic=monotonic)
    return _core.execute(AWS, client, the_plan, options, policy=policy, context=context)


def save(prepared: AwsPrepared, path: str, *, target: Mapping[str, Any] | None = None, inputs: InputFiles = ()) -> None:
    """`inputs`: the files the plan was made from, which the plan file must not overwrite."""
    planfile.save(prepared, path, target=target, inputs=inputs)


def load(path: str, *, target: Mapping[str, Any] | None = None) -> AwsPrepared:
    prepared: AwsPrepared = planfile.load(path, cloud="aws", target=target)
    return prepared
