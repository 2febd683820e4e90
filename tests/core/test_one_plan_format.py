"""Issue 25's done-when, through the CLI on the simulators: seed 004's HyperPod cluster and seed
002's Google Cloud cluster go through `hyperpod plan --out` / `hyperpod apply --plan` with one plan
file format, `hyperpod-plan/3`, which names the cloud; the same command applies either."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import hyperpod, use_fake_world

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SEEDS = {
    "aws": (EXAMPLES / "specs" / "seed004-initial.json", "CreateCluster"),
    "gcp": (EXAMPLES / "gcp-training-cluster" / "cluster.json", "CreateModelDevelopmentCluster"),
}


@pytest.mark.parametrize("cloud", sorted(SEEDS))
def test_plan_out_then_apply_plan_with_one_format(cloud, tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    spec, call = SEEDS[cloud]
    hyperpod("plan", "-f", str(spec), "--out", "plan.json")
    saved = json.loads((tmp_path / "plan.json").read_text())
    assert (saved["format"], saved["cloud"], saved["plan"]["format"]) == ("hyperpod-plan/3", cloud, "hyperpod-plan/3")
    assert [step["kind"] for step in saved["plan"]["steps"]] == ["create-cluster"]
    assert [step["codes"] for step in saved["plan"]["steps"]] == [["absent"]]
    out = hyperpod("apply", "--plan", "plan.json", "--yes")
    assert call in out and "outcome: done" in out
    again = hyperpod("apply", "--plan", "plan.json", "--yes", code=1)  # made to create: the cluster exists now
    assert "make the plan again" in again or "plan again" in again


def test_a_plan_file_of_one_cloud_is_not_applied_as_the_other(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    hyperpod("plan", "-f", str(SEEDS["aws"][0]), "--out", "aws.json")
    out = hyperpod("gcp", "apply", "--plan", "aws.json", "--yes", code=1)
    assert "a HyperPod (AWS) plan, applied as a Google Cloud one" in out.replace("\n", " ")
