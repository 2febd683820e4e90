"""Cluster extensions through the real CLI (`hyperpod --backend fake`) on a persistent simulated world,
read back through the real botocore client (issue 41: "an extension added and removed"): an extension
added and removed with `hyperpod apply`, the plan empty after each; a spec without `Extensions`
leaves them alone; a saved plan whose extension moved since is refused naming it, nothing sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pulumi_hyperpod.sim.aws import Simulator
from tests.support.cli import SPECS, hyperpod, use_fake_world

OBS = "sagemaker-observability"
NAME = "extensions-scenario"


def _write(directory: Path, extensions: Any) -> str:
    data = json.loads((SPECS / "workload-slurm-1.json").read_text())  # Slurm, Continuous: a cluster that takes extensions
    data["ClusterName"] = NAME
    if extensions is not None:
        data["Extensions"] = extensions
    path = directory / "cluster.json"
    path.write_text(json.dumps(data))
    return str(path)


def _installed(state: Path) -> list[tuple[str, str, str]]:
    client = Simulator(state).client()
    arn = client.describe_cluster(ClusterName=NAME)["ClusterArn"]
    found = []
    for summary in client.list_cluster_extensions(ClusterArn=arn)["Extensions"]:
        details = client.describe_cluster_extension(ClusterArn=arn, ExtensionArn=summary["ExtensionArn"])["ExtensionDetails"]
        found.append((details["ExtensionName"], details["Status"], details["ConfigurationValues"]))
    return found


@pytest.fixture()
def world(monkeypatch, tmp_path) -> Path:
    state = use_fake_world(monkeypatch, tmp_path)
    hyperpod("apply", "-f", _write(tmp_path, None), "--yes", "--timeout", "600")
    return state


def test_an_extension_added_and_removed_through_apply_each_then_planned_empty(world: Path, tmp_path: Path) -> None:
    spec = _write(tmp_path, [{"ExtensionName": OBS, "ConfigurationValues": '{"logs": true}'}])
    out = hyperpod("apply", "-f", spec, "--yes", "--timeout", "600")
    assert "calls: CreateClusterExtension" in out and "outcome: done" in out
    assert _installed(world) == [(OBS, "Active", '{"logs": true}')]
    assert "No changes" in hyperpod("plan", "-f", spec)

    spec = _write(tmp_path, [{"ExtensionName": OBS, "ConfigurationValues": '{"logs": false}'}])
    assert "calls: UpdateClusterExtension" in hyperpod("apply", "-f", spec, "--yes", "--timeout", "600")
    assert _installed(world) == [(OBS, "Active", '{"logs": false}')]
    assert "No changes" in hyperpod("plan", "-f", spec)

    spec = _write(tmp_path, [])
    out = hyperpod("apply", "-f", spec, "--yes", "--timeout", "600")
    assert "calls: DeleteClusterExtension" in out and "outcome: done" in out
    assert _installed(world) == []  # apply waited until it was gone from every node
    assert "No changes" in hyperpod("plan", "-f", spec)

    # added again: a new extension, not the earlier request's answer (the same request, the same token)
    spec = _write(tmp_path, [{"ExtensionName": OBS, "ConfigurationValues": '{"logs": true}'}])
    assert "calls: CreateClusterExtension" in hyperpod("apply", "-f", spec, "--yes", "--timeout", "600")
    assert _installed(world) == [(OBS, "Active", '{"logs": true}')]


def test_a_new_cluster_is_created_with_its_extension(monkeypatch, tmp_path: Path) -> None:
    state = use_fake_world(monkeypatch, tmp_path)
    spec = _write(tmp_path, [{"ExtensionName": OBS}])
    assert "calls: CreateCluster, CreateClusterExtension" in hyperpod("apply", "-f", spec, "--yes", "--timeout", "600")
    assert [(name, status) for name, status, _ in _installed(state)] == [(OBS, "Active")]
    assert "No changes" in hyperpod("plan", "-f", spec)


def test_a_spec_without_extensions_leaves_them_alone_and_reads_none(world: Path, tmp_path: Path) -> None:
    hyperpod("apply", "-f", _write(tmp_path, [{"ExtensionName": OBS}]), "--yes", "--timeout", "600")
    sim = Simulator(world)
    before = len(sim.calls)
    assert "No changes" in hyperpod("plan", "-f", _write(tmp_path, None))
    assert not [op for op, _ in Simulator(world).calls[before:] if "Extension" in op]
    assert [name for name, _, _ in _installed(world)] == [OBS]
    before = len(sim.calls)
    hyperpod("plan", "-f", _write(tmp_path, [{"ExtensionName": OBS}]))  # a spec naming them reads them: what was not read above
    assert [op for op, _ in Simulator(world).calls[before:] if "Extension" in op] == ["ListClusterExtensions", "DescribeClusterExtension"]


def test_a_saved_plan_whose_extension_changed_since_is_refused_naming_it(world: Path, tmp_path: Path) -> None:
    hyperpod(
        "apply", "-f", _write(tmp_path, [{"ExtensionName": OBS, "ConfigurationValues": '{"logs": true}'}]), "--yes", "--timeout", "600"
    )
    hyperpod("plan", "-f", _write(tmp_path, []), "--out", "remove.json")
    client = Simulator(world).client()  # another writer changes the extension between plan and apply
    arn = client.describe_cluster(ClusterName=NAME)["ClusterArn"]
    extension = client.list_cluster_extensions(ClusterArn=arn)["Extensions"][0]["ExtensionArn"]
    client.update_cluster_extension(ClusterArn=arn, ExtensionArn=extension, ConfigurationValues='{"logs": false}')
    out = hyperpod("apply", "--plan", "remove.json", "--yes", code=1)
    assert "stale plan" in out and f"extension {OBS}: its configuration changed since" in out
    assert [name for name, _, _ in _installed(world)] == [OBS]  # nothing sent


def test_a_saved_removal_acts_once(world: Path, tmp_path: Path) -> None:
    hyperpod("apply", "-f", _write(tmp_path, [{"ExtensionName": OBS}]), "--yes", "--timeout", "600")
    hyperpod("plan", "-f", _write(tmp_path, []), "--out", "remove.json")
    assert "calls: DeleteClusterExtension" in hyperpod("apply", "--plan", "remove.json", "--yes", "--timeout", "600")
    again = hyperpod("apply", "--plan", "remove.json", "--yes", code=1)
    assert "stale plan" in again and f"extension {OBS}: it was removed since" in again
