"""The service's control loop: what launches when, and how groups and clusters change status.

`catch_up(world, t)` runs every timer due by `t` in time order and re-evaluates each cluster they
touched. `reconcile(cluster)` is idempotent and encodes the seeds' rules:

- Slurm priority: controller group first; login and workers once a controller has been healthy;
  InService when a controller (and a login node, if there is a login group) is up.
- EKS: groups in parallel; InService once every group has reached its MinCount.
- Continuous: partial capacity accepted, the rest retried every `retry_interval_seconds`;
  MinCount gates a group's status with the 3-hour rollback.
- All-or-nothing (default): any group short of capacity, or a node failing for good, fails the
  create (cluster Failed) or rolls the update back (RollingBack → InService, previous counts).
"""

from __future__ import annotations

import heapq

from pulumi_hyperpod.sim.aws import patching, provisioning as prov, rolling_update
from pulumi_hyperpod.sim.aws.model import CONTROLLER, FAILED, LOGIN, RUNNING, TERMINATING, WAITING, Cluster, InstanceGroup, Node
from pulumi_hyperpod.sim.aws.world import CAPACITY, CLUSTER, DEADLINE, LOAD, NODE, RETRY, World

SETTLING = ("waiting", "booting", "lifecycle", "healthcheck")


def catch_up(world: World, target: float) -> None:
    """Run everything due by `target` (virtual seconds), in time order."""
    while world.heap and world.heap[0][0] <= target:
        due = world.heap[0][0]
        world.now = max(world.now, due)
        while world.heap and world.heap[0][0] == due:
            entry = heapq.heappop(world.heap)
            if world.is_current(entry):
                _dispatch(world, entry)
        reconcile_pending(world)
    world.now = max(world.now, target)
    reconcile_pending(world)


def _dispatch(world: World, entry: tuple) -> None:
    _, kind, cluster_id, ref = entry
    if kind == CAPACITY:
        change = world.scenario.capacity_changes[int(ref)]
        if change.available is not None:
            world.capacity.set(change.instance_type, change.availability_zone, change.available)
        else:
            world.capacity.add(change.instance_type, change.availability_zone, change.add)
        world.capacity_cursor += 1
        world.schedule_capacity_change()
        return
    cluster = world.clusters[cluster_id]
    if kind == LOAD:  # reading the nodes puts their timers on the heap; nothing changed
        cluster.nodes  # noqa: B018
        return
    world.touch(cluster)
    if kind == NODE:
        prov.on_node_timer(world, cluster, cluster.nodes[ref])
    elif kind == RETRY:
        group = cluster.groups[ref]
        group.retry_at = None
        waiting = sum(1 for node in cluster.nodes.values() if node.group == ref and node.phase == WAITING)
        if waiting:
            world.emit(
                cluster,
                "Info",
                "InstanceGroup",
                f"InstanceGroup {ref} in Cluster {cluster.name}: retrying the launch of {waiting} pending instance(s)",
                group=ref,
            )
    elif kind == DEADLINE:
        cluster.groups[ref].min_deadline = None
        _min_count_timeout(world, cluster, cluster.groups[ref])
    elif kind == CLUSTER:
        cluster.due = None


def reconcile_pending(world: World) -> None:
    for _ in range(8):  # reconciling may touch other clusters; a few passes reach a fixed point
        if not world.to_reconcile:
            return
        pending, world.to_reconcile = sorted(world.to_reconcile), set()
        for cluster_id in pending:
            cluster = world.clusters.get(cluster_id)
            if cluster is not None:
                reconcile(world, cluster)
                world.to_reconcile.discard(cluster_id)


