"""Steps every mutating operation shares: may this cluster be written now, and adding logical nodes.

Below both `operations.py` (cluster operations) and `node_operations.py` (node operations), so
those two never import each other; `sagemaker.py` puts them all in one table for the wire.
"""

from __future__ import annotations


from pulumi_hyperpod.sim.aws import ids, reconcile
from pulumi_hyperpod.sim.aws.errors import ConflictException
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
