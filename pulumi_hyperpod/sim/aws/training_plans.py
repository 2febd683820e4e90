"""Training plans: DescribeTrainingPlan and ListTrainingPlans, as botocore's model defines them.

A plan is scenario data (`scenario.training_plans`: ARN → instance type, count, AZ, window). Its
Status follows the simulator's clock (Pending → Scheduled → Active → Expired, or Failed); its
AvailableInstanceCount is its reserved pool's free count (`capacity.reserved`: a group's node launched
from the plan takes one, a node gone gives it back), InUseInstanceCount the rest. A group naming
the plan launches from it only while it is Active, and only in its AZ (`provisioning.try_launch`).
A plan the scenario does not list is not simulated: DescribeTrainingPlan does not find it.

SearchTrainingPlanOfferings finds the scenario's `training_plan_offerings` of the region that match
every filter given: the InstanceType, at least InstanceCount instances, every TargetResources, a
StartTime after StartTimeAfter, an EndTime before EndTimeBefore, at least DurationHours; earliest
first. Not simulated: UltraServer offerings and extension offerings (a search naming UltraServerType
finds none, one naming TrainingPlanArn no TrainingPlanExtensionOfferings), and buying one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.sim.aws import ids, pagination, validation
from pulumi_hyperpod.sim.aws.capacity import reserved
from pulumi_hyperpod.sim.aws.clock import to_seconds
from pulumi_hyperpod.sim.aws.errors import ResourceNotFound
from pulumi_hyperpod.sim.aws.world import World

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.sim.aws.scenario import TrainingPlanCapacity, TrainingPlanOffering

HOUR = 3600.0


def name_of(arn: str) -> str:
    return arn.rsplit("/", 1)[-1]


def region_of(arn: str) -> str:
    return arn.split(":")[3]


def listed(world: World, arn: str | None) -> TrainingPlanCapacity | None:
    """The scenario's plan of that ARN, or None (not simulated)."""
    return world.scenario.training_plans.get(arn or "") if arn else None


def window(world: World, plan: TrainingPlanCapacity) -> tuple[float, float]:
    start = world.start + plan.start_at
    return start, start + plan.duration_hours * HOUR


def status(world: World, plan: TrainingPlanCapacity) -> str:
    if plan.failed:
        return "Failed"
    start, end = window(world, plan)
    if world.now < world.start + plan.scheduled_at:
        return "Pending"
    if world.now < start:
        return "Scheduled"
    return "Active" if world.now < end else "Expired"


def zone(plan: TrainingPlanCapacity, region: str) -> str:
    return plan.availability_zone or f"{region}a"


def available(world: World, arn: str, plan: TrainingPlanCapacity) -> int:
    free = world.capacity.available(reserved(plan.instance_type, arn), zone(plan, region_of(arn)))
    return plan.count if free is None else min(free, plan.count)


