"""Request builders and waits shared by the simulator's scenario tests (requests as in the seeds)."""

from __future__ import annotations

import copy
from typing import Any
from collections.abc import Callable

ROLE = "arn:aws:iam::111122223333:role/iam-role-for-cluster"
LIFECYCLE = {"SourceS3Uri": "s3://amzn-s3-demo-bucket/lifecycle-scripts/src/", "OnCreate": "on_create.sh"}
VPC = {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-12345678"]}
EKS_ARN = "arn:aws:eks:us-west-2:111122223333:cluster/hyperpod-eks"


def group(name: str, count: int, instance_type: str = "ml.c5.xlarge", **extra: Any) -> dict:
    spec = {
        "InstanceGroupName": name,
        "InstanceType": instance_type,
        "InstanceCount": count,
        "LifeCycleConfig": copy.deepcopy(LIFECYCLE),
        "ExecutionRole": ROLE,
    }
    spec.update(extra)
    if "InstanceRequirements" in extra:
        spec.pop("InstanceType")
    return spec


def slurm_group(
    name: str, node_type: str, count: int, instance_type: str = "ml.c5.xlarge", partitions: list[str] | None = None, **extra: Any
) -> dict:
    slurm = {"NodeType": node_type}
    if partitions is not None:
        slurm["PartitionNames"] = partitions
    return group(name, count, instance_type, SlurmConfig=slurm, **extra)


def seed000_request(
    name: str = "my-training-cluster", workers: int = 16, worker_type: str = "ml.p5.48xlarge", login: bool = True, **worker_extra: Any
) -> dict:
    """Seed 000's create_cluster.json: controller, login, 16 × p5 workers in gpu-training."""
    groups = [slurm_group("controller-group", "Controller", 1, "ml.m5.xlarge")]
    if login:
        groups.append(slurm_group("login-group", "Login", 1, "ml.m5.xlarge"))
    groups.append(slurm_group("worker-gpu-a", "Compute", workers, worker_type, ["gpu-training"], **worker_extra))
    return {
        "ClusterName": name,
        "NodeProvisioningMode": "Continuous",
        "Orchestrator": {"Slurm": {}},
        "InstanceGroups": groups,
        "VpcConfig": copy.deepcopy(VPC),
    }


def eks_request(name: str, groups: list[dict], continuous: bool = True, subnets: list[str] | None = None) -> dict:
    request = {
        "ClusterName": name,
        "Orchestrator": {"Eks": {"ClusterArn": EKS_ARN}},
        "InstanceGroups": groups,
        "VpcConfig": {"SecurityGroupIds": ["sg-12345678"], "Subnets": subnets or ["subnet-12345678"]},
    }
    if continuous:
        request["NodeProvisioningMode"] = "Continuous"
    return request


def seed004_groups(compute: int) -> list[dict]:
    """Seed 004's update_cluster.json groups (legacy Slurm: no SlurmConfig)."""
    lifecycle = {"SourceS3Uri": "s3://leo-stg-hyperpod-lifecycle-778c45ef/lifecycle-script-directory/src", "OnCreate": "on_create.sh"}
    role = "arn:aws:iam::640168457519:role/leo-stg-SagemakerHyperpod-Role"
    storage = [{"EbsVolumeConfig": {"VolumeSizeInGB": 30}}]
    return [
        {
            "InstanceGroupName": "leo-stg-head-ig",
            "InstanceType": "ml.m5.large",
            "InstanceCount": 1,
            "LifeCycleConfig": dict(lifecycle),
            "ExecutionRole": role,
            "ThreadsPerCore": 2,
            "InstanceStorageConfigs": copy.deepcopy(storage),
        },
        {
            "InstanceGroupName": "leo-stg-compute-ig",
            "InstanceType": "ml.g5.xlarge",
            "InstanceCount": compute,
            "LifeCycleConfig": dict(lifecycle),
            "ExecutionRole": role,
            "ThreadsPerCore": 2,
            "InstanceStorageConfigs": copy.deepcopy(storage),
        },
    ]


SEED004_SCENARIO = {
    "provisioning_parameters": {
        "s3://leo-stg-hyperpod-lifecycle-778c45ef/lifecycle-script-directory/src": {
            "version": "1.0.0",
            "workload_manager": "slurm",
            "controller_group": "leo-stg-head-ig",
            "worker_groups": [{"instance_group_name": "leo-stg-compute-ig", "partition_name": "partition-1"}],
        }
    }
}


def describe(client: Any, name: str) -> dict:
    return client.describe_cluster(ClusterName=name)


def groups_of(client: Any, name: str) -> dict[str, dict]:
    return {g["InstanceGroupName"]: g for g in describe(client, name)["InstanceGroups"]}


def nodes_of(client: Any, name: str, include_logical: bool = False) -> list[dict]:
    paginator = client.get_paginator("list_cluster_nodes")
    return [
        node
        for page in paginator.paginate(ClusterName=name, IncludeNodeLogicalIds=include_logical)
        for node in page["ClusterNodeSummaries"]
    ]


def statuses(client: Any, name: str, group_name: str | None = None) -> list[str]:
    return sorted(
        node["InstanceStatus"]["Status"]
        for node in nodes_of(client, name, True)
        if group_name is None or node["InstanceGroupName"] == group_name
    )


def advance_until(sim: Any, condition: Callable[[], bool], step: float = 30, limit: float = 6 * 3600) -> float:
    """Advance virtual time in steps until `condition()`; returns the virtual seconds it took."""
    waited = 0.0
    while not condition():
        if waited >= limit:
            raise AssertionError(f"condition not met within {limit} virtual seconds")
        sim.advance(step)
        waited += step
    return waited


def cluster_status(client: Any, name: str) -> str:
    return describe(client, name)["ClusterStatus"]


def events_of(client: Any, name: str, **filters: Any) -> list[dict]:
    paginator = client.get_paginator("list_cluster_events")
    return [event for page in paginator.paginate(ClusterName=name, SortOrder="Ascending", **filters) for event in page["Events"]]
