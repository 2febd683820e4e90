"""The software-update status the service reports (botocore's model: ClusterInstanceGroupDetails'
SoftwareUpdateStatus, TargetStateCount, ActiveSoftwareUpdateConfig, Current/Desired image; the node
shapes' LastSoftwareUpdateTime, CurrentImageReleaseVersion, ImageVersionStatus), a rollback in
RollbackMaximumBatchSize batches that swaps Current and Desired, and `ImageId: default` after a custom
AMI, through the real botocore client."""

from __future__ import annotations

from tests.support.sim_helpers import eks_request, group, groups_of, nodes_of

OLD, NEW = "ami-0123456789abcdef0", "ami-0fedcba9876543210"
BY_THREE = {"RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 3}}, "WaitIntervalInSeconds": 60}


def _eks(make_sim, count=8, **extra):
    sim, client = make_sim()
    client.create_cluster(**eks_request("eks", [group("pool", count, "ml.g5.xlarge", **extra)]))
    sim.advance(1800)
    return sim, client


def _pool(client):
    return groups_of(client, "eks")["pool"]


def _software(client):
    """The pool's (SoftwareUpdateStatus, CurrentImageId, DesiredImageId, TargetStateCount)."""
    pool = _pool(client)
    return pool.get("SoftwareUpdateStatus"), pool.get("CurrentImageId"), pool.get("DesiredImageId"), pool.get("TargetStateCount")


def _updating(client):
    return sum(1 for n in nodes_of(client, "eks") if n["InstanceStatus"]["Status"] == "SystemUpdating")


def test_a_rolling_update_reports_its_status_the_desired_image_and_the_nodes_on_it(make_sim):
    sim, client = _eks(make_sim, ImageId=OLD)
    assert "SoftwareUpdateStatus" not in _pool(client)  # no update asked for yet
    client.update_cluster_software(ClusterName="eks", ImageId=NEW, DeploymentConfig=BY_THREE)
    pool = _pool(client)
    # Pending lasts until the first batch starts: at once here
    assert (pool["SoftwareUpdateStatus"], pool["CurrentImageId"], pool["DesiredImageId"]) == ("InProgress", OLD, NEW)
    assert pool["TargetStateCount"] == 0 and pool["ActiveSoftwareUpdateConfig"] == BY_THREE
    sim.advance(1)
    sim.advance(900)
    pool = _pool(client)
    assert (pool["CurrentImageId"], pool["DesiredImageId"], pool["TargetStateCount"]) == (OLD, NEW, 3)
    node = client.describe_cluster_node(ClusterName="eks", NodeId=nodes_of(client, "eks")[0]["InstanceId"])["NodeDetails"]
    assert node["DesiredImageId"] == NEW
    sim.advance(4 * 3600)
    assert _software(client) == ("Succeeded", NEW, NEW, 8)
    assert "ActiveSoftwareUpdateConfig" not in _pool(client)  # the update is over
    assert all("LastSoftwareUpdateTime" in n for n in nodes_of(client, "eks"))


def test_a_rollback_swaps_current_and_desired_and_goes_rollback_maximum_batch_size_at_a_time(make_sim):
    sim, client = _eks(make_sim, count=6, ImageId=OLD)
    deployment = {
        "RollingUpdatePolicy": {
            "MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 3},
            "RollbackMaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 1},
        },
        "AutoRollbackConfiguration": [{"AlarmName": "gpu-health"}],
    }
    client.update_cluster_software(ClusterName="eks", ImageId=NEW, DeploymentConfig=deployment)
    sim.advance(1000)  # the first batch of 3 is patched, the second is being patched
    assert sim.fire_alarm("eks", "gpu-health") is True
    sim.advance(1)
    pool = _pool(client)
    assert (pool["SoftwareUpdateStatus"], pool["CurrentImageId"], pool["DesiredImageId"]) == ("RollbackInProgress", NEW, OLD)
    assert _updating(client) == 1  # one node rolled back at a time
    assert pool["TargetStateCount"] == 0  # no Running node on the (new) desired image yet: the others run NEW or are rolling back
    sim.advance(6 * 901)
    assert _software(client) == ("RollbackComplete", OLD, OLD, 6)
    assert client.describe_cluster(ClusterName="eks")["ClusterStatus"] == "InService"


def test_nodes_report_their_release_and_its_status_once_a_release_is_out(make_sim):
    sim, client = _eks(make_sim, count=2)
    sim.publish_image_release("2026.12.1")
    sim.advance(1)
    [before] = {(n.get("CurrentImageReleaseVersion"), n.get("ImageVersionStatus")) for n in nodes_of(client, "eks")}
    assert before == (None, "UpdateAvailable")
    client.update_cluster_software(ClusterName="eks", InstanceGroups=[{"InstanceGroupName": "pool"}])
    sim.advance(1000)
    nodes = nodes_of(client, "eks")
    assert {(n["CurrentImageReleaseVersion"], n["ImageVersionStatus"]) for n in nodes} == {("2026.12.1", "UpToDate")}
    details = client.describe_cluster_node(ClusterName="eks", NodeId=nodes[0]["InstanceId"])["NodeDetails"]
    assert (details["CurrentImageReleaseVersion"], details["DesiredImageReleaseVersion"], details["ImageVersionStatus"]) == (
        "2026.12.1",
        "2026.12.1",
        "UpToDate",
    )
    assert details["LastSoftwareUpdateTime"] >= details["LaunchTime"]


def test_image_id_default_after_a_custom_ami_moves_the_group_to_the_hyperpod_public_ami(make_sim):
    sim, client = _eks(make_sim, count=2, ImageId=OLD)
    sim.publish_image_release("2026.12.1")
    assert all("ImageVersionStatus" not in n for n in nodes_of(client, "eks"))  # a custom AMI is not rated against releases
    client.update_cluster_software(ClusterName="eks", ImageId="default")
    assert _pool(client)["CurrentImageId"] == OLD and "DesiredImageId" not in _pool(client)
    sim.advance(1000)
    pool = _pool(client)
    assert "CurrentImageId" not in pool and "DesiredImageId" not in pool  # off the custom AMI
    assert (pool["CurrentImageReleaseVersion"], pool["ImageVersionStatus"], pool["SoftwareUpdateStatus"]) == (
        "2026.12.1",
        "UpToDate",
        "Succeeded",
    )
    assert {n["ImageVersionStatus"] for n in nodes_of(client, "eks")} == {"UpToDate"}
