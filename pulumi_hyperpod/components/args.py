"""Typed arguments of the components: the words a platform team uses, not the API's nesting.

The EKS component's own arguments (EksClusterArgs, EksGroupArgs) are defined with it in eks.py: a
program declaring a Slurm cluster does not build them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi


@dataclass(slots=True)
class InstanceGroupArgs:
    """One instance group. Give `instance_type` (a fixed group) or `instance_types` (a flexible
    group: provisioning tries them in this order, seed 001)."""

    name: str
    count: pulumi.Input[int] = 1
    instance_type: str | None = None
    instance_types: Sequence[str] | None = None
    min_count: pulumi.Input[int] | None = None  # MinInstanceCount (Continuous mode only)
    threads_per_core: int | None = None
    volume_size_gb: int | None = None  # an extra EBS volume per node
    extra: Mapping[str, Any] | None = None  # any other group member, in API or snake_case spelling


@dataclass(slots=True)
class ComputeGroupArgs(InstanceGroupArgs):
    """A Slurm compute group and the partitions its nodes join (default: one named after it)."""

    partitions: Sequence[str] | None = None


@dataclass(slots=True)
class VpcArgs:
    subnets: pulumi.Input[Sequence[pulumi.Input[str]]]
    security_group_ids: pulumi.Input[Sequence[pulumi.Input[str]]]


@dataclass(slots=True)
class LifecycleArgs:
    """Where the nodes' lifecycle scripts are: an existing `s3_uri`, or a local `scripts_dir` that
    the component uploads to a bucket it creates (pulumi-aws)."""

    s3_uri: pulumi.Input[str] | None = None
    scripts_dir: str | None = None
    on_create: str = "on_create.sh"


@dataclass(slots=True)
class ConnectionArgs:
    """How the provider reaches the cluster and how long it waits (see docs/provider.md)."""

    backend: str | None = None  # "aws" (default) or "fake"
    region: str | None = None
    profile: str | None = None
    policy: Any | None = None  # Policy or dict
    wait: str | None = None
    timeout: float | None = None
    adopt: bool | None = None


@dataclass(slots=True)
class SlurmClusterArgs:
    cluster_name: pulumi.Input[str]
    controller: InstanceGroupArgs
    compute: Sequence[ComputeGroupArgs]
    login: InstanceGroupArgs | None = None
    lifecycle: LifecycleArgs = field(default_factory=LifecycleArgs)
    execution_role_arn: pulumi.Input[str] | None = None  # None: the component creates one
    vpc: VpcArgs | None = None
    continuous: bool = True
    node_recovery: str | None = None  # "Automatic" | "None"
    tags: Mapping[str, str] | None = None
    connection: ConnectionArgs = field(default_factory=ConnectionArgs)
    # The Slurm spec (seed 002: partitions, login pool, shared home, slurm.conf, prolog/epilog): a
    # SlurmSpec, its dict, or a JSON/YAML file path. Given, it decides the partitions and the
    # component uploads its lifecycle bundle (`lifecycle` must then be left empty).
    slurm: Any | None = None


def __getattr__(name: str) -> Any:
    """`components.args.EksClusterArgs` and `EksGroupArgs` still resolve (PEP 562)."""
    if name in ("EksClusterArgs", "EksGroupArgs"):
        from pulumi_hyperpod.components import eks  # noqa: PLC0415 - the EKS argument classes' old path, for programs written against it

        return getattr(eks, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
