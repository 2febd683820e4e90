"""The preflight section in the plan's table and JSON, and through the `hyperpod` CLI on the
simulator's persistent world (seed 004's cluster, with quotas in the world's scenario)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.plans import Plan, plan_text
from tests.support.cli import SPECS, hyperpod, use_fake_world

from .conftest import LIFECYCLE_V2, g5_quota, spec

SEED004 = "leo-stg-hyperpod-cluster"


def test_the_section_is_in_the_table_and_the_json(make_world):
    world = make_world({"quotas": [g5_quota(4)]})
    world.build(spec(workers=2))
    world.build(spec(workers=2, lifecycle=LIFECYCLE_V2))

    the_plan = world.checked(spec(workers=5, lifecycle=LIFECYCLE_V2))

    text = plan_text(the_plan)
    assert "REFUSED [service-quota]" in text
    preflight = text[text.index("Preflight:") :]
    assert "ml.g5.xlarge for cluster usage" in preflight and "OVER +3" in preflight
    assert "lifecycle consistency: workers: LifeCycleConfig differs" in preflight
    assert "verdict: REFUSED (1: service-quota)" in preflight
    data = json.loads(the_plan.to_json())["preflight"]
    assert data["verdict"] == "refused" and data["refused_by"] == ["service-quota"]
    assert {"quotas", "consistency", "warnings"} <= set(data) and "lines" not in data  # data, rendered at the edges
    assert Plan.from_dict(json.loads(the_plan.to_json())).preflight == the_plan.preflight  # a saved plan keeps it


@pytest.fixture
def world(tmp_path, monkeypatch):
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"quotas": [g5_quota(2)]}))
    monkeypatch.setenv("HYPERPOD_FAKE_SCENARIO", str(scenario))
    use_fake_world(monkeypatch, tmp_path)
    return tmp_path


def test_cli_refuses_the_seed_004_scale_out_past_the_quota(world):
    out = hyperpod("apply", "-f", str(SPECS / "seed004-initial.json"), "--yes", "--timeout", "60")
    assert "Preflight:" in out and "verdict: safe to apply:" in out

    text = hyperpod("plan", "-f", str(SPECS / "seed004-scale-out.json"), code=2)  # 1 → 3 ml.g5.xlarge, quota 2
    assert "REFUSED [service-quota]" in text and "OVER +2" in text
    plan = json.loads(hyperpod("plan", "-f", str(SPECS / "seed004-scale-out.json"), "--json", code=2))
    [check] = [c for c in plan["preflight"]["quotas"]["checks"] if c["instance_type"] == "ml.g5.xlarge"]
    assert (check["quota"], check["in_use"], check["after"]) == (2, 1, 3)

    before = len(Simulator.open_default().calls)
    refused = CliRunner().invoke(main, ["--backend", "fake", "apply", "-f", str(SPECS / "seed004-scale-out.json"), "--yes"])
    assert refused.exit_code == 2 and "1 → 3" in refused.output and "nothing was changed" in refused.output
    assert [op for op, _ in Simulator.open_default().calls[before:] if op.startswith(("Update", "Batch"))] == []


def test_cli_offline_plan_makes_no_call_and_says_preflight_was_skipped(world):
    hyperpod("apply", "-f", str(SPECS / "seed004-initial.json"), "--yes", "--timeout", "60")
    snapshot = world / "one.json"
    snapshot.write_text(hyperpod("snapshot", SEED004))
    before = len(Simulator.open_default().calls)

    out = CliRunner().invoke(main, ["plan", "-f", str(SPECS / "seed004-scale-out.json"), "--observed", str(snapshot)]).output

    assert "skipped: planned offline from a snapshot (--observed)" in out and "REFUSED" not in out
    assert len(Simulator.open_default().calls) == before


def test_cli_apply_no_preflight_skips_the_checks(world):
    hyperpod("apply", "-f", str(SPECS / "seed004-initial.json"), "--yes", "--timeout", "60")
    before = len(Simulator.open_default().calls)

    out = hyperpod("apply", "-f", str(SPECS / "seed004-scale-out.json"), "--yes", "--no-preflight", "--timeout", "60", code=1)

    # no quota was read, so nothing refused the plan here: the service itself refuses the call
    assert "skipped: --no-preflight" in out
    assert "UpdateCluster failed: ResourceLimitExceeded: The account-level service limit 'ml.g5.xlarge for cluster usage' is 2" in out
    called = [op for op, _ in Simulator.open_default().calls[before:]]
    assert "UpdateCluster" in called and "ListServiceQuotas" not in called
