"""read shows changes made outside Pulumi; diff decides update vs replacement."""

from __future__ import annotations

import copy

import pytest

from pulumi_hyperpod import connect, observe

from tests.support.provider_specs import slurm_spec


def props(spec, **settings):
    return {"spec": spec, "backend": "fake", **settings}


def test_refresh_shows_an_out_of_band_scale_in_and_the_next_preview_restores_it(engine, sim, capsys):
    arn, outputs = engine.create(props(slurm_spec(workers=3), wait="Target"))
    client = connect("fake", simulator=sim)
    victim = observe(client, "demo-cluster").nodes_of("workers")[0].instance_id
    client.batch_delete_cluster_nodes(ClusterName="demo-cluster", NodeIds=[victim])  # outside Pulumi
    sim.advance(600)

    new_id, refreshed, inputs = engine.read(arn, outputs)
    assert new_id == arn
    assert refreshed["groups"]["workers"]["target_count"] == 2  # the drift, in the outputs
    assert inputs["spec"]["InstanceGroups"][1]["InstanceCount"] == 2  # and in the inputs the next diff sees
    assert refreshed["spec"] == inputs["spec"]
    assert inputs["backend"] == "fake" and "arn" not in inputs

    capsys.readouterr()
    diff = engine.diff(arn, refreshed, props(slurm_spec(workers=3)))
    assert diff.changes is True and diff.replaces == []
    preview = capsys.readouterr().err
    assert "2 → 3" in preview
    # the plan's tables, drawn from its typed sections: groups, steps, cost, preflight
    assert "Steps (in order)" in preview and "Cost per hour" in preview and "Preflight:" in preview

    restored = engine.update(arn, refreshed, props(slurm_spec(workers=3), wait="Target"))
    assert restored["groups"]["workers"]["current_count"] == 3


def test_read_without_drift_changes_nothing(engine, sim):
    arn, outputs = engine.create(props(slurm_spec(workers=2), wait="Target"))
    _, refreshed, inputs = engine.read(arn, outputs)
    assert inputs["spec"] == outputs["spec"]
    assert engine.diff(arn, refreshed, props(slurm_spec(workers=2), wait="Target")).changes is False


def test_read_of_a_deleted_cluster_drops_it(engine, sim):
    arn, outputs = engine.create(props(slurm_spec()))
    connect("fake", simulator=sim).delete_cluster(ClusterName="demo-cluster")
    sim.advance(3600)
    new_id, _, _ = engine.read(arn, outputs)
    assert new_id == ""


def test_a_diff_without_refresh_still_sees_the_live_cluster(engine, sim):
    arn, outputs = engine.create(props(slurm_spec(workers=2), wait="Target"))
    connect("fake", simulator=sim).update_cluster(
        ClusterName="demo-cluster", InstanceGroups=[{**slurm_spec(workers=5)["InstanceGroups"][1]}]
    )
    sim.advance(60)
    diff = engine.diff(arn, outputs, props(slurm_spec(workers=2)))
    assert diff.changes is True  # the inputs did not change, the cluster did


def test_reordered_groups_and_subnets_are_no_change(engine, sim):
    spec = slurm_spec(workers=2)
    spec["VpcConfig"]["Subnets"] = ["subnet-0aaa1111", "subnet-0bbb2222"]
    arn, outputs = engine.create(props(spec, wait="Target"))
    reordered = copy.deepcopy(spec)
    reordered["InstanceGroups"].reverse()
    reordered["VpcConfig"]["Subnets"].reverse()
    diff = engine.diff(arn, outputs, props(reordered, wait="Target"))
    assert diff.changes is False and diff.replaces == []


