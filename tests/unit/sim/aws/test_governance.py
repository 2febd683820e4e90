"""Task governance in the simulator (sim/aws/governance.py), through the real botocore client: compute
quotas and the scheduler configuration created, versioned, updated under TargetVersion, deleted, listed,
and kept by a persistent world; the refusals the model and the task governance guide name."""

from __future__ import annotations

import botocore.exceptions
import pytest

from pulumi_hyperpod.sim.aws import Simulator
from tests.support.sim_helpers import eks_request, group, seed000_request

QUOTA_CONFIG = {
    "ComputeQuotaResources": [{"InstanceType": "ml.g5.8xlarge", "Count": 2}],
    "ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": 50},
    "PreemptTeamTasks": "LowerPriority",
}


def _eks(make_sim):
    sim, client = make_sim({"speed": 0})
    client.create_cluster(**eks_request("ml", [group("workers", 4, "ml.g5.8xlarge")]))
    sim.advance(1200)
    return sim, client, client.describe_cluster(ClusterName="ml")["ClusterArn"]


def _quota(client, cluster: str, name: str = "team-a", **extra) -> dict:
    return client.create_compute_quota(
        Name=name,
        ClusterArn=cluster,
        ComputeQuotaConfig=QUOTA_CONFIG,
        ComputeQuotaTarget={"TeamName": name, "FairShareWeight": 10},
        **extra,
    )


def _code(error: pytest.ExceptionInfo) -> str:
    return error.value.response["Error"]["Code"]


def test_a_quota_is_created_then_updated_under_its_version_then_deleted_and_gone(make_sim):
    sim, client, cluster = _eks(make_sim)
    made = _quota(client, cluster, Description="first")
    region_account = "us-west-2:123456789012"
    assert made["ComputeQuotaArn"] == f"arn:aws:sagemaker:{region_account}:compute-quota/{made['ComputeQuotaId']}"
    described = client.describe_compute_quota(ComputeQuotaId=made["ComputeQuotaId"])
    assert (described["Status"], described["ComputeQuotaVersion"], described["ActivationState"]) == ("Creating", 1, "Enabled")
    assert described["ComputeQuotaConfig"] == QUOTA_CONFIG and described["ClusterArn"] == cluster
    with pytest.raises(botocore.exceptions.ClientError) as busy:  # a change while it is created
        client.update_compute_quota(ComputeQuotaId=made["ComputeQuotaId"], TargetVersion=1, Description="x")
    assert _code(busy) == "ConflictException"
    sim.advance(30)
    assert client.describe_compute_quota(ComputeQuotaId=made["ComputeQuotaId"])["Status"] == "Created"

    with pytest.raises(botocore.exceptions.ClientError) as stale:
        client.update_compute_quota(ComputeQuotaId=made["ComputeQuotaId"], TargetVersion=2, Description="second")
    assert _code(stale) == "ConflictException"
    answer = client.update_compute_quota(ComputeQuotaId=made["ComputeQuotaId"], TargetVersion=1, Description="second")
    assert answer["ComputeQuotaVersion"] == 2
    updated = client.describe_compute_quota(ComputeQuotaId=made["ComputeQuotaId"])
    assert (updated["Status"], updated["Description"], updated["ComputeQuotaConfig"]) == ("Updating", "second", QUOTA_CONFIG)
    sim.advance(30)
    assert client.describe_compute_quota(ComputeQuotaId=made["ComputeQuotaId"])["Status"] == "Updated"

    client.delete_compute_quota(ComputeQuotaId=made["ComputeQuotaId"])
    assert [q["Status"] for q in client.list_compute_quotas(ClusterArn=cluster)["ComputeQuotaSummaries"]] == ["Deleting"]
    sim.advance(30)
    assert client.list_compute_quotas(ClusterArn=cluster)["ComputeQuotaSummaries"] == []
    with pytest.raises(botocore.exceptions.ClientError) as gone:
        client.describe_compute_quota(ComputeQuotaId=made["ComputeQuotaId"])
    assert _code(gone) == "ResourceNotFound"


