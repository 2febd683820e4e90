"""Seed 000 (Slurm continuous provisioning), paragraph by paragraph, through a real boto3 client.

Default timing: an instance boots for 90 s, its lifecycle script runs 210 s, retries every 300 s.
"""

from __future__ import annotations

import datetime as dt

import pytest
from botocore.exceptions import ClientError

from tests.support.sim_helpers import advance_until, cluster_status, events_of, groups_of, nodes_of, seed000_request, slurm_group, statuses

NAME = "my-training-cluster"
T0 = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


def _launch_times(client, group: str) -> set:
    return {n["LaunchTime"] for n in nodes_of(client, NAME) if n["InstanceGroupName"] == group}


# -- 工作原理 / Priority-based 配置 ----------------------------------------------------------------
def test_priority_controller_first_then_login_and_workers_in_parallel(sim, client):
    client.create_cluster(**seed000_request())
    launched = nodes_of(client, NAME)
    assert [n["InstanceGroupName"] for n in launched] == ["controller-group"], "only the controller launches first"
    waiting = [n for n in nodes_of(client, NAME, True) if n["InstanceGroupName"] != "controller-group"]
    assert len(waiting) == 17 and all(n["InstanceId"] == "" for n in waiting)
    assert {n["InstanceStatus"]["Message"] for n in waiting} == {"Waiting for a healthy controller node"}

    sim.advance(299)
    assert cluster_status(client, NAME) == "Creating"
    assert len(nodes_of(client, NAME)) == 1
    sim.advance(1)  # controller's lifecycle script done at 300 s: login and workers launch together
    assert statuses(client, NAME, "controller-group") == ["Running"]
    assert _launch_times(client, "login-group") == _launch_times(client, "worker-gpu-a") == {T0 + dt.timedelta(seconds=300)}
    assert cluster_status(client, NAME) == "Creating", "InService waits for a login node too"
    sim.advance(299)
    assert cluster_status(client, NAME) == "Creating"
    sim.advance(1)
    assert cluster_status(client, NAME) == "InService"
    groups = groups_of(client, NAME)
    assert {n: (g["CurrentCount"], g["TargetCount"], g["MinCount"]) for n, g in groups.items()} == {
        "controller-group": (1, 1, 1),
        "login-group": (1, 1, 1),
        "worker-gpu-a": (16, 16, 0),
    }


def test_without_login_group_in_service_as_soon_as_controller_is_up(sim, client):
    client.create_cluster(**seed000_request(login=False, workers=4))
    sim.advance(300)
    assert cluster_status(client, NAME) == "InService"
    assert groups_of(client, NAME)["worker-gpu-a"]["CurrentCount"] == 0, "workers still starting"


def test_partial_capacity_accepted_and_the_rest_retried_async(make_sim):
    sim, client = make_sim({"capacity": [{"instance_type": "ml.p5.48xlarge", "available": 12}]})
    client.create_cluster(**seed000_request())
    sim.advance(600)
    assert cluster_status(client, NAME) == "InService"
    worker = groups_of(client, NAME)["worker-gpu-a"]
    assert (worker["CurrentCount"], worker["TargetCount"], worker["Status"]) == (12, 16, "InService")
    assert worker["ActiveOperations"] == {"Scaling": 1}
    pending = [n for n in nodes_of(client, NAME, True) if n["InstanceId"] == ""]
    assert len(pending) == 4 and all("sufficient capacity" in n["InstanceStatus"]["Message"] for n in pending)
    warnings = [e for e in events_of(client, NAME, InstanceGroupName="worker-gpu-a") if e["EventLevel"] == "Warn"]
    assert len(warnings) >= 4 and warnings[0]["Description"].startswith("Failed to provision EC2 Instance")

    sim.set_capacity("ml.p5.48xlarge", None, 4)  # capacity frees up; the next retry takes it
    waited = advance_until(sim, lambda: groups_of(client, NAME)["worker-gpu-a"]["CurrentCount"] == 16, step=60)
    assert waited <= 300 + 300 + 60, "picked up by the next async retry"
    assert "ActiveOperations" not in groups_of(client, NAME)["worker-gpu-a"]


# -- 控制器故障处理 ----------------------------------------------------------------------------------
def test_controller_retryable_failure_is_replaced_until_up_while_workers_stay_usable(sim, client):
    client.create_cluster(**seed000_request(workers=4))
    sim.advance(300)
    controller = nodes_of(client, NAME, True)[0]
    sim.advance(10)
    sim.fail_node(NAME, controller["InstanceId"], retryable=True)
    sim.advance(290)  # t = 600: login and workers are up, the controller is not
    assert statuses(client, NAME, "worker-gpu-a") == ["Running"] * 4
    assert statuses(client, NAME, "login-group") == ["Running"]
    assert cluster_status(client, NAME) == "Creating", "not InService until the controller is healthy"
    advance_until(sim, lambda: cluster_status(client, NAME) == "InService")
    replaced = [n for n in nodes_of(client, NAME, True) if n["InstanceGroupName"] == "controller-group"]
    assert replaced[0]["NodeLogicalId"] == controller["NodeLogicalId"]
    assert replaced[0]["InstanceId"] != controller["InstanceId"], "a new instance behind the same logical node"


