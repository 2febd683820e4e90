"""Observed states built from specs, without a service: for the pure planner tests."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pulumi_hyperpod import ClusterSpec, ClusterState
from pulumi_hyperpod.sim.aws.views import described_spec

EPOCH = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
ARN = "arn:aws:sagemaker:us-west-2:111122223333:cluster/abcde1234567"
ROLE = "arn:aws:iam::111122223333:role/iam-role-for-cluster"
LIFECYCLE = {"SourceS3Uri": "s3://amzn-s3-demo-bucket/lifecycle-scripts/src/", "OnCreate": "on_create.sh"}


def group(name: str, count: int, node_type: str | None = "Compute", partition: str | None = None, **extra: Any) -> dict[str, Any]:
    g: dict[str, Any] = {
        "InstanceGroupName": name,
        "InstanceType": extra.pop("InstanceType", "ml.p5.48xlarge" if node_type == "Compute" else "ml.m5.xlarge"),
        "InstanceCount": count,
        "LifeCycleConfig": dict(LIFECYCLE),
        "ExecutionRole": ROLE,
    }
    if node_type:
        g["SlurmConfig"] = {"NodeType": node_type}
        if partition:
            g["SlurmConfig"]["PartitionNames"] = [partition]
    g.update(extra)
    return g


def slurm_spec(
    workers: int = 2, continuous: bool = True, login: bool = True, name: str = "my-training-cluster", extra_groups: list | None = None
) -> ClusterSpec:
    groups = [group("controller-group", 1, "Controller")]
    if login:
        groups.append(group("login-group", 1, "Login"))
    groups.append(group("worker-gpu-a", workers, "Compute", "gpu-training"))
    groups += extra_groups or []
    data: dict[str, Any] = {
        "ClusterName": name,
        "Orchestrator": {"Slurm": {}},
        "InstanceGroups": groups,
        "VpcConfig": {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-12345678"]},
    }
    if continuous:
        data["NodeProvisioningMode"] = "Continuous"
    return ClusterSpec.from_dict(data)


def node_id(group_index: int, index: int) -> str:
    return f"i-{group_index:08x}{index:09x}"


def observed_from(
    spec: ClusterSpec,
    *,
    counts: dict[str, int] | None = None,
    statuses: dict[str, str] | None = None,
    pending: dict[str, int] | None = None,
    status: str = "InService",
    mins: dict[str, int] | None = None,
) -> ClusterState:
    """The cluster as the service would describe it after creating `spec` (counts override per group).

    Node k of a group launched k minutes after the epoch, so higher k is newer. `pending` adds
    never-launched nodes (logical ids only) on top of the running ones.
    """
    counts, statuses, pending, mins = counts or {}, statuses or {}, pending or {}, mins or {}
    api = spec.to_api()
    described_groups, summaries = [], []
    for gi, g in enumerate(api["InstanceGroups"]):
        running = counts.get(g["InstanceGroupName"], g["InstanceCount"])
        waiting = pending.get(g["InstanceGroupName"], 0)
        d = {
            "InstanceGroupName": g["InstanceGroupName"],
            **described_spec(g),
        }  # as DescribeCluster reports the group (image, Kubernetes, patch members renamed)
        if "InstanceRequirements" in g:
            d["InstanceRequirements"] = {
                "CurrentInstanceTypes": g["InstanceRequirements"]["InstanceTypes"],
                "DesiredInstanceTypes": g["InstanceRequirements"]["InstanceTypes"],
            }
        d.update(
            CurrentCount=running,
            TargetCount=running + waiting,
            MinCount=mins.get(g["InstanceGroupName"], g.get("MinInstanceCount", 0)),
            Status="InService",
        )
        described_groups.append(d)
        for k in range(running):
            nid = node_id(gi, k)
            summaries.append(
                {
                    "InstanceGroupName": g["InstanceGroupName"],
                    "InstanceId": nid,
                    "NodeLogicalId": f"{g['InstanceGroupName']}-{k:04d}",
                    "InstanceType": g.get("InstanceType", "ml.p5.48xlarge"),
                    "LaunchTime": EPOCH + dt.timedelta(minutes=k),
                    "InstanceStatus": {"Status": statuses.get(nid, "Running")},
                }
            )
        for k in range(waiting):
            summaries.append(
                {
                    "InstanceGroupName": g["InstanceGroupName"],
                    "InstanceId": "",
                    "NodeLogicalId": f"{g['InstanceGroupName']}-p{k:04d}",
                    "InstanceType": g.get("InstanceType", "ml.p5.48xlarge"),
                    "LaunchTime": EPOCH,
                    "InstanceStatus": {"Status": "Pending"},
                }
            )
    describe = {
        "ClusterArn": ARN,
        "ClusterName": spec.name,
        "ClusterStatus": status,
        "CreationTime": EPOCH,
        "InstanceGroups": described_groups,
        "Orchestrator": api.get("Orchestrator", {"Slurm": {}}),
        "VpcConfig": api.get("VpcConfig"),
    }
    if spec.continuous:
        describe["NodeProvisioningMode"] = "Continuous"
    return ClusterState.from_api(describe, summaries)


def legacy_slurm(workers: int, **counts: int) -> ClusterSpec:
    """The form most public examples use: no SlurmConfig, roles in provisioning_parameters.json."""
    groups = [
        group("controller-machine", counts.get("controller", 1), None),
        group("login-group", counts.get("login", 1), None),
        group("worker-group-1", workers, None, InstanceType="ml.p5.48xlarge"),
    ]
    return ClusterSpec.from_dict({"ClusterName": "legacy", "InstanceGroups": groups})


ROLES = {"controller-machine": "Controller", "login-group": "Login", "worker-group-1": "Compute"}
