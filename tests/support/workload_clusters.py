"""Clusters in the in-memory simulator with a workload on them, for the workload tests."""

from __future__ import annotations

import copy
from typing import Any

from pulumi_hyperpod import ClusterSpec
from pulumi_hyperpod.sim.aws import Simulator
from tests.support.sim_helpers import EKS_ARN, VPC, group, slurm_group


def slurm_request(name: str = "train", workers: int = 4) -> dict[str, Any]:
    return {
        "ClusterName": name,
        "NodeProvisioningMode": "Continuous",
        "Orchestrator": {"Slurm": {}},
        "InstanceGroups": [
            slurm_group("controller-group", "Controller", 1, "ml.m5.xlarge"),
            slurm_group("workers", "Compute", workers, "ml.g5.xlarge", ["gpu"]),
        ],
        "VpcConfig": copy.deepcopy(VPC),
    }


def eks_request(name: str = "serve", workers: int = 3) -> dict[str, Any]:
    return {
        "ClusterName": name,
        "NodeProvisioningMode": "Continuous",
        "Orchestrator": {"Eks": {"ClusterArn": EKS_ARN}},
        "InstanceGroups": [group("workers", workers, "ml.g5.xlarge")],
        "VpcConfig": copy.deepcopy(VPC),
    }


def running_cluster(request: dict[str, Any]) -> tuple[Simulator, Any]:
    """An in-memory simulator with the cluster created and every node Running."""
    sim = Simulator()
    client = sim.client()
    client.create_cluster(**request)
    sim.advance(3600)
    nodes = client.list_cluster_nodes(ClusterName=request["ClusterName"])["ClusterNodeSummaries"]
    assert all(n["InstanceStatus"]["Status"] == "Running" for n in nodes), nodes
    return sim, client


def workers(client: Any, name: str) -> list[dict]:
    """The worker nodes in the order a scale-in by state removes them (newest launch first, then instance id)."""
    nodes = client.list_cluster_nodes(ClusterName=name)["ClusterNodeSummaries"]
    return sorted((n for n in nodes if n["InstanceGroupName"] == "workers"), key=lambda n: (-n["LaunchTime"].timestamp(), n["InstanceId"]))


def scaled(request: dict[str, Any], count: int) -> ClusterSpec:
    wanted = copy.deepcopy(request)
    next(g for g in wanted["InstanceGroups"] if g["InstanceGroupName"] == "workers")["InstanceCount"] = count
    return ClusterSpec.from_dict(wanted)
