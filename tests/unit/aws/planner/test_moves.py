"""aws/planner/moves.py: a group lowered while another of its instance type is raised, on an EKS +
Continuous cluster, moves nodes (MoveClusterNodes) instead of deleting and adding them."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pulumi_hyperpod import ClusterSpec, Policy
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.aws.planner.integrity import step_problems
from pulumi_hyperpod.plans.disruption import of_step
from tests.support.factories import group, node_id, observed_from

P5 = "ml.p5.48xlarge"


def eks(train: int, serve: int, *, serve_type: str = P5, continuous: bool = True, **train_extra: Any) -> ClusterSpec:
    data: dict[str, Any] = {
        "ClusterName": "split",
        "Orchestrator": {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/my-eks-cluster"}},
        "VpcConfig": {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-12345678"]},
        "InstanceGroups": [
            group("train", train, None, InstanceType=P5, **train_extra),
            group("serve", serve, None, InstanceType=serve_type),
        ],
    }
    if continuous:
        data["NodeProvisioningMode"] = "Continuous"
    return ClusterSpec.from_dict(data)


def counts(the_plan) -> tuple[list[str], int, int]:
    """(the nodes moved, the nodes removed, the nodes added to serve) by the plan's steps."""
    moved = [n for s in the_plan.steps if s.operation == "MoveClusterNodes" for n in s.request["NodeIds"]]
    removed = sum(len(s.victims) for s in the_plan.steps if s.operation == "BatchDeleteClusterNodes")
    added = sum(
        e["IncrementTargetCountBy"] for s in the_plan.steps if s.operation == "BatchAddClusterNodes" for e in s.request["NodesToAdd"]
    )
    before = next(g.target_before for g in the_plan.groups if g.group == "serve")
    for step in the_plan.steps:
        if step.operation == "UpdateCluster":
            added += sum(e["InstanceCount"] - before for e in step.request.get("InstanceGroups") or () if e["InstanceGroupName"] == "serve")
    return moved, removed, added


def test_a_split_moves_the_scale_ins_victims_and_names_them() -> None:
    observed = observed_from(eks(4, 1))
    the_plan = plan(eks(2, 3), observed)
    assert the_plan.calls() == {"MoveClusterNodes": 1}
    [step] = the_plan.steps
    assert step.kind == "move-nodes" and step.codes[0] == "move"
    assert step.request == {
        "SourceClusterArn": observed.arn,
        "SourceInstanceGroupName": "train",
        "TargetClusterArn": observed.arn,
        "TargetInstanceGroupName": "serve",
        "NodeIds": [node_id(0, 3), node_id(0, 2)],  # the victim rules' order: the newest first
    }
    assert [v.reason.split(";")[0] for v in step.victims] == ["moves to serve"] * 2
    assert step.reasons == (f"train → serve: 2 × {P5} moved, not released and re-requested",)
    assert of_step(step, the_plan).effect == "destroyed"  # the volumes are replaced (the operation's documentation)
    assert step_problems(the_plan) == []


def test_the_policy_switch_gives_the_old_plan() -> None:
    observed = observed_from(eks(4, 1))
    assert plan(eks(2, 3), observed, Policy(allow_node_moves=False)).calls() == {"BatchDeleteClusterNodes": 1, "BatchAddClusterNodes": 1}


def test_no_move_between_instance_types_nor_off_eks_continuous() -> None:
    other = plan(eks(2, 3, serve_type="ml.g5.xlarge"), observed_from(eks(4, 1, serve_type="ml.g5.xlarge")))
    assert "MoveClusterNodes" not in other.calls()
    fixed = plan(eks(2, 3, continuous=False), observed_from(eks(4, 1, continuous=False)))
    assert "MoveClusterNodes" not in fixed.calls()


def test_a_failed_node_is_deleted_and_a_running_one_moves() -> None:
    observed = observed_from(eks(4, 1), statuses={node_id(0, 0): "Failure"})
    the_plan = plan(eks(2, 3), observed)
    moved, removed, added = counts(the_plan)
    assert moved == [node_id(0, 3)] and removed == 1 and added == 1
    assert [v.node_id for s in the_plan.steps if s.operation == "BatchDeleteClusterNodes" for v in s.victims] == [node_id(0, 0)]


def test_the_source_keeps_its_min_count_of_running_nodes() -> None:
    # a protected node in Failure stays and counts toward nothing: 3 Running, MinCount 2, so 1 may move
    broken = node_id(0, 0)
    observed = observed_from(eks(4, 1), mins={"train": 2}, statuses={broken: "Failure"})
    the_plan = plan(eks(2, 3), observed, Policy(protected_node_ids={broken}))
    moved, removed, added = counts(the_plan)
    assert (len(moved), removed, added) == (1, 1, 1)
    assert any("keeps its MinCount" in note for note in the_plan.notes)


