"""plan(desired, observed, policy): one PATCH with the minimal mask, per-key slurm.conf lines,
replacement refused unless allowed, scale-in that does not pretend to name nodes, guards."""

from __future__ import annotations

import pytest

from pulumi_hyperpod.gcp.planner import build as plan_build
from pulumi_hyperpod.core.contract import PlanRefused, PlanStale
from pulumi_hyperpod.gcp.apply import apply
from pulumi_hyperpod.gcp.observe import observe
from pulumi_hyperpod.gcp.planner import plan
from pulumi_hyperpod.gcp.spec import GcpSpecError
from pulumi_hyperpod.plans import Plan, Policy, plan_text

from tests.support.gcp import NAME, a4, slurm, spec


def test_create_is_one_call_with_the_body(doc):
    the_plan = plan(spec(doc), None)
    assert the_plan.action == "create" and the_plan.calls() == {"CreateModelDevelopmentCluster": 1}
    request = the_plan.steps[0].request
    assert request["parent"] == "projects/my-project/locations/us-central1"
    assert request["modelDevelopmentClusterId"] == "llmtrain"
    assert request["body"]["orchestrator_spec"]["slurm_spec"]["config"]["PreemptMode"] == "REQUEUE"
    assert {g.group: (g.action, g.target_after) for g in the_plan.groups if g.group != "slurm"} == {
        "login": ("create", 1),
        "a4": ("create", 2),
    }


def test_no_change_after_create_although_the_service_filled_defaults(running, doc):
    assert running.pool_body("a4")["node_image"]  # a server default the spec does not set
    del a4(doc)["boot_disk"]  # "whatever the service chose"
    the_plan = plan(spec(doc), running)
    assert the_plan.empty and the_plan.action == "none"


def test_preempt_mode_and_a4_growth_are_one_patch(running, doc):
    slurm(doc)["config"]["PreemptMode"] = "CANCEL"
    a4(doc)["scaling_spec"] = {"min_node_count": 4, "max_node_count": 4}
    the_plan = plan(spec(doc), running)
    assert the_plan.calls() == {"PatchModelDevelopmentCluster": 1}
    step = the_plan.steps[0]
    assert step.request["updateMask"] == "node_pools,orchestrator_spec.slurm_spec.config"
    body = step.request["body"]
    assert set(body) == {"node_pools", "orchestrator_spec"}
    assert [p["id"] for p in body["node_pools"]] == ["login", "a4"]  # the repeated field whole
    assert body["node_pools"][0]["node_image"] == running.pool_body("login")["node_image"]  # defaults kept
    assert body["orchestrator_spec"]["slurm_spec"]["config"]["PreemptMode"] == "CANCEL"
    assert len(body["orchestrator_spec"]["slurm_spec"]["config"]) == 7  # the map is replaced whole
    rows = {g.group: g for g in the_plan.groups}
    assert (rows["a4"].action, rows["a4"].target_before, rows["a4"].target_after, rows["a4"].delta) == ("grow", 2, 4, 2)
    assert rows["slurm"].config_changes == ("~ PreemptMode: REQUEUE → CANCEL",)
    text = plan_text(the_plan)
    assert "PreemptMode: REQUEUE → CANCEL" in text and "orchestrator_spec.slurm_spec.config" in text
    assert "price unknown" in text  # a4-highgpu-8g has no list price in the table


def test_each_slurm_field_has_its_own_mask_path(running, doc):
    slurm(doc)["default_partition_id"] = "a4"
    slurm(doc)["epilog_bash_scripts"] = []
    del slurm(doc)["config"]["PreemptExemptTime"]
    slurm(doc)["config"]["MaxJobCount"] = "20000"
    the_plan = plan(spec(doc), running)
    assert the_plan.steps[0].request["updateMask"] == ",".join(
        f"orchestrator_spec.slurm_spec.{f}" for f in ("config", "default_partition_id", "epilog_bash_scripts")
    )
    lines = next(g for g in the_plan.groups if g.group == "slurm").config_changes
    assert "+ MaxJobCount: 20000" in lines and "- PreemptExemptTime (was 00:10:00)" in lines
    assert "~ epilog_bash_scripts: 1 → 0 script(s)" in lines


def test_the_simulator_accepts_every_planned_patch(client, running, doc):
    slurm(doc)["partitions"].append({"id": "all", "node_pool_ids": ["a4"]})
    slurm(doc)["default_partition_id"] = "all"
    doc["display_name"] = "renamed"
    a4(doc)["boot_disk"]["boot_disk_size_gb"] = 500
    the_plan = plan(spec(doc), running)
    apply(client, the_plan)
    assert plan(spec(doc), observe(client, NAME)).empty


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda d: d["network"].update(network="projects/my-project/global/networks/other"), "network"),
        (
            lambda d: slurm(d).update(home_directory_storage="projects/my-project/locations/us-central1-a/instances/h2"),
            "home_directory_storage",
        ),
    ],
)
def test_immutable_changes_are_a_refused_replacement(running, doc, change, words):
    change(doc)
    the_plan = plan(spec(doc), running)
    assert the_plan.action == "replace" and the_plan.refused
    assert any(words in r for r in the_plan.replacements)
    assert [r.rule for r in the_plan.refusals] == ["replacement"]
    with pytest.raises(PlanRefused):
        apply(None, the_plan)  # refused before any call: no client needed
    allowed = plan(spec(doc), running, Policy(allow_replacement=True))
    assert not allowed.refused
    assert [s.operation for s in allowed.steps] == ["DeleteModelDevelopmentCluster", "CreateModelDevelopmentCluster"]


