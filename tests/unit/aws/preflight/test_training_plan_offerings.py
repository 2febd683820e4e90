"""Issue 41, training plans read, not assumed: a growing on-demand group short of its type's quota
is shown the training plan offerings that match (SearchTrainingPlanOfferings on the simulator,
through the real botocore client), as one note; never bought, and a failed search only warns."""

from __future__ import annotations

from botocore.exceptions import ClientError

from pulumi_hyperpod.plans.render import plan_text

from .conftest import json_section, spec

P5 = "ml.p5.48xlarge"
ARN = "arn:aws:sagemaker:us-west-2:111122223333:training-plan/p5-month"


def offering(id_: str, count: int, **extra):
    return {"id": id_, "instance_type": P5, "count": count, "upfront_fee": "98304.00", **extra}


OFFERINGS = [
    offering("tpo-late", 8, start_at=7200, availability_zone="us-west-2c"),
    offering("tpo-small", 2),  # too few for what the plan adds
    offering("tpo-first", 4, duration_hours=24.5, availability_zone="us-west-2b"),
    offering("tpo-third", 16, start_at=3600),
    offering("tpo-fourth", 4, start_at=9000),
    offering("tpo-jobs", 8, target_resources=["training-job"]),  # not for a HyperPod cluster
]


def _world(make_world, quota: float = 4, **scenario):
    return make_world(
        {"quotas": [{"quota_name": f"{P5} for cluster usage", "value": quota}], "training_plan_offerings": OFFERINGS, **scenario}
    )


def _searches(world):
    return [params for op, params in world.sim.calls if op == "SearchTrainingPlanOfferings"]


def test_a_group_near_its_quota_is_shown_up_to_three_matching_offerings_as_one_note(make_world):
    world = _world(make_world)
    world.build(spec(workers=1, worker_type=P5))
    the_plan = world.checked(spec(workers=4, worker_type=P5))  # 4 of a quota of 4: near it

    [search] = _searches(world)
    assert (search["InstanceType"], search["InstanceCount"], search["TargetResources"]) == (P5, 3, ["hyperpod-cluster"])
    [note] = json_section(the_plan)["training_plans"]
    assert (note["verdict"], note["group"], note["adds"], note["instance_types"]) == ("offered", "workers", 3, [P5])
    message = note["message"]
    assert message.index("tpo-first") < message.index("tpo-third") < message.index("tpo-late") and "(and 1 more)" in message
    assert "tpo-small" not in message and "tpo-jobs" not in message and "tpo-fourth" not in message
    assert "tpo-first 2026-01-01 00:00 UTC – 2026-01-02 00:30 UTC (24h30m), upfront 98304.00 USD, us-west-2b" in message
    assert note["availability_zones"] == ["us-west-2b", "us-west-2a", "us-west-2c"]
    assert not the_plan.refused and note["message"] not in json_section(the_plan)["warnings"]  # a note, not a warning
    assert "training plan: workers: near its ml.p5.48xlarge quota; a training plan's instances count against none" in plan_text(the_plan)


def test_a_group_over_its_quota_is_refused_by_the_quota_and_still_shown_the_offerings(make_world):
    world = _world(make_world, quota=2)
    the_plan = world.checked(spec(workers=4, worker_type=P5))
    assert [r.rule for r in the_plan.refusals] == ["service-quota"]
    [note] = json_section(the_plan)["training_plans"]
    assert note["verdict"] == "offered" and note["message"].startswith("workers: over its ml.p5.48xlarge quota; ") and note["adds"] == 4
    assert "tpo-first" in note["message"]


def test_no_matching_offering_is_said(make_world):
    world = _world(make_world, training_plan_offerings=[])
    [note] = json_section(world.checked(spec(workers=4, worker_type=P5)))["training_plans"]
    assert note["verdict"] == "offered" and "no training plan offering has 4 × ml.p5.48xlarge" in note["message"]


def test_no_search_when_the_quota_has_room_the_group_is_on_a_plan_or_its_type_cannot_be_reserved(make_world):
    roomy = _world(make_world, quota=100)
    assert json_section(roomy.checked(spec(workers=4, worker_type=P5)))["training_plans"] == [] and _searches(roomy) == []

    on_plan = _world(make_world, training_plans={ARN: {"instance_type": P5, "count": 8}})
    [finding] = json_section(on_plan.checked(spec(workers=4, worker_type=P5, TrainingPlanArn=ARN)))["training_plans"]
    assert finding["verdict"] == "fits" and _searches(on_plan) == []  # its plan was read instead

    g5 = make_world({"quotas": [{"quota_name": "ml.g5.xlarge for cluster usage", "value": 4}]})
    assert json_section(g5.checked(spec(workers=4)))["training_plans"] == [] and _searches(g5) == []  # no plan reserves a g5


def test_a_search_that_fails_is_a_warning_not_a_refusal(make_world, monkeypatch):
    world = _world(make_world)

    def denied(**params):
        raise ClientError({"Error": {"Code": "AccessDeniedException", "Message": "not authorized"}}, "SearchTrainingPlanOfferings")

    monkeypatch.setattr(world.sagemaker, "search_training_plan_offerings", denied)
    the_plan = world.checked(spec(workers=4, worker_type=P5))
    [note] = json_section(the_plan)["training_plans"]
    assert (
        note["verdict"] == "unknown"
        and "offerings for 4 × ml.p5.48xlarge not searched (SearchTrainingPlanOfferings: AccessDeniedException" in note["message"]
    )
    assert note["message"] in json_section(the_plan)["warnings"] and not the_plan.refused
