"""Shared builders for the Slurm tests: the example's specs and small cluster specs."""

from __future__ import annotations

import json
from tests.support.paths import REPO
from pulumi_hyperpod.slurm import SlurmSpec
from pulumi_hyperpod.aws.slurm.hyperpod import partition_names
from pulumi_hyperpod.aws.slurm.render import render_hyperpod
from pulumi_hyperpod.aws.slurm.upload import upload_bundle

ROOT = REPO
EXAMPLE = ROOT / "examples" / "slurm-training-cluster"
ROLE = "arn:aws:iam::111122223333:role/iam-role-for-cluster"


def example_cluster() -> dict:
    return json.loads((EXAMPLE / "cluster.json").read_text())


def example_slurm() -> dict:
    return json.loads((EXAMPLE / "slurm.json").read_text())


def group(name: str, count: int = 1, instance_type: str = "ml.m5.xlarge", uri: str = "s3://bucket/lifecycle/", **extra) -> dict:
    return {
        "InstanceGroupName": name,
        "InstanceType": instance_type,
        "InstanceCount": count,
        "ExecutionRole": ROLE,
        "LifeCycleConfig": {"SourceS3Uri": uri, "OnCreate": "on_create.sh"},
        **extra,
    }


def legacy_cluster(name: str = "legacy", uri: str = "s3://bucket/lifecycle/", counts=(1, 1, 2)) -> dict:
    """A Slurm cluster whose roles are only in provisioning_parameters.json (the base-config names)."""
    return {
        "ClusterName": name,
        "InstanceGroups": [
            group("login-group", counts[0], uri=uri),
            group("controller-machine", counts[1], uri=uri),
            group("worker-group-1", counts[2], "ml.g5.xlarge", uri=uri),
        ],
    }


LEGACY_PARAMS = {
    "version": "1.0.0",
    "workload_manager": "slurm",
    "controller_group": "controller-machine",
    "login_group": "login-group",
    "worker_groups": [{"instance_group_name": "worker-group-1", "partition_name": "partition-1"}],
}


def spec(**changes) -> SlurmSpec:
    return SlurmSpec.from_dict({**example_slurm(), **changes}, partition_names=partition_names())


def config(**changes) -> dict:
    return {**example_slurm()["config"], **changes}


def _running_example_with_its_bundle(tmp_path, monkeypatch):
    """The example cluster running on a persistent simulator world, its bundle uploaded to the
    simulator's S3 under its LifeCycleConfig; returns the rendering."""
    from pulumi_hyperpod.aws.client import connect
    from pulumi_hyperpod.sim.aws import Simulator
    from pulumi_hyperpod.aws.slurm.render import render_hyperpod
    from pulumi_hyperpod.aws.slurm.upload import upload_bundle
    from tests.support.cli import use_fake_world

    use_fake_world(monkeypatch, tmp_path)
    sim = Simulator.open_default()
    uri = "s3://bundles-bucket/a4/"
    rendering = render_hyperpod(example_cluster(), spec(), lifecycle_uri=uri)
    upload_bundle(connect("fake", simulator=sim, service="s3"), rendering.files, uri, create_bucket=True)
    connect("fake", simulator=sim).create_cluster(**rendering.cluster_spec)
    return rendering


URI = "s3://lifecycle-bucket/base-config/"


LEGACY_SLURM = {
    "partitions": [{"id": "partition-1", "node_pool_ids": ["worker-group-1"]}],
    "login_node_pool_id": "login-group",
    "controller_node_pool_id": "controller-machine",
}


def upload_legacy_bundle(s3) -> None:
    rendering = render_hyperpod(legacy_cluster(uri=URI), SlurmSpec.from_dict(LEGACY_SLURM, partition_names=partition_names()))
    upload_bundle(s3, rendering.files, URI, create_bucket=True)
