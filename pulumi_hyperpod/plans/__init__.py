"""The Plan model, written once for every cloud: steps, groups, victims, refusals, basis, the cost and
preflight sections, the Policy, and the rendering. Pure: no I/O. Each cloud's planner fills it
(AWS: `pulumi_hyperpod.aws.planner`; Google Cloud: `pulumi_hyperpod.gcp.planner`).

Rendering (`plan_renderable`, `plan_text`) imports rich, so it is loaded only when asked for:
a Pulumi preview starts two Python processes and should not pay for it at import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pulumi_hyperpod._lazy import lazy_exports

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.plans.basis import Basis
    from pulumi_hyperpod.plans.model import PLAN_FORMAT, GroupChange, Plan, Refusal, Step, Victim
    from pulumi_hyperpod.plans.policy import Policy
    from pulumi_hyperpod.plans.sections import CostSection, PreflightSection

# Loaded on first use (PEP 562): `Policy` alone (the provider's settings, the program's resource
# arguments) does not load the rest of the model.
_EXPORTS = {
    "Basis": "pulumi_hyperpod.plans.basis",
    **dict.fromkeys(["PLAN_FORMAT", "GroupChange", "Plan", "Refusal", "Step", "Victim"], "pulumi_hyperpod.plans.model"),
    "Policy": "pulumi_hyperpod.plans.policy",
    **dict.fromkeys(["CostSection", "PreflightSection"], "pulumi_hyperpod.plans.sections"),
}

__all__ = [
    "PLAN_FORMAT",
    "Basis",
    "CostSection",
    "GroupChange",
    "Plan",
    "Policy",
    "PreflightSection",
    "Refusal",
    "Step",
    "Victim",
    "plan_renderable",
    "plan_text",
]


def plan_renderable(plan: Plan, victims_shown: int | None = 20, subject: str | None = None) -> Any:
    """`victims_shown`: rows of the removed-nodes table, the rest counted (None: all); `subject`: what
    the plan is for when it is not the cluster itself (a compute quota on it)."""
    from pulumi_hyperpod.plans.render import VICTIMS_ELSEWHERE, plan_renderable as render  # noqa: PLC0415 - rich: only a plan shown loads the renderer (tests/cli_startup)

    return render(plan, victims_shown, VICTIMS_ELSEWHERE, subject)


def plan_text(plan: Plan, width: int = 110, victims_shown: int | None = 20, victims_elsewhere: str | None = None) -> str:
    from pulumi_hyperpod.plans.render import VICTIMS_ELSEWHERE, plan_text as render  # noqa: PLC0415 - rich: only a plan shown loads the renderer

    return render(plan, width, victims_shown, victims_elsewhere or VICTIMS_ELSEWHERE)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
