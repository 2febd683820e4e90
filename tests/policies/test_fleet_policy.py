"""Fleet-wide policy (pulumi_hyperpod/fleet/policy.py, policies/rego/fleet.rego) on plans the real
`hyperpod plan --json` makes on the simulator, evaluated by the real opa: the Rego input (the fleet
plan with every cluster's whole plan), the verdicts in the document, the parameters, a wave's policy
gate, and the one error line when opa or the rules are missing."""

from __future__ import annotations

import json

import pytest

from pulumi_hyperpod.fleet.gates import FAILED, PASSED
from pulumi_hyperpod.fleet.policy import PolicyError, judged, policy_input, wave_gate
from pulumi_hyperpod.fleet.spec import Wave
from pulumi_hyperpod.fleet.summary import StackPlans, fleet_plan

from .conftest import REGO


@pytest.fixture(autouse=True)
def the_opa(opa, monkeypatch):
    monkeypatch.setenv("HYPERPOD_OPA", opa)


def fleet(plans, compute, regions):
    """One stack per region, each with the plan to `compute` compute nodes of seed 004's 3."""
    plan = json.loads(plans.plan(plans.spec(compute)))
    return [StackPlans(f"s{i}", None, region, (plan,)) for i, region in enumerate(regions)]


def test_the_input_is_the_fleet_plan_with_every_clusters_whole_plan(plans):
    stacks = fleet(plans, 2, ["us-west-2"])
    document = fleet_plan(stacks)
    given = policy_input(document, stacks)
    assert given["format"] == "hyperpod-fleet-plan/1" and given["quotas"] == document["quotas"]
    (row,) = given["stacks"]
    assert row["clusters"] == document["stacks"][0]["clusters"] and row["plans"] == [stacks[0].plans[0]]


def test_two_regions_scaling_in_at_once_are_denied_one_region_is_not(plans):
    stacks = fleet(plans, 2, ["us-west-2", "us-east-1"])  # each removes 1 of 3: no single plan's rule denies it
    document = judged(fleet_plan(stacks), stacks, [REGO])
    assert document["refused"] and document["policy"]["denied"]
    (violation,) = document["policy"]["violations"]
    assert violation["code"] == "regions-scaling-in" and violation["stacks"] == ["s0", "s1"]
    assert document["refusals"] == [
        "fleet policy regions-scaling-in: clusters scale in in 2 regions at once (us-east-1, us-west-2: stacks s0, s1); "
        "at most 1 region(s) may scale in in one fleet plan"
    ]
    stacks = fleet(plans, 2, ["us-west-2", "us-west-2"])
    document = judged(fleet_plan(stacks), stacks, [REGO])
    assert document["policy"] == {"paths": [str(REGO)], "violations": [], "denied": False} and not document["refused"]


def test_the_parameters_come_from_a_data_file(plans, tmp_path):
    params = tmp_path / "fleet-params.json"
    params.write_text(json.dumps({"hyperpod": {"fleet_params": {"max_regions_scaling_in": 2, "max_hourly_cost_increase": 1}}}))
    stacks = fleet(plans, 2, ["us-west-2", "us-east-1"])
    assert judged(fleet_plan(stacks), stacks, [REGO, params])["policy"]["violations"] == []
    grown = fleet(plans, 5, ["us-west-2", "us-east-1"])  # two scale-outs: the fleet's cost rises by both
    (violation,) = judged(fleet_plan(grown), grown, [REGO, params])["policy"]["violations"]
    assert violation["code"] == "fleet-cost-increase" and violation["stacks"] == ["s0", "s1"]


def test_without_a_policy_the_section_is_null():
    assert judged(fleet_plan([]), [], [])["policy"] is None


def test_a_waves_policy_gate_judges_the_waves_stacks(plans, tmp_path):
    stacks = fleet(plans, 2, ["us-west-2", "us-east-1"])
    document = fleet_plan(stacks)
    (alone,) = wave_gate(Wave(name="one", stacks=["s0"], gates={"policy": "rego"}), REGO.parent, document, stacks)
    assert (alone.gate, alone.outcome, alone.stack) == ("policy", PASSED, "s0")
    (both,) = wave_gate(Wave(name="both", stacks=["s0", "s1"], gates={"policy": "rego"}), REGO.parent, document, stacks)
    assert (both.outcome, both.stack) == (FAILED, "s0, s1") and both.detail.startswith("fleet policy regions-scaling-in: ")
    assert wave_gate(Wave(name="none", stacks=["s0"]), REGO.parent, document, stacks) == []


def test_no_opa_is_one_line(monkeypatch, tmp_path):
    monkeypatch.delenv("HYPERPOD_OPA")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("PULUMI_HYPERPOD_CACHE", str(tmp_path))
    with pytest.raises(PolicyError, match=r"^no opa found to evaluate the fleet policy \(set HYPERPOD_OPA"):
        judged(fleet_plan([]), [], [REGO])


def test_rules_without_the_fleet_package_and_a_missing_path_are_one_line(tmp_path):
    other = tmp_path / "other.rego"
    other.write_text("package elsewhere\n\ndeny contains 1 if false\n")
    with pytest.raises(PolicyError, match=r"other\.rego: defines no data\.hyperpod\.fleet\.deny"):
        judged(fleet_plan([]), [], [other])
    with pytest.raises(PolicyError, match=r"nowhere\.rego: no such policy file or directory"):
        judged(fleet_plan([]), [], [tmp_path / "nowhere.rego"])
