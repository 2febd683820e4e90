"""One verdict for every input member of a HyperPod cluster: how it is read back, how it changes,
and the source that decides it.

The rows cover every member of CreateCluster's and UpdateCluster's inputs and of the group shapes
(`ClusterInstanceGroupSpecification`, `ClusterRestrictedInstanceGroupSpecification`); a structure
whose parts change differently (Orchestrator, KubernetesConfig, SlurmConfig, AutoScaling…) has one
row per part. `coverage.missing()` walks botocore's model and names any member without a row, so a
botocore release that adds one fails a test, not a user. The planner (`aws/planner/compare.py`,
`aws/planner/members.py`), the simulator (`fake/validation.py`, `fake/operations.py`) and
docs/members.md all read these rows.

Each row's sources (`sources.py`): botocore's model (the request shape and member, its
documentation, whether UpdateCluster takes it), the newest CloudFormation schema (create-only,
read-only, updatable or absent: `cfn_schema.py`), and an AWS page or seed where one decides
(`page`). A verdict stands on a source that decides it (`decided_by`); a row no source decides is
`unverified`, with what is missing, and the plan says so rather than asserting it.

How a change is made (`change`):
- `UpdateCluster` — in place; a group's entry is the group's whole specification (see OMITTED).
- `UpdateClusterSoftware` — the platform image: UpdateCluster records the desired image for new
  nodes and the plan says so; existing nodes are patched by an UpdateClusterSoftware rollout.
- `AddTags/DeleteTags` — cluster tags, read with ListTags.
- `new group name` — the service keeps the value the group was created with: refused in place,
  with the advice to add a group under a new name and remove the old one.
- `replacement` — the cluster is deleted and created again (refused unless the policy allows it).
- `counts` — InstanceCount: UpdateCluster, BatchAddClusterNodes or BatchDeleteClusterNodes, chosen
  by the count planner (victims, limits, autoscaler ownership).
- `identity` — names the cluster or group: another name is another cluster or group.
- `refused` — not part of a desired spec (the plan derives it).

What an omitted member means (`omitted`), the one rule planner and simulator share:
- `cleared` — a group entry in UpdateCluster is the group's whole specification: the service takes
  the request's entry as the group's new specification, so a member the entry leaves out is removed
  (AWS, "Update a SageMaker HyperPod cluster on training plans"). The planner shows every removal
  as a plan line ("TrainingPlanArn removed"); the simulator replaces the group's specification.
- `kept` — the value the cluster has stays: the planner copies the observed value into the entry it
  sends (service defaults, the image, the Slurm role, counts), and top-level UpdateCluster members
  are optional request members the service leaves unchanged when absent.

Members the service fills in (`FILLED`): read-only in the schema, or in DescribeCluster's shapes and
not in the request's. They are never compared against a spec that leaves them out, and one the
request also takes (AutoPatchConfig's NextPatchDate) is kept in every UpdateCluster entry that
carries its structure, so an update does not undo what the service set.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from pulumi_hyperpod.aws.members import sources as src
from pulumi_hyperpod.aws.members.sources import Page

Change = Literal[
    "UpdateCluster", "UpdateClusterSoftware", "AddTags/DeleteTags", "new group name", "replacement", "counts", "identity", "refused"
]
Scope = Literal["cluster", "group", "restricted-group"]
Omitted = Literal["cleared", "kept"]
CHANGES: tuple[Change, ...] = (
    "UpdateCluster",
    "UpdateClusterSoftware",
    "AddTags/DeleteTags",
    "new group name",
    "replacement",
    "counts",
    "identity",
    "refused",
)
UNVERIFIED = "unverified"


@dataclass(frozen=True, slots=True)
class Member:
    """One input member. `path` is relative to its scope, parts joined with `.`:
    `TrainingPlanArn`, `KubernetesConfig.Labels`, `Orchestrator.Slurm.AccountingDatabase`."""

    scope: Scope
    path: str
    change: Change
    omitted: Omitted
    page: Page | None = None  # the AWS page (or seed) that decides, where the model and the schema do not
    # where DescribeCluster reports it, relative to the described group (or cluster); () = under its own name
    reported_as: tuple[str, ...] = ()
    read: str = "DescribeCluster"  # or "ListTags", or "not readable" (then: the last applied spec, said in the plan)
    note: str = ""
    unverified: str = ""  # what is missing when no source decides: the plan says "unverified: …"
    # renames inside the reported structure: (described part, request part), as DesiredPatchSchedule → PatchSchedule
    inner: tuple[tuple[str, str], ...] = ()

    @property
    def parts(self) -> tuple[str, ...]:
        return tuple(self.path.split("."))

    @property
    def reported(self) -> tuple[str, ...]:
        return self.reported_as or self.parts

    @property
    def key(self) -> str:
        prefix = {"cluster": "", "group": "InstanceGroups[].", "restricted-group": "RestrictedInstanceGroups[]."}[self.scope]
        return prefix + self.path

    @property
    def verdict(self) -> str:
        return UNVERIFIED if self.unverified else self.change


@dataclass(frozen=True, slots=True)
class Filled:
    """A member the service fills in. `described` is where DescribeCluster reports it (relative to the
    scope); `request` is the request's path for it when the request takes it too ("" when not)."""

    scope: Scope
    described: str
    source: str
    request: str = ""

    @property
    def parts(self) -> tuple[str, ...]:
        return tuple(self.described.split("."))


