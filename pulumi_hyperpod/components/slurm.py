"""SlurmCluster: a controller, an optional login group, compute groups by partition.

Continuous provisioning by default (seed 000): the controller comes up first, the cluster is
InService once it (and the login node) run, and workers short of capacity keep being retried.

With a Slurm spec (`SlurmClusterArgs.slurm`, seed 002) the spec decides the partitions, the
default partition, the shared home, the slurm.conf parameters and the job prolog/epilog: the
component renders it for HyperPod (pulumi_hyperpod.aws.slurm.render), uploads the lifecycle bundle
under a content-addressed prefix — pulumi-aws objects on AWS, the simulator's S3 through boto3 on
the simulator — and points every group's LifeCycleConfig at it. `lifecycle.scripts_dir` then names
lifecycle scripts the bundle builds on (e.g. aws-samples' base-config; their on_create.sh runs first).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pulumi

from pulumi_hyperpod.components.args import SlurmClusterArgs
from pulumi_hyperpod.components.base import HyperPodComponent, group_spec, tags_spec, vpc_spec


class SlurmCluster(HyperPodComponent):
    def __init__(self, name: str, args: SlurmClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("hyperpod:index:SlurmCluster", name, None, opts)
        if args.slurm is not None:
            self._with_slurm_spec(name, args)
            return
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
        self._declare(name, self._cluster_spec(args, groups), args.connection, role_arn, lifecycle_uri)

    @staticmethod
    def _cluster_spec(args: SlurmClusterArgs, groups: list) -> dict:
        return {
            "ClusterName": args.cluster_name,
            "Orchestrator": {"Slurm": {}},
            "InstanceGroups": groups,
            "VpcConfig": vpc_spec(args.vpc),
            "NodeProvisioningMode": "Continuous" if args.continuous else None,
            "NodeRecovery": args.node_recovery,
            "Tags": tags_spec(args.tags),
        }

    def _with_slurm_spec(self, name: str, args: SlurmClusterArgs) -> None:
        from pulumi_hyperpod.aws.slurm.render import ON_CREATE, render_hyperpod  # noqa: PLC0415 - not on a program's path (tests/unit/provider/test_program_lean.py)
        from pulumi_hyperpod.components import bundle, support  # noqa: PLC0415 - not on a program's path (tests/unit/provider/test_program_lean.py)

        if args.lifecycle.s3_uri is not None:
            raise ValueError(
                "lifecycle: with a Slurm spec the component writes and uploads the lifecycle bundle itself; "
                "leave lifecycle.s3_uri unset (lifecycle.scripts_dir: scripts the bundle builds on)"
            )
        slurm = _slurm_spec(args)
        rendering = render_hyperpod(_skeleton(args), slurm, source=f"SlurmCluster {name}", base_dir=args.lifecycle.scripts_dir)
        if (args.connection.backend or "aws") == "fake":
            lifecycle_uri = bundle.simulator_bundle(name, rendering.files, rendering.prefix, args.connection, parent=self)
        else:
            lifecycle_uri = bundle.aws_bundle(name, rendering.files, rendering.prefix, parent=self)
        role_arn = (
            args.execution_role_arn
            if args.execution_role_arn is not None
            else support.execution_role(name, parent=self, vpc=args.vpc is not None)
        )
        groups = []
        for group in [args.controller, *([args.login] if args.login else []), *args.compute]:
            role = rendering.roles[group.name]
            config: dict[str, Any] = {"NodeType": role.node_type}
            if role.partition:
                config["PartitionNames"] = [role.partition]
            slurm_config = config if rendering.mode == "SlurmConfig" else None
            groups.append(group_spec(group, role_arn, lifecycle_uri, ON_CREATE, SlurmConfig=slurm_config))
        self.slurm_bundle_digest = rendering.digest
        self._declare(name, self._cluster_spec(args, groups), args.connection, role_arn, lifecycle_uri)


def _slurm_spec(args: SlurmClusterArgs):
    """The Slurm spec, with the controller and login groups named from the component's own."""
    from pulumi_hyperpod.aws.slurm.hyperpod import partition_names  # noqa: PLC0415 - not on a program's path (tests/unit/provider/test_program_lean.py)
    from pulumi_hyperpod.slurm.spec import SlurmSpec  # noqa: PLC0415 - not on a program's path (tests/unit/provider/test_program_lean.py)

    names = partition_names()
    given = args.slurm
    if isinstance(given, (str, Path)):
        slurm = SlurmSpec.from_file(given, partition_names=names)
    elif isinstance(given, SlurmSpec):
        slurm = given
    else:
        slurm = SlurmSpec.from_dict(given, source="SlurmClusterArgs.slurm", partition_names=names)
    updates: dict[str, Any] = {}
    if slurm.controller_node_pool_id is None:
        updates["controller_node_pool_id"] = args.controller.name
    elif slurm.controller_node_pool_id != args.controller.name:
        raise ValueError(
            f"slurm.controller_node_pool_id is {slurm.controller_node_pool_id!r} but the controller group is {args.controller.name!r}"
        )
    login = args.login.name if args.login is not None else None
    if slurm.login_node_pool_id is None and login is not None:
        updates["login_node_pool_id"] = login
    elif slurm.login_node_pool_id != login:
        raise ValueError(f"slurm.login_node_pool_id is {slurm.login_node_pool_id!r} but the login group is {login!r}")
    for compute in args.compute:
        if compute.partitions and tuple(compute.partitions) != slurm.partitions_of(compute.name):
            raise ValueError(
                f"compute group {compute.name!r}: partitions {list(compute.partitions)} disagree with the Slurm "
                f"spec ({list(slurm.partitions_of(compute.name))}); give partitions in one place"
            )
    return SlurmSpec.from_dict({**slurm.to_dict(), **updates}, partition_names=names) if updates else slurm


def _skeleton(args: SlurmClusterArgs) -> dict:
    """The cluster as far as the Slurm checks need it: group names, the mode. Counts, types and
    roles may still be unknown (Pulumi Inputs) here and do not change the bundle."""
    names = [args.controller.name, *([args.login.name] if args.login else []), *(c.name for c in args.compute)]
    groups = [
        {
            "InstanceGroupName": n,
            "InstanceType": "ml.m5.xlarge",
            "InstanceCount": 1,
            "ExecutionRole": "arn:aws:iam::000000000000:role/placeholder",
        }
        for n in names
    ]
    request = {"ClusterName": "skeleton", "Orchestrator": {"Slurm": {}}, "InstanceGroups": groups}
    if args.continuous:
        request["NodeProvisioningMode"] = "Continuous"
    return request
