"""A persistent world reads a cluster's nodes and the billing records on first use (fake/store.py).

What must not change: every process sees the same world, writes to one cluster leave the others as they
were, node timers of a cluster nobody reads still run on time and draw the same random numbers, and a
world written before nodes were deferred still loads.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pulumi_hyperpod.sim.aws import Simulator
from tests.support.sim_helpers import eks_request, group, nodes_of, seed000_request
from tests.support.paths import REPO

FROZEN = {"speed": 0}
ROOT = REPO


def _listing(client, name: str) -> list[tuple]:
    return sorted(
        (n["NodeLogicalId"], n.get("InstanceId"), n["InstanceStatus"]["Status"], n["InstanceType"], n.get("PrivateDnsHostname"))
        for n in nodes_of(client, name, include_logical=True)
    )


def _records(billing: dict) -> list[tuple]:
    return [
        (i["instance_id"], i["node_logical_id"], i["instance_group"], i["billing_start"], i["billing_end"]) for i in billing["instances"]
    ]


def _billed(billing: dict) -> list[tuple]:
    """Billing relative to the world's own clock (two worlds started at different wall-clock times)."""
    return [(i["instance_id"], i["instance_group"], i["billed_seconds"], i["billing_end"] is None) for i in billing["instances"]]


def _two_clusters(path: Path) -> Simulator:
    """World with clusters `a` (3 nodes) and `b` (4 nodes), both settled (Running)."""
    sim = Simulator(path, scenario=FROZEN)
    client = sim.client()
    client.create_cluster(**eks_request("a", [group("ga", 3)]))
    client.create_cluster(**eks_request("b", [group("gb", 4, "ml.g5.xlarge")]))
    sim.advance(600)
    return sim


def test_a_request_on_one_cluster_reads_neither_the_others_nodes_nor_billing(tmp_path):
    path = tmp_path / "w.sqlite"
    _two_clusters(path)
    reader = Simulator(path)  # another process: loads the world afresh
    reader.client().describe_cluster(ClusterName="a")
    with reader._store.transaction() as world:
        loaded = {cluster.name: cluster.nodes_loaded for cluster in world.clusters.values()}
        assert loaded == {"a": True, "b": False}
        assert world._billing is None, "billing not read by DescribeCluster"
    assert reader.billing("b")["groups"]["gb"]["instances"] == 4, "read when asked"


def test_a_write_to_one_cluster_keeps_the_other_clusters_nodes_and_billing(tmp_path):
    path = tmp_path / "w.sqlite"
    builder = _two_clusters(path)
    b_before = _listing(builder.client(), "b")
    b_rows = builder._store.conn.execute(
        "SELECT logical_id, data FROM nodes WHERE cluster_id = (SELECT id FROM clusters WHERE json_extract(data, '$.name') = 'b')"
    ).fetchall()
    b_billing = builder.billing("b")

    writer = Simulator(path)  # reads only `a`, then writes it (nodes, events, billing records)
    writer.client().update_cluster(ClusterName="a", InstanceGroups=[group("ga", 5)])
    writer.advance(600)
    writer.client().batch_delete_cluster_nodes(ClusterName="a", NodeIds=[nodes_of(writer.client(), "a")[0]["InstanceId"]])
    writer.advance(120)

    fresh = Simulator(path)
    assert _listing(fresh.client(), "b") == b_before
    assert (
        fresh._store.conn.execute(
            "SELECT logical_id, data FROM nodes WHERE cluster_id = (SELECT id FROM clusters WHERE json_extract(data, '$.name') = 'b')"
        ).fetchall()
        == b_rows
    ), "no row of b rewritten"
    assert _records(fresh.billing("b")) == _records(b_billing), "b's billing records as they were"
    a_records = _records(fresh.billing("a"))
    assert len(a_records) == 5 and sum(1 for r in a_records if r[-1] is not None) == 1, "3 + 2 instances billed, the deleted one closed"
    assert [s for _, _, s, _, _ in _listing(fresh.client(), "a")].count("Running") == 4
    # the first process, holding the old world, sees all of it after the other process's writes
    assert _listing(builder.client(), "a") == _listing(fresh.client(), "a")
    assert builder.billing("a") == fresh.billing("a")


