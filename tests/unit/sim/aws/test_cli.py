"""`hyperpod fake reset|show`, `events`, `sinfo`, `cost` against the persistent simulator world."""

from __future__ import annotations

import datetime as dt
import json

import boto3
import click
import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import sim_commands
from pulumi_hyperpod.aws.cost import cost_report
from pulumi_hyperpod.sim.aws import Simulator
from tests.support.sim_helpers import SEED004_SCENARIO, eks_request, group, seed000_request, seed004_groups


@click.group()
@click.option("--backend", default="fake")
@click.option("--region", default=None)
@click.option("--profile", default=None)
@click.pass_context
def hyperpod(ctx, backend, region, profile):
    """Stand-in for the main group: the same ctx.obj contract."""
    ctx.obj = {"backend": backend, "region": region, "profile": profile}


for command in sim_commands.COMMANDS:
    hyperpod.add_command(command)


@pytest.fixture
def world(tmp_path, monkeypatch):
    path = tmp_path / ".hyperpod" / "fake.sqlite"
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(path))
    monkeypatch.setenv("COLUMNS", "240")  # wide tables: assertions read whole cells
    sim = Simulator(path, scenario={**SEED004_SCENARIO, "speed": 0})
    client = sim.client()
    client.create_cluster(**seed000_request(workers=2))
    client.create_cluster(ClusterName="leo", InstanceGroups=seed004_groups(2))
    sim.advance(1800)
    return sim


def run(*args: str):
    return CliRunner().invoke(hyperpod, list(args), catch_exceptions=False)


def test_commands_are_exported_for_the_main_group():
    assert [c.name for c in sim_commands.COMMANDS] == ["fake", "events", "sinfo", "cost"]
    assert set(sim_commands.fake.commands) == {"reset", "show", "advance", "serve", "workload", "fail-node", "alarm", "capacity"}


def test_fake_show_lists_clusters_counts_and_virtual_time(world):
    result = run("fake", "show", "--json")
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["virtual_time"].startswith(str(world.now().date()))
    clusters = {c["name"]: c for c in data["clusters"]}
    assert clusters["my-training-cluster"]["status"] == "InService"
    assert clusters["my-training-cluster"]["mode"] == "Continuous"
    assert clusters["leo"]["groups"][1] == {"name": "leo-stg-compute-ig", "status": "InService", "target": 2, "min": 0, "current": 2}
    table = run("fake", "show")
    assert "my-training-cluster" in table.output and "worker-gpu-a InService 2/2" in table.output


def test_fake_show_names_the_account_of_each_cluster_in_a_world_of_several(world):
    assert "account" not in run("fake", "show").output, "a world of one account shows no account column"
    other = boto3.client("sagemaker", region_name="us-west-2", aws_access_key_id="111111111111", aws_secret_access_key="not-checked")
    world.attach(other).create_cluster(ClusterName="leo", InstanceGroups=seed004_groups(1))
    clusters = json.loads(run("fake", "show", "--json").output)["clusters"]
    assert sorted((c["name"], c["account"]) for c in clusters if c["name"] == "leo") == [("leo", "111111111111"), ("leo", "123456789012")]
    table = run("fake", "show").output
    assert "account" in table and "111111111111" in table and "123456789012" in table


def test_fake_advance_fast_forwards_the_world(world):
    before = world.now()
    result = run("fake", "advance", "1h30m")
    assert result.exit_code == 0 and "advanced 5400 s" in result.output
    assert (world.now() - before).total_seconds() == 5400
    shown = run("fake", "show")
    assert "frozen" in shown.output, "a speed-0 world says its clock only moves when advanced"
    for bad in ("soon", "0s", "0.0m", "3x", "1h-5m"):
        refused = CliRunner().invoke(hyperpod, ["fake", "advance", bad])
        assert refused.exit_code == 1 and "duration" in refused.output, bad
    assert (world.now() - before).total_seconds() == 5400, "a refused duration moves nothing"


