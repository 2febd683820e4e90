"""Typed arguments of the components: the words a platform team uses, not the API's nesting."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

import pulumi


@dataclass
class InstanceGroupArgs:
    """One instance group. Give `instance_type` (a fixed group) or `instance_types` (a flexible
    group: provisioning tries them in this order, seed 001)."""

    name: str
    count: pulumi.Input[int] = 1
    instance_type: Optional[str] = None
    instance_types: Optional[Sequence[str]] = None
    min_count: Optional[pulumi.Input[int]] = None  # MinInstanceCount (Continuous mode only)
    threads_per_core: Optional[int] = None
    volume_size_gb: Optional[int] = None  # an extra EBS volume per node
    extra: Optional[Mapping[str, Any]] = None  # any other group member, in API or snake_case spelling


@dataclass
class ComputeGroupArgs(InstanceGroupArgs):
    """A Slurm compute group and the partitions its nodes join (default: one named after it)."""

    partitions: Optional[Sequence[str]] = None


@dataclass
class EksGroupArgs(InstanceGroupArgs):
    labels: Optional[Mapping[str, str]] = None
    taints: Optional[Sequence[Mapping[str, str]]] = None  # [{"Key":…, "Value":…, "Effect": "NoSchedule"}]


@dataclass
class VpcArgs:
    subnets: pulumi.Input[Sequence[pulumi.Input[str]]]
    security_group_ids: pulumi.Input[Sequence[pulumi.Input[str]]]


@dataclass
class LifecycleArgs:
    """Where the nodes' lifecycle scripts are: an existing `s3_uri`, or a local `scripts_dir` that
    the component uploads to a bucket it creates (pulumi-aws)."""

    s3_uri: Optional[pulumi.Input[str]] = None
    scripts_dir: Optional[str] = None
    on_create: str = "on_create.sh"


@dataclass
class ConnectionArgs:
    """How the provider reaches the cluster and how long it waits (see docs/provider.md)."""

    backend: Optional[str] = None  # "aws" (default) or "fake"
    region: Optional[str] = None
    profile: Optional[str] = None
    policy: Optional[Any] = None  # Policy or dict
    wait: Optional[str] = None
    timeout: Optional[float] = None
    adopt: Optional[bool] = None


@dataclass
class SlurmClusterArgs:
    cluster_name: pulumi.Input[str]
    controller: InstanceGroupArgs
    compute: Sequence[ComputeGroupArgs]
    login: Optional[InstanceGroupArgs] = None
    lifecycle: LifecycleArgs = field(default_factory=LifecycleArgs)
    execution_role_arn: Optional[pulumi.Input[str]] = None  # None: the component creates one
    vpc: Optional[VpcArgs] = None
    continuous: bool = True
    node_recovery: Optional[str] = None  # "Automatic" | "None"
    tags: Optional[Mapping[str, str]] = None
    connection: ConnectionArgs = field(default_factory=ConnectionArgs)


@dataclass
class EksClusterArgs:
    cluster_name: pulumi.Input[str]
    eks_cluster_arn: pulumi.Input[str]
    instance_groups: Sequence[EksGroupArgs]
    vpc: VpcArgs
    lifecycle: LifecycleArgs = field(default_factory=LifecycleArgs)
    execution_role_arn: Optional[pulumi.Input[str]] = None  # None: the component creates one
    continuous: bool = True
    autoscaling: bool = False  # Karpenter: AutoScaling {Mode: Enable, AutoScalerType: Karpenter}
    cluster_role_arn: Optional[pulumi.Input[str]] = None  # for autoscaling; None: created when needed
    node_recovery: Optional[str] = None
    tags: Optional[Mapping[str, str]] = None
    connection: ConnectionArgs = field(default_factory=ConnectionArgs)
