"""Seed 004 (update-cluster scale-out 1→3, scale-in 3→1, sinfo) and all-or-nothing provisioning."""

from __future__ import annotations

import re

import pytest
from botocore.exceptions import ClientError

from tests.support.sim_helpers import (
    SEED004_SCENARIO,
    advance_until,
    cluster_status,
    eks_request,
    group,
    groups_of,
    nodes_of,
    seed004_groups,
    statuses,
)

NAME = "leo-stg-hyperpod-cluster"
SINFO_HEADER = "PARTITION   AVAIL  TIMELIMIT  NODES  STATE NODELIST"
ROW = re.compile(r"^(?P<partition>\S+)\s+up\s+infinite\s+(?P<nodes>\d+)\s+idle (?P<list>ip-[\d-]+(,ip-[\d-]+)*)$")


def _compute_hosts(client) -> set[str]:
    return {
        n["PrivateDnsHostname"].split(".")[0]
        for n in nodes_of(client, NAME)
        if n["InstanceGroupName"] == "leo-stg-compute-ig" and n["InstanceStatus"]["Status"] == "Running"
    }


def _sinfo(sim) -> dict[str, tuple[int, set[str]]]:
    lines = sim.sinfo(NAME).splitlines()
    assert lines[0] == SINFO_HEADER
    rows = {}
    for line in lines[1:]:
        match = ROW.match(line)
        assert match, f"not an sinfo row: {line!r}"
        rows[match["partition"]] = (int(match["nodes"]), set(match["list"].split(",")))
    return rows


def test_seed004_scale_out_1_to_3_then_scale_in_3_to_1_shows_in_sinfo(make_sim):
    sim, client = make_sim(SEED004_SCENARIO)
    client.create_cluster(ClusterName=NAME, InstanceGroups=seed004_groups(1))
    advance_until(sim, lambda: cluster_status(client, NAME) == "InService")
    original = _compute_hosts(client)
    assert _sinfo(sim) == {"dev*": (1, original), "partition-1": (1, original)}

    client.update_cluster(ClusterName=NAME, InstanceGroups=seed004_groups(3))
    assert cluster_status(client, NAME) == "Updating"
    assert statuses(client, NAME, "leo-stg-compute-ig") == ["Pending", "Pending", "Running"]
    waited = advance_until(sim, lambda: cluster_status(client, NAME) == "InService")
    assert 0 < waited <= 600, "a few minutes, as in the seed"
    three = _compute_hosts(client)
    assert len(three) == 3 and original < three
    assert _sinfo(sim) == {"dev*": (3, three), "partition-1": (3, three)}

    client.update_cluster(ClusterName=NAME, InstanceGroups=seed004_groups(1))
    assert cluster_status(client, NAME) == "Updating"
    assert statuses(client, NAME, "leo-stg-compute-ig") == ["Running", "ShuttingDown", "ShuttingDown"]
    advance_until(sim, lambda: cluster_status(client, NAME) == "InService")
    assert _sinfo(sim) == {"dev*": (1, original), "partition-1": (1, original)}, "the newest nodes were removed"
    compute = groups_of(client, NAME)["leo-stg-compute-ig"]
    assert (compute["CurrentCount"], compute["TargetCount"]) == (1, 1)
    assert "MinCount" not in compute, "MinCount is a Continuous-mode field"


def _awsome_groups() -> list[dict]:
    """awsome-distributed-training's legacy layout: the login group is written first, then the
    controller, then the workers; no SlurmConfig, and (here) no provisioning_parameters.json."""
    login, workers = seed004_groups(2)
    controller = {**login, "InstanceGroupName": "controller-machine"}
    return [{**login, "InstanceGroupName": "login-group"}, controller, workers]


