"""UpdateClusterSoftware's rolling update, driven by the reconciler.

The cluster and the groups being patched show `SystemUpdating`; Running instances are patched in
batches (DeploymentConfig.RollingUpdatePolicy.MaximumBatchSize: a count or a percentage of the
instances being updated; without it, all at once) — on EKS clusters only: a Slurm cluster's nodes
are all patched at once (AWS's AMI-update guide: rolling updates are for EKS), and
`software.py` refuses a DeploymentConfig for one. Nodes go oldest launch first (launch time, group,
instance id: the order the planner shows). Each instance is `SystemUpdating` for
`timing.software_update_seconds`, with `WaitIntervalInSeconds` between batches. Instances that are
not Running when their turn comes are skipped: whatever launches from now on is built with the new
image. When no instance is left, the image becomes the groups' current one and the cluster returns
to the status it had.

Each group named keeps the last update's `SoftwareUpdateStatus` (`InstanceGroup.software`), as the
model documents its sequences: Pending → InProgress → Succeeded, or → RollbackInProgress →
RollbackComplete. While the update runs the group's Desired image is the new one and its Current the
old; an alarm of AutoRollbackConfiguration swaps them ("If a rollback occurs, the current image ID and
desired image ID … swap values") and the patched nodes return to the image they had, in batches of
`RollbackMaximumBatchSize` (the model gives no default: without it, all at once).
`ImageId: default` is the HyperPod public AMI at the latest release (`images.py`).
"""

from __future__ import annotations

import math

from pulumi_hyperpod.sim.aws import images
from pulumi_hyperpod.sim.aws.model import RUNNING, UPDATING, Cluster, Node
from pulumi_hyperpod.sim.aws.world import World

UPDATE, ROLLBACK = "update", "rollback"
ACTIVE = frozenset({"Pending", "InProgress", "RollbackInProgress"})


def start(world: World, cluster: Cluster, groups: list[dict], deployment: dict | None, image: str | None, op_id: str) -> None:
    names = [entry["InstanceGroupName"] for entry in groups] or list(cluster.groups)
    versions = {entry["InstanceGroupName"]: entry.get("ImageReleaseVersion") for entry in groups}
    latest = world.setting("image_release")
    nodes = sorted(
        (node for node in cluster.nodes.values() if node.group in names and node.phase == RUNNING),
        key=lambda node: (node.launch_time or node.created_at, node.group, node.instance_id or ""),
    )
    rolling = (deployment or {}).get("RollingUpdatePolicy") or {}
    policy, rollback_policy = rolling.get("MaximumBatchSize"), rolling.get("RollbackMaximumBatchSize")
    if cluster.orchestrator == "Slurm":
        policy = rollback_policy = None  # no rolling batches on Slurm: every node at once
    targets = {}
    for name in names:
        group = cluster.groups[name]
        if image:  # the request names the image: an AMI (no release of its own), or default (the latest release)
            ami = images.custom(image)
            release = versions.get(name) or (None if ami else latest)
        else:  # the group keeps its image: its custom AMI (and the release patched beside it), or the public AMI's latest
            ami = images.custom(group.spec.get("ImageId"))
            release = versions.get(name) or (None if ami else latest) or group.spec.get("ImageReleaseVersion")
        targets[name] = {"ImageId": ami, "ImageReleaseVersion": release}
        group.software = {"status": "Pending"}
    cluster.software_update = {
        "id": op_id,
        "groups": names,
        "targets": targets,
        "mode": UPDATE,
        "config": deployment,
        "pending": [node.logical_id for node in nodes],
        "patched": [],
        "batch": _batch_size(policy, len(nodes)),
        "rollback_batch": rollback_policy,
        "wait": float((deployment or {}).get("WaitIntervalInSeconds") or 0),
        "next_at": world.now,
        "status_before": cluster.status,
        "alarms": [a["AlarmName"] for a in (deployment or {}).get("AutoRollbackConfiguration") or []],
        "images_before": {node.logical_id: images.of_node(node.built_with) for node in nodes},
    }
    cluster.status = "SystemUpdating"
    for name in names:
        cluster.groups[name].status = "SystemUpdating"
    world.touch(cluster)
    world.emit(
        cluster,
        "Info",
        "Cluster",
        f"Cluster {cluster.name} software update started successfully ({len(nodes)} instance(s) in {', '.join(names)})",
        op_id=op_id,
    )


def _batch_size(policy: dict | None, total: int) -> int:
    if not policy:
        return max(total, 1)
    if policy["Type"] == "INSTANCE_COUNT":
        return max(int(policy["Value"]), 1)
    return max(math.ceil(total * min(int(policy["Value"]), 100) / 100), 1)


def wanted(cluster: Cluster, name: str) -> dict | None:
    """The image the running update (or its rollback) moves group `name` to; None when none runs for it."""
    update = cluster.software_update
    if update is None or name not in update["groups"] or "targets" not in update:
        return None
    if update["mode"] == ROLLBACK:
        group = cluster.groups.get(name)
        return images.of_spec(group.spec) if group is not None else None
    return update["targets"][name]


def running_image(cluster: Cluster, name: str) -> dict | None:
    """During a rollback the image being left is reported as the group's current one (the swap)."""
    update = cluster.software_update
    if update is None or update.get("mode") != ROLLBACK or name not in update["groups"]:
        return None
    return update["targets"][name]