def _duration(plan: TrainingPlanCapacity | TrainingPlanOffering) -> dict[str, int]:
    minutes = round(plan.duration_hours * 60)
    return {"DurationHours": minutes // 60, "DurationMinutes": minutes % 60}


def _summary(world: World, arn: str, plan: TrainingPlanCapacity) -> dict[str, Any]:
    state, (start, end), free = status(world, plan), window(world, plan), available(world, arn, plan)
    az = zone(plan, region_of(arn))
    item: dict[str, Any] = {
        "TrainingPlanArn": arn,
        "TrainingPlanName": plan.name or name_of(arn),
        "Status": state,
        **_duration(plan),
        "StartTime": start,
        "EndTime": end,
        "TotalInstanceCount": plan.count,
        "AvailableInstanceCount": free,
        "InUseInstanceCount": plan.count - free,
        "TargetResources": ["hyperpod-cluster"],
        "ReservedCapacitySummaries": [
            {
                "ReservedCapacityArn": arn.replace(":training-plan/", ":reserved-capacity/", 1) + "-rc1",
                "ReservedCapacityType": "Instance",
                "InstanceType": plan.instance_type,
                "TotalInstanceCount": plan.count,
                "Status": state,
                "AvailabilityZone": az,
                "AvailabilityZoneId": ids.availability_zone_id(az),
                **_duration(plan),
                "StartTime": start,
                "EndTime": end,
            }
        ],
    }
    if plan.upfront_fee is not None:
        item.update(UpfrontFee=plan.upfront_fee, CurrencyCode="USD")
    return item


def _in_region(world: World, region: str) -> list[tuple[str, TrainingPlanCapacity]]:
    return [(arn, plan) for arn, plan in world.scenario.training_plans.items() if region_of(arn) == region]


def describe_training_plan(world: World, region: str, params: dict) -> dict:
    validation.check_model("DescribeTrainingPlan", params)
    wanted = params["TrainingPlanName"]
    for arn, plan in _in_region(world, region):
        if (plan.name or name_of(arn)) == wanted:
            return _summary(world, arn, plan)
    raise ResourceNotFound(f"Training plan {wanted} does not exist.")


def list_training_plans(world: World, region: str, params: dict) -> dict:
    validation.check_model("ListTrainingPlans", params)
    after = to_seconds(params["StartTimeAfter"]) if params.get("StartTimeAfter") is not None else None
    before = to_seconds(params["StartTimeBefore"]) if params.get("StartTimeBefore") is not None else None
    statuses = {f["Value"] for f in params.get("Filters") or () if f["Name"] == "Status"}
    items = []
    for arn, plan in _in_region(world, region):
        item = _summary(world, arn, plan)
        if statuses and item["Status"] not in statuses:
            continue
        if (after is not None and item["StartTime"] <= after) or (before is not None and item["StartTime"] >= before):
            continue
        items.append(item)
    by = params.get("SortBy") or "StartTime"
    key = {
        "TrainingPlanName": lambda i: (i["TrainingPlanName"], i["TrainingPlanArn"]),
        "Status": lambda i: (i["Status"], i["TrainingPlanArn"]),  # by the value, as a string (the model names no order)
        "StartTime": lambda i: (i["StartTime"], i["TrainingPlanArn"]),
    }[by]
    items.sort(key=key)
    return pagination.response("TrainingPlanSummaries", items, [key(i) for i in items], params)


def search_training_plan_offerings(world: World, region: str, params: dict) -> dict:
    validation.check_model("SearchTrainingPlanOfferings", params)
    after = to_seconds(params["StartTimeAfter"]) if params.get("StartTimeAfter") is not None else None
    before = to_seconds(params["EndTimeBefore"]) if params.get("EndTimeBefore") is not None else None
    found = []
    for offering in world.scenario.training_plan_offerings:
        start = world.start + offering.start_at
        end = start + offering.duration_hours * HOUR
        az = offering.availability_zone or f"{region}a"
        if (
            not az.startswith(region)
            or params.get("UltraServerType")
            or params.get("InstanceType") not in (None, offering.instance_type)
            or offering.count < (params.get("InstanceCount") or 0)
            or not set(params.get("TargetResources") or ()) <= set(offering.target_resources)
            or (after is not None and start <= after)
            or (before is not None and end >= before)
            or offering.duration_hours < (params.get("DurationHours") or 0)
        ):
            continue
        found.append((start, offering.id, _offering(offering, (start, end), az, (after, before))))
    answer: dict[str, Any] = {"TrainingPlanOfferings": [item for *_, item in sorted(found, key=lambda f: f[:2])]}
    if params.get("TrainingPlanArn"):
        answer["TrainingPlanExtensionOfferings"] = []
    return answer


def _offering(offering: TrainingPlanOffering, window: tuple[float, float], az: str, asked: tuple[float | None, float | None]) -> dict:
    start, end = window
    requested = zip(("RequestedStartTimeAfter", "RequestedEndTimeBefore"), asked, strict=True)
    return {
        "TrainingPlanOfferingId": offering.id,
        "TargetResources": list(offering.target_resources),
        **{name: value for name, value in requested if value is not None},
        **_duration(offering),
        "UpfrontFee": offering.upfront_fee,
        "CurrencyCode": offering.currency_code,
        "ReservedCapacityOfferings": [
            {
                "ReservedCapacityType": "Instance",
                "InstanceType": offering.instance_type,
                "InstanceCount": offering.count,
                "AvailabilityZone": az,
                **_duration(offering),
                "StartTime": start,
                "EndTime": end,
            }
        ],
    }


def with_plan_status(describe):
    """DescribeCluster with each group's TrainingPlanStatus: its plan's status now; none for a plan
    the scenario does not list (the simulator cannot know it)."""

    def run(world: World, region: str, params: dict) -> dict:
        response = describe(world, region, params)
        for item in response.get("InstanceGroups") or ():
            plan = listed(world, item.get("TrainingPlanArn"))
            if plan is not None:
                item["TrainingPlanStatus"] = status(world, plan)
        return response

    return run


def launchable(world: World, arn: str, plan: TrainingPlanCapacity, zones: list[str]) -> list[str]:
    """The zones a node of a group on this plan may launch in now: the plan's, while it is Active."""
    if status(world, plan) != "Active":
        return []
    az = zone(plan, region_of(arn))
    return [z for z in zones if z == az]
