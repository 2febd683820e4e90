"""The Slurm layer: one Slurm spec (seed 002), rendered for HyperPod (SlurmConfig and a lifecycle
bundle) and for GCP, and the Slurm roles the planner respects.

Names are imported on first use, so `import pulumi_hyperpod.slurm` costs nothing at Pulumi preview.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "SlurmSpec": ".spec",
    "SlurmSpecError": ".spec",
    "Partition": ".spec",
    "HomeStorage": ".spec",
    "parse_home_storage": ".spec",
    "reference_violations": ".references",
    "check_references": ".references",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value
