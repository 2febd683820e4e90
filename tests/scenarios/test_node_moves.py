"""Issue 41, "Moves in the plan": a group split on an EKS + Continuous cluster moves nodes
(MoveClusterNodes) instead of deleting and adding them — through the real botocore client on the
simulator (plan → preflight → apply, as the CLI and the provider run them). The moved nodes keep their
instance ids, no BatchAddClusterNodes/BatchDeleteClusterNodes is sent and no instance is launched, and
preflight asks no new quota; the policy switch gives the old plan; a Slurm cluster never gets a move."""

from __future__ import annotations

import pytest

from pulumi_hyperpod import ClusterSpec, Policy, observe
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.plans import plan_text
from tests.support.factories import group, slurm_spec
from tests.support.moves import TYPE, World, spec


@pytest.fixture
def world() -> World:
    made = World(quota=6)  # 4 + 2 run; a split that held 4 + 2 + 2 at once would not fit
    made.build(spec(4, 2))
    return made


def test_a_group_split_moves_the_nodes_keeping_their_instances_and_asking_no_new_quota(world: World) -> None:
    train_before, serve_before = world.ids("train"), world.ids("serve")
    the_plan = world.planned(spec(2, 4))

    assert not the_plan.refused, the_plan.refusals
    assert the_plan.calls() == {"MoveClusterNodes": 1}
    [move] = the_plan.steps
    moved = move.request["NodeIds"]
    assert len(moved) == 2 and set(moved) <= train_before
    assert (move.request["SourceInstanceGroupName"], move.request["TargetInstanceGroupName"]) == ("train", "serve")
    assert move.request["SourceClusterArn"] == move.request["TargetClusterArn"] == the_plan.basis.identity
    text = plan_text(the_plan)
    assert f"2 × {TYPE} moved, not released and re-requested" in text
    assert "Nodes that would move to another group" in text and all(node in text for node in moved)
    assert any("cost nothing extra" in note for note in the_plan.notes)
    assert the_plan.preflight.quotas.status == "not-needed"  # the growth is moved in: no instance asked for
    assert "service quotas: not checked, the plan adds no instances" in text

    world.sim.reset_calls()
    result = world.apply(the_plan)

    assert result.outcome == "done", result.failures
    assert world.sent("BatchAddClusterNodes", "BatchDeleteClusterNodes", "UpdateCluster", "CreateCluster") == []
    [(_, request)] = [(op, params) for op, params in world.sim.calls if op == "MoveClusterNodes"]
    assert request["ClientToken"] and request["NodeIds"] == moved
    assert world.ids("serve") == serve_before | set(moved)  # the same instances, no new one
    assert world.ids("train") == train_before - set(moved)
    after = observe(world.sagemaker, "split")
    assert {g.name: g.target_count for g in after.groups} == {"train": 2, "serve": 4}
    assert all(n.status == "Running" for n in after.nodes)


def test_with_moves_off_the_split_deletes_and_adds(world: World) -> None:
    the_plan = world.planned(spec(2, 4), Policy(allow_node_moves=False))
    assert the_plan.calls() == {"BatchDeleteClusterNodes": 1, "BatchAddClusterNodes": 1}
    assert the_plan.preflight.quotas.status == "checked"


def test_a_split_that_does_not_fit_the_quota_as_delete_and_add_fits_as_a_move(world: World) -> None:
    # train's MinInstanceCount changes too, so the plan makes an UpdateCluster, and the adds fold into it:
    # it raises serve to 4 before the delete lowers train — 8 held at once, past the quota of 6
    desired = spec(2, 4, MinInstanceCount=1)
    off = Policy(allow_node_moves=False)
    assert [s.operation for s in plan(desired, observe(world.sagemaker, "split"), off).steps] == [
        "UpdateCluster",
        "BatchDeleteClusterNodes",
    ]
    old = world.planned(desired, off)
    [refusal] = old.refusals
    assert refusal.rule == "service-quota" and "8 are held at once" in refusal.reason and "8 > 6" in refusal.reason

    moved = world.planned(desired)
    assert not moved.refused, moved.refusals
    assert [s.operation for s in moved.steps] == ["UpdateCluster", "MoveClusterNodes"]
    assert moved.preflight.quotas.status == "not-needed"
    world.sim.reset_calls()
    assert world.apply(moved).outcome == "done"
    assert world.sent("BatchAddClusterNodes", "BatchDeleteClusterNodes") == []


def test_the_service_refuses_what_preflight_refused(world: World) -> None:
    """The peak preflight counts is the service's: applied anyway, the UpdateCluster is refused."""
    from pulumi_hyperpod.core.contract import ApplyError

    old = plan(spec(2, 4, MinInstanceCount=1), observe(world.sagemaker, "split"), Policy(allow_node_moves=False))
    with pytest.raises(ApplyError, match="ResourceLimitExceeded"):
        world.apply(old)


def _slurm(train: int, serve: int) -> ClusterSpec:
    return slurm_spec(workers=train, name="split", extra_groups=[group("worker-gpu-b", serve, "Compute", "gpu-serving")])


@pytest.mark.parametrize(
    ("desired", "source"),
    [(_slurm, "worker-gpu-a"), (lambda train, serve: spec(train, serve, continuous=False), "train")],
    ids=["slurm-continuous", "eks-all-or-nothing"],
)
def test_a_slurm_or_all_or_nothing_cluster_never_gets_a_move(desired, source) -> None:
    made = World()
    made.build(desired(4, 2))
    the_plan = made.planned(desired(2, 4))
    assert not the_plan.refused, the_plan.refusals
    assert "MoveClusterNodes" not in the_plan.calls() and not any(s.kind == "move-nodes" for s in the_plan.steps)
    assert {v.group for v in the_plan.victims} == {source}  # deleted and added, as before
