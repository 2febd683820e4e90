"""Cross-check with moto 5 on the HyperPod operations moto implements.

moto implements CreateCluster, DescribeCluster, ListClusters, ListClusterNodes, DescribeClusterNode
and DeleteCluster (UpdateCluster, Batch*ClusterNodes and the event APIs raise NotImplementedError).
The same scenario runs through a boto3 client against `moto.mock_aws` and against the simulator;
the fields both return must agree in name and type, and each difference found is asserted below
with the reason it exists.
"""

from __future__ import annotations

import copy
import datetime as dt
import re

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.sim.aws import Simulator

# moto insists on SourceS3Uri under s3://sagemaker-…, one of its own instance types, and ThreadsPerCore.
REQUEST = {
    "ClusterName": "moto-cmp",
    "InstanceGroups": [
        {
            "InstanceGroupName": "workers",
            "InstanceType": "ml.g5.xlarge",
            "InstanceCount": 2,
            "LifeCycleConfig": {"SourceS3Uri": "s3://sagemaker-lifecycle-bucket/src/", "OnCreate": "on_create.sh"},
            "ExecutionRole": "arn:aws:iam::123456789012:role/hyperpod",
            "ThreadsPerCore": 1,
        }
    ],
    "VpcConfig": {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-12345678"]},
}
ARN_PREFIX = "arn:aws:sagemaker:us-west-2:123456789012:cluster/"


def _strip(response: dict) -> dict:
    return {key: value for key, value in response.items() if key != "ResponseMetadata"}


def _scenario(client, settle) -> dict:
    """The same calls against either backend; `settle()` lets provisioning finish."""
    out = {"create": _strip(client.create_cluster(**copy.deepcopy(REQUEST)))}
    out["status_at_create"] = client.describe_cluster(ClusterName="moto-cmp")["ClusterStatus"]
    settle()
    out["describe"] = _strip(client.describe_cluster(ClusterName="moto-cmp"))
    out["list_clusters"] = _strip(client.list_clusters())
    out["nodes"] = _strip(client.list_cluster_nodes(ClusterName="moto-cmp"))
    node_id = out["nodes"]["ClusterNodeSummaries"][0]["InstanceId"]
    out["node"] = _strip(client.describe_cluster_node(ClusterName="moto-cmp", NodeId=node_id))
    with pytest.raises(ClientError) as duplicate:
        client.create_cluster(**copy.deepcopy(REQUEST))
    out["duplicate_error"] = duplicate.value.response["Error"]["Code"]
    out["delete"] = _strip(client.delete_cluster(ClusterName="moto-cmp"))
    settle()
    with pytest.raises(ClientError) as gone:
        client.describe_cluster(ClusterName="moto-cmp")
    out["gone_error"] = gone.value.response["Error"]["Code"]
    return out


@pytest.fixture(scope="module")
def both() -> tuple[dict, dict]:
    with mock_aws():
        moto_client = boto3.client("sagemaker", region_name="us-west-2", aws_access_key_id="testing", aws_secret_access_key="testing")
        moto = _scenario(moto_client, lambda: None)
        with pytest.raises(NotImplementedError):
            moto_client.update_cluster(ClusterName="x", InstanceGroups=copy.deepcopy(REQUEST["InstanceGroups"]))
    sim = Simulator(seed=11, scenario={"account_id": "123456789012"})  # outside mock_aws: its handler is not ours
    ours = _scenario(sim.client(), lambda: sim.advance(600))
    return moto, ours


def _types(value):
    """The shape of a value: dict keys → types, lists by their first item, leaves by type name."""
    if isinstance(value, dict):
        return {key: _types(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_types(value[0])] if value else []
    return type(value).__name__


def _common(moto: dict, ours: dict, path: str = "") -> list[str]:
    """Fields both return whose types differ (recursively)."""
    problems = []
    for key in moto.keys() & ours.keys():
        left, right = moto[key], ours[key]
        if isinstance(left, dict) and isinstance(right, dict):
            problems += _common(left, right, f"{path}.{key}")
        elif isinstance(left, list) and isinstance(right, list) and left and right and isinstance(left[0], dict):
            problems += _common(left[0], right[0], f"{path}.{key}[0]")
        elif _types(left) != _types(right):
            problems.append(f"{path}.{key}: moto {_types(left)} vs simulator {_types(right)}")
    return problems


def test_fields_both_return_agree_in_type(both):
    moto, ours = both
    for response in ("create", "describe", "list_clusters", "nodes", "node", "delete"):
        assert _common(moto[response], ours[response]) == [], response


def test_cluster_arn_formats(both):
    moto, ours = both
    pattern = re.compile(servicemodel.shape("ClusterArn").metadata["pattern"])
    assert moto["create"]["ClusterArn"] == ARN_PREFIX + "moto-cmp", "moto puts the cluster *name* in the ARN"
    assert not pattern.fullmatch(moto["create"]["ClusterArn"]), "...which breaks the model's 12-char id pattern"
    assert ours["create"]["ClusterArn"].startswith(ARN_PREFIX) and pattern.fullmatch(ours["create"]["ClusterArn"])
    assert ours["delete"]["ClusterArn"] == ours["create"]["ClusterArn"] == ours["describe"]["ClusterArn"]


def test_describe_cluster_fields(both):
    moto, ours = both
    assert set(moto["describe"]) - set(ours["describe"]) == {"FailureMessage"}, (
        "moto always sends FailureMessage ''; the simulator sends it only when something failed"
    )
    assert set(ours["describe"]) - set(moto["describe"]) == {"NodeRecovery"}, (
        "the simulator reports the node recovery mode; an Orchestrator only when the request gave one"
    )
    moto_group, our_group = moto["describe"]["InstanceGroups"][0], ours["describe"]["InstanceGroups"][0]
    assert set(moto_group) < set(our_group) and set(our_group) - set(moto_group) == {"Status"}
    for key in moto_group:
        assert moto_group[key] == our_group[key], key
    assert moto["status_at_create"] == "InService", "moto has no provisioning: InService at once"
    assert ours["status_at_create"] == "Creating" and ours["describe"]["ClusterStatus"] == "InService"


def test_node_fields_and_formats(both):
    moto, ours = both
    moto_node, our_node = moto["nodes"]["ClusterNodeSummaries"][0], ours["nodes"]["ClusterNodeSummaries"][0]
    assert set(our_node) - set(moto_node) == {"PrivateDnsHostname"}, (
        "NodeLogicalId only with IncludeNodeLogicalIds (the model's documentation), which this listing leaves out"
    )
    assert moto_node["InstanceId"] == "workers-0" and re.fullmatch(r"i-[0-9a-f]{17}", our_node["InstanceId"]), (
        "moto names nodes <group>-<n>; the service (and the simulator) use EC2 instance ids"
    )
    assert moto_node["InstanceStatus"] == {"Status": "Running", "Message": "message"}
    assert our_node["InstanceStatus"] == {"Status": "Running"}, "no placeholder message on a healthy node"
    moto_details, our_details = moto["node"]["NodeDetails"], ours["node"]["NodeDetails"]
    assert set(moto_details) < set(our_details)
    assert {"Placement", "PrivatePrimaryIp", "PrivateDnsHostname", "NodeLogicalId"} <= set(our_details) - set(moto_details)
    assert isinstance(moto_node["LaunchTime"], dt.datetime) and isinstance(our_node["LaunchTime"], dt.datetime)


def test_list_clusters_summaries_match(both):
    moto, ours = both
    assert set(moto["list_clusters"]["ClusterSummaries"][0]) == set(ours["list_clusters"]["ClusterSummaries"][0])


def test_error_codes_differ_where_moto_is_loose(both):
    moto, ours = both
    describe_errors = {shape.name for shape in servicemodel.service_model().operation_model("DescribeCluster").error_shapes}
    assert ours["gone_error"] == "ResourceNotFound" and "ResourceNotFound" in describe_errors
    assert moto["gone_error"] == "ValidationException", "moto answers a missing cluster with ValidationException"
    assert moto["duplicate_error"] == "ResourceInUse"
    assert ours["duplicate_error"] == "ValidationException", "the simulator follows the service ('already exists')"


def test_moto_responses_break_the_model_where_the_simulator_does_not(both):
    moto, ours = both
    moto_problems = servicemodel.violations(servicemodel.output_shape("DescribeCluster"), moto["describe"])
    assert [p.path for p in moto_problems] == ["ClusterArn"]
    for operation, key in (
        ("DescribeCluster", "describe"),
        ("ListClusterNodes", "nodes"),
        ("DescribeClusterNode", "node"),
        ("ListClusters", "list_clusters"),
    ):
        assert servicemodel.violations(servicemodel.output_shape(operation), ours[key]) == [], operation
