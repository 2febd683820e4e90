"""Google Cloud: a pool's autoscaling range (min < max) planned and simulated; an immutable field
of a pool (its reservation, its machine spec: immutable in magic-modules' ModelDevelopmentCluster.yaml)
changed under the pool's id is a cluster replacement, refused unless allowed, and the in-place route
is a pool under a new id — one added, the old one removed, in one node_pools PATCH, guarded like
any removal."""

from __future__ import annotations

import pytest

from pulumi_hyperpod.gcp.apply import PlanRefused, apply
from pulumi_hyperpod.gcp.observe import observe
from pulumi_hyperpod.gcp.planner import plan
from pulumi_hyperpod.plans import Policy, plan_text

from tests.support.gcp import NAME, a4, spec
from tests.support.gcp import renamed

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
            "node_pools[a4].machine_spec.reservation_affinity.values",
        ),
        (lambda pool: pool["machine_spec"].update(machine_type="a3-megagpu-8g"), "node_pools[a4].machine_spec.machine_type"),
    ],
)
def test_an_immutable_pool_change_under_its_id_is_a_refused_replacement(running, client, doc, change, words):
    change(a4(doc))
    the_plan = plan(spec(doc), running, SWAP_ALLOWED)
    assert the_plan.action == "replace" and the_plan.refused
    [refusal] = the_plan.refusals
    assert refusal.rule == "replacement" and words in refusal.reason and "give the pool a new id" in refusal.reason
    with pytest.raises(PlanRefused):
        apply(client, the_plan)
    allowed = plan(spec(doc), running, Policy(allow_replacement=True))
    assert allowed.calls() == {"DeleteModelDevelopmentCluster": 1, "CreateModelDevelopmentCluster": 1}


def test_a_pool_under_a_new_id_replaces_the_old_one_in_place(running, client, doc):
    renamed(doc)
    the_plan = plan(spec(doc), running, SWAP_ALLOWED)
    assert the_plan.action == "update" and not the_plan.refused and not the_plan.replacements
    assert "node_pools" in the_plan.steps[0].request["updateMask"].split(",")
    rows = {g.group: g.action for g in the_plan.groups if g.group != "slurm"}
    assert rows == {"login": "unchanged", "a4": "delete", "a3": "create"}
    login_nodes = running.pool("login").nodes
    apply(client, the_plan)
    after = observe(client, NAME)
    assert after.pool("login").nodes == login_nodes and after.pool("a4") is None
    assert after.pool("a3").machine_type == "a3-megagpu-8g" and len(after.pool("a3").nodes) == 2
    assert plan(spec(doc), after).empty


def test_the_old_pool_of_a_new_id_is_guarded_like_a_removal(running, doc):
    renamed(doc)
    node = running.pool("a4").nodes[0][0]
    the_plan = plan(spec(doc), running, Policy(max_scale_in_fraction=0.5, protected_node_ids=(node,)))
    assert {r.rule for r in the_plan.refusals} == {"max_scale_in_fraction", "protected_nodes"}
    assert "is deleted: every node of it goes" in next(r.reason for r in the_plan.refusals if r.rule == "protected_nodes")
    with pytest.raises(PlanRefused):
        apply(None, the_plan)


def test_changing_the_login_pools_machine_type_is_a_refused_replacement(running, doc):
    doc["node_pools"][0]["machine_spec"]["machine_type"] = "n2-standard-16"
    the_plan = plan(spec(doc), running, SWAP_ALLOWED)
    assert [r.rule for r in the_plan.refusals] == ["replacement"]
    assert "node_pools[login].machine_spec.machine_type: n2-standard-8 → n2-standard-16" in the_plan.refusals[0].reason


def test_a_replacement_that_changes_a_machine_type_is_priced_as_the_old_nodes_going_and_the_new_coming(running, doc):
    doc["node_pools"][0]["machine_spec"]["machine_type"] = "n2-standard-16"
    the_plan = plan(spec(doc), running, Policy(allow_replacement=True))
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
    from tests.support.gcp import slurm

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
