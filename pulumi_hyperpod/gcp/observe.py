"""What is there: one GET of the cluster, read into an immutable `GcpClusterState`."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.gcp.spec import keys

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.gcp.clients import TrainingClusterClient

OUTPUT_ONLY = ("name", "create_time", "update_time", "start_time", "cluster_status", "cluster_events", "runtime", "etag")


@dataclass(frozen=True)
class PoolState:
    id: str
    machine_type: str
    provisioning_model: str | None
    target: int  # scaling_spec.max_node_count: the size the service keeps the pool at
    nodes: tuple[tuple[str, str, str], ...]  # (instance id, instance name, node state)
    minimum: int | None = None  # scaling_spec.min_node_count (None: as target)

    @property
    def autoscaled(self) -> bool:
        """min_node_count < max_node_count: the service sizes the pool within the range."""
        return self.minimum is not None and self.minimum < self.target

    @property
    def running(self) -> int:
        return sum(1 for _, _, state in self.nodes if state == "RUNNING")

    def holds(self, node: str) -> bool:
        return any(node in (instance_id, name) for instance_id, name, _ in self.nodes)


@dataclass(frozen=True)
class GcpClusterState:
    name: str
    state: str  # PROVISIONING | RUNNING | UPDATING | STOPPING | ERROR
    detail: str
    body: dict[str, Any]  # the resource's configurable fields, snake_case (server defaults included)
    pools: tuple[PoolState, ...]
    etag: str | None = None  # the resource's version, when the service gives one: sent back with a PATCH
    # the GET response itself: what a saved plan keeps as the observation it was made from
    resource: dict[str, Any] | None = field(default=None, compare=False, repr=False)

    @property
    def slurm(self) -> dict[str, Any]:
        return (self.body.get("orchestrator_spec") or {}).get("slurm_spec") or {}

    def pool(self, pool_id: str) -> PoolState | None:
        return next((p for p in self.pools if p.id == pool_id), None)

    def pool_body(self, pool_id: str) -> dict[str, Any] | None:
        return next((p for p in self.body.get("node_pools") or () if p.get("id") == pool_id), None)

    @property
    def node_count(self) -> int:
        return sum(len(p.nodes) for p in self.pools)

    def fingerprint(self) -> str:
        """What a plan was computed against: the configuration (not the transient state)."""
        text = json.dumps(self.body, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @classmethod
    def from_api(cls, resource: dict[str, Any]) -> GcpClusterState:
        snake = keys.to_snake(resource)
        status = snake.get("cluster_status") or {}
        body = {k: v for k, v in snake.items() if k not in OUTPUT_ONLY}
        nodes = status.get("nodes_status") or []
        pools = tuple(
            PoolState(
                id=pool["id"],
                machine_type=(pool.get("machine_spec") or {}).get("machine_type", ""),
                provisioning_model=pool.get("provisioning_model"),
                target=int((pool.get("scaling_spec") or {}).get("max_node_count") or 0),
                nodes=tuple(
                    (n.get("instance_id", ""), n.get("instance_name", ""), n.get("node_state", ""))
                    for n in nodes
                    if n.get("node_pool_id") == pool["id"]
                ),
                minimum=int((pool.get("scaling_spec") or {}).get("min_node_count") or 0),
            )
            for pool in body.get("node_pools") or ()
        )
        return cls(
            name=resource["name"],
            state=status.get("state") or "STATE_UNSPECIFIED",
            detail=status.get("detail") or "",
            body=body,
            pools=pools,
            etag=snake.get("etag") if isinstance(snake.get("etag"), str) else None,
            resource=resource,
        )


def observe(client: TrainingClusterClient, name: str) -> GcpClusterState | None:
    """The cluster as the service has it now, or None when there is none of that name."""
    resource = client.find_cluster(name)
    return None if resource is None else GcpClusterState.from_api(resource)
