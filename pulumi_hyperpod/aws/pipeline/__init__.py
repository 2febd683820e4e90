"""The one pipeline: spec + observed → plan → cost → preflight → (save | apply).

Every front end (the `hyperpod` CLI, the Pulumi dynamic provider, and the providers and clouds
built on them) calls these functions and wires no stage itself:

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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ..observe import ClusterState, observe
from ...plan import Plan, Policy
from ..planner import plan

if TYPE_CHECKING:  # pragma: no cover
    from ..apply import ApplyResult, Progress
    from ...core.contract import ApplyOptions
    from ..cost.prices import PriceTable
    from ..spec import ClusterSpec

OBSERVE = object()  # prepare(): observe the live cluster (the default), rather than a given state

__all__ = ["OBSERVE", "Prepared", "check", "deletion", "execute", "load", "make_plan", "prepare", "save"]


@dataclass(frozen=True)
class Prepared:
    """A plan with what it was made from: what `save` writes and `execute` needs."""

    plan: Plan
    desired: "ClusterSpec | None"
    observed: ClusterState | None
    policy: Policy
    roles: Mapping[str, str] = field(default_factory=dict)
    # the workload view the plan was ranked with (pulumi_hyperpod.workload.WorkloadView), saved with it
    workload: Any = None


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
    from ..cost.estimate import with_cost

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
    from .. import preflight

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
    """observe → (Slurm roles) → plan → cost → preflight. `observed`: a ClusterState (a snapshot) or
    None (no cluster) to plan against instead of observing; `sagemaker` may then be None (offline).

    `roles` not given: groups without SlurmConfig.NodeType take their role from the lifecycle bundle
    — `lifecycle_dir`, else each group's LifeCycleConfig.SourceS3Uri read through `s3` (a client, or
    a function returning one when a bundle has to be read) — and a role
    that cannot be learnt stays unknown (the planner then refuses to scale a group to 0).

    `slurm`: the Slurm spec wanted (pulumi_hyperpod.slurm.SlurmSpec); its changes against the
    running cluster's bundle become the plan's Slurm section, and a change HyperPod cannot make in
    place a refusal.

    `workload`: a pulumi_hyperpod.workload source (or a WorkloadView already read): what runs on each
    node, read once here and given to the planner as data."""
    policy = policy or Policy()
    state = observe(sagemaker, desired.name) if observed is OBSERVE else observed
    if state is not None and state.tags is None and desired.tags is not None and sagemaker is not None:
        from ..observe.reader import read_tags  # only a spec that manages tags pays for ListTags

        state = read_tags(sagemaker, state)
    view = _workload_view(workload, state)
    region = region or getattr(getattr(sagemaker, "meta", None), "region_name", None)
    notes: tuple[str, ...] = ()
    if not roles and (state is not None or lifecycle_dir is not None):
        roles, notes = _learnt_roles(desired, state, s3, lifecycle_dir)
    the_plan = make_plan(desired, state, policy, roles=roles, prices=prices, region=region, workload=view)
    if view is not None and view.unmatched:
        notes = notes + (
            f"{view.orchestrator} nodes no HyperPod node matches (not weighed): {', '.join(view.unmatched[:10])}"
            + (f" and {len(view.unmatched) - 10} more" if len(view.unmatched) > 10 else ""),
        )
    if state is not None and state.groups and not any(g.node_type for g in state.groups):
        from ...slurm.migration import with_migration  # a legacy Slurm cluster moved to SlurmConfig: the whole migration said

        the_plan = with_migration(the_plan, desired, state)
    if notes:
        the_plan = dataclasses.replace(the_plan, notes=the_plan.notes + notes)
    if slurm is not None:
        the_plan = _with_slurm(the_plan, slurm, state, s3, lifecycle_dir)
    the_plan = check(the_plan, desired, state, sagemaker=sagemaker, quotas=quotas, policy=policy, skip=skip_preflight)
    return Prepared(the_plan, desired, state, policy, dict(roles or {}), view)


def _workload_view(workload: Any, state: Any) -> Any:
    """A WorkloadView from a source (read now against `state`) or as given; None without a cluster."""
    if workload is None or state is None:
        return None
    from ...workload.model import WorkloadView

    return workload if isinstance(workload, WorkloadView) else workload.read(state)


def _with_slurm(the_plan: Plan, wanted: Any, state: Any, s3: Any, lifecycle_dir: str | None) -> Plan:
    """The plan with its Slurm section: the wanted Slurm spec against the one in the cluster's bundle."""
    from ...plan import Refusal
    from ...slurm.section import slurm_section

    section = slurm_section(wanted, state, s3_client=s3, lifecycle_dir=lifecycle_dir)
    the_plan = dataclasses.replace(the_plan, slurm=section)
    return the_plan.refuse(*(Refusal(rule, reason) for rule, reason in section.refusals()))


def _learnt_roles(desired: "ClusterSpec", state: Any, s3: Any, lifecycle_dir: str | None) -> tuple[dict | None, tuple[str, ...]]:
    """Slurm roles from the lifecycle bundle (pulumi_hyperpod/slurm/roles.py), with its notes."""
    from ...slurm.roles import resolve

    resolution = resolve(desired, state, s3_client=s3, lifecycle_dir=lifecycle_dir)
    return resolution.roles, tuple(resolution.notes)


def deletion(sagemaker: Any, name: str, *, policy: Policy | None = None, observed: Any = OBSERVE) -> Prepared:
    """The plan that deletes cluster `name` (action "none" when there is no such cluster); `observed`:
    the cluster as the caller already read it (default: read it now)."""
    policy = policy or Policy()
    state = observe(sagemaker, name) if observed is OBSERVE else observed
    return Prepared(plan(None, state, policy), None, state, policy)


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
    """Apply the plan (see `apply.apply`): refused plans raise PlanRefused, stale ones PlanStale.
    `options` (core/contract.ApplyOptions) replaces wait/timeout/poll_seconds/progress/check_fresh."""
    import time

    from ..apply import apply
    from ...core.contract import ApplyOptions

    if options is None:
        options = ApplyOptions(wait=wait, timeout=timeout, poll_seconds=poll_seconds, check_fresh=check_fresh, progress=progress)
    return apply(
        client,
        the_plan,
        policy=policy,
        options=options,
        sleep=sleep or time.sleep,
        monotonic=monotonic or time.monotonic,
        workload=workload,
        roles=dict(roles or {}),
    )


def save(prepared: Prepared, path: str, *, target: Mapping[str, Any] | None = None, inputs: Any = ()) -> None:
    """`inputs`: the files the plan was made from, which the plan file must not overwrite."""
    from .saved import save as write

    write(prepared, path, target=target, inputs=inputs)


def load(path: str, *, target: Mapping[str, Any] | None = None) -> Prepared:
    from .saved import load as read

    return read(path, target=target)
