"""pulumi-hyperpod: declarative Amazon SageMaker HyperPod clusters.

The flow (DESIGN.md): spec → observe → plan → apply → client.

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
# Functions named like the subpackage that defines them: `pulumi_hyperpod.plan` is the function
# (as when this file imported it eagerly), even after the subpackage `pulumi_hyperpod.plan` is
# imported: the import system then sets the parent's attribute to the subpackage, which is not
# kept (the function is looked up on first access, so `apply.waiters` does not load the executor).
_SHADOWED = frozenset({"apply", "observe", "plan"})

__all__ = ["ApplyResult", "ClusterSpec", "ClusterState", "Plan", "Policy", "SpecError", "apply", "connect", "observe", "plan"]
__version__ = "0.1.0"


def _export(name: str) -> Any:
    return getattr(importlib.import_module(_EXPORTS[name], __name__), name)


class _Package(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name not in _EXPORTS:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = _export(name)
        types.ModuleType.__setattr__(self, name, value)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _SHADOWED and isinstance(value, types.ModuleType) and value.__name__ == f"{__name__}.{name}":
            self.__dict__.pop(name, None)  # the function is resolved on first access, not now
            return
        types.ModuleType.__setattr__(self, name, value)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(_EXPORTS))


sys.modules[__name__].__class__ = _Package
