"""Service rules an outside audit found the simulator missing, each through a real boto3 client:
applied quotas answered with ResourceLimitExceeded, MinCount's Updating only when MinCount changes,
a zero-instance login group, the single Slurm controller on every write, NodeLogicalId only when
asked for."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.support.sim_helpers import advance_until, cluster_status, eks_request, group, groups_of, nodes_of, seed000_request, slurm_group

C5 = "ml.c5.xlarge for cluster usage"


def _code(error: pytest.ExceptionInfo) -> str:
    return error.value.response["Error"]["Code"]


# -- quotas ----------------------------------------------------------------------------------------
def test_create_past_a_per_type_quota_is_refused_with_the_services_message(make_sim):
    _sim, client = make_sim({"quotas": [{"quota_name": C5, "value": 4}]})
    with pytest.raises(ClientError) as refused:
        client.create_cluster(**eks_request("q", [group("a", 5)]))
    assert _code(refused) == "ResourceLimitExceeded"
    message = refused.value.response["Error"]["Message"]
    assert message.startswith(
        f"The account-level service limit '{C5}' is 4 Instances, with current utilization of "
        "0 Instances and a request delta of 5 Instances."
    )
    assert client.list_clusters()["ClusterSummaries"] == [], "nothing was created"
    client.create_cluster(**eks_request("q", [group("a", 4)]))  # at the quota: accepted


def test_quotas_count_every_cluster_of_the_region_and_each_write(make_sim):
    sim, client = make_sim({"quotas": [{"quota_name": C5, "value": 6}, {"quota_code": "L-2CE978FC", "value": 5}]})  # instances per cluster
    client.create_cluster(**eks_request("one", [group("a", 3)]))
    sim.advance(1200)
    with pytest.raises(ClientError) as per_type:  # 3 here + 4 there > 6
        client.create_cluster(**eks_request("two", [group("a", 4)]))
    assert _code(per_type) == "ResourceLimitExceeded" and "current utilization of 3 Instances" in str(per_type.value)
    with pytest.raises(ClientError) as per_cluster:  # 3 + 3 m5 > 5 per cluster
        client.update_cluster(ClusterName="one", InstanceGroups=[group("a", 3), group("b", 3, "ml.m5.xlarge")])
    assert "Maximum number instances allowed per SageMaker HyperPod cluster" in str(per_cluster.value)
    with pytest.raises(ClientError) as added:
        client.batch_add_cluster_nodes(ClusterName="one", NodesToAdd=[{"InstanceGroupName": "a", "IncrementTargetCountBy": 4}])
    assert _code(added) == "ResourceLimitExceeded"
    assert groups_of(client, "one")["a"]["TargetCount"] == 3, "a refused request changes nothing"
    client.batch_add_cluster_nodes(ClusterName="one", NodesToAdd=[{"InstanceGroupName": "a", "IncrementTargetCountBy": 2}])


def test_a_cluster_over_a_lowered_quota_can_still_scale_in(make_sim):
    sim, client = make_sim()
    client.create_cluster(**eks_request("big", [group("a", 4)]))
    sim.advance(1200)
    sim.set_quota(2, name=C5)
    client.update_cluster(ClusterName="big", InstanceGroups=[group("a", 3)])  # still over, but lower
    with pytest.raises(ClientError):
        client.update_cluster(ClusterName="big", InstanceGroups=[group("a", 4)])


# -- MinCount (seed 000: Updating when MinCount is *modified* and not met) ----------------------------
def test_restating_an_unchanged_min_count_leaves_the_group_in_service(make_sim):
    sim, client = make_sim({"quotas": []})
    client.create_cluster(**eks_request("m", [group("a", 4, MinInstanceCount=4)]))
    advance_until(sim, lambda: groups_of(client, "m")["a"]["Status"] == "InService")
    for node in nodes_of(client, "m")[:2]:
        sim.fail_node("m", node["InstanceId"], retryable=False)
    assert groups_of(client, "m")["a"]["CurrentCount"] == 2, "MinCount is not a permanent guarantee"

    client.update_cluster(ClusterName="m", InstanceGroups=[group("a", 5, MinInstanceCount=4)])
    assert groups_of(client, "m")["a"]["Status"] == "InService", "a plain scale-out does not restart MinCount"
    client.batch_add_cluster_nodes(ClusterName="m", NodesToAdd=[{"InstanceGroupName": "a", "IncrementTargetCountBy": 1}])
    sim.advance(4 * 3600)
    assert groups_of(client, "m")["a"]["TargetCount"] == 6, "no 3-hour rollback of the scale-out"

    client.update_cluster(ClusterName="m", InstanceGroups=[group("a", 6, MinInstanceCount=6)])
    assert groups_of(client, "m")["a"]["Status"] == "Updating", "a modified, unmet MinCount does"


# -- Slurm roles -----------------------------------------------------------------------------------------
def test_a_login_group_of_zero_instances_does_not_hold_the_cluster_in_creating(sim, client):
    request = seed000_request(workers=2)
    request["InstanceGroups"][1]["InstanceCount"] = 0
    client.create_cluster(**request)
    advance_until(sim, lambda: cluster_status(client, "my-training-cluster") == "InService", limit=3600)


def test_the_continuous_slurm_controller_stays_at_one_node_on_every_write(sim, client):
    client.create_cluster(**seed000_request(workers=1))
    advance_until(sim, lambda: cluster_status(client, "my-training-cluster") == "InService")
    controller = slurm_group("controller-group", "Controller", 2, "ml.m5.xlarge")
    with pytest.raises(ClientError) as updated:
        client.update_cluster(ClusterName="my-training-cluster", InstanceGroups=[controller])
    assert "InstanceGroups[0].InstanceCount: the Controller group runs exactly 1 node" in str(updated.value)
    with pytest.raises(ClientError) as added:
        client.batch_add_cluster_nodes(
            ClusterName="my-training-cluster", NodesToAdd=[{"InstanceGroupName": "controller-group", "IncrementTargetCountBy": 1}]
        )
    assert "NodesToAdd[0].InstanceGroupName: the Controller group runs exactly 1 node" in str(added.value)
    assert groups_of(client, "my-training-cluster")["controller-group"]["TargetCount"] == 1


# -- ListClusterNodes ----------------------------------------------------------------------------------------
def test_node_logical_ids_are_listed_only_when_asked_for(sim, client):
    client.create_cluster(**eks_request("ids", [group("a", 2)]))
    sim.advance(1200)
    plain = client.list_cluster_nodes(ClusterName="ids")["ClusterNodeSummaries"]
    asked = client.list_cluster_nodes(ClusterName="ids", IncludeNodeLogicalIds=True)["ClusterNodeSummaries"]
    assert len(plain) == len(asked) == 2
    assert all("NodeLogicalId" not in node for node in plain) and all(node["NodeLogicalId"] for node in asked)
