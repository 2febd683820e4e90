"""Node lifecycle: launch, boot, lifecycle script, health checks, failure, replacement, termination.

    waiting ──capacity──► booting ──► lifecycle ──► [healthcheck] ──► running
       ▲                    │             │                              │
       └──── replacement ◄── failed ◄─────┴──────────── fail_node ───────┘
    any launched node ──► terminating (ShuttingDown) ──► gone

Billing follows the seed's metering rules: it starts when the lifecycle script starts, stops when
the instance enters terminating (or when its lifecycle script fails); an instance that never ran
its script (no capacity, unhealthy at boot) is never billed. *When* a waiting node may launch
(Slurm priority, retries, all-or-nothing) is the reconciler's decision, not this module's.
"""

from __future__ import annotations


from pulumi_hyperpod.sim.aws import ids, images, rolling_update, training_plans
from pulumi_hyperpod.sim.aws.capacity import reserved
from pulumi_hyperpod.sim.aws.model import (
    BOOTING,
    CONTROLLER,
    DETACHING,
    FAILED,
    HEALTHCHECK,
    LIFECYCLE,
    LOST,
    RUNNING,
    TERMINATING,
    UNHEALTHY_PHASES,
    UPDATING,
    REBOOTING,
    WAITING,
    Cluster,
    InstanceGroup,
    Node,
)
from pulumi_hyperpod.sim.aws.world import World

BUILD_KEYS = ("LifeCycleConfig", "ExecutionRole", "ThreadsPerCore", "InstanceStorageConfigs", "ImageId")


def built_with(world: World, group: InstanceGroup) -> dict:
    """What a node launched now is built with: the group's build members, its image as `images.py` reads it."""
    return {**{key: group.spec.get(key) for key in BUILD_KEYS}, **images.for_launch(group.spec, world.setting("image_release"))}


def capacity_message(instance_types: list[str]) -> str:
    return f"We currently do not have sufficient capacity to launch new {' or '.join(instance_types)} instances. Please try again."


def _duration(world: World, base: float) -> float:
    jitter = world.scenario.timing.jitter_seconds
    return base + (world.rng.randint(0, int(jitter)) if jitter >= 1 else 0)


# -- placement ------------------------------------------------------------------------------------
def group_subnets(cluster: Cluster, group: InstanceGroup) -> list[str]:
    override = group.spec.get("OverrideVpcConfig") or {}
    return list(override.get("Subnets") or (cluster.config.get("VpcConfig") or {}).get("Subnets") or [])


def group_zones(world: World, cluster: Cluster, group: InstanceGroup) -> list[str]:
    """AZs the group can launch in: those of its subnets, else the scenario's (platform network)."""
    zones: list[str] = []
    for subnet in group_subnets(cluster, group):
        az = cluster.subnet_azs[subnet][0]
        if az not in zones:
            zones.append(az)
    return zones or world.scenario.zones(cluster.region)


def assign_subnets(world: World, cluster: Cluster, subnets: list[str]) -> None:
    """Map new subnets to AZs: the scenario's map, else round-robin over its AZs."""
    zones = world.scenario.zones(cluster.region)
    for subnet in subnets:
        if subnet not in cluster.subnet_azs:
            index = len(cluster.subnet_azs)
            az = world.scenario.subnets.get(subnet) or zones[index % len(zones)]
            cluster.subnet_azs[subnet] = [az, index]


def _subnet_in(cluster: Cluster, group: InstanceGroup, az: str) -> tuple[str | None, int]:
    for subnet in group_subnets(cluster, group):
        zone, index = cluster.subnet_azs[subnet]
        if zone == az:
            return subnet, index
    return None, ord(az[-1]) - ord("a")


def candidate_types(group: InstanceGroup, node: Node) -> list[str]:
    types = group.instance_types
    if node.want_types:
        return [t for t in types if t in node.want_types] or list(node.want_types)
    return types


