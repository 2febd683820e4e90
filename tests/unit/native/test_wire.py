"""The property maps on the wire: values survive the trip engine → provider → engine (secrets,
unknowns, numbers as doubles), names are translated only where the schema says, and the detailed
diff sees what the dynamic diff sees (order that means nothing is no change)."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st
from pulumi.provider.experimental.property_value import PropertyValue
from pulumi.provider.experimental.provider import PropertyDiffKind
from pulumi.runtime import rpc

from pulumi_hyperpod.native import wire
from pulumi_hyperpod.native.server import marshal_map
from pulumi_hyperpod.provider.props import plain

from .conftest import slurm_spec

scalars = st.one_of(st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.text(max_size=8), st.just(rpc.UNKNOWN))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(min_size=1, max_size=6), inner, max_size=4),
        inner.map(rpc.wrap_rpc_secret),
    ),
    max_leaves=20,
)


def _normal(value):
    """What a value means on the wire: ints are doubles, a secret inside a secret is one secret."""
    if rpc.is_rpc_secret(value):
        inner = _normal(rpc.unwrap_rpc_secret(value))
        return inner if rpc.is_rpc_secret(inner) else rpc.wrap_rpc_secret(inner)
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items()}
    return [_normal(v) for v in value]


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["spec", "wait", "timeout", "region"]), values, max_size=4))
def test_values_survive_the_wire(bag) -> None:
    decoded = PropertyValue.unmarshal_map(marshal_map(wire.bag_to_wire(bag)))
    assert wire.bag_from_wire(decoded) == _normal(bag)


def test_names_are_translated_where_the_schema_says_and_nowhere_else() -> None:
    bag = {
        "spec": {"ClusterName": "x", "InstanceGroups": [{"InstanceGroupName": "a_b"}]},
        "policy": {"max_scale_in_fraction": 0.5},
        "groups": {"my_group": {"target_count": 1}},
        "node_count": 2,
        "failure_message": "m",
    }
    out = wire.bag_to_wire(bag)
    assert set(out) == {"spec", "policy", "groups", "nodeCount", "failureMessage"}
    assert "maxScaleInFraction" in out["policy"].value
    assert set(out["groups"].value) == {"my_group"} and "targetCount" in out["groups"].value["my_group"].value
    assert set(out["spec"].value) == {"ClusterName", "InstanceGroups"}
    assert wire.bag_from_wire(out) == plain(bag) | {"node_count": 2.0}  # numbers come back as doubles
    assert wire.path_to_wire("policy.max_scale_in_fraction") == "policy.maxScaleInFraction"
    assert wire.path_to_wire("spec.InstanceGroups[0].InstanceCount") == "spec.InstanceGroups[0].InstanceCount"


def test_detailed_diff_ignores_order_that_means_nothing() -> None:
    old = {"spec": slurm_spec(2), "wait": "InService"}
    new = copy.deepcopy(old)
    new["spec"]["InstanceGroups"].reverse()
    new["spec"]["VpcConfig"]["Subnets"] = ["subnet-2", "subnet-1"]
    old["spec"]["VpcConfig"]["Subnets"] = ["subnet-1", "subnet-2"]
    assert wire.detailed_diff(old, new, [], False) == {}
    new["spec"]["InstanceGroups"][0]["InstanceCount"] = 5  # workers, now first
    new["spec"]["InstanceGroups"].append({"InstanceGroupName": "extra", "InstanceCount": 1})
    diff = {k: v.kind for k, v in wire.detailed_diff(old, new, [], True).items()}
    assert diff == {"spec.InstanceGroups[0].InstanceCount": PropertyDiffKind.UPDATE, "spec.InstanceGroups[2]": PropertyDiffKind.ADD}


def test_detailed_diff_marks_replacements_and_drift() -> None:
    old = {"spec": slurm_spec(1)}
    new = copy.deepcopy(old)
    new["spec"]["VpcConfig"]["Subnets"] = ["subnet-other"]
    diff = {k: v.kind for k, v in wire.detailed_diff(old, new, ["spec.VpcConfig"], True).items()}
    assert diff == {"spec.VpcConfig.Subnets": PropertyDiffKind.UPDATE_REPLACE}
    moved = wire.detailed_diff(old, old, ["region"], True)  # the region moved in the provider config
    assert moved["region"].kind == PropertyDiffKind.UPDATE_REPLACE and not moved["region"].input_diff
    drift = wire.detailed_diff(old, old, [], True)  # inputs the same, the live cluster differs
    assert drift["spec"].kind == PropertyDiffKind.UPDATE and not drift["spec"].input_diff
