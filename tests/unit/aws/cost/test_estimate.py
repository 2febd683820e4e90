"""Every plan carries its hourly cost: before, after, the change, per group and for the cluster."""

from __future__ import annotations

import json

import pytest

from pulumi_hyperpod import ClusterSpec, Plan, Policy, apply, connect, observe
from pulumi_hyperpod.aws.pipeline import make_plan as plan  # plan() is pure: the pipeline adds the cost
from pulumi_hyperpod.aws.cost import PRICES_ENV, PriceTable
from pulumi_hyperpod.aws.cost.prices import _defaults
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.plans import plan_text

from tests.support.cost_records import group, observed, spec
from tests.support.paths import SPECS

P5, P4D, G6, G5 = 63.296, 25.91001756, 16.688, 1.41


@pytest.fixture(autouse=True)
def shipped_prices_only(monkeypatch):
    monkeypatch.delenv(PRICES_ENV, raising=False)
    _defaults.cache_clear()


def cost(p: Plan) -> dict:
    return json.loads(json.dumps(p.cost.to_dict()))  # the JSON form: what `plan --json` prints


def totals(c: dict) -> dict:
    return {k: c["cluster"][k] for k in ("before_per_hour", "after_per_hour", "delta_per_hour")}


def by_group(p: Plan) -> dict:
    return {g["group"]: g for g in cost(p)["groups"]}


def test_seed_000_create_shows_sixteen_p5_per_hour_in_the_preview_text():
    desired = ClusterSpec.from_file(SPECS / "seed000-create-cluster.json")
    p = plan(desired, None)
    c = cost(p)
    assert c["currency"] == "USD" and c["region"] == "us-west-2"
    workers = by_group(p)["worker-gpu-a"]
    assert workers["after_instances"] == {"ml.p5.48xlarge": 16}
    assert workers["after_per_hour"] == pytest.approx(16 * P5)
    assert totals(c) == {
        "before_per_hour": 0.0,
        "after_per_hour": pytest.approx(16 * P5 + 2 * 0.23),
        "delta_per_hour": pytest.approx(16 * P5 + 2 * 0.23),
    }
    text = plan_text(p)  # what `pulumi preview` prints (the provider uses plan_text)
    assert "Cost per hour (USD, on-demand, us-west-2)" in text
    assert "16 × ml.p5.48xlarge @ $63.296/h" in text
    [row] = [line for line in text.splitlines() if "cluster" in line and "$1,013.20" in line]
    assert row.index("$0.00") < row.index("$1,013.20") < row.index("+$1,013.20")
    assert "list prices, not your bill" in text


def test_seed_004_scale_out_one_to_three_g5_costs_two_more_instances():
    sim = Simulator(seed=4)
    client = connect(backend="fake", simulator=sim)
    initial = ClusterSpec.from_file(SPECS / "seed004-initial.json")
    assert apply(client, plan(initial, None), sleep=sim.advance, poll_seconds=60, wait="Target", timeout=7200).ok
    p = plan(ClusterSpec.from_file(SPECS / "seed004-scale-out.json"), observe(client, initial.name))
    compute = by_group(p)["leo-stg-compute-ig"]
    assert (compute["before_per_hour"], compute["after_per_hour"], compute["delta_per_hour"]) == pytest.approx((G5, 3 * G5, 2 * G5))
    assert by_group(p)["leo-stg-head-ig"]["delta_per_hour"] == 0
    assert cost(p)["cluster"]["delta_per_hour"] == pytest.approx(2 * G5)
    text = plan_text(p)
    assert "3 × ml.g5.xlarge @ $1.41/h" in text and "+$2.82" in text
    assert json.loads(p.to_json())["cost"]["cluster"]["delta_per_hour"] == pytest.approx(2.82)