def test_a_tampered_move_is_not_this_plans() -> None:
    import dataclasses

    observed = observed_from(eks(4, 1))
    the_plan = plan(eks(2, 3), observed)
    [step] = the_plan.steps
    elsewhere = dataclasses.replace(step, request={**step.request, "TargetClusterArn": observed.arn.replace("abcde", "zzzzz")})
    other_nodes = dataclasses.replace(step, request={**step.request, "NodeIds": [node_id(0, 0)]})
    for edited in (elsewhere, other_nodes):
        assert step_problems(dataclasses.replace(the_plan, steps=(edited,)))


def test_a_fleet_move_may_target_another_cluster_of_its_account_and_region_only() -> None:
    """A step coded fleet-move (fleet/moves.py) targets another cluster of the plan's account and region;
    another account's or region's is not the plan's, nor an uncoded one (above)."""
    import dataclasses

    observed = observed_from(eks(4, 1))
    the_plan = plan(eks(2, 3), observed)
    [step] = the_plan.steps
    fleet = dataclasses.replace(step, codes=(*step.codes, "fleet-move"))
    region, account, _ = observed.arn.split(":")[3:6]
    elsewhere = observed.arn.rsplit("/", 1)[0] + "/zzzzz0000000"
    ok = dataclasses.replace(fleet, request={**fleet.request, "TargetClusterArn": elsewhere})
    assert step_problems(dataclasses.replace(the_plan, steps=(ok,))) == []
    for other in (elsewhere.replace(account, "444455556666"), elsewhere.replace(region, "us-east-1")):
        edited = dataclasses.replace(fleet, request={**fleet.request, "TargetClusterArn": other})
        (problem,) = step_problems(dataclasses.replace(the_plan, steps=(edited,)))
        assert "neither the plan's cluster nor another of its account and region" in problem


@settings(max_examples=150, deadline=None, derandomize=True, database=None)  # the same examples every run
@given(
    train=st.integers(1, 8),
    serve=st.integers(0, 4),
    data=st.data(),
)
def test_any_split_moves_plus_deletes_and_adds_make_the_counts(train: int, serve: int, data: st.DataObject) -> None:
    train_after = data.draw(st.integers(0, train - 1))
    serve_after = data.draw(st.integers(serve + 1, serve + 6))
    minimum = data.draw(st.integers(0, train_after))
    failed = data.draw(st.sets(st.integers(0, train - 1)))
    protected = data.draw(st.sets(st.integers(0, train - 1)))
    statuses = {node_id(0, k): "Failure" for k in failed}
    policy = Policy(protected_node_ids={node_id(0, k) for k in protected})
    observed = observed_from(eks(train, serve), statuses=statuses, mins={"train": minimum})
    the_plan = plan(eks(train_after, serve_after), observed, policy)
    if the_plan.refused:  # too many protected nodes to shrink: refused with or without moves
        assert plan(
            eks(train_after, serve_after), observed, Policy(allow_node_moves=False, protected_node_ids=policy.protected_node_ids)
        ).refused
        return
    moved, removed, added = counts(the_plan)
    assert len(moved) + added == serve_after - serve
    assert len(moved) + removed == train - train_after
    assert not set(moved) & policy.protected_node_ids
    assert not set(moved) & set(statuses)  # only Running nodes move
    running = train - len(failed)
    assert not moved or running - len(moved) >= minimum  # a move never takes the source below its MinCount
    # and it moves all it can: the running victims (a failed one is removed first), up to the growth and the room above MinCount
    decrease, running_victims = train - train_after, max(train - train_after - len(failed - protected), 0)
    assert len(moved) == min(serve_after - serve, running_victims, max(running - minimum, 0), decrease)
    assert step_problems(the_plan) == []


def test_the_moving_nodes_are_drained_first_as_removed_ones_are() -> None:
    """A move replaces the node's volumes and re-runs lifecycle scripts: its work goes, so policy.drain
    drains it before the MoveClusterNodes, as it drains a victim before BatchDeleteClusterNodes."""
    the_plan = plan(eks(2, 3), observed_from(eks(4, 1)), Policy(drain="cordon"))
    assert [s.operation for s in the_plan.steps] == ["DrainNodes", "MoveClusterNodes"]
    drained = {n["NodeId"] for n in the_plan.steps[0].request["Nodes"]}
    assert drained == set(the_plan.steps[1].request["NodeIds"])
    assert step_problems(the_plan) == []


def test_a_move_costs_nothing_extra_in_the_plans_cost_section() -> None:
    from pulumi_hyperpod.aws.pipeline import make_plan  # plan() is pure: the pipeline adds the cost

    the_plan = make_plan(eks(2, 3), observed_from(eks(4, 1)))
    assert the_plan.calls() == {"MoveClusterNodes": 1}
    groups = {g.group: g for g in the_plan.cost.groups}
    assert groups["train"].delta_per_hour == -groups["serve"].delta_per_hour != 0  # one group's count falls by what the other's rises
    assert the_plan.cost.cluster.delta_per_hour == 0
    assert any("cost nothing extra" in note for note in the_plan.notes)