def test_controller_without_capacity_fails_the_cluster_with_the_reason(make_sim):
    sim, client = make_sim({"capacity": [{"instance_type": "ml.m5.xlarge", "availability_zone": "us-west-2a", "available": 0}]})
    client.create_cluster(**seed000_request(workers=4))
    cluster = client.describe_cluster(ClusterName=NAME)
    assert cluster["ClusterStatus"] == "Failed"
    assert "Controller instance group controller-group" in cluster["FailureMessage"]
    assert "sufficient capacity to launch new ml.m5.xlarge" in cluster["FailureMessage"]
    assert nodes_of(client, NAME) == [], "no worker was ever launched"
    assert sim.billing(NAME)["instances"] == []
    with pytest.raises(ClientError) as error:
        client.update_cluster(ClusterName=NAME, InstanceGroups=[slurm_group("x", "Compute", 1)])
    assert error.value.response["Error"]["Code"] == "ConflictException"


def test_controller_lifecycle_script_failure_fails_the_cluster(make_sim):
    sim, client = make_sim({"faults": {"per_group": {"controller-group": {"lifecycle_failure_rate": 1.0}}}})
    client.create_cluster(**seed000_request(workers=2))
    sim.advance(300)
    cluster = client.describe_cluster(ClusterName=NAME)
    assert cluster["ClusterStatus"] == "Failed"
    assert "Lifecycle script on_create.sh failed" in cluster["FailureMessage"]
    sim.advance(120)
    assert nodes_of(client, NAME, True) == [], "a failed create terminates its instances"
    records = sim.billing(NAME)["instances"]
    assert [(r["instance_group"], r["billed_seconds"]) for r in records] == [("controller-group", 210.0)]


# -- 使用计量 ----------------------------------------------------------------------------------------
def test_metering_starts_with_the_lifecycle_script_and_stops_at_termination(sim, client):
    client.create_cluster(**seed000_request(workers=2))
    sim.advance(600)
    worker = next(n for n in nodes_of(client, NAME) if n["InstanceGroupName"] == "worker-gpu-a")
    sim.advance(3600)
    client.batch_delete_cluster_nodes(ClusterName=NAME, NodeIds=[worker["InstanceId"]])
    sim.advance(3600)
    record = {r["instance_id"]: r for r in sim.billing(NAME)["instances"]}[worker["InstanceId"]]
    assert record["billing_start"] == worker["LaunchTime"] + dt.timedelta(seconds=90)
    assert record["billing_end"] == T0 + dt.timedelta(seconds=600 + 3600)
    assert record["billed_seconds"] == 3600 + 600 - 300 - 90
    totals = sim.billing(NAME)["groups"]["worker-gpu-a"]
    assert totals["instances"] == 2 and totals["billed_seconds"] == record["billed_seconds"] + (600 + 7200 - 390)


def test_metering_never_bills_failed_launches_and_bills_lifecycle_failures_for_the_script_time(make_sim):
    sim, client = make_sim(
        {
            "capacity": [{"instance_type": "ml.p5.48xlarge", "available": 1}],
            "faults": {"per_group": {"worker-gpu-a": {"lifecycle_failure_rate": 1.0}}},
        }
    )
    client.create_cluster(**seed000_request(workers=3))
    sim.advance(300 + 300 + 300 + 300)  # two lifecycle failures (each retried after 300 s)
    records = [r for r in sim.billing(NAME)["instances"] if r["instance_group"] == "worker-gpu-a"]
    assert len(records) == 2, "one instance of capacity, so one attempt at a time; the others never billed"
    assert all(r["billed_seconds"] == 210.0 for r in records), "billed for the script's run time only"
    assert all(r["billing_end"] is not None for r in records)
    failures = [e for e in events_of(client, NAME, ResourceType="Instance") if e["EventLevel"] == "Error"]
    assert failures and all("has Failed" in e["Description"] for e in failures)


