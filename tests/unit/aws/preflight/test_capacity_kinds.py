"""Spot and training-plan capacity are priced and quota-checked as what they are, never as
on-demand: their own price key (`ml.p5.48xlarge (Spot)`), else "price unknown"; their own quota."""

from __future__ import annotations

from pulumi_hyperpod import ClusterSpec, Policy, pipeline
from pulumi_hyperpod.aws.preflight.quotas import planned_usage, type_quota_name

from tests.support.factories import observed_from, slurm_spec

PLAN_ARN = "arn:aws:sagemaker:us-west-2:111122223333:training-plan/plan-abcdefghijklmnopqrstuvwxyz"
ON_DEMAND = {"ml.p5.48xlarge": 50.0, "ml.m5.xlarge": 0.2}


def with_worker(workers: int, **extra) -> ClusterSpec:
    api = slurm_spec(workers=workers).to_api()
    api["InstanceGroups"][-1].update(extra)
    return ClusterSpec.from_dict(api)


def test_a_spot_group_is_never_priced_on_demand():
    spot = {"CapacityRequirements": {"Spot": {}}}
    cost = pipeline.make_plan(with_worker(4, **spot), observed_from(with_worker(2, **spot)), Policy(), prices=ON_DEMAND).cost
    group = cost.group("worker-gpu-a")
    assert group.unknown == ("ml.p5.48xlarge (Spot)",) and group.delta_per_hour is None
    priced = pipeline.make_plan(
        with_worker(4, **spot), observed_from(with_worker(2, **spot)), Policy(), prices={**ON_DEMAND, "ml.p5.48xlarge (Spot)": 15.0}
    ).cost
    assert priced.group("worker-gpu-a").delta_per_hour == 30.0


def test_a_training_plan_group_is_priced_as_the_plan_not_on_demand():
    cost = pipeline.make_plan(
        with_worker(3, TrainingPlanArn=PLAN_ARN), observed_from(with_worker(3, TrainingPlanArn=PLAN_ARN)), Policy(), prices=ON_DEMAND
    ).cost
    assert cost.group("worker-gpu-a").unknown == ("ml.p5.48xlarge (training plan)",)
    assert cost.group("controller-group").after_per_hour == 0.2  # on-demand groups keep their price


def test_spot_counts_against_its_own_quota_and_a_training_plan_against_its_reservation():
    assert type_quota_name("ml.p5.48xlarge") == "ml.p5.48xlarge for cluster usage"
    assert type_quota_name("ml.p5.48xlarge (Spot)") == "ml.p5.48xlarge for spot cluster usage"
    assert type_quota_name("ml.p5.48xlarge (training plan)") is None
    usage, _ = planned_usage(with_worker(4, CapacityRequirements={"Spot": {}}), None, True)
    assert usage == {"ml.m5.xlarge": 2, "ml.p5.48xlarge (Spot)": 4}
