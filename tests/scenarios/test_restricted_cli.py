"""A restricted-only cluster (modelled on awsome-distributed-training's rig_custom.tfvars) through the
`hyperpod` CLI on the simulator: the plan's group, cost and quota tables show the restricted group,
apply creates it, the re-plan is empty, and `status` marks it."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import hyperpod, use_fake_world
from tests.support.paths import DATA

RIG_SPEC = DATA / "restricted-nova.json"


@pytest.fixture
def world(tmp_path, monkeypatch):
    return use_fake_world(monkeypatch, tmp_path)


def test_a_restricted_only_cluster_plans_applies_re_plans_empty_and_shows_in_status(world):
    text = hyperpod("plan", "-f", str(RIG_SPEC))
    assert "rig-1 (restricted)" in text and "1 groups, 2 nodes" in text
    plan = json.loads(hyperpod("plan", "-f", str(RIG_SPEC), "--json"))
    assert [(g["group"], g["restricted"]) for g in plan["groups"]] == [("rig-1", True)]
    assert [g["group"] for g in plan["cost"]["groups"]] == ["rig-1"]
    assert any(c["groups"] == ["rig-1"] for c in plan["preflight"]["quotas"]["checks"])

    hyperpod("apply", "-f", str(RIG_SPEC), "--yes", "--wait", "Target", "--timeout", "600")
    again = json.loads(hyperpod("plan", "-f", str(RIG_SPEC), "--json"))
    assert again["empty"] and again["steps"] == []
    status = json.loads(hyperpod("status", "nova-rig", "--json"))
    assert [(g["name"], g["restricted"], g["current"]) for g in status["groups"]] == [("rig-1", True, 2)]
    assert "rig-1 (restricted)" in hyperpod("status", "nova-rig")
