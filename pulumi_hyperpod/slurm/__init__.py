"""The Slurm layer: one Slurm spec (seed 002), rendered for HyperPod (SlurmConfig and a lifecycle
bundle) and for GCP, and the Slurm roles the planner respects.

Names are imported on first use, so `import pulumi_hyperpod.slurm` costs nothing at Pulumi preview.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "SlurmSpec": "pulumi_hyperpod.slurm.spec",
    "SlurmSpecError": "pulumi_hyperpod.slurm.spec",
    "Partition": "pulumi_hyperpod.slurm.spec",
    "HomeStorage": "pulumi_hyperpod.slurm.spec",
    "parse_home_storage": "pulumi_hyperpod.slurm.spec",
    "reference_violations": "pulumi_hyperpod.slurm.references",
    "check_references": "pulumi_hyperpod.slurm.references",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value
