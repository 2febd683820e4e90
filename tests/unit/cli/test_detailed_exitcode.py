"""`plan --detailed-exitcode` for CI: 3 when the plan changes something, 0 when it changes nothing,
and still 2 for a refused plan and 1 for an error — on HyperPod and on Google Cloud (the same flag
on `hyperpod plan -f GCP-SPEC` and `hyperpod gcp plan`)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.support.cli import SPECS, hyperpod, use_fake_world

GCP_EXAMPLE = SPECS.parent / "gcp-training-cluster" / "cluster.json"


@pytest.fixture
def world(tmp_path, monkeypatch):
    return use_fake_world(monkeypatch, tmp_path)


def test_hyperpod_plan_exits_3_while_there_are_changes_and_0_once_there_are_none(world):
    spec = str(SPECS / "seed004-initial.json")
    assert "CreateCluster" in hyperpod("plan", "-f", spec, "--detailed-exitcode", code=3)
    hyperpod("plan", "-f", spec)  # without the flag: 0 as before
    hyperpod("apply", "-f", spec, "--yes", "--timeout", "60")
    assert "No changes" in hyperpod("plan", "-f", spec, "--detailed-exitcode")
    assert (
        json.loads(hyperpod("plan", "-f", str(SPECS / "seed004-scale-out.json"), "--json", "--detailed-exitcode", code=3))["empty"] is False
    )


def test_a_refused_plan_exits_2_and_bad_input_1_even_with_the_flag(world, tmp_path):
    hyperpod("apply", "-f", str(SPECS / "seed004-scale-out.json"), "--yes", "--wait", "Target", "--timeout", "60")
    policy = tmp_path / "policy.yaml"
    policy.write_text("max_scale_in_fraction: 0.5\n")
    hyperpod("plan", "-f", str(SPECS / "seed004-scale-in.json"), "--policy", str(policy), "--detailed-exitcode", code=2)
    broken = tmp_path / "broken.json"
    broken.write_text('{"ClusterName": "x"}')
    hyperpod("plan", "-f", str(broken), "--detailed-exitcode", code=1)


def test_a_google_cloud_spec_gets_the_same_codes_through_both_commands(world, tmp_path):
    spec = tmp_path / "gcp-cluster.json"
    shutil.copy(GCP_EXAMPLE, spec)
    hyperpod("plan", "-f", str(spec), "--detailed-exitcode", code=3)
    hyperpod("gcp", "plan", "-f", str(spec), "--detailed-exitcode", code=3)
    hyperpod("gcp", "apply", "-f", str(spec), "--yes")
    hyperpod("plan", "-f", str(spec), "--detailed-exitcode")
    hyperpod("gcp", "plan", "-f", str(spec), "--detailed-exitcode")