# -- the loop -------------------------------------------------------------------------------------
def reconcile(world: World, cluster: Cluster) -> None:
    if cluster.status == "Deleting":
        if not cluster.nodes and cluster.due is None:
            world.remove_cluster(cluster)
        return
    grouped = cluster.nodes_by_group()
    for name in [name for name, group in cluster.groups.items() if group.deleting and not grouped.get(name)]:
        del cluster.groups[name]
        world.emit(
            cluster, "Info", "InstanceGroup", f"Instance Group {name} delete in Cluster {cluster.name} completed successfully", group=name
        )
    if cluster.status == "Failed":
        return
    controller_failure = _controller_failed_for_good(cluster, grouped)
    if controller_failure:
        return fail_cluster(world, cluster, controller_failure)
    for group in list(cluster.groups.values()):
        if group.deleting or group.retry_at is not None or not _may_launch(cluster, group):
            continue
        short = prov.launch_waiting(world, cluster, group)
        if short and not _handle_shortage(world, cluster, group, short):
            return
    grouped = cluster.nodes_by_group()
    if cluster.operation is not None:
        _progress_operation(world, cluster, grouped)
    if cluster.continuous:
        _min_count_progress(world, cluster, grouped)
    _settle_instance_types(cluster, grouped)
    _creating_to_in_service(world, cluster, grouped)
    rolling_update.progress(world, cluster)
    patching.progress(world, cluster)


def _may_launch(cluster: Cluster, group: InstanceGroup) -> bool:
    if cluster.status in ("Failed", "Deleting", "RollingBack"):
        return False
    if cluster.waits_for_controller(group):
        return False  # Slurm priority: workers and login nodes wait for a healthy controller
    return True


def _up(nodes: list[Node]) -> int:
    return sum(1 for node in nodes if node.phase == RUNNING)


def _controller_failed_for_good(cluster: Cluster, grouped: dict) -> str | None:
    """During a Slurm create, a controller failing non-retryably fails the cluster (seed 000)."""
    if cluster.orchestrator != "Slurm" or cluster.status != "Creating":
        return None
    for group in cluster.groups_with_role(CONTROLLER):
        nodes = grouped.get(group.name, [])
        if _up(nodes):
            return None
        for node in nodes:
            if node.phase == FAILED and not node.retryable:
                return f"Controller instance group {group.name} failed: {node.message}"
    return None


def _handle_shortage(world: World, cluster: Cluster, group: InstanceGroup, short: list[Node]) -> bool:
    """Not enough capacity for some waiting nodes. False when that ended the cluster's operation."""
    message = prov.capacity_message(prov.candidate_types(group, short[0]))
    if not cluster.continuous:
        fail_operation(world, cluster, f"Instance group {group.name}: {message}")
        return False
    controller_needed = (
        cluster.orchestrator == "Slurm"
        and group.role == CONTROLLER
        and cluster.status == "Creating"
        and not any(node.phase == RUNNING for node in cluster.group_nodes(group.name))
    )
    if controller_needed:  # no capacity for the controller type is not retryable
        fail_cluster(
            world,
            cluster,
            f"Controller instance group {group.name}: {message} Choose a different "
            "instance type or Availability Zone and create the cluster again.",
        )
        return False
    retry_at = world.now + world.scenario.timing.retry_interval_seconds
    for node in short:
        node.message = f"{message} Retrying asynchronously."
        world.emit(
            cluster,
            "Warn",
            "Instance",
            f"Failed to provision EC2 Instance in Cluster {cluster.name} and IG {group.name}",
            node=node,
            metadata={"Instance": {"FailureMessage": message, "NodeLogicalId": node.logical_id}},
        )
    world.schedule_retry(cluster, group.name, retry_at)
    return True


# -- all-or-nothing operations --------------------------------------------------------------------
def _complete(group: InstanceGroup, nodes: list[Node], extra: int = 0) -> bool:
    """Every node up and the group at its target (plus removals still to apply)."""
    live = [node for node in nodes if node.live]
    return len(live) == group.target + extra and all(node.phase == RUNNING for node in live)


