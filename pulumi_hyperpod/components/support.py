"""The AWS resources a HyperPod cluster needs, created with pulumi-aws when the caller has none:
the lifecycle-scripts bucket (filled from a local folder), the nodes' execution role, and the
role HyperPod assumes for Karpenter autoscaling. Each is a child of the component.

pulumi_aws is imported inside each function: a program on the simulator makes no AWS resource
and should not pay for importing the AWS SDK (a Pulumi preview starts the program twice).
"""

from __future__ import annotations

import json
import mimetypes
from pathlib import Path
from typing import Any

import pulumi

from pulumi_hyperpod.core.extras import needed

# The managed policy a HyperPod node's execution role needs (SageMaker developer guide,
# "IAM role for SageMaker HyperPod"). It reads lifecycle scripts from buckets named sagemaker-*.
CLUSTER_INSTANCE_POLICY = "arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy"
BUCKET_PREFIX = "sagemaker-hyperpod-"
SCRIPTS_PREFIX = "lifecycle-scripts/"

# Extra permissions for a cluster attached to your VPC (network interfaces in your subnets).
_VPC_ACTIONS = [
    "ec2:AssignPrivateIpAddresses",
    "ec2:CreateNetworkInterface",
    "ec2:CreateNetworkInterfacePermission",
    "ec2:DeleteNetworkInterface",
    "ec2:DeleteNetworkInterfacePermission",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeVpcs",
    "ec2:DescribeDhcpOptions",
    "ec2:DescribeSubnets",
    "ec2:DescribeSecurityGroups",
    "ec2:DetachNetworkInterface",
    "ec2:CreateTags",
]


def _trust(service: str) -> str:
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}],
        }
    )


def lifecycle_bucket(name: str, scripts_dir: str, parent: pulumi.Resource) -> pulumi.Output[str]:
    """A bucket holding every file of `scripts_dir`; returns the S3 URI of the scripts' folder."""
    with needed("components"):
        import pulumi_aws as aws  # noqa: PLC0415 - pulumi_aws (the components extra): loaded only when the component declares a supporting resource

    folder = Path(scripts_dir)
    if not folder.is_dir():
        raise ValueError(f"lifecycle scripts folder {folder} does not exist")
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    if not files:
        raise ValueError(f"lifecycle scripts folder {folder} is empty")
    opts = pulumi.ResourceOptions(parent=parent)
    bucket = private_bucket(f"{name}-lifecycle", parent)
    for path in files:
        key = SCRIPTS_PREFIX + path.relative_to(folder).as_posix()
        aws.s3.BucketObjectv2(
            f"{name}-{key}",
            bucket=bucket.id,
            key=key,
            source=pulumi.FileAsset(str(path)),
            content_type=mimetypes.guess_type(path.name)[0] or "text/x-shellscript",
            opts=opts,
        )
    return pulumi.Output.concat("s3://", bucket.bucket, "/", SCRIPTS_PREFIX)


def execution_role(name: str, parent: pulumi.Resource, vpc: bool) -> pulumi.Output[str]:
    """The nodes' role: AmazonSageMakerClusterInstanceRolePolicy, plus the VPC permissions."""
    with needed("components"):
        import pulumi_aws as aws  # noqa: PLC0415 - pulumi_aws (the components extra): loaded only when the component declares a supporting resource

    opts = pulumi.ResourceOptions(parent=parent)
    role = aws.iam.Role(f"{name}-execution", assume_role_policy=_trust("sagemaker.amazonaws.com"), opts=opts)
    aws.iam.RolePolicyAttachment(f"{name}-execution", role=role.name, policy_arn=CLUSTER_INSTANCE_POLICY, opts=opts)
    if vpc:
        aws.iam.RolePolicy(
            f"{name}-execution-vpc",
            role=role.id,
            policy=json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": _VPC_ACTIONS, "Resource": "*"}]}),
            opts=opts,
        )
    return role.arn


def autoscaling_role(name: str, parent: pulumi.Resource) -> pulumi.Output[str]:
    """The role HyperPod assumes to add and remove nodes for Karpenter (ClusterRole)."""
    with needed("components"):
        import pulumi_aws as aws  # noqa: PLC0415 - pulumi_aws (the components extra): loaded only when the component declares a supporting resource

    opts = pulumi.ResourceOptions(parent=parent)
    role = aws.iam.Role(f"{name}-autoscaling", assume_role_policy=_trust("hyperpod.sagemaker.amazonaws.com"), opts=opts)
    aws.iam.RolePolicy(
        f"{name}-autoscaling",
        role=role.id,
        policy=json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Action": ["sagemaker:BatchAddClusterNodes", "sagemaker:BatchDeleteClusterNodes"],
                        "Resource": "arn:aws:sagemaker:*:*:cluster/*",
                        "Condition": {"StringEquals": {"aws:ResourceAccount": "${aws:PrincipalAccount}"}},
                    }
                ],
            }
        ),
        opts=opts,
    )
    return role.arn


def private_bucket(name: str, parent: pulumi.Resource) -> Any:
    """An S3 bucket named `sagemaker-hyperpod-…` (the node role's managed policy reads sagemaker-*
    buckets), emptied on destroy, with every kind of public access blocked."""
    with needed("components"):
        import pulumi_aws as aws  # noqa: PLC0415 - pulumi_aws (the components extra): loaded only when the component declares a supporting resource

    opts = pulumi.ResourceOptions(parent=parent)
    bucket = aws.s3.Bucket(name, bucket_prefix=BUCKET_PREFIX, force_destroy=True, opts=opts)
    aws.s3.BucketPublicAccessBlock(
        name,
        bucket=bucket.id,
        block_public_acls=True,
        block_public_policy=True,
        ignore_public_acls=True,
        restrict_public_buckets=True,
        opts=opts,
    )
    return bucket
