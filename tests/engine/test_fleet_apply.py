"""`hyperpod fleet apply` on the real engine (Automation API) against the simulator's endpoint: two
waves of one stack each. A node of wave 1's cluster has failed (the simulator's fault, injected
before the command: its `up` adopts the cluster as it is and leaves the node failed), so wave 1's
`no_failed_nodes` gate fails: exit 1 naming the wave, the gate and the cluster, and wave 2's stack
is never updated (its cluster unchanged). Once the service has replaced the node, the same command
resumes: wave 1's stack has nothing to do, wave 2's is applied.

The world's clock stands still unless the test moves it (`real_time` fixed), so nothing heals or
finishes behind the test's back; wave 2 does not gate on `in_service` since its update, sent with
`wait="none"`, stays under way on that clock.
"""

from __future__ import annotations

import subprocess

import botocore.session
import pytest
import yaml

from pulumi_hyperpod.fleet import preview
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.sim.server import Worlds
from tests.support.serve import served

from .test_fleet_plan import make_cluster
from .test_fleet_plan import write_fleet as plan_fleet

pytestmark = pytest.mark.engine

EAST, WEST = "111122223333", "444455556666"
START = 1_780_000_000.0  # the world's wall clock, fixed


@pytest.fixture
def endpoint(tmp_path):
    sim = Simulator(path=tmp_path / "fake.sqlite", seed=11, real_time=lambda: START)
    with served(Worlds(sim, GcpSimulator())) as url:
        yield url, sim


def client_of(sim: Simulator, account: str):
    client = botocore.session.get_session().create_client(
        "sagemaker", region_name="us-west-2", aws_access_key_id=account, aws_secret_access_key=preview.SIMULATOR_SECRET
    )
    return sim.attach(client)


def workers_of(sim: Simulator, account: str, name: str) -> int:
    (group,) = client_of(sim, account).describe_cluster(ClusterName=name)["InstanceGroups"]
    return group["TargetCount"]


def write_fleet(tmp_path, url: str):
    """test_fleet_plan's fleet (its program, east and west in their own accounts), in two waves of one
    stack each: east adopts its cluster as it is, west grows its own from 2 workers to 3."""
    fleet, env = plan_fleet(tmp_path, url, (EAST, WEST))
    data = yaml.safe_load(fleet.read_text())
    for stack, workers in zip(data["stacks"], ("2", "3"), strict=True):
        stack["config"]["workers"] = workers
    data["waves"] = [
        {"name": "canary", "stacks": ["east"], "gates": {"in_service": True, "no_failed_nodes": True}},
        {"name": "rest", "stacks": ["west"], "gates": {"in_service": False, "no_failed_nodes": True}},
    ]
    fleet.write_text(yaml.safe_dump(data))
    return fleet, env


def test_a_failed_gate_stops_the_fleet_and_a_rerun_resumes_it(tmp_path, endpoint, pulumi_cli):
    url, sim = endpoint
    make_cluster(sim, EAST, "east-cluster", 2)
    make_cluster(sim, WEST, "west-cluster", 2)
    fleet, env = write_fleet(tmp_path, url)
    (node, *_) = [n["InstanceId"] for n in client_of(sim, EAST).list_cluster_nodes(ClusterName="east-cluster")["ClusterNodeSummaries"]]
    sim.fail_node("east-cluster", node, retryable=True)  # replaced by the service once its retry interval has passed
    apply = ["hyperpod", "fleet", "apply", str(fleet), "--yes"]

    stopped = subprocess.run(apply, env=env, capture_output=True, text=True, timeout=300)
    assert stopped.returncode == 1, stopped.stdout + stopped.stderr
    assert f"failed: wave canary: gate no_failed_nodes failed on cluster east-cluster (stack east): node {node} (workers) is Failure" in (
        stopped.stderr
    )
    assert "stopped: later waves not started: rest" in stopped.stderr
    assert "west: up" not in stopped.stdout, "wave 2's stack is never started"
    assert workers_of(sim, WEST, "west-cluster") == 2, "wave 2's cluster is unchanged"

    sim.advance(3600)  # the service replaces the failed node
    statuses = [
        n["InstanceStatus"]["Status"] for n in client_of(sim, EAST).list_cluster_nodes(ClusterName="east-cluster")["ClusterNodeSummaries"]
    ]
    assert statuses == ["Running", "Running"]
    resumed = subprocess.run(apply, env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "no-op east: nothing to do (already at its spec)" in resumed.stdout
    assert "gate passed wave canary, no_failed_nodes, cluster east-cluster (stack east)" in resumed.stdout
    assert "updated west: " in resumed.stdout and "applied 2 wave(s); nothing to do for east" in resumed.stdout
    assert workers_of(sim, WEST, "west-cluster") == 3
