"""A platform team's stack: every HyperPod cluster of the team, declared in one stack config.

`clusters` in Pulumi.<stack>.yaml lists them (kind slurm or eks, groups and counts); `shared`
holds what they have in common (execution role, lifecycle scripts, network). Adding a cluster is
a config change; so is resizing one, and `pulumi preview` prints the plan of each cluster that
changes. Each cluster carries its own policy: protected nodes and a scale-in ceiling.
"""

import pulumi

from pulumi_hyperpod.components import (
    ComputeGroupArgs,
    ConnectionArgs,
    EksCluster,
    EksClusterArgs,
    EksGroupArgs,
    InstanceGroupArgs,
    LifecycleArgs,
    SlurmCluster,
    SlurmClusterArgs,
    VpcArgs,
)

config = pulumi.Config()
shared = config.require_object("shared")
clusters = config.require_object("clusters")
backend = config.get("backend") or "fake"

lifecycle = LifecycleArgs(s3_uri=shared["lifecycleS3Uri"])
vpc = VpcArgs(subnets=shared["subnets"], security_group_ids=shared["securityGroups"])


def connection(entry: dict) -> ConnectionArgs:
    policy = {"max_scale_in_fraction": entry.get("maxScaleInFraction", 0.5), "protected_node_ids": entry.get("protectedNodes", [])}
    return ConnectionArgs(backend=backend, region=config.get("region"), policy=policy, timeout=20 * 60)


def group_fields(spec: dict) -> dict:
    return {
        "count": int(spec["count"]),
        "instance_type": spec.get("instanceType"),
        "instance_types": spec.get("instanceTypes"),
        "min_count": int(spec["minCount"]) if spec.get("minCount") is not None else None,
    }


def slurm(entry: dict) -> SlurmCluster:
    return SlurmCluster(
        entry["name"],
        SlurmClusterArgs(
            cluster_name=entry["name"],
            controller=InstanceGroupArgs("controller", 1, instance_type=entry.get("controllerType", "ml.m5.xlarge")),
            login=InstanceGroupArgs("login", 1, instance_type="ml.m5.xlarge") if entry.get("login") else None,
            compute=[
                ComputeGroupArgs(partition, partitions=[partition], **group_fields(spec)) for partition, spec in entry["partitions"].items()
            ],
            lifecycle=lifecycle,
            execution_role_arn=shared["executionRoleArn"],
            vpc=vpc,
            connection=connection(entry),
        ),
    )


def eks(entry: dict) -> EksCluster:
    return EksCluster(
        entry["name"],
        EksClusterArgs(
            cluster_name=entry["name"],
            eks_cluster_arn=entry["eksClusterArn"],
            instance_groups=[EksGroupArgs(name, **group_fields(spec)) for name, spec in entry["groups"].items()],
            vpc=vpc,
            lifecycle=lifecycle,
            execution_role_arn=shared["executionRoleArn"],
            autoscaling=entry.get("autoscaling", False),
            cluster_role_arn=entry.get("clusterRoleArn"),
            connection=connection(entry),
        ),
    )


declared = {entry["name"]: (slurm if entry["kind"] == "slurm" else eks)(entry) for entry in clusters}
pulumi.export("clusters", {name: {"arn": c.arn, "status": c.status, "nodes": c.node_count} for name, c in declared.items()})