# -- Slurm 配置管理 (merge mode) -------------------------------------------------------------------
def test_merge_mode_keeps_manual_slurm_conf_edits_and_regenerates_partition_lines(sim, client):
    client.create_cluster(**seed000_request(workers=2))
    sim.advance(600)
    conf = sim.slurm_conf(NAME)
    assert conf.count("NodeName=") == 2 and "PartitionName=gpu-training Nodes=ip-" in conf
    edited = conf.replace("SchedulerType=sched/backfill", "SchedulerType=sched/backfill\nSchedulerParameters=bf_continue")
    edited = (
        "\n".join(
            line.replace("MaxTime=INFINITE", "MaxTime=24:00:00") if line.startswith("PartitionName=gpu-training") else line
            for line in edited.splitlines()
        )
        + "\n"
    )
    edited += "PartitionName=debug Nodes=ip-10-9-9-9 MaxTime=00:30:00\n# my note\n"
    sim.edit_slurm_conf(NAME, edited)

    client.batch_add_cluster_nodes(ClusterName=NAME, NodesToAdd=[{"InstanceGroupName": "worker-gpu-a", "IncrementTargetCountBy": 2}])
    sim.advance(300)
    conf = sim.slurm_conf(NAME)
    assert "SchedulerParameters=bf_continue" in conf and "# my note" in conf
    assert "PartitionName=debug Nodes=ip-10-9-9-9 MaxTime=00:30:00" in conf, "a user's own partition is kept"
    assert conf.count("NodeName=") == 4, "managed node lines follow group membership"
    gpu_line = next(line for line in conf.splitlines() if line.startswith("PartitionName=gpu-training"))
    assert "MaxTime=24:00:00" in gpu_line and gpu_line.count("ip-") == 4
    rows = {row["partition"]: row for row in sim.sinfo_rows(NAME)}
    assert rows["gpu-training"]["timelimit"] == "24:00:00" and rows["dev"]["nodes"] == 4


# -- 最低容量要求 (MinCount) ------------------------------------------------------------------------
def test_controller_and_login_default_to_min_count_1_at_creation(sim, client):
    request = seed000_request(workers=2)
    request["InstanceGroups"][2]["MinInstanceCount"] = 1
    client.create_cluster(**request)
    groups = groups_of(client, NAME)
    assert {n: (g["MinCount"], g["Status"]) for n, g in groups.items()} == {
        "controller-group": (1, "Creating"),
        "login-group": (1, "Creating"),
        "worker-gpu-a": (1, "Creating"),
    }
    sim.advance(600)
    assert {g["Status"] for g in groups_of(client, NAME).values()} == {"InService"}
    reached = [e for e in events_of(client, NAME, ResourceType="InstanceGroup") if "reached minimum capacity" in e["Description"]]
    assert {e["InstanceGroupName"] for e in reached} == {"controller-group", "login-group", "worker-gpu-a"}


def _in_service_cluster(make_sim, capacity: int):
    sim, client = make_sim({"capacity": [{"instance_type": "ml.g5.xlarge", "available": capacity}]})
    client.create_cluster(**seed000_request(workers=2, worker_type="ml.g5.xlarge"))
    sim.advance(600)
    assert cluster_status(client, NAME) == "InService"
    return sim, client


def test_mincount_new_group_stays_creating_blocks_batch_ops_then_rolls_back_to_zero_after_3h(make_sim):
    sim, client = _in_service_cluster(make_sim, capacity=4)
    client.update_cluster(
        ClusterName=NAME, InstanceGroups=[slurm_group("worker-group-2", "Compute", 6, "ml.g5.xlarge", ["p2"], MinInstanceCount=4)]
    )
    sim.advance(300)
    group = groups_of(client, NAME)["worker-group-2"]
    assert (group["Status"], group["CurrentCount"], group["TargetCount"], group["MinCount"]) == ("Creating", 2, 6, 4)

    added = client.batch_add_cluster_nodes(
        ClusterName=NAME, NodesToAdd=[{"InstanceGroupName": "worker-group-2", "IncrementTargetCountBy": 1}]
    )
    assert added["Successful"] == [] and added["Failed"][0]["ErrorCode"] == "InvalidInstanceGroupStatus"
    node = next(n for n in nodes_of(client, NAME) if n["InstanceGroupName"] == "worker-group-2")
    deleted = client.batch_delete_cluster_nodes(ClusterName=NAME, NodeIds=[node["InstanceId"]])
    assert deleted["Failed"][0]["Code"] == "InvalidNodeStatus" and "Creating" in deleted["Failed"][0]["Message"]

    sim.advance(3 * 3600 - 300 - 1)
    assert groups_of(client, NAME)["worker-group-2"]["Status"] == "Creating"
    sim.advance(1)
    group = groups_of(client, NAME)["worker-group-2"]
    assert (group["Status"], group["TargetCount"], group["MinCount"]) == ("InService", 0, 0)
    assert statuses(client, NAME, "worker-group-2") == ["ShuttingDown", "ShuttingDown"]
    rollback = [e for e in events_of(client, NAME, InstanceGroupName="worker-group-2") if "rollback started" in e["Description"]]
    assert len(rollback) == 1 and rollback[0]["EventLevel"] == "Warn"
    sim.advance(60)
    assert statuses(client, NAME, "worker-group-2") == []


