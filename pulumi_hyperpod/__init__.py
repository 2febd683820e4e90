"""pulumi-hyperpod: declarative Amazon SageMaker HyperPod clusters.

The flow (DESIGN.md): spec → observe → plan → apply → client.
"""

from .apply import ApplyResult, apply
from .client import connect
from .observe import ClusterState, observe
from .plan import Plan, Policy, plan
from .spec import ClusterSpec, SpecError

__all__ = [
    "ApplyResult",
    "ClusterSpec",
    "ClusterState",
    "Plan",
    "Policy",
    "SpecError",
    "apply",
    "connect",
    "observe",
    "plan",
]
__version__ = "0.1.0"