def test_legacy_cluster_without_provisioning_parameters_has_no_invented_roles(sim, client):
    """Issue 37, item 4: with no SlurmConfig and no provisioning_parameters.json nothing the cluster
    states names a role, so the simulator names none: no controller protected (the service protects
    only a controller it knows), no partitions, no slurmctld host; every group provisions."""
    client.create_cluster(ClusterName=NAME, InstanceGroups=_awsome_groups())
    advance_until(sim, lambda: cluster_status(client, NAME) == "InService")
    assert {g: c["CurrentCount"] for g, c in groups_of(client, NAME).items()} == {
        "login-group": 1,
        "controller-machine": 1,
        "leo-stg-compute-ig": 2,
    }
    assert "SlurmctldHost=" not in sim.slurm_conf(NAME)
    assert all(not row["nodes"] for row in sim.sinfo_rows(NAME)), "no group is known to be compute"
    login = next(n for n in nodes_of(client, NAME) if n["InstanceGroupName"] == "login-group")
    client.batch_delete_cluster_nodes(ClusterName=NAME, NodeIds=[login["InstanceId"]])  # not taken for a controller
    advance_until(sim, lambda: cluster_status(client, NAME) == "InService")
    client.update_cluster(ClusterName=NAME, InstanceGroups=_awsome_groups()[1:], InstanceGroupsToDelete=["login-group"])


def test_legacy_cluster_with_two_groups_that_look_like_controllers_is_not_refused(sim, client):
    """Two groups, no bundle: the simulator does not guess which is the controller, so it refuses
    neither the create nor deleting one of them (the planner calls both roles unknown)."""
    groups = _awsome_groups()[:2]
    client.create_cluster(ClusterName=NAME, InstanceGroups=groups)
    advance_until(sim, lambda: cluster_status(client, NAME) == "InService")
    client.update_cluster(ClusterName=NAME, InstanceGroups=groups[1:], InstanceGroupsToDelete=["login-group"])


# -- all-or-nothing (default) ---------------------------------------------------------------------
def test_all_or_nothing_create_fails_when_any_group_cannot_be_fully_provisioned(make_sim):
    sim, client = make_sim({"capacity": [{"instance_type": "ml.g5.xlarge", "available": 2}]})
    client.create_cluster(ClusterName=NAME, InstanceGroups=seed004_groups(3))
    advance_until(sim, lambda: cluster_status(client, NAME) != "Creating")
    cluster = client.describe_cluster(ClusterName=NAME)
    assert cluster["ClusterStatus"] == "Failed"
    assert "leo-stg-compute-ig" in cluster["FailureMessage"] and "ml.g5.xlarge" in cluster["FailureMessage"]
    assert set(statuses(client, NAME)) <= {"ShuttingDown"}
    sim.advance(60)
    assert nodes_of(client, NAME, True) == [] and groups_of(client, NAME)["leo-stg-compute-ig"]["Status"] == "Failed"


def test_all_or_nothing_update_rolls_back_to_the_previous_counts(make_sim):
    sim, client = make_sim({**SEED004_SCENARIO, "capacity": [{"instance_type": "ml.g5.xlarge", "available": 2}]})
    client.create_cluster(ClusterName=NAME, InstanceGroups=seed004_groups(1))
    advance_until(sim, lambda: cluster_status(client, NAME) == "InService")
    before = _compute_hosts(client)
    client.update_cluster(ClusterName=NAME, InstanceGroups=seed004_groups(3))
    assert cluster_status(client, NAME) == "RollingBack", "one more g5 fits, the third does not"
    assert groups_of(client, NAME)["leo-stg-compute-ig"]["TargetCount"] == 1
    advance_until(sim, lambda: cluster_status(client, NAME) == "InService")
    cluster = client.describe_cluster(ClusterName=NAME)
    assert "rolled back" in cluster["FailureMessage"]
    assert _compute_hosts(client) == before and len(nodes_of(client, NAME, True)) == 2


def test_all_or_nothing_rejects_other_mutations_while_updating(sim, client):
    client.create_cluster(ClusterName=NAME, InstanceGroups=seed004_groups(1))
    with pytest.raises(ClientError) as error:
        client.update_cluster(ClusterName=NAME, InstanceGroups=seed004_groups(2))
    assert error.value.response["Error"]["Code"] == "ConflictException"
    advance_until(sim, lambda: cluster_status(client, NAME) == "InService")
    client.update_cluster(ClusterName=NAME, InstanceGroups=seed004_groups(2))
    node = nodes_of(client, NAME)[-1]
    for call in (
        lambda: client.update_cluster(ClusterName=NAME, InstanceGroups=seed004_groups(3)),
        lambda: client.batch_delete_cluster_nodes(ClusterName=NAME, NodeIds=[node["InstanceId"]]),
    ):
        with pytest.raises(ClientError) as error:
            call()
        assert error.value.response["Error"]["Code"] == "ConflictException"
        assert "Updating" in error.value.response["Error"]["Message"]


