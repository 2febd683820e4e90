"""pulumi-hyperpod: declarative Amazon SageMaker HyperPod clusters.

The flow (docs/DESIGN.md, "The flow"): spec → observe → plan → apply → client. The names below
are HyperPod's (pulumi_hyperpod.aws); every cloud is reached through pulumi_hyperpod.core.cloud.

The public names below are loaded on first use (PEP 562): a Pulumi preview starts two Python
processes, and the dynamic provider's, which unpickles `provider.ClusterProvider`, should not
pay for apply (rich, deepdiff), the CLI or anything else it does not run.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.apply import ApplyResult, apply
    from pulumi_hyperpod.aws.client import connect
    from pulumi_hyperpod.aws.observe import ClusterState, observe
    from pulumi_hyperpod.plans import Plan, Policy
    from pulumi_hyperpod.aws.spec import ClusterSpec, SpecError

# public name → the submodule that defines it
_EXPORTS = {
    "ApplyResult": "pulumi_hyperpod.aws.apply",
    "ClusterSpec": "pulumi_hyperpod.aws.spec",
    "ClusterState": "pulumi_hyperpod.aws.observe",
    "Plan": "pulumi_hyperpod.plans",
    "Policy": "pulumi_hyperpod.plans",
    "SpecError": "pulumi_hyperpod.aws.spec",
    "apply": "pulumi_hyperpod.aws.apply",
    "connect": "pulumi_hyperpod.aws.client",
    "observe": "pulumi_hyperpod.aws.observe",
    "pipeline": "pulumi_hyperpod.aws.pipeline",  # a module: pipeline.prepare, pipeline.save, …
}
# `apply` and `observe` are subpackages that are callable as their function (see
# `_lazy.callable_package`): `pulumi_hyperpod.apply(client, plan)` applies, and
# `import pulumi_hyperpod.aws.apply.waiters` still resolves through the same name.
# `pulumi_hyperpod.plans` is the neutral Plan model; HyperPod's planner is `pulumi_hyperpod.aws.planner.plan`.
_CALLABLE_PACKAGES = frozenset({"apply", "observe"})
_MODULES = frozenset({"pipeline"})

__all__ = ["ApplyResult", "ClusterSpec", "ClusterState", "Plan", "Policy", "SpecError", "apply", "connect", "observe", "pipeline"]
__version__ = "0.1.0"


def _export(name: str) -> Any:
    module = importlib.import_module(_EXPORTS[name], __name__)
    return module if name in _CALLABLE_PACKAGES | _MODULES else getattr(module, name)


class _Package(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name not in _EXPORTS:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = _export(name)
        types.ModuleType.__setattr__(self, name, value)
        return value

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(_EXPORTS))


sys.modules[__name__].__class__ = _Package