def _progress_operation(world: World, cluster: Cluster, grouped: dict) -> None:
    op = cluster.operation
    if op.get("rolling_back"):
        if all(node.phase != TERMINATING for node in cluster.nodes.values()):
            cluster.status, cluster.operation = "InService", None
            for group in cluster.groups.values():
                group.status = "InService"
            world.emit(cluster, "Warn", "Cluster", f"Cluster {cluster.name} update rolled back", op_id=op["id"])
        return
    for node in cluster.nodes.values():
        if node.phase == FAILED and not node.retryable and node.op_id == op["id"]:
            return fail_operation(world, cluster, node.message)
    active = [group for group in cluster.groups.values() if not group.deleting]
    pending_removals = {} if op.get("shrunk") else op.get("scale_in", {})
    if not all(_complete(group, grouped.get(group.name, []), pending_removals.get(group.name, 0)) for group in active):
        return
    if op["kind"] == "update" and not op.get("shrunk"):
        op["shrunk"] = True  # every addition succeeded: now apply the removals the update asked for
        for name, count in op.get("scale_in", {}).items():
            for victim in prov.choose_victims(grouped.get(name, []), count):
                prov.terminate(world, cluster, victim, "Scale-in requested by UpdateCluster")
        for name in op.get("delete_groups", []):
            delete_group(world, cluster, name)
    if any(node.phase == TERMINATING for node in cluster.nodes.values()):
        return
    cluster.status, cluster.operation = "InService", None
    for group in list(cluster.groups.values()):
        if group.deleting:
            del cluster.groups[group.name]  # its nodes are all gone (no node is terminating)
        else:
            group.status = "InService"
    verb = "creation" if op["kind"] == "create" else "update"
    world.emit(cluster, "Info", "Cluster", f"Cluster {cluster.name} {verb} completed successfully", op_id=op["id"])


def fail_operation(world: World, cluster: Cluster, reason: str) -> None:
    op = cluster.operation or {"kind": "create", "id": None}
    if op["kind"] == "create":
        return fail_cluster(world, cluster, reason)
    cluster.status = "RollingBack"
    cluster.failure_message = f"UpdateCluster failed and was rolled back: {reason}"
    op["rolling_back"] = True
    snapshot = op["snapshot"]
    for name, group in list(cluster.groups.items()):
        if name in snapshot:
            before = snapshot[name]
            group.spec, group.target, group.min_count = before["spec"], before["target"], before["min_count"]
            group.deleting, group.status = False, "Updating"
        else:
            group.deleting, group.target, group.status = True, 0, "Deleting"
    for node in list(cluster.nodes.values()):
        if node.op_id == op["id"] or cluster.groups[node.group].deleting:
            prov.terminate(world, cluster, node, "Rolled back: the update could not be completed")
    world.emit(
        cluster,
        "Error",
        "Cluster",
        f"Cluster {cluster.name} update failed",
        op_id=op["id"],
        metadata={"Cluster": {"FailureMessage": reason}},
    )


def fail_cluster(world: World, cluster: Cluster, reason: str) -> None:
    """Creation failed: the cluster is Failed and every instance is terminated."""
    cluster.status, cluster.failure_message = "Failed", reason
    op_id = (cluster.operation or {}).get("id")
    cluster.operation = None
    grouped = cluster.nodes_by_group()
    for group in cluster.groups.values():
        if group.status != "InService" or not _complete(group, grouped.get(group.name, [])):
            group.status = "Failed"
        world.schedule_retry(cluster, group.name, None)
        world.schedule_deadline(cluster, group.name, None)
    for node in list(cluster.nodes.values()):
        prov.terminate(world, cluster, node, "Cluster creation failed")
    world.emit(
        cluster,
        "Error",
        "Cluster",
        f"Cluster {cluster.name} creation failed",
        op_id=op_id,
        metadata={"Cluster": {"FailureMessage": reason}},
    )


def delete_group(world: World, cluster: Cluster, name: str) -> None:
    group = cluster.groups[name]
    group.deleting, group.status, group.target = True, "Deleting", 0
    world.schedule_retry(cluster, name, None)
    world.schedule_deadline(cluster, name, None)
    for node in [node for node in cluster.nodes.values() if node.group == name]:
        prov.terminate(world, cluster, node, f"Instance group {name} is being deleted")
    world.touch(cluster)


