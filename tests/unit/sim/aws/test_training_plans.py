"""Training plans in the simulator, as botocore's model defines DescribeTrainingPlan and
ListTrainingPlans: the status over the simulator's clock (Pending → Scheduled → Active → Expired),
the reserved type, AZ and counts, and a group that launches from its plan only while it is Active
and only in its AZ — through the real botocore client."""

from __future__ import annotations

import re

import botocore.exceptions
import pytest

from tests.support.sim_helpers import eks_request, group, groups_of, nodes_of

REGION_ARN = "arn:aws:sagemaker:us-west-2:111122223333:training-plan/"
PLAN = REGION_ARN + "p5-week"
LATER = {
    "instance_type": "ml.p5.48xlarge",
    "count": 4,
    "availability_zone": "us-west-2b",
    "scheduled_at": 600,
    "start_at": 3600,
    "duration_hours": 2,
}


def test_a_plan_goes_pending_scheduled_active_expired_on_the_simulators_clock(make_sim):
    sim, client = make_sim({"training_plans": {PLAN: LATER}})
    seen = []
    for seconds in (0, 700, 3000, 7300):
        sim.advance(seconds)
        seen.append(client.describe_training_plan(TrainingPlanName="p5-week")["Status"])
    assert seen == ["Pending", "Scheduled", "Active", "Expired"]
    plan = client.describe_training_plan(TrainingPlanName="p5-week")
    assert (plan["TrainingPlanArn"], plan["TotalInstanceCount"], plan["AvailableInstanceCount"], plan["InUseInstanceCount"]) == (
        PLAN,
        4,
        4,
        0,
    )
    assert (plan["DurationHours"], plan["DurationMinutes"]) == (2, 0)
    assert (plan["EndTime"] - plan["StartTime"]).total_seconds() == 7200
    [capacity] = plan["ReservedCapacitySummaries"]
    assert (capacity["InstanceType"], capacity["AvailabilityZone"], capacity["Status"]) == ("ml.p5.48xlarge", "us-west-2b", "Expired")
    assert plan["TargetResources"] == ["hyperpod-cluster"]


def test_a_group_on_a_plan_launches_once_it_is_active_in_its_az_and_the_counts_follow(make_sim):
    sim, client = make_sim({"training_plans": {PLAN: LATER}})
    request = eks_request(
        "reserved", [group("gpu", 3, "ml.p5.48xlarge", TrainingPlanArn=PLAN)], subnets=["subnet-aaaa1111", "subnet-bbbb2222"]
    )
    client.create_cluster(**request)
    sim.advance(1800)
    assert groups_of(client, "reserved")["gpu"]["TrainingPlanStatus"] == "Scheduled"
    assert not [n for n in nodes_of(client, "reserved") if n.get("InstanceId")]  # nothing launches before the window
    sim.advance(3600)
    assert groups_of(client, "reserved")["gpu"]["TrainingPlanStatus"] == "Active"
    nodes = nodes_of(client, "reserved")
    assert len(nodes) == 3
    zones = {
        client.describe_cluster_node(ClusterName="reserved", NodeId=n["InstanceId"])["NodeDetails"]["Placement"]["AvailabilityZone"]
        for n in nodes
    }
    assert zones == {"us-west-2b"}  # the plan's AZ, not the group's other subnet's
    plan = client.describe_training_plan(TrainingPlanName="p5-week")
    assert (plan["AvailableInstanceCount"], plan["InUseInstanceCount"]) == (1, 3)


def test_list_training_plans_filters_sorts_and_pages_as_the_model_says(make_sim):
    plans = {
        REGION_ARN + "a-now": {"instance_type": "ml.p5.48xlarge", "count": 2},
        REGION_ARN + "b-later": {**LATER},
        REGION_ARN + "c-now": {"instance_type": "ml.trn2.48xlarge", "count": 8},
        "arn:aws:sagemaker:us-east-1:111122223333:training-plan/elsewhere": {"instance_type": "ml.p5.48xlarge", "count": 1},
    }
    sim, client = make_sim({"training_plans": plans})
    sim.advance(60)
    pages = client.get_paginator("list_training_plans").paginate(SortBy="TrainingPlanName", PaginationConfig={"PageSize": 1})
    assert [s["TrainingPlanName"] for page in pages for s in page["TrainingPlanSummaries"]] == ["a-now", "b-later", "c-now"]
    active = client.list_training_plans(Filters=[{"Name": "Status", "Value": "Active"}], SortBy="TrainingPlanName", SortOrder="Descending")
    assert [s["TrainingPlanName"] for s in active["TrainingPlanSummaries"]] == ["c-now", "a-now"]
    assert [s["TrainingPlanName"] for s in client.list_training_plans(SortBy="Status")["TrainingPlanSummaries"]] == [
        "a-now",
        "c-now",
        "b-later",
    ]


def test_a_plan_the_scenario_does_not_list_is_not_found(make_sim):
    _sim, client = make_sim()
    with pytest.raises(botocore.exceptions.ClientError, match="ResourceNotFound"):
        client.describe_training_plan(TrainingPlanName="nope")
    assert client.list_training_plans()["TrainingPlanSummaries"] == []


def test_a_scenario_plan_of_a_type_that_cannot_be_reserved_is_refused(make_sim):
    with pytest.raises(ValueError, match=re.escape("ml.c5.xlarge cannot be reserved in a training plan")):
        make_sim({"training_plans": {PLAN: {"instance_type": "ml.c5.xlarge", "count": 2}}})
