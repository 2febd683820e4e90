"""What `pulumi refresh` shows (provider/refresh.py): the drift read found, in a few lines, and no
plan — the engine's refresh asks for a diff right after each read, and that diff renders nothing."""

from __future__ import annotations

from pulumi_hyperpod import connect, observe
from pulumi_hyperpod.provider.refresh import REFRESHES, SHOWN, drift_text

from tests.support.provider_specs import props, slurm_spec


def scaled_in_outside(engine, sim) -> tuple[str, dict]:
    """A 3-worker cluster, one worker deleted outside Pulumi; its id and the outputs in the state."""
    arn, outputs = engine.create(props(slurm_spec(workers=3), wait="Target"))
    client = connect("fake", simulator=sim)
    victim = observe(client, "demo-cluster").nodes_of("workers")[0].instance_id
    client.batch_delete_cluster_nodes(ClusterName="demo-cluster", NodeIds=[victim])
    sim.advance(600)
    return arn, outputs


def test_refresh_reports_the_drift_and_its_diff_shows_no_plan(engine, provider, sim, capsys):
    arn, outputs = scaled_in_outside(engine, sim)
    capsys.readouterr()
    _, refreshed, _ = engine.read(arn, outputs)
    # the engine's refresh diff: refreshed state as the old side, the stored inputs as the new, no check
    diff = provider.diff(arn, refreshed, outputs)
    said = capsys.readouterr().err
    assert diff.changes is True and diff.replaces == []  # the refresh shows the resource as updated
    assert "groups.workers.target_count: 3 → 2" in said and "node_count: 4 → 3" in said
    assert "Plan for cluster" not in said and "BatchAddClusterNodes" not in said and "┃" not in said
    assert len(said.splitlines()) <= SHOWN + 2  # a few lines


def test_after_the_refresh_a_preview_shows_the_plan_again(engine, provider, sim, capsys):
    arn, outputs = scaled_in_outside(engine, sim)
    _, refreshed, _ = engine.read(arn, outputs)
    provider.diff(arn, refreshed, outputs)  # refresh's own diff
    capsys.readouterr()
    diff = engine.diff(arn, refreshed, props(slurm_spec(workers=3)))  # the next preview: check, then diff
    assert diff.changes is True
    assert "Plan for cluster demo-cluster: update" in capsys.readouterr().err


def test_a_check_before_the_diff_makes_it_a_previews(engine, provider, sim, capsys):
    """`pulumi up --refresh` on an engine that asks no refresh diff: read, then the program's check
    and diff — that diff shows the plan."""
    arn, outputs = scaled_in_outside(engine, sim)
    _, refreshed, _ = engine.read(arn, outputs)
    capsys.readouterr()
    engine.diff(arn, refreshed, props(slurm_spec(workers=3)))
    assert "Plan for cluster demo-cluster: update" in capsys.readouterr().err
    assert REFRESHES.is_refresh_diff(arn) is False


def test_a_refresh_without_drift_says_nothing(engine, provider, sim, capsys):
    arn, outputs = engine.create(props(slurm_spec(workers=2), wait="Target"))
    capsys.readouterr()
    _, refreshed, _ = engine.read(arn, outputs)
    assert provider.diff(arn, refreshed, outputs).changes is False
    assert capsys.readouterr().err == ""


def test_a_cluster_gone_says_so(engine, sim, capsys):
    arn, outputs = engine.create(props(slurm_spec()))
    connect("fake", simulator=sim).delete_cluster(ClusterName="demo-cluster")
    sim.advance(3600)
    capsys.readouterr()
    assert engine.read(arn, outputs)[0] == ""
    assert "cluster demo-cluster no longer exists" in capsys.readouterr().err


def test_drift_text_lists_what_differs_and_counts_the_rest():
    stored = {"status": "InService", "spec": {"a": 1}, "groups": {f"g{i}": {"target_count": 2.0} for i in range(12)}}
    found = {"status": "Updating", "spec": {"a": 2}, "groups": {f"g{i}": {"target_count": 1} for i in range(12)}}
    lines = drift_text(stored, found).splitlines()
    assert lines[1] == "  groups.g0.target_count: 2 → 1"  # a wire float shown as the count it is
    assert "  status: InService → Updating" not in lines[1 : 1 + SHOWN]  # sorted: groups first, then the rest counted
    assert lines[1 + SHOWN] == f"  … and {12 + 1 - SHOWN} more"
    assert not any(line.startswith("  spec") for line in lines)  # the inputs echoed: their drift shows in the counts
    assert drift_text({}, found) == ""  # no outputs in the state (an import): nothing to compare
    assert drift_text(found, found) == ""
