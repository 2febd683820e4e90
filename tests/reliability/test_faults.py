"""Fault injection, property-based: random (current, desired) clusters under random faults; a user
re-plans and re-applies up to 4 times. Invariants (faultloop.check): targets reached or the
shortfall reported (never a silent success); no node removed that no plan named; never a
controller node; no node lost; no scale-out applied twice.

Default: a seeded, derandomized profile of 40 examples. `HYPERPOD_LONG=1`: 1,000 examples.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from .faultloop import Params, check, run

LONG = os.environ.get("HYPERPOD_LONG") == "1"

counts = st.integers(0, 7)
params = st.builds(
    Params,
    seed=st.integers(0, 2**16),
    continuous=st.booleans(),
    login=st.booleans(),
    current=st.lists(st.integers(0, 5), min_size=1, max_size=2).map(tuple),
    desired=st.lists(counts, min_size=2, max_size=2).map(tuple),
    throttle_rate=st.sampled_from([0.0, 0.1, 0.3]),
    server_error_rate=st.sampled_from([0.0, 0.1, 0.2]),
    lifecycle_failure_rate=st.sampled_from([0.0, 0.2, 0.5]),
    capacity=st.sampled_from([None, 0, 1, 3, 6]),
    capacity_zone=st.booleans(),
    conflict=st.booleans(),
).map(lambda p: Params(**{**p.__dict__, "desired": p.desired[: len(p.current)]}))

COMMON = dict(deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])


@settings(max_examples=40, **COMMON)
@given(params)
def test_faults_never_lose_nodes_or_succeed_silently(p):
    check(run(p))


@pytest.mark.slow
@pytest.mark.skipif(not LONG, reason="long profile: HYPERPOD_LONG=1")
@settings(max_examples=1000, **COMMON)
@given(params)
def test_faults_long_profile(p):
    check(run(p))


@pytest.mark.parametrize(
    "p",
    [
        # all-or-nothing scale-out with no capacity: the service rolls back; the run must say so
        Params(seed=1, continuous=False, login=False, current=(1,), desired=(4,), capacity=0, rounds=2),
        # Continuous scale-out short of capacity in the subnet's AZ: targets set, the wait reports pending
        Params(seed=2, continuous=True, login=True, current=(2,), desired=(6,), capacity=1, capacity_zone=True, rounds=2),
        # a concurrent UpdateCluster: ConflictException, wait for InService, retry
        Params(seed=3, continuous=False, login=False, current=(3, 1), desired=(1, 2), conflict=True),
        # everything at once
        Params(
            seed=4,
            continuous=True,
            login=True,
            current=(5, 0),
            desired=(2, 5),
            throttle_rate=0.3,
            server_error_rate=0.2,
            lifecycle_failure_rate=0.5,
            capacity=3,
            conflict=True,
        ),
    ],
)
def test_named_fault_scenarios(p):
    out = run(p)
    check(out)
    if p.capacity == 0 and not p.continuous:
        # rolled back (TargetCount back at 1), or still rolling back at the deadline: an error either way
        assert not out.converged and any(
            "TargetCount is 1, the plan asked for 4" in r or "the deadline passed" in r for r in out.reported
        ), out.reported
    if p.capacity == 1 and p.continuous:
        assert out.converged and out.capacity_pending and any("waiting" in r for r in out.reported)
    if p.conflict and not p.continuous:
        assert out.retries >= 1 and out.converged
