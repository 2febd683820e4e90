"""Metering (seed 000 "使用计量", seed 001 "Medición de uso"): billing starts when the lifecycle
script starts and stops when the instance terminates; a failed launch is free."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from rich.console import Console
from rich.table import Table

from pulumi_hyperpod import ClusterSpec, apply, connect, observe
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.aws.cost import PRICES_ENV, PriceTable, cost_report
from pulumi_hyperpod.aws.cost.prices import _defaults
from pulumi_hyperpod.sim.aws import Simulator

from tests.support.cost_records import group, spec
from tests.support.paths import SPECS

LAUNCH, LIFECYCLE = 90, 210  # the simulator's default timing (virtual seconds)


@pytest.fixture(autouse=True)
def shipped_prices_only(monkeypatch):
    monkeypatch.delenv(PRICES_ENV, raising=False)
    _defaults.cache_clear()


def run(sim: Simulator, desired: ClusterSpec, wait: str = "InService"):
    client = connect(backend="fake", simulator=sim)
    result = apply(client, plan(desired, observe(client, desired.name)), sleep=sim.advance, poll_seconds=60, wait=wait, timeout=7200)
    assert result.ok, result
    return client


def text(table: Table) -> str:
    console = Console(width=200, record=True, color_system=None)
    console.print(table)
    return console.export_text()


def test_failed_launches_are_free_and_running_instances_bill_from_their_lifecycle_script():
    sim = Simulator(seed=5, scenario={"faults": {"per_group": {"workers": {"launch_failure_rate": 1.0}}}})
    desired = spec(group("head", 1, "ml.m5.xlarge"), group("workers", 2, "ml.p5.48xlarge"))
    run(sim, desired)
    sim.advance(3600)  # workers keep failing and being retried for an hour
    report = cost_report(sim, desired.name)
    assert not report.estimated and report.source == "simulator metering"
    assert set(report.groups) == {"head"}, "no worker was ever billed: every launch failed"
    [head] = report.instances
    events = sim.billing(desired.name)
    assert head.billing_start == events["instances"][0]["billing_start"]
    assert head.seconds == pytest.approx((report.as_of - head.billing_start).total_seconds())
    assert head.cost == pytest.approx(head.hours * 0.23)
    assert report.total_cost == pytest.approx(head.cost)


def test_a_failed_lifecycle_script_bills_its_run_time_only():
    sim = Simulator(seed=6, scenario={"faults": {"per_group": {"workers": {"lifecycle_failure_rate": 1.0}}}})
    desired = spec(group("head", 1, "ml.m5.xlarge"), group("workers", 1, "ml.g5.xlarge"))
    run(sim, desired)
    sim.advance(2 * 3600)
    workers = [i for i in cost_report(sim, desired.name).instances if i.group == "workers"]
    assert len(workers) >= 2, "the service retried the instance"
    assert all(i.billing_end is not None and i.seconds == pytest.approx(LIFECYCLE) for i in workers)
    assert cost_report(sim, desired.name).groups["workers"].cost == pytest.approx(len(workers) * LIFECYCLE / 3600 * 1.41)


def test_scale_in_stops_billing_at_termination_and_since_clips_the_window():
    sim = Simulator(seed=7)
    three = spec(group("workers", 3, "ml.g5.xlarge"))
    run(sim, three, wait="Target")
    sim.advance(3600)
    run(sim, spec(group("workers", 1, "ml.g5.xlarge")), wait="Target")
    removed_at = sim.now()
    sim.advance(3600)
    report = cost_report(sim, three.name)
    ended = [i for i in report.instances if i.billing_end is not None]
    assert len(ended) == 2 and all(i.billing_end <= removed_at for i in ended)
    since = removed_at + dt.timedelta(minutes=1)
    later = cost_report(sim, three.name, since=since.isoformat())
    assert [i.billing_end for i in later.instances] == [None], "instances that stopped billing before the window are left out"
    assert later.total_hours == pytest.approx((later.as_of - since).total_seconds() / 3600)
    # the same report from the billing dict the simulator returns
    from_dict = cost_report(sim.billing(three.name), three.name, since=since)
    assert from_dict.to_dict() == later.to_dict()


def test_estimate_on_aws_from_launch_times_and_events_is_labelled_and_close():
    sim = Simulator(seed=8, scenario={"faults": {"per_group": {"flaky": {"launch_failure_rate": 1.0}}}})
    desired = spec(group("workers", 3, "ml.g5.xlarge"), group("flaky", 1, "ml.g5.xlarge"))
    client = run(sim, desired)
    sim.advance(1800)
    run(sim, spec(group("workers", 2, "ml.g5.xlarge"), group("flaky", 1, "ml.g5.xlarge")), wait="none")  # flaky never gets there
    sim.advance(1800)
    metered = cost_report(sim, desired.name)
    estimate = cost_report(client, desired.name, now=sim.now())
    assert estimate.estimated and "estimated" in estimate.source
    assert any("estimated" in note for note in estimate.notes)
    assert "flaky" not in estimate.groups, "launch failures are free in the estimate too"
    assert {i.instance_id for i in estimate.instances} == {i.instance_id for i in metered.instances}
    terminated = [i for i in estimate.instances if i.billing_end is not None]
    assert len(terminated) == 1, "the removed instance ends at its termination event"
    # LaunchTime comes before the lifecycle script: the estimate errs high, by the launch time at most
    workers_metered, workers_estimated = metered.groups["workers"].seconds, estimate.groups["workers"].seconds
    assert workers_metered <= workers_estimated <= workers_metered + 3 * LAUNCH + 60
    assert "ESTIMATED" in text(estimate.render())


def test_report_is_json_and_a_table_and_says_price_unknown():
    sim = Simulator(seed=9)
    desired = ClusterSpec.from_file(SPECS / "seed004-initial.json")
    run(sim, desired, wait="Target")
    sim.advance(3600)
    report = cost_report(sim, desired.name)
    data = json.loads(json.dumps(report.to_dict()))
    assert data["currency"] == "USD" and data["region"] == "us-west-2" and data["estimated"] is False
    assert set(data["groups"]) == {"leo-stg-head-ig", "leo-stg-compute-ig"}
    assert data["total_cost"] == pytest.approx(sum(g["cost"] for g in data["groups"].values()), abs=1e-3)
    rendered = text(report.render())
    assert "leo-stg-compute-ig" in rendered and "ml.g5.xlarge" in rendered and "total" in rendered

    unpriced = cost_report(sim, desired.name, prices=PriceTable.from_data({"ml.m5.large": 0.115}))
    assert unpriced.unknown_types == ("ml.g5.xlarge",)
    assert unpriced.total_cost is None and unpriced.groups["leo-stg-compute-ig"].cost is None
    assert unpriced.to_dict()["total_cost"] is None
    assert "price unknown" in text(unpriced.render())


def test_a_deleted_cluster_still_has_its_bill():
    sim = Simulator(seed=10)
    desired = spec(group("workers", 1, "ml.g5.xlarge"), name="short-lived")
    client = run(sim, desired, wait="Target")
    sim.advance(1800)
    apply(client, plan(None, observe(client, desired.name)), sleep=sim.advance, poll_seconds=60, wait="none")
    sim.advance(3600)
    report = cost_report(sim, "short-lived")
    [instance] = report.instances
    assert instance.billing_end is not None and instance.hours < 1
