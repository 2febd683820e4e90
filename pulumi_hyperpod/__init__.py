"""pulumi-hyperpod: declarative Amazon SageMaker HyperPod clusters.

The flow (docs/DESIGN.md, "The flow"; docs/python-api.md):

    from pulumi_hyperpod import ClusterSpec, Policy, Simulator, connect, observe, plan, apply

    spec = ClusterSpec.from_file("cluster.json")
    client = connect(backend="fake", simulator=Simulator())   # or connect(region=..., profile=...)
    the_plan = plan(spec, observe(client, spec.name), Policy())
    result = apply(client, the_plan)

`plan`, `observe`, `apply` and `connect` are functions (HyperPod's: `pulumi_hyperpod.aws`); the
packages they come from keep their own paths (`pulumi_hyperpod.aws.planner`, `.aws.observe`,
`.aws.apply`). The Plan model is `pulumi_hyperpod.plans`; every cloud is reached through
`pulumi_hyperpod.core.cloud`.

The names load on first use (PEP 562): a Pulumi preview starts two Python processes, and the
dynamic provider's, which unpickles `provider.ClusterProvider`, should not pay for the planner,
apply (rich, deepdiff), the CLI or anything else it does not run. Module paths of the previous
release still import, with a DeprecationWarning naming the new one (`_moved.py`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pulumi_hyperpod import _moved

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws import pipeline
    from pulumi_hyperpod.aws.apply import ApplyResult, apply
    from pulumi_hyperpod.aws.client import connect
    from pulumi_hyperpod.aws.observe import ClusterState, observe
    from pulumi_hyperpod.aws.planner import plan
    from pulumi_hyperpod.aws.spec import ClusterSpec, SpecError
    from pulumi_hyperpod.core.contract import ApplyError, PlanRefused, PlanStale
    from pulumi_hyperpod.plans import Plan, Policy
    from pulumi_hyperpod.sim.aws import Simulator

# public name → the module that defines it (a name in it; "pipeline" is the module itself)
_EXPORTS = {
    "ApplyError": "pulumi_hyperpod.core.contract",
    "ApplyResult": "pulumi_hyperpod.core.contract",
    "ClusterSpec": "pulumi_hyperpod.aws.spec",
    "ClusterState": "pulumi_hyperpod.aws.observe",
    "Plan": "pulumi_hyperpod.plans",
    "PlanRefused": "pulumi_hyperpod.core.contract",
    "PlanStale": "pulumi_hyperpod.core.contract",
    "Policy": "pulumi_hyperpod.plans",
    "Simulator": "pulumi_hyperpod.sim.aws",
    "SpecError": "pulumi_hyperpod.aws.spec",
    "apply": "pulumi_hyperpod.aws.apply",
    "connect": "pulumi_hyperpod.aws.client",
    "observe": "pulumi_hyperpod.aws.observe",
    "pipeline": "pulumi_hyperpod.aws.pipeline",  # a module: pipeline.prepare (+ cost + preflight), save, load
    "plan": "pulumi_hyperpod.aws.planner",
}
_MODULES = frozenset({"pipeline"})

__all__ = [
    "ApplyError",
    "ApplyResult",
    "ClusterSpec",
    "ClusterState",
    "Plan",
    "PlanRefused",
    "PlanStale",
    "Policy",
    "Simulator",
    "SpecError",
    "apply",
    "connect",
    "observe",
    "pipeline",
    "plan",
]
__version__ = "0.1.0"

_moved.install()  # old module paths: an alias each, with its warning (a finder; nothing is loaded now)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(_EXPORTS[name])
    value = module if name in _MODULES else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
