"""The sources a member table row cites, and what each says of the row's member.

Three kinds, read the same way for every row:
- botocore's `sagemaker` model (the installed botocore): the shape and member, its documentation,
  and whether CreateCluster's and UpdateCluster's requests take it (`model_of`);
- the newest CloudFormation schema of AWS::SageMaker::Cluster (`cfn_schema`): create-only,
  read-only, conditionally create-only, updatable (in the schema and in none of those lists) or
  absent (`cfn_of`);
- an AWS page, or one of the project's seeds, that decides where the two others do not (`Page`),
  with the date it was read.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Literal

from pulumi_hyperpod.aws.members import cfn_schema
from pulumi_hyperpod.aws import servicemodel

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.members.table import Member, Scope

READ = "2026-12-01"  # the day the pages below were read for this table


@dataclass(frozen=True, slots=True)
class Page:
    """An AWS page (or a project seed) and the sentence of it that decides."""

    title: str
    url: str  # "" where the page's address was not recorded
    says: str
    read: str = ""  # the day it was read; "" for a page the project cited before this table recorded dates

    def cite(self) -> str:
        where = f" <{self.url}>" if self.url else ""
        when = f"read {self.read}" if self.read else "cited before 2026-12-01, not re-read"
        return f'"{self.title}"{where} ({when}): {self.says}'


CfnStatus = Literal["create-only", "conditionally create-only", "read-only", "updatable", "absent"]


@dataclass(frozen=True, slots=True)
class CfnVerdict:
    pointer: str  # the member's JSON pointer in the schema
    status: CfnStatus
    listed: str = ""  # the pointer of the list entry that decides (a create-only ancestor, say)

    def cite(self) -> str:
        schema = cfn_schema.SCHEMA
        where = f"{schema['repository']} {schema['path']} ({schema['changed'][:12]}, {schema['date']})"
        if self.status == "absent":
            return f"CloudFormation schema {where}: no {self.pointer}"
        if self.status == "updatable":
            return f"CloudFormation schema {where}: {self.pointer} is in no createOnlyProperties entry (updated in place)"
        return f"CloudFormation schema {where}: {self.status} ({self.listed})"


@dataclass(frozen=True, slots=True)
class ModelVerdict:
    shape: str  # the request shape holding the member: CreateClusterRequest, ClusterInstanceGroupSpecification…
    member: str  # the member's path inside it
    in_create: bool
    in_update: bool  # UpdateCluster's request takes it: evidence it can be sent to an existing cluster
    documentation: str

    def cite(self) -> str:
        takes = "CreateCluster and UpdateCluster take it" if self.in_update else "CreateCluster takes it, UpdateCluster does not"
        return f"botocore sagemaker model {self.shape}.{self.member}: {takes}"


_CFN_PREFIX = {
    "cluster": "/properties",
    "group": "/properties/InstanceGroups/*",
    "restricted-group": "/properties/RestrictedInstanceGroups/*",
}


def cfn_pointer(scope: Scope, path: str) -> str:
    return _CFN_PREFIX[scope] + "/" + path.replace(".", "/")


def cfn_status(pointer: str) -> CfnVerdict:
    """What the newest schema says of a pointer: the nearest list entry at or above it decides."""

    def above(entry: str) -> bool:
        return pointer == entry or pointer.startswith(entry + "/")

    for listed, status in (
        (cfn_schema.READ_ONLY, "read-only"),
        (cfn_schema.CREATE_ONLY, "create-only"),
        (cfn_schema.CONDITIONAL_CREATE_ONLY, "conditionally create-only"),
    ):
        entry = next((e for e in listed if above(e)), None)
        if entry is not None:
            return CfnVerdict(pointer, status, entry)  # type: ignore[arg-type]
    return CfnVerdict(pointer, "updatable" if pointer in cfn_schema.POINTERS else "absent")


def cfn_of(member: Member) -> CfnVerdict:
    return cfn_status(cfn_pointer(member.scope, member.path))


# scope → (the request shape, CreateCluster's request member holding it, UpdateCluster's)
_REQUEST: dict[str, tuple[str, str, str]] = {
    "cluster": ("CreateClusterRequest", "", ""),
    "group": ("ClusterInstanceGroupSpecification", "InstanceGroups", "InstanceGroups"),
    "restricted-group": ("ClusterRestrictedInstanceGroupSpecification", "RestrictedInstanceGroups", "RestrictedInstanceGroups"),
}


def text(documentation: str | None) -> str:
    """A model documentation string as plain text (tags out, entities read, spaces folded)."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", documentation or ""))).strip()


