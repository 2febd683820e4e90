"""`hyperpod fleet plan` on the real engine (Automation API) against the simulator's endpoint:
two stacks whose scale-outs each fit their account's quota alone but not together are refused
(exit 2, naming both stacks), a refusal no single stack's preview gives; in two accounts the same
fleet passes. docs/fleet.md's example runs here.

The clusters are made in the simulated world first (one per stack, in the account its key names);
each stack adopts its cluster with a larger compute group, so its preview plans a scale-out
against the live cluster, with the preflight that reads the account's quota and usage.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
import threading

import botocore.session
import pytest
import yaml

from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.sim.server import SimulatorServer, Worlds
from tests.support.sim_helpers import LIFECYCLE, ROLE, group

from .conftest import engine_env, repo_venv

pytestmark = pytest.mark.engine

EAST, WEST = "111122223333", "444455556666"
KIND = "ml.c5.xlarge"

PROGRAM = textwrap.dedent(
    f'''\
    """A fleet member: one cluster adopted by name, its compute group sized by stack config."""
    import pulumi

    from pulumi_hyperpod.provider import Cluster

    config = pulumi.Config()


    def group(name, count):
        return {{
            "instance_group_name": name,
            "instance_type": "{KIND}",
            "instance_count": count,
            "life_cycle_config": {{"source_s3_uri": "{LIFECYCLE["SourceS3Uri"]}", "on_create": "{LIFECYCLE["OnCreate"]}"}},
            "execution_role": "{ROLE}",
        }}


    cluster = Cluster(
        "member",
        cluster_name=config.require("clusterName"),
        instance_groups=[group("workers", config.require_int("workers"))],
        backend="aws",  # the stack's environment points botocore at the simulator's endpoint
        adopt=True,
        wait="none",
    )
    '''
)


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory):
    """A served simulated world (over HTTP, as the provider processes reach it) with a 6-instance
    quota of ml.c5.xlarge in every account, and the URL."""
    base = tmp_path_factory.mktemp("fleet-world")
    sim = Simulator(path=base / "fake.sqlite", seed=7)
    sim.set_quota(6, name=f"{KIND} for cluster usage")
    server = SimulatorServer(("127.0.0.1", 0), Worlds(sim, GcpSimulator()))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server.url, sim
    server.shutdown()
    server.server_close()
    thread.join(5)


def make_cluster(sim: Simulator, account: str, name: str, count: int) -> None:
    client = botocore.session.get_session().create_client(
        "sagemaker", region_name="us-west-2", aws_access_key_id=account, aws_secret_access_key="not-checked"
    )
    sim.attach(client).create_cluster(ClusterName=name, InstanceGroups=[group("workers", count)])
    sim.advance(3600)
    assert sim.attach(client).describe_cluster(ClusterName=name)["ClusterStatus"] == "InService"


def write_fleet(tmp_path, url: str, accounts: tuple[str, str]) -> tuple:
    project = tmp_path / "member"
    project.mkdir()
    (project / "__main__.py").write_text(PROGRAM)
    (project / "Pulumi.yaml").write_text(
        yaml.safe_dump({"name": "fleet-member", "runtime": {"name": "python", "options": {"virtualenv": str(repo_venv())}}})
    )
    stacks = [
        {
            "name": name,
            "project": "member",
            "stack": name,
            "account": account,
            "region": "us-west-2",
            "backend": "fake",
            "config": {"clusterName": f"{name}-cluster", "workers": "4"},
            "env": {"AWS_ENDPOINT_URL": url},
        }
        for name, account in zip(("east", "west"), accounts, strict=True)
    ]
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(yaml.safe_dump({"stacks": stacks, "waves": [{"name": "all", "stacks": ["east", "west"], "parallelism": 2}]}))
    return fleet, engine_env(tmp_path / "engine")


def fleet_plan(fleet, env) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["hyperpod", "fleet", "plan", str(fleet), "--parallel", "2", "--json"], env=env, capture_output=True, text=True, timeout=300
    )


def test_two_scale_outs_that_fit_alone_but_not_together_are_refused(tmp_path, endpoint, pulumi_cli):
    url, sim = endpoint
    for name in ("east", "west"):  # one account: 4 of 6 in use, each adds 2 (fits alone), together 4
        make_cluster(sim, EAST, f"{name}-cluster", 2)
    result = fleet_plan(*write_fleet(tmp_path, url, (EAST, EAST)))
    assert result.returncode == 2, result.stdout + result.stderr
    document = json.loads(result.stdout)
    assert document["format"] == "hyperpod-fleet-plan/1" and document["errors"] == 0, document
    assert all(not c["refusals"] for row in document["stacks"] for c in row["clusters"]), "each fits alone"
    assert [c["steps"] for row in document["stacks"] for c in row["clusters"]] == [["UpdateCluster"], ["UpdateCluster"]]
    (draw,) = [d for d in document["quotas"] if d["over"]]
    assert (draw["account"], draw["instance_type"], draw["adds"], draw["headroom"], draw["stacks"]) == (EAST, KIND, 4, 2, ["east", "west"])
    assert f"refused: stacks east, west together add 4 {KIND} in account {EAST} region us-west-2" in result.stderr


def test_the_same_fleet_in_two_accounts_passes(tmp_path, endpoint, pulumi_cli):
    url, sim = endpoint
    make_cluster(sim, WEST, "west-cluster", 2)  # west's own account: only its cluster counts there
    account_of_east = "999988887777"
    make_cluster(sim, account_of_east, "east-cluster", 2)
    result = fleet_plan(*write_fleet(tmp_path, url, (account_of_east, WEST)))
    assert result.returncode == 0, result.stdout + result.stderr
    document = json.loads(result.stdout)
    assert not document["refused"] and document["refusals"] == []
    per_type = sorted((d["account"], d["adds"], d["headroom"]) for d in document["quotas"] if d["instance_type"] == KIND)
    assert per_type == [(WEST, 2, 4), (account_of_east, 2, 4)]
