"""Seed 001: an EKS-orchestrated HyperPod cluster with a flexible instance group.

The flexible group lists three instance types in priority order (InstanceRequirements): the
service provisions p5 first and falls back to p4d, then g6. With `autoscaling: true` HyperPod's
managed Karpenter sizes the groups (AutoScaling {Mode: Enable, AutoScalerType: Karpenter}) and
the component creates the role Karpenter's HyperPod integration assumes.

Config: backend (default fake), eksClusterArn, flexibleCount (default 10), autoscaling (default
false), createRoles (default false: use the literal ARNs below; true: create them with pulumi-aws),
lifecycleScriptsDir (upload a local folder to a new bucket instead of the literal S3 URI).
"""

import pulumi

from pulumi_hyperpod.components import (
    ConnectionArgs,
    EksCluster,
    EksClusterArgs,
    EksGroupArgs,
    LifecycleArgs,
    VpcArgs,
)

config = pulumi.Config()
create_roles = config.get_bool("createRoles") or False
scripts_dir = config.get("lifecycleScriptsDir")

cluster = EksCluster(
    "inference",
    EksClusterArgs(
        cluster_name=config.get("clusterName") or "hp-eks-flexible",
        eks_cluster_arn=config.get("eksClusterArn") or "arn:aws:eks:us-west-2:111122223333:cluster/ml-platform",
        instance_groups=[
            EksGroupArgs(
                "flexible-ig",
                config.get_int("flexibleCount") or 10,
                instance_types=["ml.p5.48xlarge", "ml.p4d.24xlarge", "ml.g6.48xlarge"],
                labels={"workload": "inference"},
            ),
            EksGroupArgs("system", 2, instance_type="ml.c5.2xlarge", threads_per_core=1),
        ],
        vpc=VpcArgs(subnets=["subnet-0aaa1111", "subnet-0bbb2222"], security_group_ids=["sg-12345678"]),
        lifecycle=LifecycleArgs(
            s3_uri=None if scripts_dir else "s3://amzn-s3-demo-bucket/lifecycle-scripts/",
            scripts_dir=scripts_dir,
            on_create="on_create_noop.sh",
        ),
        execution_role_arn=None if create_roles else "arn:aws:iam::111122223333:role/hyperpod-execution",
        autoscaling=config.get_bool("autoscaling") or False,
        cluster_role_arn=None if create_roles else "arn:aws:iam::111122223333:role/hyperpod-karpenter",
        connection=ConnectionArgs(backend=config.get("backend") or "fake", region=config.get("region")),
    ),
)

pulumi.export("arn", cluster.arn)
pulumi.export("status", cluster.status)
pulumi.export("groups", cluster.groups)
