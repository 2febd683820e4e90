"""$HYPERPOD_FAKE_LATENCY: the in-process simulator holds each answer back, as `fake serve --latency`
does over HTTP (tests/unit/sim/test_server_accounts.py), without moving the world's clock."""

from __future__ import annotations

import time

import pytest

from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.sim.aws.simulator import LATENCY_ENV


def test_each_answer_is_held_back_at_least_the_latency_and_the_clock_stays(monkeypatch):
    monkeypatch.setenv(LATENCY_ENV, "200ms")
    sim = Simulator(seed=1)
    client = sim.client()
    before = sim.now()
    started = time.monotonic()
    client.list_clusters()
    assert time.monotonic() - started >= 0.2
    assert sim.now() == before, "the hold is not simulated time"


@pytest.mark.parametrize(("value", "says"), [("20s", "at most 10s"), ("fast", "like 150ms")])
def test_a_bad_latency_is_one_error_naming_the_variable(monkeypatch, value, says):
    monkeypatch.setenv(LATENCY_ENV, value)
    with pytest.raises(ValueError) as refused:
        Simulator(seed=1).client()
    message = str(refused.value)
    assert message.startswith(f"${LATENCY_ENV}={value!r}: must be") and says in message and "\n" not in message
