"""observe(): the only place that reads the cluster."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.aws.spec.grouplists import group_entries
from pulumi_hyperpod.aws.observe.state import GONE, ClusterState, ExtensionState
import dataclasses
import datetime as dt

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.clients import SageMakerClient

NOT_FOUND_CODES = frozenset({"ResourceNotFound", "ResourceNotFoundException"})


def is_not_found(error: ClientError) -> bool:
    code = error.response.get("Error", {}).get("Code", "")
    message = error.response.get("Error", {}).get("Message", "") or ""
    # Some SageMaker operations answer a missing cluster with ValidationException "... not found".
    return code in NOT_FOUND_CODES or (code == "ValidationException" and "not found" in message.lower())


def observe(client: SageMakerClient, name: str) -> ClusterState | None:
    """DescribeCluster plus every page of ListClusterNodes; None when there is no such cluster.

    The two reads are not one snapshot: a scale-out by someone else landing between them shows
    its new nodes under the old TargetCount, and a plan made from that would add them a second
    time. So a group listing more live nodes than its TargetCount is checked with a second
    DescribeCluster, and read again when the counts moved (a consistent state costs nothing extra).
    """
    for _ in range(3):
        try:
            describe = client.describe_cluster(ClusterName=name)
        except ClientError as error:
            if is_not_found(error):
                return None
            raise
        state = ClusterState.from_api(describe, list_nodes(client, name))
        if not _more_nodes_than_targets(state):
            return state
        try:
            again = client.describe_cluster(ClusterName=name)
        except ClientError:
            return state
        if _targets(again) == _targets(describe):
            return state
    return state


def read_tags(client: SageMakerClient, state: ClusterState) -> ClusterState:
    """The state with the cluster's tags (every page of ListTags): DescribeCluster does not report them."""
    pages = client.get_paginator("list_tags").paginate(ResourceArn=state.arn, PaginationConfig=largest_pages("ListTags"))
    tags = tuple(sorted((tag["Key"], tag.get("Value", "")) for page in pages for tag in page.get("Tags") or ()))
    return dataclasses.replace(state, tags=tags)


def read_extensions(client: SageMakerClient, state: ClusterState) -> ClusterState:
    """The state with the cluster's extensions: every page of ListClusterExtensions, then
    DescribeClusterExtension for each one listed (its ConfigurationValues; the listing has none). A
    cluster without extensions costs the one listing call."""
    pages = client.get_paginator("list_cluster_extensions").paginate(
        ClusterArn=state.arn, PaginationConfig=largest_pages("ListClusterExtensions")
    )
    found = []
    for summary in (item for page in pages for item in page.get("Extensions") or ()):
        try:
            details = client.describe_cluster_extension(ClusterArn=state.arn, ExtensionArn=summary["ExtensionArn"])["ExtensionDetails"]
        except ClientError as error:
            if not is_not_found(error):
                raise
            continue  # its deletion finished between the two reads: it is gone
        found.append(
            ExtensionState(
                name=details.get("ExtensionName") or summary["ExtensionName"],
                arn=summary["ExtensionArn"],
                version=details.get("ExtensionVersion") or summary.get("ExtensionVersion") or "",
                status=details.get("Status") or summary.get("Status") or "",
                configuration=details.get("ConfigurationValues"),
                modified=_iso(details["LastModifiedTime"]) if details.get("LastModifiedTime") is not None else "",
            )
        )
    return dataclasses.replace(state, extensions=tuple(sorted(found, key=lambda e: e.name)))


def read_events_horizon(client: SageMakerClient, state: ClusterState) -> ClusterState:
    """The state with its newest event ("<EventTime>|<EventId>"; "" when none yet): what a saved
    plan's "acted" premise is read against. Only Continuous clusters have events (the model's
    ListClusterEvents); another cluster's state is returned as it is."""
    if not state.continuous:
        return state
    events = client.list_cluster_events(ClusterName=state.name, SortOrder="Descending", MaxResults=1).get("Events") or []
    newest = events[0] if events else None
    horizon = f"{_iso(newest['EventTime'])}|{newest['EventId']}" if newest else ""
    return dataclasses.replace(state, events_horizon=horizon)


def events_since(client: SageMakerClient, name: str, horizon: str) -> tuple[dict[str, Any], ...]:
    """Every event newer than `horizon` (read_events_horizon's form), oldest first. Events of the
    horizon's own instant listed up to it are older: the service orders them (EventTime, then as recorded)."""
    params: dict[str, Any] = {"ClusterName": name, "SortOrder": "Ascending"}
    when, _, seen = horizon.partition("|")
    if when:
        params["EventTimeAfter"] = dt.datetime.fromisoformat(when) - dt.timedelta(seconds=1)
    pages = client.get_paginator("list_cluster_events").paginate(**params, PaginationConfig=largest_pages("ListClusterEvents"))
    events = [event for page in pages for event in page.get("Events") or ()]
    ids = [event.get("EventId") for event in events]
    if seen in ids:
        return tuple(events[ids.index(seen) + 1 :])
    return tuple(event for event in events if not when or _iso(event["EventTime"]) > when)


def _iso(value: Any) -> str:
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def _targets(describe: dict[str, Any]) -> list[tuple[Any, Any]]:
    return sorted((g.get("InstanceGroupName"), g.get("TargetCount")) for g in group_entries(describe))


def _more_nodes_than_targets(state: ClusterState) -> bool:
    return any(sum(1 for n in state.nodes_of(g.name) if n.status not in GONE) > g.target_count for g in state.groups)


def list_nodes(client: SageMakerClient, name: str) -> list[dict[str, Any]]:
    params: dict[str, Any] = {"ClusterName": name}
    # Nodes not yet launched are only listed with IncludeNodeLogicalIds, which older botocore
    # releases do not know: ask the model rather than the version number.
    if "IncludeNodeLogicalIds" in servicemodel.input_shape("ListClusterNodes").members:
        params["IncludeNodeLogicalIds"] = True
    paginator = client.get_paginator("list_cluster_nodes")
    pages = paginator.paginate(**params, PaginationConfig=largest_pages("ListClusterNodes"))
    return [summary for page in pages for summary in page.get("ClusterNodeSummaries", [])]


def largest_pages(operation: str) -> dict[str, int]:
    """A paginator's PaginationConfig asking for the largest page the model allows (MaxResults' max): a
    listing takes as few calls as the API allows, where the service's own default page may be smaller."""
    members = servicemodel.input_shape(operation).members
    largest = members["MaxResults"].metadata.get("max") if "MaxResults" in members else None
    return {"PageSize": largest} if largest else {}
