"""Issue 12, item 19: tables printed to a pipe or a file (a CI log) are not wrapped at 80 columns:
every row stays on one line, whatever its length."""

from __future__ import annotations

import pytest

from tests.support.input_cli import SPECS, run

NAME = "my-training-cluster"


@pytest.fixture
def cluster(world, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    assert run("apply", "-f", str(SPECS / "seed000-create-cluster.json"), "--yes", "--wait", "InService").code == 0
    return NAME


def test_events_keep_each_description_on_its_line(cluster):
    from pulumi_hyperpod.sim.aws import Simulator

    descriptions = [e["Description"] for e in Simulator.open_default().client().list_cluster_events(ClusterName=cluster)["Events"]]
    long = [d for d in descriptions if len(d) > 60]
    assert long, descriptions
    output = run("events", cluster).output
    for description in long:
        assert any(description in line for line in output.splitlines()), (description, output)


def test_nodes_keep_each_node_on_its_line(cluster):
    from pulumi_hyperpod.sim.aws import Simulator

    nodes = Simulator.open_default().client().list_cluster_nodes(ClusterName=cluster, IncludeNodeLogicalIds=True)["ClusterNodeSummaries"]
    output = run("nodes", cluster).output
    for node in nodes:
        line = next(line for line in output.splitlines() if node["InstanceId"] in line)
        assert node["NodeLogicalId"] in line and node["InstanceType"] in line, line


def test_cost_and_status_rows_are_not_wrapped(cluster):
    for command in ("cost", "status"):
        output = run(command, cluster).output
        assert max(len(line) for line in output.splitlines()) > 80 or command == "status", output
        assert not any(line.strip() in ("│", "|") for line in output.splitlines())
    cost = run("cost", cluster).output
    assert any("worker-gpu-a" in line and "ml.p5.48xlarge" in line for line in cost.splitlines()), cost


def test_columns_still_wins_when_set(cluster, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    assert max(len(line) for line in run("nodes", cluster).output.splitlines()) <= 60
