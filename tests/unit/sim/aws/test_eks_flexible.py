"""Seed 001 (EKS continuous provisioning, flexible instance groups, targeted BatchAddClusterNodes)."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.support.sim_helpers import cluster_status, eks_request, group, groups_of, nodes_of, seed004_groups, statuses

FLEX_TYPES = ["ml.p5.48xlarge", "ml.p4d.24xlarge", "ml.g6.48xlarge"]


def test_eks_continuous_create_with_min_count_0_is_in_service_at_once(sim, client):
    arn = client.create_cluster(**eks_request("eks-1", [group("ig-1", 2, "ml.c5.2xlarge", ThreadsPerCore=1)]))["ClusterArn"]
    cluster = client.describe_cluster(ClusterName=arn)  # name or ARN
    assert cluster["ClusterStatus"] == "InService" and cluster["NodeProvisioningMode"] == "Continuous"
    assert statuses(client, "eks-1") == ["Pending", "Pending"]
    sim.advance(300)
    assert statuses(client, "eks-1") == ["Running", "Running"]


def test_eks_in_service_once_every_group_reaches_its_min_count(make_sim):
    sim, client = make_sim({"capacity": [{"instance_type": "ml.p4d.24xlarge", "available": 55}]})
    client.create_cluster(
        **eks_request(
            "eks-2",
            [
                group("worker-group", 64, "ml.p4d.24xlarge", MinInstanceCount=50),
                group("system", 2, "ml.m5.xlarge"),
            ],
        )
    )
    assert cluster_status(client, "eks-2") == "Creating"
    launched = nodes_of(client, "eks-2")
    assert {n["InstanceGroupName"] for n in launched} == {"worker-group", "system"}, "groups launch in parallel"
    assert len({n["LaunchTime"] for n in launched}) == 1
    sim.advance(299)
    assert cluster_status(client, "eks-2") == "Creating"
    sim.advance(1)
    assert cluster_status(client, "eks-2") == "InService"
    worker = groups_of(client, "eks-2")["worker-group"]
    assert (worker["Status"], worker["CurrentCount"], worker["TargetCount"], worker["MinCount"]) == ("InService", 55, 64, 50)


def test_deep_health_checks_show_in_node_status(sim, client):
    client.create_cluster(**eks_request("eks-3", [group("ig", 1, OnStartDeepHealthChecks=["InstanceStress"])]))
    sim.advance(300)
    node = nodes_of(client, "eks-3")[0]
    assert node["InstanceStatus"]["Status"] == "DeepHealthCheckInProgress"
    # AWS documents about 2 hours for the instance stress test (issue 37, item 14: it took 20 minutes)
    sim.advance(7200 - 60)
    assert statuses(client, "eks-3") == ["DeepHealthCheckInProgress"]
    sim.advance(60)
    assert statuses(client, "eks-3") == ["Running"]


# -- Grupos de instancias flexibles ---------------------------------------------------------------
def test_flexible_group_provisions_in_instance_type_priority_order(make_sim):
    sim, client = make_sim(
        {"capacity": [{"instance_type": "ml.p5.48xlarge", "available": 4}, {"instance_type": "ml.p4d.24xlarge", "available": 3}]}
    )
    client.create_cluster(
        **eks_request(
            "flex", [group("flexible-ig", 10, InstanceRequirements={"InstanceTypes": FLEX_TYPES})], subnets=["subnet-az1", "subnet-az2"]
        )
    )
    sim.advance(300)
    flexible = groups_of(client, "flex")["flexible-ig"]
    assert "InstanceType" not in flexible
    assert flexible["InstanceRequirements"] == {"CurrentInstanceTypes": FLEX_TYPES, "DesiredInstanceTypes": FLEX_TYPES}
    assert [(d["InstanceType"], d["CurrentCount"]) for d in flexible["InstanceTypeDetails"]] == [
        ("ml.p5.48xlarge", 4),
        ("ml.p4d.24xlarge", 3),
        ("ml.g6.48xlarge", 3),
    ]
    zones = {
        client.describe_cluster_node(ClusterName="flex", NodeId=n["InstanceId"])["NodeDetails"]["Placement"]["AvailabilityZone"]
        for n in nodes_of(client, "flex")
    }
    assert zones == {"us-west-2a", "us-west-2b"}, "subnets map round-robin onto the scenario's AZs"


def test_flexible_group_update_changes_desired_types_and_current_follows_once_settled(sim, client):
    client.create_cluster(**eks_request("flex2", [group("fx", 2, InstanceRequirements={"InstanceTypes": ["ml.g5.xlarge"]})]))
    sim.advance(300)
    client.update_cluster(
        ClusterName="flex2", InstanceGroups=[group("fx", 3, InstanceRequirements={"InstanceTypes": ["ml.g6.xlarge", "ml.g5.xlarge"]})]
    )
    requirements = groups_of(client, "flex2")["fx"]["InstanceRequirements"]
    assert requirements == {"CurrentInstanceTypes": ["ml.g5.xlarge"], "DesiredInstanceTypes": ["ml.g6.xlarge", "ml.g5.xlarge"]}
    sim.advance(300)
    fx = groups_of(client, "flex2")["fx"]
    assert fx["InstanceRequirements"]["CurrentInstanceTypes"] == ["ml.g6.xlarge", "ml.g5.xlarge"]
    assert {d["InstanceType"]: d["CurrentCount"] for d in fx["InstanceTypeDetails"]} == {"ml.g6.xlarge": 1, "ml.g5.xlarge": 2}


# -- BatchAddClusterNodes -------------------------------------------------------------------------
@pytest.fixture
def flex_cluster(sim, client):
    client.create_cluster(
        **eks_request(
            "flex-ig", [group("flexible-ig", 2, InstanceRequirements={"InstanceTypes": FLEX_TYPES})], subnets=["subnet-az1", "subnet-az2"]
        )
    )
    sim.advance(300)
    return client


def test_batch_add_targets_instance_type_and_availability_zone(sim, flex_cluster):
    client = flex_cluster
    answer = client.batch_add_cluster_nodes(
        ClusterName="flex-ig",
        NodesToAdd=[
            {
                "InstanceGroupName": "flexible-ig",
                "IncrementTargetCountBy": 1,
                "InstanceTypes": ["ml.p4d.24xlarge"],
                "AvailabilityZones": ["us-west-2b"],
            }
        ],
    )
    assert answer["Failed"] == []
    added = answer["Successful"][0]
    assert added["Status"] == "Pending" and added["InstanceTypes"] == ["ml.p4d.24xlarge"]
    assert groups_of(client, "flex-ig")["flexible-ig"]["TargetCount"] == 3
    sim.advance(300)
    details = client.describe_cluster_node(ClusterName="flex-ig", NodeLogicalId=added["NodeLogicalId"])["NodeDetails"]
    assert (details["InstanceType"], details["Placement"]["AvailabilityZone"]) == ("ml.p4d.24xlarge", "us-west-2b")
    assert details["Placement"]["AvailabilityZoneId"] == "usw2-az2"
    assert details["InstanceStatus"]["Status"] == "Running"


def test_batch_add_rejects_incompatible_types_zones_and_unknown_groups(flex_cluster):
    answer = flex_cluster.batch_add_cluster_nodes(
        ClusterName="flex-ig",
        NodesToAdd=[
            {"InstanceGroupName": "flexible-ig", "IncrementTargetCountBy": 2, "InstanceTypes": ["ml.c5.large"]},
            {"InstanceGroupName": "flexible-ig", "IncrementTargetCountBy": 1, "AvailabilityZones": ["us-west-2c"]},
            {"InstanceGroupName": "nope", "IncrementTargetCountBy": 1},
        ],
    )
    assert answer["Successful"] == []
    assert [(f["ErrorCode"], f["FailedCount"]) for f in answer["Failed"]] == [
        ("IncompatibleInstanceTypes", 2),
        ("IncompatibleAvailabilityZones", 1),
        ("InstanceGroupNotFound", 1),
    ]
    assert groups_of(flex_cluster, "flex-ig")["flexible-ig"]["TargetCount"] == 2


def test_batch_add_client_token_is_idempotent_within_its_lifetime(sim, flex_cluster):
    client = flex_cluster
    request = {
        "ClusterName": "flex-ig",
        "ClientToken": "scale-1",
        "NodesToAdd": [{"InstanceGroupName": "flexible-ig", "IncrementTargetCountBy": 2}],
    }
    first = client.batch_add_cluster_nodes(**request)
    sim.advance(300)
    again = client.batch_add_cluster_nodes(**request)
    assert [n["NodeLogicalId"] for n in again["Successful"]] == [n["NodeLogicalId"] for n in first["Successful"]]
    assert {n["Status"] for n in again["Successful"]} == {"Running"}, "latest status of the same nodes"
    assert groups_of(client, "flex-ig")["flexible-ig"]["TargetCount"] == 4, "no second increment"
    with pytest.raises(ClientError) as error:
        client.batch_add_cluster_nodes(**{**request, "NodesToAdd": [{"InstanceGroupName": "flexible-ig", "IncrementTargetCountBy": 3}]})
    assert error.value.response["Error"]["Code"] == "ValidationException"
    assert "idempotency mismatch" in error.value.response["Error"]["Message"]
    sim.advance(8 * 3600)
    fresh = client.batch_add_cluster_nodes(**request)
    assert {n["NodeLogicalId"] for n in fresh["Successful"]}.isdisjoint(n["NodeLogicalId"] for n in first["Successful"])
    assert groups_of(client, "flex-ig")["flexible-ig"]["TargetCount"] == 6, "an expired token is a new request"


def test_batch_add_is_continuous_mode_only(sim, client):
    client.create_cluster(ClusterName="classic", InstanceGroups=seed004_groups(1))
    with pytest.raises(ClientError) as error:
        client.batch_add_cluster_nodes(
            ClusterName="classic", NodesToAdd=[{"InstanceGroupName": "leo-stg-compute-ig", "IncrementTargetCountBy": 1}]
        )
    assert error.value.response["Error"]["Code"] == "ValidationException"
    assert "Continuous" in error.value.response["Error"]["Message"]


def test_pending_nodes_are_tracked_by_logical_id_before_they_have_an_instance(make_sim):
    _sim, client = make_sim({"capacity": [{"instance_type": "ml.p5.48xlarge", "available": 0}]})
    client.create_cluster(**eks_request("wait", [group("gpu", 2, "ml.p5.48xlarge")]))
    assert nodes_of(client, "wait") == [], "without IncludeNodeLogicalIds only nodes with instances are listed"
    pending = nodes_of(client, "wait", include_logical=True)
    assert [(n["InstanceId"], n["InstanceStatus"]["Status"]) for n in pending] == [("", "Pending")] * 2
    details = client.describe_cluster_node(ClusterName="wait", NodeLogicalId=pending[0]["NodeLogicalId"])
    assert details["NodeDetails"]["InstanceId"] == "" and "Placement" not in details["NodeDetails"]
    removed = client.batch_delete_cluster_nodes(ClusterName="wait", NodeLogicalIds=[pending[0]["NodeLogicalId"]])
    assert removed["SuccessfulNodeLogicalIds"] == [pending[0]["NodeLogicalId"]]
    assert groups_of(client, "wait")["gpu"]["TargetCount"] == 1
    assert len(nodes_of(client, "wait", include_logical=True)) == 1, "a never-launched node disappears at once"


def test_batch_add_beyond_the_models_instance_count_limit_is_resource_limit_exceeded(sim, client):
    client.create_cluster(**eks_request("limit", [group("g", 6750)]))
    with pytest.raises(ClientError) as error:
        client.batch_add_cluster_nodes(
            ClusterName="limit",
            NodesToAdd=[{"InstanceGroupName": "g", "IncrementTargetCountBy": 5}, {"InstanceGroupName": "g", "IncrementTargetCountBy": 5}],
        )
    assert error.value.response["Error"]["Code"] == "ResourceLimitExceeded"
    assert "would have 6760 instances; the maximum is 6758" in error.value.response["Error"]["Message"]
    assert groups_of(client, "limit")["g"]["TargetCount"] == 6750, "nothing was added"


def test_scenario_capacity_changes_over_time_are_picked_up_by_async_retries(make_sim):
    sim, client = make_sim(
        {
            "capacity": [{"instance_type": "ml.p5.48xlarge", "availability_zone": "us-west-2a", "available": 12}],
            "capacity_changes": [{"at": 7200, "instance_type": "ml.p5.48xlarge", "availability_zone": "us-west-2a", "add": 4}],
        }
    )
    client.create_cluster(**eks_request("grow", [group("train", 16, "ml.p5.48xlarge")]))
    sim.advance(7199)
    assert groups_of(client, "grow")["train"]["CurrentCount"] == 12
    sim.advance(300 + 300 + 1)  # the next retry after 2 h launches the 4, 300 s later they run
    assert groups_of(client, "grow")["train"]["CurrentCount"] == 16
