"""The rules the service states in words: every sentence of botocore's `sagemaker` model documentation
on the cluster shapes (CreateCluster's and UpdateCluster's requests and every shape they reach) that
says "requires", "available only for", "valid only when", "mutually exclusive", "must"… is here, as
one of three things:

- a `Rule` this module checks on a desired spec (`violations`), its sentence quoted in the error;
- a `Covered` sentence: a rule `rules.py` has checked since before (named by its function);
- an `Unchecked` sentence: one a spec alone cannot decide (an IAM policy, a database, an AMI's
  encryption, another operation), with the reason.

tests/unit/aws/spec/test_rulesdoc.py walks the model's documentation and fails when a sentence of
that kind is none of them; docs/rules.md is this table rendered (`python -m
pulumi_hyperpod.aws.spec.rulesdoc`). A few rules come from AWS pages rather than the model;
their source says which. The simulator keeps its own implementation of the same sentences
(sim/aws/service_rules.py): a wrong rule here is not also a wrong answer there.

Every check takes the request-shaped dict (the model's key spelling) and yields Violations whose rule
ends with the quoted source, so the one error line names the file, the field, the rule and why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Iterator

from pulumi_hyperpod.core.errors import Violation
from pulumi_hyperpod.aws.spec.rules import orchestrator_kind

MODEL = "botocore 1.44.8 sagemaker model"
AMI_UPDATE_PAGE = "AWS, Update your AMI version in your SageMaker HyperPod cluster (docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-ami-update.html)"


@dataclass(frozen=True, slots=True)
class Source:
    """Where a rule is written: `where` is `Shape.Member` in the model (or a page), `sentence` its words."""

    where: str
    sentence: str
    document: str = MODEL


Check = Callable[[dict[str, Any]], Iterator[Violation]]


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    sources: tuple[Source, ...]
    check: Check


@dataclass(frozen=True, slots=True)
class Covered:
    """A sentence `rules.py` checks already (`by` names the function)."""

    sources: tuple[Source, ...]
    by: str


@dataclass(frozen=True, slots=True)
class Unchecked:
    sources: tuple[Source, ...]
    reason: str


def _hint(source: Source) -> str:
    return f' ({source.where}: "{source.sentence}")'


# ---- walking a request --------------------------------------------------------------------------------
def _groups(request: dict[str, Any], *keys: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for key in keys:
        value = request.get(key)
        for index, group in enumerate(value if isinstance(value, list) else []):
            if isinstance(group, dict):
                yield f"{key}[{index}]", group


def _member(data: Any, *path: str) -> Any:
    for part in path:
        data = data.get(part) if isinstance(data, dict) else None
    return data


def _volumes(request: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for where, group in _groups(request, "InstanceGroups", "RestrictedInstanceGroups"):
        storage = group.get("InstanceStorageConfigs")
        for slot, config in enumerate(storage if isinstance(storage, list) else []):
            ebs = _member(config, "EbsVolumeConfig")
            if isinstance(ebs, dict):
                yield f"{where}.InstanceStorageConfigs[{slot}].EbsVolumeConfig", ebs


# ---- the sources -------------------------------------------------------------------------------------
DRAIN_FIRST_NEEDS_BATCH = Source("ClusterAutoPatchConfig.PatchingStrategy", "Requires MaximumBatchSize in DeploymentConfig .")
DRAIN_FIRST_EKS_ONLY = Source(
    "ClusterAutoPatchConfig.PatchingStrategy", "Available only for clusters that use Amazon EKS as the orchestrator."
)
DRAIN_POLICY_ONLY = Source("ClusterAutoPatchConfig.DrainPolicy", "Valid only when PatchingStrategy is DrainFirst .")
IDLE_WAIT_ONLY = Source(
    "ClusterAutoPatchConfig.IdleWaitWindowInSeconds", "This setting applies only to the WhenIdle and WhenAllIdle strategies."
)
BATCHES_EKS_ONLY = Source(
    "ScheduledUpdateConfig.DeploymentConfig, ClusterAutoPatchConfig.DeploymentConfig",
    "Updating your cluster in batches is available only for HyperPod clusters integrated with Amazon EKS.",
    AMI_UPDATE_PAGE,
)
CRON = Source(
    "ScheduledUpdateConfig.ScheduleExpression",
    "A cron expression that specifies the schedule that SageMaker follows when updating the AMI.",
)
ONE_ENTRYPOINT = Source(
    "ClusterLifeCycleConfig.OnCreate, ClusterLifeCycleConfig.OnInitComplete",
    "OnCreate with OnInitComplete (mutually exclusive; OnInitComplete is unknown to the project)",
    "issue 37, item 3, from its outside round (the model documents each member, not the pair)",
)
ROOT_NO_SIZE = Source("ClusterEbsVolumeConfig.RootVolume", "You can't specify the VolumeSizeInGB field.")
ROOT_NEEDS_KMS = Source(
    "ClusterEbsVolumeConfig.RootVolume",
    "You must specify a KMS key ID for VolumeKmsKeyId to encrypt the root volume with your own KMS key instead of an "
    "Amazon Web Services owned KMS key.",
)
SECONDARY_NEEDS_SIZE = Source("ClusterEbsVolumeConfig.RootVolume", "You must specify the VolumeSizeInGB field.")
ACCOUNTING_CONTINUOUS = Source(
    "ClusterOrchestratorSlurmConfig.AccountingDatabase",
    "This field is only supported for clusters using Continuous as the NodeProvisioningMode .",
)


# ---- the checks --------------------------------------------------------------------------------------
def _patching(request: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for where, group in _groups(request, "InstanceGroups"):
        config = group.get("AutoPatchConfig")
        if isinstance(config, dict):
            yield f"{where}.AutoPatchConfig", config


def _patch_rule(field: str, source: Source, broken: Callable[[dict[str, Any], str], str | None]) -> Check:
    """A rule on each AutoPatchConfig: `broken(config, orchestrator kind)` is why it is broken, or None."""

    def check(request: dict[str, Any]) -> Iterator[Violation]:
        kind = orchestrator_kind(request)
        for where, config in _patching(request):
            why = broken(config, kind)
            if why:
                yield Violation(f"{where}.{field}", why + _hint(source))

    return check


def _drain_first(config: dict[str, Any]) -> bool:
    return config.get("PatchingStrategy") == "DrainFirst"


drain_first_eks_only = _patch_rule(
    "PatchingStrategy",
    DRAIN_FIRST_EKS_ONLY,
    lambda config, kind: (
        "DrainFirst is available only for EKS-orchestrated clusters; this cluster is orchestrated by Slurm: use WhenIdle or WhenAllIdle"
        if kind != "Eks" and _drain_first(config)
        else None
    ),
)
drain_first_needs_batch = _patch_rule(
    "DeploymentConfig",
    DRAIN_FIRST_NEEDS_BATCH,
    lambda config, kind: (
        "DrainFirst needs DeploymentConfig.RollingUpdatePolicy.MaximumBatchSize (how many instances it drains and patches at a time)"
        if _drain_first(config) and _member(config, "DeploymentConfig", "RollingUpdatePolicy", "MaximumBatchSize") is None
        else None
    ),
)
drain_policy_only_with_drain_first = _patch_rule(
    "DrainPolicy",
    DRAIN_POLICY_ONLY,
    lambda config, kind: (
        f"is valid only with PatchingStrategy DrainFirst; this group's strategy is {config.get('PatchingStrategy')}: "
        "remove DrainPolicy or use DrainFirst"
        if config.get("DrainPolicy") is not None and not _drain_first(config)
        else None
    ),
)
idle_wait_only_when_idle = _patch_rule(
    "IdleWaitWindowInSeconds",
    IDLE_WAIT_ONLY,
    lambda config, kind: (
        "applies only to the WhenIdle and WhenAllIdle strategies; DrainFirst does not wait for idle instances "
        "(its wait is DrainPolicy.DrainTimeoutInSeconds): remove it"
        if config.get("IdleWaitWindowInSeconds") is not None and _drain_first(config)
        else None
    ),
)


def batches_eks_only(request: dict[str, Any]) -> Iterator[Violation]:
    if orchestrator_kind(request) == "Eks":
        return
    for where, group in _groups(request, "InstanceGroups"):
        for holder in ("ScheduledUpdateConfig", "AutoPatchConfig"):
            if _member(group, holder, "PatchingStrategy") == "DrainFirst":
                continue  # drain-first-eks-only says it, of the strategy that asks for batches
            if _member(group, holder, "DeploymentConfig") is not None:
                yield Violation(
                    f"{where}.{holder}.DeploymentConfig",
                    "rolling updates in batches are available only for EKS-orchestrated clusters; a Slurm cluster's "
                    "groups are updated all at once: remove DeploymentConfig" + _hint(BATCHES_EKS_ONLY),
                )


def one_lifecycle_entrypoint(request: dict[str, Any]) -> Iterator[Violation]:
    for where, group in _groups(request, "InstanceGroups"):
        config = group.get("LifeCycleConfig")
        if isinstance(config, dict) and config.get("OnCreate") is not None and config.get("OnInitComplete") is not None:
            yield Violation(
                f"{where}.LifeCycleConfig.OnInitComplete",
                "OnCreate and OnInitComplete are mutually exclusive: give one of them" + _hint(ONE_ENTRYPOINT),
            )


# AWS cron: six fields, `cron(minutes hours day-of-month month day-of-week year)` (the form of the
# HyperPod AMI-update page's examples), each a value, a range, a list or a step, or `?` for a day.
_CRON = re.compile(r"^cron\(([^()]*)\)$")
_MONTHS = "JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC"
_DAYS = "SUN|MON|TUE|WED|THU|FRI|SAT"
_FIELD = {
    "minutes": r"[0-5]?\d",
    "hours": r"(1?\d|2[0-3])",
    "day-of-month": r"([1-9]|[12]\d|3[01])W?|L|LW",
    "month": rf"([1-9]|1[0-2]|{_MONTHS})",
    "day-of-week": rf"([1-7]|{_DAYS})(#[1-5]|L)?|L",
    "year": r"(19[7-9]\d|2[01]\d\d)",
}


def _cron_field(value: str, kind: str) -> bool:
    single = _FIELD[kind]
    item = rf"(\*|{single})(-({single}))?(/\d+)?"
    return (value == "?" and kind in ("day-of-month", "day-of-week")) or re.fullmatch(rf"{item}(,{item})*", value, re.I) is not None


def cron_problem(expression: str) -> str | None:
    """Why `expression` is not an AWS cron expression, or None when it is one."""
    match = _CRON.match(expression.strip())
    if not match:
        return f"{expression!r} is not a cron expression: write cron(minutes hours day-of-month month day-of-week year)"
    fields = match.group(1).split()
    if len(fields) != 6:
        return f"{expression!r} has {len(fields)} fields; a cron expression has 6 (minutes hours day-of-month month day-of-week year)"
    for value, kind in zip(fields, _FIELD, strict=True):  # six fields, checked above
        if not _cron_field(value, kind):
            return f"{expression!r}: {value!r} is not a {kind} value"
    return None


def schedule_is_cron(request: dict[str, Any]) -> Iterator[Violation]:
    for where, group in _groups(request, "InstanceGroups", "RestrictedInstanceGroups"):
        expression = _member(group, "ScheduledUpdateConfig", "ScheduleExpression")
        problem = cron_problem(expression) if isinstance(expression, str) else None
        if problem:
            yield Violation(f"{where}.ScheduledUpdateConfig.ScheduleExpression", problem + _hint(CRON))


def root_volume_rules(request: dict[str, Any]) -> Iterator[Violation]:
    for where, ebs in _volumes(request):
        if ebs.get("RootVolume") is True:
            if ebs.get("VolumeSizeInGB") is not None:
                yield Violation(
                    f"{where}.VolumeSizeInGB",
                    "cannot be given for the root volume (RootVolume true): its size is determined for you" + _hint(ROOT_NO_SIZE),
                )
            if ebs.get("VolumeKmsKeyId") is None:
                yield Violation(
                    f"{where}.VolumeKmsKeyId",
                    "is required with RootVolume true (the root volume is configured only to encrypt it with your KMS key)"
                    + _hint(ROOT_NEEDS_KMS),
                )
        elif ebs.get("VolumeSizeInGB") is None:
            yield Violation(
                f"{where}.VolumeSizeInGB",
                "is required for a secondary volume (RootVolume false or absent)" + _hint(SECONDARY_NEEDS_SIZE),
            )


def accounting_database_continuous(request: dict[str, Any]) -> Iterator[Violation]:
    if _member(request, "Orchestrator", "Slurm", "AccountingDatabase") is not None and request.get("NodeProvisioningMode") != "Continuous":
        yield Violation(
            "Orchestrator.Slurm.AccountingDatabase",
            "is supported only for clusters with NodeProvisioningMode Continuous" + _hint(ACCOUNTING_CONTINUOUS),
        )


RULES: tuple[Rule, ...] = (
    Rule("drain-first-eks-only", (DRAIN_FIRST_EKS_ONLY,), drain_first_eks_only),
    Rule("drain-first-needs-batch-size", (DRAIN_FIRST_NEEDS_BATCH,), drain_first_needs_batch),
    Rule(
        "drain-policy-only-with-drain-first",
        (DRAIN_POLICY_ONLY, Source("ClusterDrainPolicy", DRAIN_POLICY_ONLY.sentence)),
        drain_policy_only_with_drain_first,
    ),
    Rule("idle-wait-only-when-idle", (IDLE_WAIT_ONLY,), idle_wait_only_when_idle),
    Rule("batches-eks-only", (BATCHES_EKS_ONLY,), batches_eks_only),
    Rule("one-lifecycle-entrypoint", (ONE_ENTRYPOINT,), one_lifecycle_entrypoint),
    Rule("schedule-is-cron", (CRON,), schedule_is_cron),
    Rule("root-volume", (ROOT_NO_SIZE, ROOT_NEEDS_KMS, SECONDARY_NEEDS_SIZE), root_volume_rules),
    Rule(
        "accounting-database-continuous",
        (ACCOUNTING_CONTINUOUS, Source("ClusterAccountingDatabase", ACCOUNTING_CONTINUOUS.sentence)),
        accounting_database_continuous,
    ),
)

_EXACTLY_ONE = "If you specify the Orchestrator field, you must provide exactly one orchestrator configuration: either Eks or Slurm ."
_EXCLUSIVE = "The InstanceType and InstanceRequirements properties are mutually exclusive."
_UNIQUE = "Tag keys must be unique per resource."
COVERED: tuple[Covered, ...] = (
    Covered((Source("ClusterOrchestrator", _EXACTLY_ONE), Source("CreateClusterRequest.Orchestrator", _EXACTLY_ONE)), "orchestrator_rules"),
    Covered(
        (Source("ClusterInstanceGroupSpecification.InstanceRequirements", _EXCLUSIVE), Source("ClusterInstanceRequirements", _EXCLUSIVE)),
        "group_rules",
    ),
    Covered((Source("Tag.Key", _UNIQUE),), "tag_rules"),
    Covered(
        (
            Source(
                "CreateClusterRequest.ClusterRole",
                "This is only required when autoscaling is enabled and when HyperPod is performing autoscaling operations.",
            ),
        ),
        "autoscaling_rules",
    ),
)

_AMI = "ClusterInstanceGroupSpecification.ImageId"
UNCHECKED: tuple[Unchecked, ...] = (
    Unchecked(
        (
            Source(
                "ClusterAccountingDatabase.Endpoint",
                "The database must be reachable from the subnets and security groups that you configure for the cluster.",
            ),
        ),
        "a network fact: no spec or API call of this tool can reach the database",
    ),
    Unchecked(
        (
            Source(
                "ClusterAccountingDatabase.SecretArn",
                "The database user must be able to create the schema and to read from and write to it.",
            ),
        ),
        "the database's grants: only the database knows them",
    ),
    Unchecked(
        (
            Source(
                "ClusterInstanceGroupSpecification.MinInstanceCount",
                "Defines the minimum number of instances required for an instance group to become InService .",
            ),
        ),
        "a definition, not a constraint (MinInstanceCount's rules, from the continuous-provisioning pages, are rules.py's group_rules)",
    ),
    Unchecked(
        (
            Source(
                _AMI,
                "For clusters with continuous scaling node provisioning mode, new instance groups inherit the AMI from the "
                "earliest existing instance group If you choose to use a custom AMI ( CustomAmiId ), ensure it meets the "
                "following requirements: Encryption: The custom AMI must be unencrypted.",
            ),
            Source(
                _AMI,
                "Ownership: The custom AMI must be owned by the same Amazon Web Services account that is creating the HyperPod cluster.",
            ),
            Source(_AMI, "Volume support: Only the primary AMI snapshot volume is supported; additional AMI volumes are not supported."),
        ),
        "facts of the AMI (encryption, owner, volumes) that only EC2 DescribeImages knows; the tool does not call EC2",
    ),
    Unchecked(
        (
            Source(
                _AMI,
                "When updating the instance group's AMI through the UpdateClusterSoftware operation, if an instance group "
                "uses a custom AMI, you must provide an ImageId or use the default as input.",
            ),
        ),
        "a rule of UpdateClusterSoftware's request, which the planner writes itself (aws/planner/software.py), not of a spec",
    ),
    Unchecked(
        (Source("ClusterLifeCycleConfig.SourceS3Uri", "Make sure that the S3 bucket path starts with s3://sagemaker- ."),),
        "advice tied to the managed AmazonSageMakerClusterInstanceRolePolicy: an execution role of your own may grant any bucket",
    ),
    Unchecked(
        (Source("CreateClusterRequest.NodeProvisioningMode", "This mode is only supported for EKS orchestrated clusters."),),
        "superseded: AWS's page on continuous provisioning for Slurm clusters (seed 000) documents Continuous on Slurm, so "
        "both the spec and the simulator accept it",
    ),
    Unchecked(
        (
            Source(
                "CreateClusterRequest.ClusterRole",
                "This role must have permissions for sagemaker:BatchAddClusterNodes and sagemaker:BatchDeleteClusterNodes .",
            ),
        ),
        "an IAM policy: the tool does not read IAM",
    ),
    Unchecked(
        (Source("UpdateClusterRequest.ClusterRole", "Cannot be updated while autoscaling is enabled."),),
        "needs the cluster as it is, not the spec: the simulator refuses it on UpdateCluster (sim/aws/service_rules.py)",
    ),
    Unchecked(
        (Source("ClusterAutoPatchConfig.DeploymentConfig", "Only applicable when using a rolling patching strategy."),),
        "the model does not say which strategies roll; DrainFirst's need for it is the rule drain-first-needs-batch-size",
    ),
)


def violations(request: dict[str, Any]) -> list[Violation]:
    """Every documented rule `request` (a desired cluster, the model's spelling) breaks."""
    return [problem for rule in RULES for problem in rule.check(request)]


def every_source() -> list[tuple[str, Source, str]]:
    """(kind, source, what decides it) for every entry: `rule` (its code), `covered` (the rules.py
    function), `unchecked` (the reason)."""
    found: list[tuple[str, Source, str]] = []
    found += [("rule", source, rule.code) for rule in RULES for source in rule.sources]
    found += [("covered", source, entry.by) for entry in COVERED for source in entry.sources]
    found += [("unchecked", source, entry.reason) for entry in UNCHECKED for source in entry.sources]
    return found
