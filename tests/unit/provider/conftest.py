"""Provider tests: the provider's methods called as the dynamic-provider server calls them, with
property bags that went through the SDK's own wire encoding (numbers become doubles, unknowns
become `Unknown`), against an in-memory simulator registered under a name."""

from __future__ import annotations

import itertools

import pytest

from tests.support.provider_specs import Engine

_names = itertools.count()


@pytest.fixture
def simulator_name():
    return f"test-world-{next(_names)}"


@pytest.fixture
def sim(simulator_name):
    from pulumi_hyperpod.sim.aws import Simulator
    from pulumi_hyperpod.provider import register_simulator, unregister_simulator

    world = Simulator(seed=7)
    register_simulator(simulator_name, world)
    yield world
    unregister_simulator(simulator_name)


@pytest.fixture
def provider(simulator_name):
    from pulumi_hyperpod.provider import ClusterProvider

    return ClusterProvider(simulator=simulator_name)


@pytest.fixture
def engine(provider):
    return Engine(provider)


@pytest.fixture(autouse=True)
def no_replacement_noted():
    """Each test starts with no cluster noted as being replaced (`cloud_provider.REPLACED`, the
    process's memory between a diff and the check of the replacement's create): the simulators'
    seeded ids repeat from test to test."""
    from pulumi_hyperpod.provider.cloud_provider import REPLACED

    REPLACED.clear()
    yield
    REPLACED.clear()
