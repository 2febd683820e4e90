"""Issue 26's EKS cluster moved to a new ImageId (tests/lifecycle): the request and the simulated world
it is created on, planned and prepared through the pipeline."""

from __future__ import annotations

from pulumi_hyperpod import pipeline
from pulumi_hyperpod.plans import Policy
from pulumi_hyperpod.aws.spec import ClusterSpec


OLD, NEW = "ami-0123456789abcdef0", "ami-0fedcba9876543210"


ROLE = "arn:aws:iam::111122223333:role/hyperpod-execution"
LIFECYCLE = {"SourceS3Uri": "s3://amzn-s3-demo-bucket/lifecycle/", "OnCreate": "on_create.sh"}
VPC = {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-12345678"]}


def _group(name, count, node_type=None, image=OLD, **extra):
    g = {
        "InstanceGroupName": name,
        "InstanceType": "ml.g5.8xlarge",
        "InstanceCount": count,
        "ImageId": image,
        "LifeCycleConfig": dict(LIFECYCLE),
        "ExecutionRole": ROLE,
        **extra,
    }
    if node_type:
        g["SlurmConfig"] = {"NodeType": node_type}
    return g


def eks(count=8, image=OLD, **extra):
    return {
        "ClusterName": "eks8",
        "NodeProvisioningMode": "Continuous",
        "VpcConfig": VPC,
        "Orchestrator": {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/hyperpod-eks"}},
        "InstanceGroups": [_group("workers", count, image=image, **extra)],
    }


def _up(world, request):
    sim, client = world
    client.create_cluster(**request)
    sim.advance(3600)


def _prepare(world, request, policy=None):
    return pipeline.prepare(world[1], ClusterSpec.from_dict(request), policy=policy or Policy(), skip_preflight="test")
