"""The demo stack: a small Slurm cluster on the HyperPod simulator (backend "fake").

Runs offline: the cluster lives in the simulator's persistent world (.hyperpod/fake.sqlite, shared
with the `hyperpod` CLI), and the lifecycle-scripts URI and execution role are plain literals, so
no AWS resource is created. Try:

    pulumi up --yes                           # controller + 1 worker
    pulumi config set workerCount 3           # then `pulumi preview`: the scale-out plan; `pulumi up --yes`: 3 workers running
    pulumi config set workerCount 1           # then `pulumi preview`: which nodes would go, and why
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
workers = config.get_int("workerCount")
workers = 1 if workers is None else workers

cluster = SlurmCluster(
    "demo",
    SlurmClusterArgs(
        cluster_name=config.get("clusterName") or "demo-cluster",
        controller=InstanceGroupArgs("controller", 1, instance_type="ml.m5.xlarge"),
        compute=[ComputeGroupArgs("workers", workers, instance_type="ml.g5.xlarge", partitions=["dev"])],
        lifecycle=LifecycleArgs(s3_uri="s3://sagemaker-demo-lifecycle/lifecycle-scripts/src/"),
        execution_role_arn="arn:aws:iam::111122223333:role/demo-hyperpod-execution",
        vpc=VpcArgs(subnets=["subnet-0123456789abcdef0"], security_group_ids=["sg-0123456789abcdef0"]),
        # Target: `pulumi up` returns once every worker runs (seconds on the simulator, whose clock
        # runs fast while a client waits); stack config `wait` chooses another
        connection=ConnectionArgs(backend="fake", wait=config.get("wait") or "Target"),
    ),
)

pulumi.export("arn", cluster.arn)
pulumi.export("status", cluster.status)
pulumi.export("groups", cluster.groups)
pulumi.export("nodeCount", cluster.node_count)
