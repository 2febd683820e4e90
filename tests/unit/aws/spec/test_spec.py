"""The spec: seed documents load unchanged, every documented rule names its field."""

from __future__ import annotations

import copy
import json

import pytest

from pulumi_hyperpod import ClusterSpec, SpecError

from tests.support.factories import LIFECYCLE, ROLE, group
from tests.support.paths import SPECS


def paths(error: SpecError) -> list[str]:
    return [v.path for v in error.violations]


def base(**overrides):
    data = {
        "ClusterName": "c1",
        "NodeProvisioningMode": "Continuous",
        "Orchestrator": {"Slurm": {}},
        "InstanceGroups": [group("ctl", 1, "Controller"), group("login", 1, "Login"), group("w", 4, "Compute", "p1")],
    }
    data.update(overrides)
    return data


def rejects(data, path_fragment: str, rule_fragment: str) -> SpecError:
    with pytest.raises(SpecError) as caught:
        ClusterSpec.from_dict(data)
    matching = [v for v in caught.value.violations if path_fragment in v.path and rule_fragment in v.rule]
    assert matching, f"expected {path_fragment!r}/{rule_fragment!r} in:\n{caught.value}"
    return caught.value


def test_seed_000_create_cluster_json_loads_and_round_trips_unchanged():
    data = json.loads((SPECS / "seed000-create-cluster.json").read_text())
    assert ClusterSpec.from_dict(data).to_api() == data


@pytest.mark.parametrize("name", sorted(p.name for p in SPECS.glob("*.json")))
def test_every_seed_spec_loads(name):
    spec = ClusterSpec.from_file(SPECS / name)
    assert spec.instance_groups


def test_seed_004_update_json_with_its_comment_removed_loads():
    spec = ClusterSpec.from_file(SPECS / "seed004-scale-out.json")
    assert [(g.name, g.instance_count) for g in spec.instance_groups] == [("leo-stg-head-ig", 1), ("leo-stg-compute-ig", 3)]
    assert spec.to_api("UpdateCluster")["InstanceGroups"][1]["InstanceStorageConfigs"] == [{"EbsVolumeConfig": {"VolumeSizeInGB": 30}}]


def test_seed_001_empty_training_plan_means_none():
    spec = ClusterSpec.from_file(SPECS / "seed001-eks-continuous.json")
    assert "TrainingPlanArn" not in spec.to_api()["InstanceGroups"][0]


def test_yaml_and_snake_case_give_the_same_request(tmp_path):
    pascal = base()
    snake = {
        "cluster_name": "c1",
        "node_provisioning_mode": "Continuous",
        "orchestrator": {"slurm": {}},
        "instance_groups": [
            {
                "instance_group_name": g["InstanceGroupName"],
                "instance_type": g["InstanceType"],
                "instance_count": g["InstanceCount"],
                "life_cycle_config": {"source_s3_uri": LIFECYCLE["SourceS3Uri"], "on_create": LIFECYCLE["OnCreate"]},
                "execution_role": ROLE,
                "slurm_config": {
                    "node_type": g["SlurmConfig"]["NodeType"],
                    **({"partition_names": g["SlurmConfig"]["PartitionNames"]} if "PartitionNames" in g["SlurmConfig"] else {}),
                },
            }
            for g in pascal["InstanceGroups"]
        ],
    }
    import yaml

    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(snake))
    assert ClusterSpec.from_file(tmp_path / "spec.yaml").to_api() == ClusterSpec.from_dict(pascal).to_api()


def test_nested_snake_case_follows_the_model_spelling():
    data = base()
    data["InstanceGroups"][2]["instance_storage_configs"] = [{"ebs_volume_config": {"volume_size_in_gb": 500}}]
    api = ClusterSpec.from_dict(data).to_api()
    assert api["InstanceGroups"][2]["InstanceStorageConfigs"] == [{"EbsVolumeConfig": {"VolumeSizeInGB": 500}}]


def test_update_request_leaves_out_members_update_cluster_does_not_take():
    spec = ClusterSpec.from_file(SPECS / "seed000-create-cluster.json")
    assert "VpcConfig" in spec.to_api("CreateCluster")
    assert "VpcConfig" not in spec.to_api("UpdateCluster")


def test_min_count_above_instance_count():
    data = base()
    data["InstanceGroups"][2]["MinInstanceCount"] = 5
    rejects(data, "InstanceGroups[2].MinInstanceCount", "between 0 and InstanceCount (4)")


def test_min_count_needs_continuous_mode():
    data = base()
    del data["NodeProvisioningMode"]
    data["InstanceGroups"][2]["MinInstanceCount"] = 2
    rejects(data, "InstanceGroups[2].MinInstanceCount", "only supported when NodeProvisioningMode is Continuous")


def test_controller_and_login_default_min_count_to_one_in_continuous_mode():
    spec = ClusterSpec.from_dict(base())
    assert [g.effective_min_count(spec.continuous) for g in spec.instance_groups] == [1, 1, 0]
    legacy = ClusterSpec.from_dict({k: v for k, v in base().items() if k != "NodeProvisioningMode"})
    assert [g.effective_min_count(legacy.continuous) for g in legacy.instance_groups] == [0, 0, 0]


def test_continuous_slurm_needs_slurm_config_on_every_group():
    data = base()
    del data["InstanceGroups"][2]["SlurmConfig"]
    rejects(data, "InstanceGroups[2].SlurmConfig", "required on every instance group")


