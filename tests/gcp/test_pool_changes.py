"""Issue 23, Google Cloud: a pool's autoscaling range (min < max) planned and simulated, and an
immutable change of one pool (its reservation, its machine spec) planned as that pool's swap
inside one node_pools PATCH — guarded like any removal — rather than a cluster replacement."""

from __future__ import annotations

import pytest

from pulumi_hyperpod.gcp.apply import PlanRefused, apply
from pulumi_hyperpod.gcp.observe import observe
from pulumi_hyperpod.gcp.planner import plan
from pulumi_hyperpod.plan import Policy, plan_text

from .conftest import NAME, a4, spec

SWAP_ALLOWED = Policy()  # the default: no limit on the share of a pool removed
HALF = Policy(max_scale_in_fraction=0.5)


def flex_start(doc) -> None:
    """Google's flex-start example: no reservation, FLEX_START, scaling 0 → 2."""
    pool = a4(doc)
    pool["machine_spec"] = {"machine_type": "a4-highgpu-8g"}
    pool["provisioning_model"] = "FLEX_START"
    pool["scaling_spec"] = {"min_node_count": 0, "max_node_count": 2}


def test_a_flex_start_pool_0_to_2_is_created_and_replans_empty(client, doc):
    flex_start(doc)
    the_plan = plan(spec(doc), None)
    assert not the_plan.refused
    apply(client, the_plan)
    state = observe(client, NAME)
    pool = state.pool("a4")
    assert (pool.minimum, pool.target, len(pool.nodes)) == (0, 2, 0) and pool.autoscaled
    again = plan(spec(doc), state)
    assert again.empty
    assert any("autoscales between 0 and 2" in note for note in again.notes)


def test_changing_the_range_is_one_patch_and_converges(client, doc):
    a4(doc)["scaling_spec"] = {"min_node_count": 1, "max_node_count": 3}
    apply(client, plan(spec(doc), None))
    a4(doc)["scaling_spec"] = {"min_node_count": 2, "max_node_count": 4}
    the_plan = plan(spec(doc), observe(client, NAME))
    assert the_plan.steps[0].request["updateMask"] == "node_pools" and not the_plan.refused
    row = next(g for g in the_plan.groups if g.group == "a4")
    assert (row.min_before, row.min_after, row.target_before, row.target_after) == (1, 2, 3, 4)
    apply(client, the_plan)
    assert plan(spec(doc), observe(client, NAME)).empty


def test_an_autoscaled_pools_shrink_is_guarded_by_the_nodes_it_has(client, doc):
    """Lowering max below the nodes there now removes nodes: the removal guard counts those."""
    a4(doc)["scaling_spec"] = {"min_node_count": 4, "max_node_count": 8}
    apply(client, plan(spec(doc), None))
    a4(doc)["scaling_spec"] = {"min_node_count": 0, "max_node_count": 1}
    the_plan = plan(spec(doc), observe(client, NAME), HALF)
    assert [r.rule for r in the_plan.refusals] == ["max_scale_in_fraction"]
    assert "lose 3 of 4" in the_plan.refusals[0].reason


@pytest.mark.parametrize(
    "change, words",
    [
        (
            lambda pool: pool["machine_spec"]["reservation_affinity"].update(
                values=["projects/my-project/zones/us-central1-a/reservations/other"]
            ),
            "reservation_affinity.values",
        ),
        (lambda pool: pool["machine_spec"].update(machine_type="a3-megagpu-8g"), "machine_spec.machine_type"),
    ],
)
def test_an_immutable_pool_change_is_a_swap_of_that_pool_not_a_replacement(running, client, doc, change, words):
    change(a4(doc))
    the_plan = plan(spec(doc), running, SWAP_ALLOWED)
    assert the_plan.action == "update" and not the_plan.replacements and not the_plan.refused
    assert the_plan.calls() == {"PatchModelDevelopmentCluster": 1}
    assert the_plan.steps[0].request["updateMask"] == "node_pools"
    row = next(g for g in the_plan.groups if g.group == "a4")
    assert row.action == "replace" and any(words in line and "swap" in line for line in row.config_changes)
    assert any("swap pool a4" in reason for reason in the_plan.steps[0].reasons)
    login_nodes = running.pool("login").nodes
    old_a4 = {n[0] for n in running.pool("a4").nodes}
    apply(client, the_plan)
    after = observe(client, NAME)
    assert after.pool("login").nodes == login_nodes  # the other pool is untouched
    assert len(after.pool("a4").nodes) == 2 and not {n[0] for n in after.pool("a4").nodes} & old_a4
    assert plan(spec(doc), after).empty


