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

import botocore.session
import pytest
import yaml

from pulumi_hyperpod.fleet import preview
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.sim.server import Worlds
from tests.support.moves import EKS, TYPE, VPC
from tests.support.serve import served
from tests.support.sim_helpers import group

from .test_fleet_plan import KIND
from .test_fleet_plan import PROGRAM as MEMBER
from .test_fleet_plan import write_fleet as plan_fleet

pytestmark = pytest.mark.engine

ACCOUNT = "111122223333"

# test_fleet_plan's member program, its cluster EKS + Continuous and of the moves' instance type
PROGRAM = MEMBER.replace(KIND, TYPE).replace(
    "    instance_groups=",
    f'    orchestrator={EKS!r},\n    vpc_config={VPC!r},\n    node_provisioning_mode="Continuous",\n    instance_groups=',
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
    """test_fleet_plan's fleet in one account: east shrinks its cluster to 1 worker, west grows its own to 3."""
    fleet, env = plan_fleet(tmp_path, url, (ACCOUNT, ACCOUNT))
    (tmp_path / "member" / "__main__.py").write_text(PROGRAM)
    data = yaml.safe_load(fleet.read_text())
    for stack, workers in zip(data["stacks"], ("1", "3"), strict=True):
        stack["config"]["workers"] = workers
    fleet.write_text(yaml.safe_dump(data))
    return fleet, env


def test_fleet_apply_moves_the_nodes_and_requests_no_new_instance(tmp_path, endpoint, pulumi_cli):
    url, sim = endpoint
    for name, count in (("east-cluster", 3), ("west-cluster", 1)):
        sagemaker(sim).create_cluster(
            ClusterName=name,
            Orchestrator=EKS,
            VpcConfig=VPC,
            NodeProvisioningMode="Continuous",
            InstanceGroups=[group("workers", count, TYPE)],  # as the member program declares it
        )
    sim.advance(3600)
    before = {name: instances(sim, name) for name in ("east-cluster", "west-cluster")}
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
    assert len(moving) == 2 and moving <= before["east-cluster"]
    sim.reset_calls()

    applied = subprocess.run(["hyperpod", "fleet", "apply", str(fleet), "--yes"], env=env, capture_output=True, text=True, timeout=300)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "gate passed wave all, moves, cluster east-cluster (stack east): moved 2 to west/west-cluster/workers" in applied.stdout
    sent = [operation for operation, _ in sim.calls]
    assert sent.count("MoveClusterNodes") == 1, sent
    assert not {"BatchDeleteClusterNodes", "BatchAddClusterNodes", "UpdateCluster", "CreateCluster"} & set(sent), sent
    assert instances(sim, "west-cluster") == before["west-cluster"] | moving, "the moved instances run there; no new one was requested"
    assert instances(sim, "east-cluster") == before["east-cluster"] - moving

    again = subprocess.run([*plan, "--detailed-exitcode"], env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    document = json.loads(again.stdout)
    assert document["empty"] and document["moves"]["moves"] == [], document