@pytest.mark.parametrize(
    ("change", "key"),
    [
        (lambda s: s["VpcConfig"].update(Subnets=["subnet-87654321"]), "spec.VpcConfig"),
        (lambda s: s.update(ClusterName="another-cluster"), "spec.ClusterName"),
        (lambda s: s.pop("NodeProvisioningMode"), "spec.NodeProvisioningMode"),
        (
            lambda s: s.update(
                Orchestrator={"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/x"}},
                InstanceGroups=[{k: v for k, v in g.items() if k != "SlurmConfig"} for g in s["InstanceGroups"]],
            ),
            "spec.Orchestrator",
        ),
    ],
    ids=["vpc", "name", "leave-continuous", "orchestrator"],
)
def test_what_the_service_cannot_change_is_a_replacement(engine, sim, change, key):
    arn, outputs = engine.create(props(slurm_spec()))
    changed = copy.deepcopy(slurm_spec())
    change(changed)

    # refused at check: the engine shows a validation error naming the property, before any call
    failures = engine.check(props(changed), outputs).failures
    assert [f.property for f in failures] == [key]
    assert "replaces the cluster" in failures[0].reason and "allow_replacement" in failures[0].reason

    diff = engine.diff(arn, outputs, props(changed, policy={"allow_replacement": True}))
    assert key in diff.replaces
    assert diff.changes is True and diff.delete_before_replace is True


def test_switching_an_existing_cluster_to_continuous_is_a_replacement(engine, sim):
    """AWS: existing clusters cannot be migrated to continuous provisioning (issue 12, item 15)."""
    arn, outputs = engine.create(props(slurm_spec(continuous=False)))
    failures = engine.check(props(slurm_spec(continuous=True)), outputs).failures
    assert [f.property for f in failures] == ["spec.NodeProvisioningMode"]
    assert "Slurm cluster cannot be switched to NodeProvisioningMode Continuous" in failures[0].reason
    diff = engine.diff(arn, outputs, props(slurm_spec(continuous=True), policy={"allow_replacement": True}))
    assert "spec.NodeProvisioningMode" in diff.replaces


def test_an_eks_cluster_moving_to_continuous_is_an_update_in_place():
    """Issue 37 item 5: UpdateCluster takes NodeProvisioningMode; only the Slurm page forbids the move."""
    from pulumi_hyperpod.provider.changes import spec_replacements

    eks = {
        "ClusterName": "eks-ml",
        "Orchestrator": {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/ml"}},
        "InstanceGroups": [],
    }
    assert spec_replacements(eks, {**eks, "NodeProvisioningMode": "Continuous"}) == []
    [leaving] = spec_replacements({**eks, "NodeProvisioningMode": "Continuous"}, eks)
    assert leaving.key == "spec.NodeProvisioningMode" and "cannot leave Continuous" in leaving.reason


def test_moving_region_is_a_replacement(engine, sim):
    arn, outputs = engine.create(props(slurm_spec()))
    diff = engine.diff(arn, outputs, props(slurm_spec(), region="eu-west-1", policy={"allow_replacement": True}))
    assert diff.replaces == ["region"]


def test_a_cluster_deleted_outside_pulumi_is_created_again(engine, sim, capsys):
    arn, outputs = engine.create(props(slurm_spec()))
    connect("fake", simulator=sim).delete_cluster(ClusterName="demo-cluster")
    sim.advance(3600)
    capsys.readouterr()
    diff = engine.diff(arn, outputs, props(slurm_spec()))
    assert diff.replaces and diff.delete_before_replace is True
    assert "no longer exists" in capsys.readouterr().err


def test_a_group_added_outside_pulumi_shows_in_refresh_and_the_plan_removes_it(engine, sim, capsys):
    from tests.support.provider_specs import group

    arn, outputs = engine.create(props(slurm_spec(workers=1), wait="Target"))
    client = connect("fake", simulator=sim)
    client.update_cluster(ClusterName="demo-cluster", InstanceGroups=[group("extra", 2, "Compute", "dev")])
    sim.advance(900)

    _, refreshed, inputs = engine.read(arn, outputs)
    names = [g["InstanceGroupName"] for g in inputs["spec"]["InstanceGroups"]]
    assert names == ["controller", "workers", "extra"]
    assert refreshed["groups"]["extra"]["target_count"] == 2

    capsys.readouterr()
    diff = engine.diff(arn, refreshed, props(slurm_spec(workers=1)))
    assert diff.changes is True and diff.replaces == []
    assert "extra" in capsys.readouterr().err
    outputs = engine.update(arn, refreshed, props(slurm_spec(workers=1)))
    assert outputs["groups"].get("extra", {"status": "Deleting"})["status"] == "Deleting"
    sim.advance(900)
    _, refreshed, _ = engine.read(arn, outputs)
    assert set(refreshed["groups"]) == {"controller", "workers"}
