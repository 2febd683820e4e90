"""Every ClusterInstanceStatus botocore's model knows, reached the way the service reaches it (issue 12,
item 16): Pending/Running on launch, DeepHealthCheckInProgress with OnStartDeepHealthChecks, Failure on
an unhealthy instance, ShuttingDown on scale-in, SystemUpdating during UpdateClusterSoftware, NotFound
for an instance that vanished outside HyperPod, DetachInProgress/AttachInProgress around MoveClusterNodes."""

from __future__ import annotations

import inspect

import pytest
from botocore.exceptions import ClientError

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.sim.aws.model import FAILED, LOST, RUNNING, WAITING, Node
from pulumi_hyperpod.sim.aws.provisioning import choose_victims
from tests.support.sim_helpers import (
    advance_until,
    cluster_status,
    eks_request,
    events_of,
    group,
    groups_of,
    nodes_of,
    seed004_groups,
    SEED004_SCENARIO,
    statuses,
)

SEEN: set[str] = set()


def _status(client, name: str, node_id: str) -> str:
    status = client.describe_cluster_node(ClusterName=name, NodeId=node_id)["NodeDetails"]["InstanceStatus"]["Status"]
    SEEN.add(status)
    return status


def _record(client, name: str) -> list[str]:
    found = statuses(client, name)
    SEEN.update(found)
    return found


def _error(call) -> tuple[str, str]:
    with pytest.raises(ClientError) as error:
        call()
    return error.value.response["Error"]["Code"], error.value.response["Error"]["Message"]


def test_launch_health_checks_failure_and_scale_in(sim, client):
    client.create_cluster(**eks_request("life", [group("checked", 2, OnStartDeepHealthChecks=["InstanceStress"])]))
    assert _record(client, "life") == ["Pending", "Pending"]
    sim.advance(300 + 1)
    assert _record(client, "life") == ["DeepHealthCheckInProgress"] * 2
    sim.advance(7200)  # about 2 hours: the instance stress test
    assert _record(client, "life") == ["Running", "Running"]
    node = nodes_of(client, "life")[0]["InstanceId"]
    sim.fail_node("life", node)
    assert _status(client, "life", node) == "Failure"
    client.update_cluster(ClusterName="life", InstanceGroups=[group("checked", 1, OnStartDeepHealthChecks=["InstanceStress"])])
    assert _status(client, "life", node) == "ShuttingDown", "the unhealthy node is the scale-in victim"


def test_software_update_patches_in_batches(sim, client):
    client.create_cluster(**eks_request("patch", [group("gpu", 4), group("cpu", 1)]))
    sim.advance(1200)
    client.update_cluster_software(
        ClusterName="patch",
        InstanceGroups=[{"InstanceGroupName": "gpu"}],
        ImageId="ami-0123456789abcdef0",
        DeploymentConfig={
            "RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 2}},
            "WaitIntervalInSeconds": 300,
        },
    )
    assert cluster_status(client, "patch") == "SystemUpdating"
    groups = groups_of(client, "patch")
    assert (groups["gpu"]["Status"], groups["cpu"]["Status"]) == ("SystemUpdating", "InService")
    assert _record(client, "patch").count("SystemUpdating") == 2, "one batch of two at a time"
    code, message = _error(lambda: client.update_cluster_software(ClusterName="patch"))
    assert code == "ConflictException" and "already updating its software" in message
    sim.advance(900)
    assert statuses(client, "patch").count("SystemUpdating") == 0, "the wait between batches"
    sim.advance(300)
    assert statuses(client, "patch").count("SystemUpdating") == 2, "the second batch"
    sim.advance(900)
    assert cluster_status(client, "patch") == "InService"
    groups = groups_of(client, "patch")
    assert groups["gpu"]["Status"] == "InService" and groups["gpu"]["CurrentImageId"] == "ami-0123456789abcdef0"
    assert "CurrentImageId" not in groups["cpu"]
    built = {n["InstanceGroupName"]: n["BuiltWith"].get("ImageId") for n in sim.node_build_configs("patch")}
    assert built == {"gpu": "ami-0123456789abcdef0", "cpu": None}
    assert any("software update completed" in e["Description"] for e in events_of(client, "patch"))


