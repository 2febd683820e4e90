"""A Google Cloud cluster's status as JSON-able data: what `hyperpod gcp status --json`, `gcp apply
--json` and the dynamic provider's outputs show (an observation, not an apply)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.gcp.observe import GcpClusterState


def status_of(state: GcpClusterState | None) -> dict[str, Any]:
    """A JSON-able status: the cluster state and each pool's nodes by state."""
    if state is None:
        return {"exists": False}
    pools = {}
    for pool in state.pools:
        by_state: dict[str, int] = {}
        for _id, _name, node_state in pool.nodes:
            by_state[node_state] = by_state.get(node_state, 0) + 1
        pools[pool.id] = {
            "machine_type": pool.machine_type,
            "target": pool.target,
            "nodes": by_state,
            "provisioning_model": pool.provisioning_model,
            "min_node_count": pool.target if pool.minimum is None else pool.minimum,
        }
    return {
        "exists": True,
        "name": state.name,
        "state": state.state,
        "detail": state.detail,
        "pools": pools,
        "node_count": state.node_count,
    }
