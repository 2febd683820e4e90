"""Seed 000: Slurm continuous provisioning with MinCount, from the AWS CLI's create_cluster.json.

`cluster.json` is the `aws sagemaker create-cluster --cli-input-json` file of the seed, unchanged
but for MinInstanceCount on the GPU workers: the group is InService once 8 of its 16 nodes run,
and continuous provisioning keeps trying for the other 8. `wait: MinCount` makes `pulumi up`
return at that point rather than when every node is there.

Config: backend (fake | aws, default fake), gpuWorkers (default: the file's 16), minWorkers.
"""

import pulumi

from pulumi_hyperpod import ClusterSpec
from pulumi_hyperpod.provider import Cluster

config = pulumi.Config()
spec = ClusterSpec.from_file("cluster.json").to_api()

workers = spec["InstanceGroups"][2]
workers["InstanceCount"] = config.get_int("gpuWorkers") or workers["InstanceCount"]
workers["MinInstanceCount"] = config.get_int("minWorkers") or workers["MinInstanceCount"]

cluster = Cluster(
    "training",
    spec=spec,
    backend=config.get("backend") or "fake",
    region=config.get("region"),
    wait="MinCount",
    timeout=25 * 60,
    # Never let a scale-in take more than a quarter of a group in one go.
    policy={"max_scale_in_fraction": 0.25},
)

pulumi.export("arn", cluster.arn)
pulumi.export("status", cluster.status)
pulumi.export("groups", cluster.groups)
pulumi.export("pendingNodes", cluster.pending_count)
