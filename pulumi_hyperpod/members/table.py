"""One verdict for every input member of a HyperPod cluster: how it is read back, how it changes.

The rows cover every member of CreateCluster's and UpdateCluster's inputs and of the group shapes
(`ClusterInstanceGroupSpecification`, `ClusterRestrictedInstanceGroupSpecification`); a structure
whose parts change differently (Orchestrator, KubernetesConfig, SlurmConfig, AutoScaling…) has one
row per part. `coverage.missing()` walks botocore's model and names any member without a row, so a
botocore release that adds one fails a test, not a user. The planner (`aws/planner/compare.py`), the
simulator (`fake/validation.py`) and the decision table in docs/members.md all read these rows.

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
  (AWS, "Update a SageMaker HyperPod cluster on training plans": a training plan is added, updated
  or removed by updating the instance group with update-cluster). The planner shows every removal
  as a plan line ("TrainingPlanArn removed"); the simulator replaces the group's specification.
- `kept` — the value the cluster has stays: the planner copies the observed value into the entry it
  sends (create-only members, service defaults, counts), and top-level UpdateCluster members are
  optional request members the service leaves unchanged when absent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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

# Sources, cited by the rows
CFN = (
    "CloudFormation resource schema AWS::SageMaker::Cluster, createOnlyProperties "
    "(/properties/InstanceGroups/*/{ExecutionRole,InstanceType,ThreadsPerCore,OverrideVpcConfig}, "
    "/properties/VpcConfig, /properties/Orchestrator)"
)
UPDATE_GUIDE = (
    'AWS, "Updating SageMaker HyperPod cluster configuration" (update-cluster): to update an existing '
    "group, specify the instance type initially assigned to it"
)
TRAINING_PLAN_GUIDE = (
    'AWS, "Update a SageMaker HyperPod cluster on training plans": add, update or remove a '
    "training plan by updating the instance group with update-cluster"
)
MODEL = "botocore sagemaker model: UpdateCluster's ClusterInstanceGroupSpecification takes it"
AUTOSCALING_GUIDE = (
    "AWS, HyperPod autoscaling with Karpenter: EKS orchestration, Continuous provisioning, ClusterRole "
    "and NodeRecovery Automatic required; ClusterRole cannot change while autoscaling is enabled"
)
SEED000 = "seed 000 (continuous provisioning, MinCount)"
SEED001 = "seed 001 (flexible instance groups: InstanceTypes in priority order)"
TAGGING = "AddTags / DeleteTags / ListTags (SageMaker API reference): tags are not in DescribeCluster"
SOFTWARE = (
    'AWS, "Update the SageMaker HyperPod platform software": UpdateClusterSoftware rolls a new image out to '
    "existing nodes; the group's desired image applies to nodes launched later"
)


@dataclass(frozen=True)
class Member:
    """One input member. `path` is relative to its scope, parts joined with `.`:
    `TrainingPlanArn`, `KubernetesConfig.Labels`, `Orchestrator.Slurm.AccountingDatabase`."""

    scope: Scope
    path: str
    change: Change
    omitted: Omitted
    source: str
    # where DescribeCluster reports it, relative to the described group (or cluster); () = not in DescribeCluster
    reported_as: tuple[str, ...] = ()
    read: str = "DescribeCluster"  # or "ListTags", or "not readable" (then: the last applied spec, said in the plan)
    note: str = ""

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


def _group_rows(scope: Scope) -> list[Member]:
    def row(path: str, change: Change, omitted: Omitted, source: str, reported: tuple[str, ...] = (), note: str = "") -> Member:
        return Member(scope, path, change, omitted, source, reported, note=note)

    return [
        row(
            "InstanceGroupName",
            "identity",
            "kept",
            "a new name is a new group; a group left out of the spec is deleted (InstanceGroupsToDelete)",
        ),
        row(
            "InstanceCount",
            "counts",
            "kept",
            "the count planner (aws/planner/rules.py); " + SEED000,
            ("TargetCount",),
            "owned by Karpenter when AutoScaling Mode is Enable: shown, never reconciled",
        ),
        row(
            "MinInstanceCount",
            "UpdateCluster",
            "kept",
            SEED000 + ": an update that leaves it out keeps the group's MinCount",
            ("MinCount",),
        ),
        row("InstanceType", "new group name", "kept", UPDATE_GUIDE + "; " + CFN),
        row(
            "InstanceRequirements.InstanceTypes",
            "UpdateCluster",
            "kept",
            SEED001 + "; a fixed group cannot become flexible or the other way (new group name)",
            ("InstanceRequirements", "DesiredInstanceTypes"),
        ),
        row(
            "LifeCycleConfig",
            "UpdateCluster",
            "cleared",
            'AWS, "Updating SageMaker HyperPod cluster configuration": '
            "the lifecycle entrypoint script and its path can change; existing nodes keep how they were built",
        ),
        row("ExecutionRole", "new group name", "kept", CFN),
        row("ThreadsPerCore", "new group name", "kept", CFN + "; left out, the service's choice at creation stays"),
        row("InstanceStorageConfigs", "UpdateCluster", "cleared", MODEL + "; nodes launched later get the new storage"),
        row("OnStartDeepHealthChecks", "UpdateCluster", "cleared", MODEL),
        row(
            "TrainingPlanArn",
            "UpdateCluster",
            "cleared",
            TRAINING_PLAN_GUIDE,
            note="the training plan's reserved capacity bounds the group (ListClusters TrainingPlanArn)",
        ),
        row("OverrideVpcConfig", "new group name", "kept", CFN),
        row("ScheduledUpdateConfig", "UpdateCluster", "cleared", MODEL),
        row(
            "EnvironmentConfig",
            "UpdateCluster",
            "cleared",
            "botocore sagemaker model: UpdateCluster's ClusterRestrictedInstanceGroupSpecification takes it",
        ),
        row("ImageId", "UpdateClusterSoftware", "kept", SOFTWARE, ("DesiredImageId",)),
        row("ImageReleaseVersion", "UpdateClusterSoftware", "kept", SOFTWARE, ("DesiredImageReleaseVersion",)),
        row("AutoPatchConfig", "UpdateCluster", "cleared", MODEL + "; DescribeCluster reports PatchSchedule as DesiredPatchSchedule"),
        row(
            "KubernetesConfig.Labels",
            "UpdateCluster",
            "cleared",
            MODEL + "; DescribeCluster reports DesiredLabels",
            ("KubernetesConfig", "DesiredLabels"),
        ),
        row(
            "KubernetesConfig.Taints",
            "UpdateCluster",
            "cleared",
            MODEL + "; DescribeCluster reports DesiredTaints",
            ("KubernetesConfig", "DesiredTaints"),
        ),
        row(
            "SlurmConfig.NodeType",
            "new group name",
            "kept",
            "a group's Slurm role never changes (AWS, \"Migrating to "
            'API-driven Slurm configuration": the role is set when SlurmConfig is first given)',
        ),
        row("SlurmConfig.PartitionNames", "UpdateCluster", "kept", MODEL + "; left out with SlurmConfig, the group keeps its partitions"),
        row(
            "CapacityRequirements",
            "UpdateCluster",
            "cleared",
            MODEL + "; nodes launched later use the new capacity type (Spot or OnDemand, the default)",
        ),
        row("NetworkInterface", "UpdateCluster", "cleared", MODEL),
    ]


def _cluster_rows() -> list[Member]:
    def row(
        path: str,
        change: Change,
        omitted: Omitted,
        source: str,
        reported: tuple[str, ...] = (),
        read: str = "DescribeCluster",
        note: str = "",
    ) -> Member:
        return Member("cluster", path, change, omitted, source, reported, read, note)

    return [
        row("ClusterName", "identity", "kept", "a new name is a new cluster"),
        row("VpcConfig", "replacement", "kept", CFN),
        row("Tags", "AddTags/DeleteTags", "kept", TAGGING + "; left out of the spec, the cluster's tags are not managed", read="ListTags"),
        row("Orchestrator.Eks.ClusterArn", "replacement", "kept", CFN + "; AWS: the EKS cluster cannot change after creation"),
        row(
            "Orchestrator.Slurm.SlurmConfigStrategy",
            "UpdateCluster",
            "kept",
            "botocore sagemaker model: UpdateCluster takes Orchestrator.Slurm",
        ),
        row(
            "Orchestrator.Slurm.AccountingDatabase",
            "UpdateCluster",
            "kept",
            "botocore sagemaker model: UpdateCluster takes Orchestrator.Slurm",
        ),
        row("NodeRecovery", "UpdateCluster", "kept", "botocore sagemaker model (UpdateCluster)"),
        row("TieredStorageConfig", "UpdateCluster", "kept", "botocore sagemaker model (UpdateCluster)"),
        row(
            "NodeProvisioningMode",
            "replacement",
            "cleared",
            "AWS, continuous provisioning: existing clusters cannot be migrated to it, and a Continuous cluster cannot leave it",
        ),
        row("ClusterRole", "UpdateCluster", "kept", "botocore sagemaker model (UpdateCluster); " + AUTOSCALING_GUIDE),
        row("AutoScaling.Mode", "UpdateCluster", "kept", AUTOSCALING_GUIDE),
        row("AutoScaling.AutoScalerType", "UpdateCluster", "kept", AUTOSCALING_GUIDE),
        row(
            "RestrictedInstanceGroupsConfig",
            "UpdateCluster",
            "kept",
            "botocore sagemaker model: CreateCluster and UpdateCluster take it (ClusterRestrictedInstanceGroupsConfig); "
            "DescribeCluster reports SharedEnvironmentConfig's Desired and Current FSx Lustre config and deletion policy",
            note="the restricted groups' shared FSx for Lustre file system (compare.restricted_config)",
        ),
        row(
            "InstanceGroupsToDelete",
            "refused",
            "kept",
            "not part of a desired spec: the plan deletes a group the spec leaves out",
            read="not readable",
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
MEMBERS: tuple[Member, ...] = tuple(
    _cluster_rows()
    + [m for m in _group_rows("group") if m.path != "EnvironmentConfig"]
    + [m for m in _group_rows("restricted-group") if m.parts[0] in _RESTRICTED]
)
# Containers whose rows are their members' (the members are listed, not the container)
CONTAINERS = {"cluster": ("InstanceGroups", "RestrictedInstanceGroups"), "group": (), "restricted-group": ()}


def rows(scope: Scope) -> tuple[Member, ...]:
    return tuple(member for member in MEMBERS if member.scope == scope)


def member(scope: Scope, path: str) -> Member | None:
    return next((m for m in MEMBERS if m.scope == scope and m.path == path), None)


def counts() -> dict[str, int]:
    """Rows per verdict, and in all (the numbers docs/members.md and the report give)."""
    tally: dict[str, int] = {"members": len(MEMBERS)}
    for change in CHANGES:
        tally[change] = sum(1 for m in MEMBERS if m.change == change)
    return tally
