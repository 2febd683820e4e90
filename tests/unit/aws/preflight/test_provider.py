"""Preflight through the Pulumi provider against the in-memory simulator: the preview shows the
section, and a quota refusal stops `pulumi up` (create or update) with the numbers."""

from __future__ import annotations

import itertools

import pytest

from tests.support.provider_specs import LIFECYCLE, Engine, slurm_spec
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.provider import ClusterProvider, ProviderError, register_simulator, unregister_simulator

from .conftest import g5_quota

_names = itertools.count()


@pytest.fixture
def world():
    """(engine, simulator) with `ml.g5.xlarge for cluster usage` = 3 (the workers' type)."""
    made = []

    def make(quotas):
        name = f"preflight-world-{next(_names)}"
        sim = Simulator(seed=7, scenario={"quotas": quotas})
        register_simulator(name, sim)
        made.append(name)
        return Engine(ClusterProvider(simulator=name)), sim

    yield make
    for name in made:
        unregister_simulator(name)


def props(spec, **settings):
    return {"spec": spec, "backend": "fake", **settings}


def mutations(sim):
    return [op for op, _ in sim.calls if op in ("CreateCluster", "UpdateCluster", "BatchAddClusterNodes", "BatchDeleteClusterNodes")]


def test_preview_shows_the_refusal_and_update_stops_with_the_numbers(world, capsys):
    engine, sim = world([g5_quota(3)])
    arn, outputs = engine.create(props(slurm_spec(workers=2), wait="Target"))
    capsys.readouterr()

    diff = engine.diff(arn, outputs, props(slurm_spec(workers=5)))
    preview = capsys.readouterr().err
    assert diff.changes is True
    assert "REFUSED [service-quota]" in preview and "2 → 5" in preview
    assert "Preflight:" in preview and "OVER +3" in preview

    before = len(mutations(sim))
    with pytest.raises(ProviderError) as error:
        engine.update(arn, outputs, props(slurm_spec(workers=5)))
    message = str(error.value)
    assert "[service-quota]" in message and "is 3 in us-west-2" in message and "asks for 3 more → 5 > 3" in message
    assert "request an increase" in message and "weeks" in message
    assert mutations(sim)[before:] == []


def test_create_over_a_quota_creates_nothing(world, capsys):
    engine, sim = world([g5_quota(3)])
    with pytest.raises(ProviderError, match=r"ml\.g5\.xlarge for cluster usage .* is 3 .* 4 > 3"):
        engine.create(props(slurm_spec(workers=4)))
    assert mutations(sim) == []


def test_preview_warns_near_a_quota_and_of_a_lifecycle_change_before_a_scale_out(world, capsys):
    engine, _sim = world([g5_quota(4)])
    arn, outputs = engine.create(props(slurm_spec(workers=2), wait="Target"))
    changed = slurm_spec(workers=2)
    changed["InstanceGroups"][1]["LifeCycleConfig"] = {**LIFECYCLE, "SourceS3Uri": "s3://amzn-s3-demo-bucket/lifecycle-scripts/v2/"}
    outputs = engine.update(arn, outputs, props(changed, wait="Target"))
    capsys.readouterr()

    grown = slurm_spec(workers=4)
    grown["InstanceGroups"][1]["LifeCycleConfig"] = changed["InstanceGroups"][1]["LifeCycleConfig"]
    engine.diff(arn, outputs, props(grown))
    preview = " ".join(line.removeprefix("[hyperpod demo-cluster] ").strip() for line in capsys.readouterr().err.splitlines())
    assert "REFUSED" not in preview and "NEAR +2" in preview
    assert "2 existing node(s) were built with the old configuration, the 2 node(s) this plan adds" in preview
    assert "verdict: may be applied, with 2 warning(s)" in preview

    outputs = engine.update(arn, outputs, props(grown, wait="Target"))
    assert outputs["groups"]["workers"]["target_count"] == 4
