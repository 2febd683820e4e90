"""SlurmCluster: a controller, an optional login group, compute groups by partition.

Continuous provisioning by default (seed 000): the controller comes up first, the cluster is
InService once it (and the login node) run, and workers short of capacity keep being retried.
"""

from __future__ import annotations

from typing import Optional

import pulumi

from .args import SlurmClusterArgs
from .base import HyperPodComponent, group_spec, tags_spec, vpc_spec


class SlurmCluster(HyperPodComponent):
    def __init__(self, name: str, args: SlurmClusterArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        super().__init__("hyperpod:index:SlurmCluster", name, None, opts)
        lifecycle_uri, role_arn = self._supporting(name, args.lifecycle, args.execution_role_arn, vpc=args.vpc is not None)
        on_create = args.lifecycle.on_create

        groups = [group_spec(args.controller, role_arn, lifecycle_uri, on_create, SlurmConfig={"NodeType": "Controller"})]
        if args.login is not None:
            groups.append(group_spec(args.login, role_arn, lifecycle_uri, on_create, SlurmConfig={"NodeType": "Login"}))
        for compute in args.compute:
            partitions = list(compute.partitions) if compute.partitions else [compute.name]
            groups.append(
                group_spec(compute, role_arn, lifecycle_uri, on_create, SlurmConfig={"NodeType": "Compute", "PartitionNames": partitions})
            )

        spec = {
            "ClusterName": args.cluster_name,
            "Orchestrator": {"Slurm": {}},
            "InstanceGroups": groups,
            "VpcConfig": vpc_spec(args.vpc),
            "NodeProvisioningMode": "Continuous" if args.continuous else None,
            "NodeRecovery": args.node_recovery,
            "Tags": tags_spec(args.tags),
        }
        self._declare(name, spec, args.connection, role_arn, lifecycle_uri)
