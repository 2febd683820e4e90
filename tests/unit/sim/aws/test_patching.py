"""Node lifecycle in the simulator: UpdateClusterSoftware per orchestrator (EKS in batches, Slurm all at
once), a rollback alarm, BatchRebootClusterNodes and BatchReplaceClusterNodes (per-node errors, the
Slurm controller rule, the per-call limit), through the real botocore client."""

from __future__ import annotations

import botocore.exceptions
import pytest

from tests.support.sim_helpers import eks_request, events_of, group, groups_of, nodes_of, seed000_request

NEW_AMI = "ami-0fedcba9876543210"


def _eks(make_sim, count=8, **extra):
    sim, client = make_sim()
    client.create_cluster(**eks_request("eks", [group("pool", count, "ml.g5.xlarge", ImageId="ami-0123456789abcdef0", **extra)]))
    sim.advance(1800)
    return sim, client


def _statuses(client, name):
    return {n["InstanceId"]: n["InstanceStatus"]["Status"] for n in nodes_of(client, name)}


def test_an_eks_software_update_patches_the_oldest_nodes_first_in_batches_of_the_deployment_config(make_sim):
    sim, client = _eks(make_sim)
    order = [n["InstanceId"] for n in sorted(nodes_of(client, "eks"), key=lambda n: (n["LaunchTime"], n["InstanceId"]))]
    client.update_cluster_software(
        ClusterName="eks",
        ImageId=NEW_AMI,
        DeploymentConfig={"RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 3}}, "WaitIntervalInSeconds": 60},
    )
    sim.advance(1)
    updating = sorted(i for i, s in _statuses(client, "eks").items() if s == "SystemUpdating")
    assert updating == sorted(order[:3])
    sim.advance(900 + 61)
    assert sorted(i for i, s in _statuses(client, "eks").items() if s == "SystemUpdating") == sorted(order[3:6])
    sim.advance(4 * 3600)
    assert client.describe_cluster(ClusterName="eks")["ClusterStatus"] == "InService"
    assert groups_of(client, "eks")["pool"]["CurrentImageId"] == NEW_AMI


def test_a_slurm_software_update_patches_every_node_at_once_and_refuses_rolling_batches(make_sim):
    sim, client = make_sim()
    client.create_cluster(**seed000_request("slurm", workers=4, worker_type="ml.g5.xlarge"))
    sim.advance(3600)
    with pytest.raises(botocore.exceptions.ClientError, match="supported only for clusters orchestrated by Amazon EKS"):
        client.update_cluster_software(
            ClusterName="slurm", DeploymentConfig={"RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 1}}}
        )
    client.update_cluster_software(ClusterName="slurm", ImageId=NEW_AMI)
    sim.advance(1)
    assert set(_statuses(client, "slurm").values()) == {"SystemUpdating"}
    sim.advance(901)
    assert set(_statuses(client, "slurm").values()) == {"Running"}
    assert all(g["CurrentImageId"] == NEW_AMI for g in groups_of(client, "slurm").values())


def test_an_alarm_named_in_auto_rollback_rolls_the_update_back_and_the_groups_keep_their_image(make_sim):
    sim, client = _eks(make_sim, count=4)
    client.update_cluster_software(
        ClusterName="eks",
        ImageId=NEW_AMI,
        DeploymentConfig={
            "RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 2}},
            "AutoRollbackConfiguration": [{"AlarmName": "gpu-health"}],
        },
    )
    sim.advance(1000)
    assert sim.fire_alarm("eks", "other-alarm") is False
    assert sim.fire_alarm("eks", "gpu-health") is True
    sim.advance(960)  # the patched nodes' rollback takes a patch's time
    assert client.describe_cluster(ClusterName="eks")["ClusterStatus"] == "InService"
    assert groups_of(client, "eks")["pool"]["CurrentImageId"] == "ami-0123456789abcdef0"
    assert set(_statuses(client, "eks").values()) == {"Running"}
    assert any("rolled back" in e["Description"] for e in events_of(client, "eks"))


def test_a_reboot_keeps_the_instance_and_brings_a_failed_node_back_without_running_lifecycle_scripts(make_sim):
    sim, client = _eks(make_sim, count=2)
    target = nodes_of(client, "eks")[0]["InstanceId"]
    sim.fail_node("eks", target, retryable=False)
    response = client.batch_reboot_cluster_nodes(ClusterName="eks", NodeIds=[target, "i-0000000000000dead"])
    assert response["Successful"] == [target]
    assert response["Failed"][0]["ErrorCode"] == "InstanceIdNotFound"
    assert _statuses(client, "eks")[target] == "Pending"
    sim.advance(301)
    assert _statuses(client, "eks")[target] == "Running"
    lifecycle_runs = [e for e in events_of(client, "eks") if target in e["Description"] and "lifecycle script" in e["Description"]]
    assert len(lifecycle_runs) == 1  # the one at creation only


def test_a_replace_gives_a_new_instance_that_runs_its_lifecycle_scripts_again(make_sim):
    sim, client = _eks(make_sim, count=2)
    old = nodes_of(client, "eks", include_logical=True)[0]
    response = client.batch_replace_cluster_nodes(ClusterName="eks", NodeIds=[old["InstanceId"]])
    assert response["Successful"] == [old["InstanceId"]]
    sim.advance(1200)
    same_slot = next(n for n in nodes_of(client, "eks", True) if n["NodeLogicalId"] == old["NodeLogicalId"])
    assert same_slot["InstanceId"] not in ("", old["InstanceId"]) and same_slot["InstanceStatus"]["Status"] == "Running"
    descriptions = [e["Description"] for e in events_of(client, "eks")]
    assert any("volumes are deleted" in d and old["InstanceId"] in d for d in descriptions)
    assert any(f"lifecycle script execution for EC2 Instance {same_slot['InstanceId']} has Succeeded" in d for d in descriptions)


def test_a_slurm_controller_cannot_be_replaced_and_more_than_the_model_allows_is_refused(make_sim):
    sim, client = make_sim()
    client.create_cluster(**seed000_request("slurm", workers=2, worker_type="ml.g5.xlarge"))
    sim.advance(3600)
    controller = next(n for n in nodes_of(client, "slurm") if n["InstanceGroupName"] == "controller-group")
    response = client.batch_replace_cluster_nodes(ClusterName="slurm", NodeIds=[controller["InstanceId"]])
    assert response["Failed"][0]["ErrorCode"] == "InvalidInstanceStatus"
    assert "controller" in response["Failed"][0]["Message"]
    many = [f"i-{n:017x}" for n in range(26)]
    with pytest.raises(botocore.exceptions.ClientError, match="at most 25"):
        client.batch_replace_cluster_nodes(ClusterName="slurm", NodeIds=many)


def test_a_deep_health_check_is_an_operation_followed_to_done_and_a_failing_node_is_recovered(make_sim):
    sim, client = make_sim({"faults": {"per_group": {"pool": {"deep_health_check_failure_rate": 1.0}}}})
    client.create_cluster(**eks_request("eks", [group("pool", 2, "ml.g5.xlarge"), group("other", 1, "ml.g5.xlarge")]))
    sim.advance(1800)
    pool_target = next(n["InstanceId"] for n in nodes_of(client, "eks") if n["InstanceGroupName"] == "pool")
    client.start_cluster_health_check(
        ClusterName="eks",
        DeepHealthCheckConfigurations=[{"InstanceGroupName": "pool", "InstanceIds": [pool_target], "DeepHealthChecks": ["InstanceStress"]}],
    )
    [summary] = client.list_cluster_operations(ClusterName="eks", Type="DeepHealthCheck")["ClusterOperationSummaries"]
    assert summary["Status"] == "InProgress"
    assert _statuses(client, "eks")[pool_target] == "DeepHealthCheckInProgress"
    detail = client.describe_cluster_operation(ClusterName="eks", OperationId=summary["OperationId"])
    assert detail["DeepHealthCheckDetails"] == [
        {"InstanceGroupName": "pool", "InstanceIds": [pool_target], "DeepHealthChecks": ["InstanceStress"]}
    ]
    sim.advance(7201)  # about 2 hours, as AWS documents for the instance stress test
    assert client.describe_cluster_operation(ClusterName="eks", OperationId=summary["OperationId"])["Status"] == "Done"
    assert _statuses(client, "eks")[pool_target] == "Failure"
    with pytest.raises(botocore.exceptions.ClientError, match="not a Running instance"):
        client.start_cluster_health_check(
            ClusterName="eks",
            DeepHealthCheckConfigurations=[
                {"InstanceGroupName": "other", "InstanceIds": ["i-0000000000000dead"], "DeepHealthChecks": ["InstanceStress"]}
            ],
        )


def test_scaling_writes_are_listed_as_operations_with_their_counts_and_supersede_each_other(make_sim):
    sim, client = make_sim()
    client.create_cluster(**eks_request("eks", [group("pool", 2, "ml.g5.xlarge")]))
    sim.advance(1800)
    client.batch_add_cluster_nodes(ClusterName="eks", NodesToAdd=[{"InstanceGroupName": "pool", "IncrementTargetCountBy": 2}])
    [first] = client.list_cluster_operations(ClusterName="eks")["ClusterOperationSummaries"]
    assert (first["Type"], first["Status"]) == ("Scaling", "InProgress")
    detail = client.describe_cluster_operation(ClusterName="eks", OperationId=first["OperationId"])
    [scaling] = detail["ScalingDetails"]
    assert (scaling["Original"]["TargetCount"], scaling["Desired"]["TargetCount"]) == (2, 4)
    sim.advance(1800)
    assert client.describe_cluster_operation(ClusterName="eks", OperationId=first["OperationId"])["Status"] == "Done"
    client.batch_add_cluster_nodes(ClusterName="eks", NodesToAdd=[{"InstanceGroupName": "pool", "IncrementTargetCountBy": 1}])
    client.batch_add_cluster_nodes(ClusterName="eks", NodesToAdd=[{"InstanceGroupName": "pool", "IncrementTargetCountBy": 1}])
    listed = client.list_cluster_operations(ClusterName="eks", SortOrder="Descending", MaxResults=2)
    assert [s["Status"] for s in listed["ClusterOperationSummaries"]] == ["InProgress", "Superseded"] and listed["NextToken"]


def _release(client, name="eks"):
    return groups_of(client, name)["pool"].get("CurrentImageReleaseVersion")


def test_a_new_release_is_applied_at_the_groups_scheduled_update_time(make_sim):
    import datetime as dt

    sim, client = _eks(make_sim, count=2, ScheduledUpdateConfig={"ScheduleExpression": "cron(0 3 ? * SUN *)"})
    sim.publish_image_release("2026.12.1")
    now = sim.now()
    sunday_3am = (now + dt.timedelta(days=(6 - now.weekday()) % 7)).replace(hour=3, minute=0, second=0, microsecond=0)
    if sunday_3am <= now:
        sunday_3am += dt.timedelta(days=7)
    sim.advance((sunday_3am - now).total_seconds() - 60)
    assert _release(client) is None and set(_statuses(client, "eks").values()) == {"Running"}
    sim.advance(120)
    assert set(_statuses(client, "eks").values()) == {"SystemUpdating"}
    sim.advance(1000)
    assert _release(client) == "2026.12.1"
    assert any("scheduled update to HyperPod AMI release 2026.12.1" in e["Description"] for e in events_of(client, "eks"))


def test_automatic_patching_applies_a_release_after_the_patch_delay_in_batches(make_sim):
    sim, client = _eks(
        make_sim,
        count=4,
        AutoPatchConfig={
            "PatchingStrategy": "WhenIdle",
            "DeploymentConfig": {"RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 2}}},
        },
    )
    sim.publish_image_release("2026.12.1")
    sim.advance(86400 - 60)
    assert _release(client) is None
    sim.advance(120)
    assert sorted(_statuses(client, "eks").values()) == ["Running", "Running", "SystemUpdating", "SystemUpdating"]
    sim.advance(3600)
    assert _release(client) == "2026.12.1"


def test_aws_cron_expressions_name_their_next_time():
    import datetime as dt

    from pulumi_hyperpod.sim.aws.patching import next_fire

    monday = dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc).timestamp()
    assert dt.datetime.fromtimestamp(next_fire("cron(0 3 ? * SUN *)", monday), dt.timezone.utc) == dt.datetime(
        2026, 12, 6, 3, tzinfo=dt.timezone.utc
    )
    assert dt.datetime.fromtimestamp(next_fire("cron(30 1 ? * 2 *)", monday), dt.timezone.utc) == dt.datetime(
        2026, 12, 7, 1, 30, tzinfo=dt.timezone.utc
    )  # 2 = MON in AWS cron
    assert next_fire("rate(5 minutes)", monday) is None


@pytest.mark.parametrize(
    "expression, fires",
    [
        ("cron(0 3 ? * MON#1 *)", (2026, 12, 7, 3)),  # the month's first Monday: `#1` is a count, not a day
        ("cron(0 3 ? * 2#1 *)", (2026, 12, 7, 3)),
        ("cron(0 3 ? * SUN 2027-2029)", (2027, 1, 3, 3)),  # a year range: the first Sunday it allows
        ("cron(0 3 1 * ? 2028,2030)", (2028, 1, 1, 3)),
    ],
)
def test_aws_cron_counts_and_year_ranges_are_read(expression, fires):
    """A schedule naming the nth weekday or a range of years fired never (issue 37: the simulator's
    scheduler and the spec's cron rule disagreed on them)."""
    import datetime as dt

    from pulumi_hyperpod.sim.aws.patching import next_fire

    monday = dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc).timestamp()
    assert dt.datetime.fromtimestamp(next_fire(expression, monday), dt.timezone.utc) == dt.datetime(*fires, tzinfo=dt.timezone.utc)


def test_a_spot_interruption_takes_the_instance_and_the_service_puts_a_new_one_in(make_sim):
    sim, client = make_sim()
    client.create_cluster(
        **eks_request("eks", [group("spot", 2, "ml.g5.xlarge", CapacityRequirements={"Spot": {}}), group("steady", 1, "ml.g5.xlarge")])
    )
    sim.advance(1800)
    spot = next(n for n in nodes_of(client, "eks", True) if n["InstanceGroupName"] == "spot")
    detail = client.describe_cluster_node(ClusterName="eks", NodeId=spot["InstanceId"])["NodeDetails"]
    assert detail["CapacityType"] == "Spot"
    steady = next(n for n in nodes_of(client, "eks") if n["InstanceGroupName"] == "steady")
    with pytest.raises(ValueError, match="not a Spot instance"):
        sim.interrupt_spot("eks", steady["InstanceId"])
    sim.interrupt_spot("eks", spot["InstanceId"])
    assert _statuses(client, "eks")[spot["InstanceId"]] == "NotFound"
    assert any(e["EventLevel"] == "Warn" and "Spot Instance interruption" in e["Description"] for e in events_of(client, "eks"))
    sim.advance(1200)
    slot = next(n for n in nodes_of(client, "eks", True) if n["NodeLogicalId"] == spot["NodeLogicalId"])
    assert slot["InstanceId"] not in ("", spot["InstanceId"]) and slot["InstanceStatus"]["Status"] == "Running"
