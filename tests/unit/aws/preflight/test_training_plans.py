"""Issue 37, item 9: a growing group that names a training plan is checked against it
(DescribeTrainingPlan on the simulator, through the real botocore client): refused when the plan's
window, instance type or available count does not fit, warned when it is not Active yet, noted otherwise."""

from __future__ import annotations

from pulumi_hyperpod.plans.render import plan_text
from pulumi_hyperpod.plans.sections import PreflightSection

from .conftest import json_section, spec

P5 = "ml.p5.48xlarge"
ARN = "arn:aws:sagemaker:us-west-2:111122223333:training-plan/p5-month"


def _world(make_world, **plan):
    return make_world({"training_plans": {ARN: {"instance_type": P5, "count": 4, **plan}}})


def _on_plan(workers: int, arn: str = ARN, worker_type: str = P5):
    return spec(workers=workers, worker_type=worker_type, TrainingPlanArn=arn)


def test_a_growth_the_plan_has_room_for_is_a_note_with_the_plans_counts(make_world):
    world = _world(make_world)
    world.build(_on_plan(1))  # one of the plan's four instances in use
    the_plan = world.checked(_on_plan(3))
    [finding] = json_section(the_plan)["training_plans"]
    assert (finding["verdict"], finding["status"], finding["available"], finding["in_use"], finding["adds"]) == ("fits", "Active", 3, 1, 2)
    assert finding["instance_types"] == [P5] and finding["availability_zones"] == ["us-west-2a"]
    assert not the_plan.refused and json_section(the_plan)["verdict"] == "ok"
    assert "training plan: workers: training plan p5-month (Active, ml.p5.48xlarge in us-west-2a, until" in plan_text(the_plan)
    assert PreflightSection.from_dict(the_plan.preflight.to_dict()) == the_plan.preflight  # a saved plan keeps it


def test_more_nodes_than_the_plan_has_available_is_refused(make_world):
    world = _world(make_world)
    world.build(_on_plan(1))
    the_plan = world.checked(_on_plan(6))
    assert [r.rule for r in the_plan.refusals] == ["training-plan"]
    assert "it has 3 of its 4 instance(s) available (1 in use), the plan adds 5" in the_plan.refusals[0].reason


def test_a_plan_of_another_instance_type_is_refused(make_world):
    world = _world(make_world)
    the_plan = world.checked(_on_plan(2, worker_type="ml.p4d.24xlarge"))
    assert [r.rule for r in the_plan.refusals] == ["training-plan"]
    assert "it reserves ml.p5.48xlarge, the group is ml.p4d.24xlarge" in the_plan.refusals[0].reason


def test_a_plan_not_active_yet_is_a_warning_and_an_expired_one_a_refusal(make_world):
    world = _world(make_world, start_at=7200, duration_hours=1)
    waits = world.checked(_on_plan(2))
    [finding] = json_section(waits)["training_plans"]
    assert finding["verdict"] == "waits" and not waits.refused
    assert (
        "training plan p5-month is Scheduled (its window opens" in finding["message"] and "launch once it is Active" in finding["message"]
    )
    assert json_section(waits)["verdict"] == "warnings"
    world.sim.advance(3 * 3600)
    expired = world.checked(_on_plan(2))
    assert [r.rule for r in expired.refusals] == ["training-plan"] and "it is Expired" in expired.refusals[0].reason


def test_a_plan_that_does_not_exist_is_refused(make_world):
    world = _world(make_world)
    the_plan = world.checked(_on_plan(2, arn="arn:aws:sagemaker:us-west-2:111122223333:training-plan/typo"))
    assert [r.rule for r in the_plan.refusals] == ["training-plan"] and "training plan typo does not exist" in the_plan.refusals[0].reason


def test_a_group_without_a_plan_reads_none(make_world):
    world = _world(make_world)
    the_plan = world.checked(spec(workers=2))
    assert json_section(the_plan)["training_plans"] == [] and world.calls("DescribeTrainingPlan") == 0