def test_fake_show_says_how_far_a_live_world_is_ahead(tmp_path, monkeypatch):
    path = tmp_path / "live" / "fake.sqlite"
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(path))
    monkeypatch.setenv("COLUMNS", "240")
    Simulator(path).advance(2 * 3600)
    data = json.loads(run("fake", "show", "--json").output)
    assert data["speed"] == 600 and 7200 <= data["ahead_of_wall_clock_seconds"] < 7300
    assert "2.00 h ahead" in run("fake", "show").output


def test_fake_reset_needs_yes_then_deletes(world, tmp_path):
    refused = CliRunner().invoke(hyperpod, ["fake", "reset"])
    assert refused.exit_code == 2 and "--yes" in refused.output
    assert run("fake", "reset", "--yes").output.startswith("deleted the simulated world")
    assert not (tmp_path / ".hyperpod" / "fake.sqlite").exists()
    assert "nothing to delete" in run("fake", "reset", "--yes").output


def test_events_through_the_paginator(world):
    result = run("events", "my-training-cluster", "--json", "--limit", "5")
    events = json.loads(result.output)
    assert len(events) == 5 and [e["EventTime"] for e in events] == sorted(e["EventTime"] for e in events)
    table = run("events", "my-training-cluster", "--resource-type", "Cluster")
    assert "creation completed successfully" in table.output
    failed = CliRunner().invoke(hyperpod, ["events", "leo"])
    assert failed.exit_code == 1 and "only supported for clusters whose NodeProvisioningMode is Continuous" in failed.output


def test_sinfo_table_plain_json_and_simulator_only(world):
    plain = run("sinfo", "leo", "--plain").output.splitlines()
    assert plain[0] == "PARTITION   AVAIL  TIMELIMIT  NODES  STATE NODELIST"
    assert plain[1].startswith("dev*") and plain[2].startswith("partition-1")
    rows = json.loads(run("sinfo", "leo", "--json").output)
    assert [(r["partition"], r["nodes"], r["state"]) for r in rows] == [("dev", 2, "idle"), ("partition-1", 2, "idle")]
    assert "partition-1" in run("sinfo", "leo").output
    aws = CliRunner().invoke(hyperpod, ["--backend", "aws", "sinfo", "leo"])
    assert aws.exit_code == 2 and "simulator-only" in aws.output
    missing = CliRunner().invoke(hyperpod, ["sinfo", "nope"])
    assert missing.exit_code == 1 and "no cluster nope in" in missing.output


def test_cost_from_simulator_metering(world):
    report = json.loads(run("cost", "leo", "--json").output)
    assert report["source"] == "simulator metering"
    assert set(report["groups"]) == {"leo-stg-head-ig", "leo-stg-compute-ig"}
    compute = report["groups"]["leo-stg-compute-ig"]
    assert compute["instances"] == 2 and compute["instance_hours"] == pytest.approx(2 * (1800 - 390) / 3600)
    since = (world.now() - dt.timedelta(minutes=10)).isoformat()
    recent = json.loads(run("cost", "leo", "--json", "--since", since).output)
    assert recent["groups"]["leo-stg-compute-ig"]["instance_hours"] == pytest.approx(2 * 600 / 3600)
    text = run("cost", "leo").output
    assert "leo-stg-compute-ig" in text and "simulator metering" in text
    bad = CliRunner().invoke(hyperpod, ["cost", "leo", "--since", "yesterday"])
    assert bad.exit_code == 2 and "ISO 8601" in bad.output


def test_cost_on_aws_is_estimated_from_launch_times(sim, client, monkeypatch):
    client.create_cluster(**eks_request("est", [group("a", 2), group("b", 1)]))
    sim.advance(300)
    now = sim.now() + dt.timedelta(hours=2)
    report = cost_report(client, "est", now=now).to_dict()
    assert report["groups"]["a"]["instances"] == 2
    assert report["groups"]["a"]["instance_hours"] == pytest.approx(2 * (2 + 300 / 3600))
    assert report["total_instance_hours"] == pytest.approx(3 * (2 + 300 / 3600))
    monkeypatch.setattr("pulumi_hyperpod.cli.common.connect", lambda **_: client)
    result = run("--backend", "aws", "cost", "est", "--json")
    assert json.loads(result.output)["source"] == "estimated from ListClusterNodes LaunchTime and ListClusterEvents"
