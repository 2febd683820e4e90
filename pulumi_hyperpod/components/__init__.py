"""Components a platform team instantiates: a Slurm training cluster, an EKS cluster.

The public names are loaded on first use (PEP 562): a program declaring a SlurmCluster does not
import the EKS component, and one that only imports this package imports none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pulumi_hyperpod._lazy import lazy_exports

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.components.args import (
        ComputeGroupArgs,
        ConnectionArgs,
        InstanceGroupArgs,
        LifecycleArgs,
        SlurmClusterArgs,
        VpcArgs,
    )
    from pulumi_hyperpod.components.eks import EksCluster, EksClusterArgs, EksGroupArgs
    from pulumi_hyperpod.components.slurm import SlurmCluster

# public name → the submodule that defines it
_EXPORTS = {
    "ComputeGroupArgs": "pulumi_hyperpod.components.args",
    "ConnectionArgs": "pulumi_hyperpod.components.args",
    "EksCluster": "pulumi_hyperpod.components.eks",
    "EksClusterArgs": "pulumi_hyperpod.components.eks",  # the EKS component's own arguments are defined with it
    "EksGroupArgs": "pulumi_hyperpod.components.eks",
    "InstanceGroupArgs": "pulumi_hyperpod.components.args",
    "LifecycleArgs": "pulumi_hyperpod.components.args",
    "SlurmCluster": "pulumi_hyperpod.components.slurm",
    "SlurmClusterArgs": "pulumi_hyperpod.components.args",
    "VpcArgs": "pulumi_hyperpod.components.args",
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
