"""`hyperpod plan|apply -f CLUSTER --slurm SLURM` on files written for `slurm render`: a cluster.json
without SlurmConfig (a Continuous cluster needs it) takes each group's role from the Slurm spec, as
render fills it in — examples/slurm-training-cluster's own two files plan and apply as they are."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import hyperpod, use_fake_world
from tests.support.paths import EXAMPLES

EXAMPLE = EXAMPLES / "slurm-training-cluster"
CLUSTER, SLURM = str(EXAMPLE / "cluster.json"), str(EXAMPLE / "slurm.json")


def test_the_example_files_plan_and_apply_as_they_are(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    assert all("SlurmConfig" not in g for g in json.loads(Path(CLUSTER).read_text())["InstanceGroups"])
    plan = json.loads(hyperpod("plan", "-f", CLUSTER, "--slurm", SLURM, "--json"))
    (step,) = plan["steps"]
    roles = {g["InstanceGroupName"]: g["SlurmConfig"] for g in step["request"]["InstanceGroups"]}
    assert roles == {
        "controller": {"NodeType": "Controller"},
        "login": {"NodeType": "Login"},
        "a4": {"NodeType": "Compute", "PartitionNames": ["a4"]},
    }
    hyperpod("apply", "-f", CLUSTER, "--slurm", SLURM, "--yes", "--wait", "none")
    # the running cluster's bundle was never uploaded to the (simulated) S3 bucket: its Slurm spec
    # cannot be read, so the Slurm changes are unknown, which is a refusal, never "safe to apply"
    again = hyperpod("plan", "-f", CLUSTER, "--slurm", SLURM, code=2)
    assert "Slurm changes" in again and "slurm-unknown" in again


def test_without_slurm_the_cluster_file_is_still_refused_naming_the_field(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    out = hyperpod("plan", "-f", CLUSTER, code=1)
    assert "InstanceGroups[0].SlurmConfig: is required" in out


def test_a_pool_the_cluster_lacks_is_the_error_not_the_role(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    slurm = json.loads(Path(SLURM).read_text())
    slurm["partitions"][0]["node_pool_ids"] = ["a5"]
    bad = tmp_path / "slurm.json"
    bad.write_text(json.dumps(slurm))
    out = hyperpod("plan", "-f", CLUSTER, "--slurm", str(bad), code=1)
    assert "a5" in out and "error" in out
