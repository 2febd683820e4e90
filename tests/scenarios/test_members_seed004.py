"""Issue 23's "done when", through the `hyperpod` CLI on the simulator, from seed 004's cluster:
adding a training plan, a weekly update schedule, cluster tags and an auto-patch config each give a
plan naming the member; the training plan applies and re-plans empty. An EKS group's labels are
named when a spec leaves them out; an autoscaled group keeps the nodes its autoscaler added."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pulumi_hyperpod import connect
from pulumi_hyperpod.sim.aws import Simulator
from tests.support.cli import SPECS, hyperpod, use_fake_world

SEED004 = "leo-stg-hyperpod-cluster"
TRAINING_PLAN = "arn:aws:sagemaker:us-west-2:640168457519:training-plan/leo-stg-g5-plan-2026-reserved"
EKS = "arn:aws:eks:us-west-2:111122223333:cluster/ml"
ROLE = "arn:aws:iam::111122223333:role/hyperpod"
AUTOSCALER = "arn:aws:iam::111122223333:role/autoscaler"
LIFECYCLE = {"SourceS3Uri": "s3://amzn-s3-demo-bucket/lifecycle-scripts/src/", "OnCreate": "on_create.sh"}


@pytest.fixture
def world(tmp_path, monkeypatch):
    return use_fake_world(monkeypatch, tmp_path)


def write(path: Path, spec: dict) -> str:
    path.write_text(json.dumps(spec))
    return str(path)


def json_plan(*args: str) -> dict:
    return json.loads(hyperpod("plan", *args, "--json"))


def seed004(**compute: object) -> dict:
    spec = json.loads((SPECS / "seed004-initial.json").read_text())
    spec["InstanceGroups"][1].update(compute)
    return spec


def lines(plan: dict) -> list[str]:
    return [reason for step in plan["steps"] for reason in step["reasons"]]


def test_each_member_added_to_seed_004_s_cluster_is_a_plan_line_and_the_training_plan_applies(world, tmp_path):
    hyperpod("apply", "-f", str(SPECS / "seed004-initial.json"), "--yes", "--timeout", "60")
    additions = {
        "TrainingPlanArn": seed004(TrainingPlanArn=TRAINING_PLAN),
        "ScheduledUpdateConfig": seed004(ScheduledUpdateConfig={"ScheduleExpression": "cron(0 3 ? * SUN *)"}),
        "AutoPatchConfig": seed004(AutoPatchConfig={"PatchingStrategy": "WhenIdle"}),
        "tag team": {**seed004(), "Tags": [{"Key": "team", "Value": "ml"}]},
    }
    for member, spec in additions.items():
        plan = json_plan("-f", write(tmp_path / "spec.json", spec))
        assert plan["action"] == "update" and not plan["refused"], member
        assert any(member in line for line in lines(plan)), (member, lines(plan))

    with_plan = write(tmp_path / "with-plan.json", additions["TrainingPlanArn"])
    hyperpod("apply", "-f", with_plan, "--yes", "--timeout", "60")
    again = json_plan("-f", with_plan)
    assert again["empty"] and again["steps"] == []
    # and the training plan leaves again, shown as its removal
    removal = json_plan("-f", str(SPECS / "seed004-initial.json"))
    assert any(line.startswith("leo-stg-compute-ig: TrainingPlanArn removed") for line in lines(removal))

    tagged = write(tmp_path / "tagged.json", {**additions["TrainingPlanArn"], "Tags": [{"Key": "team", "Value": "ml"}]})
    hyperpod("plan", "-f", tagged, "--out", str(tmp_path / "tags-plan.json"))
    hyperpod("apply", "--plan", str(tmp_path / "tags-plan.json"), "--yes", "--timeout", "60")  # a saved plan's tag step
    sagemaker = connect(backend="fake", simulator=Simulator.open_default(), region="us-west-2")
    arn = sagemaker.describe_cluster(ClusterName=SEED004)["ClusterArn"]
    assert sagemaker.list_tags(ResourceArn=arn)["Tags"] == [{"Key": "team", "Value": "ml"}]
    assert json_plan("-f", tagged)["empty"]
    retagged = json_plan(
        "-f", write(tmp_path / "retagged.json", {**additions["TrainingPlanArn"], "Tags": [{"Key": "env", "Value": "prod"}]})
    )
    assert [s["operation"] for s in retagged["steps"]] == ["AddTags", "DeleteTags"]


def eks(count: int, autoscaling: bool = False, **extra: object) -> dict:
    spec = {
        "ClusterName": "eks-ml",
        "Orchestrator": {"Eks": {"ClusterArn": EKS}},
        "NodeProvisioningMode": "Continuous",
        "VpcConfig": {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-12345678"]},
        "InstanceGroups": [
            {
                "InstanceGroupName": "gpu",
                "InstanceType": "ml.g5.xlarge",
                "InstanceCount": count,
                "LifeCycleConfig": dict(LIFECYCLE),
                "ExecutionRole": ROLE,
                **extra,
            }
        ],
    }
    if autoscaling:
        spec.update(AutoScaling={"Mode": "Enable", "AutoScalerType": "Karpenter"}, ClusterRole=AUTOSCALER)
    return spec


def test_an_eks_group_s_labels_left_out_of_the_spec_are_named_as_removed(world, tmp_path):
    labelled = eks(2, KubernetesConfig={"Labels": {"team": "ml"}, "Taints": [{"Key": "gpu", "Value": "true", "Effect": "NoSchedule"}]})
    hyperpod("apply", "-f", write(tmp_path / "labelled.json", labelled), "--yes", "--timeout", "60")
    relabel = eks(2)
    relabel["InstanceGroups"][0]["LifeCycleConfig"]["OnCreate"] = "on_create_v2.sh"
    plan = json_plan("-f", write(tmp_path / "bare.json", relabel))
    assert any(line.startswith("gpu: KubernetesConfig.Labels removed") for line in lines(plan))
    assert any(line.startswith("gpu: KubernetesConfig.Taints removed") for line in lines(plan))


def test_an_autoscaled_group_keeps_the_nodes_its_autoscaler_added(world, tmp_path):
    spec = write(tmp_path / "auto.json", eks(3, autoscaling=True))
    hyperpod("apply", "-f", spec, "--yes", "--timeout", "60")
    karpenter = connect(backend="fake", simulator=Simulator.open_default(), region="us-west-2")
    entry = {
        "InstanceGroupName": "gpu",
        "InstanceType": "ml.g5.xlarge",
        "InstanceCount": 5,
        "LifeCycleConfig": dict(LIFECYCLE),
        "ExecutionRole": ROLE,
    }
    karpenter.update_cluster(ClusterName="eks-ml", InstanceGroups=[entry])  # the autoscaler grows 3 → 5
    plan = json_plan("-f", spec)
    assert plan["steps"] == [] and not plan["refused"]  # no UpdateCluster back to 3, no victims
    assert "gpu: 5 now, spec 3, owned by Karpenter (AutoScaling Mode Enable): shown, not reconciled" in plan["notes"]
    # issue 37 item 10: no node goes, so the cost keeps the autoscaler's 5 (it said 2 removed)
    [cost] = plan["cost"]["groups"]
    assert (cost["before_count"], cost["after_count"], cost["delta_per_hour"]) == (5, 5, 0.0)
    disabled = write(tmp_path / "disabled.json", {**eks(3, autoscaling=True), "AutoScaling": {"Mode": "Disable"}})
    handback = json_plan("-f", disabled)
    assert any(
        note.startswith("AutoScaling Mode Enable → Disable: the group counts are the spec's again (gpu: 5 now, spec 3)")
        for note in handback["notes"]
    )
    assert [g["target_after"] for g in handback["groups"]] == [3]
