"""A pinned HyperPod plan against the plan made now and the cluster as it is now (docs/fleet.md,
"Saved fleet plans"): what `fleet apply --plan` checks before any `up` (fleet/savedplan.py) and the
provider before it applies a pinned plan (provider/pinned.py).

The comparison is the saved plan's (saved.py's `plan_difference`: action, steps, groups, replacement
reasons), without the basis — the plan made now was made from the cluster as it is now; whether the
cluster moved since the pin is what the pinned plan's premises say (planner/premise.py's
`stale_reasons`, what `hyperpod apply --plan` checks).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.plans.model import Plan


def read_plan(data: Mapping[str, Any]) -> Plan:
    """A HyperPod plan's JSON (`hyperpod plan --json`) as the Plan it is (the saved plan's reader)."""
    from pulumi_hyperpod.aws.details import READER  # noqa: PLC0415 - the plan reader: only a pinned plan loads it
    from pulumi_hyperpod.plans import Plan  # noqa: PLC0415 - the Plan model: a provider process loads this module before any plan

    reader: Any = READER  # DetailsReader's members are read-only properties on aws/details.py's reader
    return Plan.from_dict(dict(data), reader)


def difference(pinned: Plan, made: Plan) -> str | None:
    """The first way the plan made now is not the pinned one, in words; None when it is."""
    from pulumi_hyperpod.aws.saved import plan_difference  # noqa: PLC0415 - the saved plan's comparison

    found = plan_difference(pinned, made, basis=False)
    return found.replace("they make", "the plan made now has").replace("theirs", "those of the plan made now") if found else None


def moved(pinned: Plan, now: ClusterState | None) -> list[str]:
    """What changed on the cluster since the pinned plan was made that it depends on; [] when it
    still holds (a plan made for a cluster to be created has no premise on one)."""
    from pulumi_hyperpod.aws.planner.premise import stale_reasons  # noqa: PLC0415 - the planner's premises

    return stale_reasons(pinned, now) if pinned.basis is not None else []
