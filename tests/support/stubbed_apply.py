"""A stubbed SageMaker client's answers for the apply tests (tests/unit/aws/apply): DescribeCluster and
ListClusterNodes as botocore's Stubber expects them."""

from __future__ import annotations

from pulumi_hyperpod.aws.servicemodel import limit


# observe's ListClusterNodes request: every node, logical ids included, in the largest pages the model allows
LISTING = {
    "ClusterName": "my-training-cluster",
    "IncludeNodeLogicalIds": True,
    "MaxResults": limit("ListClusterNodesRequest", "MaxResults"),
}


def describe(state):
    return dict(state.describe)


def nodes(state):
    return {"ClusterNodeSummaries": [dict(s) for s in state.node_summaries]}


def observes(stubber, state, times=1):
    for _ in range(times):
        stubber.add_response("describe_cluster", describe(state), {"ClusterName": "my-training-cluster"})
        stubber.add_response("list_cluster_nodes", nodes(state), LISTING)
