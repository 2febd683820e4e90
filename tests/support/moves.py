"""A cluster whose groups can take each other's nodes (EKS + Continuous, one instance type) on the
simulator, through the real botocore client: issue 41's node moves (aws/planner/moves.py)."""

from __future__ import annotations

import copy
from typing import Any

from pulumi_hyperpod import ClusterSpec, Policy, apply, connect, observe
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.aws.preflight import preflight
from pulumi_hyperpod.sim.aws import Simulator

TYPE = "ml.g5.xlarge"
ROLE = "arn:aws:iam::111122223333:role/iam-role-for-cluster"
LIFECYCLE = {"SourceS3Uri": "s3://amzn-s3-demo-bucket/lifecycle-scripts/v1/", "OnCreate": "on_create.sh"}
EKS = {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/my-eks-cluster"}}
VPC = {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-0a1b2c3d"]}


def spec(train: int, serve: int, *, continuous: bool = True, **train_extra: Any) -> ClusterSpec:
    def eks_group(name: str, count: int, **extra: Any) -> dict[str, Any]:
        return {
            "InstanceGroupName": name,
            "InstanceType": TYPE,
            "InstanceCount": count,
            "LifeCycleConfig": copy.deepcopy(LIFECYCLE),
            "ExecutionRole": ROLE,
            **extra,
        }

    data: dict[str, Any] = {
        "ClusterName": "split",
        "Orchestrator": EKS,
        "VpcConfig": VPC,
        "InstanceGroups": [eks_group("train", train, **train_extra), eks_group("serve", serve)],
    }
    if continuous:
        data["NodeProvisioningMode"] = "Continuous"
    return ClusterSpec.from_dict(data)


class World:
    def __init__(self, quota: int | None = None) -> None:
        scenario = {"quotas": [{"quota_name": f"{TYPE} for cluster usage", "value": quota}]} if quota is not None else None
        self.sim = Simulator(seed=41, scenario=scenario)
        self.sagemaker = connect("fake", simulator=self.sim)
        self.quotas = connect("fake", simulator=self.sim, service="service-quotas")

    def planned(self, desired: ClusterSpec, policy: Policy | None = None):
        observed = observe(self.sagemaker, desired.name)
        made = plan(desired, observed, policy)
        return preflight(made, desired, observed, sagemaker=self.sagemaker, quotas=self.quotas, policy=policy or Policy())

    def apply(self, the_plan, policy: Policy | None = None):
        return apply(
            self.sagemaker,
            the_plan,
            policy=policy,
            wait="Target",
            timeout=6 * 3600,
            sleep=self.sim.advance,
            monotonic=lambda: self.sim.now().timestamp(),
        )

    def build(self, desired: ClusterSpec) -> None:
        self.apply(plan(desired, observe(self.sagemaker, desired.name)))

    def ids(self, group: str) -> set[str]:
        return {n.instance_id for n in observe(self.sagemaker, "split").nodes if n.group == group and n.instance_id}

    def sent(self, *operations: str) -> list[str]:
        return [op for op, _ in self.sim.calls if op in operations]
