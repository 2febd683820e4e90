"""UpdateClusterSoftware's rolling update, driven by the reconciler.

The cluster and the groups being patched show `SystemUpdating`; Running instances are patched in
batches (DeploymentConfig.RollingUpdatePolicy.MaximumBatchSize: a count or a percentage of the
instances being updated; without it, all at once) — on EKS clusters only: a Slurm cluster's nodes
are all patched at once (AWS's AMI-update guide: rolling updates are for EKS), and
`software.py` refuses a DeploymentConfig for one. Nodes go oldest launch first (launch time, group,
instance id: the order the planner shows). Each instance is `SystemUpdating` for
`timing.software_update_seconds`, with `WaitIntervalInSeconds` between batches. Instances that are
not Running when their turn comes are skipped: whatever launches from now on is built with the new
image. When no instance is left, the image (ImageId, or a group's ImageReleaseVersion) becomes the
groups' current one and the cluster returns to the status it had.
"""

from __future__ import annotations

import math
from typing import Optional

from .model import RUNNING, UPDATING, Cluster
from .world import World


def start(world: World, cluster: Cluster, groups: list[dict], deployment: Optional[dict], image: Optional[str], op_id: str) -> None:
    names = [entry["InstanceGroupName"] for entry in groups] or list(cluster.groups)
    nodes = sorted(
        (node for node in cluster.nodes.values() if node.group in names and node.phase == RUNNING),
        key=lambda node: (node.launch_time or node.created_at, node.group, node.instance_id or ""),
    )
    policy = ((deployment or {}).get("RollingUpdatePolicy") or {}).get("MaximumBatchSize")
    if cluster.orchestrator == "Slurm":
        policy = None  # no rolling batches on Slurm: every node at once
    cluster.software_update = {
        "id": op_id,
        "groups": names,
        "image": image if image and image != "default" else None,
        # a group named without ImageReleaseVersion (and no custom ImageId) moves to the latest release
        "release_versions": {
            entry["InstanceGroupName"]: entry.get("ImageReleaseVersion") or world.scenario.image_release
            for entry in groups
            if entry.get("ImageReleaseVersion") or (world.scenario.image_release and not (image and image != "default"))
        },
        "pending": [node.logical_id for node in nodes],
        "batch": _batch_size(policy, len(nodes)),
        "wait": float((deployment or {}).get("WaitIntervalInSeconds") or 0),
        "next_at": world.now,
        "status_before": cluster.status,
        "alarms": [a["AlarmName"] for a in (deployment or {}).get("AutoRollbackConfiguration") or []],
        "images_before": {node.logical_id: (node.built_with or {}).get("ImageId") for node in nodes},
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


def _batch_size(policy: Optional[dict], total: int) -> int:
    if not policy:
        return max(total, 1)
    if policy["Type"] == "INSTANCE_COUNT":
        return max(int(policy["Value"]), 1)
    return max(math.ceil(total * min(int(policy["Value"]), 100) / 100), 1)


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
        update["next_at"] = world.now + update["wait"]
        if update["wait"] > 0:
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
    for node in batch:
        node.phase, node.status = UPDATING, "SystemUpdating"
        node.message = "Updating the platform software" + (f" to {update['image']}" if update["image"] else "")
        world.schedule_node(cluster, node, world.now + world.scenario.timing.software_update_seconds)
    world.touch(cluster)


def _finish(world: World, cluster: Cluster) -> None:
    update = cluster.software_update
    cluster.software_update = None
    cluster.status = update["status_before"]
    for name in update["groups"]:
        group = cluster.groups.get(name)
        if group is None:
            continue
        if group.status == "SystemUpdating":
            group.status = "InService"
        if update["image"]:
            group.spec = {**group.spec, "ImageId": update["image"]}
        if name in update["release_versions"]:
            group.spec = {**group.spec, "ImageReleaseVersion": update["release_versions"][name]}
    world.touch(cluster)
    world.emit(cluster, "Info", "Cluster", f"Cluster {cluster.name} software update completed successfully", op_id=update["id"])


def alarm(world: World, cluster: Cluster, alarm_name: str) -> bool:
    """A CloudWatch alarm goes into ALARM. When the running update names it in AutoRollbackConfiguration,
    the update stops and is rolled back: nodes not patched yet are left alone, patched ones return to
    the image they had, the groups keep theirs. True when it rolled an update back."""
    update = cluster.software_update
    if update is None or alarm_name not in update.get("alarms", []):
        return False
    cluster.software_update = None
    cluster.status = update["status_before"]
    for node in cluster.nodes.values():
        if node.logical_id not in update["images_before"] or node.logical_id in update["pending"]:
            continue
        if node.phase == UPDATING:
            node.phase, node.status, node.message = RUNNING, "Running", ""
            world.schedule_node(cluster, node, None)
        node.built_with = {**(node.built_with or {}), "ImageId": update["images_before"][node.logical_id]}
    for name in update["groups"]:
        group = cluster.groups.get(name)
        if group is not None and group.status == "SystemUpdating":
            group.status = "InService"
    world.touch(cluster)
    world.emit(
        cluster,
        "Error",
        "Cluster",
        f"Cluster {cluster.name} software update rolled back: alarm {alarm_name} is in ALARM state (AutoRollbackConfiguration)",
        op_id=update["id"],
    )
    return True