def test_an_all_or_nothing_cluster_is_busy_while_updating_its_software(make_sim):
    sim, client = make_sim(SEED004_SCENARIO)
    client.create_cluster(ClusterName="leo", InstanceGroups=seed004_groups(2))
    sim.advance(1200)
    client.update_cluster_software(ClusterName="leo")
    assert set(_record(client, "leo")) == {"SystemUpdating"}, "no DeploymentConfig: every instance at once"
    code, message = _error(lambda: client.update_cluster(ClusterName="leo", InstanceGroups=seed004_groups(3)))
    assert code == "ConflictException" and "SystemUpdating" in message
    advance_until(sim, lambda: cluster_status(client, "leo") == "InService")
    client.update_cluster(ClusterName="leo", InstanceGroups=seed004_groups(3))


def test_software_update_waits_for_min_count_and_names_unknown_groups(make_sim):
    sim, client = make_sim({"capacity": [{"instance_type": "ml.p5.48xlarge", "available": 1}]})
    client.create_cluster(**eks_request("gated", [group("gpu", 2, "ml.p5.48xlarge", MinInstanceCount=2)]))
    sim.advance(1200)
    code, message = _error(lambda: client.update_cluster_software(ClusterName="gated"))
    assert code == "ConflictException" and "MinCount 2" in message
    code, message = _error(lambda: client.update_cluster_software(ClusterName="gated", InstanceGroups=[{"InstanceGroupName": "ghost"}]))
    assert code == "ValidationException" and "InstanceGroups[0].InstanceGroupName" in message and "ghost" in message


def test_a_vanished_instance_is_not_found_then_replaced(sim, client):
    client.create_cluster(**eks_request("lost", [group("a", 2)]))
    sim.advance(1200)
    node = nodes_of(client, "lost", True)[0]
    sim.lose_instance("lost", node["InstanceId"])
    assert _status(client, "lost", node["InstanceId"]) == "NotFound"
    assert groups_of(client, "lost")["a"]["CurrentCount"] == 1
    billing = {r["instance_id"]: r for r in sim.billing("lost")["instances"]}
    assert billing[node["InstanceId"]]["billing_end"] is not None, "billing stops with the instance"
    sim.advance(300)  # automatic recovery: a new instance for the same logical node
    replaced = [n for n in nodes_of(client, "lost", True) if n["NodeLogicalId"] == node["NodeLogicalId"]]
    assert replaced and replaced[0]["InstanceId"] != node["InstanceId"]
    sim.advance(600)
    assert groups_of(client, "lost")["a"]["CurrentCount"] == 2


def test_without_node_recovery_a_vanished_instance_stays_not_found_until_deleted(sim, client):
    client.create_cluster(**{**eks_request("manual", [group("a", 2)], continuous=False), "NodeRecovery": "None"})
    sim.advance(1200)
    node = nodes_of(client, "manual")[0]["InstanceId"]
    sim.lose_instance("manual", node)
    sim.advance(3600)
    assert _status(client, "manual", node) == "NotFound"
    client.batch_delete_cluster_nodes(ClusterName="manual", NodeIds=[node])
    assert node not in {n["InstanceId"] for n in nodes_of(client, "manual")}, "no instance to shut down"


