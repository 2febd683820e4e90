"""describe-cluster, list-cluster-nodes and describe-cluster-node outputs from public material
(tests/corpus/awscli, sources in its README) read back as observations: the snapshot reader
`hyperpod plan --observed` uses takes them, or names the field where the example breaks
botocore's model; a plan against them is sane."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pulumi_hyperpod import pipeline
from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.aws.spec import ClusterSpec
from pulumi_hyperpod.aws.observe import ClusterState
from pulumi_hyperpod.aws.observe.snapshot import SnapshotError
from tests.support.cli import hyperpod

AWSCLI = Path(__file__).parent / "awscli"
PUBLIC = Path(__file__).parent / "public"


def example(name: str) -> Any:
    return json.loads((AWSCLI / name).read_text())


def spec_from_describe(describe: dict) -> dict:
    """The CreateCluster request the described cluster was made with: what its user's spec says."""
    keep = ("InstanceGroupName", "InstanceType", "LifeCycleConfig", "ExecutionRole", "ThreadsPerCore")
    groups = [{**{k: g[k] for k in keep if k in g}, "InstanceCount": g["TargetCount"]} for g in describe["InstanceGroups"]]
    return {"ClusterName": describe["ClusterName"], "InstanceGroups": groups, "VpcConfig": describe["VpcConfig"]}


def test_the_readme_names_every_example():
    readme = (AWSCLI / "README.md").read_text()
    assert [p.name for p in sorted(AWSCLI.glob("*.json")) if f"`{p.name}`" not in readme] == []


def test_the_awsome_readme_cluster_reads_back_and_plans_no_change(tmp_path):
    """awsome-distributed-training's list-cluster-nodes output (NextToken "", an empty Message, a
    LaunchTime with an offset) with its cluster's describe-cluster, as `plan --observed` reads them
    from the jq-combined file docs/specs.md shows: the compute nodes still pending are no change."""
    snapshot = tmp_path / "snap.json"
    snapshot.write_text(
        json.dumps(
            {
                "DescribeCluster": example("adt-readme-describe-cluster.json"),
                "ListClusterNodes": example("adt-readme-list-cluster-nodes.json"),
            }
        )
    )
    plan = json.loads(hyperpod("plan", "-f", str(PUBLIC / "adt-slurm-readme.json"), "--observed", str(snapshot), "--json"))
    assert plan["steps"] == [] and plan["refusals"] == []
    assert any("compute-nodes: 0/4 running" in note for note in plan["notes"]), plan["notes"]
    state = ClusterState.from_snapshot(json.loads(snapshot.read_text()))
    assert [(n.instance_id, n.status, n.launch_time.isoformat()) for n in state.nodes] == [
        ("i-09e7576cbc230c181", "Running", "2023-11-26T23:28:20.665000+00:00")
    ]


def test_a_recorded_describe_cluster_of_a_creating_cluster_plans_no_change():
    """cloud-custodian's recorded DescribeCluster (Creating, 0 of 1 up), with the empty listing such a
    cluster has: the pending node is no drift, and nothing is planned."""
    describe = example("c7n-describe-cluster.json")
    state = ClusterState.from_snapshot({"DescribeCluster": describe, "ListClusterNodes": {"ClusterNodeSummaries": []}})
    assert state.status == "Creating" and [(g.name, g.target_count) for g in state.groups] == [("c7n-test-ig", 1)]
    plan = pipeline.prepare(None, ClusterSpec.from_dict(spec_from_describe(describe)), observed=state, skip_preflight="offline").plan
    assert plan.steps == () and plan.refusals == ()
    assert "c7n-test-ig: 0/1 running, 1 not running yet (not drift)" in plan.notes


@pytest.mark.parametrize(
    "listing, problem",
    [
        ({"ClusterNodeSummaries": []}, "DescribeCluster.ClusterArn: 'arn:aws:sagemaker:us-east-2:123456789012:cluster/testclu"),
        (
            {"ClusterNodeSummaries": [example("moto-describe-cluster-node.json")["NodeDetails"]]},
            "ListClusterNodes.ClusterNodeSummaries[0].LaunchTime: is required",
        ),
    ],
    ids=["describe-cluster", "describe-cluster-node-as-summary"],
)
def test_moto_outputs_that_break_the_model_are_refused_naming_the_field(listing, problem):
    """moto answers ARNs ending in the cluster's name (the model: 12 lowercase letters or digits) and
    node details without a LaunchTime (required of a node summary): refused, each field named."""
    with pytest.raises(SnapshotError) as error:
        ClusterState.from_snapshot({"DescribeCluster": example("moto-describe-cluster.json"), "ListClusterNodes": listing})
    assert problem in str(error.value)


def test_describe_cluster_node_details_fit_botocores_shape():
    """moto's describe-cluster-node answer fits ClusterNodeDetails (nothing in it is required); what a
    node summary needs beyond it is its LaunchTime (the test above)."""
    details = example("moto-describe-cluster-node.json")["NodeDetails"]
    shape = servicemodel.output_shape("DescribeClusterNode").members["NodeDetails"]
    assert servicemodel.violations(shape, details, "NodeDetails", allow_unknown=True) == []
    summary = servicemodel.output_shape("ListClusterNodes").members["ClusterNodeSummaries"].member
    assert set(summary.required_members) - set(details) == {"LaunchTime"}
