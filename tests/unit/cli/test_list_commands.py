"""`hyperpod list`: every cluster of the region (every ListClusters page) with its status,
orchestrator, groups, nodes running of the target and age; `hyperpod gcp list` the same columns."""

from __future__ import annotations

import datetime as dt
import json
import shutil

import pytest

from pulumi_hyperpod.cli.list_commands import age_text, aws_rows
from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.sim.aws import Simulator
from tests.support.sim_helpers import eks_request, group, seed000_request
from tests.support.cli import SPECS, hyperpod, use_fake_world


def test_every_page_of_list_clusters_is_read_and_each_cluster_described():
    sim = Simulator(seed=3)
    client = connect(backend="fake", simulator=sim)
    client.create_cluster(**seed000_request("slurm-one", workers=2))
    sim.advance(60)
    client.create_cluster(**eks_request("eks-two", [group("pool", 3), group("spare", 0)]))
    sim.advance(60)
    client.create_cluster(**eks_request("eks-three", [group("pool", 1)]))
    sim.advance(1800)
    sim.reset_calls()
    rows = aws_rows(client, page_size=1, now=sim.now() + dt.timedelta(hours=2))
    assert [op for op, _ in sim.calls].count("ListClusters") >= 3  # one cluster a page
    assert [(r["name"], r["orchestrator"], r["groups"], r["nodes_current"], r["nodes_target"]) for r in rows] == [
        ("slurm-one", "Slurm", 3, 4, 4),
        ("eks-two", "Eks", 2, 3, 3),
        ("eks-three", "Eks", 1, 1, 1),
    ]
    assert all(r["status"] == "InService" for r in rows)
    assert rows[0]["age_seconds"] > rows[2]["age_seconds"] >= 2 * 3600
    assert [r["name"] for r in aws_rows(client, "eks")] == ["eks-two", "eks-three"]


@pytest.mark.parametrize("seconds, text", [(None, "-"), (40, "40s"), (300, "5m"), (8000, "2h13m"), (3 * 86400 + 7200, "3d2h"), (-5, "0s")])
def test_ages_read_in_two_units(seconds, text):
    assert age_text(seconds) == text


def test_the_cli_lists_as_a_table_and_as_json(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    assert "no clusters in us-west-2" in hyperpod("list")
    hyperpod("apply", "-f", str(SPECS / "seed004-initial.json"), "--yes", "--timeout", "60")
    table = hyperpod("list")
    assert "leo-stg-hyperpod-cluster" in table and "InService" in table and "Slurm" in table and "2/2" in table
    [row] = json.loads(hyperpod("list", "--json"))
    assert row["name"] == "leo-stg-hyperpod-cluster" and row["arn"].startswith("arn:aws:sagemaker:")
    assert (row["groups"], row["nodes_current"], row["nodes_target"]) == (2, 2, 2)


def test_gcp_list_shows_the_same_columns(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    spec = tmp_path / "gcp.json"
    shutil.copy(SPECS.parent / "gcp-training-cluster" / "cluster.json", spec)
    hyperpod("gcp", "apply", "-f", str(spec), "--yes")
    [row] = json.loads(hyperpod("gcp", "--project", "my-project", "--location", "us-central1", "list", "--json"))
    assert row["status"] == "RUNNING" and row["orchestrator"] == "Slurm"
    assert row["groups"] >= 1 and row["nodes_current"] == row["node_count"] > 0
    table = hyperpod("gcp", "--project", "my-project", "--location", "us-central1", "list")
    assert "llmtrain" in table and "RUNNING" in table and "age" in table
