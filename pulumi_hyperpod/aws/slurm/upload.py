"""Put a rendered lifecycle bundle into S3 through a boto3 `s3` client (AWS or the simulator)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from pulumi_hyperpod.aws.slurm.roles import split_s3_uri
from botocore.exceptions import ClientError

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.clients import S3Client


def bundle_uri(bucket: str, prefix: str) -> str:
    return f"s3://{bucket}/{prefix.strip('/')}/" if prefix.strip("/") else f"s3://{bucket}/"


def upload_bundle(s3_client: S3Client, files: Mapping[str, bytes], uri: str, *, create_bucket: bool = False) -> list[str]:
    """PutObject every file under `uri` (s3://bucket/prefix/); returns the keys written.

    `create_bucket` makes the bucket first when it does not exist (the simulator path; on AWS the
    component creates it with pulumi-aws).
    """
    bucket, prefix = split_s3_uri(uri)
    prefix = prefix.strip("/")
    if create_bucket:
        try:
            s3_client.head_bucket(Bucket=bucket)
        except ClientError:
            region = s3_client.meta.region_name
            config = {} if region == "us-east-1" else {"CreateBucketConfiguration": {"LocationConstraint": region}}
            s3_client.create_bucket(Bucket=bucket, **config)
    keys = []
    for path, content in sorted(files.items()):
        key = f"{prefix}/{path}" if prefix else path
        s3_client.put_object(Bucket=bucket, Key=key, Body=content)
        keys.append(key)
    return keys
