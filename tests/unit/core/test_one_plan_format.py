"""Issue 25's done-when, through the CLI on the simulators: seed 004's HyperPod cluster and seed
002's Google Cloud cluster go through `hyperpod plan --out` / `hyperpod apply --plan` with one plan
file format, `hyperpod-plan/3`, which names the cloud; the same command applies either."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import hyperpod, use_fake_world
from tests.support.paths import EXAMPLES

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


def _grown(cloud: str, directory: Path) -> Path:
    """The seed's cluster with more nodes: seed 004's scale-out, seed 002's login pool from 1 to 2."""
    if cloud == "aws":
        return EXAMPLES / "specs" / "seed004-scale-out.json"
    document = json.loads(SEEDS["gcp"][0].read_text())
    login = next(pool for pool in document["node_pools"] if pool["id"] == "login")
    login["scaling_spec"] = {"min_node_count": 2, "max_node_count": 2}
    path = directory / "grown.json"
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize("cloud", sorted(SEEDS))
def test_both_clouds_take_the_same_path_from_create_to_delete(cloud, tmp_path, monkeypatch):
    """create, grow, no change, delete — each cloud through the one pipeline (core/cloud.py) and the
    one plan file (core/planfile.py), the saved plan read back as the same Prepared shape."""
    from pulumi_hyperpod.core import planfile
    from pulumi_hyperpod.core.cloud import Prepared

    use_fake_world(monkeypatch, tmp_path)
    spec, _call = SEEDS[cloud]
    hyperpod("plan", "-f", str(spec), "--out", "create.json")
    hyperpod("apply", "--plan", "create.json", "--yes", *(("--wait", "Target", "--timeout", "600") if cloud == "aws" else ()))

    grown = _grown(cloud, tmp_path)
    hyperpod("plan", "-f", str(grown), "--out", "grow.json", code=0)
    saved = json.loads((tmp_path / "grow.json").read_text())
    assert (saved["format"], saved["cloud"]) == ("hyperpod-plan/3", cloud)
    assert [step["kind"] for step in saved["plan"]["steps"]] in (["update-cluster"], ["add-nodes"])
    loaded = planfile.load(tmp_path / "grow.json", target={"backend": "fake"})
    assert isinstance(loaded, Prepared) and loaded.cloud == cloud
    assert json.loads(loaded.plan.to_json())["steps"] == saved["plan"]["steps"]
    out = hyperpod("apply", "--plan", "grow.json", "--yes", *(("--wait", "Target", "--timeout", "600") if cloud == "aws" else ()))
    assert "outcome: done" in out

    hyperpod("plan", "-f", str(grown), "--detailed-exitcode", code=0)  # 0: nothing left to do
    if cloud == "aws":
        name = json.loads(spec.read_text())["ClusterName"]
        out = hyperpod("delete", name, "--yes")
        assert f"cluster {name} deleted" in out
    else:
        out = hyperpod("gcp", "delete", "-f", str(grown), "--yes")
        assert "DeleteModelDevelopmentCluster" in out or "delete" in out.lower()
    hyperpod("plan", "-f", str(spec), "--detailed-exitcode", code=3)  # gone: a create again
