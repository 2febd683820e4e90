"""What a read of one cluster takes from a persistent world, told by the store itself: every SQL statement
its connection runs (with the bound values) while another process's world is read afresh.

Observing cluster `a` (DescribeCluster and every ListClusterNodes page) reads `a`'s node rows once, and
nothing of cluster `b`: not its nodes, not its events, not the billing records.
"""

from __future__ import annotations

from pulumi_hyperpod.sim.aws import Simulator
from tests.support.sim_helpers import eks_request, group, nodes_of

FROZEN = {"speed": 0}


def _cluster_id(sim: Simulator, name: str) -> str:
    row = sim._store.conn.execute("SELECT id FROM clusters WHERE json_extract(data, '$.name') = ?", (name,)).fetchone()
    return row[0]


def test_observing_one_cluster_reads_its_node_rows_once_and_nothing_of_the_other(tmp_path):
    path = tmp_path / "w.sqlite"
    builder = Simulator(path, scenario=FROZEN)
    client = builder.client()
    client.create_cluster(**eks_request("a", [group("ga", 250)]))
    client.create_cluster(**eks_request("b", [group("gb", 4, "ml.g5.xlarge")]))
    builder.advance(900)
    a, b = _cluster_id(builder, "a"), _cluster_id(builder, "b")

    reader = Simulator(path)  # another process: loads the world afresh
    statements: list[str] = []
    reader._store.conn.set_trace_callback(statements.append)
    reader.client().describe_cluster(ClusterName="a")
    listed = nodes_of(reader.client(), "a", include_logical=True)

    assert len(listed) == 250
    node_reads = [s for s in statements if "FROM nodes" in s]
    assert node_reads == [f"SELECT logical_id, data FROM nodes WHERE cluster_id = '{a}'"], node_reads
    assert not [s for s in statements if b in s], "a statement about cluster b"
    assert not [s for s in statements if "FROM billing" in s or "SELECT data FROM events" in s]
