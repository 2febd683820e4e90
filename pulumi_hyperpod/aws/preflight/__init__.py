"""Preflight: what can be known before a plan is applied, read from the account (the I/O stage
between the pure `plan()` and `apply()`).

- `quotas`: the plan against the account's Service Quotas for HyperPod (refused when over one,
  warned when near one, noted when they cannot be read);
- `consistency`: a scale-out whose new nodes would be built differently from the group's
  existing ones (a lifecycle-script change, seed 004);
- `training_plans`: a growing group's training plan (TrainingPlanArn) against what it adds: its
  window, instance type and available count (refused, warned, or noted); for a growing group short
  of its type's quota and on no plan, the training plan offerings that match (a note, never bought);
- `section`: `plan.preflight` — the checks, the warnings and the verdict, as typed data.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING
from collections.abc import Callable

from pulumi_hyperpod.aws.cost.estimate import region_of
from pulumi_hyperpod.plans.model import Plan
from pulumi_hyperpod.plans.policy import Policy
from pulumi_hyperpod.plans.sections import PreflightSection, QuotaSection
from pulumi_hyperpod.core.preflight import section
from pulumi_hyperpod._lazy import lazy_exports

# The checks themselves (consistency.py, quotas.py) are imported when a plan adds instances: a
# no-change preview (most of them) runs neither and pays for neither module. SAMPLE and RULE are
# theirs, exported from here on first use (PEP 562).
_EXPORTS = {"SAMPLE": "pulumi_hyperpod.aws.preflight.consistency", "RULE": "pulumi_hyperpod.aws.preflight.quotas"}

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.preflight.consistency import SAMPLE
    from pulumi_hyperpod.aws.preflight.quotas import RULE
    from pulumi_hyperpod.aws.clients import SageMakerClient, ServiceQuotasClient
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.aws.spec import ClusterSpec

__all__ = ["RULE", "SAMPLE", "preflight", "skipped"]


def preflight(
    plan: Plan,
    desired: ClusterSpec | None,
    observed: ClusterState | None,
    *,
    sagemaker: SageMakerClient,
    quotas: ServiceQuotasClient | Callable[[], ServiceQuotasClient] | None = None,
    policy: Policy | None = None,
    sample: int | None = None,
) -> Plan:
    """The plan with its preflight section and any quota refusal added. `quotas` is a boto3
    `service-quotas` client, or a function returning one, called only when the plan adds instances
    (None: quotas are reported as not readable). `sample`: nodes per group the consistency check
    reads (None: consistency.SAMPLE)."""
    policy = policy or Policy()
    refusals, warnings, findings, plans = [], [], [], []
    if desired is None or not _adds_instances(plan):
        quota_part = QuotaSection(status="not-needed")
    else:
        region = region_of(observed, getattr(getattr(sagemaker, "meta", None), "region_name", None))
        from pulumi_hyperpod.aws.preflight.quotas import check_quotas  # noqa: PLC0415 - not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)

        if callable(quotas):  # a factory: no client (nor its service model) for a plan that adds nothing
            quotas = quotas()
        quota_part, refusals, warnings = check_quotas(plan, desired, observed, sagemaker, quotas, policy, region)
        if quota_part.status == "unreadable":
            warnings.append(
                f"service quotas not checked: they could not be read ({quota_part.error}); "
                "check them in the Service Quotas console before applying"
            )
        if any(g.training_plan_arn for g in desired.instance_groups):
            from pulumi_hyperpod.aws.preflight.training_plans import check_training_plans  # noqa: PLC0415 - not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)

            plan_refusals, plan_warnings, plans = check_training_plans(plan, desired, sagemaker)
            refusals, warnings = refusals + plan_refusals, warnings + plan_warnings
        if any(c.status in ("over", "near") for c in quota_part.checks):
            from pulumi_hyperpod.aws.preflight.training_plans import offer_training_plans  # noqa: PLC0415 - not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)

            offer_warnings, offered = offer_training_plans(plan, desired, quota_part, sagemaker)
            warnings, plans = warnings + offer_warnings, plans + offered
        if observed is not None:
            from pulumi_hyperpod.aws.preflight.consistency import SAMPLE, check_consistency  # noqa: PLC0415 - not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)

            findings = check_consistency(plan, desired, observed, sagemaker, SAMPLE if sample is None else sample)
            warnings += [finding.message for finding in findings]
    checked = plan.refuse(*refusals)
    return _with_section(checked, section(checked, quota_part, findings, warnings, training_plans=plans))


def skipped(plan: Plan, reason: str) -> Plan:
    """The plan with a preflight section that says why nothing was read (offline, or asked not to)."""
    return _with_section(plan, section(plan, None, [], [], skipped=reason))


def _adds_instances(plan: Plan) -> bool:
    """Does the plan ask for new instances? A group's growth that a move brings (MoveClusterNodes: the
    instances stay, aws/planner/moves.py) asks for none: only the adds that remain count."""
    moved_in: dict[str, int] = {}
    for step in plan.steps:
        if step.operation == "MoveClusterNodes":
            target = step.request["TargetInstanceGroupName"]
            moved_in[target] = moved_in.get(target, 0) + len(step.request.get("NodeIds") or ())
    return plan.action == "create" or any((g.target_after or 0) - moved_in.get(g.group, 0) > (g.target_before or 0) for g in plan.groups)


def _with_section(plan: Plan, data: PreflightSection) -> Plan:
    return dataclasses.replace(plan, preflight=data)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
