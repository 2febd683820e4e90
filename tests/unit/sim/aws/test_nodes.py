"""Nodes as the API shows them: formats, listing and paging, details, batch deletion, determinism."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from pulumi_hyperpod.aws import servicemodel
from tests.support.sim_helpers import eks_request, group, groups_of, nodes_of, seed004_groups, statuses

ARN = re.compile(r"^arn:aws:sagemaker:us-west-2:123456789012:cluster/[a-z0-9]{12}$")
INSTANCE = re.compile(r"^i-[0-9a-f]{17}$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def test_identifiers_follow_the_service_formats(make_sim):
    sim, client = make_sim({"subnets": {"subnet-east": "us-west-2c"}})
    arn = client.create_cluster(**eks_request("fmt", [group("a", 3)], subnets=["subnet-east"]))["ClusterArn"]
    assert ARN.match(arn)
    sim.advance(300)
    logical_pattern = re.compile(servicemodel.shape("ClusterNodeLogicalId").metadata["pattern"])
    for node in nodes_of(client, "fmt", True):
        assert INSTANCE.match(node["InstanceId"]) and UUID.match(node["NodeLogicalId"])
        assert logical_pattern.fullmatch(node["NodeLogicalId"])
        details = client.describe_cluster_node(ClusterName="fmt", NodeId=node["InstanceId"])["NodeDetails"]
        ip = details["PrivatePrimaryIp"]
        assert (
            ip.startswith("10.1.")
            and details["PrivateDnsHostname"] == f"ip-{ip.replace('.', '-')}.us-west-2.compute.internal" == node["PrivateDnsHostname"]
        )
        assert details["Placement"] == {"AvailabilityZone": "us-west-2c", "AvailabilityZoneId": "usw2-az3"}
        assert details["LifeCycleConfig"] == group("a", 1)["LifeCycleConfig"]
        assert details["CapacityType"] == "OnDemand"


def test_same_seed_same_world_other_seed_other_ids(make_sim):
    def run(seed):
        sim, client = make_sim(seed=seed)
        arn = client.create_cluster(**eks_request("det", [group("a", 2)]))["ClusterArn"]
        sim.advance(300)
        return arn, [(n["InstanceId"], n["NodeLogicalId"], n["PrivateDnsHostname"]) for n in nodes_of(client, "det", True)]

    assert run(1) == run(1)
    assert run(1) != run(2)


@pytest.fixture
def big(sim, client):
    client.create_cluster(**eks_request("big", [group("alpha", 150), group("beta", 100)]))
    sim.advance(60)
    client.update_cluster(ClusterName="big", InstanceGroups=[group("alpha", 150), group("beta", 110)])
    sim.advance(300)
    return client


def test_list_cluster_nodes_pages_in_creation_order(big):
    pages = list(big.get_paginator("list_cluster_nodes").paginate(ClusterName="big", PaginationConfig={"PageSize": 100}))
    assert [len(page["ClusterNodeSummaries"]) for page in pages] == [100, 100, 60]
    nodes = [node for page in pages for node in page["ClusterNodeSummaries"]]
    assert len({node["InstanceId"] for node in nodes}) == 260
    times = [node["LaunchTime"] for node in nodes]
    assert times == sorted(times) and times[-1] - times[0] == dt.timedelta(seconds=60)
    descending = [
        n["InstanceId"]
        for page in big.get_paginator("list_cluster_nodes").paginate(ClusterName="big", SortOrder="Descending")
        for n in page["ClusterNodeSummaries"]
    ]
    assert descending == [node["InstanceId"] for node in nodes][::-1]


def test_list_cluster_nodes_filters(big):
    beta = [
        n
        for page in big.get_paginator("list_cluster_nodes").paginate(ClusterName="big", InstanceGroupNameContains="bet")
        for n in page["ClusterNodeSummaries"]
    ]
    assert len(beta) == 110 and {n["InstanceGroupName"] for n in beta} == {"beta"}
    late = big.list_cluster_nodes(ClusterName="big", CreationTimeAfter=dt.datetime(2026, 1, 1, 0, 0, 30, tzinfo=dt.timezone.utc))
    assert len(late["ClusterNodeSummaries"]) == 10, "only the scale-out launched after 00:00:30"
    by_name = big.list_cluster_nodes(ClusterName="big", SortBy="NAME", MaxResults=5)["ClusterNodeSummaries"]
    assert {n["InstanceGroupName"] for n in by_name} == {"alpha"}


def test_paging_stays_consistent_when_nodes_disappear_between_pages(sim, big):
    first = big.list_cluster_nodes(ClusterName="big", MaxResults=100)
    seen = [n["InstanceId"] for n in first["ClusterNodeSummaries"]]
    big.batch_delete_cluster_nodes(ClusterName="big", NodeIds=seen[:50])
    sim.advance(60)
    rest = [
        n["InstanceId"]
        for page in big.get_paginator("list_cluster_nodes").paginate(
            ClusterName="big", PaginationConfig={"StartingToken": first["NextToken"]}
        )
        for n in page["ClusterNodeSummaries"]
    ]
    assert len(rest) == 160 and not set(rest) & set(seen), "no node repeated, none skipped"


def test_batch_delete_reports_per_node_outcomes_and_lowers_target_count(sim, big):
    nodes = nodes_of(big, "big", True)
    alpha = [n for n in nodes if n["InstanceGroupName"] == "alpha"]
    answer = big.batch_delete_cluster_nodes(
        ClusterName="big",
        NodeIds=[alpha[0]["InstanceId"], "i-0000000000000dead", alpha[0]["InstanceId"]],
        NodeLogicalIds=[alpha[1]["NodeLogicalId"], "no-such-node"],
    )
    assert answer["Successful"] == [alpha[0]["InstanceId"]]
    assert answer["SuccessfulNodeLogicalIds"] == [alpha[1]["NodeLogicalId"]]
    assert [(f["NodeId"], f["Code"]) for f in answer["Failed"]] == [("i-0000000000000dead", "NodeIdNotFound")]
    assert [(f["NodeLogicalId"], f["Code"]) for f in answer["FailedNodeLogicalIds"]] == [("no-such-node", "NodeIdNotFound")]
    assert groups_of(big, "big")["alpha"]["TargetCount"] == 148
    assert statuses(big, "big", "alpha").count("ShuttingDown") == 2
    again = big.batch_delete_cluster_nodes(ClusterName="big", NodeIds=[alpha[0]["InstanceId"]])
    assert again["Failed"][0]["Code"] == "InvalidNodeStatus" and "ShuttingDown" in again["Failed"][0]["Message"]
    sim.advance(60)
    assert len(nodes_of(big, "big")) == 258


def test_batch_delete_logs_the_groups_lower_target_as_a_scale_up_logs_the_higher(sim, client):
    """A scale-in by BatchDeleteClusterNodes dated in the events (issue 39, item 8: a timeline drew the
    old target until now): one event per group and request."""
    client.create_cluster(**eks_request("c", [group("alpha", 3), group("beta", 2)]))
    sim.advance(600)
    nodes = nodes_of(client, "c", True)
    alpha = [n for n in nodes if n["InstanceGroupName"] == "alpha"]
    client.batch_delete_cluster_nodes(ClusterName="c", NodeIds=[alpha[0]["InstanceId"], alpha[1]["InstanceId"]])
    groups = client.list_cluster_events(ClusterName="c", ResourceType="InstanceGroup")["Events"]
    scale_downs = [e for e in groups if "scale-down" in e["Description"]]
    assert [e["Description"] for e in scale_downs] == ["InstanceGroup alpha scale-down by 2 started successfully in Cluster c"]
    detail = client.describe_cluster_event(ClusterName="c", EventId=scale_downs[0]["EventId"])["EventDetails"]
    assert detail["EventDetails"]["EventMetadata"]["InstanceGroupScaling"]["TargetCount"] == 1


def test_batch_delete_in_all_or_nothing_mode_lowers_target_count_too(sim, client):
    client.create_cluster(ClusterName="classic", InstanceGroups=seed004_groups(3))
    sim.advance(1200)
    compute = [n for n in nodes_of(client, "classic") if n["InstanceGroupName"] == "leo-stg-compute-ig"]
    answer = client.batch_delete_cluster_nodes(ClusterName="classic", NodeIds=[compute[0]["InstanceId"]])
    assert answer == {"Successful": [compute[0]["InstanceId"]], "ResponseMetadata": answer["ResponseMetadata"]}
    assert groups_of(client, "classic")["leo-stg-compute-ig"]["TargetCount"] == 2


def test_list_clusters_filters_sorts_and_pages(sim, client):
    for name in ("charlie", "alpha", "bravo"):
        client.create_cluster(**eks_request(name, [group("a", 1)]))
        sim.advance(10)
    summaries = client.list_clusters()["ClusterSummaries"]
    assert [c["ClusterName"] for c in summaries] == ["charlie", "alpha", "bravo"]
    by_name = client.list_clusters(SortBy="NAME", SortOrder="Descending")["ClusterSummaries"]
    assert [c["ClusterName"] for c in by_name] == ["charlie", "bravo", "alpha"]
    assert [c["ClusterName"] for c in client.list_clusters(NameContains="rav")["ClusterSummaries"]] == ["bravo"]
    pages = list(client.get_paginator("list_clusters").paginate(PaginationConfig={"PageSize": 2}))
    assert [len(p["ClusterSummaries"]) for p in pages] == [2, 1]
    assert (
        client.list_clusters(CreationTimeAfter=dt.datetime(2026, 1, 1, 0, 0, 5, tzinfo=dt.timezone.utc))["ClusterSummaries"][0][
            "ClusterName"
        ]
        == "alpha"
    )
    assert sim.client(region="eu-west-1").list_clusters()["ClusterSummaries"] == [], "clusters are regional"
