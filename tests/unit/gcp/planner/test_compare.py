"""Google's own examples settle: after apply, planning the same file again is empty, although the
service (proto3 JSON) leaves out every field at its zero value — `priority_weight_qos: 0`,
`enable_public_ips: false`, empty maps — and the plan names the exact sub-key that differs."""

from __future__ import annotations

import copy
import json

import pytest

from pulumi_hyperpod.gcp.apply import apply
from pulumi_hyperpod.gcp.planner.compare import change_lines, covered
from pulumi_hyperpod.gcp.observe import observe
from pulumi_hyperpod.gcp.planner import plan
from pulumi_hyperpod.gcp.spec import ClusterSpec
from tests.support.paths import DATA

DATA = DATA / "gcp"
DOCS_EXAMPLES = ["docs_cpu_advanced_slurm.json", "docs_gpu_filestore.json"]


def _apply_and_replan(client, doc: dict):
    spec = ClusterSpec.from_document(doc)
    apply(client, plan(spec, observe(client, spec.name)))
    return plan(spec, observe(client, spec.name))


@pytest.mark.parametrize("example", DOCS_EXAMPLES)
def test_a_docs_example_settles_after_apply(client, example):
    again = _apply_and_replan(client, json.loads((DATA / example).read_text()))
    assert again.empty and again.steps == (), [g.config_changes for g in again.groups]


def test_zero_values_everywhere_settle(client, doc):
    doc["labels"] = {}
    doc["display_name"] = "x"
    for pool in doc["node_pools"]:
        pool["enable_public_ips"] = False
        pool["labels"] = {}
        pool["filestores"] = []
    slurm = doc["orchestratorSpec"]["slurmSpec"]
    slurm["scheduling"] = {"priority_weight_qos": 0, "priority_type": "", "nested": {"weight": 0, "on": False}}
    slurm["accounting"] = {}
    slurm["epilog_bash_scripts"] = []
    assert _apply_and_replan(client, doc).empty


def test_a_changed_sub_key_is_named_not_the_whole_object(client):
    doc = json.loads((DATA / "docs_cpu_advanced_slurm.json").read_text())
    _apply_and_replan(client, doc)
    changed = copy.deepcopy(doc)
    changed["orchestrator_spec"]["slurm_spec"]["scheduling"]["priority_weight_qos"] = 5
    changed["node_pools"][0]["boot_disk"]["boot_disk_size_gb"] = 200
    spec = ClusterSpec.from_document(changed)
    the_plan = plan(spec, observe(client, spec.name))
    assert the_plan.steps[0].request["updateMask"] == "node_pools,orchestrator_spec.slurm_spec.scheduling"
    slurm_row = next(g for g in the_plan.groups if g.group == "slurm")
    assert slurm_row.config_changes == ("+ scheduling.priority_weight_qos: 5",)
    cpu = next(g for g in the_plan.groups if g.group == "cpu")
    assert cpu.config_changes == ("~ boot_disk.boot_disk_size_gb: 120 → 200",)


def test_maps_are_compared_whole_messages_on_the_specs_keys():
    assert covered({"a": 0, "b": {"c": ""}}, {})  # absent = zero, at every level
    assert covered({}, None) and covered(None, []) and covered(False, None)
    assert covered({"size": 1}, {"size": 1, "type": "pd-ssd"})  # the service's default is not a change
    assert not covered({"team": "a"}, {"team": "a", "old": "b"}, "labels")  # a removed label is one
    assert change_lines("labels", {"team": "a"}, {"team": "a", "old": "b"}) == ["- labels.old (was b)"]
    assert not covered(0, False) and not covered(1, True)  # proto types differ
