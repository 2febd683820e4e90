"""MoveClusterNodes: running nodes leave one instance group for another, in the same cluster or another.

From the operation's documentation: both clusters InService, EKS-orchestrated and Continuous; exactly
one of NodeIds, NodeLogicalIds or InstanceCount; each named node is evaluated on its own (per-node
failures NodeIdNotFound, InvalidNodeStatus, NodeIdInUse, NodeInstanceTypeMismatch), but the whole
request fails when it would take the source group below its MinCount, or when InstanceCount finds
fewer eligible nodes. A moving node is `DetachInProgress` in the source cluster for
`timing.detach_seconds`, then appears in the target group `AttachInProgress` while the target's
lifecycle scripts run, keeping its instance id, NodeLogicalId, IP and capacity (`provisioning.hand_off`).
The same ClientToken with the same request within its lifetime returns the first answer.
"""

from __future__ import annotations

from pulumi_hyperpod.sim.aws import validation
from pulumi_hyperpod.sim.aws.errors import ValidationException
from pulumi_hyperpod.sim.aws.mutations import idempotent
from pulumi_hyperpod.sim.aws.model import DETACHING, RUNNING, Cluster, InstanceGroup, Node
from pulumi_hyperpod.sim.aws.world import World

SELECTORS = ("NodeIds", "NodeLogicalIds", "InstanceCount")


def move_cluster_nodes(world: World, region: str, params: dict) -> dict:
    validation.check_model("MoveClusterNodes", params)
    given = [key for key in SELECTORS if params.get(key) is not None]
    if len(given) != 1:
        raise ValidationException.field(
            "NodeIds", f"specify exactly one of NodeIds, NodeLogicalIds or InstanceCount; got {', '.join(given) or 'none'}"
        )
    source = world.find_cluster(region, params["SourceClusterArn"])
    target = world.find_cluster(region, params["TargetClusterArn"])
    for role, cluster in (("source", source), ("target", target)):
        _require_movable(role, cluster)
    source_group = _group(source, params["SourceInstanceGroupName"], "SourceInstanceGroupName")
    target_group = _group(target, params["TargetInstanceGroupName"], "TargetInstanceGroupName")
    if source_group is target_group:
        raise ValidationException.field(
            "TargetInstanceGroupName", "must differ from SourceInstanceGroupName when the target cluster is the source cluster"
        )
    return idempotent(
        world, "move", "MoveClusterNodes", params, lambda: _move(world, params, given[0], (source, source_group), (target, target_group))
    )


def _move(
    world: World, params: dict, selector: str, source_at: tuple[Cluster, InstanceGroup], target_at: tuple[Cluster, InstanceGroup]
) -> dict:
    (source, source_group), (target, target_group) = source_at, target_at
    accepted, failed = _select(source, source_group, target_group, params, selector)
    running = sum(1 for node in source.group_nodes(source_group.name) if node.phase == RUNNING)
    if accepted and running - len(accepted) < source_group.min_count:
        raise ValidationException(
            f"Moving {len(accepted)} node(s) would take instance group {source_group.name} "
            f"below its MinCount {source_group.min_count} ({running} running); no node was moved."
        )
    for node in accepted:
        _start_detach(world, source, source_group, target, target_group, node)
    return _response(accepted, failed, selector)


def _require_movable(role: str, cluster: Cluster) -> None:
    problems = [
        text
        for broken, text in (
            (cluster.status != "InService", f"is {cluster.status}"),
            (cluster.orchestrator != "Eks", f"is orchestrated by {cluster.orchestrator}"),
            (not cluster.continuous, "does not use NodeProvisioningMode Continuous"),
        )
        if broken
    ]
    if problems:
        raise ValidationException(
            f"The {role} cluster {cluster.name} {' and '.join(problems)}; MoveClusterNodes needs "
            "both clusters InService, orchestrated by Amazon EKS, in Continuous mode."
        )


def _group(cluster: Cluster, name: str, field: str) -> InstanceGroup:
    group = cluster.groups.get(name)
    if group is None or group.deleting:
        raise ValidationException.field(field, f"instance group {name!r} does not exist in cluster {cluster.name}")
    return group


def _select(
    source: Cluster, group: InstanceGroup, target_group: InstanceGroup, params: dict, selector: str
) -> tuple[list[Node], list[tuple[str, str, str]]]:
    """(nodes to move, failures as (code, message, the id asked for))."""
    if selector == "InstanceCount":
        eligible = sorted(
            (
                node
                for node in source.group_nodes(group.name)
                if node.phase == RUNNING and node.instance_type in target_group.instance_types
            ),
            key=lambda node: (-(node.launch_time or node.created_at), -node.seq),
        )
        if len(eligible) < params["InstanceCount"]:
            raise ValidationException(
                f"Instance group {group.name} has {len(eligible)} node(s) eligible to move to "
                f"{target_group.name}, fewer than InstanceCount {params['InstanceCount']}; no "
                "node was moved."
            )
        return eligible[: params["InstanceCount"]], []
    accepted, failed = [], []
    for wanted in dict.fromkeys(params[selector]):
        node = source.node(wanted) if selector == "NodeIds" else source.nodes.get(wanted)
        if node is not None and selector == "NodeIds" and node.instance_id != wanted:
            node = None
        refusal = _refusal(node, group, target_group, wanted)
        if refusal:
            failed.append((*refusal, wanted))
        else:
            accepted.append(node)
    return accepted, failed


def _refusal(node: Node | None, group: InstanceGroup, target_group: InstanceGroup, wanted: str):
    if node is None or node.group != group.name:
        return "NodeIdNotFound", f"Node {wanted} is not in instance group {group.name}."
    if node.phase == DETACHING or node.move is not None:
        return "NodeIdInUse", f"Node {wanted} is already being moved."
    if node.phase != RUNNING:
        return "InvalidNodeStatus", f"Node {wanted} is {node.status}; only Running nodes can be moved."
    if node.instance_type not in target_group.instance_types:
        return "NodeInstanceTypeMismatch", (
            f"Node {wanted} is a {node.instance_type}; instance group {target_group.name} uses {', '.join(target_group.instance_types)}."
        )
    return None


def _start_detach(world: World, source: Cluster, group: InstanceGroup, target: Cluster, target_group: InstanceGroup, node: Node) -> None:
    node.phase, node.status = DETACHING, "DetachInProgress"
    node.message = f"Moving to cluster {target.name}, instance group {target_group.name}"
    node.move = {"cluster": target.id, "group": target_group.name, "source_group": group.name}
    group.target = max(0, group.target - 1)
    group.spec = {**group.spec, "InstanceCount": group.target}
    world.schedule_node(source, node, world.now + world.scenario.timing.detach_seconds)
    world.touch(source)
    world.emit(
        source,
        "Info",
        "Instance",
        f"Move of EC2 Instance {node.instance_id} from IG {group.name} to Cluster {target.name} and IG {target_group.name} started",
        node=node,
        metadata={"Instance": {"NodeLogicalId": node.logical_id}},
    )


def _response(accepted: list[Node], failed: list[tuple[str, str, str]], selector: str) -> dict:
    logical = selector == "NodeLogicalIds"
    ok_field, failed_field, id_field = (
        ("SuccessfulNodeLogicalIds", "FailedNodeLogicalIds", "NodeLogicalId") if logical else ("Successful", "Failed", "NodeId")
    )
    response: dict = {}
    if accepted:
        response[ok_field] = [node.logical_id if logical else node.instance_id for node in accepted]
    if failed:
        response[failed_field] = [{"Code": code, "Message": message, id_field: wanted} for code, message, wanted in failed]
    return response
