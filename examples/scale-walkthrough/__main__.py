"""Seed 004: the scale-out / scale-in walkthrough, as a Pulumi program.

The seed edits `InstanceCount` in update_cluster.json and runs `aws sagemaker update-cluster`;
here the count is stack config, and `pulumi preview` says what the update will do before it runs:
1 → 3 is one UpdateCluster (this cluster is all-or-nothing, not Continuous); 3 → 1 names the two
nodes BatchDeleteClusterNodes removes, and why those two (unhealthy first, then never-launched,
then the newest).

The spec is given in snake_case Python arguments (the seed's JSON would load unchanged too).
Config: computeCount (default 1), backend (default fake), protectedNodes (ids never removed).
"""

import pulumi

from pulumi_hyperpod.provider import Cluster

config = pulumi.Config()
LIFECYCLE = {"source_s3_uri": "s3://leo-stg-hyperpod-lifecycle-778c45ef/lifecycle-script-directory/src", "on_create": "on_create.sh"}
ROLE = "arn:aws:iam::640168457519:role/leo-stg-SagemakerHyperpod-Role"
STORAGE = [{"ebs_volume_config": {"volume_size_in_gb": 30}}]


def group(name: str, instance_type: str, count: int) -> dict:
    return {
        "instance_group_name": name,
        "instance_type": instance_type,
        "instance_count": count,
        "life_cycle_config": LIFECYCLE,
        "execution_role": ROLE,
        "threads_per_core": 2,
        "instance_storage_configs": STORAGE,
    }


cluster = Cluster(
    "leo-stg",
    cluster_name="scale-walkthrough",  # its own name: every example runs in the one simulated world of a reader's shell
    instance_groups=[
        group("leo-stg-head-ig", "ml.m5.large", 1),
        group("leo-stg-compute-ig", "ml.g5.xlarge", config.get_int("computeCount") or 1),
    ],
    backend=config.get("backend") or "fake",
    region=config.get("region"),
    wait="InService",
    policy={"protected_node_ids": config.get_object("protectedNodes") or []},
)

pulumi.export("status", cluster.status)
pulumi.export("groups", cluster.groups)
pulumi.export("nodeCount", cluster.node_count)
