"""HyperPod's stages of the one pipeline, and its library API: spec + observed → plan → cost →
preflight → (save | apply).

The pipeline itself is core/cloud.py (`prepare`, `deletion`, `execute`) and core/planfile.py
(`save`, `load`), which every front end calls through the AWS cloud (aws/cloud.py, its context
aws/context.py); `make_plan` and `check` are the AWS cloud's plan and preflight stages. The
functions below are the same pipeline with HyperPod's keywords, for Python callers:

- `make_plan(desired, observed, policy, *, roles, prices, region)` — plan → cost. Pure.
- `check(plan, desired, observed, *, sagemaker, quotas, policy, skip)` — preflight (reads the
  account), or a section saying why it was skipped.
- `prepare(sagemaker, desired, *, ...)` — observe (unless a snapshot is given) → Slurm roles from
  the lifecycle bundle (unless given) → make_plan → check.
- `deletion(sagemaker, name, *, policy)` — the plan that deletes a cluster.
- `save(prepared, path)` / `load(path)` — a saved plan file (`pipeline.saved`).
- `execute(client, plan, *, policy, wait, timeout, check_fresh, ...)` — apply.

`roles` flows from here into `plan()`: instance group name → "Controller" | "Login" | "Compute",
for Slurm clusters whose groups do not state SlurmConfig.NodeType (the lifecycle scripts'
provisioning_parameters.json decides them); a saved plan keeps them.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Callable, Mapping
from pulumi_hyperpod.core import cloud as _core

from pulumi_hyperpod.aws.observe import ClusterState, observe
from pulumi_hyperpod.plans import Plan, Policy
from pulumi_hyperpod.aws.planner import plan

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.apply import ApplyResult, Progress
    from pulumi_hyperpod.core.contract import ApplyOptions
    from pulumi_hyperpod.aws.cost.prices import PriceTable
    from pulumi_hyperpod.aws.spec import ClusterSpec

OBSERVE = object()  # prepare(): observe the live cluster (the default), rather than a given state

__all__ = ["OBSERVE", "Prepared", "check", "deletion", "execute", "load", "make_plan", "observe", "prepare", "save"]


class Prepared(_core.Prepared):
    """core/cloud.Prepared for HyperPod (cloud "aws", context an AwsContext), with the context's
    Slurm roles and workload view named: what `save` writes and `execute` needs.

    Not a dataclass itself: it adds no field, and core's generated methods serve it as they are."""

    @property
    def roles(self) -> dict[str, str]:
        return self.context.role_map() if self.context is not None else {}

    @property
    def workload(self) -> Any:
        """The workload view the plan was ranked with (pulumi_hyperpod.aws.workload.WorkloadView), saved with it."""
        return self.context.view if self.context is not None else None


def make_plan(
    desired: "ClusterSpec | None",
    observed: ClusterState | None,
    policy: Policy | None = None,
    *,
    roles: Mapping[str, str] | None = None,
    prices: "PriceTable | Mapping[str, Any] | None" = None,
    region: str | None = None,
    workload: Any = None,
) -> Plan:
    """plan() then its cost section (and the budget guard). `prices`: a PriceTable, or a mapping
    merged over the shipped list prices; None reads the shipped table and $HYPERPOD_PRICES.
    `region`: where the cluster is when `observed` (whose ARN says it) is None."""
    from pulumi_hyperpod.aws.cost.estimate import with_cost

    policy = policy or Policy()
    return with_cost(plan(desired, observed, policy, roles=roles, workload=workload), desired, observed, policy, prices, region)


def check(
    the_plan: Plan,
    desired: "ClusterSpec | None",
    observed: ClusterState | None,
    *,
    sagemaker: Any = None,
    quotas: Any = None,
    policy: Policy | None = None,
    skip: str | None = None,
) -> Plan:
    """The preflight stage: service quotas and lifecycle consistency read through `sagemaker` and
    `quotas` (a service-quotas client or a function returning one; None: reported as not readable). `skip`: the reason the
    checks are not run (offline, asked not to) — the section says it instead."""
    from pulumi_hyperpod.aws import preflight

    if skip is not None or sagemaker is None:
        return preflight.skipped(the_plan, skip or "no client to read the account with")
    return preflight.preflight(the_plan, desired, observed, sagemaker=sagemaker, quotas=quotas, policy=policy)