def test_configuration_changes_are_recorded_and_nodes_remember_what_built_them(sim, client):
    client.create_cluster(ClusterName=NAME, InstanceGroups=seed004_groups(1))
    advance_until(sim, lambda: cluster_status(client, NAME) == "InService")
    groups = seed004_groups(2)
    groups[1]["LifeCycleConfig"]["OnCreate"] = "on_create_v2.sh"  # ThreadsPerCore is create-only (test_sim_members.py)
    client.update_cluster(ClusterName=NAME, InstanceGroups=groups)
    advance_until(sim, lambda: cluster_status(client, NAME) == "InService")
    assert groups_of(client, NAME)["leo-stg-compute-ig"]["LifeCycleConfig"]["OnCreate"] == "on_create_v2.sh"
    built = [
        (b["BuiltWith"]["LifeCycleConfig"]["OnCreate"], b["BuiltWith"]["ThreadsPerCore"])
        for b in sim.node_build_configs(NAME)
        if b["InstanceGroupName"] == "leo-stg-compute-ig"
    ]
    assert built == [("on_create.sh", 2), ("on_create_v2.sh", 2)]
    assert set(sim.node_build_configs(NAME)[0]["BuiltWith"]) == {
        "LifeCycleConfig",
        "ExecutionRole",
        "ThreadsPerCore",
        "InstanceStorageConfigs",
        "ImageId",
        "ImageReleaseVersion",  # the HyperPod AMI release it was launched on (fake/images.py)
    }


def test_instance_groups_to_delete_removes_a_group(sim, client):
    client.create_cluster(**eks_request("eks-del", [group("a", 1), group("b", 2)]))
    sim.advance(300)
    client.update_cluster(ClusterName="eks-del", InstanceGroupsToDelete=["b"])
    assert groups_of(client, "eks-del")["b"]["Status"] == "Deleting"
    assert statuses(client, "eks-del", "b") == ["ShuttingDown", "ShuttingDown"]
    sim.advance(60)
    assert set(groups_of(client, "eks-del")) == {"a"}


def test_delete_cluster_goes_deleting_then_not_found(sim, client):
    client.create_cluster(**eks_request("doomed", [group("a", 2)]))
    sim.advance(300)
    client.delete_cluster(ClusterName="doomed")
    assert cluster_status(client, "doomed") == "Deleting"
    assert statuses(client, "doomed") == ["ShuttingDown", "ShuttingDown"]
    sim.advance(60)
    with pytest.raises(ClientError) as error:
        client.describe_cluster(ClusterName="doomed")
    assert error.value.response["Error"]["Code"] == "ResourceNotFound"
    assert sim.billing("doomed")["groups"]["a"]["billed_seconds"] == 2 * 210, "cost survives the cluster"


def test_scale_in_chooses_unhealthy_then_never_launched_then_newest(make_sim):
    sim, client = make_sim({"capacity": [{"instance_type": "ml.c5.xlarge", "available": 3}]})
    client.create_cluster(**eks_request("pick", [group("w", 2)]))
    sim.advance(300)
    client.update_cluster(ClusterName="pick", InstanceGroups=[group("w", 3)])
    sim.advance(300)
    first, second, newest = sorted(nodes_of(client, "pick"), key=lambda n: n["LaunchTime"])
    sim.fail_node("pick", second["InstanceId"], retryable=False)
    client.update_cluster(ClusterName="pick", InstanceGroups=[group("w", 5)])  # 2 more: no capacity left
    assert len([n for n in nodes_of(client, "pick", True) if n["InstanceId"] == ""]) == 2
    client.update_cluster(ClusterName="pick", InstanceGroups=[group("w", 2)])
    remaining = {n["InstanceId"] for n in nodes_of(client, "pick", True) if n["InstanceStatus"]["Status"] != "ShuttingDown"}
    assert remaining == {first["InstanceId"], newest["InstanceId"]}, "unhealthy and never-launched went first"
    client.update_cluster(ClusterName="pick", InstanceGroups=[group("w", 1)])
    remaining = {n["InstanceId"] for n in nodes_of(client, "pick", True) if n["InstanceStatus"]["Status"] != "ShuttingDown"}
    assert remaining == {first["InstanceId"]}, "then the newest"
