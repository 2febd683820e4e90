"""EksCluster: HyperPod on an existing EKS cluster, flexible instance groups, Karpenter autoscaling.

A flexible group lists several instance types in priority order (seed 001, InstanceRequirements);
`autoscaling=True` hands node counts to HyperPod's managed Karpenter
(AutoScaling {Mode: Enable, AutoScalerType: Karpenter}), which assumes `cluster_role_arn`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi

from pulumi_hyperpod.components.args import ConnectionArgs, InstanceGroupArgs, LifecycleArgs, VpcArgs
from pulumi_hyperpod.components.base import HyperPodComponent, group_spec, tags_spec, vpc_spec
from pulumi_hyperpod.components import support

KARPENTER = {"Mode": "Enable", "AutoScalerType": "Karpenter"}


@dataclass
class EksGroupArgs(InstanceGroupArgs):
    labels: Mapping[str, str] | None = None
    taints: Sequence[Mapping[str, str]] | None = None  # [{"Key":…, "Value":…, "Effect": "NoSchedule"}]


@dataclass
class EksClusterArgs:
    cluster_name: pulumi.Input[str]
    eks_cluster_arn: pulumi.Input[str]
    instance_groups: Sequence[EksGroupArgs]
    vpc: VpcArgs
    lifecycle: LifecycleArgs = field(default_factory=LifecycleArgs)
    execution_role_arn: pulumi.Input[str] | None = None  # None: the component creates one
    continuous: bool = True
    autoscaling: bool = False  # Karpenter: AutoScaling {Mode: Enable, AutoScalerType: Karpenter}
    cluster_role_arn: pulumi.Input[str] | None = None  # for autoscaling; None: created when needed
    node_recovery: str | None = None
    tags: Mapping[str, str] | None = None
    connection: ConnectionArgs = field(default_factory=ConnectionArgs)


class EksCluster(HyperPodComponent):
    cluster_role_arn: pulumi.Output[str] | None

    def __init__(self, name: str, args: EksClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("hyperpod:index:EksCluster", name, None, opts)
        lifecycle_uri, role_arn = self._supporting(name, args.lifecycle, args.execution_role_arn, vpc=True)
        on_create = args.lifecycle.on_create

        groups = []
        for group in args.instance_groups:
            kubernetes = {}
            if group.labels:
                kubernetes["Labels"] = dict(group.labels)
            if group.taints:
                kubernetes["Taints"] = [dict(t) for t in group.taints]
            groups.append(group_spec(group, role_arn, lifecycle_uri, on_create, KubernetesConfig=kubernetes or None))

        cluster_role = args.cluster_role_arn
        if args.autoscaling and cluster_role is None:
            cluster_role = support.autoscaling_role(name, parent=self)
        self.cluster_role_arn = pulumi.Output.from_input(cluster_role) if cluster_role is not None else None

        spec = {
            "ClusterName": args.cluster_name,
            "Orchestrator": {"Eks": {"ClusterArn": args.eks_cluster_arn}},
            "InstanceGroups": groups,
            "VpcConfig": vpc_spec(args.vpc),
            "NodeProvisioningMode": "Continuous" if args.continuous else None,
            "NodeRecovery": args.node_recovery,
            "AutoScaling": dict(KARPENTER) if args.autoscaling else None,
            "ClusterRole": cluster_role,
            "Tags": tags_spec(args.tags),
        }
        self._declare(name, spec, args.connection, role_arn, lifecycle_uri)
