"""Steps every mutating operation shares: may this cluster be written now, and adding logical nodes.

Below both `operations.py` (cluster operations) and `node_operations.py` (node operations), so
those two never import each other; `sagemaker.py` puts them all in one table for the wire.
"""

from __future__ import annotations


import json
from collections.abc import Callable

from pulumi_hyperpod.sim.aws import ids, reconcile
from pulumi_hyperpod.sim.aws.errors import ConflictException, ValidationException
from pulumi_hyperpod.sim.aws.model import Cluster, InstanceGroup, Node
from pulumi_hyperpod.sim.aws.world import World

# Cluster statuses during which an all-or-nothing cluster accepts no other mutating call.
BUSY = ("Creating", "Updating", "RollingBack", "SystemUpdating")


def require_writable(cluster: Cluster, operation: str) -> None:
    """ConflictException when the cluster cannot take `operation` now (deleting, failed, or busy)."""
    if cluster.status == "Deleting":
        raise ConflictException(f"Cluster {cluster.name} is being deleted; {operation} is not allowed.")
    if cluster.status == "Failed":
        raise ConflictException(f"Cluster {cluster.name} is in Failed status; delete it and create it again.")
    if not cluster.continuous and cluster.status in BUSY:
        raise ConflictException(
            f"Cluster {cluster.name} is {cluster.status}; wait for it to be InService before "
            f"calling {operation} (or use NodeProvisioningMode Continuous)."
        )


def new_nodes(
    world: World,
    cluster: Cluster,
    group: InstanceGroup,
    count: int,
    op_id: str | None,
    want_types: list | None = None,
    want_azs: list | None = None,
) -> list[Node]:
    """`count` new logical nodes in the group, waiting for an instance (the reconciler launches them)."""
    message = reconcile.waiting_message(cluster, group)
    nodes = []
    for _ in range(count):
        node = Node(ids.new_uuid(world.rng), group.name, world.now, op_id, message=message, want_types=want_types, want_azs=want_azs)
        cluster.add_node(node)
        nodes.append(node)
    world.touch(cluster)
    return nodes


def idempotent(world: World, kind: str, operation: str, params: dict, run: Callable[[], dict]) -> dict:
    """`run()`, or, for a ClientToken seen within its time to live with the same parameters, the answer
    that request got; the token with other parameters is a ValidationException. `kind` keeps one
    operation's tokens apart from another's."""
    token = params.get("ClientToken")
    key = f"{kind}/{token}" if token else None
    fingerprint = json.dumps({k: v for k, v in params.items() if k != "ClientToken"}, sort_keys=True)
    for stale in [k for k, record in world.tokens.items() if record["expires"] <= world.now]:
        del world.tokens[stale]
    if key and key in world.tokens:
        if world.tokens[key]["fingerprint"] != fingerprint:
            raise ValidationException(f"ClientToken {token!r} was already used with a different {operation} request; use a new token.")
        return world.tokens[key]["response"]
    response = run()
    if key:
        world.tokens[key] = {
            "fingerprint": fingerprint,
            "response": response,
            "expires": world.now + world.scenario.timing.client_token_ttl_seconds,
        }
    return response
