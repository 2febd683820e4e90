"""The provider's diff matches restricted instance groups by name, as instance groups: reordering
them is no change (the planner's plan is empty too)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from pulumi_hyperpod.provider.changes import normalized

RIG_SPEC = Path(__file__).resolve().parents[1] / "fake" / "specs" / "restricted-nova.json"


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
