"""The CrossGuard pack's bridge (policies/crossguard/plan_rules.py) asks the same Rego rules, through
the same opa, as `opa eval` in CI: one home for the rules. (The pack itself runs under the engine:
tests/engine/test_policy_pack.py.)"""

from __future__ import annotations

import json

import pytest

from tests.support.policy_tools import PACK

from .conftest import evaluate


def test_the_bridge_and_opa_eval_give_the_same_violations(opa, plans, plan_rules, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("HYPERPOD_OPA", opa)
    text = plans.plan(plans.spec(1))
    params = plan_rules.default_params()
    assert params == json.loads((PACK.parent / "params.json").read_text())["hyperpod"]["params"]
    found = plan_rules.violations(text, params)
    assert [v["code"] for v in found] == ["scale-in-share"]
    assert sorted(found, key=json.dumps) == sorted(evaluate(opa, text), key=json.dumps)
    protected = {**params, "max_scale_in_fraction": 1.0, "protected_node_ids": [json.loads(text)["steps"][0]["victims"][0]["node_id"]]}
    assert [v["code"] for v in plan_rules.violations(text, protected)] == ["protected-node"]


def test_without_opa_the_bridge_fails_rather_than_passing_the_plan(plan_rules, monkeypatch, tmp_path) -> None:
    monkeypatch.delenv("HYPERPOD_OPA", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("PULUMI_HYPERPOD_CACHE", str(tmp_path))
    plan_rules._evaluate.cache_clear()
    with pytest.raises(plan_rules.OpaError, match=r"no opa found .*scripts/install-opa"):
        plan_rules.violations('{"format": "hyperpod-plan/3"}', plan_rules.default_params())