def test_move_cluster_nodes_detaches_then_attaches(sim, client):
    client.create_cluster(**eks_request("source", [group("pool", 3, "ml.g5.xlarge", MinInstanceCount=1)]))
    client.create_cluster(**eks_request("target", [group("pool", 1, "ml.g5.xlarge"), group("cpu", 1)]))
    sim.advance(1200)
    arns = {name: client.describe_cluster(ClusterName=name)["ClusterArn"] for name in ("source", "target")}
    moving = nodes_of(client, "source", True)[0]
    ask = dict(
        SourceClusterArn=arns["source"], SourceInstanceGroupName="pool", TargetClusterArn=arns["target"], TargetInstanceGroupName="pool"
    )
    answer = client.move_cluster_nodes(**ask, NodeIds=[moving["InstanceId"], "i-0123456789abcdef0"], ClientToken="mv")
    assert answer["Successful"] == [moving["InstanceId"]]
    assert answer["Failed"][0]["Code"] == "NodeIdNotFound"
    assert client.move_cluster_nodes(**ask, NodeIds=[moving["InstanceId"], "i-0123456789abcdef0"], ClientToken="mv")["Successful"] == [
        moving["InstanceId"]
    ], "idempotent"
    assert _status(client, "source", moving["InstanceId"]) == "DetachInProgress"
    again = client.move_cluster_nodes(**ask, NodeIds=[moving["InstanceId"]])
    assert again["Failed"][0]["Code"] == "NodeIdInUse"
    assert groups_of(client, "source")["pool"]["TargetCount"] == 2
    sim.advance(121)
    assert moving["InstanceId"] not in {n["InstanceId"] for n in nodes_of(client, "source")}
    assert _status(client, "target", moving["InstanceId"]) == "AttachInProgress"
    arrived = next(n for n in nodes_of(client, "target", True) if n["InstanceId"] == moving["InstanceId"])
    assert arrived["NodeLogicalId"] == moving["NodeLogicalId"], "the node keeps its ids"
    assert arrived["PrivateDnsHostname"] == moving["PrivateDnsHostname"], "and its IP address"
    sim.advance(300)
    assert _status(client, "target", moving["InstanceId"]) == "Running"
    assert groups_of(client, "target")["pool"]["CurrentCount"] == 2 == groups_of(client, "target")["pool"]["TargetCount"]
    code, message = _error(lambda: client.move_cluster_nodes(**ask, InstanceCount=2))
    assert code == "ValidationException" and "below its MinCount 1" in message, "2 running, MinCount 1"
    mismatch = client.move_cluster_nodes(**{**ask, "TargetInstanceGroupName": "cpu"}, NodeIds=[nodes_of(client, "source")[0]["InstanceId"]])
    assert mismatch["Failed"][0]["Code"] == "NodeInstanceTypeMismatch"
    records = [r for r in sim.billing("target")["instances"] if r["instance_id"] == moving["InstanceId"]]
    assert len(records) == 1 and records[0]["instance_group"] == "pool", "billed under the target from the hand-off"
    assert any(r["instance_id"] == moving["InstanceId"] and r["billing_end"] is not None for r in sim.billing("source")["instances"]), (
        "and under the source until then"
    )


def test_moves_need_eks_continuous_in_service_clusters(sim, client):
    client.create_cluster(**eks_request("classic", [group("pool", 2)], continuous=False))
    client.create_cluster(**eks_request("modern", [group("pool", 1)]))
    sim.advance(1200)
    arns = {n: client.describe_cluster(ClusterName=n)["ClusterArn"] for n in ("classic", "modern")}
    code, message = _error(
        lambda: client.move_cluster_nodes(
            SourceClusterArn=arns["classic"],
            SourceInstanceGroupName="pool",
            TargetClusterArn=arns["modern"],
            TargetInstanceGroupName="pool",
            InstanceCount=1,
        )
    )
    assert code == "ValidationException" and "source cluster classic does not use NodeProvisioningMode Continuous" in message
    code, message = _error(
        lambda: client.move_cluster_nodes(
            SourceClusterArn=arns["modern"],
            SourceInstanceGroupName="pool",
            TargetClusterArn=arns["modern"],
            TargetInstanceGroupName="pool",
            InstanceCount=1,
        )
    )
    assert code == "ValidationException" and "must differ from SourceInstanceGroupName" in message


def test_unhealthy_nodes_go_first_and_moving_nodes_are_not_victims():
    def node(name: str, phase: str, launched: float) -> Node:
        return Node(name, "g", created_at=0.0, phase=phase, launch_time=launched, instance_id=f"i-{name}")

    nodes = [
        node("new", RUNNING, 30),
        node("old", RUNNING, 10),
        node("lost", LOST, 5),
        node("sick", FAILED, 1),
        node("queued", WAITING, None),
        node("leaving", "detaching", 40),
    ]
    assert [n.logical_id for n in choose_victims(nodes, 6)] == ["lost", "sick", "queued", "new", "old"]


SCENARIOS = (
    test_launch_health_checks_failure_and_scale_in,
    test_software_update_patches_in_batches,
    test_an_all_or_nothing_cluster_is_busy_while_updating_its_software,
    test_a_vanished_instance_is_not_found_then_replaced,
    test_move_cluster_nodes_detaches_then_attaches,
)


def test_every_status_in_the_model_is_reached(make_sim):
    SEEN.clear()
    for scenario in SCENARIOS:
        sim, client = make_sim()
        given = {"sim": sim, "client": client, "make_sim": make_sim}
        scenario(**{name: given[name] for name in inspect.signature(scenario).parameters})
    assert SEEN == set(servicemodel.enum("ClusterInstanceStatusDetails", "Status")), sorted(SEEN)
