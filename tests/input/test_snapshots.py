"""Issue 11, item 5: `--observed FILE` is checked like a spec — botocore's DescribeCluster and
ListClusterNodes output shapes, then consistency — and the AWS CLI's own output is accepted."""

from __future__ import annotations

import copy
import json

import pytest

from pulumi_hyperpod.aws.observe import ClusterState, load_snapshot
from pulumi_hyperpod.aws.spec import SnapshotError
from tests.support.input_cli import SPECS, run

NAME = "leo-stg-hyperpod-cluster"
SCALE_OUT = str(SPECS / "seed004-scale-out.json")


@pytest.fixture(scope="module")
def _world_with_cluster(tmp_path_factory):
    """One world for the module: seed 004's one-node cluster and its snapshot text."""
    from tests.support.cli import use_fake_world

    with pytest.MonkeyPatch.context() as patch:
        use_fake_world(patch, tmp_path_factory.mktemp("snapshots"))
        assert run("apply", "-f", str(SPECS / "seed004-initial.json"), "--yes").code == 0
        yield run("snapshot", NAME).output


@pytest.fixture
def saved(_world_with_cluster, tmp_path, monkeypatch):
    """A real snapshot, as `hyperpod snapshot` writes it (also saved as tmp_path/snap.json)."""
    (tmp_path / "snap.json").write_text(_world_with_cluster)
    return json.loads(_world_with_cluster)


def _plan_with(tmp_path, data, name="bad.json"):
    (tmp_path / name).write_text(data if isinstance(data, str) else json.dumps(data))
    return run("plan", "-f", SCALE_OUT, "--observed", str(tmp_path / name))


def test_a_good_snapshot_plans_offline(saved, tmp_path):
    result = run("plan", "-f", SCALE_OUT, "--observed", str(tmp_path / "snap.json"))
    assert result.code == 0 and "UpdateCluster" in result.output


def _describe(data):
    return data["DescribeCluster"]


def _groups(data):
    return data["DescribeCluster"]["InstanceGroups"]


def _nodes(data):
    return data["ClusterNodeSummaries"]


BREAKAGES = {
    "another cluster": (
        lambda d: _describe(d).update(ClusterName="someone-elses-cluster"),
        (f"DescribeCluster.ClusterName: the snapshot is of cluster 'someone-elses-cluster'; the spec names '{NAME}'"),
    ),
    "negative count": (
        lambda d: _groups(d)[1].update(CurrentCount=-1),
        "DescribeCluster.InstanceGroups[1].CurrentCount: must be at least 0; got -1",
    ),
    "fractional count": (
        lambda d: _groups(d)[1].update(TargetCount=1.5),
        "DescribeCluster.InstanceGroups[1].TargetCount: must be a whole number, got 1.5",
    ),
    "string count": (
        lambda d: _groups(d)[1].update(TargetCount="3"),
        "DescribeCluster.InstanceGroups[1].TargetCount: must be a whole number, got str",
    ),
    "boolean count": (
        lambda d: _groups(d)[1].update(MinCount=True),
        "DescribeCluster.InstanceGroups[1].MinCount: must be a whole number, got True",
    ),
    "unknown cluster status": (
        lambda d: _describe(d).update(ClusterStatus="Happy"),
        "DescribeCluster.ClusterStatus: must be one of Creating, Deleting",
    ),
    "unknown group status": (lambda d: _groups(d)[0].update(Status="Sleepy"), "DescribeCluster.InstanceGroups[0].Status: must be one of"),
    "unknown node status": (
        lambda d: _nodes(d)[0]["InstanceStatus"].update(Status="Zombie"),
        "ClusterNodeSummaries[0].InstanceStatus.Status: must be one of Running, Failure",
    ),
    "node of no group": (
        lambda d: _nodes(d)[0].update(InstanceGroupName="ghost-group"),
        (
            "ClusterNodeSummaries[0].InstanceGroupName: 'ghost-group' is not a group of cluster "
            f"{NAME} (groups: leo-stg-compute-ig, leo-stg-head-ig)"
        ),
    ),
    "duplicate node id": (lambda d: _nodes(d).append(copy.deepcopy(_nodes(d)[0])), "ClusterNodeSummaries[0].InstanceId: "),
    "duplicate group": (
        lambda d: _groups(d).append(copy.deepcopy(_groups(d)[0])),
        "DescribeCluster.InstanceGroups[0].InstanceGroupName: 'leo-stg-head-ig' is listed more than once",
    ),
    "unknown format": (
        lambda d: d.update(Format="hyperpod-snapshot/99"),
        "Format: 'hyperpod-snapshot/99' is not a snapshot format this version reads (hyperpod-snapshot/1)",
    ),
    "no format": (lambda d: d.pop("Format"), "Format: is required with ClusterNodeSummaries"),
    "unknown top-level key": (lambda d: d.update(Extra=1), "Extra: is not a known field"),
    "missing status": (lambda d: _describe(d).pop("ClusterStatus"), "DescribeCluster.ClusterStatus: is required"),
    "no describe": (lambda d: d.pop("DescribeCluster"), "DescribeCluster: is required"),
    "nodes not a list": (lambda d: d.update(ClusterNodeSummaries={"a": 1}), "ClusterNodeSummaries: must be a list, got dict"),
    "bad launch time": (lambda d: _nodes(d)[0].update(LaunchTime="yesterday"), "ClusterNodeSummaries[0].LaunchTime: must be a timestamp"),
    "markup in a message": (lambda d: _groups(d)[0].update(Status="[/bogus]"), "DescribeCluster.InstanceGroups[0].Status: must be one of"),
}


