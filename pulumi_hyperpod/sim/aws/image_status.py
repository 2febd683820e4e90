"""ImageVersionStatus, where the model has it (ClusterInstanceGroupDetails, ClusterNodeSummary,
ClusterNodeDetails), once a HyperPod AMI release is published (`Simulator.publish_image_release`,
scenario `image_release`): UpToDate on the latest release, else UpdateAvailable; none for a custom
AMI. A group created after the release without a version uses the latest ("If omitted, the latest
available version is used"); a group with AutoPatchConfig and an update available reports the
NextPatchDate the service set (patching.fill_next_patch_date). The views know no release: these wrap
the operations that answer with them.
"""

from __future__ import annotations

from collections.abc import Callable

from pulumi_hyperpod.sim.aws import images, patching
from pulumi_hyperpod.sim.aws.world import World

Operation = Callable[[World, str, dict], dict]


def _latest(world: World):
    return world.setting("image_release")


def describe_cluster(describe: Operation) -> Operation:
    def run(world: World, region: str, params: dict) -> dict:
        response = describe(world, region, params)
        latest = _latest(world)
        if latest is None:
            return response
        cluster = world.find_cluster(region, params["ClusterName"])
        for item in response.get("InstanceGroups") or ():
            group = cluster.groups.get(item["InstanceGroupName"])
            if group is None:
                continue
            fresh = group.created_at >= (world.setting("image_released_at") or 0)
            status = images.version_status(images.of_spec(group.spec), latest, fresh)
            if status is not None:
                item["ImageVersionStatus"] = status
            if status == "UpdateAvailable":
                patching.fill_next_patch_date(world, group, item, latest)
        return response

    return run


def _node(world: World, region: str, cluster_name: str, items) -> None:
    """Each launched node's status, from the image it runs (a custom AMI has none)."""
    latest = _latest(world)
    if latest is None:
        return
    cluster = world.find_cluster(region, cluster_name)
    for item in items:
        node = cluster.node(item.get("InstanceId") or item.get("NodeLogicalId") or "")
        status = images.version_status(images.of_node(node.built_with), latest) if node is not None and node.launched else None
        if status is not None:
            item["ImageVersionStatus"] = status


def list_cluster_nodes(listing: Operation) -> Operation:
    def run(world: World, region: str, params: dict) -> dict:
        response = listing(world, region, params)
        _node(world, region, params["ClusterName"], response.get("ClusterNodeSummaries") or ())
        return response

    return run


def describe_cluster_node(describe: Operation) -> Operation:
    def run(world: World, region: str, params: dict) -> dict:
        response = describe(world, region, params)
        _node(world, region, params["ClusterName"], [response["NodeDetails"]])
        return response

    return run