def test_flexible_group_is_priced_by_its_priority_order_with_the_range():
    desired = spec(group("flex", 10, types=["ml.p5.48xlarge", "ml.p4d.24xlarge", "ml.g6.48xlarge"]))
    flex = by_group(plan(desired, None))["flex"]
    assert flex["after_instances"] == {"ml.p5.48xlarge": 10}, "the first type is the one expected"
    assert flex["after_per_hour"] == pytest.approx(10 * P5)
    assert flex["range"] == pytest.approx([10 * G6, 10 * P5])
    assert "range $166.88 – $632.96" in plan_text(plan(desired, None))


def test_observed_flexible_group_uses_its_actual_per_type_counts():
    types = ["ml.p5.48xlarge", "ml.p4d.24xlarge", "ml.g6.48xlarge"]
    have = observed(spec(group("flex", 10, types=types)), running={"flex": {"ml.p5.48xlarge": 4, "ml.p4d.24xlarge": 6}})
    grow = by_group(plan(spec(group("flex", 14, types=types)), have))["flex"]
    assert grow["before_per_hour"] == pytest.approx(4 * P5 + 6 * P4D)
    assert grow["after_instances"] == {"ml.p5.48xlarge": 8, "ml.p4d.24xlarge": 6}, "new capacity at the first type"
    assert grow["delta_per_hour"] == pytest.approx(4 * P5)
    assert grow["range"] == pytest.approx([4 * P5 + 6 * P4D + 4 * G6, 8 * P5 + 6 * P4D])

    shrink_plan = plan(spec(group("flex", 7, types=types)), have)
    removed = {have.node(v.node_id).instance_type for v in shrink_plan.victims}
    shrink = by_group(shrink_plan)["flex"]
    assert removed == {"ml.p4d.24xlarge"}, "the newest nodes go first, and they are the p4d ones here"
    assert shrink["after_instances"] == {"ml.p5.48xlarge": 4, "ml.p4d.24xlarge": 3}
    assert shrink["delta_per_hour"] == pytest.approx(-3 * P4D)


def test_pending_capacity_is_priced_at_the_target_not_as_drift():
    desired = spec(group("workers", 4, "ml.p5.48xlarge"))
    have = observed(spec(group("workers", 2, "ml.p5.48xlarge")), pending={"workers": 2})
    p = plan(desired, have)
    assert p.empty
    assert by_group(p)["workers"]["before_per_hour"] == pytest.approx(4 * P5)
    assert cost(p)["cluster"]["delta_per_hour"] == 0


def test_unknown_price_is_said_never_zero():
    desired = spec(group("trainium", 4, "ml.trn1.32xlarge"), group("gpu", 2, "ml.g5.xlarge"))
    p = plan(desired, None)
    trainium = by_group(p)["trainium"]
    assert trainium["after_per_hour"] is None and trainium["delta_per_hour"] is None
    assert trainium["unknown"] == ["ml.trn1.32xlarge"]
    assert cost(p)["unknown_types"] == ["ml.trn1.32xlarge"]
    assert cost(p)["cluster"]["after_per_hour"] is None
    assert not p.refused, "no budget, no refusal"
    text = plan_text(p)
    assert "4 × ml.trn1.32xlarge (price unknown)" in text
    assert "price unknown: ml.trn1.32xlarge in us-west-2" in text


def test_a_budget_with_an_unknown_price_refuses_because_it_cannot_be_checked():
    desired = spec(group("trainium", 4, "ml.trn1.32xlarge"))
    p = plan(desired, None, Policy(max_hourly_cost_increase=1000))
    assert p.refused
    [refusal] = p.refusals
    assert refusal.rule == "max-hourly-cost-increase"
    assert "cannot be checked" in refusal.reason and "ml.trn1.32xlarge" in refusal.reason and "$1,000.00/h" in refusal.reason
    # the user's own price makes it checkable
    assert not plan(desired, None, Policy(max_hourly_cost_increase=1000), prices={"ml.trn1.32xlarge": 21.5}).refused


