"""pulumi-hyperpod: declarative Amazon SageMaker HyperPod clusters.

The flow (docs/DESIGN.md, "The flow"): spec → observe → plan → apply → client.

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
    from .apply import ApplyResult, apply
    from .client import connect
    from .observe import ClusterState, observe
    from .plan import Plan, Policy, plan
    from .spec import ClusterSpec, SpecError

# public name → the submodule that defines it
_EXPORTS = {
    "ApplyResult": ".apply",
    "ClusterSpec": ".spec",
    "ClusterState": ".observe",
    "Plan": ".plan",
    "Policy": ".plan",
    "SpecError": ".spec",
    "apply": ".apply",
    "connect": ".client",
    "observe": ".observe",
    "plan": ".plan",
}
# `apply`, `observe` and `plan` are subpackages that are callable as their function (see
# `_lazy.callable_package`): `pulumi_hyperpod.plan(spec, observed, policy)` plans, and
# `import pulumi_hyperpod.plan.model` still resolves through the same name.
_CALLABLE_PACKAGES = frozenset({"apply", "observe", "plan"})

__all__ = ["ApplyResult", "ClusterSpec", "ClusterState", "Plan", "Policy", "SpecError", "apply", "connect", "observe", "plan"]
__version__ = "0.1.0"


def _export(name: str) -> Any:
    module = importlib.import_module(_EXPORTS[name], __name__)
    return module if name in _CALLABLE_PACKAGES else getattr(module, name)


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