def progress(world: World, cluster: Cluster) -> None:
    """Start the next batch when the last one finished and its wait passed; finish when none is left."""
    update = cluster.software_update
    if update is None or cluster.status in ("Deleting", "Failed"):
        return
    if any(node.phase == UPDATING for node in cluster.nodes.values()):
        return
    if update["next_at"] is None:  # a batch just finished
        if not update["pending"]:
            return _finish(world, cluster)
        update["next_at"] = world.now + (update["wait"] if update.get("mode") == UPDATE else 0)
        if update["next_at"] > world.now:
            world.schedule_cluster(cluster, update["next_at"])
    if world.now < update["next_at"]:
        return
    batch = []
    while update["pending"] and len(batch) < update["batch"]:
        node = cluster.nodes.get(update["pending"].pop(0))
        if node is not None and node.phase == RUNNING:
            batch.append(node)
    if not batch:
        return _finish(world, cluster)
    update["next_at"] = None
    rollback = update.get("mode") == ROLLBACK
    for name in update["groups"]:
        group = cluster.groups.get(name)
        if group is not None and not rollback and (group.software or {}).get("status") == "Pending":
            group.software = {"status": "InProgress"}
    for node in batch:
        node.phase, node.status = UPDATING, "SystemUpdating"
        target = update["images_before"][node.logical_id] if rollback else update["targets"].get(node.group)
        node.message = ("Rolling back the platform software" if rollback else "Updating the platform software") + (
            f" to {target['ImageId']}" if target and target["ImageId"] else ""
        )
        world.schedule_node(cluster, node, world.now + world.scenario.timing.software_update_seconds)
    world.touch(cluster)


def node_done(world: World, cluster: Cluster, node: Node) -> None:
    """A node's turn ended: it runs the image its batch moved it to, from now (LastSoftwareUpdateTime)."""
    update = cluster.software_update or {}
    if "targets" in update:
        rollback = update["mode"] == ROLLBACK
        image = update["images_before"].get(node.logical_id) if rollback else update["targets"].get(node.group)
        if image is not None:
            node.built_with = {**(node.built_with or {}), **image}
            node.software_updated_at = world.now
        if not rollback:
            update["patched"].append(node.logical_id)
    node.phase, node.status, node.message = RUNNING, "Running", ""
    world.emit(
        cluster,
        "Info",
        "Instance",
        f"Software update of EC2 Instance {node.instance_id} in Cluster {cluster.name} and IG {node.group} completed successfully",
        node=node,
        op_id=update.get("id"),
    )


def _finish(world: World, cluster: Cluster) -> None:
    update = cluster.software_update
    cluster.software_update = None
    cluster.status = update["status_before"]
    rollback = update.get("mode") == ROLLBACK
    for name in update["groups"]:
        group = cluster.groups.get(name)
        if group is None:
            continue
        if group.status == "SystemUpdating":
            group.status = "InService"
        group.software = {"status": "RollbackComplete" if rollback else "Succeeded"}
        if rollback:
            continue
        target = update["targets"][name]
        spec = {key: value for key, value in group.spec.items() if key not in ("ImageId", "ImageReleaseVersion")}
        spec.update((key, value) for key, value in target.items() if value is not None)
        group.spec = spec
    world.touch(cluster)
    if rollback:
        world.emit(
            cluster,
            "Error",
            "Cluster",
            f"Cluster {cluster.name} software update rolled back: alarm {update['alarm']} is in ALARM state (AutoRollbackConfiguration)",
            op_id=update["id"],
        )
    else:
        world.emit(cluster, "Info", "Cluster", f"Cluster {cluster.name} software update completed successfully", op_id=update["id"])


def alarm(world: World, cluster: Cluster, alarm_name: str) -> bool:
    """A CloudWatch alarm goes into ALARM. When the running update names it in AutoRollbackConfiguration,
    the update stops and is rolled back: nodes not patched yet are left alone, the patched ones (and
    those being patched) return to the image they had, RollbackMaximumBatchSize at a time. True when
    it started a rollback."""
    update = cluster.software_update
    if update is None or update.get("mode") != UPDATE or alarm_name not in update.get("alarms", []):
        return False
    back = list(update["patched"])
    for node in cluster.nodes.values():
        if node.phase == UPDATING and node.logical_id in update["images_before"]:
            node.phase, node.status, node.message = RUNNING, "Running", ""
            node.built_with = {**(node.built_with or {}), **update["targets"][node.group]}  # part-patched: rolled back too
            world.schedule_node(cluster, node, None)
            back.append(node.logical_id)
    update.update(
        mode=ROLLBACK,
        alarm=alarm_name,
        pending=back,
        batch=_batch_size(update.get("rollback_batch"), len(back)),
        next_at=world.now,
    )
    for name in update["groups"]:
        group = cluster.groups.get(name)
        if group is not None:
            group.software = {"status": "RollbackInProgress"}
    world.touch(cluster)
    world.emit(
        cluster,
        "Warn",
        "Cluster",
        f"Cluster {cluster.name} software update rolling back {len(back)} instance(s): alarm {alarm_name} is in ALARM state "
        "(AutoRollbackConfiguration)",
        op_id=update["id"],
    )
    progress(world, cluster)
    return True