Judgement = Literal["rule", "unverified", "response"]


@dataclass(frozen=True, slots=True)
class Sentence:
    """A cross-field sentence of the model's documentation and what the tool does with it: a rule that
    checks it (`rule` names where), `unverified` (no rule checks it: `why`), or `response` (it
    describes DescribeCluster's answer; the request's sentence is the rule)."""

    shape: str
    member: str
    text: str
    judgement: Judgement
    rule: str = ""
    why: str = ""


def decided_by(member: Member) -> str | None:
    """The source that decides a row's verdict, or None (then the row must say what is missing)."""
    if member.change in ("identity", "counts", "refused"):
        return "definition"
    if member.page is not None:
        return "page"
    cfn, model = src.cfn_of(member), src.model_of(member)
    if member.change in ("replacement", "new group name") and cfn.status == "create-only":
        return "cloudformation"
    if member.change in ("UpdateCluster", "UpdateClusterSoftware") and cfn.status == "updatable" and model.in_update:
        return "cloudformation"
    return None


_NO_RULE = "no rule checks it yet (issue 37 item 3: aws/spec/rules.py)"


def _group_rows(scope: Scope) -> list[Member]:
    def row(path: str, change: Change, omitted: Omitted, page: Page | None = None, reported: tuple[str, ...] = (), **more) -> Member:
        return Member(scope, path, change, omitted, page, reported, **more)

    return [
        row("InstanceGroupName", "identity", "kept", note="a new name is a new group; a group left out of the spec is deleted"),
        row(
            "InstanceCount",
            "counts",
            "kept",
            src.SEED000,
            ("TargetCount",),
            note="the count planner (aws/planner/rules.py); owned by Karpenter when AutoScaling Mode is Enable: shown, never reconciled",
        ),
        row("MinInstanceCount", "UpdateCluster", "kept", src.SEED000, ("MinCount",)),
        row(
            "InstanceType",
            "new group name",
            "kept",
            src.UPDATE_GUIDE,
            note="the newest CloudFormation schema updates it in place; the page, which is the service's own word, decides",
        ),
        row(
            "InstanceRequirements.InstanceTypes",
            "UpdateCluster",
            "kept",
            src.SEED001,
            ("InstanceRequirements", "DesiredInstanceTypes"),
            note="a fixed group cannot become flexible or the other way (new group name)",
        ),
        row("LifeCycleConfig", "UpdateCluster", "cleared", src.UPDATE_GUIDE, note="existing nodes keep how they were built"),
        row("ExecutionRole", "UpdateCluster", "kept", note="nodes launched later assume the new role"),
        row("ThreadsPerCore", "UpdateCluster", "kept", note="left out, the service's choice at creation stays; existing nodes keep theirs"),
        row("InstanceStorageConfigs", "UpdateCluster", "cleared", note="nodes launched later get the new storage"),
        row("OnStartDeepHealthChecks", "UpdateCluster", "cleared"),
        row(
            "TrainingPlanArn",
            "UpdateCluster",
            "cleared",
            src.TRAINING_PLAN_GUIDE,
            note="the training plan's reserved capacity bounds the group (ListClusters TrainingPlanArn)",
        ),
        row("OverrideVpcConfig", "UpdateCluster", "kept", note="nodes launched later use the new subnets and security groups"),
        row("ScheduledUpdateConfig", "UpdateCluster", "cleared"),
        row("EnvironmentConfig", "UpdateCluster", "cleared"),
        row("ImageId", "UpdateClusterSoftware", "kept", src.SOFTWARE_GUIDE, ("DesiredImageId",)),
        row("ImageReleaseVersion", "UpdateClusterSoftware", "kept", src.SOFTWARE_GUIDE, ("DesiredImageReleaseVersion",)),
        row(
            "AutoPatchConfig",
            "UpdateCluster",
            "cleared",
            note="DescribeCluster reports PatchSchedule as DesiredPatchSchedule; the service sets NextPatchDate (FILLED)",
            inner=(("DesiredPatchSchedule", "PatchSchedule"),),
        ),
        row("KubernetesConfig.Labels", "UpdateCluster", "cleared", reported=("KubernetesConfig", "DesiredLabels")),
        row("KubernetesConfig.Taints", "UpdateCluster", "cleared", reported=("KubernetesConfig", "DesiredTaints")),
        row("SlurmConfig.NodeType", "new group name", "kept", src.SLURM_MIGRATION),
        row("SlurmConfig.PartitionNames", "UpdateCluster", "kept", note="left out with SlurmConfig, the group keeps its partitions"),
        row(
            "CapacityRequirements",
            "UpdateCluster",
            "cleared",
            note="nodes launched later use the new capacity type (Spot or OnDemand, the default)",
        ),
        row("NetworkInterface", "UpdateCluster", "cleared"),
    ]


