"""HyperPod task governance as declared resources: a compute quota (CreateComputeQuota's request) or
the cluster's scheduler configuration (CreateClusterSchedulerConfig's), planned and applied like a
cluster (docs/capacity.md, "Task governance"): `spec` (the document, checked against botocore's
model), `observe` (reads), `planner` (pure), `apply` (the premise read again, the call, the wait).

`prepare(client, spec)` is the plan made from the resource as it is now; `execute` applies it.
"""

from __future__ import annotations

from typing import Any

from pulumi_hyperpod.aws.governance import observe, planner
from pulumi_hyperpod.aws.governance.apply import apply as execute
from pulumi_hyperpod.aws.governance.spec import GovernanceSpec, GovernanceSpecError, from_dict, kind_of, load
from pulumi_hyperpod.plans.model import Plan

__all__ = ["GovernanceSpec", "GovernanceSpecError", "execute", "from_dict", "kind_of", "load", "prepare"]


def prepare(client: Any, spec: GovernanceSpec, *, delete: bool = False) -> Plan:
    """The plan of `spec` (of its deletion with `delete`) against what the account has now."""
    return planner.plan(spec, observe.read(client, spec), delete=delete)
