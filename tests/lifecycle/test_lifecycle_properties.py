"""Properties of the rollout batches and the repair calls, over many sizes (hypothesis).

The planner (aws/planner/software.py) and the simulator (fake/rolling_update.py) each size a batch from
MaximumBatchSize; they are two sides of one rule, so they are held to each other here."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings, strategies as st

from pulumi_hyperpod.sim.aws import rolling_update
from pulumi_hyperpod.aws.observe import ClusterState, GroupState, NodeState
from pulumi_hyperpod.plans import Policy
from pulumi_hyperpod.aws.planner.repair import per_call, plan_repairs
from pulumi_hyperpod.aws.planner.software import batch_size, rollout_order

sizes = st.one_of(
    st.none(),
    st.builds(lambda t, v: {"Type": t, "Value": v}, st.sampled_from(["INSTANCE_COUNT", "CAPACITY_PERCENTAGE"]), st.integers(1, 150)),
)
EPOCH = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


def _node(index: int, launch_minute: int) -> NodeState:
    return NodeState("workers", f"i-{index:017x}", f"node-{index}", "ml.g5.xlarge", "Running", EPOCH + dt.timedelta(minutes=launch_minute))


@given(size=sizes, total=st.integers(0, 300))
def test_the_planner_and_the_simulator_size_a_batch_alike(size, total):
    assert batch_size(size, total) == rolling_update._batch_size(size, total)


@settings(max_examples=60)
@given(size=sizes, minutes=st.lists(st.integers(0, 50), min_size=1, max_size=120))
def test_batches_cover_every_running_node_once_oldest_first_within_the_batch_size(size, minutes):
    nodes = [_node(i, m) for i, m in enumerate(minutes)]
    ordered = rollout_order(nodes)
    limit = batch_size(size, len(ordered))
    batches = [ordered[i : i + limit] for i in range(0, len(ordered), limit)]
    flat = [n for batch in batches for n in batch]
    assert sorted(n.instance_id for n in flat) == sorted(n.instance_id for n in nodes)
    assert all(len(batch) <= limit for batch in batches)
    assert [n.launch_time for n in flat] == sorted(n.launch_time for n in flat)


@settings(max_examples=40)
@given(count=st.integers(1, 120), chosen=st.data())
def test_replacements_are_split_within_the_models_limit_and_name_each_node_once(count, chosen):
    nodes = tuple(_node(i, i) for i in range(count))
    wanted = chosen.draw(st.sets(st.sampled_from([n.instance_id for n in nodes]), min_size=1))
    state = ClusterState(
        "c",
        "arn:aws:sagemaker:us-west-2:111122223333:cluster/abcde1234567",
        "InService",
        (GroupState("workers", count, count, 0, "InService", "ml.g5.xlarge", ("ml.g5.xlarge",), None, ()),),
        nodes,
        describe={"Orchestrator": {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/x"}}},
    )
    repairs = plan_repairs(state, Policy(replace_node_ids=frozenset(wanted)), lambda group: None)
    assert repairs.refusals == []
    named = [i for step in repairs.steps for i in step.request["NodeIds"]]
    assert sorted(named) == sorted(wanted) and len(named) == len(set(named))
    assert all(len(step.request["NodeIds"]) <= per_call("BatchReplaceClusterNodes") == 25 for step in repairs.steps)
