"""Issue 24 item 5: `plan --slurm` and `slurm diff` check that partitions name real groups, as
`slurm check` does (a partition of a group `ghost` is bad input: exit 1 naming the file and path);
and when the cluster's bundle cannot be read, the Slurm side is a refusal saying why — never
"No changes" and never "safe to apply"."""

from __future__ import annotations

import json

from tests.support.slurm_examples import example_slurm
from tests.support.slurm_examples import _running_example_with_its_bundle, config
from tests.support.cli import hyperpod


def ghost_partition() -> dict:
    slurm = example_slurm()
    slurm["partitions"] = [*slurm["partitions"], {"id": "ghosts", "node_pool_ids": ["ghost"]}]
    return slurm


def test_plan_with_a_partition_of_a_missing_group_is_refused_as_bad_input(tmp_path, monkeypatch):
    rendering = _running_example_with_its_bundle(tmp_path, monkeypatch)
    cluster = tmp_path / "cluster.json"
    cluster.write_text(json.dumps(rendering.cluster_spec))
    wanted = tmp_path / "wanted.json"
    wanted.write_text(json.dumps(ghost_partition()))
    output = hyperpod("plan", "-f", str(cluster), "--slurm", str(wanted), "--no-preflight", code=1)
    assert "'ghost' is not an instance group of the cluster" in output and str(wanted) in output.replace("\n", "")
    assert "UpdateCluster" not in output


def test_slurm_diff_with_a_partition_of_a_missing_group_is_refused_as_bad_input(tmp_path, monkeypatch):
    _running_example_with_its_bundle(tmp_path, monkeypatch)
    wanted = tmp_path / "wanted.json"
    wanted.write_text(json.dumps(ghost_partition()))
    output = hyperpod("slurm", "diff", "a4-training", "--slurm", str(wanted), code=1)
    assert "'ghost' is not an instance group of the cluster" in output


def test_plan_when_the_bundle_cannot_be_read_is_refused_not_safe(tmp_path, monkeypatch):
    """The bundle's slurm-spec.json is gone (or unreadable): the plan says the Slurm side is unknown
    and refuses (exit 2) — not "No changes", not "safe to apply"."""
    from pulumi_hyperpod.aws.client import connect
    from pulumi_hyperpod.sim.aws import Simulator

    rendering = _running_example_with_its_bundle(tmp_path, monkeypatch)
    connect("fake", simulator=Simulator.open_default(), service="s3").delete_object(Bucket="bundles-bucket", Key="a4/slurm-spec.json")
    cluster = tmp_path / "cluster.json"
    cluster.write_text(json.dumps(rendering.cluster_spec))
    wanted = tmp_path / "wanted.json"
    wanted.write_text(json.dumps({**example_slurm(), "config": config(PreemptMode="CANCEL")}))
    output = hyperpod("plan", "-f", str(cluster), "--slurm", str(wanted), code=2)
    assert "slurm-unknown" in output and "has no slurm-spec.json" in output.replace("\n", " ")
    assert "safe to apply" not in output and "No changes" not in output
    data = json.loads(hyperpod("plan", "-f", str(cluster), "--slurm", str(wanted), "--json", code=2))
    assert [r["rule"] for r in data["refusals"]] == ["slurm-unknown"]


def test_slurm_diff_when_the_bundle_has_no_spec_is_a_refusal(tmp_path, monkeypatch):
    from pulumi_hyperpod.aws.client import connect
    from pulumi_hyperpod.sim.aws import Simulator

    _running_example_with_its_bundle(tmp_path, monkeypatch)
    connect("fake", simulator=Simulator.open_default(), service="s3").delete_object(Bucket="bundles-bucket", Key="a4/slurm-spec.json")
    wanted = tmp_path / "wanted.json"
    wanted.write_text(json.dumps(example_slurm()))
    output = hyperpod("slurm", "diff", "a4-training", "--slurm", str(wanted), code=2)
    assert "refused:" in output and "unknown" in output and "no change" not in output.lower().replace("no change can", "")
