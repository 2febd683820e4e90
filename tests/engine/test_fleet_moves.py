"""Fleet moves on the real engine (Automation API) against the simulator's endpoint: two stacks in
one account and region, each adopting an EKS + Continuous cluster of one instance type; one shrinks
its group by 2 while the other grows its own by 2. `fleet plan` proposes moving the shrinking
cluster's 2 victims; `fleet apply` moves them (MoveClusterNodes, before the wave's ups), and the
ups then have nothing to do: no node is deleted or added, the moved instances run in the other
cluster, no new instance was requested, and a fleet plan afterwards is empty.
"""

from __future__ import annotations

import json
import subprocess
import textwrap

import botocore.session
import pytest
import yaml

from pulumi_hyperpod.fleet import preview
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.sim.server import Worlds
from tests.support.moves import EKS, LIFECYCLE, ROLE, TYPE, VPC
from tests.support.serve import served

from .conftest import engine_env, repo_venv

pytestmark = pytest.mark.engine

ACCOUNT = "111122223333"

PROGRAM = textwrap.dedent(
    f'''\
    """A fleet member: one EKS + Continuous cluster adopted by name, its group sized by stack config."""
    import pulumi

    from pulumi_hyperpod.provider import Cluster

    config = pulumi.Config()

    cluster = Cluster(
        "member",
        cluster_name=config.require("clusterName"),
        orchestrator={EKS!r},
        vpc_config={VPC!r},
        node_provisioning_mode="Continuous",
        instance_groups=[{{
            "instance_group_name": "workers",
            "instance_type": "{TYPE}",
            "instance_count": config.require_int("workers"),
            "life_cycle_config": {{"source_s3_uri": "{LIFECYCLE["SourceS3Uri"]}", "on_create": "{LIFECYCLE["OnCreate"]}"}},
            "execution_role": "{ROLE}",
        }}],
        backend="aws",  # the stack's environment points botocore at the simulator's endpoint
        adopt=True,
        wait="none",
    )
    '''
)


@pytest.fixture
def endpoint(tmp_path):
    sim = Simulator(path=tmp_path / "fake.sqlite", seed=41)
    with served(Worlds(sim, GcpSimulator())) as url:
        yield url, sim


def sagemaker(sim: Simulator):
    client = botocore.session.get_session().create_client(
        "sagemaker", region_name="us-west-2", aws_access_key_id=ACCOUNT, aws_secret_access_key=preview.SIMULATOR_SECRET
    )
    return sim.attach(client)


def instances(sim: Simulator, name: str) -> set[str]:
    return {n["InstanceId"] for n in sagemaker(sim).list_cluster_nodes(ClusterName=name)["ClusterNodeSummaries"]}


def write_fleet(tmp_path, url: str):
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
            "account": ACCOUNT,
            "region": "us-west-2",
            "backend": "fake",
            "config": {"clusterName": cluster, "workers": workers},
            "env": {"AWS_ENDPOINT_URL": url},
        }
        for name, cluster, workers in (("east", "train", "1"), ("west", "serve", "3"))
    ]
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(yaml.safe_dump({"stacks": stacks, "waves": [{"name": "all", "stacks": ["east", "west"], "parallelism": 2}]}))
    return fleet, engine_env(tmp_path / "engine")


def test_fleet_apply_moves_the_nodes_and_requests_no_new_instance(tmp_path, endpoint, pulumi_cli):
    url, sim = endpoint
    for name, count in (("train", 3), ("serve", 1)):
        sagemaker(sim).create_cluster(
            ClusterName=name,
            Orchestrator=EKS,
            VpcConfig=VPC,
            NodeProvisioningMode="Continuous",
            InstanceGroups=[
                {
                    "InstanceGroupName": "workers",
                    "InstanceType": TYPE,
                    "InstanceCount": count,
                    "LifeCycleConfig": LIFECYCLE,
                    "ExecutionRole": ROLE,
                }
            ],
        )
    sim.advance(3600)
    before = {name: instances(sim, name) for name in ("train", "serve")}
    fleet, env = write_fleet(tmp_path, url)
    plan = ["hyperpod", "fleet", "plan", str(fleet), "--json"]

    planned = subprocess.run(plan, env=env, capture_output=True, text=True, timeout=300)
    assert planned.returncode == 0, planned.stdout + planned.stderr
    (move,) = json.loads(planned.stdout)["moves"]["moves"]
    moving = {n["node_id"] for n in move["nodes"]}
    assert (move["source"]["stack"], move["target"]["stack"], move["kept"]) == (
        "east",
        "west",
        f"2 × {TYPE} moved, not released and re-requested",
    )
    assert len(moving) == 2 and moving <= before["train"]
    sim.reset_calls()

    applied = subprocess.run(["hyperpod", "fleet", "apply", str(fleet), "--yes"], env=env, capture_output=True, text=True, timeout=300)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "gate passed wave all, moves, cluster train (stack east): moved 2 to west/serve/workers" in applied.stdout
    sent = [operation for operation, _ in sim.calls]
    assert sent.count("MoveClusterNodes") == 1, sent
    assert not {"BatchDeleteClusterNodes", "BatchAddClusterNodes", "UpdateCluster", "CreateCluster"} & set(sent), sent
    assert instances(sim, "serve") == before["serve"] | moving, "the moved instances run in serve; no new one was requested"
    assert instances(sim, "train") == before["train"] - moving

    again = subprocess.run([*plan, "--detailed-exitcode"], env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    document = json.loads(again.stdout)
    assert document["empty"] and document["moves"]["moves"] == [], document
