"""$HYPERPOD_PINNED_PLAN_DIR (provider/pinned.py): the provider's update and create apply the plan
pinned for their cluster — the one a preview wrote to $HYPERPOD_PLAN_DIR — and nothing else: a plan
made now that is not it, a cluster with no pinned plan, or a cluster moved since (the pinned plan's
premises) is refused before any write."""

from __future__ import annotations

import pytest

from pulumi_hyperpod import connect, observe
from pulumi_hyperpod.provider import ProviderError
from pulumi_hyperpod.provider.cloud_provider import PLAN_DIR_ENV
from pulumi_hyperpod.provider.pinned import PINNED_DIR_ENV

from tests.support.provider_specs import mutations, props, slurm_spec


@pytest.fixture
def pinned_scale_out(engine, sim, tmp_path, monkeypatch):
    """A cluster of 1 worker, the preview of 3 workers written and then pinned."""
    arn, outputs = engine.create(props(slurm_spec(workers=1), wait="Target"))
    monkeypatch.setenv(PLAN_DIR_ENV, str(tmp_path / "plans"))
    engine.diff(arn, outputs, props(slurm_spec(workers=3)))
    monkeypatch.delenv(PLAN_DIR_ENV)
    assert [p.name for p in (tmp_path / "plans").iterdir()] == ["demo-cluster.json"]
    monkeypatch.setenv(PINNED_DIR_ENV, str(tmp_path / "plans"))
    return arn, outputs


def test_the_pinned_plan_is_applied(engine, sim, pinned_scale_out):
    arn, outputs = pinned_scale_out
    before = len(mutations(sim))
    outputs = engine.update(arn, outputs, props(slurm_spec(workers=3), wait="Target"))
    assert outputs["groups"]["workers"]["target_count"] == 3
    assert [op for op, _ in mutations(sim)[before:]] == ["BatchAddClusterNodes"]


def test_another_plan_than_the_pinned_one_is_refused_before_any_write(engine, sim, pinned_scale_out):
    arn, outputs = pinned_scale_out
    before = len(mutations(sim))
    with pytest.raises(ProviderError) as refused:
        engine.update(arn, outputs, props(slurm_spec(workers=4), wait="Target"))
    assert str(refused.value).startswith("cluster demo-cluster: the plan made now is not the pinned one (step 1 (")
    assert "nothing was applied" in str(refused.value)
    assert mutations(sim)[before:] == []


def test_a_cluster_moved_since_the_pin_is_refused_before_any_write(engine, sim, pinned_scale_out):
    arn, outputs = pinned_scale_out
    client = connect("fake", simulator=sim)
    client.batch_add_cluster_nodes(ClusterName="demo-cluster", NodesToAdd=[{"InstanceGroupName": "workers", "IncrementTargetCountBy": 1}])
    sim.advance(3600)
    assert len(observe(client, "demo-cluster").nodes_of("workers")) == 2
    before = len(mutations(sim))
    with pytest.raises(ProviderError) as refused:
        engine.update(arn, outputs, props(slurm_spec(workers=3), wait="Target"))
    # the plan made now adds 1 worker where the pinned one added 2
    assert str(refused.value).startswith("cluster demo-cluster: the plan made now is not the pinned one (step 1 (BatchAddClusterNodes)")
    assert mutations(sim)[before:] == []


def test_a_cluster_with_no_pinned_plan_is_refused(engine, sim, tmp_path, monkeypatch):
    arn, outputs = engine.create(props(slurm_spec(workers=1), wait="Target"))
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv(PINNED_DIR_ENV, str(tmp_path / "empty"))
    before = len(mutations(sim))
    with pytest.raises(ProviderError, match=r"^cluster demo-cluster: no plan of it is pinned"):
        engine.update(arn, outputs, props(slurm_spec(workers=2), wait="Target"))
    assert mutations(sim)[before:] == []