def _cluster_rows() -> list[Member]:
    def row(path: str, change: Change, omitted: Omitted, page: Page | None = None, **more) -> Member:
        return Member("cluster", path, change, omitted, page, **more)

    return [
        row("ClusterName", "identity", "kept", note="a new name is a new cluster"),
        row("VpcConfig", "replacement", "kept"),
        row(
            "Tags",
            "AddTags/DeleteTags",
            "kept",
            src.TAGGING,
            read="ListTags",
            note="left out of the spec, the cluster's tags are not managed",
        ),
        row("Orchestrator.Eks.ClusterArn", "replacement", "kept", note="the EKS cluster cannot change after creation"),
        row("Orchestrator.Slurm.SlurmConfigStrategy", "UpdateCluster", "kept"),
        row(
            "Orchestrator.Slurm.AccountingDatabase",
            "UpdateCluster",
            "kept",
            unverified="the newest CloudFormation schema has no Orchestrator/Slurm/AccountingDatabase and no AWS page read says "
            "an existing cluster can add or change it; botocore's UpdateCluster takes it",
        ),
        row("NodeRecovery", "UpdateCluster", "kept"),
        row("TieredStorageConfig", "UpdateCluster", "kept"),
        row(
            "NodeProvisioningMode",
            "UpdateCluster",
            "cleared",
            src.EKS_CONTINUOUS,
            note="an EKS cluster moves to Continuous with UpdateCluster; a Slurm cluster cannot (replacement: "
            + src.SLURM_CONTINUOUS.cite()
            + "); Continuous is the model's only value, so no cluster leaves it (replacement)",
        ),
        row("ClusterRole", "UpdateCluster", "kept", src.AUTOSCALING_GUIDE),
        row("AutoScaling.Mode", "UpdateCluster", "kept", src.AUTOSCALING_GUIDE),
        row("AutoScaling.AutoScalerType", "UpdateCluster", "kept", src.AUTOSCALING_GUIDE),
        row(
            "RestrictedInstanceGroupsConfig",
            "UpdateCluster",
            "kept",
            note="the restricted groups' shared FSx for Lustre file system (compare.restricted_config)",
            inner=(
                ("SharedEnvironmentConfig.DesiredFSxLustreConfig", "SharedEnvironmentConfig.FSxLustreConfig"),
                ("SharedEnvironmentConfig.DesiredFSxLustreDeletionPolicy", "SharedEnvironmentConfig.FSxLustreDeletionPolicy"),
            ),
        ),
        row(
            "InstanceGroupsToDelete",
            "refused",
            "kept",
            read="not readable",
            note="not part of a desired spec: the plan deletes a group the spec leaves out",
        ),
    ]