def test_timers_of_a_cluster_nobody_reads_run_as_in_a_process_that_never_reloaded(tmp_path):
    """In-memory world versus two alternating SQLite 'processes' reading only cluster `a`: cluster `b`'s
    nodes (launching with jitter and faults) are read only when their first timer is due."""
    scenario = {"speed": 0, "faults": {"launch_failure_rate": 0.2}, "timing": {"jitter_seconds": 30}}

    def run(simulators: list[Simulator]) -> tuple:
        seen = []
        for step in range(8):
            sim = simulators[step % len(simulators)]
            client = sim.client()
            if step == 0:
                client.create_cluster(**seed000_request(name="a", workers=6))
                client.create_cluster(**eks_request("b", [group("gb", 5, "ml.g5.xlarge")]))
            sim.advance(150)
            seen.append(_listing(client, "a"))
        last = simulators[-1]
        return seen, _listing(last.client(), "b"), _billed(last.billing("b")), _billed(last.billing("a"))

    in_memory = run([Simulator(seed=5, scenario=scenario)])
    path = tmp_path / "w.sqlite"
    assert run([Simulator(path, seed=5, scenario=scenario), Simulator(path)]) == in_memory
    assert {status for _, _, status, _, _ in in_memory[1]} == {"Running"}, "b finished launching unread"


def test_a_cluster_read_after_another_process_wrote_is_read_from_the_new_world(tmp_path):
    path = tmp_path / "w.sqlite"
    _two_clusters(path)
    reader = Simulator(path)
    with reader._store.transaction() as world:
        stale = next(cluster for cluster in world.clusters.values() if cluster.name == "b")
    with pytest.raises(RuntimeError, match="outside the transaction"):
        stale.nodes  # noqa: B018 - outside any transaction: refused, never read from whatever the file holds now
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from pulumi_hyperpod.sim.aws import Simulator
        sim = Simulator({str(path)!r})
        sim.client().update_cluster(ClusterName="b", InstanceGroups=[{group("gb", 6, "ml.g5.xlarge")!r}])
        sim.advance(600)
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
    listing = _listing(reader.client(), "b")
    assert len(listing) == 6 and {status for _, _, status, _, _ in listing} == {"Running"}
    assert reader.billing("b")["groups"]["gb"]["instances"] == 6
    with reader._store.transaction(), pytest.raises(RuntimeError, match="outside the transaction"):
        stale.nodes  # noqa: B018 - a cluster of the world before the reload


def test_a_world_written_before_nodes_were_deferred_still_loads_and_runs(tmp_path):
    """Cluster rows without the earliest node timer (older worlds): nodes read at load, timers kept."""
    path = tmp_path / "w.sqlite"
    sim = Simulator(path, scenario=FROZEN)
    sim.client().create_cluster(**eks_request("old", [group("g", 3)]))  # launching: node timers pending
    expected = Simulator(tmp_path / "copy.sqlite", scenario=FROZEN)
    expected.client().create_cluster(**eks_request("old", [group("g", 3)]))
    sim._store.conn.execute("UPDATE clusters SET data = json_remove(data, '$.next_node_due')")
    assert "next_node_due" not in sim._store.conn.execute("SELECT data FROM clusters").fetchone()[0]
    old = Simulator(path)
    with old._store.transaction() as world:
        assert all(cluster.nodes_loaded for cluster in world.clusters.values())
    old.advance(600)
    expected.advance(600)
    statuses = [status for _, _, status, _, _ in _listing(old.client(), "old")]
    assert statuses == ["Running"] * 3
    assert _listing(old.client(), "old") == _listing(expected.client(), "old")


def test_saving_a_cluster_whose_nodes_were_never_read_leaves_its_node_rows_alone(tmp_path):
    path = tmp_path / "w.sqlite"
    _two_clusters(path)
    reader = Simulator(path)
    before = reader._store.conn.execute("SELECT cluster_id, logical_id, data FROM nodes ORDER BY 1, 2").fetchall()
    with reader._store.transaction() as world:
        b = next(cluster for cluster in world.clusters.values() if cluster.name == "b")
        b.status = "InService"  # the header is saved (say, an event was recorded), the nodes never read
        world.dirty.add(b.id)
    assert not b.nodes_loaded, "saved without reading its nodes"
    assert reader._store.conn.execute("SELECT cluster_id, logical_id, data FROM nodes ORDER BY 1, 2").fetchall() == before
    assert len(_listing(Simulator(path).client(), "b")) == 4


def test_after_a_rolled_back_transaction_the_world_is_read_again_and_its_old_clusters_refuse(tmp_path):
    path = tmp_path / "w.sqlite"
    _two_clusters(path)
    sim = Simulator(path)
    with pytest.raises(KeyError), sim._store.transaction() as world:
        a = next(cluster for cluster in world.clusters.values() if cluster.name == "a")
        b = next(cluster for cluster in world.clusters.values() if cluster.name == "b")
        for node in a.nodes.values():
            node.status = "Failure"  # a half-done change, then the request fails
        world.dirty.add(a.id)
        raise KeyError("boom")
    assert {status for _, _, status, _, _ in _listing(sim.client(), "a")} == {"Running"}, "rolled back"
    with sim._store.transaction(), pytest.raises(RuntimeError, match="outside the transaction"):
        b.nodes  # noqa: B018 - deferred in the world the rollback dropped
    assert len(_listing(sim.client(), "b")) == 4
