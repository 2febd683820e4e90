"""Snapshots (`plan --observed FILE`) checked like specs: against botocore's output shapes of
DescribeCluster and ListClusterNodes, and for consistency, before a plan is made from one.

Two forms are read:
- `hyperpod snapshot NAME`: `{"Format": "hyperpod-snapshot/1", "DescribeCluster": {…},
  "ClusterNodeSummaries": [{…}, …]}`;
- the AWS CLI's own output, combined:
  `{"DescribeCluster": <describe-cluster output>, "ListClusterNodes": <list-cluster-nodes output>}`,
  e.g. `{ aws sagemaker describe-cluster --cluster-name C; aws sagemaker list-cluster-nodes
  --cluster-name C --include-node-logical-ids; } | jq -s '{DescribeCluster: .[0], ListClusterNodes: .[1]}'`.

Every problem is a SnapshotError naming the file and the field path, one line each.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any
from collections.abc import Mapping

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.core.errors import Violation
from pulumi_hyperpod.core.documents import read_document
from pulumi_hyperpod.core.errors import SnapshotError
from pulumi_hyperpod.aws.observe.state import SNAPSHOT_FORMAT, ClusterState

FORMATS = (SNAPSHOT_FORMAT,)
_KEYS = ("Format", "DescribeCluster", "ClusterNodeSummaries", "ListClusterNodes")
_COUNTS = ("CurrentCount", "TargetCount", "MinCount")


def load_snapshot(path: str | Path, cluster_name: str | None = None) -> ClusterState:
    """The ClusterState saved in `path`; `cluster_name` (the spec's) must be the snapshot's cluster."""
    data = read_document(path, SnapshotError)
    return snapshot_state(data, source=str(path), cluster_name=cluster_name)


def snapshot_state(data: Any, source: str | None = None, cluster_name: str | None = None) -> ClusterState:
    describe, summaries = _parts(data, source)
    problems = snapshot_violations(describe, summaries, cluster_name, nodes_path=_nodes_path(data))
    if problems:
        raise SnapshotError(problems, source=source)
    return ClusterState.from_snapshot_parts(describe, summaries)


def _parts(data: Any, source: str | None) -> tuple[dict, list]:
    def refuse(path: str, rule: str):
        return SnapshotError([Violation(path, rule)], source=source)

    if not isinstance(data, Mapping):
        raise refuse(
            "",
            f"a snapshot is an object with DescribeCluster and ClusterNodeSummaries (from `hyperpod "
            f"snapshot`) or ListClusterNodes (the AWS CLI's output); got {type(data).__name__}",
        )
    unknown = [key for key in data if key not in _KEYS]
    if unknown:
        raise refuse(str(unknown[0]), f"is not a known field (allowed: {', '.join(_KEYS)})")
    if "Format" in data and data["Format"] not in FORMATS:
        raise refuse(
            "Format",
            f"{data['Format']!r} is not a snapshot format this version reads "
            f"({', '.join(FORMATS)}); take the snapshot again with this version",
        )
    if "DescribeCluster" not in data:
        raise refuse("DescribeCluster", "is required (the output of DescribeCluster)")
    if not isinstance(data["DescribeCluster"], Mapping):
        raise refuse("DescribeCluster", f"must be an object, got {type(data['DescribeCluster']).__name__}")
    if ("ClusterNodeSummaries" in data) == ("ListClusterNodes" in data):
        raise refuse(
            "ClusterNodeSummaries",
            "give the nodes once: ClusterNodeSummaries (a list) or ListClusterNodes (the output of list-cluster-nodes)",
        )
    if "Format" not in data and "ClusterNodeSummaries" in data:
        raise refuse("Format", f'is required with ClusterNodeSummaries ("{SNAPSHOT_FORMAT}")')
    describe = {k: v for k, v in data["DescribeCluster"].items() if k != "ResponseMetadata"}
    if "ListClusterNodes" in data:
        listing = data["ListClusterNodes"]
        if not isinstance(listing, Mapping):
            raise refuse("ListClusterNodes", f"must be an object (the output of list-cluster-nodes), got {type(listing).__name__}")
        if listing.get("NextToken"):
            raise refuse(
                "ListClusterNodes.NextToken",
                "the listing is incomplete (it has a NextToken); list every page (the AWS CLI does unless --max-items is given)",
            )
        extra = [key for key in listing if key not in ("ClusterNodeSummaries", "NextToken", "ResponseMetadata")]
        if extra:
            raise refuse(f"ListClusterNodes.{extra[0]}", "is not a known field (allowed: ClusterNodeSummaries, NextToken)")
        summaries = listing.get("ClusterNodeSummaries")
    else:
        summaries = data["ClusterNodeSummaries"]
    if not isinstance(summaries, list):
        raise refuse(_nodes_path(data), f"must be a list, got {type(summaries).__name__}")
    return dict(describe), list(summaries)


def _nodes_path(data: Any) -> str:
    return "ListClusterNodes.ClusterNodeSummaries" if isinstance(data, Mapping) and "ListClusterNodes" in data else "ClusterNodeSummaries"


def snapshot_violations(
    describe: dict, summaries: list, cluster_name: str | None = None, nodes_path: str = "ClusterNodeSummaries"
) -> list[Violation]:
    """Shapes first (botocore's output shapes); consistency only on well-formed data."""
    listing_shape = servicemodel.output_shape("ListClusterNodes").members["ClusterNodeSummaries"]
    # Members this botocore does not know are left alone, as botocore's response parser does: the
    # AWS CLI that wrote the file may be newer than the model read here.
    problems = servicemodel.violations(servicemodel.output_shape("DescribeCluster"), describe, "DescribeCluster", allow_unknown=True)
    problems += [
        p
        for p in servicemodel.violations(listing_shape, summaries, nodes_path, allow_unknown=True)
        if not _not_launched(p, summaries, nodes_path)
    ]
    if problems:
        return problems
    return _consistency(describe, summaries, cluster_name, nodes_path)


def _not_launched(problem: Violation, summaries: list, nodes_path: str) -> bool:
    """A node not launched yet (listed by its NodeLogicalId) has no InstanceId or LaunchTime to give,
    whatever the model's `required` says."""
    for key in ("InstanceId", "LaunchTime"):
        prefix, suffix = f"{nodes_path}[", f"].{key}"
        if problem.rule == "is required" and problem.path.startswith(prefix) and problem.path.endswith(suffix):
            index = problem.path[len(prefix) : -len(suffix)]
            return index.isdigit() and bool(summaries[int(index)].get("NodeLogicalId"))
    return False


def _consistency(describe: dict, summaries: list, cluster_name: str | None, nodes_path: str) -> list[Violation]:
    problems: list[Violation] = []
    name = describe.get("ClusterName") or describe["ClusterArn"].rsplit("/", 1)[-1]
    if cluster_name is not None and name != cluster_name:
        problems.append(Violation("DescribeCluster.ClusterName", f"the snapshot is of cluster {name!r}; the spec names {cluster_name!r}"))
    listed = [("InstanceGroups", index, g) for index, g in enumerate(describe.get("InstanceGroups") or [])]
    listed += [("RestrictedInstanceGroups", index, g) for index, g in enumerate(describe.get("RestrictedInstanceGroups") or [])]
    group_names = Counter(g.get("InstanceGroupName") for _, _, g in listed)
    for member, index, group in listed:
        where = f"DescribeCluster.{member}[{index}]"
        if group_names[group.get("InstanceGroupName")] > 1:
            problems.append(Violation(f"{where}.InstanceGroupName", f"{group.get('InstanceGroupName')!r} is listed more than once"))
        for count in _COUNTS:
            if count in group and group[count] < 0:  # the model says min 0 for most, not all
                problems.append(Violation(f"{where}.{count}", f"must be at least 0; got {group[count]}"))
    known = sorted(name for name in group_names if name)
    for key in ("InstanceId", "NodeLogicalId"):
        ids = Counter(s.get(key) for s in summaries if s.get(key))
        for index, summary in enumerate(summaries):
            if summary.get(key) and ids[summary[key]] > 1:
                problems.append(Violation(f"{nodes_path}[{index}].{key}", f"{summary[key]!r} is listed more than once"))
    for index, summary in enumerate(summaries):
        group = summary.get("InstanceGroupName")
        if group not in group_names:
            problems.append(
                Violation(
                    f"{nodes_path}[{index}].InstanceGroupName",
                    f"{group!r} is not a group of cluster {name} (groups: {', '.join(known) or 'none'})",
                )
            )
    return problems