class LaunchBatch:
    """Per-batch indexes (AZ balance, taken IPs) so launching N nodes stays O(N)."""

    def __init__(self, world: World, cluster: Cluster, group: InstanceGroup) -> None:
        self.zones = group_zones(world, cluster, group)
        self.az_counts = {az: 0 for az in self.zones}
        taken: set[str] = set()
        for node in cluster.nodes.values():
            if node.ip:
                taken.add(node.ip)
            if node.group == group.name and node.launched and node.live and node.az in self.az_counts:
                self.az_counts[node.az] += 1
        self.addresses = ids.AddressPool(taken)

    def zones_by_balance(self, allowed: list[str]) -> list[str]:
        """Least used AZ first (instances spread across the group's AZs)."""
        if len(allowed) == 1:
            return allowed
        return sorted(allowed, key=lambda zone: (self.az_counts[zone], self.zones.index(zone)))


def launch_waiting(world: World, cluster: Cluster, group: InstanceGroup) -> list[Node]:
    """Launch every waiting node of the group that capacity allows; return those left short."""
    waiting = sorted(
        (node for node in cluster.nodes.values() if node.group == group.name and node.phase == WAITING),
        key=lambda node: (node.created_at, node.logical_id),
    )
    if not waiting:
        return []
    batch = LaunchBatch(world, cluster, group)
    return [node for node in waiting if not try_launch(world, cluster, group, node, batch)]


def try_launch(world: World, cluster: Cluster, group: InstanceGroup, node: Node, batch: LaunchBatch) -> bool:
    zones = batch.zones if not node.want_azs else [az for az in batch.zones if az in node.want_azs]
    ordered = batch.zones_by_balance(zones)
    plan = training_plans.listed(world, group.spec.get("TrainingPlanArn"))
    if plan is not None:  # reserved capacity: in the plan's AZ, while the plan is Active
        ordered = training_plans.launchable(world, group.spec["TrainingPlanArn"], plan, ordered)
    for instance_type in candidate_types(group, node):
        if plan is not None and instance_type != plan.instance_type:
            continue  # a training plan reserves one type: the group's nodes come from it or not at all
        pool = reserved(instance_type, group.spec["TrainingPlanArn"]) if plan is not None else instance_type
        for az in ordered:
            launched, held = world.capacity.take(pool, az)
            if launched:
                _launch(world, cluster, group, node, instance_type, az, held, batch)
                return True
    return False


def _launch(
    world: World,
    cluster: Cluster,
    group: InstanceGroup,
    node: Node,
    instance_type: str,
    az: str,
    held: list | None,
    batch: LaunchBatch,
) -> None:
    subnet, subnet_index = _subnet_in(cluster, group, az)
    node.instance_id = ids.instance_id(world.rng)
    cluster.by_instance[node.instance_id] = node.logical_id
    node.instance_type, node.az, node.subnet = instance_type, az, subnet
    node.ip = batch.addresses.allocate(world.rng, subnet_index)
    node.launch_time = world.now
    node.phase, node.status, node.message = BOOTING, "Pending", "Launching EC2 instance"
    node.capacity_key = held
    node.attempts += 1
    node.built_with = built_with(world, group)
    batch.az_counts[az] = batch.az_counts.get(az, 0) + 1
    world.schedule_node(cluster, node, world.now + _duration(world, world.scenario.timing.launch_seconds))
    world.emit(
        cluster,
        "Info",
        "Instance",
        f"EC2 Instance {node.instance_id} successfully provisioned in Cluster {cluster.name} and IG {group.name}",
        node=node,
        metadata={"Instance": {"NodeLogicalId": node.logical_id}},
    )


