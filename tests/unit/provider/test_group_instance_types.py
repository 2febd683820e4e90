"""A group's `instance_types` output is the types its nodes are on (a flexible group: the ones
the service found capacity for), in the group's priority order — not the configured list."""

from __future__ import annotations

import json

from pulumi_hyperpod import ClusterSpec, connect, observe
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.provider.props import state_outputs
from pulumi_hyperpod.provider.settings import Location
from tests.support.paths import SPECS

SPEC = SPECS / "seed001-eks-flexible.json"


def _flexible(spec: dict) -> tuple[str, list[str]]:
    group = next(g for g in spec["InstanceGroups"] if "InstanceRequirements" in g)
    return group["InstanceGroupName"], group["InstanceRequirements"]["InstanceTypes"]


def _outputs(sim: Simulator, spec: dict) -> dict:
    client = connect(backend="fake", simulator=sim)
    client.create_cluster(**ClusterSpec.from_dict(spec).to_api())
    sim.advance(3 * 3600)
    return state_outputs(observe(client, spec["ClusterName"]), Location("fake", "us-west-2"))["groups"]


def test_every_node_on_the_first_type_reports_that_type_only():
    spec = json.loads(SPEC.read_text())
    name, types = _flexible(spec)
    assert len(types) > 1
    assert _outputs(Simulator(), spec)[name]["instance_types"] == [types[0]]


def test_a_shortage_of_the_first_type_reports_both_types_in_priority_order():
    spec = json.loads(SPEC.read_text())
    name, types = _flexible(spec)
    group = next(g for g in spec["InstanceGroups"] if g["InstanceGroupName"] == name)
    sim = Simulator(scenario={"capacity": [{"instance_type": types[0], "available": 1}]})
    reported = _outputs(sim, spec)[name]["instance_types"]
    assert group["InstanceCount"] > 1
    assert reported == types[:2]