# The members a restricted group (EKS, SageMaker-managed) has; the model's ClusterRestrictedInstanceGroupSpecification
_RESTRICTED = frozenset(
    {
        "InstanceGroupName",
        "InstanceCount",
        "InstanceType",
        "ExecutionRole",
        "ThreadsPerCore",
        "InstanceStorageConfigs",
        "OnStartDeepHealthChecks",
        "TrainingPlanArn",
        "OverrideVpcConfig",
        "ScheduledUpdateConfig",
        "EnvironmentConfig",
    }
)
_RESTRICTED_UNVERIFIED = {
    "ScheduledUpdateConfig": "the newest CloudFormation schema's restricted group has no ScheduledUpdateConfig and no AWS page "
    "read says UpdateCluster changes it; botocore's UpdateCluster takes it",
}


def _restricted_rows() -> list[Member]:
    return [
        replace(m, unverified=_RESTRICTED_UNVERIFIED.get(m.path, "")) for m in _group_rows("restricted-group") if m.parts[0] in _RESTRICTED
    ]


MEMBERS: tuple[Member, ...] = tuple(
    _cluster_rows() + [m for m in _group_rows("group") if m.path != "EnvironmentConfig"] + _restricted_rows()
)
# Containers whose rows are their members' (the members are listed, not the container)
CONTAINERS = {"cluster": ("InstanceGroups", "RestrictedInstanceGroups"), "group": (), "restricted-group": ()}

_SET = "set by the service: in DescribeCluster's output, not in the request"
_CFN_READ_ONLY = "read-only in the newest CloudFormation schema, and not in the request"
FILLED: tuple[Filled, ...] = (
    Filled("cluster", "ClusterArn", _CFN_READ_ONLY),
    Filled("cluster", "ClusterStatus", _CFN_READ_ONLY),
    Filled("cluster", "CreationTime", _CFN_READ_ONLY),
    Filled("cluster", "FailureMessage", _CFN_READ_ONLY),
    Filled("cluster", "AutoScaling.Status", _SET),
    Filled("cluster", "AutoScaling.FailureMessage", _SET),
    Filled("cluster", "RestrictedInstanceGroupsConfig.SharedEnvironmentConfig.CurrentFSxLustreConfig", _SET),
    Filled("cluster", "RestrictedInstanceGroupsConfig.SharedEnvironmentConfig.CurrentFSxLustreDeletionPolicy", _SET),
    Filled("group", "CurrentCount", _CFN_READ_ONLY),
    Filled("group", "InstanceRequirements.CurrentInstanceTypes", _SET),
    Filled("group", "InstanceTypeDetails", _SET),
    Filled("group", "Status", _SET),
    Filled("group", "TrainingPlanStatus", _SET),
    Filled("group", "CurrentImageId", _SET),
    Filled("group", "CurrentImageReleaseVersion", _SET),
    Filled("group", "ImageVersionStatus", _SET),
    Filled("group", "ActiveOperations", _SET),
    Filled("group", "KubernetesConfig.CurrentLabels", _SET),
    Filled("group", "KubernetesConfig.CurrentTaints", _SET),
    Filled("group", "TargetStateCount", _SET),
    Filled("group", "SoftwareUpdateStatus", _SET),
    Filled("group", "ActiveSoftwareUpdateConfig", _SET),
    Filled("group", "AutoPatchConfig.CurrentPatchSchedule", _SET),
    Filled(
        "group",
        "AutoPatchConfig.DesiredPatchSchedule.NextPatchDate",
        "read-only in the newest CloudFormation schema (/properties/InstanceGroups/*/AutoPatchConfig/PatchSchedule/NextPatchDate); "
        + src.PATCH_SCHEDULE.cite(),
        request="AutoPatchConfig.PatchSchedule.NextPatchDate",
    ),
    Filled("restricted-group", "CurrentCount", _CFN_READ_ONLY),
    Filled("restricted-group", "Status", _SET),
    Filled("restricted-group", "TrainingPlanStatus", _SET),
    Filled("restricted-group", "EnvironmentConfig.S3OutputPath", _SET),
)