# -- MinCount (Continuous) ------------------------------------------------------------------------
def _min_count_progress(world: World, cluster: Cluster, grouped: dict) -> None:
    for group in cluster.groups.values():
        if group.deleting or group.status not in ("Creating", "Updating"):
            continue
        current = _up(grouped.get(group.name, []))
        if current >= group.min_count:
            group.status, group.last_good = "InService", [group.target, group.min_count]
            world.schedule_deadline(cluster, group.name, None)
            world.emit(
                cluster,
                "Info",
                "InstanceGroup",
                f"Instance Group {group.name} in Cluster {cluster.name} "
                f"reached minimum capacity: CurrentCount {current} >= MinCount {group.min_count}; "
                "InService",
                group=group.name,
                metadata={"InstanceGroupScaling": {"InstanceCount": current, "TargetCount": group.target, "MinCount": group.min_count}},
            )


def _min_count_timeout(world: World, cluster: Cluster, group: InstanceGroup) -> None:
    nodes = cluster.group_nodes(group.name)
    current = _up(nodes)
    if group.deleting or group.status not in ("Creating", "Updating") or current >= group.min_count:
        return
    if cluster.orchestrator == "Slurm" and cluster.status == "Creating" and group.role in (CONTROLLER, LOGIN):
        return fail_cluster(
            world, cluster, "Cluster creation failed: controller and login nodes did not become ready within the expected time"
        )
    hours = world.scenario.timing.min_count_timeout_seconds / 3600
    if group.status == "Creating" or not group.last_good:
        target, minimum = 0, 0
    else:
        target, minimum = group.last_good
    world.emit(
        cluster,
        "Warn",
        "InstanceGroup",
        f"Instance Group {group.name} in Cluster {cluster.name} did not "
        f"reach MinCount {group.min_count} within {hours:g} hours (CurrentCount {current}); rollback "
        f"started to TargetCount {target}, MinCount {minimum}",
        group=group.name,
        metadata={
            "InstanceGroupScaling": {
                "InstanceCount": current,
                "TargetCount": target,
                "MinCount": minimum,
                "FailureMessage": "MinCount not reached within the timeout",
            }
        },
    )
    live = [node for node in nodes if node.live]
    for victim in prov.choose_victims(live, len(live) - target):
        prov.terminate(world, cluster, victim, "MinCount rollback")
    group.target, group.min_count = target, minimum
    group.spec = {**group.spec, "InstanceCount": target, "MinInstanceCount": minimum}
    group.status, group.last_good = "InService", [target, minimum]
    if target == 0:
        world.schedule_retry(cluster, group.name, None)
    world.touch(cluster)


# -- status ---------------------------------------------------------------------------------------
def _settle_instance_types(cluster: Cluster, grouped: dict) -> None:
    """Flexible groups: Current types become the Desired ones once scaling has settled."""
    for group in cluster.groups.values():
        if group.flexible and group.current_types != group.instance_types:
            if not any(node.phase in SETTLING for node in grouped.get(group.name, [])):
                group.current_types = group.instance_types


def _creating_to_in_service(world: World, cluster: Cluster, grouped: dict) -> None:
    if cluster.status != "Creating" or not cluster.continuous:
        return  # all-or-nothing creates complete through their operation
    if cluster.orchestrator == "Slurm":
        # Seed 000: InService once one controller node is up, and one login node when a login
        # group is specified. A login group that asks for no instances cannot supply one, so it
        # does not hold the cluster in Creating.
        ready = True
        for role in (CONTROLLER, LOGIN):
            groups = [group for group in cluster.groups_with_role(role) if role == CONTROLLER or group.target > 0]
            if groups and not any(_up(grouped.get(group.name, [])) for group in groups):
                ready = False
    else:
        ready = all(group.status == "InService" for group in cluster.groups.values())
    if ready:
        cluster.status = "InService"
        world.emit(
            cluster, "Info", "Cluster", f"Cluster {cluster.name} creation completed successfully", op_id=(cluster.operation or {}).get("id")
        )


def waiting_message(cluster: Cluster, group: InstanceGroup) -> str:
    """A new node's status message; a shortage, when there is one, replaces it with the service's
    insufficient-capacity message (_handle_shortage), so that "capacity" is said only then."""
    if cluster.waits_for_controller(group):
        return "Waiting for a healthy controller node"
    return "Waiting for an instance to launch"


__all__ = ["catch_up", "delete_group", "fail_cluster", "fail_operation", "reconcile", "reconcile_pending", "waiting_message"]
