"""Each step's disruption, as data from its kind's declaration (plans/disruption.py): in every plan's
JSON, read back equal, refused when a file says otherwise; the nodes it falls on for each scope; and
shown in the plan's tables (what each step takes down, a long list cut with a count)."""

from __future__ import annotations

import json

import pytest

from pulumi_hyperpod import Policy
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.plans import Plan, plan_text
from pulumi_hyperpod.plans.disruption import of_plan
from pulumi_hyperpod.aws.planner.integrity import step_problems

from tests.support.factories import node_id, observed_from, slurm_spec


def _reboot(*nodes: str) -> Plan:
    return plan(slurm_spec(workers=4), observed_from(slurm_spec(workers=4)), Policy(reboot_node_ids=set(nodes)))


def test_every_step_of_a_plans_json_says_what_it_takes_down_and_reads_back_equal():
    made = plan(slurm_spec(workers=2), observed_from(slurm_spec(workers=4)), Policy(replace_node_ids={node_id(2, 0)}))
    data = made.to_dict()
    kinds = [(s["kind"], s["disruption"]["effect"], s["disruption"]["scope"]) for s in data["steps"]]
    assert kinds == [("remove-nodes", "destroyed", "victims"), ("replace-nodes", "destroyed", "named")]
    assert data["steps"][0]["disruption"]["nodes"] == [v.node_id for v in made.victims]
    assert data["steps"][1]["disruption"]["nodes"] == [node_id(2, 0)]
    again = Plan.from_dict(json.loads(made.to_json()))
    assert again == made and again.to_dict() == data


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d.update(nodes=[]),  # what a policy would then see: nothing taken down
        lambda d: d.update(effect="none"),
        lambda d: d.update(how="nothing happens"),
    ],
)
def test_a_file_whose_disruption_is_not_the_declared_one_is_refused(edit):
    data = json.loads(_reboot(node_id(2, 1)).to_json())
    edit(data["steps"][0]["disruption"])
    with pytest.raises(ValueError, match=r"step 1 \(BatchRebootClusterNodes\): its disruption is not the one"):
        Plan.from_dict(data)
    del data["steps"][0]["disruption"]  # a file older than the member: derived on reading
    assert Plan.from_dict(data).to_dict()["steps"][0]["disruption"]["nodes"] == [node_id(2, 1)]


def test_a_step_whose_nodes_or_kind_do_not_fit_its_request_is_not_this_tools():
    made = _reboot(node_id(2, 1))
    data = json.loads(made.to_json())
    for step in data["steps"]:
        step.pop("disruption")
    data["steps"][0]["batches"] = [[node_id(2, 2)]]  # the policies would judge another node
    assert "the nodes it names are not the nodes its batches say go down" in step_problems(Plan.from_dict(data))[0]
    data["steps"][0]["batches"] = [[node_id(2, 1)]]
    data["steps"][0]["kind"] = "tag"  # a kind that takes nothing down
    assert "is of kind reboot-nodes, not tag" in step_problems(Plan.from_dict(data))[0]


def test_the_scopes_name_the_nodes_they_fall_on():
    observed = observed_from(slurm_spec(workers=3))
    deleted = of_plan(plan(None, observed))
    assert deleted[0].scope == "all" and set(deleted[0].nodes) == {n.key for n in observed.nodes}
    busy = dict(observed.describe)
    busy["InstanceGroups"] = [dict(g, Status="Updating") if g["InstanceGroupName"] == "worker-gpu-a" else g for g in busy["InstanceGroups"]]
    from pulumi_hyperpod import ClusterState

    lowered = plan(slurm_spec(workers=1), ClusterState.from_api(busy, list(observed.node_summaries)))
    [step] = of_plan(lowered)
    assert step.scope == "chosen-by-service" and step.nodes == ()
    [group] = step.groups
    assert (group.group, group.count, len(group.nodes)) == ("worker-gpu-a", 2, 3)


def test_the_plan_shows_what_each_step_takes_down():
    replaced = plan(slurm_spec(workers=4), observed_from(slurm_spec(workers=4)), Policy(replace_node_ids={node_id(2, 0)}))
    assert f"destroys {node_id(2, 0)} (volumes lost)" in plan_text(replaced, width=200)
    many = _reboot(*(node_id(2, k) for k in range(3)))
    text = plan_text(many, width=200)
    assert f"restarts 3 nodes: {node_id(2, 0)}, {node_id(2, 1)}, {node_id(2, 2)}" in text
    observed = observed_from(slurm_spec(workers=30))
    wide = plan(slurm_spec(workers=30), observed, Policy(reboot_node_ids={node_id(2, k) for k in range(8)}))
    assert "restarts 8 nodes: " in plan_text(wide, width=200) and " and 3 more" in plan_text(wide, width=200)
    assert "destroys all 32 nodes (volumes lost): " in plan_text(plan(None, observed), width=200)


def test_a_scale_in_points_at_its_removed_nodes_table_rather_than_listing_them_twice():
    text = plan_text(plan(slurm_spec(workers=2), observed_from(slurm_spec(workers=4))), width=200)
    assert "disruption: destroys 2 nodes (volumes lost): the nodes that would be removed, below" in text


def test_the_cli_json_and_a_saved_plan_carry_it_and_a_resealed_edit_of_it_is_refused(tmp_path, monkeypatch):
    from pulumi_hyperpod.sim.aws import Simulator
    from pulumi_hyperpod.core.planfile import digest
    from tests.support.cli import SPECS, hyperpod, seed004_world

    seed004_world(monkeypatch, tmp_path)
    spec = str(SPECS / "seed004-initial.json")
    node = next(n["instance_id"] for n in json.loads(hyperpod("nodes", "leo-stg-hyperpod-cluster", "--json")) if n["instance_id"])
    printed = json.loads(hyperpod("plan", "-f", spec, "--reboot", node, "--json"))
    [step] = printed["steps"]
    assert step["disruption"] == {
        "effect": "restarted",
        "scope": "named",
        "how": "the named nodes are rebooted; their volumes stay",
        "nodes": [node],
        "groups": [],
    }
    hyperpod("plan", "-f", spec, "--reboot", node, "--out", "p.json")
    saved = json.loads((tmp_path / "p.json").read_text())
    assert saved["plan"]["steps"][0]["disruption"] == step["disruption"]
    saved["plan"]["steps"][0]["disruption"]["nodes"] = []  # what a policy reading the file would then see
    body = {k: v for k, v in saved.items() if k != "integrity"}
    (tmp_path / "p.json").write_text(json.dumps({**body, "integrity": digest(body)}))
    start = len(Simulator.open_default().calls)
    out = hyperpod("apply", "--plan", "p.json", "--yes", code=1)
    assert "its disruption is not the one a reboot-nodes step of this plan has" in out and len(out.strip().splitlines()) == 1
    assert [op for op, _ in Simulator.open_default().calls[start:] if not op.startswith(("Describe", "List"))] == []


def test_a_pulumi_preview_shows_it_too(tmp_path, monkeypatch):
    from pulumi_hyperpod.provider import provider

    monkeypatch.chdir(tmp_path)
    text = provider.plan_text(_reboot(node_id(2, 0), node_id(2, 1)))
    assert f"disruption: restarts 2 nodes: {node_id(2, 0)}, {node_id(2, 1)}" in text
