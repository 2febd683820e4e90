"""HyperPod's planner: desired spec vs observed cluster into the neutral Plan (`pulumi_hyperpod.plans`).
Pure: no I/O, no prices.

`rules.py` holds the decision table and `plan()`; beside it the rules it applies: `compare`/`members`
(what differs, member by member), `victims`/`workload_order` (which nodes a scale-in removes),
`drain_step`, `tags`, `ownership` (autoscaled counts), `software`/`repair`/`canary` (lifecycle
steps), `basis` (what a plan was computed against, and when it no longer holds) and `expectation` (where
apply expects the cluster before each later call).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pulumi_hyperpod._lazy import lazy_exports

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.planner.basis import basis_of, fingerprint
    from pulumi_hyperpod.aws.planner.premise import stale_reasons
    from pulumi_hyperpod.aws.planner.expectation import Expectation
    from pulumi_hyperpod.aws.planner.rules import api_limits, plan

# Loaded on first use (PEP 562), as the other packages' public names.
_EXPORTS = {
    **dict.fromkeys(["basis_of", "fingerprint"], "pulumi_hyperpod.aws.planner.basis"),
    "stale_reasons": "pulumi_hyperpod.aws.planner.premise",
    "Expectation": "pulumi_hyperpod.aws.planner.expectation",
    **dict.fromkeys(["api_limits", "plan"], "pulumi_hyperpod.aws.planner.rules"),
}

__all__ = ["Expectation", "api_limits", "basis_of", "fingerprint", "plan", "stale_reasons"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
