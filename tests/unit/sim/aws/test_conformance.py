"""Conformance: every response the simulator returns validates against botocore's output shape for
its operation.

The observer in conftest.py checks each successful response as it is received (and fails the test
that received a non-conforming one); this file runs a scenario that exercises every simulated
operation and the rarely used request fields that DescribeCluster echoes back, and asserts on its
own tally — it passes alone, first, last or in any order.
"""

from __future__ import annotations

from pulumi_hyperpod.sim.aws.sagemaker import OPERATIONS
from tests.support.sim_helpers import EKS_ARN, eks_request, events_of, group, nodes_of, seed000_request, slurm_group


def _everything(make_sim) -> None:
    plan = "arn:aws:sagemaker:us-west-2:111122223333:training-plan/p5-reserved"  # DescribeTrainingPlan, ListTrainingPlans
    sim, client = make_sim(
        {
            "capacity": [{"instance_type": "ml.p5.48xlarge", "available": 2}],
            "training_plans": {plan: {"instance_type": "ml.p5.48xlarge", "count": 4, "upfront_fee": "1200"}},
            "training_plan_offerings": [{"id": "tpo-1", "instance_type": "ml.p5.48xlarge", "count": 4, "upfront_fee": "1200"}],
        }
    )
    rich = group(
        "rich",
        2,
        "ml.g5.xlarge",
        ThreadsPerCore=1,
        ImageId="ami-0123456789abcdef0",
        InstanceStorageConfigs=[{"EbsVolumeConfig": {"VolumeSizeInGB": 100}}],
        OnStartDeepHealthChecks=["InstanceStress", "InstanceConnectivity"],
        OverrideVpcConfig={"SecurityGroupIds": ["sg-87654321"], "Subnets": ["subnet-other1"]},
        KubernetesConfig={"Labels": {"team": "ml"}, "Taints": [{"Key": "gpu", "Value": "true", "Effect": "NoSchedule"}]},
        ScheduledUpdateConfig={"ScheduleExpression": "cron(0 3 ? * SUN *)"},
        AutoPatchConfig={"PatchingStrategy": "WhenIdle"},
        TrainingPlanArn="arn:aws:sagemaker:us-west-2:111122223333:training-plan/plan-abcdefghijklmnop",
        NetworkInterface={"InterfaceType": "efa"},
        CapacityRequirements={"OnDemand": {}},
        MinInstanceCount=1,
    )
    flexible = group("flex", 3, InstanceRequirements={"InstanceTypes": ["ml.p5.48xlarge", "ml.p4d.24xlarge"]})
    request = eks_request("every-op", [rich, flexible])
    request.update(
        Tags=[{"Key": "team", "Value": "ml"}],
        NodeRecovery="Automatic",
        TieredStorageConfig={"Mode": "Enable", "InstanceMemoryAllocationPercentage": 20},
        ClusterRole="arn:aws:iam::111122223333:role/autoscaler",
        AutoScaling={"Mode": "Enable", "AutoScalerType": "Karpenter"},
    )
    client.create_cluster(**request)
    client.create_cluster(**seed000_request("slurm-too", workers=3))
    tagged = client.describe_cluster(ClusterName="every-op")["ClusterArn"]  # AddTags/ListTags/DeleteTags (fake/tagging.py)
    client.add_tags(ResourceArn=tagged, Tags=[{"Key": "owner", "Value": "platform"}])
    client.list_tags(ResourceArn=tagged, MaxResults=50)
    client.delete_tags(ResourceArn=tagged, TagKeys=["owner"])
    pending = nodes_of(client, "every-op", include_logical=True)
    client.describe_cluster_node(ClusterName="every-op", NodeLogicalId=pending[0]["NodeLogicalId"])
    client.describe_cluster(ClusterName="every-op")
    sim.advance(1600)
    client.describe_cluster(ClusterName="every-op")
    client.list_clusters(SortBy="NAME")
    client.describe_training_plan(TrainingPlanName="p5-reserved")  # fake/training_plans.py
    client.list_training_plans(Filters=[{"Name": "Status", "Value": "Active"}], SortBy="Status", MaxResults=1)
    client.search_training_plan_offerings(InstanceType="ml.p5.48xlarge", InstanceCount=2, TargetResources=["hyperpod-cluster"])
    launched = nodes_of(client, "every-op")
    client.describe_cluster_node(ClusterName="every-op", NodeId=launched[0]["InstanceId"])
    client.update_cluster(
        ClusterName="every-op",
        InstanceGroups=[
            {**flexible, "InstanceCount": 4, "InstanceRequirements": {"InstanceTypes": ["ml.p4d.24xlarge"]}},
            group("added", 1, MinInstanceCount=1),
        ],
    )
    client.batch_add_cluster_nodes(
        ClusterName="every-op",
        ClientToken="t-1",
        NodesToAdd=[
            {
                "InstanceGroupName": "flex",
                "IncrementTargetCountBy": 1,
                "InstanceTypes": ["ml.p4d.24xlarge"],
                "AvailabilityZones": ["us-west-2a"],
            },
            {"InstanceGroupName": "ghost", "IncrementTargetCountBy": 1},
        ],
    )
    waiting = [n for n in nodes_of(client, "every-op", include_logical=True) if n["InstanceId"] == ""]
    client.batch_delete_cluster_nodes(
        ClusterName="every-op",
        NodeIds=[launched[-1]["InstanceId"], "i-0000000000000dead"],
        NodeLogicalIds=[n["NodeLogicalId"] for n in waiting[:1]] + ["ghost-node"],
    )
    events = events_of(client, "every-op")
    for event in events[:: max(1, len(events) // 10)]:
        client.describe_cluster_event(ClusterName="every-op", EventId=event["EventId"])
    sim.advance(600)
    client.update_cluster(
        ClusterName="slurm-too",
        InstanceGroups=[slurm_group("worker-gpu-a", "Compute", 1, "ml.p5.48xlarge", ["gpu-training"])],
        Orchestrator={"Slurm": {}},
    )
    _extensions(sim, client)
    _governance(sim, client)
    _software_and_moves(sim, client)
    client.delete_cluster(ClusterName="every-op")
    client.describe_cluster(ClusterName="every-op")
    client.list_cluster_nodes(ClusterName="every-op", IncludeNodeLogicalIds=True)
    assert EKS_ARN in str(client.describe_cluster(ClusterName="every-op")["Orchestrator"])


def _governance(sim, client) -> None:
    """Every task governance operation (sim/aws/governance.py), in each status its answers show."""
    cluster = client.describe_cluster(ClusterName="every-op")["ClusterArn"]
    quota = client.create_compute_quota(
        Name="team-a",
        ClusterArn=cluster,
        ComputeQuotaConfig={"ComputeQuotaResources": [{"InstanceType": "ml.c5.xlarge", "Count": 1}]},
        ComputeQuotaTarget={"TeamName": "team-a"},
    )["ComputeQuotaId"]
    policy = client.create_cluster_scheduler_config(Name="policy", ClusterArn=cluster, SchedulerConfig={"FairShare": "Enabled"})
    policy_id = policy["ClusterSchedulerConfigId"]
    client.describe_compute_quota(ComputeQuotaId=quota)  # Creating
    client.describe_cluster_scheduler_config(ClusterSchedulerConfigId=policy_id)
    sim.advance(60)
    client.update_compute_quota(ComputeQuotaId=quota, TargetVersion=1, ActivationState="Disabled")
    client.update_cluster_scheduler_config(ClusterSchedulerConfigId=policy_id, TargetVersion=1, Description="the policy")
    client.list_compute_quotas(ClusterArn=cluster, SortBy="Status")  # Updating
    client.list_cluster_scheduler_configs(ClusterArn=cluster, SortBy="Name")
    sim.advance(60)
    client.delete_compute_quota(ComputeQuotaId=quota)
    client.delete_cluster_scheduler_config(ClusterSchedulerConfigId=policy_id)
    client.list_compute_quotas()  # Deleting


def _extensions(sim, client) -> None:
    """Every cluster-extension operation (sim/aws/extensions.py), in each status its answers show."""
    cluster = client.describe_cluster(ClusterName="slurm-too")["ClusterArn"]
    client.list_cluster_extension_versions(ExtensionName="sagemaker-observability", MaxResults=1)
    arn = client.create_cluster_extension(
        ClusterArn=cluster,
        ExtensionName="sagemaker-observability",
        ExtensionVersion="1.0.0",
        ConfigurationValues='{"metricsProvider":{"nodeMetrics":{"level":"ADVANCED"}}}',
        Tags=[{"Key": "team", "Value": "ml"}],
        ClientToken="x-1",
    )["ExtensionArn"]
    client.describe_cluster_extension(ClusterArn=cluster, ExtensionArn=arn)  # Creating
    sim.advance(300)
    client.update_cluster_extension(ClusterArn=cluster, ExtensionArn=arn, ConfigurationValues='{"metricsProvider":null}', ClientToken="x-2")
    client.list_cluster_extensions(ClusterArn=cluster, MaxResults=10)  # Updating
    sim.advance(300)
    client.describe_cluster_extension(ClusterArn=cluster, ExtensionArn=arn)  # Active
    client.delete_cluster_extension(ClusterArn=cluster, ExtensionArn=arn)
    client.describe_cluster_extension(ClusterArn=cluster, ExtensionArn=arn)  # Deleting
    client.list_cluster_extensions(ClusterArn=cluster, CreationTimeAfter=0)


def _software_and_moves(sim, client) -> None:
    """UpdateClusterSoftware (SystemUpdating), MoveClusterNodes (Detach/AttachInProgress), a lost instance."""
    for name in ("move-a", "move-b"):
        client.create_cluster(**eks_request(name, [group("pool", 3, "ml.g5.xlarge")]))
    sim.advance(1200)
    arns = {name: client.describe_cluster(ClusterName=name)["ClusterArn"] for name in ("move-a", "move-b")}
    nodes = nodes_of(client, "move-a", True)
    client.move_cluster_nodes(
        SourceClusterArn=arns["move-a"],
        SourceInstanceGroupName="pool",
        TargetClusterArn=arns["move-b"],
        TargetInstanceGroupName="pool",
        ClientToken="m-1",
        NodeIds=[nodes[0]["InstanceId"], "i-0123456789abcdef0"],
    )
    client.move_cluster_nodes(
        SourceClusterArn=arns["move-a"],
        SourceInstanceGroupName="pool",
        TargetClusterArn=arns["move-b"],
        TargetInstanceGroupName="pool",
        InstanceCount=1,
    )
    client.move_cluster_nodes(
        SourceClusterArn=arns["move-a"],
        SourceInstanceGroupName="pool",
        TargetClusterArn=arns["move-b"],
        TargetInstanceGroupName="pool",
        NodeLogicalIds=[nodes[0]["NodeLogicalId"]],
    )
    client.describe_cluster_node(ClusterName="move-a", NodeId=nodes[0]["InstanceId"])
    nodes_of(client, "move-a", include_logical=True)
    sim.advance(150)
    nodes_of(client, "move-b", include_logical=True)
    client.update_cluster_software(
        ClusterName="move-b",
        InstanceGroups=[{"InstanceGroupName": "pool", "ImageReleaseVersion": "2026.1.15"}],
        ImageId="ami-0123456789abcdef0",
        DeploymentConfig={
            "RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "CAPACITY_PERCENTAGE", "Value": 50}},
            "WaitIntervalInSeconds": 60,
        },
    )
    client.describe_cluster(ClusterName="move-b")
    nodes_of(client, "move-b")
    _repairs(sim, client)
    sim.lose_instance("move-a", nodes_of(client, "move-a")[0]["InstanceId"])
    nodes_of(client, "move-a")
    sim.advance(3600)
    client.describe_cluster(ClusterName="move-b")
    client.describe_cluster_node(ClusterName="move-b", NodeId=nodes_of(client, "move-b")[0]["InstanceId"])


def _repairs(sim, client) -> None:
    """BatchRebootClusterNodes and BatchReplaceClusterNodes, with per-node failures of both id kinds."""
    nodes = [n for n in nodes_of(client, "move-a", True) if n["InstanceId"]]
    client.batch_reboot_cluster_nodes(
        ClusterName="move-a", NodeIds=[nodes[0]["InstanceId"], "i-0000000000000dead"], NodeLogicalIds=["ghost-node"]
    )
    client.batch_replace_cluster_nodes(
        ClusterName="move-a", NodeIds=[nodes[-1]["InstanceId"]], NodeLogicalIds=[nodes[0]["NodeLogicalId"], "ghost-node"]
    )
    sim.advance(400)
    running = [n for n in nodes_of(client, "move-a") if n["InstanceStatus"]["Status"] == "Running"]
    client.start_cluster_health_check(
        ClusterName="move-a",
        DeepHealthCheckConfigurations=[
            {
                "InstanceGroupName": "pool",
                "InstanceIds": [running[0]["InstanceId"]],
                "DeepHealthChecks": ["InstanceStress", "InstanceConnectivity"],
            }
        ],
    )
    client.batch_add_cluster_nodes(ClusterName="move-a", NodesToAdd=[{"InstanceGroupName": "pool", "IncrementTargetCountBy": 1}])
    for summary in client.list_cluster_operations(ClusterName="move-a", MaxResults=1, SortOrder="Descending")["ClusterOperationSummaries"]:
        client.describe_cluster_operation(ClusterName="move-a", OperationId=summary["OperationId"])
    for summary in client.list_cluster_operations(ClusterName="move-a", Type="DeepHealthCheck")["ClusterOperationSummaries"]:
        client.describe_cluster_operation(ClusterName="move-a", OperationId=summary["OperationId"])


def test_every_simulator_response_matches_botocores_output_shapes(make_sim, conformance):
    _everything(make_sim)
    covered = sorted(conformance.by_operation)
    print(
        f"\nconformance: {conformance.total} responses across {len(covered)} operations checked against "
        f"botocore's output shapes: " + ", ".join(f"{op}={conformance.by_operation[op]}" for op in covered)
    )
    assert conformance.total > 0
    assert set(OPERATIONS) <= set(covered), f"not exercised: {sorted(set(OPERATIONS) - set(covered))}"
    assert conformance.failures == [], "\n".join(f"{op}: {problem}" for op, problem in conformance.failures[:20])
