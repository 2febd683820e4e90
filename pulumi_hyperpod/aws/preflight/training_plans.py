"""Training plans: does the reserved capacity a growing group names (TrainingPlanArn) fit what the plan adds?

DescribeTrainingPlan (botocore's model: Status, StartTime / EndTime, TotalInstanceCount,
AvailableInstanceCount, InUseInstanceCount, ReservedCapacitySummaries with the instance type and AZ):
- refused (`training-plan`) when it reserves nothing now or ever for this group: the plan is Expired or
  Failed, not found, reserves another instance type than the group's, or has fewer instances available
  than the group adds (the nodes beyond it would never launch);
- warned when the plan is Pending or Scheduled (the new nodes wait for its StartTime), or cannot be read;
- a note otherwise: its window, type, AZ and how many of its instances are left.

Offerings (SearchTrainingPlanOfferings): a growing on-demand group (no TrainingPlanArn) whose
instance type the quota check finds over or near its per-type quota could take its new instances
from a training plan instead (a plan's instances count against no per-type quota). The search asks
for the group's type, the instances the plan adds and `hyperpod-cluster`; up to 3 offerings (id,
window, duration, upfront fee and currency as the API returns them, AZ) are one note per group
(verdict `offered`). Nothing is bought or extended (CreateTrainingPlan / ExtendTrainingPlan stay the
user's decision); a search that fails (AccessDenied, throttling) is a warning, never a refusal. A
type no training plan can reserve (the model's ReservedCapacityInstanceType) is not searched.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from pulumi_hyperpod.aws.planner.codes import RefusalRule
from pulumi_hyperpod.plans.findings import TrainingPlanFinding
from pulumi_hyperpod.plans.model import Refusal
from pulumi_hyperpod.aws.preflight.quotas import describe_error

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.clients import SageMakerClient
    from pulumi_hyperpod.aws.spec import ClusterSpec
    from pulumi_hyperpod.plans import GroupChange, Plan
    from pulumi_hyperpod.plans.findings import QuotaCheck
    from pulumi_hyperpod.plans.sections import QuotaSection

RULE = RefusalRule.TRAINING_PLAN
SHORT = ("over", "near")  # the quota checks whose groups a training plan could relieve
SHOWN = 3  # offerings named in the note
TARGET = "hyperpod-cluster"
GONE = ("Expired", "Failed")
NOT_YET = ("Pending", "Scheduled")


def check_training_plans(
    plan: Plan, desired: ClusterSpec, sagemaker: SageMakerClient
) -> tuple[list[Refusal], list[str], list[TrainingPlanFinding]]:
    """(refusals, warnings, findings): one finding per growing group that names a training plan."""
    refusals, warnings, findings = [], [], []
    for change in plan.groups:
        want = desired.group(change.group)
        arn = want.training_plan_arn if want is not None else None
        if not arn or change.delta <= 0:
            continue
        finding = _check(change, arn, sagemaker)
        findings.append(finding)
        if finding.verdict == "refused":
            refusals.append(Refusal(RULE, finding.message, change.group))
        elif finding.verdict in ("waits", "unknown"):
            warnings.append(finding.message)
    return refusals, warnings, findings


def _check(change: GroupChange, arn: str, sagemaker: SageMakerClient) -> TrainingPlanFinding:
    name = arn.rsplit("/", 1)[-1]
    group, adds = change.group, change.delta
    try:
        described = sagemaker.describe_training_plan(TrainingPlanName=name)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") in ("ResourceNotFound", "ResourceNotFoundException"):
            return TrainingPlanFinding(
                group,
                arn,
                "refused",
                f"{group}: training plan {name} does not exist; the {adds} new node(s) have no reserved capacity",
                adds=adds,
            )
        return _unknown(group, arn, name, adds, error)
    except BotoCoreError as error:
        return _unknown(group, arn, name, adds, error)
    capacity = described.get("ReservedCapacitySummaries") or []
    types = tuple(dict.fromkeys(c["InstanceType"] for c in capacity if c.get("InstanceType")))
    zones = tuple(dict.fromkeys(c["AvailabilityZone"] for c in capacity if c.get("AvailabilityZone")))
    status, total = described["Status"], described.get("TotalInstanceCount")
    available, in_use = described.get("AvailableInstanceCount"), described.get("InUseInstanceCount")
    start, end = _when(described.get("StartTime")), _when(described.get("EndTime"))
    facts: dict[str, Any] = dict(
        status=status,
        instance_types=types,
        availability_zones=zones,
        total=total,
        available=available,
        in_use=in_use,
        adds=adds,
        start=start,
        end=end,
    )
    where = " in " + ", ".join(zones) if zones else ""
    reserves = (", ".join(types) or "no instance type") + where
    problems = []
    if status in GONE:
        problems.append(
            f"it is {status}" + (f" (ended {_shown(end)})" if status == "Expired" and end else "") + ": it reserves nothing now"
        )
    group_types = set(change.instance_types)
    if types and group_types and not group_types & set(types):
        problems.append(f"it reserves {', '.join(types)}, the group is {', '.join(sorted(group_types))}")
    if available is not None and adds > available:
        problems.append(f"it has {available} of its {total} instance(s) available ({in_use or 0} in use), the plan adds {adds}")
    if problems:
        return TrainingPlanFinding(group, arn, "refused", f"{group}: training plan {name} does not fit: {'; '.join(problems)}", **facts)
    if status in NOT_YET:
        return TrainingPlanFinding(
            group,
            arn,
            "waits",
            f"{group}: training plan {name} is {status} (its window opens {_shown(start)}): the {adds} new node(s) launch once it is Active",
            **facts,
        )
    return TrainingPlanFinding(
        group,
        arn,
        "fits",
        f"{group}: training plan {name} ({status}, {reserves}, until {_shown(end)}): {available} of its {total} instance(s) "
        f"available, this plan adds {adds}",
        **facts,
    )


def offer_training_plans(
    plan: Plan, desired: ClusterSpec, quotas: QuotaSection, sagemaker: SageMakerClient
) -> tuple[list[str], list[TrainingPlanFinding]]:
    """(warnings, findings): one `offered` finding per growing on-demand group short of its type's
    quota, or an `unknown` one (and its warning) when the search failed."""
    from pulumi_hyperpod.aws import servicemodel  # noqa: PLC0415 - botocore's model: only a plan short of quota reads it

    reservable = set(servicemodel.shape("ReservedCapacityInstanceType").enum)
    most = servicemodel.shape("ReservedCapacityInstanceCount").metadata["max"]  # no offering reserves more
    short = [c for c in quotas.checks if c.status in SHORT and c.instance_type in reservable]
    warnings, findings = [], []
    for change in plan.groups:
        want = desired.group(change.group)
        if want is None or want.training_plan_arn or not 0 < change.delta <= most:
            continue
        checks = [c for c in short if change.group in c.groups and c.instance_type]
        if not checks:
            continue
        finding = _offerings(change.group, checks[0], change.delta, sagemaker)
        findings.append(finding)
        if finding.verdict == "unknown":
            warnings.append(finding.message)
    return warnings, findings


def _offerings(group: str, check: QuotaCheck, adds: int, sagemaker: SageMakerClient) -> TrainingPlanFinding:
    instance_type = check.instance_type or ""
    short, asked = f"{check.status} its {instance_type} quota", f"{adds} × {instance_type}"
    try:
        found = sagemaker.search_training_plan_offerings(InstanceType=instance_type, InstanceCount=adds, TargetResources=[TARGET])
    except (ClientError, BotoCoreError) as error:
        return TrainingPlanFinding(
            group, "", "unknown", f"{group}: training plan offerings for {asked} not searched ({describe_error(error)})", adds=adds
        )
    offerings = found.get("TrainingPlanOfferings") or []
    capacity = [(o, (o.get("ReservedCapacityOfferings") or [{}])[0]) for o in offerings[:SHOWN]]
    zones = tuple(dict.fromkeys(c["AvailabilityZone"] for _, c in capacity if c.get("AvailabilityZone")))
    if not offerings:
        message = f"{group}: {short}, and no training plan offering has {asked} for a HyperPod cluster"
    else:
        more = f" (and {len(offerings) - SHOWN} more)" if len(offerings) > SHOWN else ""
        message = (
            f"{group}: {short}; a training plan's instances count against none. "
            f"Offerings for {asked} (not bought: CreateTrainingPlan is yours to run): "
            + "; ".join(_offering_text(o, c) for o, c in capacity)
            + more
        )
    return TrainingPlanFinding(group, "", "offered", message, instance_types=(instance_type,), availability_zones=zones, adds=adds)


def _offering_text(offering: dict[str, Any], capacity: dict[str, Any]) -> str:
    window = f"{_shown(_when(capacity.get('StartTime')))} – {_shown(_when(capacity.get('EndTime')))}"
    duration = f"{offering.get('DurationHours', 0)}h{offering.get('DurationMinutes') or 0:02d}m"
    fee = f"{offering.get('UpfrontFee', '?')} {offering.get('CurrencyCode', '')}".rstrip()
    return f"{offering['TrainingPlanOfferingId']} {window} ({duration}), upfront {fee}, {capacity.get('AvailabilityZone', 'AZ unknown')}"


def _unknown(group: str, arn: str, name: str, adds: int, error: Exception) -> TrainingPlanFinding:
    return TrainingPlanFinding(
        group, arn, "unknown", f"{group}: training plan {name} not checked: it could not be read ({describe_error(error)})", adds=adds
    )


def _when(value: Any) -> str | None:
    if isinstance(value, dt.datetime):
        return (value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)).astimezone(dt.timezone.utc).isoformat()
    return None if value is None else str(value)


def _shown(iso: str | None) -> str:
    return dt.datetime.fromisoformat(iso).strftime("%Y-%m-%d %H:%M UTC") if iso else "at an unknown time"