def test_an_unpriced_group_that_does_not_grow_does_not_block_the_budget():
    before = spec(group("trainium", 4, "ml.trn1.32xlarge"), group("gpu", 1, "ml.g5.xlarge"))
    have = observed(before)
    grow_gpu = plan(
        spec(group("trainium", 4, "ml.trn1.32xlarge"), group("gpu", 3, "ml.g5.xlarge")), have, Policy(max_hourly_cost_increase=5)
    )
    assert not grow_gpu.refused
    assert cost(grow_gpu)["cluster"]["delta_per_hour"] == pytest.approx(2 * G5)
    assert cost(grow_gpu)["cluster"]["before_per_hour"] is None
    shrink_trainium = plan(
        spec(group("trainium", 2, "ml.trn1.32xlarge"), group("gpu", 1, "ml.g5.xlarge")), have, Policy(max_hourly_cost_increase=0)
    )
    assert cost(shrink_trainium)["cluster"]["delta_per_hour"] is None
    assert cost(shrink_trainium)["cluster"]["delta_at_most"] == 0
    assert not shrink_trainium.refused, "fewer unpriced instances cannot raise the cost"


def test_budget_guard_refuses_over_the_limit_with_the_numbers():
    have = observed(spec(group("workers", 2, "ml.p5.48xlarge")))
    p = plan(spec(group("workers", 6, "ml.p5.48xlarge")), have, Policy(max_hourly_cost_increase=200))
    [refusal] = p.refusals
    assert refusal.rule == "max-hourly-cost-increase"
    assert refusal.reason == (
        "this plan raises the cluster's cost from $126.59/h to $379.78/h (+$253.18/h), "
        "more than policy.max_hourly_cost_increase ($200.00/h)"
    )
    assert "REFUSED [max-hourly-cost-increase]" in plan_text(p)
    assert not plan(spec(group("workers", 5, "ml.p5.48xlarge")), have, Policy(max_hourly_cost_increase=200)).refused
    assert not plan(spec(group("workers", 1, "ml.p5.48xlarge")), have, Policy(max_hourly_cost_increase=0)).refused, "a scale-in saves money"


def test_prices_and_region_come_from_the_arguments_and_the_observed_arn():
    desired = spec(group("workers", 2, "ml.p5.48xlarge"))
    assert by_group(plan(desired, None, prices={"ml.p5.48xlarge": 50}))["workers"]["after_per_hour"] == 100
    table = PriceTable.from_data({"regions": {"eu-west-1": {"ml.p5.48xlarge": 70}}})
    assert cost(plan(desired, None, prices=table, region="eu-west-1"))["cluster"]["after_per_hour"] == 140
    in_ireland = observed(spec(group("workers", 1, "ml.p5.48xlarge")), region="eu-west-1")
    p = plan(desired, in_ireland, prices=table, region="us-west-2")  # the ARN is the fact
    assert cost(p)["region"] == "eu-west-1" and cost(p)["cluster"]["delta_per_hour"] == 70
    assert cost(plan(desired, in_ireland))["unknown_types"] == ["ml.p5.48xlarge"], "no shipped price for eu-west-1"


def test_delete_plan_costs_nothing_after():
    have = observed(spec(group("workers", 3, "ml.g5.xlarge")))
    p = plan(None, have, Policy(max_hourly_cost_increase=0))
    assert not p.refused
    assert totals(cost(p)) == pytest.approx({"before_per_hour": 3 * G5, "after_per_hour": 0.0, "delta_per_hour": -3 * G5})
    assert "removes 3 × ml.g5.xlarge" in plan_text(p)


def test_cost_is_plain_data_and_the_same_every_time():
    desired = ClusterSpec.from_file(SPECS / "seed001-eks-flexible.json")
    first, second = plan(desired, None), plan(desired, None)
    assert first.to_json() == second.to_json()
    again = Plan.from_dict(json.loads(first.to_json()))
    assert again.cost == first.cost, "the typed section survives the JSON round trip"
    assert again == first
    assert plan_text(again) == plan_text(first)
