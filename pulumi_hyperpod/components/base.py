"""What the Slurm and EKS components share: supporting resources, group specs, the Cluster child."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi

from pulumi_hyperpod.provider.resource import Cluster, ClusterArgs
from pulumi_hyperpod.components.args import ConnectionArgs, InstanceGroupArgs, LifecycleArgs, VpcArgs


def group_spec(
    group: InstanceGroupArgs,
    role_arn: pulumi.Input[str],
    lifecycle_uri: pulumi.Input[str],
    on_create: str,
    **members: Any,
) -> dict[str, Any]:
    """One ClusterInstanceGroupSpecification (API spelling); `members` adds SlurmConfig etc."""
    spec: dict[str, Any] = {
        "InstanceGroupName": group.name,
        "InstanceCount": group.count,
        "ExecutionRole": role_arn,
        "LifeCycleConfig": {"SourceS3Uri": lifecycle_uri, "OnCreate": on_create},
    }
    if group.instance_types:
        spec["InstanceRequirements"] = {"InstanceTypes": list(group.instance_types)}
    if group.instance_type:
        spec["InstanceType"] = group.instance_type
    if group.min_count is not None:
        spec["MinInstanceCount"] = group.min_count
    if group.threads_per_core is not None:
        spec["ThreadsPerCore"] = group.threads_per_core
    if group.volume_size_gb is not None:
        spec["InstanceStorageConfigs"] = [{"EbsVolumeConfig": {"VolumeSizeInGB": group.volume_size_gb}}]
    spec.update({k: v for k, v in members.items() if v is not None})
    if group.extra:  # the service model is read only for a group that gives other members
        from pulumi_hyperpod.aws import servicemodel  # noqa: PLC0415 - not on a program's path (tests/unit/provider/test_program_lean.py)
        from pulumi_hyperpod.aws.spec.keys import to_model_keys  # noqa: PLC0415 - not on a program's path (tests/unit/provider/test_program_lean.py)

        spec.update(to_model_keys(servicemodel.shape("ClusterInstanceGroupSpecification"), dict(group.extra)))
    return spec


def vpc_spec(vpc: VpcArgs | None) -> dict[str, Any] | None:
    return None if vpc is None else {"SecurityGroupIds": vpc.security_group_ids, "Subnets": vpc.subnets}


def tags_spec(tags: Mapping[str, str] | None) -> list[dict[str, str]] | None:
    return None if not tags else [{"Key": k, "Value": v} for k, v in sorted(tags.items())]


class HyperPodComponent(pulumi.ComponentResource):
    """Base of SlurmCluster and EksCluster: children are parented to it, outputs registered."""

    cluster: Cluster
    cluster_name: pulumi.Output[str]
    arn: pulumi.Output[str]
    status: pulumi.Output[str]
    groups: pulumi.Output[dict]
    node_count: pulumi.Output[int]
    execution_role_arn: pulumi.Output[str]
    lifecycle_s3_uri: pulumi.Output[str]

    def _supporting(self, name: str, lifecycle: LifecycleArgs, execution_role_arn, vpc: bool) -> tuple[Any, Any]:
        # support (the resources made for a caller who has none) loads only when one is made
        if lifecycle.s3_uri is not None and lifecycle.scripts_dir is not None:
            raise ValueError("lifecycle: give s3_uri (scripts already in S3) or scripts_dir (uploaded for you), not both")
        if lifecycle.s3_uri is not None:
            uri = lifecycle.s3_uri
        elif lifecycle.scripts_dir is not None:
            from pulumi_hyperpod.components import support  # noqa: PLC0415 - not on a program's path (tests/unit/provider/test_program_lean.py)

            uri = support.lifecycle_bucket(name, lifecycle.scripts_dir, parent=self)
        else:
            raise ValueError("lifecycle: give s3_uri or scripts_dir (the nodes' lifecycle scripts)")
        if execution_role_arn is not None:
            return uri, execution_role_arn
        from pulumi_hyperpod.components import support  # noqa: PLC0415 - not on a program's path (tests/unit/provider/test_program_lean.py)

        return uri, support.execution_role(name, parent=self, vpc=vpc)

    def _declare(self, name: str, spec: dict[str, Any], connection: ConnectionArgs, role_arn, lifecycle_uri) -> None:
        self.cluster = Cluster(
            name,
            ClusterArgs(
                spec={k: v for k, v in spec.items() if v is not None},
                backend=connection.backend,
                region=connection.region,
                profile=connection.profile,
                policy=connection.policy,
                wait=connection.wait,
                timeout=connection.timeout,
                adopt=connection.adopt,
            ),
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.cluster_name = self.cluster.cluster_name
        self.arn = self.cluster.arn
        self.status = self.cluster.status
        self.groups = self.cluster.groups
        self.node_count = self.cluster.node_count
        self.execution_role_arn = pulumi.Output.from_input(role_arn)
        self.lifecycle_s3_uri = pulumi.Output.from_input(lifecycle_uri)
        self.register_outputs(
            {
                "cluster_name": self.cluster_name,
                "arn": self.arn,
                "status": self.status,
                "groups": self.groups,
                "node_count": self.node_count,
                "execution_role_arn": self.execution_role_arn,
                "lifecycle_s3_uri": self.lifecycle_s3_uri,
            }
        )
