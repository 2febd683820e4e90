"""Persistent worlds: SQLite shared by processes, transactional, quick to page, wall clock (test_sim_clock.py)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import time

import pytest

from pulumi_hyperpod.sim.aws import Simulator
from tests.support.sim_helpers import eks_request, group, groups_of, nodes_of
from tests.support.paths import REPO

FROZEN = {"speed": 0}  # virtual time moves only with advance(): deterministic tests
ROOT = REPO


def test_two_simulators_on_one_file_share_the_world_and_the_call_log(tmp_path):
    path = tmp_path / "world.sqlite"
    first, second = Simulator(path, scenario=FROZEN), Simulator(path)
    first.client().create_cluster(**eks_request("shared", [group("a", 2)]))
    assert second.client().describe_cluster(ClusterName="shared")["ClusterStatus"] == "InService"
    second.advance(300)
    assert [n["InstanceStatus"]["Status"] for n in nodes_of(first.client(), "shared")] == ["Running", "Running"]
    assert [op for op, _ in first.calls] == ["CreateCluster", "DescribeCluster", "ListClusterNodes"]
    assert first.now() == second.now()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_other_processes_see_the_same_world_and_writes_are_not_lost(tmp_path):
    path = tmp_path / "world.sqlite"
    sim = Simulator(path, scenario=FROZEN)
    client = sim.client()
    client.create_cluster(**eks_request("busy", [group("a", 1)]))
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from pulumi_hyperpod.sim.aws import Simulator
        client = Simulator({str(path)!r}).client()
        for _ in range(5):
            client.batch_add_cluster_nodes(ClusterName="busy", NodesToAdd=[
                {{"InstanceGroupName": "a", "IncrementTargetCountBy": 1}}])
    """)
    workers = [subprocess.Popen([sys.executable, "-c", script]) for _ in range(3)]
    for _ in range(5):
        client.batch_add_cluster_nodes(ClusterName="busy", NodesToAdd=[{"InstanceGroupName": "a", "IncrementTargetCountBy": 1}])
    assert [worker.wait(timeout=120) for worker in workers] == [0, 0, 0]
    assert groups_of(client, "busy")["a"]["TargetCount"] == 1 + 5 + 3 * 5, "every increment landed exactly once"
    assert [op for op, _ in sim.calls].count("BatchAddClusterNodes") == 20
    assert len(nodes_of(client, "busy", include_logical=True)) == 21


def test_open_default_uses_the_environment_and_creates_parent_directories(tmp_path, monkeypatch):
    state = tmp_path / "deep" / "dir" / "fake.sqlite"
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text("speed: 0\naccount_id: '210987654321'\n")
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(state))
    monkeypatch.setenv("HYPERPOD_FAKE_SCENARIO", str(scenario))
    sim = Simulator.open_default()
    arn = sim.client().create_cluster(**eks_request("env", [group("a", 1)]))["ClusterArn"]
    assert state.exists() and ":210987654321:cluster/" in arn
    scenario.write_text("speed: 0\naccount_id: '111111111111'\n")
    assert Simulator.open_default().scenario.account_id == "210987654321", "used only when the world is created"


def test_default_state_is_under_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("HYPERPOD_FAKE_STATE", raising=False)
    monkeypatch.chdir(tmp_path)
    assert Simulator.default_path() == tmp_path / ".hyperpod" / "fake.sqlite"


def test_a_client_polling_a_persistent_world_sees_it_run_at_speed(tmp_path):
    """Real time, no injected clock: the paginator's repeated listing is a client waiting (clock.py)."""
    sim = Simulator(tmp_path / "live.sqlite", scenario={"speed": 2000})
    client = sim.client()
    start = sim.now()
    client.create_cluster(**eks_request("live", [group("a", 2)]))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and {n["InstanceStatus"]["Status"] for n in nodes_of(client, "live")} != {"Running"}:
        time.sleep(0.05)
    assert {n["InstanceStatus"]["Status"] for n in nodes_of(client, "live")} == {"Running"}
    assert (sim.now() - start).total_seconds() >= 300, "300 virtual seconds passed in ~0.15 real ones"


def test_paging_2000_nodes_from_sqlite_is_quick_and_does_not_rewrite_rows(tmp_path):
    path = tmp_path / "big.sqlite"
    builder = Simulator(path, scenario=FROZEN)
    builder.client().create_cluster(**eks_request("big", [group("a", 1000), group("b", 1000)]))
    builder.advance(300)
    reader = Simulator(path)  # a fresh process-like reader: loads the world once
    client = reader.client()
    started = time.perf_counter()
    changes = reader._store.conn.total_changes
    nodes = nodes_of(client, "big")
    elapsed = time.perf_counter() - started
    assert len(nodes) == 2000 and len({n["InstanceId"] for n in nodes}) == 2000
    written = reader._store.conn.total_changes - changes
    assert written <= 3 * 20, f"paging wrote {written} rows (only the call log and meta may change)"
    assert elapsed < 5, f"20 pages took {elapsed:.2f}s"


def test_deleted_clusters_leave_the_database(tmp_path):
    path = tmp_path / "gone.sqlite"
    sim = Simulator(path, scenario=FROZEN)
    client = sim.client()
    client.create_cluster(**eks_request("gone", [group("a", 2)]))
    sim.advance(300)
    client.delete_cluster(ClusterName="gone")
    sim.advance(60)
    rows = sim._store.conn.execute("SELECT (SELECT COUNT(*) FROM clusters), (SELECT COUNT(*) FROM nodes)").fetchone()
    assert rows == (0, 0)
    assert Simulator(path).billing("gone")["groups"]["a"]["instances"] == 2, "billing outlives the cluster"


def test_invalid_scenario_names_the_field():
    with pytest.raises(ValueError, match=r"timing\.launch_seconds"):
        Simulator(scenario={"timing": {"launch_seconds": -1}})
    with pytest.raises(ValueError, match="unknown_key"):
        Simulator(scenario={"unknown_key": 1})


def test_processes_that_reload_the_world_make_the_same_random_draws(tmp_path):
    """Same seed, same requests: one in-memory world and two alternating SQLite 'processes' agree."""
    from tests.support.sim_helpers import seed000_request

    scenario = {
        "speed": 0,
        "capacity": [{"instance_type": "ml.p5.48xlarge", "available": 10}],
        "faults": {"launch_failure_rate": 0.2, "lifecycle_failure_rate": 0.1},
        "timing": {"jitter_seconds": 20},
    }

    def run(simulators):
        seen = []
        for step in range(10):
            sim = simulators[step % len(simulators)]
            client = sim.client()
            if step == 0:
                client.create_cluster(**seed000_request(workers=12))
            sim.advance(200)
            seen.append(
                sorted(
                    (n["NodeLogicalId"], n["InstanceId"], n["InstanceStatus"]["Status"])
                    for n in nodes_of(client, "my-training-cluster", include_logical=True)
                )
            )
        return seen

    path = tmp_path / "w.sqlite"
    in_memory = run([Simulator(seed=3, scenario=scenario)])
    assert in_memory == run([Simulator(path, seed=3, scenario=scenario), Simulator(path)])
    assert any(status == "Failure" for step in in_memory for _, _, status in step), "faults were drawn"
