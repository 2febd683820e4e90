"""Issue 36, item 8 on Google Cloud: an operation that ended is not yet the step's effect; the
cluster read after it must show it (plans/steps.py's completion), else the outcome is not `done`."""

from __future__ import annotations

import dataclasses

from pulumi_hyperpod.gcp import apply as gcp_apply
from pulumi_hyperpod.gcp.observe import observe
from pulumi_hyperpod.gcp.planner import plan

from tests.support.gcp import spec


def _reads_after(monkeypatch, change):
    monkeypatch.setattr(gcp_apply, "observe", lambda client, name: change(observe(client, name)))


def test_a_create_whose_cluster_ends_in_error_is_failed(client, doc, monkeypatch):
    _reads_after(monkeypatch, lambda state: dataclasses.replace(state, state="ERROR", detail="no capacity in us-central1-a"))
    result = gcp_apply.apply(client, plan(spec(doc), None))
    assert result.outcome == "failed" and not result.ok
    assert result.failures == ["CreateModelDevelopmentCluster: the cluster is ERROR, not RUNNING (no capacity in us-central1-a)"]


def test_a_resize_the_service_did_not_keep_is_short(client, doc, running):
    grown = next(p for p in doc["node_pools"] if p["scaling_spec"].get("max_node_count"))
    grown["scaling_spec"]["max_node_count"] += 1
    if "min_node_count" in grown["scaling_spec"]:
        grown["scaling_spec"]["min_node_count"] = grown["scaling_spec"]["max_node_count"]
    the_plan = plan(spec(doc), running)
    row = next(g for g in the_plan.groups if g.action == "grow")
    kept = dataclasses.replace(
        running, pools=tuple(dataclasses.replace(p, target=row.target_before) if p.id == row.group else p for p in running.pools)
    )
    assert gcp_apply.shortfalls(the_plan, the_plan.steps[0], kept) == [
        f"PatchModelDevelopmentCluster: pool {row.group} has max_node_count {row.target_before}, the plan asked for {row.target_after}"
    ]
    result = gcp_apply.apply(client, the_plan)  # the simulator keeps it: done
    assert result.outcome == "done" and result.failures == []
