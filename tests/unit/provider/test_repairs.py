"""A repair input acts once per new value (like pulumi-command's `triggers`): policy.replace_node_ids
replaces the node in the update that brings the id, and the same inputs afterwards change nothing."""

from __future__ import annotations

from pulumi_hyperpod import observe

from tests.support.provider_specs import slurm_spec
from tests.support.provider_specs import mutations, props


def test_a_replace_id_in_the_policy_replaces_the_node_once_and_then_is_no_change(engine, sim, capsys):
    arn, outputs = engine.create(props(slurm_spec(workers=2), wait="Target"))
    client = sim.client()
    worker = next(n.instance_id for n in observe(client, "demo-cluster").nodes if n.group == "workers")
    sim.fail_node("demo-cluster", worker, retryable=False)
    capsys.readouterr()
    wanted = props(slurm_spec(workers=2), wait="Target", policy={"replace_node_ids": [worker]})

    diff = engine.diff(arn, outputs, wanted)
    assert diff.changes is True and diff.replaces == []
    assert "BatchReplaceClusterNodes" in capsys.readouterr().err
    before = len(mutations(sim))
    outputs = engine.update(arn, outputs, wanted)
    assert [(op, request.get("NodeIds")) for op, request in mutations(sim)[before:]] == [("BatchReplaceClusterNodes", [worker])]

    assert engine.diff(arn, outputs, wanted).changes is False  # the same value: acted on already
    before = len(mutations(sim))
    engine.update(arn, outputs, wanted)
    assert mutations(sim)[before:] == []
