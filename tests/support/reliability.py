"""Helpers of the reliability suite's trials (tests/reliability): seed 004's cluster as a request, and the
provider's wire encoding."""

from __future__ import annotations

import asyncio
from pulumi.runtime import rpc


SCENARIO = {"speed": 3000, "timing": {"launch_seconds": 10, "lifecycle_seconds": 20, "terminate_seconds": 10, "retry_interval_seconds": 30}}
ROLE = "arn:aws:iam::111122223333:role/iam-role-for-cluster"
NAME = "crash-cluster"


def spec_dict(continuous: bool, big: int, other: int, login_checks: int = 1) -> dict:
    def group(name, count, node_type, itype="ml.m5.xlarge", **extra):
        return {
            "InstanceGroupName": name,
            "InstanceType": itype,
            "InstanceCount": count,
            "ExecutionRole": ROLE,
            "LifeCycleConfig": {"SourceS3Uri": "s3://bucket/lifecycle/", "OnCreate": "on_create.sh"},
            "SlurmConfig": {"NodeType": node_type},
            **extra,
        }

    data = {
        "ClusterName": NAME,
        "Orchestrator": {"Slurm": {}},
        "VpcConfig": {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-12345678"]},
        "InstanceGroups": [
            group("controller", 1, "Controller"),
            # a config change UpdateCluster makes in place (ThreadsPerCore is create-only)
            group("login", 1, "Login", OnStartDeepHealthChecks=["InstanceStress", "InstanceConnectivity"][:login_checks]),
            group("big", big, "Compute", "ml.g5.xlarge"),
            group("other", other, "Compute", "ml.g5.xlarge"),
        ],
    }
    if continuous:
        data["NodeProvisioningMode"] = "Continuous"
    return data


def _wire(props: dict) -> dict:
    async def encode():
        return await rpc.serialize_properties(props, {})

    loop = asyncio.new_event_loop()
    try:
        return rpc.deserialize_properties(loop.run_until_complete(encode()), False)
    finally:
        loop.close()
