"""Preflight tests: the seeds' clusters on the simulator, with Service Quotas set in its scenario."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from pulumi_hyperpod import ClusterSpec, apply, connect, observe
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.aws.preflight import preflight

ROLE = "arn:aws:iam::111122223333:role/iam-role-for-cluster"
LIFECYCLE = {"SourceS3Uri": "s3://amzn-s3-demo-bucket/lifecycle-scripts/v1/", "OnCreate": "on_create.sh"}
LIFECYCLE_V2 = {"SourceS3Uri": "s3://amzn-s3-demo-bucket/lifecycle-scripts/v2/", "OnCreate": "on_create.sh"}
G5 = "ml.g5.xlarge"


def g5_quota(value: float) -> dict[str, Any]:
    return {"quota_name": f"{G5} for cluster usage", "value": value}


def spec(name: str = "demo", workers: int = 1, lifecycle: dict | None = None, worker_type: str = G5, **worker: Any) -> ClusterSpec:
    """Seed 004's shape: a head node and one compute group, all-or-nothing provisioning."""

    def group(group_name: str, count: int, instance_type: str) -> dict[str, Any]:
        return {
            "InstanceGroupName": group_name,
            "InstanceType": instance_type,
            "InstanceCount": count,
            "LifeCycleConfig": copy.deepcopy(lifecycle or LIFECYCLE),
            "ExecutionRole": ROLE,
            "ThreadsPerCore": 2,
        }

    workers_group = {**group("workers", workers, worker_type), **worker}
    return ClusterSpec.from_dict({"ClusterName": name, "InstanceGroups": [group("head", 1, "ml.m5.large"), workers_group]})


def json_section(the_plan) -> dict[str, Any]:
    """The plan's preflight section in its JSON form (what `plan --json` prints)."""
    return json.loads(json.dumps(the_plan.preflight.to_dict()))


class World:
    """A simulator, its two clients, and the plan → preflight → apply path the CLI and provider use."""

    def __init__(self, scenario: dict[str, Any] | None = None) -> None:
        self.sim = Simulator(seed=11, scenario=scenario)
        self.sagemaker = connect("fake", simulator=self.sim)
        self.quotas = connect("fake", simulator=self.sim, service="service-quotas")

    def checked(self, desired: ClusterSpec, **options: Any):
        observed = observe(self.sagemaker, desired.name)
        options.setdefault("quotas", self.quotas)
        return preflight(plan(desired, observed, options.get("policy")), desired, observed, sagemaker=self.sagemaker, **options)

    def build(self, desired: ClusterSpec) -> None:
        """Apply without preflight (the world's own setup) and wait until every node is there."""
        the_plan = plan(desired, observe(self.sagemaker, desired.name))
        apply(
            self.sagemaker, the_plan, wait="Target", timeout=6 * 3600, sleep=self.sim.advance, monotonic=lambda: self.sim.now().timestamp()
        )

    def calls(self, *operations: str) -> int:
        return sum(1 for op, _ in self.sim.calls if op in operations)


@pytest.fixture
def make_world():
    return World
