"""Shared builders for the Slurm tests: the example's specs and small cluster specs."""

from __future__ import annotations

import json
from tests.support.paths import REPO

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
