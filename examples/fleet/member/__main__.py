"""A fleet member: one small Slurm cluster, its name and worker count from the stack's config.

Every stack of examples/fleet/fleet.yaml runs this program, each in its own account and region:
`fleet apply` gives each stack's engine its region, and on the simulator its account's 12 digits as
the access key (docs/fleet.md, "Each stack's environment"). `backend="aws"` with $AWS_ENDPOINT_URL
pointing at `hyperpod fake serve` is the simulator over HTTP, as the real service would be reached.
"""

import pulumi

from pulumi_hyperpod.components import (
    ComputeGroupArgs,
    ConnectionArgs,
    InstanceGroupArgs,
    LifecycleArgs,
    SlurmCluster,
    SlurmClusterArgs,
    VpcArgs,
)

config = pulumi.Config()

cluster = SlurmCluster(
    "member",
    SlurmClusterArgs(
        cluster_name=config.require("clusterName"),
        controller=InstanceGroupArgs("controller", 1, instance_type="ml.m5.xlarge"),
        compute=[ComputeGroupArgs("workers", config.require_int("workers"), instance_type="ml.c5.xlarge", partitions=["dev"])],
        lifecycle=LifecycleArgs(s3_uri="s3://sagemaker-demo-lifecycle/lifecycle-scripts/src/"),
        execution_role_arn="arn:aws:iam::111122223333:role/demo-hyperpod-execution",
        vpc=VpcArgs(subnets=["subnet-0123456789abcdef0"], security_group_ids=["sg-0123456789abcdef0"]),
        # backend aws: the stack's AWS_ENDPOINT_URL, region and key. adopt: a create sent again (its runner
        # was killed mid-create, docs/fleet.md) takes the cluster the first one made, by name
        connection=ConnectionArgs(backend="aws", adopt=True),
    ),
)

pulumi.export("status", cluster.status)
