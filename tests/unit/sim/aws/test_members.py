"""The simulator reads the member table too: the members the newest CloudFormation schema updates
in place change with UpdateCluster, kept members survive an entry that leaves them out, the rest is the entry's; tags through
AddTags/ListTags/DeleteTags; Spot capacity reported as Spot; empty strings and autoscaling rules
refused as the model and the autoscaling guide say."""

from __future__ import annotations

import botocore.exceptions
import pytest

from tests.support.sim_helpers import EKS_ARN, advance_until, cluster_status, describe, eks_request, group, groups_of, nodes_of

AUTOSCALER = "arn:aws:iam::111122223333:role/autoscaler"


def _eks(client, sim, name="members", **extra):
    client.create_cluster(**eks_request(name, [group("gpu", 2, ThreadsPerCore=2, **extra)]))
    advance_until(sim, lambda: cluster_status(client, name) == "InService")


def test_a_member_the_newest_schema_updates_in_place_changes_and_one_left_out_is_kept(sim, client):
    # issue 37 item 6: ThreadsPerCore is in no createOnlyProperties entry of the newest schema
    _eks(client, sim, OverrideVpcConfig={"SecurityGroupIds": ["sg-1"], "Subnets": ["subnet-1"]})
    client.update_cluster(ClusterName="members", InstanceGroups=[group("gpu", 2, ThreadsPerCore=1)])
    assert groups_of(client, "members")["gpu"]["ThreadsPerCore"] == 1
    client.update_cluster(ClusterName="members", InstanceGroups=[group("gpu", 2)])
    described = groups_of(client, "members")["gpu"]
    assert described["ThreadsPerCore"] == 1 and described["OverrideVpcConfig"]["Subnets"] == ["subnet-1"]


def test_an_entry_is_the_group_s_whole_specification(sim, client):
    _eks(client, sim, KubernetesConfig={"Labels": {"team": "ml"}}, OnStartDeepHealthChecks=["InstanceStress"])
    assert groups_of(client, "members")["gpu"]["KubernetesConfig"]["DesiredLabels"] == {"team": "ml"}
    client.update_cluster(ClusterName="members", InstanceGroups=[group("gpu", 2)])
    described = groups_of(client, "members")["gpu"]
    assert "KubernetesConfig" not in described and "OnStartDeepHealthChecks" not in described


def test_tags_are_added_listed_and_deleted(sim, client):
    request = eks_request("tagged", [group("gpu", 1)])
    request["Tags"] = [{"Key": "team", "Value": "ml"}]
    arn = client.create_cluster(**request)["ClusterArn"]
    client.add_tags(ResourceArn=arn, Tags=[{"Key": "env", "Value": "prod"}, {"Key": "team", "Value": "infra"}])
    assert client.list_tags(ResourceArn=arn)["Tags"] == [{"Key": "env", "Value": "prod"}, {"Key": "team", "Value": "infra"}]
    client.delete_tags(ResourceArn=arn, TagKeys=["team"])
    assert client.list_tags(ResourceArn=arn)["Tags"] == [{"Key": "env", "Value": "prod"}]
    assert "Tags" not in describe(client, "tagged")  # DescribeCluster's output shape has no tags
    with pytest.raises(botocore.exceptions.ClientError, match="aws: prefix is reserved"):
        client.add_tags(ResourceArn=arn, Tags=[{"Key": "aws:owner", "Value": "me"}])


def test_spot_nodes_report_spot_capacity_and_a_training_plan_group_its_status(make_sim):
    plan_arn = "arn:aws:sagemaker:us-west-2:111122223333:training-plan/plan-abcdefghijklmnopqrstuvwxyz"
    sim, client = make_sim({"training_plans": {plan_arn: {"instance_type": "ml.p5.48xlarge", "count": 2}}})
    client.create_cluster(
        **eks_request(
            "spot", [group("cheap", 1, CapacityRequirements={"Spot": {}}), group("reserved", 1, "ml.p5.48xlarge", TrainingPlanArn=plan_arn)]
        )
    )
    advance_until(sim, lambda: cluster_status(client, "spot") == "InService")
    by_group = {n["InstanceGroupName"]: n["InstanceId"] for n in nodes_of(client, "spot")}
    assert client.describe_cluster_node(ClusterName="spot", NodeId=by_group["cheap"])["NodeDetails"]["CapacityType"] == "Spot"
    assert client.describe_cluster_node(ClusterName="spot", NodeId=by_group["reserved"])["NodeDetails"]["CapacityType"] == "OnDemand"
    assert groups_of(client, "spot")["reserved"]["TrainingPlanStatus"] == "Active"