def test_scale_in_says_the_service_chooses(running, doc):
    a4(doc)["scaling_spec"] = {"min_node_count": 1, "max_node_count": 1}
    the_plan = plan(spec(doc), running)
    assert not the_plan.refused and the_plan.victims == ()
    assert any("Google Cloud chooses which ones" in note for note in the_plan.notes)


def test_guards(running, doc):
    a4(doc)["scaling_spec"] = {"min_node_count": 1, "max_node_count": 1}
    assert [r.rule for r in plan(spec(doc), running, Policy(max_scale_in_fraction=0.25)).refusals] == ["max_scale_in_fraction"]
    some_a4_node = running.pool("a4").nodes[0][1]
    refused = plan(spec(doc), running, Policy(protected_node_ids=frozenset({some_a4_node})))
    assert [r.rule for r in refused.refusals] == ["protected_nodes"] and some_a4_node in refused.refusals[0].reason
    login_doc = dict(doc)
    login_doc["node_pools"] = [dict(doc["node_pools"][0], scaling_spec={"min_node_count": 0, "max_node_count": 0}), doc["node_pools"][1]]
    with pytest.raises(GcpSpecError):  # the login pool needs a node: a spec error before any plan
        spec(login_doc)


def test_cost_guard_on_a_priced_pool(running, doc):
    doc["node_pools"][0]["scaling_spec"] = {"min_node_count": 3, "max_node_count": 3}
    the_plan = plan(spec(doc), running, Policy(allow_login_scale_in=True, max_hourly_cost_increase=0.5))
    assert [r.rule for r in the_plan.refusals] == ["max_hourly_cost_increase"]
    assert plan_build.cost_delta(the_plan) == pytest.approx(2 * 0.388472)
    a4(doc)["scaling_spec"] = {"min_node_count": 4, "max_node_count": 4}
    doc["node_pools"][0]["scaling_spec"] = {"min_node_count": 1, "max_node_count": 1}
    unknown = plan(spec(doc), running, Policy(max_hourly_cost_increase=1000))
    assert "cannot be checked" in unknown.refusals[0].reason


def test_adding_and_removing_pools(client, running, doc):
    cpu = {
        "id": "cpu",
        "machine_spec": {"machine_type": "n2-standard-16"},
        "provisioning_model": "ON_DEMAND",
        "scaling_spec": {"min_node_count": 2, "max_node_count": 2},
    }
    doc["node_pools"].append(cpu)
    slurm(doc)["partitions"].append({"id": "cpu", "node_pool_ids": ["cpu"]})
    grown = plan(spec(doc), running)
    assert grown.steps[0].request["updateMask"] == "node_pools,orchestrator_spec.slurm_spec.partitions"
    apply(client, grown)
    doc["node_pools"].pop()
    slurm(doc)["partitions"].pop()
    shrunk = plan(spec(doc), observe(client, NAME))
    assert {g.group: g.action for g in shrunk.groups}["cpu"] == "delete"
    apply(client, shrunk)
    assert [p.id for p in observe(client, NAME).pools] == ["login", "a4"]


def test_delete_plan(running):
    the_plan = plan(None, running)
    assert the_plan.calls() == {"DeleteModelDevelopmentCluster": 1} and the_plan.steps[0].destructive
    assert plan(None, None).empty


def test_plans_are_pure_and_round_trip(running, doc):
    slurm(doc)["config"]["PreemptMode"] = "CANCEL"
    first, second = plan(spec(doc), running), plan(spec(doc), running)
    assert first.to_json() == second.to_json()
    assert Plan.from_dict(first.to_dict()).to_json() == first.to_json()


def test_apply_refuses_a_plan_whose_cluster_moved(client, running, doc):
    slurm(doc)["config"]["PreemptMode"] = "CANCEL"
    stale = plan(spec(doc), running)
    doc["display_name"] = "someone-else"
    apply(client, plan(spec(doc), running))
    with pytest.raises(PlanStale, match="changed since the plan was made") as stale_error:
        apply(client, stale)
    assert not isinstance(stale_error.value, PlanRefused)  # the contract: stale is an error to re-plan, not a guard


def test_a_cluster_in_error_is_refused_and_named(doc):
    from pulumi_hyperpod.gcp.apply import ApplyError
    from pulumi_hyperpod.gcp.client import connect
    from pulumi_hyperpod.sim.gcp import GcpSimulator

    client = connect("fake", simulator=GcpSimulator(capacity={"a4-highgpu-8g": 1}), poll_seconds=0)
    with pytest.raises(ApplyError, match="RESOURCE_EXHAUSTED") as caught:
        apply(client, plan(spec(doc), None))
    assert caught.value.done == ["CreateModelDevelopmentCluster"]
    again = plan(spec(doc), observe(client, NAME))
    assert [r.rule for r in again.refusals] == ["cluster_state"] and "hyperpod gcp delete" in again.refusals[0].reason
    apply(client, plan(None, observe(client, NAME)))
    assert observe(client, NAME) is None


def test_deleting_a_cluster_already_stopping_calls_nothing(client, running):
    client.delete_cluster(NAME)
    stopping = observe(client, NAME)
    assert stopping.state == "STOPPING"
    the_plan = plan(None, stopping)
    assert the_plan.empty and "already being deleted" in the_plan.notes[0]