def _walk(shape, parts: tuple[str, ...]):
    for part in parts:
        if shape is not None and shape.type_name == "list":
            shape = shape.member
        if shape is None or shape.type_name != "structure" or part not in shape.members:
            return None
        shape = shape.members[part]
    return shape


def _reaches(operation_shape: str, container: str, parts: tuple[str, ...]) -> bool:
    root = servicemodel.shape(operation_shape)
    return _walk(root, ((container,) if container else ()) + parts) is not None


@cache
def _model_of(scope: str, path: str) -> ModelVerdict:
    shape, create_container, update_container = _REQUEST[scope]
    parts = tuple(path.split("."))
    found = _walk(servicemodel.shape(shape), parts)
    return ModelVerdict(
        shape,
        path,
        _reaches("CreateClusterRequest", create_container, parts),
        _reaches("UpdateClusterRequest", update_container, parts),
        text(found.documentation) if found is not None else "",
    )


def model_of(member: Member) -> ModelVerdict:
    return _model_of(member.scope, member.path)


# ---- the pages the rows cite -------------------------------------------------------------------
UPDATE_GUIDE = Page(
    "Updating SageMaker HyperPod cluster configuration (update-cluster)",
    "",
    "to update an existing instance group, specify the instance type you initially assigned to it; the lifecycle "
    "entrypoint script and its path can change",
)
TRAINING_PLAN_GUIDE = Page(
    "Update a SageMaker HyperPod cluster on training plans",
    "",
    "a training plan is added, updated or removed by updating the instance group with update-cluster",
)
AUTOSCALING_GUIDE = Page(
    "HyperPod autoscaling with Karpenter",
    "",
    "EKS orchestration, Continuous provisioning, ClusterRole and NodeRecovery Automatic required; ClusterRole cannot "
    "change while autoscaling is enabled",
)
SOFTWARE_GUIDE = Page(
    "Update the SageMaker HyperPod platform software",
    "",
    "UpdateClusterSoftware rolls a new image out to existing nodes; the group's desired image applies to nodes launched later",
)
SLURM_CONTINUOUS = Page(
    "Continuous provisioning for enhanced cluster operations with Slurm",
    "https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-scaling-slurm.html",
    "existing clusters using the previous scaling model cannot be migrated to continuous provisioning at this time "
    "(one later copy of the page drops the sentence; the refusal stays until a page says a Slurm cluster can migrate)",
    READ,
)
EKS_CONTINUOUS = Page(
    "UpdateCluster (SageMaker API reference); sagemaker-core pull request 348",
    "https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_UpdateCluster.html",
    "UpdateCluster takes NodeProvisioningMode (valid value: Continuous), as sagemaker-core's update() does since its "
    "PR 348; only the Slurm page restricts moving an existing cluster to it",
    READ,
)
SLURM_MIGRATION = Page(
    "Migrating to API-driven Slurm configuration",
    "",
    "a group's Slurm role is set when SlurmConfig is first given",
)
TAGGING = Page(
    "AddTags / DeleteTags / ListTags (SageMaker API reference)",
    "",
    "tags are not in DescribeCluster, and UpdateCluster's request has no Tags",
)
SEED000 = Page("seed 000: continuous provisioning, MinCount", "", "an update that leaves MinInstanceCount out keeps the group's MinCount")
SEED001 = Page("seed 001: flexible instance groups", "", "InstanceTypes in priority order change with UpdateCluster")
PATCH_SCHEDULE = Page(
    "ClusterPatchSchedule (SageMaker API reference)",
    "https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ClusterPatchSchedule.html",
    "NextPatchDate: the system sets this automatically when a patch is detected; use this field to reschedule the patch",
    READ,
)
