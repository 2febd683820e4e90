"""The seeds' scenarios end to end through the `hyperpod` CLI, on the simulator's persistent world.

Each test drives the CLI as a user would (CliRunner, real boto3 client, SQLite world in a temp dir).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.sim.aws import Simulator
from tests.support.sim_helpers import SEED004_SCENARIO
from tests.support.cli import SPECS, hyperpod, use_fake_world

SEED004 = "leo-stg-hyperpod-cluster"


@pytest.fixture
def world(tmp_path, monkeypatch):
    return use_fake_world(monkeypatch, tmp_path)


def test_seed_004_scale_out_then_scale_in_with_sinfo(world, tmp_path, monkeypatch):
    """seed 004: 1 compute node → 3 (one step) → 1 (two named nodes), sinfo follows."""
    scenario = tmp_path / "seed004-scenario.json"
    scenario.write_text(json.dumps(SEED004_SCENARIO))  # its bundle's provisioning_parameters.json: the roles sinfo shows
    monkeypatch.setenv("HYPERPOD_FAKE_SCENARIO", str(scenario))
    hyperpod("apply", "-f", str(SPECS / "seed004-initial.json"), "--yes", "--timeout", "60")
    snapshot = tmp_path / "one.json"
    snapshot.write_text(hyperpod("snapshot", SEED004))

    out_plan = json.loads(
        CliRunner().invoke(main, ["plan", "-f", str(SPECS / "seed004-scale-out.json"), "--observed", str(snapshot), "--json"]).output
    )
    assert [s["operation"] for s in out_plan["steps"]] == ["UpdateCluster"]
    assert "leo-stg-compute-ig 1 → 3: +2 nodes" in out_plan["steps"][0]["reasons"]

    hyperpod("apply", "-f", str(SPECS / "seed004-scale-out.json"), "--yes", "--wait", "Target", "--timeout", "60")
    sinfo = Simulator.open_default().sinfo(SEED004)
    assert [line.split()[3] for line in sinfo.splitlines()[1:]] == ["3"] * (len(sinfo.splitlines()) - 1)
    assert "idle" in sinfo

    three = tmp_path / "three.json"
    three.write_text(hyperpod("snapshot", SEED004))
    text = CliRunner().invoke(main, ["plan", "-f", str(SPECS / "seed004-scale-in.json"), "--observed", str(three)]).output
    scale_in = json.loads(
        CliRunner().invoke(main, ["plan", "-f", str(SPECS / "seed004-scale-in.json"), "--observed", str(three), "--json"]).output
    )
    victims = [v for s in scale_in["steps"] for v in s["victims"]]
    assert len(victims) == 2 and all("newest" in v["reason"] for v in victims)
    for v in victims:
        assert v["node_id"] in text
    hyperpod("apply", "-f", str(SPECS / "seed004-scale-in.json"), "--yes", "--wait", "Target", "--timeout", "60")
    remaining = json.loads(hyperpod("nodes", SEED004, "--json"))
    assert not {v["node_id"] for v in victims} & {n["instance_id"] for n in remaining if n["status"] != "ShuttingDown"}
    assert "1   idle" in Simulator.open_default().sinfo(SEED004).replace("      ", "   ")


def test_seed_000_continuous_create_with_min_count(world):
    """seed 000: Slurm Continuous create; MinInstanceCount respected; controller first."""
    hyperpod("apply", "-f", str(SPECS / "seed000-mincount.json"), "--yes", "--wait", "MinCount", "--timeout", "60")
    status = json.loads(hyperpod("status", "my-mincount-cluster", "--json"))
    assert status["status"] == "InService"
    groups = {g["name"]: g for g in status["groups"]}
    assert groups["worker-group-1"]["min"] == 1 and groups["worker-group-1"]["current"] >= 1
    assert groups["controller-machine"]["min"] == 1  # the service's default for controller groups
    events = hyperpod("events", "my-mincount-cluster", "--json")
    assert "reached minimum capacity" in events.lower()  # seed 000: the "minimum capacity reached" event


def test_seed_001_flexible_group_scale_out_by_batch_add(world):
    """seed 001: EKS flexible group; a scale-out is one BatchAddClusterNodes; types by priority."""
    hyperpod("apply", "-f", str(SPECS / "seed001-eks-flexible.json"), "--yes", "--wait", "Target", "--timeout", "60")
    spec = json.loads((SPECS / "seed001-eks-flexible.json").read_text())
    spec["InstanceGroups"][0]["InstanceCount"] = 14
    bigger = Path("flex14.json")
    bigger.write_text(json.dumps(spec))
    result = json.loads(hyperpod("apply", "-f", str(bigger), "--yes", "--wait", "Target", "--timeout", "60", "--json"))
    assert result["result"]["calls"] == ["BatchAddClusterNodes"]
    status = json.loads(hyperpod("status", "hp-eks-flexible", "--json"))
    assert status["groups"][0]["current"] == 14
    assert status["groups"][0]["instance_types"] == ["ml.p5.48xlarge", "ml.p4d.24xlarge", "ml.g6.48xlarge"]


def test_bad_spec_is_rejected_with_exit_1_and_no_call(world, tmp_path):
    bad = tmp_path / "bad.json"
    data = json.loads((SPECS / "seed000-create-cluster.json").read_text())
    data["InstanceGroups"][2]["MinInstanceCount"] = 99
    bad.write_text(json.dumps(data))
    result = CliRunner().invoke(main, ["--backend", "fake", "apply", "-f", str(bad), "--yes"])
    assert result.exit_code == 1
    assert "InstanceGroups[2].MinInstanceCount" in result.output and "Traceback" not in result.output
    assert Simulator.open_default().calls == []


def test_refused_plan_exits_2_and_changes_nothing(world, tmp_path):
    hyperpod("apply", "-f", str(SPECS / "seed004-scale-out.json"), "--yes", "--wait", "Target", "--timeout", "60")
    policy = tmp_path / "policy.yaml"
    policy.write_text("max_scale_in_fraction: 0.5\n")
    before = len(Simulator.open_default().calls)
    output = hyperpod("apply", "-f", str(SPECS / "seed004-scale-in.json"), "--yes", "--policy", str(policy), code=2)
    assert "max_scale_in_fraction" in output
    mutating = [op for op, _ in Simulator.open_default().calls[before:] if not op.startswith(("Describe", "List"))]
    assert mutating == []
