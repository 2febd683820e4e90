"""Components a platform team instantiates: a Slurm training cluster, an EKS cluster.

The public names are loaded on first use (PEP 562): a program declaring a SlurmCluster does not
import the EKS component, and one that only imports this package imports none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:  # pragma: no cover
    from .args import (
        ComputeGroupArgs,
        ConnectionArgs,
        InstanceGroupArgs,
        LifecycleArgs,
        SlurmClusterArgs,
        VpcArgs,
    )
    from .eks import EksCluster, EksClusterArgs, EksGroupArgs
    from .slurm import SlurmCluster

# public name → the submodule that defines it
_EXPORTS = {
    "ComputeGroupArgs": ".args",
    "ConnectionArgs": ".args",
    "EksCluster": ".eks",
    "EksClusterArgs": ".eks",  # the EKS component's own arguments are defined with it
    "EksGroupArgs": ".eks",
    "InstanceGroupArgs": ".args",
    "LifecycleArgs": ".args",
    "SlurmCluster": ".slurm",
    "SlurmClusterArgs": ".args",
    "VpcArgs": ".args",
}

__all__ = [
    "ComputeGroupArgs",
    "ConnectionArgs",
    "EksCluster",
    "EksClusterArgs",
    "EksGroupArgs",
    "InstanceGroupArgs",
    "LifecycleArgs",
    "SlurmCluster",
    "SlurmClusterArgs",
    "VpcArgs",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
