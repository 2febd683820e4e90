"""SearchTrainingPlanOfferings in the simulator, as botocore's model defines it: the scenario's
`training_plan_offerings` that match every filter the search gives, earliest first, answered and
checked through the real botocore client."""

from __future__ import annotations

import datetime as dt

import botocore.exceptions
import pytest

from pulumi_hyperpod.sim.aws.scenario import load_scenario

P5, TRN1 = "ml.p5.48xlarge", "ml.trn1.32xlarge"
OFFERINGS = [
    {"id": "tpo-week", "instance_type": P5, "count": 8, "start_at": 7200, "upfront_fee": "51234.50"},
    {"id": "tpo-day", "instance_type": P5, "count": 4, "duration_hours": 24.25, "availability_zone": "us-west-2b", "upfront_fee": "9000"},
    {"id": "tpo-jobs", "instance_type": P5, "count": 16, "target_resources": ["training-job"], "upfront_fee": "1", "currency_code": "EUR"},
    {"id": "tpo-trn", "instance_type": TRN1, "count": 8, "upfront_fee": "700"},
    {"id": "tpo-east", "instance_type": P5, "count": 8, "availability_zone": "us-east-1a", "upfront_fee": "5"},
]


def _ids(client, **search) -> list[str]:
    return [o["TrainingPlanOfferingId"] for o in client.search_training_plan_offerings(**search)["TrainingPlanOfferings"]]


def test_an_offering_is_answered_in_the_models_shape(make_sim):
    sim, client = make_sim({"training_plan_offerings": OFFERINGS})
    [day, week] = client.search_training_plan_offerings(InstanceType=P5, InstanceCount=4, TargetResources=["hyperpod-cluster"])[
        "TrainingPlanOfferings"
    ]
    start = sim.now()
    assert (day["TrainingPlanOfferingId"], day["UpfrontFee"], day["CurrencyCode"]) == ("tpo-day", "9000", "USD")
    assert (day["DurationHours"], day["DurationMinutes"], day["TargetResources"]) == (24, 15, ["hyperpod-cluster"])
    [capacity] = day["ReservedCapacityOfferings"]
    assert capacity == {
        "ReservedCapacityType": "Instance",
        "InstanceType": P5,
        "InstanceCount": 4,
        "AvailabilityZone": "us-west-2b",
        "DurationHours": 24,
        "DurationMinutes": 15,
        "StartTime": start,
        "EndTime": start + dt.timedelta(hours=24.25),
    }
    assert week["ReservedCapacityOfferings"][0]["StartTime"] == start + dt.timedelta(hours=2)
    assert week["ReservedCapacityOfferings"][0]["AvailabilityZone"] == "us-west-2a"  # the region's first AZ


def test_each_filter_narrows_the_offerings(make_sim):
    sim, client = make_sim({"training_plan_offerings": OFFERINGS})
    now = sim.now()
    assert _ids(client) == ["tpo-day", "tpo-jobs", "tpo-trn", "tpo-week"]  # this region's, earliest first (then by id)
    assert _ids(client, InstanceType=TRN1) == ["tpo-trn"]
    assert _ids(client, InstanceType=P5, InstanceCount=5) == ["tpo-jobs", "tpo-week"]  # at least as many instances
    assert _ids(client, InstanceType=P5, TargetResources=["hyperpod-cluster"]) == ["tpo-day", "tpo-week"]
    assert _ids(client, StartTimeAfter=now + dt.timedelta(hours=1)) == ["tpo-week"]
    assert _ids(client, EndTimeBefore=now + dt.timedelta(days=2)) == ["tpo-day"]
    assert _ids(client, InstanceType=P5, DurationHours=48) == ["tpo-jobs", "tpo-week"]
    assert _ids(client, UltraServerType="ml.u-p6e-gb200x72") == []  # UltraServer offerings are not simulated
    answer = client.search_training_plan_offerings(TrainingPlanArn="arn:aws:sagemaker:us-west-2:111122223333:training-plan/p5")
    assert answer["TrainingPlanExtensionOfferings"] == []  # extension offerings are not simulated
    searched = client.search_training_plan_offerings(StartTimeAfter=now + dt.timedelta(hours=1))["TrainingPlanOfferings"][0]
    assert searched["RequestedStartTimeAfter"] == now + dt.timedelta(hours=1)
    _sim, east = make_sim({"training_plan_offerings": OFFERINGS}, region="us-east-1")
    assert _ids(east, InstanceType=P5, InstanceCount=8) == ["tpo-east", "tpo-jobs", "tpo-week"]  # another region's AZ is not offered


def test_a_search_outside_the_model_is_a_validation_error(make_sim):
    _sim, client = make_sim({"training_plan_offerings": OFFERINGS})
    with pytest.raises(botocore.exceptions.ClientError, match="InstanceType: must be one of") as error:
        client.search_training_plan_offerings(InstanceType="ml.g5.xlarge", InstanceCount=2)
    assert error.value.response["Error"]["Code"] == "ValidationException"
    with pytest.raises(botocore.exceptions.ClientError, match="InstanceCount"):
        client.search_training_plan_offerings(InstanceType=P5, InstanceCount=300)


@pytest.mark.parametrize(
    ("offering", "rule"),
    [
        ({"instance_type": "ml.g5.xlarge"}, "ml.g5.xlarge cannot be reserved in a training plan"),
        ({"id": "TPO_1"}, "training_plan_offerings.0.id: String should match pattern"),
        ({"count": 0}, "training_plan_offerings.0.count: Input should be greater than or equal to 1"),
        ({"target_resources": ["notebooks"]}, "training_plan_offerings.0.target_resources.0: Input should be"),
        ({"upfront_fee": None}, "training_plan_offerings.0.upfront_fee"),
    ],
)
def test_a_scenario_offering_outside_the_model_is_refused_naming_the_field(offering, rule):
    with pytest.raises(ValueError, match="invalid simulator scenario") as error:
        load_scenario({"training_plan_offerings": [{**OFFERINGS[0], **offering}]})
    assert rule in str(error.value)
