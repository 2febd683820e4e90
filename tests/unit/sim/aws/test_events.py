"""Cluster events: what is recorded, the ListClusterEvents filters and paging, DescribeClusterEvent."""

from __future__ import annotations

import datetime as dt

import pytest
from botocore.exceptions import ClientError

from tests.support.sim_helpers import events_of, nodes_of, seed000_request

NAME = "my-training-cluster"


@pytest.fixture
def eventful(make_sim):
    """Capacity shortage, a lifecycle failure, MinCount reached, a rollback and running nodes."""
    sim, client = make_sim(
        {
            "capacity": [{"instance_type": "ml.p5.48xlarge", "available": 3}],
            "faults": {"per_group": {"worker-b": {"lifecycle_failure_rate": 1.0}}},
        }
    )
    request = seed000_request(workers=4)
    request["InstanceGroups"][2]["MinInstanceCount"] = 4
    request["InstanceGroups"].append(
        {
            **request["InstanceGroups"][1],
            "InstanceGroupName": "worker-b",
            "InstanceType": "ml.c5.xlarge",
            "InstanceCount": 1,
            "SlurmConfig": {"NodeType": "Compute", "PartitionNames": ["b"]},
        }
    )
    client.create_cluster(**request)
    sim.advance(3 * 3600 + 60)
    return sim, client


def test_events_cover_cluster_groups_and_instances_with_levels(eventful):
    _, client = eventful
    events = events_of(client, NAME)
    descriptions = [e["Description"] for e in events]
    assert descriptions[0] == f"Cluster {NAME} create started successfully"
    assert f"Cluster {NAME} creation completed successfully" in descriptions
    assert {e["ResourceType"] for e in events} == {"Cluster", "InstanceGroup", "Instance"}
    by_level = {level: [e["Description"] for e in events if e["EventLevel"] == level] for level in ("Info", "Warn", "Error")}
    assert any(d.startswith("Failed to provision EC2 Instance") for d in by_level["Warn"]), "capacity shortage"
    assert any("retrying the launch of 1 pending instance" in d for d in by_level["Info"]), "launch retry"
    assert any("rollback started" in d for d in by_level["Warn"]), "MinCount rollback"
    assert any("reached minimum capacity" in d for d in by_level["Info"])
    assert any("has Failed" in d for d in by_level["Error"]), "lifecycle script failure"
    assert any(d.startswith("Instance create i-") and d.endswith("completed successfully") for d in by_level["Info"])
    times = [e["EventTime"] for e in events]
    assert times == sorted(times)


def test_list_cluster_events_filters(eventful):
    _, client = eventful
    node = next(n for n in nodes_of(client, NAME) if n["InstanceGroupName"] == "controller-group")
    mine = events_of(client, NAME, NodeId=node["InstanceId"])
    assert mine and {e["InstanceId"] for e in mine} == {node["InstanceId"]}
    groups = events_of(client, NAME, InstanceGroupName="worker-b", ResourceType="InstanceGroup")
    assert groups and {(e["InstanceGroupName"], e["ResourceType"]) for e in groups} == {("worker-b", "InstanceGroup")}
    start = dt.datetime(2026, 1, 1, 0, 5, tzinfo=dt.timezone.utc)
    window = events_of(client, NAME, EventTimeAfter=start, EventTimeBefore=start + dt.timedelta(minutes=10))
    assert window and all(start < e["EventTime"] < start + dt.timedelta(minutes=10) for e in window)
    cluster_only = events_of(client, NAME, ResourceType="Cluster")
    assert {e["ResourceType"] for e in cluster_only} == {"Cluster"}


def test_list_cluster_events_default_order_is_newest_first_and_pages(eventful):
    _, client = eventful
    everything = events_of(client, NAME)
    first = client.list_cluster_events(ClusterName=NAME, MaxResults=5)
    assert [e["EventId"] for e in first["Events"]] == [e["EventId"] for e in everything[::-1][:5]]
    pages = list(client.get_paginator("list_cluster_events").paginate(ClusterName=NAME, PaginationConfig={"PageSize": 7}))
    collected = [e["EventId"] for page in pages for e in page["Events"]]
    assert collected == [e["EventId"] for e in everything[::-1]] and len(pages) == -(-len(everything) // 7)


def test_describe_cluster_event_has_the_metadata(eventful):
    _, client = eventful
    failure = next(e for e in events_of(client, NAME) if e["EventLevel"] == "Error")
    detail = client.describe_cluster_event(ClusterName=NAME, EventId=failure["EventId"])["EventDetails"]
    assert detail["Description"] == failure["Description"]
    metadata = detail["EventDetails"]["EventMetadata"]["Instance"]
    assert "Lifecycle script on_create.sh failed" in metadata["FailureMessage"] and metadata["NodeLogicalId"]
    with pytest.raises(ClientError) as error:
        client.describe_cluster_event(ClusterName=NAME, EventId="00000000-0000-4000-8000-000000000000")
    assert error.value.response["Error"]["Code"] == "ResourceNotFound"