def test_a_swap_is_guarded_like_a_removal(running, doc):
    a4(doc)["machine_spec"]["machine_type"] = "a3-megagpu-8g"
    node = running.pool("a4").nodes[0][0]
    the_plan = plan(spec(doc), running, Policy(max_scale_in_fraction=0.5, protected_node_ids=(node,)))
    assert {r.rule for r in the_plan.refusals} == {"max_scale_in_fraction", "protected_nodes"}
    assert "every node of it goes" in next(r.reason for r in the_plan.refusals if r.rule == "protected_nodes")
    with pytest.raises(PlanRefused):
        apply(None, the_plan)


def test_swapping_the_login_pool_needs_the_login_guard(running, doc):
    doc["node_pools"][0]["machine_spec"]["machine_type"] = "n2-standard-16"
    the_plan = plan(spec(doc), running, SWAP_ALLOWED)
    assert [r.rule for r in the_plan.refusals] == ["login_scale_in"]


def test_a_swap_is_priced_as_the_old_nodes_going_and_the_new_coming(running, doc):
    doc["node_pools"][0]["machine_spec"]["machine_type"] = "n2-standard-16"
    the_plan = plan(spec(doc), running, Policy(allow_login_scale_in=True))
    row = next(g for g in the_plan.cost.groups if g.group == "login")
    assert (row.before_instances, row.after_instances) == ({"n2-standard-8": 1}, {"n2-standard-16": 1})
    assert round(row.delta_per_hour, 2) == 0.39 and round(the_plan.cost.cluster.delta_per_hour, 2) == 0.39
    assert "$0.39" in plan_text(the_plan)


def test_a_refused_cluster_replacement_names_each_field_with_both_values(running, doc):
    doc["network"]["network"] = "projects/my-project/global/networks/other"
    the_plan = plan(spec(doc), running)
    [refusal] = the_plan.refusals
    assert "network.network: projects/my-project/global/networks/training-net → projects/my-project/global/networks/other" in refusal.reason
    assert "network.subnetwork" not in refusal.reason  # only what changes
    assert "allow_replacement: true" in refusal.reason and "--policy" in refusal.reason


def test_a_partitions_own_config_change_is_shown_by_key(running, doc):
    from .conftest import slurm

    slurm(doc)["partitions"][0]["config"] = {"MaxTime": "2-00:00:00"}
    the_plan = plan(spec(doc), running)
    assert the_plan.steps[0].request["updateMask"] == "orchestrator_spec.slurm_spec.partitions"
    lines = next(g for g in the_plan.groups if g.group == "slurm").config_changes
    assert lines == ("+ partitions[0].config.MaxTime: 2-00:00:00",)


def test_an_autoscaled_pool_made_fixed_is_planned_against_the_nodes_it_has(client, doc):
    """min 1 / max 3 with 1 node now, made 2 / 2: the pool grows by one node (a quota and a cost
    increase), not a shrink from its maximum."""
    a4(doc)["scaling_spec"] = {"min_node_count": 1, "max_node_count": 3}
    apply(client, plan(spec(doc), None))
    state = observe(client, NAME)
    assert len(state.pool("a4").nodes) == 1 and state.pool("a4").autoscaled
    a4(doc)["scaling_spec"] = {"min_node_count": 2, "max_node_count": 2}
    the_plan = plan(spec(doc), state)
    row = next(g for g in the_plan.groups if g.group == "a4")
    assert (row.action, row.target_before, row.target_after) == ("grow", 1, 2)
    pool_cost = next(p for p in the_plan.cost.groups if p.group == "a4")
    assert (pool_cost.action, pool_cost.before_count, pool_cost.after_count) == ("grow", 1, 2), "priced from the node it has"
    assert any("autoscaling ends" in note and "a4" in note for note in the_plan.notes)