def test_names_are_unique_per_cluster_and_the_list_filters_and_sorts(make_sim):
    sim, client, cluster = _eks(make_sim)
    _quota(client, cluster, "team-b")
    sim.advance(5)
    _quota(client, cluster, "team-a")
    with pytest.raises(botocore.exceptions.ClientError) as twice:
        _quota(client, cluster, "team-a")
    assert _code(twice) == "ConflictException"
    listed = client.list_compute_quotas(ClusterArn=cluster)["ComputeQuotaSummaries"]
    assert [q["Name"] for q in listed] == ["team-a", "team-b"]  # the model's default: newest first (Descending)
    by_name = client.list_compute_quotas(SortBy="Name", SortOrder="Ascending")["ComputeQuotaSummaries"]
    assert [q["Name"] for q in by_name] == ["team-a", "team-b"]
    assert [q["Name"] for q in client.list_compute_quotas(NameContains="b")["ComputeQuotaSummaries"]] == ["team-b"]
    page = client.list_compute_quotas(MaxResults=1)
    assert len(page["ComputeQuotaSummaries"]) == 1 and page["NextToken"]


def test_one_scheduler_config_per_cluster_versioned_like_a_quota(make_sim):
    sim, client, cluster = _eks(make_sim)
    config = {"PriorityClasses": [{"Name": "inference", "Weight": 90}, {"Name": "training", "Weight": 10}], "FairShare": "Enabled"}
    made = client.create_cluster_scheduler_config(Name="policy", ClusterArn=cluster, SchedulerConfig=config)
    assert made["ClusterSchedulerConfigArn"].endswith(f":cluster-scheduler-config/{made['ClusterSchedulerConfigId']}")
    with pytest.raises(botocore.exceptions.ClientError) as second:
        client.create_cluster_scheduler_config(Name="other", ClusterArn=cluster, SchedulerConfig=config)
    assert _code(second) == "ConflictException"
    sim.advance(30)
    client.update_cluster_scheduler_config(
        ClusterSchedulerConfigId=made["ClusterSchedulerConfigId"], TargetVersion=1, SchedulerConfig={**config, "FairShare": "Disabled"}
    )
    described = client.describe_cluster_scheduler_config(ClusterSchedulerConfigId=made["ClusterSchedulerConfigId"])
    assert (described["ClusterSchedulerConfigVersion"], described["SchedulerConfig"]["FairShare"]) == (2, "Disabled")
    assert [s["Name"] for s in client.list_cluster_scheduler_configs(ClusterArn=cluster)["ClusterSchedulerConfigSummaries"]] == ["policy"]


def test_bad_requests_and_clusters_that_cannot_take_task_governance_are_refused(make_sim):
    _sim, client, cluster = _eks(make_sim)
    client.create_cluster(**seed000_request("slurm", workers=1))
    slurm = client.describe_cluster(ClusterName="slurm")["ClusterArn"]
    with pytest.raises(botocore.exceptions.ClientError) as not_eks:
        _quota(client, slurm)
    assert _code(not_eks) == "ValidationException" and "EKS" in str(not_eks.value)
    with pytest.raises(botocore.exceptions.ClientError) as missing:
        _quota(client, cluster.replace(cluster[-12:], "a" * 12))
    assert _code(missing) == "ResourceNotFound"
    with pytest.raises(botocore.exceptions.ClientError) as strategy:  # the model's enum
        client.create_compute_quota(
            Name="x",
            ClusterArn=cluster,
            ComputeQuotaConfig={"ResourceSharingConfig": {"Strategy": "Share"}},
            ComputeQuotaTarget={"TeamName": "x"},
        )
    assert _code(strategy) == "ValidationException" and "ComputeQuotaConfig.ResourceSharingConfig.Strategy" in str(strategy.value)


def test_a_persistent_world_keeps_quotas_and_scheduler_configs(tmp_path):
    path = tmp_path / "w.sqlite"
    sim = Simulator(path, scenario={"speed": 0})
    client = sim.client()
    client.create_cluster(**eks_request("ml", [group("workers", 2, "ml.g5.8xlarge")]))
    cluster = client.describe_cluster(ClusterName="ml")["ClusterArn"]
    made = _quota(client, cluster)
    again = Simulator(path)
    assert again.client().describe_compute_quota(ComputeQuotaId=made["ComputeQuotaId"])["Name"] == "team-a"
