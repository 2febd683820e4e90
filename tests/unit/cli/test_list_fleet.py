"""`hyperpod list --fleet FLEET` through the simulator's endpoint (in this process): the clusters of
two accounts in two regions, each account read through its 12-digit key, with account and region
columns; a region that cannot be read is one error line naming it (exit 1), the rest still listed.
docs/fleet.md's "Listing a fleet" runs here."""

from __future__ import annotations

import json

import botocore.session
import pytest
import yaml
from click.testing import CliRunner

from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.cli import main
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.sim.server import Worlds
from tests.support.serve import served
from tests.support.cli import use_fake_world
from tests.support.sim_helpers import seed000_request

EAST, WEST = "111122223333", "444455556666"
# (account, region, cluster): each account has a cluster in each region, two of them named alike
CLUSTERS = [
    (EAST, "us-west-2", "train"),
    (EAST, "us-east-1", "east-only"),
    (WEST, "us-west-2", "train"),
    (WEST, "us-east-1", "west-infer"),
]


@pytest.fixture
def endpoint(monkeypatch):
    """The endpoint over a world holding CLUSTERS, each made with its account's key; no credentials
    in this environment, so a stack that names none cannot be read."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_REGION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("COLUMNS", "200")
    sim = Simulator(seed=5)
    for account, region, name in CLUSTERS:
        client = botocore.session.get_session().create_client(
            "sagemaker", region_name=region, aws_access_key_id=account, aws_secret_access_key="not-checked"
        )
        sim.attach(client).create_cluster(**seed000_request(name, workers=1, worker_type="ml.c5.xlarge"))
    sim.advance(3600)
    with served(Worlds(sim, GcpSimulator())) as url:
        yield url


def fleet_file(tmp_path, url, *extra):
    stacks = [
        {"name": f"{account[:4]}-{region}", "project": ".", "stack": region, "account": account, "region": region, "backend": "fake"}
        for account, region, _ in CLUSTERS
    ]
    path = tmp_path / "fleet.yaml"
    path.write_text(yaml.safe_dump({"stacks": [*stacks, *extra]}))
    return str(path)


def list_fleet(url, path, *options):
    return CliRunner().invoke(main, ["--endpoint-url", url, "list", "--fleet", path, *options], catch_exceptions=False)


def test_every_account_and_region_is_listed_through_its_key(tmp_path, endpoint):
    result = list_fleet(endpoint, fleet_file(tmp_path, endpoint), "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(row["account"], row["region"], row["name"]) for row in rows] == CLUSTERS
    assert all(row["arn"].startswith(f"arn:aws:sagemaker:{row['region']}:{row['account']}:cluster/") for row in rows)
    assert [(row["status"], row["orchestrator"], row["groups"], row["nodes_target"]) for row in rows] == [("InService", "Slurm", 3, 3)] * 4


def test_the_table_has_account_and_region_columns(tmp_path, endpoint):
    result = list_fleet(endpoint, fleet_file(tmp_path, endpoint))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "HyperPod clusters of the fleet" in result.stdout
    header = next(line for line in lines if "status" in line)
    assert [word for word in header.replace("┃", " ").replace("|", " ").split()][:3] == ["account", "region", "name"], header
    for account, region, name in CLUSTERS:
        assert any(account in line and region in line and f" {name} " in line and "InService" in line for line in lines), (account, region)


def test_a_region_that_cannot_be_read_is_one_line_and_the_rest_are_listed(tmp_path, endpoint, monkeypatch):
    monkeypatch.setenv("HYPERPOD_MAX_ATTEMPTS", "1")
    # no account, backend aws: the runner's credentials, of which this environment has none
    nobody = {"name": "nobody", "project": ".", "stack": "n", "region": "eu-west-1"}
    result = list_fleet(endpoint, fleet_file(tmp_path, endpoint, nobody), "--json")
    assert result.exit_code == 1
    assert [(row["account"], row["region"]) for row in json.loads(result.stdout)] == [(a, r) for a, r, _ in CLUSTERS]
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: account default region eu-west-1: ") and "credentials" in line.lower(), line


def test_name_contains_applies_in_every_region(tmp_path, endpoint):
    result = list_fleet(endpoint, fleet_file(tmp_path, endpoint), "--name-contains", "train", "--json")
    assert result.exit_code == 0, result.output
    assert [(row["account"], row["name"]) for row in json.loads(result.stdout)] == [(EAST, "train"), (WEST, "train")]


def test_a_bad_fleet_file_is_one_line_before_any_call(tmp_path, endpoint):
    path = tmp_path / "fleet.yaml"
    path.write_text('stacks:\n  - {name: a, project: ., stack: a, region: us-west-2, account: "12345"}\n')
    result = list_fleet(endpoint, str(path))
    assert result.exit_code == 1
    assert result.stderr.strip() == f"error: {path}: stacks[0].account: an AWS account id is 12 digits; got '12345'"


def test_with_the_local_world_each_account_acts_through_its_key(tmp_path, monkeypatch):
    """`--backend fake`: the persistent world answers in this process, each account through the
    access key `connect` signs with (its 12 digits), as the endpoint does."""
    use_fake_world(monkeypatch, tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    for account, region, name in CLUSTERS:
        client = connect(backend="fake", region=region, access_key=(account, "not-checked"))
        client.create_cluster(**seed000_request(name, workers=1, worker_type="ml.c5.xlarge"))
    path = fleet_file(tmp_path, "unused")
    result = CliRunner().invoke(main, ["--backend", "fake", "list", "--fleet", path, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(row["account"], row["region"], row["name"]) for row in rows] == CLUSTERS
    assert [row["arn"].split(":")[4] for row in rows] == [account for account, _, _ in CLUSTERS]
