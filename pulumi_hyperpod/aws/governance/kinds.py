"""The two task governance resources, read from botocore's `sagemaker` model, and a verdict for every
member of their create requests (docs/capacity.md, "Task governance").

A verdict, per member of CreateComputeQuota's and CreateClusterSchedulerConfig's inputs:
- `identity`: Name and ClusterArn say which resource it is ("The name must be unique within the
  SageMaker AI HyperPod cluster specified by ClusterArn"): another value is another resource;
- `in place`: the Update operation's input takes it (UpdateComputeQuota: ComputeQuotaConfig,
  ComputeQuotaTarget, ActivationState, Description; UpdateClusterSchedulerConfig: SchedulerConfig,
  Description): a change is one Update call naming the version read (`TargetVersion`, required);
- `create-only, not read back`: Tags. The Update operations take no Tags and Describe* returns none,
  so a change cannot be seen: the plan says the spec's tags are set at create only.
What the service sets — every member of Describe*'s output that the create request does not take
(the id, the ARN, the version, Status, FailureReason, StatusDetails, CreationTime, CreatedBy,
LastModifiedTime, LastModifiedBy) — is never diffed: `service_set()` derives them from the model, so a
botocore release that adds one needs no change here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

from pulumi_hyperpod.aws import servicemodel

Verdict = Literal["identity", "in place", "create-only, not read back"]
IDENTITY = ("Name", "ClusterArn")
NOT_READ_BACK = ("Tags",)


@dataclass(frozen=True)
class Kind:
    noun: str  # "ComputeQuota" | "ClusterSchedulerConfig": the model's operations are <Verb><noun>
    label: str  # in words: "compute quota"
    list_key: str  # the List operation's summaries member

    @property
    def id_member(self) -> str:
        return f"{self.noun}Id"

    @property
    def arn_member(self) -> str:
        return f"{self.noun}Arn"

    @property
    def version_member(self) -> str:
        return f"{self.noun}Version"

    def operation(self, verb: str) -> str:
        return f"{verb}{self.noun}s" if verb == "List" else f"{verb}{self.noun}"

    def create_members(self) -> tuple[str, ...]:
        return tuple(servicemodel.input_shape(self.operation("Create")).members)

    def required(self) -> tuple[str, ...]:
        return tuple(servicemodel.input_shape(self.operation("Create")).required_members)

    def updatable(self) -> tuple[str, ...]:
        """What Update* takes besides the id and TargetVersion, in the create request's order."""
        update = servicemodel.input_shape(self.operation("Update")).members
        return tuple(name for name in self.create_members() if name in update)

    def verdicts(self) -> dict[str, Verdict]:
        return _verdicts(self)

    def service_set(self) -> tuple[str, ...]:
        """Describe*'s members the create request does not take: what the service sets."""
        described = servicemodel.output_shape(self.operation("Describe")).members
        return tuple(name for name in described if name not in self.create_members())


@cache
def _verdicts(kind: Kind) -> dict[str, Verdict]:
    verdicts: dict[str, Verdict] = {}
    for name in kind.create_members():
        if name in IDENTITY:
            verdicts[name] = "identity"
        elif name in kind.updatable():
            verdicts[name] = "in place"
        elif name in NOT_READ_BACK:
            verdicts[name] = "create-only, not read back"
        else:  # a member a botocore release added: tests/unit/aws/governance/test_kinds.py fails first
            raise LookupError(f"{kind.operation('Create')}.{name} has no verdict (aws/governance/kinds.py)")
    return verdicts


QUOTA = Kind("ComputeQuota", "compute quota", "ComputeQuotaSummaries")
SCHEDULER = Kind("ClusterSchedulerConfig", "scheduler configuration", "ClusterSchedulerConfigSummaries")
KINDS = (QUOTA, SCHEDULER)
# The statuses (SchedulerResourceStatus) in which the resource is settled, and those of a change running.
SETTLED = ("Created", "Updated")
RUNNING = ("Creating", "Updating", "Deleting")
FAILED = ("CreateFailed", "CreateRollbackFailed", "UpdateFailed", "UpdateRollbackFailed", "DeleteFailed", "DeleteRollbackFailed")