# -- timers ---------------------------------------------------------------------------------------
def on_node_timer(world: World, cluster: Cluster, node: Node) -> None:
    """A node's scheduled step is due."""
    node.due = None
    group = cluster.groups.get(node.group)
    timing, faults = world.scenario.timing, world.scenario.faults
    world.touch(cluster)
    if node.phase == TERMINATING:
        _finish_termination(world, cluster, node)
    elif node.phase == DETACHING:
        hand_off(world, cluster, node)
    elif group is None:
        return
    elif node.phase == UPDATING:
        rolling_update.node_done(world, cluster, node)
    elif node.phase == REBOOTING:
        _become_running(world, cluster, group, node, "reboot")
    elif node.phase == LOST:
        replace(world, cluster, node)
    elif node.phase == BOOTING:
        rate = faults.rate("launch_failure_rate", group.name, node.instance_type)
        if rate and world.rng.random() < rate:
            retryable = cluster.continuous or node.attempts < timing.max_launch_attempts
            fail_node(
                world,
                cluster,
                node,
                f"Instance {node.instance_id} failed EC2 health checks after launch (unhealthy instance).",
                retryable=retryable,
            )
            return
        node.phase, node.message = LIFECYCLE, "Running lifecycle scripts"
        world.open_billing(cluster, node)
        world.schedule_node(cluster, node, world.now + _duration(world, timing.lifecycle_seconds))
    elif node.phase == LIFECYCLE:
        rate = faults.rate("lifecycle_failure_rate", group.name, node.instance_type)
        if rate and world.rng.random() < rate:
            world.close_billing(node)  # billed for the script's run time only
            lifecycle = group.spec.get("LifeCycleConfig") or {}
            script = lifecycle.get("OnCreate") or lifecycle.get("OnInitComplete") or "on_create.sh"  # the one entrypoint given
            controller_at_create = group.role == CONTROLLER and cluster.status == "Creating"
            fail_node(
                world,
                cluster,
                node,
                f"Lifecycle script {script} failed on instance {node.instance_id} (exit code 1).",
                retryable=cluster.continuous and not controller_at_create,
                lifecycle=True,
            )
            return
        world.emit(
            cluster, "Info", "Instance", f"Instance lifecycle script execution for EC2 Instance {node.instance_id} has Succeeded", node=node
        )
        if group.spec.get("OnStartDeepHealthChecks"):
            node.phase, node.status = HEALTHCHECK, "DeepHealthCheckInProgress"
            node.message = "Running deep health checks: " + ", ".join(group.spec["OnStartDeepHealthChecks"])
            world.schedule_node(cluster, node, world.now + timing.deep_health_check_seconds)
        else:
            _become_running(world, cluster, group, node)
    elif node.phase == HEALTHCHECK and node.health_check:
        _finish_health_check(world, cluster, group, node)
    elif node.phase == HEALTHCHECK:
        _become_running(world, cluster, group, node)
    elif node.phase == FAILED:
        replace(world, cluster, node)


def _become_running(world: World, cluster: Cluster, group: InstanceGroup, node: Node, what: str = "create") -> None:
    node.phase, node.status, node.message, node.registered = RUNNING, "Running", "", True
    if group.role == CONTROLLER:
        cluster.controller_ready = True
    world.emit(
        cluster,
        "Info",
        "Instance",
        f"Instance {what} {node.instance_id} in Cluster {cluster.name} and IG {group.name} completed successfully",
        node=node,
    )


def _finish_health_check(world: World, cluster: Cluster, group: InstanceGroup, node: Node) -> None:
    """StartClusterHealthCheck on a running node: it passes (Running again) or fails, and the service
    recovers the unhealthy node itself (its documentation: rebooted or replaced)."""
    op_id, node.health_check = node.health_check, None
    rate = world.scenario.faults.rate("deep_health_check_failure_rate", group.name, node.instance_type)
    if rate and world.rng.random() < rate:
        fail_node(
            world, cluster, node, f"Deep health check failed on instance {node.instance_id} (InstanceStress: GPU errors).", retryable=True
        )
        return
    node.phase, node.status, node.message = RUNNING, "Running", ""
    world.emit(
        cluster,
        "Info",
        "Instance",
        f"Deep health check of EC2 Instance {node.instance_id} in Cluster {cluster.name} and IG {group.name} passed",
        node=node,
        op_id=op_id,
    )


