"""The provider's diff matches restricted instance groups by name, as instance groups: reordering
them is no change (the planner's plan is empty too)."""

from __future__ import annotations

import copy
import json

from pulumi_hyperpod.provider.changes import normalized
from tests.support.paths import DATA

RIG_SPEC = DATA / "restricted-nova.json"


def test_reordered_restricted_groups_are_no_change_and_a_new_count_is_one():
    spec = json.loads(RIG_SPEC.read_text())
    second = copy.deepcopy(spec["RestrictedInstanceGroups"][0]) | {"InstanceGroupName": "rig-2"}
    spec["RestrictedInstanceGroups"].append(second)
    reordered = copy.deepcopy(spec)
    reordered["RestrictedInstanceGroups"].reverse()
    assert normalized(reordered) == normalized(spec)
    grown = copy.deepcopy(spec)
    grown["RestrictedInstanceGroups"][1]["InstanceCount"] = 3
    assert normalized(grown) != normalized(spec)


def _applied_rig_cluster(spec: dict):
    from pulumi_hyperpod import ClusterSpec, apply, connect, observe
    from pulumi_hyperpod.sim.aws import Simulator
    from pulumi_hyperpod.aws.planner import plan

    sim = Simulator(seed=2)
    client = connect("fake", simulator=sim, region="us-west-2")
    desired = ClusterSpec.from_dict(spec)
    apply(client, plan(desired, None), wait="Target", timeout=6 * 3600, sleep=sim.advance, monotonic=lambda: sim.now().timestamp())
    return desired, observe(client, spec["ClusterName"])


def test_refresh_and_import_keep_restricted_groups_in_their_own_list():
    from pulumi_hyperpod import ClusterSpec
    from pulumi_hyperpod.aws.planner import plan
    from pulumi_hyperpod.native.importing import spec_from_state
    from pulumi_hyperpod.provider.props import observed_spec

    spec = json.loads(RIG_SPEC.read_text())
    spec["RestrictedInstanceGroupsConfig"] = {
        "SharedEnvironmentConfig": {
            "FSxLustreDeletionPolicy": "Keep",
            "FSxLustreConfig": {"SizeInGiB": 1200, "PerUnitStorageThroughput": 125},
        }
    }
    _desired, state = _applied_rig_cluster(spec)

    refreshed = observed_spec(spec, state)  # `pulumi refresh`: the spec as the cluster now is
    assert "InstanceGroups" not in refreshed and [g["InstanceGroupName"] for g in refreshed["RestrictedInstanceGroups"]] == ["rig-1"]
    without = {**spec, "RestrictedInstanceGroups": []}  # a group added outside Pulumi comes back as restricted
    assert [g["InstanceGroupName"] for g in observed_spec(without, state)["RestrictedInstanceGroups"]] == ["rig-1"]

    imported = spec_from_state(state)  # `pulumi import`: the CreateCluster request the cluster answers to
    assert "InstanceGroups" not in imported
    assert imported["RestrictedInstanceGroups"][0]["EnvironmentConfig"] == spec["RestrictedInstanceGroups"][0]["EnvironmentConfig"]
    assert imported["RestrictedInstanceGroupsConfig"] == spec["RestrictedInstanceGroupsConfig"]
    assert plan(ClusterSpec.from_dict(imported), state).steps == ()
