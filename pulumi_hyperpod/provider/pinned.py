"""A pinned plan: with $HYPERPOD_PINNED_PLAN_DIR set, the provider's create, update and delete apply
the plan pinned for their cluster there (`<dir>/<cluster>.json`, the `hyperpod-plan/3` JSON a
preview wrote to $HYPERPOD_PLAN_DIR) and nothing else (docs/fleet.md, "Saved fleet plans").

The plan the provider makes against the live cluster must be the pinned one step for step — the
comparison a saved plan gets, without the basis (aws/pinned.py): the plan made now was made from
the cluster as it is now, and whether it moved since the pin is what the pinned plan's premises
say, which the executor reads before the first call (premise.py's `stale_reasons`) because the
plan applied is the pinned one. No pinned plan for a cluster, or
another plan, is a refusal before any call. Only HyperPod (AWS) plans are pinned: fleets are.

No I/O but reading the pinned file; nothing here holds a client.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import TYPE_CHECKING

from pulumi_hyperpod.core.plandir import PINNED_DIR_ENV, plan_path

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.plans.model import Plan

__all__ = ["PINNED_DIR_ENV", "PinError", "pinned", "plan_path"]


class PinError(Exception):
    """The plan made now is not the pinned one, or none is pinned; the message says which and why."""


def pinned(made: Plan, cloud: str) -> Plan:
    """The plan to apply: `made` when nothing is pinned ($HYPERPOD_PINNED_PLAN_DIR unset), else the
    pinned plan (with the preflight just read) when `made` is it; PinError otherwise."""
    from pulumi_hyperpod.aws.pinned import difference, read_plan  # noqa: PLC0415 - a pinned apply only

    directory = os.environ.get(PINNED_DIR_ENV)
    if not directory:
        return made
    name = made.cluster_name
    if cloud != "aws":
        raise PinError(f"cluster {name}: ${PINNED_DIR_ENV} pins HyperPod (AWS) plans only; this is a {cloud} cluster")
    path = plan_path(directory, name)
    if not path.is_file():
        raise PinError(
            f"cluster {name}: no plan of it is pinned (${PINNED_DIR_ENV}), so none is applied: it would {made.action} "
            "a cluster the reviewed plan did not change; make the fleet plan again"
        )
    try:
        saved = read_plan(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise PinError(f"cluster {name}: the pinned plan {path} cannot be read ({type(error).__name__}: {error})") from None
    found = difference(saved, made)
    if found:
        raise PinError(f"cluster {name}: the plan made now is not the pinned one ({found}); nothing was applied: make the fleet plan again")
    return dataclasses.replace(saved, preflight=made.preflight if made.preflight is not None else saved.preflight)
