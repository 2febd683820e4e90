"""The planner's side, pure: scale_in_order without a workload is the state order, oldest/newest by
launch time, remove_first first; the policy's new members are checked; a plan with a DrainNodes step
round-trips through JSON, and a drain step naming a node no step removes is not this tool's plan."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest
from hypothesis import given, settings, strategies as st
from pydantic import ValidationError

from pulumi_hyperpod.plans import Plan, Policy
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.aws.planner import victims as rules
from pulumi_hyperpod.aws.planner import workload_order
from pulumi_hyperpod.aws.planner.integrity import step_problems
from pulumi_hyperpod.aws.workload.model import Job, NodeWorkload, WorkloadView
from tests.support.factories import EPOCH, node_id, observed_from, slurm_spec

STATUSES = ["Running", "Running", "Failure", "Pending", "DeepHealthCheckInProgress", "SystemUpdating", "ShuttingDown"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(STATUSES), min_size=1, max_size=8), st.integers(0, 8))
def test_without_a_workload_every_order_but_oldest_and_newest_chooses_as_the_state_rules(statuses, count) -> None:
    spec = slurm_spec(workers=len(statuses))
    state = observed_from(spec, statuses={node_id(2, k): s for k, s in enumerate(statuses)})
    nodes = rules.removable(state.nodes_of("worker-gpu-a"), "Compute", ())
    expected = rules.choose(nodes, count)
    for order in ("state", "workload"):
        assert workload_order.choose(nodes, count, Policy(scale_in_order=order)) == expected


def test_oldest_and_newest_go_by_launch_time_after_nodes_doing_no_work() -> None:
    state = observed_from(slurm_spec(workers=4), statuses={node_id(2, 3): "Failure"})
    nodes = rules.removable(state.nodes_of("worker-gpu-a"), "Compute", ())
    oldest = [v.node_id for v in workload_order.choose(nodes, 3, Policy(scale_in_order="oldest"))]
    newest = [v.node_id for v in workload_order.choose(nodes, 3, Policy(scale_in_order="newest"))]
    assert oldest == [node_id(2, 3), node_id(2, 0), node_id(2, 1)]
    assert newest == [node_id(2, 3), node_id(2, 2), node_id(2, 1)]
    assert "the oldest nodes go first" in workload_order.choose(nodes, 2, Policy(scale_in_order="oldest"))[1].reason


def test_work_that_ends_sooner_goes_before_work_that_ends_later_and_unknown_nodes_after_both() -> None:
    state = observed_from(slurm_spec(workers=4))
    late, soon = EPOCH + dt.timedelta(hours=5), EPOCH + dt.timedelta(hours=1)
    view = WorkloadView(
        "Slurm",
        EPOCH,
        (
            NodeWorkload(node_id(2, 0), "n0", jobs=(Job("1", "alice", end_time=late),)),
            NodeWorkload(node_id(2, 1), "n1", jobs=(Job("2", "bob", end_time=soon),)),
            NodeWorkload(node_id(2, 2), "n2", jobs=(Job("3", "carol"),)),  # no time limit
        ),
    )  # node 3 is not listed: unknown
    nodes = rules.removable(state.nodes_of("worker-gpu-a"), "Compute", ())
    chosen = workload_order.choose(nodes, 4, Policy(), view)
    assert [v.node_id for v in chosen] == [node_id(2, 1), node_id(2, 0), node_id(2, 2), node_id(2, 3)]
    assert chosen[0].reason == "job 2 (bob) ends ≤ 01:00: the work that ends soonest goes first"
    assert chosen[2].reason.startswith("job 3 (carol) has no time limit: its work has no end known")
    assert chosen[3].reason.startswith("workload unknown: its workload is unknown")


def test_remove_first_and_protected_cannot_name_the_same_node_and_bad_values_name_their_field() -> None:
    with pytest.raises(ValidationError, match="remove_first and protected_node_ids both name i-0123456789abcdef0"):
        Policy(remove_first=frozenset({"i-0123456789abcdef0"}), protected_node_ids=frozenset({"i-0123456789abcdef0"}))
    with pytest.raises(ValidationError, match="drain"):
        Policy(drain="evict")
    with pytest.raises(ValidationError, match="drain_timeout"):
        Policy(drain_timeout=0)
    with pytest.raises(ValidationError, match="not an instance id"):
        Policy(remove_first=frozenset({"i-xyz"}))


def _drain_plan() -> Plan:
    spec = slurm_spec(workers=4)
    state = observed_from(spec)
    summaries = [{**s, "PrivateDnsHostname": f"ip-10-0-0-{k}.us-west-2.compute.internal"} for k, s in enumerate(state.node_summaries)]
    state = type(state).from_api(dict(state.describe), summaries)
    return plan(slurm_spec(workers=2), state, Policy(drain="drain"))


def test_a_drain_plan_names_each_node_by_its_slurm_name_and_round_trips_through_json() -> None:
    the_plan = _drain_plan()
    assert [s.operation for s in the_plan.steps] == ["DrainNodes", "BatchDeleteClusterNodes"]
    drain = the_plan.steps[0]
    assert all(n["Name"].startswith("ip-10-0-0-") for n in drain.request["Nodes"])
    assert drain.request["ExpectedWaitSeconds"] is None  # no workload read: up to the deadline
    assert "workload not read" in drain.reasons[1]
    again = Plan.from_dict(the_plan.to_dict())
    assert again.steps == the_plan.steps and not step_problems(again)


def test_a_drain_step_naming_a_node_no_step_removes_is_not_this_tools_plan() -> None:
    the_plan = _drain_plan()
    drain = the_plan.steps[0]
    forged = dataclasses.replace(
        drain,
        request={**drain.request, "Nodes": [*drain.request["Nodes"], {"NodeId": node_id(2, 0), "Name": "x", "Group": "worker-gpu-a"}]},
    )
    problems = step_problems(dataclasses.replace(the_plan, steps=(forged, *the_plan.steps[1:])))
    assert problems == ["step 1 (DrainNodes): it drains nodes no later step of the plan removes"]


def test_a_node_hyperpod_marked_for_replacement_goes_before_idle_ones() -> None:
    state = observed_from(slurm_spec(workers=3))
    view = WorkloadView(
        "Eks",
        EPOCH,
        (
            NodeWorkload(node_id(2, 0), "hyperpod-a", health="UnschedulablePendingReplacement", jobs=(Job("1"),)),
            NodeWorkload(node_id(2, 1), "hyperpod-b"),
            NodeWorkload(node_id(2, 2), "hyperpod-c"),
        ),
    )
    nodes = rules.removable(state.nodes_of("worker-gpu-a"), "Compute", ())
    chosen = workload_order.choose(nodes, 1, Policy(), view)
    assert [v.node_id for v in chosen] == [node_id(2, 0)] and "HyperPod marked it for replacement" in chosen[0].reason
