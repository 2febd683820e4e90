"""What a task governance plan is made from, read now: the cluster the spec names (DescribeCluster:
its ARN, its orchestrator) and the resource of that name on it (List* by cluster and name, then
Describe*). Reads only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from botocore import xform_name
from botocore.exceptions import ClientError

from pulumi_hyperpod.aws.governance.kinds import Kind
from pulumi_hyperpod.aws.governance.spec import GovernanceSpec


@dataclass(frozen=True)
class ClusterRef:
    arn: str
    name: str
    orchestrator: str | None  # "Eks" | "Slurm" | None (DescribeCluster's Orchestrator names none)
    status: str


@dataclass(frozen=True)
class Observed:
    cluster: ClusterRef
    resource: dict[str, Any] | None  # Describe*'s answer; None: there is none of that name on the cluster


def read_cluster(client: Any, name_or_arn: str) -> ClusterRef:
    """The cluster a spec names; LookupError when there is none (the region, or the name, is wrong)."""
    try:
        found = client.describe_cluster(ClusterName=name_or_arn)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") == "ResourceNotFound":
            raise LookupError(
                f"cluster {name_or_arn} not found in {client.meta.region_name}: task governance applies to an existing cluster"
            ) from None
        raise
    orchestrator = next(iter(found.get("Orchestrator") or {}), None)
    return ClusterRef(found["ClusterArn"], found["ClusterName"], orchestrator, found["ClusterStatus"])


def find(client: Any, kind: Kind, cluster_arn: str, name: str) -> dict[str, Any] | None:
    """Describe*'s answer for the resource named `name` on the cluster, or None."""
    paginator = client.get_paginator(xform_name(kind.operation("List")))
    for page in paginator.paginate(ClusterArn=cluster_arn, NameContains=name):
        for summary in page.get(kind.list_key, []):
            if summary["Name"] == name:
                return describe(client, kind, summary[kind.id_member])
    return None


def describe(client: Any, kind: Kind, rid: str) -> dict[str, Any] | None:
    """Describe*'s answer without its response metadata; None once it is gone."""
    try:
        answer: dict[str, Any] = getattr(client, xform_name(kind.operation("Describe")))(**{kind.id_member: rid})
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") == "ResourceNotFound":
            return None
        raise
    answer.pop("ResponseMetadata", None)
    return answer


def read(client: Any, spec: GovernanceSpec) -> Observed:
    cluster = read_cluster(client, spec.cluster)
    return Observed(cluster, find(client, spec.kind, cluster.arn, spec.name))


def call(client: Any, operation: str, request: dict[str, Any]) -> dict[str, Any]:
    """One of the model's operations by its name, as botocore's client method."""
    answer: dict[str, Any] = getattr(client, xform_name(operation))(**request)
    return answer