def prepare(
    sagemaker: Any,
    desired: "ClusterSpec",
    *,
    policy: Policy | None = None,
    roles: Mapping[str, str] | None = None,
    prices: "PriceTable | Mapping[str, Any] | None" = None,
    region: str | None = None,
    quotas: Any = None,
    observed: Any = OBSERVE,
    skip_preflight: str | None = None,
    s3: Any = None,
    lifecycle_dir: str | None = None,
    slurm: Any = None,
    workload: Any = None,
) -> Prepared:
    """observe → (Slurm roles) → plan → cost → preflight: the one pipeline (core/cloud.prepare)
    with HyperPod's context (aws/context.AwsContext says what each keyword is). `observed`: a
    ClusterState (a snapshot) or None (no cluster) to plan against instead of observing;
    `sagemaker` may then be None (offline)."""
    from pulumi_hyperpod.core import cloud
    from pulumi_hyperpod.aws.cloud import AWS
    from pulumi_hyperpod.aws.context import AwsContext

    context = AwsContext(
        roles=roles, lifecycle_dir=lifecycle_dir, s3=s3, quotas=quotas, slurm=slurm, workload=workload, prices=prices, region=region
    )
    given = {} if observed is OBSERVE else {"observed": observed}
    prepared = cloud.prepare(AWS, sagemaker, desired, policy or Policy(), skip_preflight=skip_preflight, context=context, **given)
    return Prepared(**_fields(prepared))


def _fields(prepared: Any) -> dict[str, Any]:
    return {f.name: getattr(prepared, f.name) for f in dataclasses.fields(prepared)}


def deletion(sagemaker: Any, name: str, *, policy: Policy | None = None, observed: Any = OBSERVE) -> Prepared:
    """The plan that deletes cluster `name` (action "none" when there is no such cluster); `observed`:
    the cluster as the caller already read it (default: read it now)."""
    from pulumi_hyperpod.core import cloud
    from pulumi_hyperpod.aws.cloud import AWS
    from pulumi_hyperpod.aws.context import AwsContext

    given = {} if observed is OBSERVE else {"observed": observed}
    prepared = cloud.deletion(AWS, sagemaker, name, policy or Policy(), context=AwsContext(cost=False), **given)
    return Prepared(**_fields(prepared))


def execute(
    client: Any,
    the_plan: Plan,
    *,
    policy: Policy | None = None,
    wait: str = "InService",
    timeout: float = 1800.0,
    poll_seconds: float | None = None,
    progress: "Callable[[Progress], Any] | None" = None,
    sleep: Callable[[float], Any] | None = None,
    monotonic: Callable[[], float] | None = None,
    check_fresh: bool = True,
    workload: Any = None,
    roles: Mapping[str, str] | None = None,
    options: "ApplyOptions | None" = None,
) -> "ApplyResult":
    """Apply the plan (see `apply.apply`) through core/cloud.execute: refused plans raise
    PlanRefused, stale ones PlanStale. `options` (core/contract.ApplyOptions) replaces
    wait/timeout/poll_seconds/progress/check_fresh."""
    from pulumi_hyperpod.core.contract import ApplyOptions
    from pulumi_hyperpod.aws.cloud import AWS
    from pulumi_hyperpod.aws.context import AwsContext

    if options is None:
        options = ApplyOptions(wait=wait, timeout=timeout, poll_seconds=poll_seconds, check_fresh=check_fresh, progress=progress)
    context = AwsContext(roles=dict(roles or {}), workload=workload, sleep=sleep, monotonic=monotonic)
    return _core.execute(AWS, client, the_plan, options, policy=policy, context=context)


def save(prepared: Prepared, path: str, *, target: Mapping[str, Any] | None = None, inputs: Any = ()) -> None:
    """`inputs`: the files the plan was made from, which the plan file must not overwrite."""
    from pulumi_hyperpod.core import planfile

    planfile.save(prepared, path, target=target, inputs=inputs)


def load(path: str, *, target: Mapping[str, Any] | None = None) -> Prepared:
    from pulumi_hyperpod.core import planfile

    return planfile.load(path, cloud="aws", target=target)
