"""One Slurm instance group as CreateCluster takes it, for the tests that build small clusters."""

from __future__ import annotations

from typing import Any


def slurm_group(name: str, node_type: str, count: int, lifecycle: dict, role: str, **slurm: Any) -> dict:
    return {
        "InstanceGroupName": name,
        "InstanceType": "ml.c5.xlarge",
        "InstanceCount": count,
        "LifeCycleConfig": lifecycle,
        "ExecutionRole": role,
        "SlurmConfig": {"NodeType": node_type, **slurm},
    }