# -- failures -------------------------------------------------------------------------------------
def fail_node(world: World, cluster: Cluster, node: Node, reason: str, *, retryable: bool, lifecycle: bool = False) -> None:
    """Mark the node unhealthy; the service replaces it later when the failure is retryable."""
    node.phase, node.status, node.message, node.retryable = FAILED, "Failure", reason, retryable
    world.touch(cluster)
    description = (
        f"Instance lifecycle script execution for EC2 Instance {node.instance_id} has Failed"
        if lifecycle
        else f"Instance create {node.instance_id} in Cluster {cluster.name} and IG {node.group} failed"
    )
    world.emit(
        cluster,
        "Error",
        "Instance",
        description,
        node=node,
        metadata={"Instance": {"FailureMessage": reason, "NodeLogicalId": node.logical_id}},
    )
    auto = cluster.continuous or cluster.node_recovery == "Automatic"
    if retryable and auto and cluster.status not in ("Deleting", "Failed"):
        world.schedule_node(cluster, node, world.now + world.scenario.timing.retry_interval_seconds)
    else:
        world.schedule_node(cluster, node, None)


def lose_instance(world: World, cluster: Cluster, node: Node, reason: str) -> None:
    """The EC2 instance vanished outside HyperPod (terminated from EC2, reclaimed): the node is NotFound.
    Billing stops with the instance; automatic node recovery (or Continuous mode) puts a new one in."""
    world.close_billing(node)
    world.capacity.release(node.capacity_key)
    node.capacity_key = None
    node.phase, node.status, node.message = LOST, "NotFound", reason
    world.touch(cluster)
    world.emit(
        cluster,
        "Error",
        "Instance",
        f"EC2 Instance {node.instance_id} in Cluster {cluster.name} and IG {node.group} was not found",
        node=node,
        metadata={"Instance": {"FailureMessage": reason, "NodeLogicalId": node.logical_id}},
    )
    auto = cluster.continuous or cluster.node_recovery == "Automatic"
    due = world.now + world.scenario.timing.retry_interval_seconds if auto and cluster.status != "Deleting" else None
    world.schedule_node(cluster, node, due)


def replace(world: World, cluster: Cluster, node: Node) -> None:
    """Terminate the failed instance and put the logical node back in line for a new one."""
    old = node.instance_id
    release_instance(world, cluster, node)
    node.instance_id = node.instance_type = node.az = node.subnet = node.ip = None
    node.launch_time, node.capacity_key, node.registered = None, None, False
    node.phase, node.status, node.message = WAITING, "Pending", "Waiting for a replacement instance"
    world.emit(
        cluster,
        "Info",
        "Instance",
        f"Instance {old} is starting as part of instance replacement in Cluster {cluster.name} and IG {node.group}",
        group=node.group,
        op_id=node.op_id,
        metadata={"Instance": {"NodeLogicalId": node.logical_id}},
    )
    world.touch(cluster)


def release_instance(world: World, cluster: Cluster, node: Node) -> None:
    """The instance is gone for good: capacity back to its pool, billing closed, id unindexed."""
    world.close_billing(node)
    world.capacity.release(node.capacity_key)
    node.capacity_key = None
    if node.instance_id:
        cluster.by_instance.pop(node.instance_id, None)


