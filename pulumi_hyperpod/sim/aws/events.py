"""Cluster events as the API shows them: filtering, ordering, paging, summary and detail shapes.

Events are recorded by the world (`World.emit`) for Continuous clusters only, like the service,
whose ListClusterEvents/DescribeClusterEvent work only in that mode.
"""

from __future__ import annotations

from typing import Any

from pulumi_hyperpod.sim.aws import pagination
from pulumi_hyperpod.sim.aws.clock import to_seconds
from pulumi_hyperpod.sim.aws.errors import ResourceNotFound
from pulumi_hyperpod.sim.aws.model import Cluster

SUMMARY_KEYS = ("EventId", "InstanceGroupName", "InstanceId", "ResourceType", "EventTime", "Description", "EventLevel", "OperationId")


def summary(cluster: Cluster, event: dict) -> dict:
    item: dict[str, Any] = {"ClusterArn": cluster.arn, "ClusterName": cluster.name}
    for key in SUMMARY_KEYS:
        if event.get(key) is not None:
            item[key] = event[key]
    return item


def detail(cluster: Cluster, event: dict) -> dict:
    item = summary(cluster, event)
    if event.get("Metadata"):
        item["EventDetails"] = {"EventMetadata": event["Metadata"]}
    return item


def query(cluster: Cluster, params: dict) -> tuple[list[dict], str | None]:
    """ListClusterEvents: filters, then keyset paging over (EventTime, seq); default Descending."""
    after = to_seconds(params["EventTimeAfter"]) if params.get("EventTimeAfter") is not None else None
    before = to_seconds(params["EventTimeBefore"]) if params.get("EventTimeBefore") is not None else None
    selected = [
        event
        for event in cluster.events
        if (params.get("InstanceGroupName") is None or event.get("InstanceGroupName") == params["InstanceGroupName"])
        and (params.get("NodeId") is None or event.get("InstanceId") == params["NodeId"])
        and (params.get("ResourceType") is None or event["ResourceType"] == params["ResourceType"])
        and (params.get("OperationId") is None or event.get("OperationId") == params["OperationId"])
        and (after is None or event["EventTime"] > after)
        and (before is None or event["EventTime"] < before)
    ]
    selected.sort(key=lambda event: (event["EventTime"], event["seq"]))
    keys = [(event["EventTime"], event["seq"]) for event in selected]
    chosen, token = pagination.page(
        selected,
        keys,
        descending=params.get("SortOrder", "Descending") == "Descending",
        max_results=params.get("MaxResults"),
        token=params.get("NextToken"),
    )
    return [summary(cluster, event) for event in chosen], token


def find(cluster: Cluster, event_id: str) -> dict:
    for event in cluster.events:
        if event["EventId"] == event_id:
            return event
    raise ResourceNotFound(f"Event {event_id} not found in cluster {cluster.name}.")
