"""Fixtures for the simulator's tests.

Every successful response a simulator client receives is validated on the spot against botocore's
output shape for its operation (`CONFORMANCE`), and the test that received a non-conforming one
fails (`_responses_conform`, after each test). `aws/test_conformance.py` runs a scenario touching
every simulated operation with a tally of its own (`conformance`): no test depends on the order.
"""

from __future__ import annotations

import botocore.session
import pytest

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.sim.aws import Simulator, wire


class ConformanceTally:
    """Counts checked responses per operation and keeps every violation found."""

    def __init__(self) -> None:
        self.by_operation: dict[str, int] = {}
        self.failures: list[tuple[str, str]] = []

    def __call__(self, operation: str, body: dict, service: str = "sagemaker") -> None:
        if service == servicemodel.SERVICE:
            shape = servicemodel.output_shape(operation)
        else:  # another simulated service (service-quotas): its own botocore model
            shape = botocore.session.get_session().get_service_model(service).operation_model(operation).output_shape
            operation = f"{service}:{operation}"
        # an operation without an output shape (DeleteComputeQuota) answers an empty body
        problems = (
            servicemodel.violations(shape, body, check_required=True)
            if shape is not None
            else [f"no output shape, body {body}"]
            if body
            else []
        )
        self.by_operation[operation] = self.by_operation.get(operation, 0) + 1
        self.failures.extend((operation, str(problem)) for problem in problems)

    @property
    def total(self) -> int:
        return sum(self.by_operation.values())


CONFORMANCE = ConformanceTally()
wire.OBSERVERS.append(CONFORMANCE)


@pytest.fixture(autouse=True)
def _responses_conform():
    """The responses this test received conform (whatever ran before it)."""
    before = len(CONFORMANCE.failures)
    yield
    new = CONFORMANCE.failures[before:]
    assert not new, "responses not matching botocore's output shapes:\n" + "\n".join(f"{op}: {p}" for op, p in new[:20])


@pytest.fixture
def conformance():
    """A tally of the responses received during this test only."""
    tally = ConformanceTally()
    wire.OBSERVERS.append(tally)
    yield tally
    wire.OBSERVERS.remove(tally)


@pytest.fixture
def sim() -> Simulator:
    return Simulator(seed=7)


@pytest.fixture
def client(sim: Simulator):
    """The production path: pulumi_hyperpod.aws.client.connect with the simulator behind it."""
    return connect(backend="fake", simulator=sim, region="us-west-2")


@pytest.fixture
def make_sim():
    """Simulator factory for scenario tests: make_sim(scenario, seed=...) -> (sim, client)."""

    def factory(scenario: dict | None = None, seed: int = 7, region: str = "us-west-2"):
        simulator = Simulator(seed=seed, scenario=scenario)
        return simulator, connect(backend="fake", simulator=simulator, region=region)

    return factory


@pytest.fixture
def retry_sleeps(monkeypatch) -> list[float]:
    """botocore's retry backoff sleeps, recorded instead of slept (the retries themselves are real)."""
    import botocore.endpoint

    sleeps: list[float] = []

    class _Time:
        sleep = staticmethod(sleeps.append)

        def __getattr__(self, name):
            import time

            return getattr(time, name)

    monkeypatch.setattr(botocore.endpoint, "time", _Time())
    return sleeps
