"""Generate the bad-input corpus from the seed specs in examples/specs/.

    .venv/bin/python tests/badinput/make_corpus.py

Every file's name says what is wrong (`<seed>__<defect>.<json|yaml>`); `expected.json` maps each
file to [field path fragment, rule fragment] that the rejection message must contain. The
fragments are written here by hand, per defect, not copied from the validator's output.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any
from collections.abc import Callable

import yaml

HERE = Path(__file__).resolve().parent
SEEDS = HERE.parents[1] / "examples" / "specs"
CORPUS = HERE / "corpus"
# Policies and snapshots (`--policy`, `--observed`) have corpora of their own, checked with the
# seed 004 spec; the snapshot corpus is made from base-snapshot.json, a `hyperpod snapshot` of
# seed 004's one-node cluster.
POLICY_CORPUS = HERE / "corpus-policy"
SNAPSHOT_CORPUS = HERE / "corpus-snapshot"
BASE_SNAPSHOT = HERE / "base-snapshot.json"
# Files read with the same rules as a spec (core/documents.py), each with a corpus of its own:
# price files ($HYPERPOD_PRICES), lifecycle provisioning parameters (--lifecycle FILE) and saved
# plans (apply --plan FILE). Environment values: expected-env.json (variable, value, rule).
PRICES_CORPUS = HERE / "corpus-prices"
LIFECYCLE_CORPUS = HERE / "corpus-lifecycle"
PLAN_CORPUS = HERE / "corpus-plan"
# Saved fleet plans (`fleet apply BASE_FLEET --plan FILE`), refused before any stack is previewed.
FLEETPLAN_CORPUS = HERE / "corpus-fleetplan"
BASE_FLEET = HERE / "base-fleet.yaml"
# Fleet files (`hyperpod fleet plan|apply FLEET`, docs/fleet.md): one line naming the file, the field and the rule.
FLEET_CORPUS = HERE / "corpus-fleet"


def groups_of(spec: dict) -> list[dict]:
    return spec["InstanceGroups"]


def role_index(spec: dict, role: str) -> int | None:
    for index, group in enumerate(groups_of(spec)):
        if (group.get("SlurmConfig") or {}).get("NodeType") == role:
            return index
    return None


def worker_index(spec: dict) -> int:
    for index, group in enumerate(groups_of(spec)):
        if (group.get("SlurmConfig") or {}).get("NodeType") in (None, "Compute"):
            return index
    return len(groups_of(spec)) - 1


def is_slurm(spec: dict) -> bool:
    return "Eks" not in (spec.get("Orchestrator") or {})


Mutation = Callable[[dict], "tuple[str, str] | None"]  # edits in place; returns (path, rule) or None: n/a


def set_worker(key: str, value: Any, path: str, rule: str) -> Mutation:
    def mutate(spec: dict):
        w = worker_index(spec)
        groups_of(spec)[w][key] = value
        return f"InstanceGroups[{w}].{path}", rule

    return mutate


def m_count_negative(spec):
    w = worker_index(spec)
    groups_of(spec)[w]["InstanceCount"] = -1
    return f"InstanceGroups[{w}].InstanceCount", "at least"


def m_min_above_count(spec):
    w = worker_index(spec)
    g = groups_of(spec)[w]
    g["MinInstanceCount"] = g["InstanceCount"] + 1
    if spec.get("NodeProvisioningMode") != "Continuous":  # the first rule it breaks
        return f"InstanceGroups[{w}].MinInstanceCount", "NodeProvisioningMode is Continuous"
    return f"InstanceGroups[{w}].MinInstanceCount", "between 0 and InstanceCount"


def m_min_without_continuous(spec):
    if spec.get("NodeProvisioningMode") == "Continuous":
        return None
    w = worker_index(spec)
    groups_of(spec)[w]["MinInstanceCount"] = 1
    return f"InstanceGroups[{w}].MinInstanceCount", "NodeProvisioningMode is Continuous"


def m_both_spellings_groups(spec):
    spec["instance_groups"] = copy.deepcopy(groups_of(spec)[:1])
    return "InstanceGroups", "'instance_groups'"


def m_both_spellings_name(spec):
    spec["cluster_name"] = "another-cluster"
    return "ClusterName", "'cluster_name'"


def m_both_spellings_nested(spec):
    w = worker_index(spec)
    groups_of(spec)[w]["instance_count"] = 2
    return f"InstanceGroups[{w}].InstanceCount", "'instance_count'"


def m_both_spellings_deep(spec):
    w = worker_index(spec)
    lifecycle = groups_of(spec)[w]["LifeCycleConfig"]
    lifecycle["source_s3_uri"] = "s3://another-bucket/lifecycle/"
    return f"InstanceGroups[{w}].LifeCycleConfig.SourceS3Uri", "'source_s3_uri'"


def m_markup_unknown_key(spec):
    spec["[/bogus]"] = 1
    return "[/bogus]", "not a known field"


def m_markup_tag(spec):
    spec["Tags"] = [{"Key": "team[/bogus]", "Value": "ml"}]
    return "Tags[0].Key", "'team[/bogus]' does not match the pattern ([\\p{L}"


def m_empty_orchestrator(spec):
    spec["Orchestrator"] = {}
    return "Orchestrator", "exactly one orchestrator"


def m_both_orchestrators(spec):
    spec["Orchestrator"] = {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/my-eks"}, "Slurm": {}}
    return "Orchestrator", "exactly one orchestrator"


def m_controller_zero(spec):
    c = role_index(spec, "Controller")
    if c is None:
        return None
    groups_of(spec)[c]["InstanceCount"] = 0
    if "MinInstanceCount" in groups_of(spec)[c]:
        groups_of(spec)[c]["MinInstanceCount"] = 0
    return f"InstanceGroups[{c}].InstanceCount", "at least 1 instance"


def m_partitions_on_controller(spec):
    c = role_index(spec, "Controller")
    if c is None:
        return None
    groups_of(spec)[c]["SlurmConfig"]["PartitionNames"] = ["gpu"]
    return f"InstanceGroups[{c}].SlurmConfig.PartitionNames", "only Compute groups"


def m_kubernetes_on_slurm(spec):
    if not is_slurm(spec):
        return None
    w = worker_index(spec)
    groups_of(spec)[w]["KubernetesConfig"] = {"Labels": {"team": "ml"}}
    return f"InstanceGroups[{w}].KubernetesConfig", "EKS-orchestrated"


def m_slurm_config_on_eks(spec):
    if is_slurm(spec):
        return None
    w = worker_index(spec)
    groups_of(spec)[w]["SlurmConfig"] = {"NodeType": "Compute"}
    return f"InstanceGroups[{w}].SlurmConfig", "Slurm-orchestrated"


def m_type_and_requirements(spec):
    w = worker_index(spec)
    g = groups_of(spec)[w]
    g.setdefault("InstanceType", "ml.c5.xlarge")
    g["InstanceRequirements"] = {"InstanceTypes": ["ml.c5.xlarge"]}
    return f"InstanceGroups[{w}]", "mutually exclusive"


def m_neither_type(spec):
    w = worker_index(spec)
    groups_of(spec)[w].pop("InstanceType", None)
    groups_of(spec)[w].pop("InstanceRequirements", None)
    return f"InstanceGroups[{w}]", "one of InstanceType or InstanceRequirements is required"


def m_duplicate_flexible_type(spec):
    w = worker_index(spec)
    g = groups_of(spec)[w]
    if "InstanceRequirements" not in g:
        return None
    types = g["InstanceRequirements"]["InstanceTypes"]
    types.append(types[0])
    return f"InstanceGroups[{w}].InstanceRequirements.InstanceTypes", "listed more than once"


def m_min_negative(spec):
    w = worker_index(spec)
    groups_of(spec)[w]["MinInstanceCount"] = -3
    return f"InstanceGroups[{w}].MinInstanceCount", "at least"


def m_duplicate_group(spec):
    w = worker_index(spec)
    groups_of(spec).append(copy.deepcopy(groups_of(spec)[w]))
    return f"InstanceGroups[{w}].InstanceGroupName", "more than one group"


def m_two_controllers(spec):
    c = role_index(spec, "Controller")
    if c is None:
        return None
    extra = copy.deepcopy(groups_of(spec)[c])
    extra["InstanceGroupName"] = "second-controller"
    groups_of(spec).append(extra)
    return "InstanceGroups", "Controller"


def m_no_controller(spec):
    c = role_index(spec, "Controller")
    if c is None:
        return None
    del groups_of(spec)[c]
    return "InstanceGroups", "Controller"


def m_strategy_continuous(spec):
    if not is_slurm(spec):
        return None
    spec["NodeProvisioningMode"] = "Continuous"
    spec["Orchestrator"] = {"Slurm": {"SlurmConfigStrategy": "Managed"}}
    return "Orchestrator.Slurm.SlurmConfigStrategy", "Continuous"


def m_unknown_top(spec):
    spec["ClusterNmae"] = spec.pop("ClusterName")
    return "ClusterNmae", "not a known field"


def m_unknown_group_key(spec):
    w = worker_index(spec)
    groups_of(spec)[w]["InstanceCont"] = 3
    return f"InstanceGroups[{w}].InstanceCont", "not a known field"


def m_name_pattern(value: str, rule: str) -> Mutation:
    def mutate(spec):
        spec["ClusterName"] = value
        return "ClusterName", rule

    return mutate


def m_group_name(value: str, rule: str) -> Mutation:
    def mutate(spec):
        w = worker_index(spec)
        groups_of(spec)[w]["InstanceGroupName"] = value
        return f"InstanceGroups[{w}].InstanceGroupName", rule

    return mutate


def m_role(value: Any, rule: str) -> Mutation:
    return set_worker("ExecutionRole", value, "ExecutionRole", rule)


def m_s3(value: Any, rule: str) -> Mutation:
    def mutate(spec):
        w = worker_index(spec)
        groups_of(spec)[w]["LifeCycleConfig"]["SourceS3Uri"] = value
        return f"InstanceGroups[{w}].LifeCycleConfig.SourceS3Uri", rule

    return mutate


def m_missing(key: str, rule: str) -> Mutation:
    def mutate(spec):
        w = worker_index(spec)
        groups_of(spec)[w].pop(key, None)
        return f"InstanceGroups[{w}]", rule

    return mutate


def m_no_groups(spec):
    spec["InstanceGroups"] = []
    return "InstanceGroups", ""


def m_groups_not_list(spec):
    spec["InstanceGroups"] = {"a": 1}
    return "InstanceGroups", ""


def m_missing_name(spec):
    del spec["ClusterName"]
    return "ClusterName", ""


def m_bad_mode(spec):
    spec["NodeProvisioningMode"] = "Sometimes"
    return "NodeProvisioningMode", "Continuous"


def m_bad_recovery(spec):
    spec["NodeRecovery"] = "Sometimes"
    return "NodeRecovery", ""


def m_threads(spec):
    w = worker_index(spec)
    groups_of(spec)[w]["ThreadsPerCore"] = 7
    return f"InstanceGroups[{w}].ThreadsPerCore", ""


def m_subnets_empty(spec):
    spec.setdefault("VpcConfig", {"SecurityGroupIds": ["sg-12345678"]})["Subnets"] = []
    return "VpcConfig.Subnets", ""


def m_bad_sg(spec):
    spec.setdefault("VpcConfig", {"Subnets": ["subnet-12345678"]})["SecurityGroupIds"] = ["not-a-sg!"]
    return "VpcConfig.SecurityGroupIds", ""


def m_tags_not_list(spec):
    spec["Tags"] = "team=ml"
    return "Tags", ""


def m_huge_tag(spec):
    spec["Tags"] = [{"Key": "k" * 500, "Value": "v"}]
    return "Tags[0].Key", "characters"


def m_volume_huge(spec):
    w = worker_index(spec)
    groups_of(spec)[w]["InstanceStorageConfigs"] = [{"EbsVolumeConfig": {"VolumeSizeInGB": 10**9}}]
    return f"InstanceGroups[{w}].InstanceStorageConfigs[0].EbsVolumeConfig.VolumeSizeInGB", "at most"


def m_groups_key_missing(spec):
    del spec["InstanceGroups"]
    return "InstanceGroups", "at least one instance group"


def m_groups_null(spec):
    spec["InstanceGroups"] = None
    return "InstanceGroups", "at least one instance group"


def m_group_null(spec):
    spec["InstanceGroups"].append(None)
    return f"InstanceGroups[{len(spec['InstanceGroups']) - 1}]", "is null"


def m_security_group_null(spec):
    spec.setdefault("VpcConfig", {"Subnets": ["subnet-12345678"]})["SecurityGroupIds"] = [None]
    return "VpcConfig.SecurityGroupIds[0]", "is null"


def m_tag_null(spec):
    spec["Tags"] = [None]
    return "Tags[0]", "is null"


def m_storage_null(spec):
    w = worker_index(spec)
    groups_of(spec)[w]["InstanceStorageConfigs"] = [None]
    return f"InstanceGroups[{w}].InstanceStorageConfigs[0]", "is null"


def m_ebs_null(spec):
    w = worker_index(spec)
    groups_of(spec)[w]["InstanceStorageConfigs"] = [{"EbsVolumeConfig": None}]
    return f"InstanceGroups[{w}].InstanceStorageConfigs[0]", "exactly one of EbsVolumeConfig"


def m_on_create_empty(spec):
    w = worker_index(spec)
    groups_of(spec)[w]["LifeCycleConfig"]["OnCreate"] = ""
    return f"InstanceGroups[{w}].LifeCycleConfig.OnCreate", "at least 1 character"


def m_control_key(spec):
    spec["\u001b]0;pwned\u0007x\nerror: forged"] = 1
    return "\\x1b]0;pwned\\x07x\\nerror: forged", "not a known field"


def m_fsx_without_vpc(spec):
    spec.pop("VpcConfig", None)
    for group in groups_of(spec):
        group.pop("OverrideVpcConfig", None)
    w = worker_index(spec)
    groups_of(spec)[w]["InstanceStorageConfigs"] = [
        {"FsxLustreConfig": {"DnsName": "fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com", "MountName": "abcdefgh", "MountPath": "/fsx"}}
    ]
    return f"InstanceGroups[{w}].InstanceStorageConfigs[0].FsxLustreConfig", "only supported for a custom VPC"


def m_tag_duplicate(spec):
    spec["Tags"] = [{"Key": "team", "Value": "ml"}, {"Key": "team", "Value": "infra"}]
    return "Tags[0].Key", "duplicate tag key 'team'"


def m_tag_reserved(spec):
    spec["Tags"] = [{"Key": "aws:cloudformation:stack-name", "Value": "x"}]
    return "Tags[0].Key", "the aws: prefix is reserved"


# issue 41: the spec's Extensions, checked against CreateClusterExtension's input (aws/spec/extensions.py)
OBSERVABILITY = "sagemaker-observability"


def m_extension_unknown_member(spec):
    spec["Extensions"] = [{"ExtensionName": OBSERVABILITY, "Version": "1.0.0"}]
    return "Extensions[0].Version", "is not a known field"


def m_extension_duplicate(spec):
    spec["Extensions"] = [{"ExtensionName": OBSERVABILITY}, {"ExtensionName": OBSERVABILITY, "ExtensionVersion": "1.0.0"}]
    return "Extensions[1].ExtensionName", "a cluster has one extension of a name"


def m_extension_version_type(spec):
    spec["Extensions"] = [{"ExtensionName": OBSERVABILITY, "ExtensionVersion": 1}]
    return "Extensions[0].ExtensionVersion", "must be a string"


def m_extension_configuration(spec):
    spec["Extensions"] = [{"ExtensionName": OBSERVABILITY, "ConfigurationValues": "[1, 2]"}]
    return "Extensions[0].ConfigurationValues", "a JSON object serialized as a string"


def m_extension_cluster_arn(spec):
    spec["Extensions"] = [{"ExtensionName": OBSERVABILITY, "ClusterArn": "arn:aws:sagemaker:us-west-2:111122223333:cluster/abcdefghijkl"}]
    return "Extensions[0].ClusterArn", "is set by the plan"


def m_extension_refused_cluster(spec):
    """CreateClusterExtension: a Slurm cluster with NodeProvisioningMode Continuous only."""
    if is_slurm(spec) and spec.get("NodeProvisioningMode") == "Continuous":
        return None
    spec["Extensions"] = [{"ExtensionName": OBSERVABILITY}]
    return "Extensions", "only on a Slurm cluster with NodeProvisioningMode Continuous"


# issue 37, item 3: the model's sentence-rules (aws/spec/documented.py); the rule fragment is the
# quoted source, so the line says why
BATCH = {"RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 1}}}


def _on_worker(key: str, value: Any, path: str, rule: str, when: Callable[[dict], bool] = lambda spec: True) -> Mutation:
    def mutate(spec):
        if not when(spec):
            return None
        w = worker_index(spec)
        groups_of(spec)[w][key] = copy.deepcopy(value)
        return f"InstanceGroups[{w}].{path}", rule

    return mutate


def _eks(spec: dict) -> bool:
    return not is_slurm(spec)


def m_on_init_complete_with_on_create(spec):
    w = worker_index(spec)
    groups_of(spec)[w]["LifeCycleConfig"]["OnInitComplete"] = "on_init_complete.sh"
    return f"InstanceGroups[{w}].LifeCycleConfig.OnInitComplete", "mutually exclusive"


def m_accounting_database_all_or_nothing(spec):
    if not is_slurm(spec) or spec.get("NodeProvisioningMode") == "Continuous":
        return None
    endpoint = {"Endpoint": "slurmdb.example.com:3306", "SecretArn": "arn:aws:secretsmanager:us-west-2:111122223333:secret:slurmdb"}
    spec["Orchestrator"] = {"Slurm": {"AccountingDatabase": endpoint}}
    return "Orchestrator.Slurm.AccountingDatabase", "only supported for clusters using Continuous"


DOCUMENTED_MUTATIONS: dict[str, tuple[Mutation, str, str]] = {
    "drain-first-on-slurm": (
        _on_worker(
            "AutoPatchConfig",
            {"PatchingStrategy": "DrainFirst", "DeploymentConfig": BATCH},
            "AutoPatchConfig.PatchingStrategy",
            "Available only for clusters that use Amazon EKS",
            is_slurm,
        ),
        "",
        "",
    ),
    "drain-first-without-batch-size": (
        _on_worker(
            "AutoPatchConfig", {"PatchingStrategy": "DrainFirst"}, "AutoPatchConfig.DeploymentConfig", "Requires MaximumBatchSize", _eks
        ),
        "",
        "",
    ),
    "drain-policy-without-drain-first": (
        _on_worker(
            "AutoPatchConfig",
            {"PatchingStrategy": "WhenIdle", "DrainPolicy": {"DrainTimeoutInSeconds": 600, "OnDrainTimeout": "Skip"}},
            "AutoPatchConfig.DrainPolicy",
            "Valid only when PatchingStrategy is DrainFirst",
        ),
        "",
        "",
    ),
    "idle-wait-with-drain-first": (
        _on_worker(
            "AutoPatchConfig",
            {"PatchingStrategy": "DrainFirst", "DeploymentConfig": BATCH, "IdleWaitWindowInSeconds": 7200},
            "AutoPatchConfig.IdleWaitWindowInSeconds",
            "applies only to the WhenIdle and WhenAllIdle strategies",
            _eks,
        ),
        "",
        "",
    ),
    "on-init-complete-with-on-create": (m_on_init_complete_with_on_create, "", ""),
    "schedule-in-words": (
        _on_worker(
            "ScheduledUpdateConfig",
            {"ScheduleExpression": "every sunday"},
            "ScheduledUpdateConfig.ScheduleExpression",
            "'every sunday' is not a cron expression",
        ),
        "",
        "",
    ),
    "schedule-unix-cron": (
        _on_worker(
            "ScheduledUpdateConfig",
            {"ScheduleExpression": "0 3 * * 0"},
            "ScheduledUpdateConfig.ScheduleExpression",
            "is not a cron expression",
        ),
        "",
        "",
    ),
    "schedule-batches-on-slurm": (
        _on_worker(
            "ScheduledUpdateConfig",
            {"ScheduleExpression": "cron(0 3 ? * SUN *)", "DeploymentConfig": BATCH},
            "ScheduledUpdateConfig.DeploymentConfig",
            "available only for HyperPod clusters integrated with Amazon EKS",
            is_slurm,
        ),
        "",
        "",
    ),
    "root-volume-with-size": (
        _on_worker(
            "InstanceStorageConfigs",
            [{"EbsVolumeConfig": {"RootVolume": True, "VolumeSizeInGB": 100, "VolumeKmsKeyId": "alias/hyperpod"}}],
            "InstanceStorageConfigs[0].EbsVolumeConfig.VolumeSizeInGB",
            "You can't specify the VolumeSizeInGB field",
        ),
        "",
        "",
    ),
    "root-volume-without-key": (
        _on_worker(
            "InstanceStorageConfigs",
            [{"EbsVolumeConfig": {"RootVolume": True}}],
            "InstanceStorageConfigs[0].EbsVolumeConfig.VolumeKmsKeyId",
            "You must specify a KMS key ID",
        ),
        "",
        "",
    ),
    "secondary-volume-without-size": (
        _on_worker(
            "InstanceStorageConfigs",
            [{"EbsVolumeConfig": {"VolumeKmsKeyId": "alias/hyperpod"}}],
            "InstanceStorageConfigs[0].EbsVolumeConfig.VolumeSizeInGB",
            "You must specify the VolumeSizeInGB field",
        ),
        "",
        "",
    ),
    "accounting-database-all-or-nothing": (m_accounting_database_all_or_nothing, "", ""),
}


def _rig(name: str = "rig-1", **extra: Any) -> dict:
    """A restricted instance group as rig_custom.tfvars makes one (awsome-distributed-training)."""
    group = {
        "InstanceGroupName": name,
        "InstanceType": "ml.p5.48xlarge",
        "InstanceCount": 2,
        "ExecutionRole": "arn:aws:iam::111122223333:role/nova-rig-execution",
        "EnvironmentConfig": {"FSxLustreConfig": {"SizeInGiB": 4800, "PerUnitStorageThroughput": 250}},
    }
    group.update(extra)
    return {k: v for k, v in group.items() if v is not None}


def m_restricted_on_slurm(spec):
    if not is_slurm(spec):
        return None
    spec["RestrictedInstanceGroups"] = [_rig()]
    return "RestrictedInstanceGroups", "EKS"


def m_restricted_without_fsx(spec):
    if is_slurm(spec):
        return None
    spec["RestrictedInstanceGroups"] = [_rig(EnvironmentConfig=None)]
    return "RestrictedInstanceGroups[0].EnvironmentConfig.FSxLustreConfig", "FSx for Lustre"


def m_restricted_name_taken(spec):
    if is_slurm(spec):
        return None
    spec["RestrictedInstanceGroups"] = [_rig(groups_of(spec)[0]["InstanceGroupName"])]
    return "RestrictedInstanceGroups[0].InstanceGroupName", "names another group"


def m_spec_is_list(spec):
    return "__replace__", [spec]


def m_spec_is_string(spec):
    return "__replace__", "my-training-cluster"


MUTATIONS: dict[str, tuple[Mutation, str, str]] = {
    # name: (mutation, path fragment override or "", rule fragment override or "")
    "count-string": (set_worker("InstanceCount", "three", "InstanceCount", "whole number"), "", ""),
    "count-float": (set_worker("InstanceCount", 2.5, "InstanceCount", "whole number"), "", ""),
    "count-bool": (set_worker("InstanceCount", True, "InstanceCount", "whole number"), "", ""),
    "count-null": (set_worker("InstanceCount", None, "InstanceCount", ""), "", ""),
    "count-list": (set_worker("InstanceCount", [3], "InstanceCount", "whole number"), "", ""),
    "count-negative": (m_count_negative, "", ""),
    "count-nan": (set_worker("InstanceCount", float("nan"), "InstanceCount", "whole number"), "", ""),
    "count-infinity": (set_worker("InstanceCount", float("inf"), "InstanceCount", "whole number"), "", ""),
    "count-huge": (set_worker("InstanceCount", 10**30, "InstanceCount", "at most"), "", ""),
    "count-over-limit": (set_worker("InstanceCount", 6759, "InstanceCount", "at most"), "", ""),
    "min-above-count": (m_min_above_count, "", ""),
    "min-negative": (m_min_negative, "", ""),
    "min-string": (set_worker("MinInstanceCount", "1", "MinInstanceCount", "whole number"), "", ""),
    "duplicate-group-name": (m_duplicate_group, "", ""),
    "two-controllers": (m_two_controllers, "", ""),
    "no-controller": (m_no_controller, "", ""),
    "slurm-config-strategy-with-continuous": (m_strategy_continuous, "", ""),
    "unknown-top-level-key": (m_unknown_top, "", ""),
    "unknown-group-key": (m_unknown_group_key, "", ""),
    "cluster-name-spaces": (m_name_pattern("my cluster", "pattern"), "", ""),
    "cluster-name-underscore": (m_name_pattern("my_cluster", "pattern"), "", ""),
    "cluster-name-too-long": (m_name_pattern("c" * 64, "characters"), "", ""),
    "cluster-name-empty": (m_name_pattern("", ""), "", ""),
    "cluster-name-unicode": (m_name_pattern("clüster-ñame", "pattern"), "", ""),
    "cluster-name-emoji": (m_name_pattern("gpu-\U0001f680-cluster", "pattern"), "", ""),
    "cluster-name-leading-dash": (m_name_pattern("-cluster", "pattern"), "", ""),
    "cluster-name-number": (m_name_pattern(12345, "string"), "", ""),
    "cluster-name-shell": (m_name_pattern("x; rm -rf /", "pattern"), "", ""),
    "group-name-spaces": (m_group_name("worker group", "pattern"), "", ""),
    "group-name-too-long": (m_group_name("g" * 64, "characters"), "", ""),
    "group-name-unicode": (m_group_name("wörker", "pattern"), "", ""),
    "role-not-arn": (m_role("my-role-that-is-not-an-arn", "pattern"), "", ""),
    "role-s3-arn": (m_role("arn:aws:s3:::my-training-bucket", "pattern"), "", ""),
    "role-bad-account": (m_role("arn:aws:iam::12:role/r", "pattern"), "", ""),
    "role-number": (m_role(42, "string"), "", ""),
    "role-huge": (m_role("arn:aws:iam::111122223333:role/" + "r" * 5000, "characters"), "", ""),
    "s3-ftp-scheme": (m_s3("ftp://bucket/prefix/", "pattern"), "", ""),
    "s3-too-long": (m_s3("s3://bucket/" + "p" * 1100, "characters"), "", ""),
    "s3-no-scheme": (m_s3("bucket/prefix/", "pattern"), "", ""),
    "s3-number": (m_s3(7, "string"), "", ""),
    "missing-execution-role": (m_missing("ExecutionRole", "ExecutionRole"), "", ""),
    "missing-instance-count": (m_missing("InstanceCount", "InstanceCount"), "", ""),
    "missing-group-name": (m_missing("InstanceGroupName", "InstanceGroupName"), "", ""),
    "missing-cluster-name": (m_missing_name, "", ""),
    "no-instance-groups": (m_no_groups, "", ""),
    "instance-groups-not-a-list": (m_groups_not_list, "", ""),
    "bad-provisioning-mode": (m_bad_mode, "", ""),
    "bad-node-recovery": (m_bad_recovery, "", ""),
    "threads-per-core-7": (m_threads, "", ""),
    "empty-subnets": (m_subnets_empty, "", ""),
    "bad-security-group": (m_bad_sg, "", ""),
    "tags-not-a-list": (m_tags_not_list, "", ""),
    "tag-key-huge": (m_huge_tag, "", ""),
    "volume-size-huge": (m_volume_huge, "", ""),
    "spec-is-a-list": (m_spec_is_list, "", ""),
    "spec-is-a-string": (m_spec_is_string, "", ""),
    # issue 12: siblings of each class found in the outside test round
    "min-without-continuous": (m_min_without_continuous, "", ""),
    "both-spellings-instance-groups": (m_both_spellings_groups, "", ""),
    "both-spellings-cluster-name": (m_both_spellings_name, "", ""),
    "both-spellings-instance-count": (m_both_spellings_nested, "", ""),
    "both-spellings-lifecycle-uri": (m_both_spellings_deep, "", ""),
    "cluster-name-markup": (m_name_pattern("a[/bogus]", "'a[/bogus]' does not match the pattern [a-zA-Z0-9](-*[a-zA-Z0-9])*"), "", ""),
    "cluster-name-markup-style": (m_name_pattern("[bold red]x", "'[bold red]x' does not match"), "", ""),
    "cluster-name-long-and-bad": (m_name_pattern("!" * 5000, "must have at most 63 characters; has 5000"), "", ""),
    "group-name-markup": (m_group_name("g[/bogus]", "'g[/bogus]' does not match the pattern"), "", ""),
    "unknown-key-markup": (m_markup_unknown_key, "", ""),
    "tag-key-markup": (m_markup_tag, "", ""),
    "count-string-digits": (set_worker("InstanceCount", "010", "InstanceCount", "whole number"), "", ""),
    "empty-orchestrator": (m_empty_orchestrator, "", ""),
    "both-orchestrators": (m_both_orchestrators, "", ""),
    "controller-zero": (m_controller_zero, "", ""),
    "partitions-on-controller": (m_partitions_on_controller, "", ""),
    "kubernetes-config-on-slurm": (m_kubernetes_on_slurm, "", ""),
    "slurm-config-on-eks": (m_slurm_config_on_eks, "", ""),
    "type-and-requirements": (m_type_and_requirements, "", ""),
    "neither-type-nor-requirements": (m_neither_type, "", ""),
    "duplicate-flexible-type": (m_duplicate_flexible_type, "", ""),
    "role-too-short": (m_role("arn:aws:iam::1:r", "characters"), "", ""),
    # the second outside test round: nulls inside lists and unions, empty strings, control characters
    "instance-groups-key-missing": (m_groups_key_missing, "", ""),
    "instance-groups-null": (m_groups_null, "", ""),
    "group-null-item": (m_group_null, "", ""),
    "security-group-null-item": (m_security_group_null, "", ""),
    "tag-null-item": (m_tag_null, "", ""),
    "storage-config-null-item": (m_storage_null, "", ""),
    "ebs-volume-config-null": (m_ebs_null, "", ""),
    "on-create-empty": (m_on_create_empty, "", ""),
    "unknown-key-control-characters": (m_control_key, "", ""),
    "fsx-without-vpc": (m_fsx_without_vpc, "", ""),
    "tag-key-duplicate": (m_tag_duplicate, "", ""),
    "tag-key-aws-prefix": (m_tag_reserved, "", ""),
    "extension-unknown-member": (m_extension_unknown_member, "", ""),
    "extension-duplicate-name": (m_extension_duplicate, "", ""),
    "extension-version-not-string": (m_extension_version_type, "", ""),
    "extension-configuration-not-object": (m_extension_configuration, "", ""),
    "extension-cluster-arn-given": (m_extension_cluster_arn, "", ""),
    "extension-on-refused-cluster": (m_extension_refused_cluster, "", ""),
    **DOCUMENTED_MUTATIONS,
    # issue 37: restricted instance groups (the documented RIG rules)
    "restricted-group-on-slurm": (m_restricted_on_slurm, "", ""),
    "restricted-group-without-fsx": (m_restricted_without_fsx, "", ""),
    "restricted-group-name-taken": (m_restricted_name_taken, "", ""),
}


# Raw-text defects: (name, suffix, text builder from the seed's JSON text, path, rule); a builder may
# return bytes (written as they are).
def _duplicate_key_json(text: str) -> str:
    return text.replace("{", '{"ClusterName": "first-name", ', 1)


def _duplicate_key_yaml(text: str) -> str:
    return "ClusterName: first-name\n" + yaml.safe_dump(json.loads(text), sort_keys=False)


def _worker_count_as(raw: str) -> Callable[[str], str]:
    """The seed as YAML with the worker group's InstanceCount written as `raw`, unquoted."""

    def build(text: str) -> str:
        spec = json.loads(text)
        groups_of(spec)[worker_index(spec)]["InstanceCount"] = "__COUNT__"
        return yaml.safe_dump(spec, sort_keys=False).replace("'__COUNT__'", raw).replace("__COUNT__", raw)

    return build


