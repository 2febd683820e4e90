"""aws/apply/moves.py: MoveClusterNodes with a ClientToken derived from the plan, the service's per-node
refusals as failures of the run, the hand-off waited for, and the saved-plan check before it."""

from __future__ import annotations

import dataclasses

import pytest

from pulumi_hyperpod import apply, observe
from pulumi_hyperpod.aws.apply.moves import client_token
from pulumi_hyperpod.core.contract import PlanStale
from tests.support.moves import World, spec


@pytest.fixture
def world() -> World:
    made = World()
    made.build(spec(4, 2))
    return made


def test_the_client_token_is_the_plans_and_the_counts_it_starts_from(world: World) -> None:
    the_plan = world.planned(spec(2, 4))
    [step] = the_plan.steps
    token = client_token(the_plan, step, {"train": 4, "serve": 2})
    assert token == client_token(the_plan, step, {"train": 4, "serve": 2})  # a retry is the same request
    assert token != client_token(the_plan, step, {"train": 3, "serve": 2})  # from other counts it is another
    other = dataclasses.replace(step, request={**step.request, "NodeIds": list(reversed(step.request["NodeIds"]))[:1]})
    assert token != client_token(the_plan, other, {"train": 4, "serve": 2})


def test_a_retried_move_with_its_token_starts_no_second_move(world: World) -> None:
    the_plan = world.planned(spec(2, 4))
    [step] = the_plan.steps
    request = {**step.request, "ClientToken": client_token(the_plan, step, {"train": 4, "serve": 2})}
    first = world.sagemaker.move_cluster_nodes(**request)
    again = world.sagemaker.move_cluster_nodes(**request)  # botocore's retry, or a re-run after a crash
    assert first["Successful"] == again["Successful"] == step.request["NodeIds"]
    train = observe(world.sagemaker, "split").group("train")
    assert train.target_count == 2  # moved once


def test_a_node_the_service_refuses_fails_the_run_with_a_line(world: World) -> None:
    the_plan = world.planned(spec(2, 4))
    [step] = the_plan.steps
    broken, kept = step.request["NodeIds"]
    world.sim.fail_node("split", broken, retryable=False)
    result = apply(
        world.sagemaker,
        the_plan,
        check_fresh=False,  # past the saved-plan check (which would call it stale), to the service's own answer
        wait="none",
        timeout=3600,
        sleep=world.sim.advance,
        monotonic=lambda: world.sim.now().timestamp(),
    )
    assert result.outcome == "partial"
    assert any(f.startswith(f"MoveClusterNodes {broken}: InvalidNodeStatus") and "stays in train" in f for f in result.failures)
    assert observe(world.sagemaker, "split").node(kept).group == "serve"


def test_a_saved_move_applied_again_is_stale_and_sends_nothing(world: World) -> None:
    the_plan = world.planned(spec(2, 4))
    assert world.apply(the_plan).outcome == "done"
    world.sim.reset_calls()
    with pytest.raises(PlanStale):
        world.apply(the_plan)
    assert world.sent("MoveClusterNodes") == []


def test_a_move_the_service_cancels_is_a_failure_naming_the_node(world: World) -> None:
    """The target group deleted while the nodes detach (another writer): the service cancels the move and
    the nodes stay in the source (the simulator's hand-off); apply names each, it does not wait on."""
    the_plan = world.planned(spec(2, 4))
    deleted = []

    def sleep(seconds: float) -> None:
        if not deleted:  # another writer, while the first poll waits
            deleted.append(world.sagemaker.update_cluster(ClusterName="split", InstanceGroupsToDelete=["serve"]))
        world.sim.advance(seconds)

    result = apply(world.sagemaker, the_plan, wait="none", timeout=3600, sleep=sleep, monotonic=lambda: world.sim.now().timestamp())
    assert deleted and result.outcome == "partial"  # the service accepted the move (core/contract.py: settled_outcome)
    for node in the_plan.steps[0].request["NodeIds"]:
        assert any(f.startswith(f"MoveClusterNodes {node}: not in serve") and "in train" in f for f in result.failures), result.failures
