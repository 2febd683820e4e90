"""The planner reads the member table: members set after creation, changed or left out each give
a plan line naming them (or a refusal naming them), and an autoscaler's counts are its own."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from pulumi_hyperpod import ClusterSpec
from pulumi_hyperpod.aws.planner import plan

from tests.support.factories import ROLE, group, observed_from, slurm_spec

TRAINING_PLAN = "arn:aws:sagemaker:us-west-2:111122223333:training-plan/plan-abcdefghijklmnopqrstuvwxyz"
EKS = "arn:aws:eks:us-west-2:111122223333:cluster/ml"
AUTOSCALER_ROLE = "arn:aws:iam::111122223333:role/autoscaler"


def with_worker(**extra: Any) -> ClusterSpec:
    api = slurm_spec(workers=2).to_api()
    api["InstanceGroups"][-1].update(extra)
    return ClusterSpec.from_dict(api)


def eks_spec(count: int = 3, autoscaling: bool = False, **extra: Any) -> ClusterSpec:
    data: dict[str, Any] = {
        "ClusterName": "eks-ml",
        "Orchestrator": {"Eks": {"ClusterArn": EKS}},
        "NodeProvisioningMode": "Continuous",
        "VpcConfig": {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-12345678"]},
        "InstanceGroups": [group("gpu", count, node_type=None, **extra)],
    }
    if autoscaling:
        data.update(AutoScaling={"Mode": "Enable", "AutoScalerType": "Karpenter"}, ClusterRole=AUTOSCALER_ROLE)
    return ClusterSpec.from_dict(data)


def reasons(p) -> list[str]:
    return [reason for step in p.steps for reason in step.reasons]


def test_a_training_plan_added_to_an_existing_group_is_one_update_naming_it():
    p = plan(with_worker(TrainingPlanArn=TRAINING_PLAN), observed_from(slurm_spec(workers=2)))
    [step] = p.steps
    assert step.operation == "UpdateCluster"
    assert reasons(p) == [f"worker-gpu-a: TrainingPlanArn set to {TRAINING_PLAN}"]
    [entry] = step.request["InstanceGroups"]
    assert entry["TrainingPlanArn"] == TRAINING_PLAN and entry["InstanceCount"] == 2


def test_members_never_compared_before_are_now_each_a_line():
    added = {
        "ScheduledUpdateConfig": {"ScheduleExpression": "cron(0 3 ? * SUN *)"},
        "AutoPatchConfig": {"PatchingStrategy": "WhenIdle"},
        "OnStartDeepHealthChecks": ["InstanceStress"],
        "CapacityRequirements": {"Spot": {}},
        "NetworkInterface": {"InterfaceType": "efa"},
        "InstanceStorageConfigs": [{"EbsVolumeConfig": {"VolumeSizeInGB": 500}}],
        "ImageReleaseVersion": "1.2.3",
    }
    for member, value in added.items():
        p = plan(with_worker(**{member: value}), observed_from(slurm_spec(workers=2)))
        # the image members move through a rollout (aws/planner/software.py), the rest through UpdateCluster
        operation = "UpdateClusterSoftware" if member == "ImageReleaseVersion" else "UpdateCluster"
        assert [s.operation for s in p.steps] == [operation], member
        assert any(member in reason for reason in reasons(p)), (member, reasons(p))


def test_a_member_the_spec_leaves_out_is_a_removal_line_and_the_entry_is_whole():
    labelled = eks_spec(
        KubernetesConfig={"Labels": {"team": "ml"}, "Taints": [{"Key": "gpu", "Value": "true", "Effect": "NoSchedule"}]},
        OnStartDeepHealthChecks=["InstanceStress"],
    )
    bare = eks_spec(LifeCycleConfig={"SourceS3Uri": "s3://amzn-s3-demo-bucket/lifecycle-scripts/src/", "OnCreate": "v2.sh"})
    p = plan(bare, observed_from(labelled))
    lines = reasons(p)
    assert any(line.startswith("gpu: KubernetesConfig.Labels removed") for line in lines)
    assert any(line.startswith("gpu: KubernetesConfig.Taints removed") for line in lines)
    assert any(line.startswith("gpu: OnStartDeepHealthChecks removed") for line in lines)
    assert any("LifeCycleConfig" in line for line in lines)
    [entry] = p.steps[0].request["InstanceGroups"]
    assert "KubernetesConfig" not in entry and entry["ExecutionRole"] == ROLE


def test_members_a_superseded_schema_called_create_only_are_one_update_and_kept_when_left_out():
    # issue 37 item 6: the newest CloudFormation schema updates ExecutionRole, ThreadsPerCore and
    # OverrideVpcConfig in place, and UpdateCluster's group entry takes each
    created = {"ThreadsPerCore": 2, "OverrideVpcConfig": {"SecurityGroupIds": ["sg-1"], "Subnets": ["subnet-1"]}}
    observed = observed_from(with_worker(**created))
    for member, value in (
        ("ThreadsPerCore", 1),
        ("ExecutionRole", "arn:aws:iam::111122223333:role/other"),
        ("OverrideVpcConfig", {"SecurityGroupIds": ["sg-2"], "Subnets": ["subnet-1"]}),
    ):
        p = plan(with_worker(**{**created, member: value}), observed)
        assert not p.refused, (member, p.refusals)
        [step] = p.steps
        assert step.operation == "UpdateCluster" and step.request["InstanceGroups"][0][member] == value
        [line] = reasons(p)
        assert line.startswith(f"worker-gpu-a: {member} "), line
    relabelled = with_worker(LifeCycleConfig={"SourceS3Uri": "s3://amzn-s3-demo-bucket/lifecycle-scripts/src/", "OnCreate": "v2.sh"})
    kept = plan(relabelled, observed)  # leaves both members out: they stay as created
    assert not kept.refused
    [entry] = kept.steps[0].request["InstanceGroups"]
    assert entry["ThreadsPerCore"] == 2 and entry["OverrideVpcConfig"] == created["OverrideVpcConfig"]
    [line] = reasons(kept)
    assert line.startswith("worker-gpu-a: LifeCycleConfig ") and "v2.sh" in line and "existing nodes keep how they were built" in line


def test_an_instance_type_change_is_still_refused_as_the_update_page_says():
    p = plan(with_worker(InstanceType="ml.p4d.24xlarge"), observed_from(with_worker()))
    [refusal] = p.refusals
    assert refusal.rule == "immutable-group-field" and "InstanceType" in refusal.reason


def patched(observed, when="2027-01-04T03:00:00+00:00"):
    """The cluster as AWS reports it once it detected a patch: NextPatchDate set by the service."""
    described = copy.deepcopy(observed.describe)
    for group_ in described["InstanceGroups"]:
        config = group_.get("AutoPatchConfig")
        if config is not None:
            config["CurrentPatchSchedule"] = config["DesiredPatchSchedule"] = {"NextPatchDate": when}
    groups = tuple(dataclasses.replace(g, described=d) for g, d in zip(observed.groups, described["InstanceGroups"], strict=True))
    return dataclasses.replace(observed, describe=described, groups=groups)


@pytest.mark.parametrize("schedule", [None, {}], ids=["no PatchSchedule", "empty PatchSchedule"])
def test_the_next_patch_date_the_service_sets_is_not_a_change_and_every_entry_keeps_it(schedule):
    # issue 37 item 1: AWS sets PatchSchedule.NextPatchDate itself (read-only in the CloudFormation schema)
    config = {"PatchingStrategy": "WhenIdle", **({"PatchSchedule": schedule} if schedule is not None else {})}
    spec = eks_spec(AutoPatchConfig=config)
    observed = patched(observed_from(spec))
    assert plan(spec, observed).empty
    relabelled = eks_spec(
        AutoPatchConfig=config, LifeCycleConfig={"SourceS3Uri": "s3://amzn-s3-demo-bucket/lifecycle-scripts/src/", "OnCreate": "v2.sh"}
    )
    p = plan(relabelled, observed)
    [entry] = p.steps[0].request["InstanceGroups"]
    assert entry["AutoPatchConfig"] == {"PatchingStrategy": "WhenIdle", "PatchSchedule": {"NextPatchDate": "2027-01-04T03:00:00+00:00"}}
    assert not any("AutoPatchConfig" in line for line in reasons(p))


def test_a_next_patch_date_the_spec_gives_is_compared_and_left_out_of_the_spec_the_structure_is_still_removed():
    spec = eks_spec(AutoPatchConfig={"PatchingStrategy": "WhenIdle", "PatchSchedule": {"NextPatchDate": "2027-02-01T00:00:00+00:00"}})
    observed = patched(observed_from(spec))
    [line] = reasons(plan(spec, observed))  # a reschedule: the spec's date, not the service's
    assert line.startswith("gpu: AutoPatchConfig ") and "2027-02-01" in line
    removed = plan(eks_spec(), observed)
    assert any(line.startswith("gpu: AutoPatchConfig removed") for line in reasons(removed))


@pytest.mark.parametrize(
    ("given", "wanted"),
    [
        ({"PatchSchedule": {}}, {}),
        ({}, {"PatchSchedule": {}}),
        ({"PatchSchedule": {}}, {"PatchSchedule": {"NextPatchDate": "2027-02-01T00:00:00+00:00"}}),
    ],
    ids=["empty schedule left out", "empty schedule given", "a date given to an empty schedule"],
)
def test_an_empty_patch_schedule_the_cluster_reports_is_compared_as_given_not_as_absent(given, wanted):
    # The model's ClusterPatchSchedule requires no member and DesiredPatchSchedule is "the requested patch
    # schedule": the service reports `{}` as it was given. Only a structure the service's own member
    # (NextPatchDate) was taken out of is left out of the comparison, as the tests above show.
    observed = observed_from(eks_spec(AutoPatchConfig={"PatchingStrategy": "WhenIdle", **given}))
    [line] = reasons(plan(eks_spec(AutoPatchConfig={"PatchingStrategy": "WhenIdle", **wanted}), observed))
    assert line.startswith("gpu: AutoPatchConfig ") and '"PatchingStrategy": "WhenIdle"' in line


def test_every_member_the_service_fills_is_left_out_of_the_comparison_the_restricted_group_s_output_path_too():
    # the class of item 1: DescribeCluster's EnvironmentConfig.S3OutputPath is the service's (the member table's FILLED)
    from pulumi_hyperpod.aws.planner.members import group_member_changes

    fsx = {"FSxLustreConfig": {"SizeInGiB": 1200, "PerUnitStorageThroughput": 250}}
    want = {"InstanceGroupName": "rig", "EnvironmentConfig": fsx}
    described = {"InstanceGroupName": "rig", "EnvironmentConfig": {**fsx, "S3OutputPath": "s3://amzn-s3-demo-bucket/rig/"}}
    assert group_member_changes(want, described, "rig", "restricted-group") == []
    bigger = {"InstanceGroupName": "rig", "EnvironmentConfig": {"FSxLustreConfig": {"SizeInGiB": 2400, "PerUnitStorageThroughput": 250}}}
    [change] = group_member_changes(bigger, described, "rig", "restricted-group")
    assert change.member == "EnvironmentConfig" and "S3OutputPath" not in change.line()


def test_an_eks_cluster_moves_to_continuous_with_one_update_cluster():
    # issue 37 item 5: UpdateCluster takes NodeProvisioningMode; only the Slurm page restricts migration
    standard = ClusterSpec.from_dict({k: v for k, v in eks_spec().to_api().items() if k != "NodeProvisioningMode"})
    p = plan(eks_spec(), observed_from(standard))
    assert p.action == "update" and not p.refused and p.replacements == ()
    [step] = p.steps
    assert step.operation == "UpdateCluster" and step.request["NodeProvisioningMode"] == "Continuous"
    assert "cluster setting NodeProvisioningMode changes" in step.reasons
    leaving = plan(standard, observed_from(eks_spec()))
    assert leaving.action == "replace" and "NodeProvisioningMode cannot leave Continuous once set" in leaving.replacements


def test_a_slurm_cluster_still_cannot_move_to_continuous_in_place():
    p = plan(slurm_spec(continuous=True), observed_from(slurm_spec(continuous=False)))
    assert p.action == "replace" and any("Continuous" in r for r in p.replacements)


def autoscaled(count: int):
    observed = observed_from(eks_spec(count, autoscaling=True))
    described = dict(
        observed.describe, AutoScaling={"Mode": "Enable", "AutoScalerType": "Karpenter", "Status": "InService"}, ClusterRole=AUTOSCALER_ROLE
    )
    return dataclasses.replace(observed, describe=described)


def test_the_cost_of_an_autoscaled_group_is_the_count_the_plan_keeps():
    # issue 37 item 10: "No changes", so no node is removed and the cost does not change
    from pulumi_hyperpod.aws.pipeline import make_plan

    p = make_plan(eks_spec(3, autoscaling=True), autoscaled(6))
    assert p.steps == ()
    [gpu] = p.cost.groups
    assert gpu.before_count == gpu.after_count == 6 and gpu.delta_per_hour == 0.0
    assert p.cost.cluster.delta_per_hour == 0.0


def test_disabling_autoscaling_hands_the_counts_back_to_the_spec_and_the_plan_says_so():
    disabled = ClusterSpec.from_dict({**eks_spec(3, autoscaling=True).to_api(), "AutoScaling": {"Mode": "Disable"}})
    p = plan(disabled, autoscaled(6))
    assert [g.target_after for g in p.groups] == [3]
    assert (
        "AutoScaling Mode Enable → Disable: the group counts are the spec's again (gpu: 6 now, spec 3); the plan reconciles them" in p.notes
    )


def test_an_image_change_is_a_line_naming_the_software_rollout():
    p = plan(with_worker(ImageId="ami-0123456789abcdef0"), observed_from(with_worker(ImageId="ami-0fedcba9876543210")))
    [step] = p.steps
    assert step.operation == "UpdateClusterSoftware" and step.request["ImageId"] == "ami-0123456789abcdef0"
    assert "ImageId ami-0fedcba9876543210 → ami-0123456789abcdef0" in step.reasons[0]


def test_an_autoscaled_group_keeps_the_autoscaler_s_nodes_and_the_plan_says_whose_they_are():
    observed = observed_from(eks_spec(5, autoscaling=True))
    described = dict(
        observed.describe, AutoScaling={"Mode": "Enable", "AutoScalerType": "Karpenter", "Status": "InService"}, ClusterRole=AUTOSCALER_ROLE
    )
    observed = dataclasses.replace(observed, describe=described)
    p = plan(eks_spec(3, autoscaling=True), observed)
    assert p.steps == () and p.victims == ()
    assert "gpu: 5 now, spec 3, owned by Karpenter (AutoScaling Mode Enable): shown, not reconciled" in p.notes
    moved = plan(
        ClusterSpec.from_dict({**eks_spec(3, autoscaling=True).to_api(), "ClusterRole": "arn:aws:iam::111122223333:role/x"}), observed
    )
    assert [r.rule for r in moved.refusals] == ["autoscaling-cluster-role"]


def test_tags_are_added_changed_and_deleted_by_their_own_calls():
    spec = ClusterSpec.from_dict(
        {**slurm_spec(workers=2).to_api(), "Tags": [{"Key": "team", "Value": "ml"}, {"Key": "env", "Value": "prod"}]}
    )
    observed = dataclasses.replace(observed_from(slurm_spec(workers=2)), tags=(("env", "dev"), ("old", "x"), ("aws:made-by", "aws")))
    p = plan(spec, observed)
    assert [s.operation for s in p.steps] == ["AddTags", "DeleteTags"]
    assert p.steps[0].request["Tags"] == [{"Key": "team", "Value": "ml"}, {"Key": "env", "Value": "prod"}]
    assert p.steps[1].request == {"ResourceArn": observed.arn, "TagKeys": ["old"]}
    unread = plan(spec, observed_from(slurm_spec(workers=2)))
    assert unread.steps == () and any("tags were not read" in note for note in unread.notes)


def test_an_accounting_database_added_later_is_an_update_of_the_orchestrator_that_says_it_is_unverified():
    database = {
        "Endpoint": "slurmdb.example.internal",
        "Port": 3306,
        "Name": "slurm_acct",
        "SecretArn": "arn:aws:secretsmanager:us-west-2:111122223333:secret:slurmdb-AbCdEf",
    }
    spec = ClusterSpec.from_dict({**slurm_spec(workers=2).to_api(), "Orchestrator": {"Slurm": {"AccountingDatabase": database}}})
    p = plan(spec, observed_from(slurm_spec(workers=2)))
    [step] = p.steps
    assert step.request["Orchestrator"]["Slurm"]["AccountingDatabase"] == database
    # no source decides it (docs/members.md, "Unverified rows"): the plan says so, never asserts it
    [line] = step.reasons
    assert line.startswith("cluster setting Orchestrator changes (unverified: ") and "AccountingDatabase" in line


def test_a_migration_to_api_driven_slurm_lists_every_group_the_controller_included():
    def cluster(with_roles: bool) -> ClusterSpec:
        groups = [
            group("head", 1, "Controller" if with_roles else None, InstanceType="ml.m5.xlarge"),
            group("compute", 2, "Compute" if with_roles else None, "p1", InstanceType="ml.p5.48xlarge"),
        ]
        return ClusterSpec.from_dict({"ClusterName": "legacy", "InstanceGroups": groups})

    p = plan(cluster(True), observed_from(cluster(False)))
    [step] = p.steps
    assert [g["InstanceGroupName"] for g in step.request["InstanceGroups"]] == ["head", "compute"]
    assert "head: SlurmConfig.NodeType set to Controller" in step.reasons


def test_a_tag_step_names_the_plan_s_own_cluster_or_the_plan_is_not_run():
    from pulumi_hyperpod.plans import Plan
    from pulumi_hyperpod.aws.planner.integrity import step_problems

    spec = ClusterSpec.from_dict({**slurm_spec(workers=2).to_api(), "Tags": [{"Key": "team", "Value": "ml"}]})
    p = plan(spec, dataclasses.replace(observed_from(slurm_spec(workers=2)), tags=()))
    loaded = Plan.from_dict(p.to_dict())
    assert loaded == p and step_problems(loaded) == []
    elsewhere = dataclasses.replace(
        p,
        steps=(
            dataclasses.replace(
                p.steps[0], request={**p.steps[0].request, "ResourceArn": "arn:aws:sagemaker:us-west-2:111122223333:cluster/zzzzzzzzzzzz"}
            ),
        ),
    )
    assert step_problems(elsewhere) == [
        "step 1 (AddTags): tags resource 'arn:aws:sagemaker:us-west-2:111122223333:cluster/zzzzzzzzzzzz', not the plan's cluster"
    ]


def test_a_growing_training_plan_group_says_its_capacity_is_the_plan_s():
    p = plan(with_worker(TrainingPlanArn=TRAINING_PLAN, InstanceCount=4), observed_from(with_worker(TrainingPlanArn=TRAINING_PLAN)))
    assert (
        f"worker-gpu-a: capacity comes from training plan {TRAINING_PLAN}; its reserved instances bound how far the group can grow"
        in p.notes
    )


def test_a_change_to_the_service_s_default_reads_as_the_change_it_is():
    """Issue 37, item 14: Spot → OnDemand read "CapacityRequirements removed": the spec names OnDemand,
    so the line names it; a spec that leaves the member out says which default the group returns to."""
    spot = observed_from(with_worker(CapacityRequirements={"Spot": {}}))
    [line] = reasons(plan(with_worker(CapacityRequirements={"OnDemand": {}}), spot))
    assert line.startswith('worker-gpu-a: CapacityRequirements {"Spot": {}} → {"OnDemand": {}}'), line
    [left_out] = reasons(plan(with_worker(), spot))
    assert left_out.startswith("worker-gpu-a: CapacityRequirements removed") and 'the service\'s default, {"OnDemand": {}}' in left_out


def test_a_refused_switch_between_fixed_and_flexible_reads_as_one_sentence():
    """Issue 37, item 14: the refusal spliced two sentences ("gpu: a fixed-type group cannot become a
    flexible group (InstanceRequirements) cannot change in place"): each part is a change, then the verdict."""
    fixed = observed_from(eks_spec())
    flexible = eks_spec()
    api = flexible.to_api()
    api["InstanceGroups"][0].pop("InstanceType")
    api["InstanceGroups"][0]["InstanceRequirements"] = {"InstanceTypes": ["ml.c5.xlarge", "ml.m5.xlarge"]}
    [refusal] = plan(ClusterSpec.from_dict(api), fixed).refusals
    assert refusal.rule == "immutable-group-field"
    assert refusal.reason.startswith(
        'gpu: InstanceType ml.m5.xlarge → InstanceRequirements ["ml.c5.xlarge", "ml.m5.xlarge"] (a fixed-type group made flexible) cannot change in place'
    ), refusal.reason
    assert refusal.reason.count("cannot") == 1
    [back] = plan(eks_spec(), observed_from(ClusterSpec.from_dict(api))).refusals
    assert back.reason.startswith(
        'gpu: InstanceRequirements ["ml.c5.xlarge", "ml.m5.xlarge"] → InstanceType ml.m5.xlarge (a flexible group made fixed-type) cannot change in place'
    ), back.reason
