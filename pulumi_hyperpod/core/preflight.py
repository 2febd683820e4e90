"""The plan's preflight section (`plan.preflight`): the quota checks, the lifecycle consistency
findings, the training plans of growing groups, the warnings, and the verdict — typed data; `plan.render` draws it."""

from __future__ import annotations

from typing import TYPE_CHECKING
from collections.abc import Sequence

from pulumi_hyperpod.plans.model import Plan
from pulumi_hyperpod.plans.sections import PreflightSection, QuotaSection

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.plans.findings import ConsistencyFinding, TrainingPlanFinding


def verdict(plan: Plan, warnings: Sequence[str]) -> str:
    if plan.refused:
        return "refused"
    return "warnings" if warnings else "ok"


def section(
    plan: Plan,
    quotas: QuotaSection | None,
    consistency: Sequence[ConsistencyFinding],
    warnings: Sequence[str],
    skipped: str | None = None,
    training_plans: Sequence[TrainingPlanFinding] = (),
) -> PreflightSection:
    return PreflightSection(
        verdict=verdict(plan, warnings),
        skipped=skipped,
        quotas=quotas,
        consistency=tuple(consistency),
        warnings=tuple(warnings),
        refused_by=tuple(dict.fromkeys(r.rule for r in plan.refusals)),
        training_plans=tuple(training_plans),
    )
