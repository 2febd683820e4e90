"""Policy members one cloud defines, and the cloud's check of each (docs/DESIGN.md, "Layers").

The Policy (plans/policy.py) is one model for every cloud, so it carries a member only one cloud
uses — HyperPod's `software_deployment`, an UpdateClusterSoftware DeploymentConfig — but it does not
check it: the cloud that defines the member does, against its own service model. Each check is named
here as "module:function", as the cloud registry (core/cloud.py) names each cloud's module, so the core
and the Plan model import no cloud, and a check is loaded only when its member is set.

Each cloud's section of the Policy (the members only it reads; the rest are the Policy's `NEUTRAL`
members, which every cloud honours) is named here the same way (`SECTIONS`): the cloud's typed view
of its members, loaded only by what reads it.
"""

from __future__ import annotations

import importlib
from typing import Any
from collections.abc import Callable

# Policy member → "module:function" that checks a value of it: returns the value, or raises ValueError
# with the rule (pydantic reports it on the member's path, as for any other field)
CHECKS: dict[str, str] = {
    "software_deployment": "pulumi_hyperpod.aws.planner.policy_members:software_deployment",
}

# cloud → "module:class" of its section of the Policy: a frozen dataclass whose fields are its members
SECTIONS: dict[str, str] = {
    "aws": "pulumi_hyperpod.aws.planner.policy:AwsPolicy",
}


def _load(where: str) -> Any:
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(module), name)


def section(cloud: str) -> type:
    """The class of `cloud`'s section of the Policy."""
    found: type = _load(SECTIONS[cloud])
    return found


def checker(member: str) -> Callable[[Any], Any]:
    found: Callable[[Any], Any] = _load(CHECKS[member])
    return found


def check(member: str, value: Any) -> Any:
    """`value` for the Policy's `member` as its cloud's check accepts it (ValueError when it does not)."""
    return checker(member)(value)
