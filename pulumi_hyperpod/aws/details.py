"""HyperPod's own sections of a Plan (its `details` slot, plans/model.py): the Slurm changes of a plan
made with a Slurm spec (aws/slurm/section.py), and each step's (aws/planner/details.py: a canary's
wait). On the wire they keep the members they always had — the plan's `slurm`, a step's `canary` —
and `READER` reads them back: the reader HyperPod gives `Plan.from_dict`."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.aws.planner.details import AwsStepDetails
from pulumi_hyperpod.plans.model import Plan

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.slurm.section import SlurmSection


@dataclass(frozen=True, slots=True)
class AwsPlanDetails:
    slurm: SlurmSection | None = None  # Slurm changes, when a Slurm spec is given (aws/stages.py)

    def to_dict(self) -> dict[str, Any]:
        return {"slurm": self.slurm.to_dict() if self.slurm is not None else None}

    def sections(self) -> tuple[tuple[str, str], ...]:
        if self.slurm is None:
            return ()
        # asked for (--slurm): what was found is said, "no changes" included
        return (("Slurm changes (per key: what it takes on HyperPod, which nodes get it when)", self.slurm.text().rstrip("\n")),)

    def pending(self) -> str | None:
        if self.slurm is None or self.slurm.empty:
            return None
        return "only the Slurm changes above, made as their steps say"


@dataclass(frozen=True, slots=True)
class _Reader:
    members: frozenset[str] = frozenset({"slurm"})
    step_members: frozenset[str] = frozenset({"canary"})

    def plan_details(self, data: Mapping[str, Any]) -> AwsPlanDetails | None:
        if not data.get("slurm"):
            return None
        from pulumi_hyperpod.aws.slurm.section import SlurmSection  # noqa: PLC0415 - only a plan with a Slurm section loads the Slurm layer

        return AwsPlanDetails(slurm=SlurmSection.from_dict(data["slurm"]))

    def step_details(self, data: Mapping[str, Any]) -> AwsStepDetails | None:
        return AwsStepDetails(canary=True) if data.get("canary") else None


READER = _Reader()


def slurm_of(plan: Plan) -> SlurmSection | None:
    """The plan's Slurm section (None: no Slurm spec was given)."""
    return plan.details.slurm if isinstance(plan.details, AwsPlanDetails) else None


def with_slurm(plan: Plan, section: SlurmSection | None) -> Plan:
    """The plan with this Slurm section (its other HyperPod details kept)."""
    return dataclasses.replace(plan, details=AwsPlanDetails(slurm=section) if section is not None else None)