# -- termination ----------------------------------------------------------------------------------
def terminate(world: World, cluster: Cluster, node: Node, reason: str) -> None:
    """Scale-in, deletion, rollback: a never-launched node just disappears; others shut down."""
    world.touch(cluster)
    if not node.launched or node.phase == LOST:  # no instance to shut down
        release_instance(world, cluster, node)
        cluster.nodes.pop(node.logical_id, None)
        return
    if node.phase == TERMINATING:
        return
    node.phase, node.status, node.message = TERMINATING, "ShuttingDown", reason
    world.close_billing(node)  # billing stops when the instance enters the terminating state
    world.schedule_node(cluster, node, world.now + world.scenario.timing.terminate_seconds)
    world.emit(
        cluster,
        "Info",
        "Instance",
        f"Termination of EC2 Instance {node.instance_id} is currently in progress in Cluster {cluster.name} and IG {node.group}",
        node=node,
    )


def _finish_termination(world: World, cluster: Cluster, node: Node) -> None:
    release_instance(world, cluster, node)
    cluster.nodes.pop(node.logical_id, None)


def choose_victims(nodes: list[Node], count: int) -> list[Node]:
    """The service's scale-in choice: unhealthy (Failure, NotFound) first, then never-launched, then the newest.
    Nodes leaving the group (DetachInProgress) are not in it any more."""

    def rank(node: Node) -> tuple:
        if node.phase in UNHEALTHY_PHASES:
            return (0, -(node.launch_time or node.created_at), -node.seq)
        if node.phase == WAITING:
            return (1, -node.created_at, -node.seq)
        return (2, -(node.launch_time or node.created_at), -node.seq)

    return sorted((node for node in nodes if node.live), key=rank)[: max(0, count)]


def is_up(node: Node) -> bool:
    return node.phase == RUNNING


# -- MoveClusterNodes -----------------------------------------------------------------------------
def hand_off(world: World, source: Cluster, node: Node) -> None:
    """Detached: the node joins its target group, keeping its instance, ids, IP and capacity, and runs the
    target's lifecycle scripts (AttachInProgress). A target gone meanwhile: it stays where it was."""
    move = node.move or {}
    node.move = None
    target = world.clusters.get(move.get("cluster", ""))
    group = target.groups.get(move.get("group", "")) if target is not None else None
    if target is None or group is None or group.deleting or target.status in ("Deleting", "Failed"):
        home = source.groups.get(move.get("source_group", ""))
        if home is None or home.deleting:
            node.phase = RUNNING
            return terminate(world, source, node, "Move cancelled: the target and the source group are gone")
        home.target += 1
        home.spec = {**home.spec, "InstanceCount": home.target}
        node.phase, node.status, node.message = RUNNING, "Running", "Move cancelled: the target group is gone"
        world.emit(
            source,
            "Warn",
            "Instance",
            f"Move of EC2 Instance {node.instance_id} cancelled: target instance group {move.get('group')} is gone",
            node=node,
        )
        return
    world.close_billing(node)
    source.nodes.pop(node.logical_id, None)
    source.by_instance.pop(node.instance_id, None)
    world.emit(
        source,
        "Info",
        "Instance",
        f"EC2 Instance {node.instance_id} detached from Cluster {source.name} "
        f"and IG {move.get('source_group')}; moving to Cluster {target.name} and IG {group.name}",
        node=node,
    )
    node.group, node.op_id = group.name, None
    node.phase, node.status = LIFECYCLE, "AttachInProgress"
    node.message = f"Attaching to instance group {group.name}: running its lifecycle scripts"
    node.built_with = built_with(world, group)
    group.target += 1
    group.spec = {**group.spec, "InstanceCount": group.target}
    target.add_node(node)
    target.by_instance[node.instance_id] = node.logical_id
    world.open_billing(target, node)
    world.touch(target)
    world.schedule_node(target, node, world.now + _duration(world, world.scenario.timing.lifecycle_seconds))
    world.emit(
        target,
        "Info",
        "Instance",
        f"EC2 Instance {node.instance_id} attach to Cluster {target.name} and IG {group.name} started",
        node=node,
        metadata={"Instance": {"NodeLogicalId": node.logical_id}},
    )
