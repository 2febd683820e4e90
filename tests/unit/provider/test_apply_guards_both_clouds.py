"""Both clouds' providers apply with the policy's guards checked again on the live cluster (the
CloudProvider passes the policy to core.cloud.execute): whatever the plan object says — here a plan
made as if no node were protected, as one made before the node was — an update that would take a
protected node down is refused at apply, naming the node, and nothing is sent."""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest

from pulumi_hyperpod import connect, observe
from pulumi_hyperpod.plans import Policy
from pulumi_hyperpod.provider.cloud_provider import CloudProvider
from pulumi_hyperpod.provider.errors import ProviderError

from tests.support.gcp import EXAMPLE, NAME
from tests.support.provider_specs import slurm_spec


@pytest.fixture
def plans_unprotected(monkeypatch):
    """The plan made with no node protected; apply gets the resource's real policy."""
    real = CloudProvider._prepare

    def unprotected(self, session, spec, settings, observed):
        return real(self, session, spec, dataclasses.replace(settings, policy=Policy()), observed)

    monkeypatch.setattr(CloudProvider, "_prepare", unprotected)


def test_aws_update_taking_a_protected_node_down_is_refused_at_apply(engine, sim, plans_unprotected):
    props = {"spec": slurm_spec(workers=3), "backend": "fake", "wait": "Target"}
    arn, outputs = engine.create(props)
    workers = [n.instance_id for n in observe(connect("fake", simulator=sim), "demo-cluster").nodes_of("workers")]
    sent = len(sim.calls)
    shrink = {**props, "spec": slurm_spec(workers=1), "policy": {"protected_node_ids": workers}}
    with pytest.raises(ProviderError, match="protected") as refused:
        engine.update(arn, outputs, shrink)
    assert "cluster demo-cluster:" in str(refused.value)
    assert not [op for op, _ in sim.calls[sent:] if not op.startswith(("Describe", "List"))]  # nothing was sent


def test_gcp_update_taking_a_protected_node_down_is_refused_at_apply(tmp_path, monkeypatch, plans_unprotected):
    from pulumi_hyperpod.gcp.client import connect as gcp_connect
    from pulumi_hyperpod.gcp.observe import observe as gcp_observe
    from pulumi_hyperpod.provider.gcp import GcpClusterProvider
    from pulumi_hyperpod.sim.gcp import GcpSimulator

    world = tmp_path / "gcp.sqlite"
    monkeypatch.setenv("HYPERPOD_GCP_FAKE_STATE", str(world))
    monkeypatch.setenv("HYPERPOD_POLL_SECONDS", "0.001")
    doc = json.loads(EXAMPLE.read_text())
    inputs = {"spec": doc, "backend": "fake", "policy": {}, "timeout": 600, "wait": True}
    provider = GcpClusterProvider()
    created = provider.create(inputs)
    running = gcp_observe(gcp_connect("fake", simulator=GcpSimulator(world), poll_seconds=0), NAME)
    node = running.pool("a4").nodes[0][0]

    shrunk = copy.deepcopy(doc)
    next(p for p in shrunk["node_pools"] if p["id"] == "a4")["scaling_spec"] = {"min_node_count": 1, "max_node_count": 1}
    news = {**inputs, "spec": shrunk, "policy": {"protected_node_ids": [node]}}
    with pytest.raises(ProviderError, match=node) as refused:
        provider.update(created.id, created.outs, news)
    assert "apply-guard" in str(refused.value) and "llmtrain" in str(refused.value)
    assert gcp_observe(gcp_connect("fake", simulator=GcpSimulator(world), poll_seconds=0), NAME) == running  # nothing was sent
