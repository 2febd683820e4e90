"""Waiting is part of apply (issue 12, items 9 and 10): a re-run with nothing to call still waits;
at the deadline only a Continuous cluster waiting for capacity ends `waiting` (exit 0), anything
else short of its wait target is an error (exit 1); a timeout of 0 or less is refused."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pulumi_hyperpod import ClusterSpec, apply, connect, observe
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.cli import main
from pulumi_hyperpod.sim.aws import Simulator
from tests.support.cli import use_fake_world

from tests.support.factories import slurm_spec

SLOW = {"timing": {"launch_seconds": 600, "lifecycle_seconds": 600}}


def virtual(sim: Simulator) -> dict:
    return {"sleep": sim.advance, "monotonic": lambda: sim.now().timestamp(), "poll_seconds": 60}


def test_nothing_to_call_still_waits_for_the_target():
    sim = Simulator(seed=9, scenario=SLOW)
    client = connect(backend="fake", simulator=sim)
    desired = slurm_spec(workers=3, continuous=False)
    apply(client, plan(desired, None), wait="none", timeout=60)  # created, still Creating: the run "crashed"
    again = plan(desired, observe(client, desired.name))
    assert again.empty and observe(client, desired.name).status == "Creating"

    result = apply(client, again, wait="Target", timeout=7200, **virtual(sim))

    assert result.ok and result.calls == []
    assert result.state.status == "InService" and result.state.group("worker-gpu-a").current_count == 3


def test_an_all_or_nothing_cluster_short_of_its_target_at_the_deadline_is_an_error():
    sim = Simulator(seed=9, scenario=SLOW)
    client = connect(backend="fake", simulator=sim)
    desired = slurm_spec(workers=3, continuous=False)
    result = apply(client, plan(desired, None), wait="Target", timeout=300, **virtual(sim))
    assert result.outcome == "timeout" and not result.ok
    assert any("deadline passed" in f for f in result.failures)


def test_a_continuous_cluster_waiting_for_capacity_at_the_deadline_is_waiting():
    sim = Simulator(seed=9, scenario={"capacity": [{"instance_type": "ml.p5.48xlarge", "available": 1}]})
    client = connect(backend="fake", simulator=sim)
    result = apply(client, plan(slurm_spec(workers=3), None), wait="Target", timeout=3600, **virtual(sim))
    assert result.outcome == "waiting" and result.failures == []
    assert any("keeps provisioning" in m for m in result.messages)


@pytest.mark.parametrize("timeout", [0, -5])
def test_a_timeout_of_zero_or_less_is_refused_before_any_call(timeout):
    sim = Simulator(seed=9)
    client = connect(backend="fake", simulator=sim)
    with pytest.raises(ValueError, match="timeout must be more than 0"):
        apply(client, plan(slurm_spec(), None), timeout=timeout)
    assert sim.calls == []


def test_cli_apply_wait_target_on_a_matching_creating_cluster_waits(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(slurm_spec(workers=2, continuous=False).to_api()))
    runner = CliRunner()
    first = runner.invoke(main, ["--backend", "fake", "apply", "-f", str(spec_file), "--yes", "--wait", "none"])
    assert first.exit_code == 0, first.output
    again = runner.invoke(main, ["--backend", "fake", "apply", "-f", str(spec_file), "--yes", "--wait", "Target", "--timeout", "1200"])
    assert again.exit_code == 0, again.output
    assert "No changes" in again.output and "outcome: done" in again.output
    state = observe(connect(backend="fake", simulator=Simulator.open_default()), ClusterSpec.from_file(spec_file).name)
    assert state.status == "InService" and state.group("worker-gpu-a").current_count == 2