def _alias_bomb(text: str) -> str:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        previous, name = chr(ord("a") + level - 1), chr(ord("a") + level)
        lines.append(f"{name}: &{name} [{', '.join([f'*{previous}'] * 10)}]")
    return "\n".join(lines) + "\n" + yaml.safe_dump(json.loads(text), sort_keys=False)


def _nested_moderately(text: str) -> str:
    spec = json.loads(text)
    deep: Any = "x"
    for _ in range(80):
        deep = {"k": deep}
    spec["Tags"] = [{"Key": "k", "Value": deep}]
    return json.dumps(spec)


TEXT_DEFECTS: dict[str, tuple[str, Callable[[str], str | bytes], str, str]] = {
    "yaml11-octal-count": (".yaml", _worker_count_as("010"), "", "ambiguous"),
    "yaml11-octal-nine": (".yaml", _worker_count_as("09"), "", "ambiguous"),
    "yaml11-sexagesimal-count": (".yaml", _worker_count_as("1:20"), "InstanceCount", "whole number"),
    "yaml11-binary-count": (".yaml", _worker_count_as("0b11"), "InstanceCount", "whole number"),
    "yaml11-underscore-count": (".yaml", _worker_count_as("1_000"), "InstanceCount", "whole number"),
    "yaml-inf-count": (".yaml", _worker_count_as(".inf"), "InstanceCount", "whole number"),
    "yaml-nan-count": (".yaml", _worker_count_as(".nan"), "InstanceCount", "whole number"),
    "yaml11-yes-count": (".yaml", _worker_count_as("yes"), "InstanceCount", "whole number"),
    "yaml-alias-bomb": (".yaml", _alias_bomb, "", "aliases expand"),
    "yaml-recursive-alias": (".yaml", lambda text: "a: &a [*a]\n", "", "refers to a node that contains it"),
    "nested-deeper-than-limit": (".json", _nested_moderately, "", "nested too deeply"),
    "binary-file": (".json", lambda text: b"\x00\x01\x02" + text.encode(), "", "binary"),
    "huge-number-json": (
        ".json",
        lambda text: re.sub(r'"InstanceCount": [0-9]+', '"InstanceCount": ' + "1" * 5000, text, count=1),
        "",
        "a number too long to read",
    ),
    "huge-number-yaml": (".yaml", _worker_count_as("9" * 5000), "", "a number too long to read"),
    "empty-file": (".json", lambda text: "", "", "empty"),
    "whitespace-only": (".yaml", lambda text: "  \n\t\n", "", "empty"),
    "truncated-json": (".json", lambda text: text[: len(text) // 2], "", "not valid JSON"),
    "truncated-yaml": (".yaml", lambda text: yaml.safe_dump(json.loads(text))[:-40] + "\n  - [unclosed", "", "not valid YAML"),
    "trailing-comma": (".json", lambda text: text.rstrip().rstrip("}") + ",}", "", "not valid JSON"),
    "duplicate-key": (".json", _duplicate_key_json, "", "appears twice"),
    "duplicate-key-yaml": (".yaml", _duplicate_key_yaml, "", "appears twice"),
    "nested-too-deep": (".json", lambda text: "[" * 1100 + "]" * 1100, "", "nested too deeply"),
    "nested-too-deep-yaml": (".yaml", lambda text: "[" * 600 + "]" * 600, "", "nested too deeply"),
    "python-tag": (".yaml", lambda text: '!!python/object/apply:os.system ["echo pwned"]\n', "", "constructor"),
    "not-utf8": (".json", lambda text: b"\xff\xfe" + text.encode("utf-16-le"), "", "cannot read"),
    "null-document": (".yaml", lambda text: "null\n", "", "is an object"),
    "scalar-document": (".json", lambda text: "42\n", "", "is an object"),
}


# (file name, content, path fragment, rule fragment); the message must name the file as well.
POLICY_DEFECTS: list[tuple[str, str | bytes, str, str]] = [
    ("unknown-field.yaml", "max_scale_in_fractoin: 0.5\n", "max_scale_in_fractoin", "not a known field"),
    ("unknown-markup-field.yaml", "'[/bogus]': 1\n", "[/bogus]", "not a known field"),
    ("fraction-above-one.yaml", "max_scale_in_fraction: 1.5\n", "max_scale_in_fraction", "less than or equal to 1"),
    ("fraction-negative.json", '{"max_scale_in_fraction": -0.1}', "max_scale_in_fraction", "greater than or equal to 0"),
    ("fraction-nan.yaml", "max_scale_in_fraction: .nan\n", "max_scale_in_fraction", "finite"),
    ("fraction-string.yaml", "max_scale_in_fraction: '0.5'\n", "max_scale_in_fraction", "valid number"),
    ("delete-call-zero.yaml", "max_nodes_per_delete_call: 0\n", "max_nodes_per_delete_call", "greater than or equal to 1"),
    ("delete-call-float.yaml", "max_nodes_per_delete_call: 2.5\n", "max_nodes_per_delete_call", "valid integer"),
    ("delete-call-octal.yaml", "max_nodes_per_delete_call: 010\n", "", "ambiguous"),
    ("delete-call-underscore.yaml", "max_nodes_per_delete_call: 1_0\n", "max_nodes_per_delete_call", "valid integer"),
    ("cost-negative.yaml", "max_hourly_cost_increase: -5\n", "max_hourly_cost_increase", "greater than or equal to 0"),
    ("yes-boolean.yaml", "allow_replacement: yes\n", "allow_replacement", "valid boolean"),
    ("on-boolean.yaml", "allow_login_scale_in: on\n", "allow_login_scale_in", "valid boolean"),
    ("number-boolean.json", '{"allow_controller_scale_in": 1}', "allow_controller_scale_in", "valid boolean"),
    ("protect-string.yaml", "protected_node_ids: i-0123\n", "protected_node_ids", "valid array"),
    ("protect-numbers.yaml", "protected_node_ids: [i-1, 7]\n", "protected_node_ids[1]", "valid string"),
    ("protect-short-instance-id.yaml", "protected_node_ids: [i-0123456789abcdef]\n", "protected_node_ids", "is not an instance id"),
    ("protect-upper-instance-id.yaml", "protected_node_ids: [I-0123456789ABCDEF0]\n", "protected_node_ids", "is not an instance id"),
    ("protect-empty-id.yaml", "protected_node_ids: ['']\n", "protected_node_ids", "neither an instance id"),
    ("protect-padded-id.yaml", "protected_node_ids: [' i-0123456789abcdef0']\n", "protected_node_ids", "neither an instance id"),
    ("protect-markup-id.yaml", "protected_node_ids: ['[bold]x[/]']\n", "protected_node_ids", "'[bold]x[/]' is neither"),
    ("delete-call-over-api-limit.yaml", "max_nodes_per_delete_call: 100\n", "max_nodes_per_delete_call", "less than or equal to 99"),
    ("margin-above-one.yaml", "quota_warning_margin: 2\n", "quota_warning_margin", "less than or equal to 1"),
    (
        "deployment-unknown-type.yaml",
        "software_deployment:\n  RollingUpdatePolicy:\n    MaximumBatchSize: {Type: COUNT, Value: 2}\n",
        "software_deployment: RollingUpdatePolicy.MaximumBatchSize.Type",
        "must be one of INSTANCE_COUNT, CAPACITY_PERCENTAGE",
    ),
    ("deployment-unknown-field.yaml", "software_deployment:\n  Bogus: 1\n", "software_deployment: Bogus", "not a known field"),
    ("syntax-error.yaml", "max_scale_in_fraction: [0.5\n", "", "not valid YAML"),
    ("syntax-error.json", '{"max_scale_in_fraction": }', "", "not valid JSON"),
    ("duplicate-key.yaml", "allow_replacement: true\nallow_replacement: false\n", "", "appears twice"),
    ("a-list.yaml", "- allow_replacement\n", "", "a policy file is an object"),
    ("a-string.json", '"allow_replacement"', "", "a policy file is an object"),
    ("empty.yaml", "", "", "empty"),
    ("binary.json", b"\x00\x01{}", "", "binary"),
    (
        "alias-bomb.yaml",
        "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 10)}]\n" for i in range(8)),
        "",
        "aliases expand",
    ),
    ("python-tag.yaml", '!!python/object/apply:os.system ["echo pwned"]\n', "", "constructor"),
]


DEEP = "[" * 5000 + "]" * 5000

PRICE_DEFECTS: list[tuple[str, str | bytes, str, str]] = [
    ("yaml-octal.yaml", "ml.p5.48xlarge: 010\n", "", "ambiguous"),
    ("yaml-sexagesimal.yaml", "ml.p5.48xlarge: 1:20\n", "ml.p5.48xlarge", "a number of USD per hour"),
    ("yaml-underscore.yaml", "ml.p5.48xlarge: 1_000\n", "ml.p5.48xlarge", "a number of USD per hour"),
    ("yaml-binary-number.yaml", "ml.p5.48xlarge: 0b11\n", "ml.p5.48xlarge", "a number of USD per hour"),
    ("yes-price.yaml", "ml.p5.48xlarge: yes\n", "ml.p5.48xlarge", "a number of USD per hour"),
    ("string-price.json", '{"ml.p5.48xlarge": "12"}', "ml.p5.48xlarge", "a number of USD per hour"),
    ("negative.json", '{"ml.p5.48xlarge": -1}', "ml.p5.48xlarge", "0 or more"),
    ("negative-regional.yaml", "regions:\n  us-west-2:\n    ml.p5.48xlarge: -3\n", "regions.us-west-2.ml.p5.48xlarge", "0 or more"),
    ("a-list.json", '["ml.p5.48xlarge"]', "", "a mapping"),
    ("unknown-key.yaml", "price: {}\n", "", "unknown key 'price'"),
    ("key-twice.json", '{"ml.p5.48xlarge": 1, "ml.p5.48xlarge": 2}', "", "appears twice"),
    ("nested-too-deep.json", DEEP, "", "nested too deeply"),
    ("binary.json", b"\x00\x01{}", "", "binary"),
    ("empty.yaml", "", "", "empty"),
    ("not-yaml.txt", "ml.p5.48xlarge: 1\n", "", "ends in .json, .yaml or .yml"),
]

LIFECYCLE_DEFECTS: list[tuple[str, str | bytes, str, str]] = [
    ("nested-too-deep.json", DEEP, "", "nested too deeply"),
    ("key-twice.json", '{"controller_group": "a", "controller_group": "b", "worker_groups": []}', "", "appears twice"),
    ("not-json.json", "{not json", "", "not valid JSON"),
    ("binary.json", b"\x00\x01{}", "", "binary"),
    ("empty.json", "", "", "empty"),
    ("no-controller.json", '{"login_group": "x", "worker_groups": []}', "controller_group", "required"),
]


def _plan_defects() -> list[tuple[str, Any, str, str]]:
    """Files `apply --plan` refuses before any call. Resealed tampering (a hash recomputed) is
    tests/reliability/tamper_trials.py: it needs a live cluster to show that nothing moved."""
    return [
        ("nested-too-deep.json", DEEP, "", "nested too deeply"),
        ("not-json.json", "{not json", "", "not valid JSON"),
        ("key-twice.json", '{"format": "hyperpod-plan/3", "format": "hyperpod-plan/3"}', "", "appears twice"),
        ("binary.json", b"\x00\x01{}", "", "binary"),
        ("empty.json", "", "", "empty"),
        ("not-a-plan.json", {"hello": 1}, "", "not a saved plan"),
        ("a-list.json", [1, 2], "", "not a saved plan"),
        ("old-format.json", {"format": "hyperpod-plan/1", "plan": {}}, "", "plan format 'hyperpod-plan/1'"),
        (
            "edited.json",
            {"format": "hyperpod-plan/3", "plan": {}, "cluster_name": "x", "integrity": "sha256:0"},
            "",
            "integrity check failed",
        ),
    ]


def _fleetplan_defects() -> list[tuple[str, Any, str, str]]:
    """Files `fleet apply BASE_FLEET --plan FILE` refuses before any preview: another fleet's plan
    (sealed, so only the fleet file's digest is wrong), an unknown format, a truncated file, …"""
    import hashlib

    from pulumi_hyperpod.core.planfile import digest

    def sealed(fleet_text: bytes) -> dict[str, Any]:
        pinned = {
            "fleet_file": "fleet.yaml",
            "fleet_digest": "sha256:" + hashlib.sha256(fleet_text).hexdigest(),
            "tool_version": "0",
            "stacks": [],
        }
        body = {
            "format": "hyperpod-fleet-plan/1",
            "stacks": [],
            "quotas": [],
            "refusals": [],
            "refused": False,
            "errors": 0,
            "empty": True,
            "pinned": pinned,
        }
        return {**body, "integrity": digest(body)}

    other = sealed(b"stacks: [{name: other, project: ., stack: other, region: eu-west-1}]\n")
    text = json.dumps(other, indent=2)
    return [
        ("another-fleet.json", other, "pinned.fleet_digest", "made from the fleet file 'fleet.yaml' as it was then"),
        ("unknown-format.json", {**other, "format": "hyperpod-fleet-plan/9"}, "format", "is not a saved fleet plan"),
        ("single-cluster-plan.json", {"format": "hyperpod-plan/3", "plan": {}}, "format", "is not a saved fleet plan"),
        ("truncated.json", text[: len(text) // 2], "", "not valid JSON"),
        ("edited.json", {**other, "empty": False}, "integrity", "the file was changed after it was saved"),
        ("printed-not-saved.json", {k: v for k, v in other.items() if k not in ("pinned", "integrity")}, "pinned", "pins no plan"),
        ("a-list.json", [1, 2], "format", "not a saved fleet plan"),
        ("empty.json", "", "", "empty"),
        ("no-suffix", "{}", "", "a saved fleet plan is a .json file"),
    ]


# (label, variable, value, rule fragment): `{dir}` is a directory, `{notes}` a text file, `{fifo}` a FIFO
ENV_DEFECTS: list[tuple[str, str, str, str]] = [
    ("fake-state-directory", "HYPERPOD_FAKE_STATE", "{dir}", "is a directory"),
    ("fake-state-dev-null", "HYPERPOD_FAKE_STATE", "/dev/null", "not a regular file"),
    ("fake-state-not-a-database", "HYPERPOD_FAKE_STATE", "{notes}", "not a simulator database"),
    ("fake-state-fifo", "HYPERPOD_FAKE_STATE", "{fifo}", "not a regular file"),
    # issue 36: someone's own SQLite database, and the simulators' clock, are not a world
    ("fake-state-someones-database", "HYPERPOD_FAKE_STATE", "{sqlite}", "not made by the simulator"),
    ("fake-state-clock", "HYPERPOD_FAKE_STATE", "{dir}/clock.sqlite", "is where the simulators' clock goes"),
    ("scenario-missing", "HYPERPOD_FAKE_SCENARIO", "{dir}/no-such.yaml", "cannot be read"),
    ("scenario-directory", "HYPERPOD_FAKE_SCENARIO", "{dir}", "not a regular file"),
    ("prices-missing", "HYPERPOD_PRICES", "{dir}/no-such.yaml", "no such file"),
    ("prices-directory", "HYPERPOD_PRICES", "{dir}", "is a directory"),
    ("prices-fifo", "HYPERPOD_PRICES", "{fifo}", "not a regular file"),
    ("max-attempts-word", "HYPERPOD_MAX_ATTEMPTS", "lots", "whole number"),
    ("max-attempts-zero", "HYPERPOD_MAX_ATTEMPTS", "0", "at least 1"),
    ("poll-seconds-word", "HYPERPOD_POLL_SECONDS", "soon", "must be a number"),
    ("poll-seconds-negative", "HYPERPOD_POLL_SECONDS", "-1", "at least 0"),
    ("poll-seconds-inf", "HYPERPOD_POLL_SECONDS", "inf", "at least 0"),
    ("region-spaces", "AWS_REGION", "us west 2", "not an AWS region"),
    ("region-unknown", "AWS_REGION", "mars-north-9", "not an AWS region"),
    ("region-pseudo", "AWS_REGION", "aws-global", "not an AWS region"),
    ("region-control-characters", "AWS_REGION", "us-west-2\x1b]0;owned\x07", "not an AWS region"),
]


def _snapshot_defects(base: dict) -> list[tuple[str, Any, str, str]]:
    def changed(edit: Callable[[dict], None]) -> dict:
        data = copy.deepcopy(base)
        edit(data)
        return data

    describe = lambda d: d["DescribeCluster"]
    group = lambda d, i: d["DescribeCluster"]["InstanceGroups"][i]
    node = lambda d, i: d["ClusterNodeSummaries"][i]
    return [
        (
            "another-cluster.json",
            changed(lambda d: describe(d).update(ClusterName="someone-elses")),
            "DescribeCluster.ClusterName",
            "the spec names",
        ),
        (
            "negative-current.json",
            changed(lambda d: group(d, 1).update(CurrentCount=-1)),
            "DescribeCluster.InstanceGroups[1].CurrentCount",
            "at least 0",
        ),
        (
            "negative-target.json",
            changed(lambda d: group(d, 1).update(TargetCount=-3)),
            "DescribeCluster.InstanceGroups[1].TargetCount",
            "at least 0",
        ),
        (
            "fractional-target.json",
            changed(lambda d: group(d, 1).update(TargetCount=2.5)),
            "DescribeCluster.InstanceGroups[1].TargetCount",
            "whole number",
        ),
        (
            "string-target.json",
            changed(lambda d: group(d, 1).update(TargetCount="2")),
            "DescribeCluster.InstanceGroups[1].TargetCount",
            "whole number",
        ),
        (
            "bool-min.json",
            changed(lambda d: group(d, 1).update(MinCount=False)),
            "DescribeCluster.InstanceGroups[1].MinCount",
            "whole number",
        ),
        (
            "huge-target.json",
            changed(lambda d: group(d, 1).update(TargetCount=10**9)),
            "DescribeCluster.InstanceGroups[1].TargetCount",
            "at most",
        ),
        (
            "unknown-cluster-status.json",
            changed(lambda d: describe(d).update(ClusterStatus="Happy")),
            "DescribeCluster.ClusterStatus",
            "must be one of",
        ),
        (
            "unknown-group-status.json",
            changed(lambda d: group(d, 0).update(Status="Sleeping")),
            "DescribeCluster.InstanceGroups[0].Status",
            "must be one of",
        ),
        (
            "unknown-node-status.json",
            changed(lambda d: node(d, 0)["InstanceStatus"].update(Status="Zombie")),
            "ClusterNodeSummaries[0].InstanceStatus.Status",
            "must be one of",
        ),
        (
            "markup-node-status.json",
            changed(lambda d: node(d, 0)["InstanceStatus"].update(Status="[/bogus]")),
            "ClusterNodeSummaries[0].InstanceStatus.Status",
            "'[/bogus]'",
        ),
        (
            "unknown-mode.json",
            changed(lambda d: describe(d).update(NodeProvisioningMode="Sometimes")),
            "DescribeCluster.NodeProvisioningMode",
            "Continuous",
        ),
        (
            "node-of-no-group.json",
            changed(lambda d: node(d, 1).update(InstanceGroupName="ghost")),
            "ClusterNodeSummaries[1].InstanceGroupName",
            "is not a group of cluster",
        ),
        (
            "duplicate-instance-id.json",
            changed(lambda d: d["ClusterNodeSummaries"].append(copy.deepcopy(node(d, 0)))),
            "ClusterNodeSummaries[2].InstanceId",
            "listed more than once",
        ),
        (
            "duplicate-group.json",
            changed(lambda d: describe(d)["InstanceGroups"].append(copy.deepcopy(group(d, 0)))),
            "DescribeCluster.InstanceGroups[2].InstanceGroupName",
            "listed more than once",
        ),
        ("unknown-format.json", changed(lambda d: d.update(Format="hyperpod-snapshot/2")), "Format", "not a snapshot format"),
        ("no-format.json", changed(lambda d: d.pop("Format")), "Format", "is required"),
        ("unknown-top-level.json", changed(lambda d: d.update(Nodes=[])), "Nodes", "not a known field"),
        ("no-describe.json", changed(lambda d: d.pop("DescribeCluster")), "DescribeCluster", "is required"),
        ("describe-not-object.json", changed(lambda d: d.update(DescribeCluster=[])), "DescribeCluster", "must be an object"),
        ("no-arn.json", changed(lambda d: describe(d).pop("ClusterArn")), "DescribeCluster.ClusterArn", "is required"),
        ("nodes-not-list.json", changed(lambda d: d.update(ClusterNodeSummaries="none")), "ClusterNodeSummaries", "must be a list"),
        (
            "nodes-twice.json",
            changed(lambda d: d.update(ListClusterNodes={"ClusterNodeSummaries": []})),
            "ClusterNodeSummaries",
            "give the nodes once",
        ),
        (
            "bad-launch-time.json",
            changed(lambda d: node(d, 0).update(LaunchTime="yesterday")),
            "ClusterNodeSummaries[0].LaunchTime",
            "timestamp",
        ),
        (
            "launch-time-1e20.json",
            changed(lambda d: node(d, 0).update(LaunchTime=1e20)),
            "ClusterNodeSummaries[0].LaunchTime",
            "must be a time from 1970-01-01",
        ),
        (
            "launch-time-year-99999.json",
            changed(lambda d: node(d, 0).update(LaunchTime="99999-01-01T00:00:00Z")),
            "ClusterNodeSummaries[0].LaunchTime",
            "timestamp",
        ),
        (
            "creation-time-1e20.json",
            changed(lambda d: describe(d).update(CreationTime=1e20)),
            "DescribeCluster.CreationTime",
            "must be a time from 1970-01-01",
        ),
        (
            "incomplete-listing.json",
            {
                "DescribeCluster": base["DescribeCluster"],
                "ListClusterNodes": {"ClusterNodeSummaries": base["ClusterNodeSummaries"], "NextToken": "x"},
            },
            "ListClusterNodes.NextToken",
            "incomplete",
        ),
        ("a-list.json", [base], "", "a snapshot is an object"),
        ("empty.json", "", "", "empty"),
        ("truncated.json", json.dumps(base)[:200], "", "not valid JSON"),
        (
            "yaml-octal.yaml",
            yaml.safe_dump(changed(lambda d: group(d, 1).update(TargetCount="__N__"))).replace("'__N__'", "010").replace("__N__", "010"),
            "",
            "ambiguous",
        ),
    ]


# ---- Google Cloud specs and Slurm specs (issues 23/24): corpora of their own ----------------------
GCP_CORPUS = HERE / "corpus-gcp"
SLURM_CORPUS = HERE / "corpus-slurm"
GCP_BASE = HERE.parents[1] / "examples" / "gcp-training-cluster" / "cluster.json"
SLURM_BASE = HERE.parents[1] / "examples" / "slurm-training-cluster" / "slurm.json"
_SS = "orchestrator_spec.slurm_spec"


def _gcp_defects(base: dict) -> list[tuple[str, Any, str, str]]:
    def changed(edit: Callable[[dict], None]) -> dict:
        data = copy.deepcopy(base)
        edit(data)
        return data

    slurm = lambda d: d["orchestratorSpec"]["slurmSpec"]
    a4 = lambda d: d["node_pools"][1]
    return [
        (
            "config-trailing-backslash.json",
            changed(lambda d: slurm(d)["config"].update(SchedulerParameters="bf_continue\\")),
            f"{_SS}.config.SchedulerParameters",
            "line continuation",
        ),
        (
            "config-newline.json",
            changed(lambda d: slurm(d)["config"].update(SchedulerParameters="a\nProlog=/x")),
            f"{_SS}.config.SchedulerParameters",
            "control character",
        ),
        (
            "config-hash.json",
            changed(lambda d: slurm(d)["config"].update(SchedulerParameters="a#b")),
            f"{_SS}.config.SchedulerParameters",
            "'#'",
        ),
        (
            "partition-config-backslash.json",
            changed(lambda d: slurm(d)["partitions"][0].update(config={"MaxTime": "1-0\\"})),
            f"{_SS}.partitions[0].config.MaxTime",
            "line continuation",
        ),
        (
            "partition-config-unknown-key.json",
            changed(lambda d: slurm(d)["partitions"][0].update(config={"MaxTme": "10"})),
            f"{_SS}.partitions[0].config.MaxTme",
            "not a parameter of a partition",
        ),
        (
            "partition-config-nodes.json",
            changed(lambda d: slurm(d)["partitions"][0].update(config={"Nodes": "ALL"})),
            f"{_SS}.partitions[0].config.Nodes",
            "node_pool_ids",
        ),
        (
            "partition-config-bad-time.json",
            changed(lambda d: slurm(d)["partitions"][0].update(config={"MaxTime": "forever"})),
            f"{_SS}.partitions[0].config.MaxTime",
            "must be a time",
        ),
        (
            "node-set-config-hash.json",
            changed(lambda d: slurm(d).update(node_sets=[{"node_pool_id": "a4", "config": {"Features": "a#b"}}])),
            f"{_SS}.node_sets[0].config.Features",
            "'#'",
        ),
        (
            "node-set-config-owned.json",
            changed(lambda d: slurm(d).update(node_sets=[{"node_pool_id": "a4", "config": {"NodeAddr": "x"}}])),
            f"{_SS}.node_sets[0].config.NodeAddr",
            "cannot be set here",
        ),
        ("bool-as-yes.json", changed(lambda d: a4(d).update(enable_public_ips="yes")), "node_pools[1].enable_public_ips", "true or false"),
        (
            "count-as-float-string.json",
            changed(lambda d: a4(d)["scaling_spec"].update(max_node_count="2.0")),
            "node_pools[1].scaling_spec.max_node_count",
            "whole number",
        ),
        (
            "min-above-max.json",
            changed(lambda d: a4(d).update(scaling_spec={"min_node_count": 3, "max_node_count": 2})),
            "node_pools[1].scaling_spec.min_node_count",
            "is above max_node_count",
        ),
        ("name-with-query.json", changed(lambda d: d.update(name=d["name"] + "?x")), "name", "must match"),
        ("name-with-fragment.json", changed(lambda d: d.update(name=d["name"] + "#x")), "name", "must match"),
    ]


def _slurm_defects(base: dict) -> list[tuple[str, Any, str, str]]:
    def changed(edit: Callable[[dict], None]) -> dict:
        data = copy.deepcopy(base)
        edit(data)
        return data

    return [
        (
            "config-trailing-backslash.json",
            changed(lambda d: d["config"].update(SchedulerParameters="bf_continue\\")),
            "config.SchedulerParameters",
            "line continuation",
        ),
        (
            "config-newline.json",
            changed(lambda d: d["config"].update(SchedulerParameters="a\nProlog=/x")),
            "config.SchedulerParameters",
            "one line",
        ),
        ("config-hash.json", changed(lambda d: d["config"].update(SchedulerParameters="a#b")), "config.SchedulerParameters", "'#'"),
        (
            "config-backslash.yaml",
            yaml.safe_dump(changed(lambda d: d["config"].update(SchedulerParameters="x\\"))),
            "config.SchedulerParameters",
            "line continuation",
        ),
        (
            "pool-twice.json",
            changed(lambda d: d["partitions"][0].update(node_pool_ids=["a4", "a4"])),
            "partitions[0].node_pool_ids",
            "more than once",
        ),
    ]


# ---- Slurm --workload files (squeue/sinfo --json): bounded before expansion, times in range --------
WORKLOAD_CORPUS = HERE / "corpus-workload"


def _job(**fields: Any) -> dict:
    return {"jobs": [{"job_id": 4122, "job_state": ["RUNNING"], "user_name": "bob", "nodes": "ip-10-1-25-162", **fields}]}


_TIME_RULE = "must be a time from 1970-01-01 to 2200-01-01"
WORKLOAD_DEFECTS: list[tuple[str, Any, str, str]] = [
    ("hostlist-ten-million.json", _job(nodes="ip-[0-999]-[0-999]-[0-9]"), "jobs[0].nodes", "at most 100,000"),
    ("hostlist-a-billion.json", _job(nodes="ip-[0-9999]-[0-9999]-[0-9]"), "jobs[0].nodes", "at most 100,000"),
    ("hostlist-ranges-in-one-bracket.json", _job(nodes="n[" + ",".join(["0-99999"] * 50) + "]"), "jobs[0].nodes", "at most 100,000"),
    ("hostlist-many-names.json", _job(nodes=",".join(["n[0-99999]"] * 50)), "jobs[0].nodes", "at most 100,000"),
    ("hostlist-long-bound.json", _job(nodes="ip-[0-" + "9" * 5000 + "]"), "jobs[0].nodes", "more than 18 digits"),
    ("end-time-1e20.json", _job(end_time=1e20), "jobs[0].end_time", _TIME_RULE),
    ("end-time-negative.json", _job(end_time=-86400), "jobs[0].end_time", _TIME_RULE),
    ("end-time-23-02-1e20.json", _job(end_time={"set": True, "infinite": False, "number": 1e20}), "jobs[0].end_time", _TIME_RULE),
    (
        "reason-time-1e20.json",
        {"nodes": [{"name": "ip-10-1-25-162", "state": ["IDLE", "DRAIN"], "reason": "x", "reason_changed_at": 1e20}]},
        "nodes[0].reason_changed_at",
        _TIME_RULE,
    ),
    (
        "grouped-reason-time-1e20.json",
        {"sinfo": [{"nodes": {"nodes": ["ip-10-1-25-162"]}, "node": {"state": ["IDLE"]}, "reason": {"description": "x", "time": 1e20}}]},
        "sinfo[0].reason.time",
        _TIME_RULE,
    ),
]


_FLEET_STACK = "{name: a, project: ., stack: a, region: us-west-2}"
FLEET_DEFECTS: list[tuple[str, str | bytes, str, str]] = [
    ("state-not-a-url.yaml", f"state: my-bucket\nstacks: [{_FLEET_STACK}]\n", "state", "a state backend is a URL"),
    ("state-unknown-scheme.yaml", f"state: 'ftp://host/state'\nstacks: [{_FLEET_STACK}]\n", "state", "scheme is one of s3, gs, azblob"),
    ("state-credential.yaml", f"state: 'https://me:token@api.pulumi.com'\nstacks: [{_FLEET_STACK}]\n", "state", "holds no credential"),
    (
        "state-not-text.json",
        '{"state": 3, "stacks": [{"name": "a", "project": ".", "stack": "a", "region": "us-west-2"}]}',
        "state",
        "valid string",
    ),
    (
        "stack-state-not-a-url.yaml",
        "stacks: [{name: a, project: ., stack: a, region: us-west-2, state: 'bucket/path'}]\n",
        "stacks[0].state",
        "a state backend is a URL",
    ),
    (
        "stack-state-unknown-scheme.yaml",
        "stacks: [{name: a, project: ., stack: a, region: us-west-2, state: 'mysql://db/state'}]\n",
        "stacks[0].state",
        "scheme is one of",
    ),
    ("secrets-provider-a-list.yaml", f"secrets_provider: [passphrase]\nstacks: [{_FLEET_STACK}]\n", "secrets_provider", "valid string"),
    (
        "account-short.yaml",
        "stacks: [{name: a, project: ., stack: a, region: us-west-2, account: '12345'}]\n",
        "stacks[0].account",
        "12 digits",
    ),
]


def _write(directory: Path, name: str, content: Any) -> None:
    file = directory / name
    if isinstance(content, bytes):
        file.write_bytes(content)
    elif isinstance(content, str):
        file.write_text(content, encoding="utf-8")
    else:
        file.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")


def make_side_corpus(directory: Path, defects: list) -> int:
    directory.mkdir(exist_ok=True)
    for old in directory.iterdir():
        old.unlink()
    expected = {}
    for name, content, path, rule in defects:
        _write(directory, name, content)
        expected[name] = [path, rule]
    (directory.parent / f"expected-{directory.name.split('-')[1]}.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    return len(expected)


def main() -> None:
    policies = make_side_corpus(POLICY_CORPUS, POLICY_DEFECTS)
    snapshots = make_side_corpus(SNAPSHOT_CORPUS, _snapshot_defects(json.loads(BASE_SNAPSHOT.read_text())))
    prices = make_side_corpus(PRICES_CORPUS, PRICE_DEFECTS)
    lifecycles = make_side_corpus(LIFECYCLE_CORPUS, LIFECYCLE_DEFECTS)
    plans = make_side_corpus(PLAN_CORPUS, _plan_defects())
    plans += make_side_corpus(FLEETPLAN_CORPUS, _fleetplan_defects())
    fleets = make_side_corpus(FLEET_CORPUS, FLEET_DEFECTS)
    print(f"{fleets} bad fleet files")
    (HERE / "expected-env.json").write_text(
        json.dumps({label: [variable, value, rule] for label, variable, value, rule in ENV_DEFECTS}, indent=1, sort_keys=True) + "\n"
    )
    print(
        f"{policies} bad policies, {snapshots} bad snapshots, {prices} bad price files, {lifecycles} bad lifecycle "
        f"parameters, {plans} bad saved plans, {len(ENV_DEFECTS)} bad environment values"
    )
    gcp = make_side_corpus(GCP_CORPUS, _gcp_defects(json.loads(GCP_BASE.read_text())))
    slurm = make_side_corpus(SLURM_CORPUS, _slurm_defects(json.loads(SLURM_BASE.read_text())))
    workloads = make_side_corpus(WORKLOAD_CORPUS, WORKLOAD_DEFECTS)
    print(f"{gcp} bad Google Cloud specs, {slurm} bad Slurm specs, {workloads} bad Slurm --workload files")
    CORPUS.mkdir(exist_ok=True)
    for old in CORPUS.iterdir():
        old.unlink()
    expected: dict[str, list[str]] = {}
    for seed_file in sorted(SEEDS.glob("*.json")):
        seed = seed_file.stem
        text = seed_file.read_text()
        original = json.loads(text)
        for index, (name, (mutation, path_override, rule_override)) in enumerate(MUTATIONS.items()):
            spec = copy.deepcopy(original)
            outcome = mutation(spec)
            if outcome is None:
                continue
            path, rule = outcome
            if path == "__replace__":
                spec, path, rule = rule, "", ""
            path, rule = path_override or path, rule_override or rule
            suffix = ".yaml" if index % 2 else ".json"  # alternate, so both parsers see every kind
            file = CORPUS / f"{seed}__{name}{suffix}"
            if suffix == ".json":
                file.write_text(json.dumps(spec, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            else:
                file.write_text(yaml.safe_dump(spec, sort_keys=False, allow_unicode=True), encoding="utf-8")
            expected[file.name] = [path, rule]
        for name, (suffix, build, path, rule) in TEXT_DEFECTS.items():
            file = CORPUS / f"{seed}__{name}{suffix}"
            content = build(text)
            if isinstance(content, bytes):
                file.write_bytes(content)
            else:
                file.write_text(content, encoding="utf-8")
            expected[file.name] = [path, rule]
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    print(f"{len(expected)} bad inputs in {CORPUS.relative_to(HERE.parents[1])}")


if __name__ == "__main__":
    main()