@pytest.mark.parametrize("change, line", BREAKAGES.values(), ids=BREAKAGES.keys())
def test_inconsistent_snapshots_are_refused_naming_file_and_field(saved, tmp_path, change, line):
    data = copy.deepcopy(saved)
    change(data)
    result = _plan_with(tmp_path, data)
    assert result.code == 1, result.output
    assert f"error: {tmp_path / 'bad.json'}: {line}" in result.output, result.output


@pytest.mark.parametrize(
    "content, words",
    [
        ("", "the file is empty"),
        ("{", "not valid JSON"),
        ("[]", "a snapshot is an object"),
        ('{"DescribeCluster": {}, "DescribeCluster": {}}', "appears twice"),
    ],
)
def test_files_that_are_not_snapshots(saved, tmp_path, content, words):
    result = _plan_with(tmp_path, content)
    assert result.code == 1 and words in result.output and "bad.json" in result.output, result.output


def test_the_aws_cli_output_combined(saved, tmp_path):
    """`{ aws sagemaker describe-cluster …; aws sagemaker list-cluster-nodes …; } | jq -s
    '{DescribeCluster: .[0], ListClusterNodes: .[1]}'` — the CLI's JSON, timestamps as it prints them."""
    from pulumi_hyperpod.sim.aws import Simulator

    client = Simulator.open_default().client()
    describe = client.describe_cluster(ClusterName=NAME)
    listing = client.list_cluster_nodes(ClusterName=NAME, IncludeNodeLogicalIds=True)
    for response in (describe, listing):
        response.pop("ResponseMetadata")
    combined = json.loads(json.dumps({"DescribeCluster": describe, "ListClusterNodes": listing}, default=lambda t: t.isoformat()))
    result = _plan_with(tmp_path, combined, "aws.json")
    assert result.code == 0, result.output
    state = load_snapshot(tmp_path / "aws.json", NAME)
    assert (state.name, len(state.nodes)) == (NAME, len(saved["ClusterNodeSummaries"]))
    combined["ListClusterNodes"]["NextToken"] = "more"
    result = _plan_with(tmp_path, combined, "partial.json")
    assert result.code == 1 and "ListClusterNodes.NextToken: the listing is incomplete" in result.output


def test_members_a_newer_service_adds_are_left_alone(saved):
    data = copy.deepcopy(saved)
    _describe(data)["SomeFutureMember"] = {"x": 1}
    _nodes(data)[0]["AnotherNewMember"] = "y"
    assert ClusterState.from_snapshot(data).name == NAME


def test_from_snapshot_checks_too(saved):
    assert ClusterState.from_snapshot(saved).name == NAME
    broken = copy.deepcopy(saved)
    _nodes(broken).append(copy.deepcopy(_nodes(broken)[0]))
    with pytest.raises(SnapshotError, match=r"ClusterNodeSummaries\[2\].InstanceId: .* is listed more than once"):
        ClusterState.from_snapshot(broken)


def test_a_node_not_launched_yet_needs_no_instance_id(saved):
    data = copy.deepcopy(saved)
    pending = _nodes(data)[0]
    pending.pop("InstanceId")
    pending.pop("LaunchTime")
    pending["InstanceStatus"] = {"Status": "Pending"}
    state = ClusterState.from_snapshot(data)
    assert state.nodes[0].instance_id is None and state.nodes[0].logical_id
