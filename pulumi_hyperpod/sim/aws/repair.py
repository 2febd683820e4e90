"""BatchRebootClusterNodes and BatchReplaceClusterNodes: node repair by the caller.

- Reboot (soft recovery, EC2 RebootInstances): the instance keeps its id, volumes and registration; it
  shows `Pending` for `timing.reboot_seconds`, then `Running` (a node in Failure too: that is what a
  reboot is for). Lifecycle scripts do not run again (seed 004: they run only at node creation).
- Replace: the instance is terminated with its volumes (root and secondary) and the logical node waits
  for a new instance, which gets a new instance id and runs the lifecycle scripts again. A Slurm
  controller cannot be replaced (the model's documentation for NodeIds).

Both take at most the model's limit (25) of NodeIds and of NodeLogicalIds; logical ids only on
Continuous clusters. A node that cannot be acted on is reported per node (the model's error codes:
InstanceIdNotFound, InvalidInstanceStatus, InstanceIdInUse); the request as a whole succeeds.
"""

from __future__ import annotations

from collections.abc import Callable

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.sim.aws import provisioning as prov, reconcile, validation
from pulumi_hyperpod.sim.aws.errors import ValidationException
from pulumi_hyperpod.sim.aws.model import BOOTING, CONTROLLER, FAILED, HEALTHCHECK, LIFECYCLE, REBOOTING, RUNNING, UPDATING, Cluster, Node
from pulumi_hyperpod.sim.aws.mutations import require_writable
from pulumi_hyperpod.sim.aws.world import World

BUSY_PHASES = (BOOTING, LIFECYCLE, HEALTHCHECK, UPDATING, REBOOTING)


def batch_reboot_cluster_nodes(world: World, region: str, params: dict) -> dict:
    return _batch(world, region, params, "BatchRebootClusterNodes", _reboot)


def batch_replace_cluster_nodes(world: World, region: str, params: dict) -> dict:
    return _batch(world, region, params, "BatchReplaceClusterNodes", _replace)


def _batch(world: World, region: str, params: dict, operation: str, act: Callable[[World, Cluster, Node], None]) -> dict:
    validation.check_model(operation, params)
    if not params.get("NodeIds") and not params.get("NodeLogicalIds"):
        raise ValidationException.field("NodeIds", "specify NodeIds, NodeLogicalIds, or both")
    for field in ("NodeIds", "NodeLogicalIds"):
        cap = servicemodel.limit(f"{operation}Request", field)
        if len(params.get(field) or []) > cap:
            raise ValidationException.field(field, f"at most {cap} per request; got {len(params[field])}")
    cluster = world.find_cluster(region, params["ClusterName"])
    if params.get("NodeLogicalIds") and not cluster.continuous:
        raise ValidationException.field(
            "NodeLogicalIds",
            f"NodeLogicalIds are only supported for clusters whose "
            f"NodeProvisioningMode is Continuous; cluster {cluster.name} does not use it (use NodeIds)",
        )
    require_writable(cluster, operation)
    response: dict = {}
    for field, ok_field, failed_field, id_field in (
        ("NodeIds", "Successful", "Failed", "NodeId"),
        ("NodeLogicalIds", "SuccessfulNodeLogicalIds", "FailedNodeLogicalIds", "NodeLogicalId"),
    ):
        for wanted in dict.fromkeys(params.get(field) or []):
            node = cluster.nodes.get(cluster.by_instance.get(wanted, "")) if field == "NodeIds" else cluster.nodes.get(wanted)
            refusal = _refusal(cluster, node, wanted, operation)
            if refusal:
                response.setdefault(failed_field, []).append({id_field: wanted, "ErrorCode": refusal[0], "Message": refusal[1]})
                continue
            act(world, cluster, node)
            response.setdefault(ok_field, []).append(wanted)
    reconcile.reconcile_pending(world)
    return response


def _refusal(cluster: Cluster, node: Node | None, wanted: str, operation: str) -> tuple[str, str] | None:
    if node is None:
        return "InstanceIdNotFound", f"Node {wanted} not found in cluster {cluster.name}."
    group = cluster.groups.get(node.group)
    if operation == "BatchReplaceClusterNodes" and cluster.orchestrator == "Slurm" and group is not None and group.role == CONTROLLER:
        return "InvalidInstanceStatus", (
            f"Node {wanted} is a Slurm controller node (group {node.group}); instances "
            "configured as Slurm controller nodes cannot be replaced."
        )
    if not node.live or not node.launched or node.phase not in (RUNNING, FAILED, *BUSY_PHASES):
        return "InvalidInstanceStatus", f"Node {wanted} is {node.status}; it has no instance to act on."
    if node.phase in BUSY_PHASES:
        return "InstanceIdInUse", f"Node {wanted} is {node.status} ({node.message or 'busy'}); try again when it is Running."
    return None


def _reboot(world: World, cluster: Cluster, node: Node) -> None:
    node.phase, node.status, node.message = REBOOTING, "Pending", "Rebooting (BatchRebootClusterNodes)"
    world.schedule_node(cluster, node, world.now + world.scenario.timing.reboot_seconds)
    world.touch(cluster)
    world.emit(
        cluster,
        "Info",
        "Instance",
        f"Reboot of EC2 Instance {node.instance_id} in Cluster {cluster.name} and IG {node.group} started (BatchRebootClusterNodes)",
        node=node,
    )


def _replace(world: World, cluster: Cluster, node: Node) -> None:
    world.emit(
        cluster,
        "Info",
        "Instance",
        f"Replacement of EC2 Instance {node.instance_id} in Cluster {cluster.name} and "
        f"IG {node.group} started (BatchReplaceClusterNodes): its root and secondary volumes are deleted",
        node=node,
    )
    world.schedule_node(cluster, node, None)
    prov.replace(world, cluster, node)
