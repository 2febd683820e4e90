"""Builders shared by the provider tests (tests/unit/provider) and the native provider's
(tests/unit/native): Slurm cluster specs as property bags, a settled simulator world, the engine's
wire encoding, and `Engine`, which calls a provider as the engine and the SDK do."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

from pulumi.runtime import rpc

ROLE = "arn:aws:iam::111122223333:role/iam-role-for-cluster"
LIFECYCLE = {"SourceS3Uri": "s3://amzn-s3-demo-bucket/lifecycle-scripts/src/", "OnCreate": "on_create.sh"}
VPC = {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-12345678"]}


def group(name: str, count: int, node_type: str, partition: str | None = None, **extra: Any) -> dict[str, Any]:
    g: dict[str, Any] = {
        "InstanceGroupName": name,
        "InstanceType": "ml.m5.xlarge" if node_type != "Compute" else "ml.g5.xlarge",
        "InstanceCount": count,
        "LifeCycleConfig": dict(LIFECYCLE),
        "ExecutionRole": ROLE,
        "SlurmConfig": {"NodeType": node_type},
    }
    if partition:
        g["SlurmConfig"]["PartitionNames"] = [partition]
    g.update(extra)
    return g


def slurm_spec(workers: int = 1, name: str = "demo-cluster", continuous: bool = True, login: bool = False) -> dict[str, Any]:
    """Seed 000's shape: controller first, optional login, one compute partition."""
    groups = [group("controller", 1, "Controller")]
    if login:
        groups.append(group("login", 1, "Login"))
    groups.append(group("workers", workers, "Compute", "dev"))
    spec: dict[str, Any] = {"ClusterName": name, "Orchestrator": {"Slurm": {}}, "InstanceGroups": groups, "VpcConfig": copy.deepcopy(VPC)}
    if continuous:
        spec["NodeProvisioningMode"] = "Continuous"
    return spec


def settled_world(path: Any, workers: int = 1) -> Any:
    """A persistent simulator world at `path` holding seed 000's cluster, InService: what a fresh
    provider process (tests/support/fresh.py) previews against."""
    from pulumi_hyperpod.sim.aws import Simulator

    sim = Simulator(path, seed=0)
    sim.client().create_cluster(**slurm_spec(workers=workers))
    sim.advance(900)
    return sim


def wire(props: dict[str, Any], keep_unknowns: bool = True) -> dict[str, Any]:
    """`props` as the provider receives them from the engine (serialize, then deserialize)."""

    async def encode():
        return await rpc.serialize_properties(props, {})

    loop = asyncio.new_event_loop()
    try:
        struct = loop.run_until_complete(encode())
    finally:
        loop.close()
    return rpc.deserialize_properties(struct, keep_unknowns)


class Engine:
    """Calls the provider in the order and with the encodings the engine and the SDK use."""

    def __init__(self, provider):
        self.provider = provider

    def check(self, props: dict[str, Any], olds: dict[str, Any] | None = None):
        return self.provider.check(olds or {}, wire(props))

    def checked(self, props: dict[str, Any], olds: dict[str, Any] | None = None) -> dict[str, Any]:
        result = self.check(props, olds)
        assert not result.failures, [(f.property, f.reason) for f in result.failures]
        return result.inputs

    def create(self, props: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        inputs = wire(self.checked(props), keep_unknowns=False)
        result = self.provider.create(inputs)
        return result.id, wire(result.outs)

    def diff(self, id_: str, outputs: dict[str, Any], props: dict[str, Any]):
        news = wire(self.checked(props, outputs))
        return self.provider.diff(id_, outputs, news)

    def update(self, id_: str, outputs: dict[str, Any], props: dict[str, Any]) -> dict[str, Any]:
        news = wire(self.checked(props, outputs), keep_unknowns=False)
        return wire(self.provider.update(id_, outputs, news).outs)

    def read(self, id_: str, outputs: dict[str, Any]):
        result = self.provider.read(id_, outputs)
        return result.id, wire(result.outs), (wire(result.inputs) if result.inputs is not None else None)

    def delete(self, id_: str, outputs: dict[str, Any]) -> None:
        self.provider.delete(id_, outputs)


def props(spec, **settings):
    return {"spec": spec, "backend": "fake", **settings}


def mutations(sim) -> list[tuple[str, dict]]:
    return [(op, request) for op, request in sim.calls if not op.startswith(("Describe", "List"))]