def test_mincount_existing_group_rolls_back_to_last_in_service_values_unhealthy_first(make_sim):
    sim, client = _in_service_cluster(make_sim, capacity=3)
    old = {n["InstanceId"] for n in nodes_of(client, NAME) if n["InstanceGroupName"] == "worker-gpu-a"}
    client.update_cluster(
        ClusterName=NAME, InstanceGroups=[slurm_group("worker-gpu-a", "Compute", 6, "ml.g5.xlarge", ["gpu-training"], MinInstanceCount=5)]
    )
    sim.advance(300)
    group = groups_of(client, NAME)["worker-gpu-a"]
    assert (group["Status"], group["CurrentCount"], group["TargetCount"]) == ("Updating", 3, 6)
    unhealthy = sorted(old)[0]
    sim.fail_node(NAME, unhealthy, retryable=False)
    sim.advance(3 * 3600)
    group = groups_of(client, NAME)["worker-gpu-a"]
    assert (group["Status"], group["TargetCount"], group["MinCount"]) == ("InService", 2, 0)
    sim.advance(60)
    remaining = {n["InstanceId"] for n in nodes_of(client, NAME) if n["InstanceGroupName"] == "worker-gpu-a"}
    newest = remaining - old
    assert unhealthy not in remaining, "unhealthy nodes are terminated first"
    assert remaining == (old - {unhealthy}) | newest and len(remaining) == 2


def test_mincount_timeout_restarts_with_each_mincount_update(make_sim):
    sim, client = _in_service_cluster(make_sim, capacity=2)
    spec = slurm_group("extra", "Compute", 4, "ml.g5.xlarge", ["p3"], MinInstanceCount=2)
    client.update_cluster(ClusterName=NAME, InstanceGroups=[spec])
    sim.advance(2 * 3600)
    client.update_cluster(ClusterName=NAME, InstanceGroups=[{**spec, "MinInstanceCount": 1}])
    sim.advance(3600 + 60)  # 3 h after the first update, 1 h after the second
    assert groups_of(client, NAME)["extra"]["Status"] == "Creating", "timer restarted by the MinCount update"
    sim.advance(2 * 3600)
    group = groups_of(client, NAME)["extra"]
    assert (group["Status"], group["TargetCount"]) == ("InService", 0)


def test_several_scaling_operations_at_once_on_the_same_and_different_groups(sim, client):
    request = seed000_request(workers=2)
    request["InstanceGroups"].append(slurm_group("worker-cpu", "Compute", 1, "ml.c5.xlarge", ["cpu"]))
    client.create_cluster(**request)
    sim.advance(600)
    client.batch_add_cluster_nodes(ClusterName=NAME, NodesToAdd=[{"InstanceGroupName": "worker-gpu-a", "IncrementTargetCountBy": 2}])
    client.batch_add_cluster_nodes(ClusterName=NAME, NodesToAdd=[{"InstanceGroupName": "worker-gpu-a", "IncrementTargetCountBy": 3}])
    client.update_cluster(ClusterName=NAME, InstanceGroups=[slurm_group("worker-cpu", "Compute", 4, "ml.c5.xlarge", ["cpu"])])
    assert cluster_status(client, NAME) == "InService", "clusters stay InService while scaling"
    sim.advance(300)
    groups = groups_of(client, NAME)
    assert (groups["worker-gpu-a"]["CurrentCount"], groups["worker-gpu-a"]["TargetCount"]) == (7, 7)
    assert (groups["worker-cpu"]["CurrentCount"], groups["worker-cpu"]["TargetCount"]) == (4, 4)


def test_controller_node_cannot_be_deleted(sim, client):
    client.create_cluster(**seed000_request(workers=1))
    sim.advance(600)
    controller = next(n for n in nodes_of(client, NAME) if n["InstanceGroupName"] == "controller-group")
    answer = client.batch_delete_cluster_nodes(ClusterName=NAME, NodeIds=[controller["InstanceId"]])
    assert answer["Failed"][0]["Code"] == "InvalidNodeStatus"
    assert "controller node cannot be removed" in answer["Failed"][0]["Message"]
    assert "Successful" not in answer
    with pytest.raises(ClientError) as error:
        client.update_cluster(ClusterName=NAME, InstanceGroupsToDelete=["controller-group"])
    assert "controller group" in error.value.response["Error"]["Message"]
