"""Components a platform team instantiates: a Slurm training cluster, an EKS cluster."""

from .args import (
    ComputeGroupArgs,
    ConnectionArgs,
    EksClusterArgs,
    EksGroupArgs,
    InstanceGroupArgs,
    LifecycleArgs,
    SlurmClusterArgs,
    VpcArgs,
)
from .eks import EksCluster
from .slurm import SlurmCluster

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
