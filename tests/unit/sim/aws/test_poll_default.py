"""A wait on a simulator client polls fast by default: the persistent world runs at its speed only
while someone polls it, so the AWS waiter delay (30 s) would turn a simulated wait into real minutes
(the README's Python example once sat at "Creating" for minutes)."""

from __future__ import annotations

from pulumi_hyperpod import ClusterSpec, apply, connect, pipeline
from pulumi_hyperpod.aws.client import poll_seconds_for
from pulumi_hyperpod.sim.aws import Simulator

from tests.support.cli import SPECS


def test_persistent_simulator_clients_poll_fast_and_the_others_use_the_waiter_delay(tmp_path, monkeypatch):
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(tmp_path / "fake.sqlite"))
    assert poll_seconds_for(connect("fake")) == 0.2
    assert poll_seconds_for(connect("fake", simulator=Simulator(seed=1))) is None  # its clock moves only when told
    assert poll_seconds_for(connect("aws", region="us-west-2")) is None


def test_apply_without_poll_seconds_polls_a_persistent_simulator_at_its_short_interval(tmp_path, monkeypatch):
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(tmp_path / "fake.sqlite"))
    sim = Simulator.open_default()
    client = connect("fake")
    spec = ClusterSpec.from_file(SPECS / "seed004-initial.json")
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        sim.advance(60)

    result = apply(client, pipeline.prepare(client, spec).plan, wait="InService", sleep=sleep)
    assert result.outcome == "done" and slept and max(slept) <= 0.2
