"""observe(): the only place that reads the cluster."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from .. import servicemodel
from .state import ClusterState

NOT_FOUND_CODES = frozenset({"ResourceNotFound", "ResourceNotFoundException"})


def is_not_found(error: ClientError) -> bool:
    code = error.response.get("Error", {}).get("Code", "")
    message = error.response.get("Error", {}).get("Message", "") or ""
    # Some SageMaker operations answer a missing cluster with ValidationException "... not found".
    return code in NOT_FOUND_CODES or (code == "ValidationException" and "not found" in message.lower())


def observe(client: Any, name: str) -> ClusterState | None:
    """DescribeCluster plus every page of ListClusterNodes; None when there is no such cluster."""
    try:
        describe = client.describe_cluster(ClusterName=name)
    except ClientError as error:
        if is_not_found(error):
            return None
        raise
    return ClusterState.from_api(describe, list_nodes(client, name))


def list_nodes(client: Any, name: str) -> list[dict[str, Any]]:
    params: dict[str, Any] = {"ClusterName": name}
    # Nodes not yet launched are only listed with IncludeNodeLogicalIds, which older botocore
    # releases do not know: ask the model rather than the version number.
    if "IncludeNodeLogicalIds" in servicemodel.input_shape("ListClusterNodes").members:
        params["IncludeNodeLogicalIds"] = True
    paginator = client.get_paginator("list_cluster_nodes")
    return [summary for page in paginator.paginate(**params) for summary in page.get("ClusterNodeSummaries", [])]
