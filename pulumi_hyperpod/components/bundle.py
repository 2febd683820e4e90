"""The Slurm lifecycle bundle in S3, as Pulumi resources, under a content-addressed prefix.

On AWS: a bucket (pulumi-aws, private) and one BucketObjectv2 per bundle file, keyed
`slurm-bundles/<digest>/<path>` — a changed Slurm spec is a new prefix, so the cluster moves to it
in one UpdateCluster and running nodes are never handed a half-written bundle. pulumi_aws is
imported only here, only when these resources are made.

On the simulator: a small dynamic resource puts the same files through a boto3 `s3` client, which
the simulator answers (fake/s3.py) — the path `hyperpod sinfo` and the roles readers then read.
Its state holds the file contents, the bucket and the backend's name, never a client or credential.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any

import pulumi
from pulumi.dynamic import CreateResult, DiffResult, ResourceProvider, UpdateResult

from pulumi_hyperpod.components.support import BUCKET_PREFIX, private_bucket  # the node role's managed policy reads sagemaker-* buckets
from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.aws.slurm.upload import upload_bundle
from pulumi_hyperpod.core.extras import needed


def simulator_bucket_name(name: str) -> str:
    slug = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-") or "cluster"
    return (BUCKET_PREFIX + slug)[:63].rstrip("-")


class _BundleUploadProvider(ResourceProvider):
    """create/update: PutObject every file under `uri`; delete keeps them (see `delete`)."""

    serialize_as_secret_always = False

    def create(self, inputs: dict[str, Any]) -> CreateResult:
        _upload(inputs)
        return CreateResult(id_=inputs["uri"], outs=dict(inputs))

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        keys = ("uri", "files", "backend", "region", "profile")
        changed = any(olds.get(key) != news.get(key) for key in keys)
        return DiffResult(changes=changed, replaces=["uri"] if olds.get("uri") != news.get("uri") else [], delete_before_replace=False)

    def update(self, _id: str, _olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        _upload(news)
        return UpdateResult(outs=dict(news))

    def delete(self, _id: str, props: dict[str, Any]) -> None:
        """Keep the objects. A replaced bundle is the one the running nodes were built from (the
        simulator reads the controller's slurm.conf settings from it), and a content-addressed
        prefix is never reused; `hyperpod fake reset` clears the simulator's S3 with its world."""


def _client(props: Mapping[str, Any]) -> Any:
    return connect(props.get("backend") or "aws", props.get("region"), props.get("profile"), service="s3")


def _upload(inputs: Mapping[str, Any]) -> None:
    files = {path: base64.b64decode(content) for path, content in inputs["files"].items()}
    upload_bundle(_client(inputs), files, inputs["uri"], create_bucket=True)


class BundleUpload(pulumi.dynamic.Resource, module="hyperpod", name="LifecycleBundle"):
    """The bundle's files in the simulator's S3 (or any S3 a boto3 client reaches)."""

    uri: pulumi.Output[str]

    def __init__(
        self,
        name: str,
        files: Mapping[str, bytes],
        uri: str,
        backend: str,
        region: str | None,
        profile: str | None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        props = {
            "uri": uri,
            "files": {path: base64.b64encode(content).decode() for path, content in sorted(files.items())},
            "backend": backend,
            "region": region,
            "profile": profile,
        }
        super().__init__(_BundleUploadProvider(), name, props, opts)


def simulator_bundle(name: str, files: Mapping[str, bytes], prefix: str, connection: Any, parent: pulumi.Resource) -> pulumi.Output[str]:
    uri = f"s3://{simulator_bucket_name(name)}/{prefix}"
    upload = BundleUpload(
        f"{name}-slurm-bundle", files, uri, "fake", connection.region, connection.profile, opts=pulumi.ResourceOptions(parent=parent)
    )
    return upload.uri


def aws_bundle(name: str, files: Mapping[str, bytes], prefix: str, parent: pulumi.Resource) -> pulumi.Output[str]:
    with needed("components"):
        import pulumi_aws as aws  # noqa: PLC0415 - pulumi_aws (the components extra): loaded only when the component declares a supporting resource

    opts = pulumi.ResourceOptions(parent=parent)
    bucket = private_bucket(f"{name}-slurm-bundle", parent)
    objects = []
    for path, content in sorted(files.items()):
        # One resource per file path; its key carries the digest, so a new bundle replaces the
        # objects (created before the old ones go, Pulumi's default) under a new prefix.
        objects.append(
            aws.s3.BucketObjectv2(
                f"{name}-slurm-{path}",
                bucket=bucket.id,
                key=prefix + path,
                content_base64=base64.b64encode(content).decode(),
                content_type="application/json" if path.endswith(".json") else "text/plain",
                opts=opts,
            )
        )
    # The URI resolves only once every object is written, so the cluster is never pointed at a
    # bundle still being uploaded.
    return pulumi.Output.all(bucket.bucket, *[o.id for o in objects]).apply(lambda values: f"s3://{values[0]}/{prefix}")