# The model's cross-field sentences on the cluster shapes (coverage.sentences() finds them; a new one fails a test)
SENTENCES: tuple[Sentence, ...] = (
    Sentence(
        "ClusterInstanceGroupSpecification",
        "InstanceRequirements",
        "The InstanceType and InstanceRequirements properties are mutually exclusive.",
        "rule",
        rule="aws/spec/rules.py _instance_type_rules",
    ),
    Sentence(
        "ClusterAutoPatchConfig",
        "PatchingStrategy",
        "Requires MaximumBatchSize in DeploymentConfig .",
        "unverified",
        why="DrainFirst needs DeploymentConfig.RollingUpdatePolicy.MaximumBatchSize; " + _NO_RULE,
    ),
    Sentence(
        "ClusterAutoPatchConfig",
        "PatchingStrategy",
        "Available only for clusters that use Amazon EKS as the orchestrator.",
        "unverified",
        why="DrainFirst is for EKS clusters only; " + _NO_RULE,
    ),
    Sentence(
        "ClusterAutoPatchConfig",
        "DeploymentConfig",
        "Only applicable when using a rolling patching strategy.",
        "unverified",
        why="the model does not say which strategies are rolling; " + _NO_RULE,
    ),
    Sentence(
        "ClusterAutoPatchConfig",
        "IdleWaitWindowInSeconds",
        "This setting applies only to the WhenIdle and WhenAllIdle strategies.",
        "unverified",
        why="whether giving it with DrainFirst is refused or ignored is not documented; " + _NO_RULE,
    ),
    Sentence(
        "ClusterAutoPatchConfig",
        "DrainPolicy",
        "Valid only when PatchingStrategy is DrainFirst .",
        "unverified",
        why=_NO_RULE,
    ),
    Sentence(
        "ClusterOrchestratorSlurmConfig",
        "AccountingDatabase",
        "This field is only supported for clusters using Continuous as the NodeProvisioningMode .",
        "unverified",
        why=_NO_RULE,
    ),
    Sentence(
        "CreateClusterRequest",
        "NodeProvisioningMode",
        "This mode is only supported for EKS orchestrated clusters.",
        "unverified",
        why="contradicted by " + src.SLURM_CONTINUOUS.title + " (Slurm clusters created with Continuous); not enforced",
    ),
    Sentence(
        "CreateClusterRequest",
        "ClusterRole",
        "This is only required when autoscaling is enabled and when HyperPod is performing autoscaling operations.",
        "rule",
        rule="aws/spec/rules.py autoscaling_rules",
    ),
    Sentence(
        "ClusterAutoPatchConfigDetails",
        "PatchingStrategy",
        "Requires MaximumBatchSize in DeploymentConfig .",
        "response",
        why="ClusterAutoPatchConfig.PatchingStrategy",
    ),
    Sentence(
        "ClusterAutoPatchConfigDetails",
        "PatchingStrategy",
        "Available only for clusters that use Amazon EKS as the orchestrator.",
        "response",
        why="ClusterAutoPatchConfig.PatchingStrategy",
    ),
    Sentence(
        "ClusterAutoPatchConfigDetails",
        "DrainPolicy",
        "Applies only when PatchingStrategy is DrainFirst .",
        "response",
        why="ClusterAutoPatchConfig.DrainPolicy",
    ),
)


def rows(scope: Scope) -> tuple[Member, ...]:
    return tuple(member for member in MEMBERS if member.scope == scope)


def member(scope: Scope, path: str) -> Member | None:
    return next((m for m in MEMBERS if m.scope == scope and m.path == path), None)


def filled(scope: Scope) -> tuple[Filled, ...]:
    return tuple(f for f in FILLED if f.scope == scope)


def counts() -> dict[str, int]:
    """Rows per verdict, and in all (the numbers docs/members.md and the report give): a row no source
    decides counts as unverified, whatever the planner assumes for it."""
    tally: dict[str, int] = {"members": len(MEMBERS)}
    for change in CHANGES:
        tally[change] = sum(1 for m in MEMBERS if m.verdict == change)
    tally[UNVERIFIED] = sum(1 for m in MEMBERS if m.verdict == UNVERIFIED)
    return tally