def test_exactly_one_controller():
    data = base()
    data["InstanceGroups"][1]["SlurmConfig"]["NodeType"] = "Controller"
    rejects(data, "InstanceGroups", "exactly one instance group with SlurmConfig NodeType Controller; found 2")
    data = base()
    data["InstanceGroups"] = data["InstanceGroups"][1:]
    rejects(data, "InstanceGroups", "found 0")


def test_at_most_one_login_group():
    data = base()
    data["InstanceGroups"].append(group("login2", 1, "Login"))
    rejects(data, "InstanceGroups", "at most one instance group with SlurmConfig NodeType Login")


def test_partition_names_at_most_one():
    data = base()
    data["InstanceGroups"][2]["SlurmConfig"]["PartitionNames"] = ["a", "b"]
    rejects(data, "InstanceGroups[2].SlurmConfig.PartitionNames", "at most 1")


def test_slurm_config_strategy_rejected_in_continuous_mode():
    rejects(base(Orchestrator={"Slurm": {"SlurmConfigStrategy": "Merge"}}), "Orchestrator.Slurm.SlurmConfigStrategy", "not supported")
    legacy = {k: v for k, v in base(Orchestrator={"Slurm": {"SlurmConfigStrategy": "Merge"}}).items() if k != "NodeProvisioningMode"}
    assert ClusterSpec.from_dict(legacy).to_api()["Orchestrator"] == {"Slurm": {"SlurmConfigStrategy": "Merge"}}


def test_instance_type_xor_instance_requirements():
    data = base()
    data["InstanceGroups"][2]["InstanceRequirements"] = {"InstanceTypes": ["ml.p5.48xlarge"]}
    rejects(data, "InstanceGroups[2]", "exactly one of InstanceType")
    data = base()
    del data["InstanceGroups"][2]["InstanceType"]
    rejects(data, "InstanceGroups[2]", "exactly one of InstanceType")


def test_unique_group_names():
    data = base()
    data["InstanceGroups"][2]["InstanceGroupName"] = "login"
    rejects(data, "InstanceGroups[2].InstanceGroupName", "more than one group")


def test_at_most_100_groups_from_the_model():
    data = base(NodeProvisioningMode=None)
    del data["NodeProvisioningMode"]
    data["InstanceGroups"] = [group(f"g{i}", 1, None) for i in range(101)]
    data["Orchestrator"] = {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/eks"}}
    rejects(data, "InstanceGroups", "at most 100 items")


@pytest.mark.parametrize(
    "mutate, path, rule",
    [
        (lambda d: d.update(ClusterName="bad_name"), "ClusterName", "does not match the pattern"),
        (lambda d: d.update(ClusterName="x" * 64), "ClusterName", "at most 63 characters"),
        (lambda d: d["InstanceGroups"][2].update(InstanceCount=7000), "InstanceGroups[2].InstanceCount", "at most 6758"),
        (lambda d: d["InstanceGroups"][2].update(InstanceCount=-1), "InstanceGroups[2].InstanceCount", "at least 0"),
        (lambda d: d["InstanceGroups"][2].update(InstanceCount="4"), "InstanceGroups[2].InstanceCount", "whole number"),
        (lambda d: d["InstanceGroups"][2].update(ThreadsPerCore=3), "InstanceGroups[2].ThreadsPerCore", "at most 2"),
        (lambda d: d["InstanceGroups"][2].update(ExecutionRole="arn:aws:iam::12:role/x"), "InstanceGroups[2].ExecutionRole", "pattern"),
        (
            lambda d: d["InstanceGroups"][2]["LifeCycleConfig"].update(SourceS3Uri="ftp://bucket"),
            "InstanceGroups[2].LifeCycleConfig.SourceS3Uri",
            "pattern",
        ),
        (
            lambda d: d["InstanceGroups"][2].update(InstanceType="ml.p5.48xlarj"),
            "InstanceGroups[2].InstanceType",
            "did you mean ml.p5.48xlarge",
        ),
        (lambda d: d["InstanceGroups"][2].update(Colour="blue"), "InstanceGroups[2].Colour", "not a known field"),
        (lambda d: d.update(NodeRecovery="Sometimes"), "NodeRecovery", "must be one of Automatic, None"),
        (lambda d: d.update(Tags=[{"Key": "k"}]), "Tags[0].Value", "is required"),
        (
            lambda d: d["InstanceGroups"][2].update(OnStartDeepHealthChecks=["Bogus"]),
            "InstanceGroups[2].OnStartDeepHealthChecks[0]",
            "must be one of InstanceStress",
        ),
    ],
)
def test_service_model_limits_name_the_field(mutate, path, rule):
    data = copy.deepcopy(base())
    mutate(data)
    rejects(data, path, rule)


def test_all_problems_are_reported_together():
    data = base(ClusterName="bad_name")
    data["InstanceGroups"][2]["MinInstanceCount"] = 9
    error = rejects(data, "ClusterName", "pattern")
    assert "InstanceGroups[2].MinInstanceCount" in paths(error)
    assert "2 problems" in str(error)


def test_instance_groups_to_delete_is_not_a_desired_state():
    rejects(base(InstanceGroupsToDelete=["w"]), "InstanceGroupsToDelete", "remove the group from InstanceGroups")


def test_empty_and_broken_files(tmp_path):
    (tmp_path / "empty.json").write_text("")
    (tmp_path / "broken.json").write_text('{"ClusterName": ')
    (tmp_path / "list.yaml").write_text("- a\n- b\n")
    for name, words in (("empty.json", "empty"), ("broken.json", "not valid JSON"), ("list.yaml", "is an object")):
        with pytest.raises(SpecError) as caught:
            ClusterSpec.from_file(tmp_path / name)
        assert words in str(caught.value) and name in str(caught.value)
