"""Seed 002's Slurm spec on SageMaker HyperPod: one partition `a4`, a login pool, a shared home,
accounting / multifactor priority / partition preemption in slurm.conf, two prologs, one epilog.

`slurm.json` is the seed's `slurmSpec` block unchanged, except for what HyperPod needs in place of
the GCP service: the controller group (`controller_node_pool_id`) and an FSx for Lustre file system
for /home instead of a Filestore instance. The SlurmCluster component renders it for HyperPod —
SlurmConfig on every group, a lifecycle bundle (provisioning_parameters.json, the slurm.conf
include, the prolog/epilog scripts and the hook that installs them) uploaded under a
content-addressed prefix — and points every group's LifeCycleConfig at the bundle.

Config: backend (fake | aws, default fake), region, a4Nodes (default 2), executionRoleArn
(default: the role the component creates; required with backend fake so nothing is made in AWS).
"""

import pulumi

from pulumi_hyperpod.components import (
    ComputeGroupArgs,
    ConnectionArgs,
    InstanceGroupArgs,
    SlurmCluster,
    SlurmClusterArgs,
)

config = pulumi.Config()
backend = config.get("backend") or "fake"
role = config.get("executionRoleArn") or ("arn:aws:iam::111122223333:role/iam-role-for-cluster" if backend == "fake" else None)

cluster = SlurmCluster(
    "a4-training",
    SlurmClusterArgs(
        cluster_name="a4-training",
        controller=InstanceGroupArgs("controller", 1, instance_type="ml.m5.xlarge"),
        login=InstanceGroupArgs("login", 1, instance_type="ml.m5.xlarge"),
        compute=[ComputeGroupArgs("a4", config.get_int("a4Nodes") or 2, instance_type="ml.p6-b200.48xlarge")],
        slurm="slurm.json",
        execution_role_arn=role,
        connection=ConnectionArgs(backend=backend, region=config.get("region"), wait="InService", timeout=20 * 60),
    ),
)

pulumi.export("arn", cluster.arn)
pulumi.export("status", cluster.status)
pulumi.export("groups", cluster.groups)
pulumi.export("lifecycleS3Uri", cluster.lifecycle_s3_uri)