def test_an_empty_subnet_is_refused_by_the_model_s_pattern(sim, client):
    request = eks_request("empty", [group("gpu", 1)], subnets=[""])
    with pytest.raises(botocore.exceptions.ClientError, match=r"VpcConfig\.Subnets\[0\]: '' does not match the pattern"):
        client.create_cluster(**request)


def test_autoscaling_needs_eks_continuous_a_cluster_role_and_automatic_recovery(sim, client):
    slurm = eks_request("auto", [group("gpu", 1)], continuous=False)
    slurm.update(Orchestrator={"Slurm": {}}, AutoScaling={"Mode": "Enable"}, NodeRecovery="None")
    with pytest.raises(botocore.exceptions.ClientError) as refused:
        client.create_cluster(**slurm)
    message = str(refused.value)
    for needed in ("Orchestrator.Eks", "NodeProvisioningMode Continuous", "ClusterRole", "NodeRecovery Automatic"):
        assert needed in message
    ok = eks_request("auto", [group("gpu", 1)])
    ok.update(AutoScaling={"Mode": "Enable", "AutoScalerType": "Karpenter"}, ClusterRole=AUTOSCALER)
    client.create_cluster(**ok)
    with pytest.raises(botocore.exceptions.ClientError, match="ClusterRole: cannot change while AutoScaling Mode is Enable"):
        client.update_cluster(ClusterName="auto", ClusterRole="arn:aws:iam::111122223333:role/other")
    assert EKS_ARN in describe(client, "auto")["Orchestrator"]["Eks"]["ClusterArn"]


def test_a_training_plan_group_launches_only_the_plan_s_reserved_instances(make_sim):
    plan_arn = "arn:aws:sagemaker:us-west-2:111122223333:training-plan/plan-abcdefghijklmnopqrstuvwxyz"
    sim, client = make_sim({"training_plans": {plan_arn: {"instance_type": "ml.p5.48xlarge", "count": 2}}})
    client.create_cluster(**eks_request("reserved", [group("planned", 3, "ml.p5.48xlarge", TrainingPlanArn=plan_arn), group("free", 3)]))
    sim.advance(3600)
    described = groups_of(client, "reserved")
    assert (described["planned"]["CurrentCount"], described["planned"]["TargetCount"]) == (2, 3)
    assert described["free"]["CurrentCount"] == 3  # the on-demand pool is another pool


def test_describe_reports_what_the_cluster_states_and_only_that(sim, client):
    """Issue 37, item 14. A cluster created without an Orchestrator is described without one (a
    recorded DescribeCluster of such a cluster, cloud-custodian's placebo data, has none), not as
    `{"Slurm": {}}`; ThreadsPerCore, which the service fixes at creation, is reported for every group
    (that recording reports 1 for a group whose request gave none), on the group and on its nodes."""
    client.create_cluster(ClusterName="plain", InstanceGroups=[group("workers", 1)])
    advance_until(sim, lambda: cluster_status(client, "plain") == "InService")
    cluster = describe(client, "plain")
    assert "Orchestrator" not in cluster
    assert cluster["InstanceGroups"][0]["ThreadsPerCore"] == 1
    node = nodes_of(client, "plain")[0]
    assert client.describe_cluster_node(ClusterName="plain", NodeId=node["InstanceId"])["NodeDetails"]["ThreadsPerCore"] == 1
    client.create_cluster(**eks_request("stated", [group("gpu", 1, ThreadsPerCore=2)]))
    stated = describe(client, "stated")
    assert stated["Orchestrator"] == {"Eks": {"ClusterArn": EKS_ARN}} and stated["InstanceGroups"][0]["ThreadsPerCore"] == 2
