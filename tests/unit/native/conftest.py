"""Native-provider tests: `HyperpodProvider` called as its gRPC server calls it (property maps
that went through the wire encoding), against an in-memory simulator registered under a name;
its text collected from `console.say`'s sink instead of the engine log."""

from __future__ import annotations

import asyncio
import copy
import itertools
from typing import Any

import pytest
from pulumi.provider.experimental.property_value import PropertyValue

from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.native import core, wire
from pulumi_hyperpod.native.provider import HyperpodProvider
from pulumi_hyperpod.native.server import marshal_map
from pulumi_hyperpod.provider import register_simulator, unregister_simulator
from pulumi_hyperpod.provider.cloud_provider import REPLACED

from tests.support.provider_specs import VPC, group  # the same cluster builders as the dynamic provider

_names = itertools.count()


def slurm_spec(workers: int = 1, name: str = "native-cluster") -> dict[str, Any]:
    return {
        "ClusterName": name,
        "InstanceGroups": [group("controller", 1, "Controller"), group("workers", workers, "Compute", "dev")],
        "VpcConfig": copy.deepcopy(VPC),
    }


def on_wire(bag: dict[str, Any]) -> dict[str, PropertyValue]:
    """A program's inputs (wire names) as the provider receives them: encoded, then decoded."""
    return PropertyValue.unmarshal_map(marshal_map(wire.bag_to_wire(bag)))


def run(coro):
    return asyncio.run(coro)


class Harness:
    def __init__(self, simulator: Simulator, name: str) -> None:
        self.simulator = simulator
        self.provider = HyperpodProvider(simulator=name)
        self.lines: list[str] = []
        self.urn = "urn:pulumi:dev::p::hyperpod:index:Cluster::c"

    def said(self) -> str:
        text = "\n".join(self.lines)
        self.lines.clear()
        return text


@pytest.fixture
def harness():
    name = f"native-{next(_names)}"
    simulator = Simulator(seed=7)
    register_simulator(name, simulator)
    REPLACED.clear()  # the seeded ids repeat from test to test: no replacement a diff noted before
    h = Harness(simulator, name)
    run(h.provider.configure(_configure({"backend": "fake"})))
    core.set_output(lambda text, progress: h.lines.append(text))
    try:
        yield h
    finally:
        core.set_output(None)
        unregister_simulator(name)


def _configure(args: dict[str, str]):
    from pulumi.provider.experimental.provider import ConfigureRequest

    return ConfigureRequest({}, {k: PropertyValue(v) for k, v in args.items()}, True, False)
