"""Executing a Plan through the client (apply).

Names load on first use (PEP 562): `wait_policies` alone (the provider's settings read WAIT_POLICIES)
pulls in neither the executor nor botocore's waiters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pulumi_hyperpod._lazy import lazy_exports

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.apply.executor import (
        ApplyError,
        ApplyOptions,
        ApplyResult,
        ConcurrentChange,
        PlanRefused,
        PlanStale,
        apply,
        client_token,
    )
    from pulumi_hyperpod.aws.apply.progress import Progress
    from pulumi_hyperpod.aws.apply.waiters import WAIT_POLICIES, WaitFailed, WaitTimedOut, wait

_EXPORTS = {
    # the contract's types (core/contract.py), named here too
    **dict.fromkeys(
        ["ApplyError", "ApplyOptions", "ApplyResult", "ConcurrentChange", "PlanRefused", "PlanStale", "apply", "client_token"],
        "pulumi_hyperpod.aws.apply.executor",
    ),
    "Progress": "pulumi_hyperpod.aws.apply.progress",
    **dict.fromkeys(["WAIT_POLICIES", "WaitFailed", "WaitTimedOut", "wait"], "pulumi_hyperpod.aws.apply.waiters"),
}

__all__ = [
    "WAIT_POLICIES",
    "ApplyError",
    "ApplyOptions",
    "ApplyResult",
    "ConcurrentChange",
    "PlanRefused",
    "PlanStale",
    "Progress",
    "WaitFailed",
    "WaitTimedOut",
    "apply",
    "client_token",
    "wait",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
