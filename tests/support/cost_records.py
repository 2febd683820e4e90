"""Specs and observed states for the cost tests, built without a service."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pulumi_hyperpod import ClusterSpec, ClusterState

EPOCH = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
ROLE = "arn:aws:iam::111122223333:role/hyperpod"
LIFECYCLE = {"SourceS3Uri": "s3://amzn-s3-demo-bucket/lc/", "OnCreate": "on_create.sh"}
EKS = {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/eks"}}


def group(name: str, count: int, instance_type: str | None = "ml.g5.xlarge", types: list[str] | None = None) -> dict[str, Any]:
    g: dict[str, Any] = {"InstanceGroupName": name, "InstanceCount": count, "ExecutionRole": ROLE, "LifeCycleConfig": dict(LIFECYCLE)}
    if types:
        g["InstanceRequirements"] = {"InstanceTypes": list(types)}
    else:
        g["InstanceType"] = instance_type
    return g


def spec(*groups: dict[str, Any], name: str = "costly") -> ClusterSpec:
    return ClusterSpec.from_dict(
        {"ClusterName": name, "NodeProvisioningMode": "Continuous", "Orchestrator": EKS, "InstanceGroups": list(groups)}
    )


def observed(
    desired: ClusterSpec,
    *,
    region: str = "us-west-2",
    running: dict[str, dict[str, int]] | None = None,
    pending: dict[str, int] | None = None,
) -> ClusterState:
    """`desired` as the service describes it once created. `running[group]` gives a flexible
    group's launched instances per type (its InstanceTypeDetails); `pending[group]` adds capacity
    asked for and not there yet."""
    running, pending = running or {}, pending or {}
    described, nodes = [], []
    for gi, g in enumerate(desired.to_api()["InstanceGroups"]):
        name = g["InstanceGroupName"]
        per_type = running.get(name) or {g.get("InstanceType") or g["InstanceRequirements"]["InstanceTypes"][0]: g["InstanceCount"]}
        current = sum(per_type.values())
        item = {k: v for k, v in g.items() if k not in ("InstanceCount", "InstanceRequirements")}
        item.update(CurrentCount=current, TargetCount=current + pending.get(name, 0), MinCount=0, Status="InService")
        if "InstanceRequirements" in g:
            types = g["InstanceRequirements"]["InstanceTypes"]
            item["InstanceRequirements"] = {"CurrentInstanceTypes": types, "DesiredInstanceTypes": types}
            item["InstanceTypeDetails"] = [{"InstanceType": t, "CurrentCount": per_type.get(t, 0)} for t in types]
        described.append(item)
        k = 0
        for instance_type, count in per_type.items():
            for _ in range(count):
                nodes.append(
                    {
                        "InstanceGroupName": name,
                        "InstanceId": f"i-{gi:04x}{k:013x}",
                        "NodeLogicalId": f"{name}-{k}",
                        "InstanceType": instance_type,
                        "LaunchTime": EPOCH + dt.timedelta(minutes=k),
                        "InstanceStatus": {"Status": "Running"},
                    }
                )
                k += 1
    describe = {
        "ClusterArn": f"arn:aws:sagemaker:{region}:111122223333:cluster/abcdef123456",
        "ClusterName": desired.name,
        "ClusterStatus": "InService",
        "NodeProvisioningMode": "Continuous",
        "Orchestrator": EKS,
        "InstanceGroups": described,
    }
    return ClusterState.from_api(describe, nodes)
