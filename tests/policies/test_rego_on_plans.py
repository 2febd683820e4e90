"""The Rego policies decide on what `hyperpod plan --json` really prints (seed 004's cluster on the
simulator, 1 head node and 3 compute nodes), allowed and denied alike."""

from __future__ import annotations

import json
import subprocess

from .conftest import CLUSTER, REGO, REPO, codes, evaluate, victims

NO_CEILING = {"max_hourly_cost_increase": None}


def test_the_rego_unit_tests_pass(opa) -> None:
    done = subprocess.run([opa, "test", str(REGO), "--format", "json"], capture_output=True, text=True, timeout=120, check=False)
    results = json.loads(done.stdout)
    failed = [r["name"] for r in results if r.get("fail") or r.get("error")]
    assert done.returncode == 0 and len(results) >= 14 and not failed, done.stdout + done.stderr


def test_a_scale_out_under_the_cost_ceiling_is_allowed_and_over_it_denied(opa, plans, tmp_path) -> None:
    text = plans.plan(plans.spec(5))  # 3 → 5 compute nodes: +2 × ml.g5.xlarge
    assert json.loads(text)["cost"]["cluster"]["delta_per_hour"] > 0
    assert evaluate(opa, text) == []  # policies/params.json: a ceiling of 50 USD/hour
    [violation] = evaluate(opa, text, {"max_hourly_cost_increase": 1}, tmp_path)
    assert violation["code"] == "cost-increase" and "more than the ceiling of 1" in violation["message"]


def test_a_scale_in_of_two_thirds_is_denied_and_of_one_third_allowed(opa, plans, tmp_path) -> None:
    two_thirds = plans.plan(plans.spec(1))
    assert len(victims(two_thirds)) == 2
    # every victim carries its reason as a stable code beside the sentence: all three run, the newest go
    assert {v["code"] for step in json.loads(two_thirds)["steps"] for v in step["victims"]} == {"newest"}
    [violation] = evaluate(opa, two_thirds)
    assert violation == {
        "code": "scale-in-share",
        "group": "leo-stg-compute-ig",
        "nodes": [],
        "message": "leo-stg-compute-ig: removes 2 of 3 nodes (67%), more than the allowed share (50%)",
    }
    assert evaluate(opa, plans.plan(plans.spec(2))) == []
    assert evaluate(opa, two_thirds, {"max_scale_in_fraction": 1.0}, tmp_path) == []


def test_a_plan_that_names_a_protected_node_is_denied(opa, plans, tmp_path) -> None:
    text = plans.plan(plans.spec(2))
    [victim] = victims(text)
    [violation] = evaluate(opa, text, {"protected_node_ids": [victim]}, tmp_path)
    assert violation["code"] == "protected-node" and violation["nodes"] == [victim] and victim in violation["message"]
    others = [n["key"] for n in json.loads(text)["basis"]["nodes"] if n["key"] != victim]
    assert evaluate(opa, text, {"protected_node_ids": others}, tmp_path) == []  # the nodes that stay may be protected


def test_the_tools_own_refusal_is_reported(opa, plans, tmp_path) -> None:
    basis = json.loads(plans.plan(plans.spec(2)))["basis"]["nodes"]
    compute = [n["key"] for n in basis if n["group"] == "leo-stg-compute-ig"]
    protect = [arg for node in compute for arg in ("--protect", node)]
    refused = plans.plan(plans.spec(2), *protect, code=2)  # every compute node protected: none can go
    document = json.loads(refused)
    assert document["refused"] and document["steps"] == []
    violations = evaluate(opa, refused)
    assert codes(violations) == {"tool-refusal"}, violations
    assert "not-enough-removable" in violations[0]["message"]
    assert evaluate(opa, refused, {"deny_refused_plans": False}, tmp_path) == []


def test_a_replacement_is_denied_even_when_the_resource_policy_allows_it(opa, plans, tmp_path) -> None:
    spec = plans.spec(3, continuous=True)  # leaving all-or-nothing: a new cluster
    allow = plans.write({"allow_replacement": True})
    text = plans.plan(spec, "--policy", str(allow))
    document = json.loads(text)
    assert document["action"] == "replace" and not document["refused"]
    [violation] = evaluate(opa, text, NO_CEILING, tmp_path)
    assert violation["code"] == "replacement" and CLUSTER in violation["message"]
    assert sorted(violation["nodes"]) == sorted(n["key"] for n in document["basis"]["nodes"])
    assert evaluate(opa, text, {**NO_CEILING, "allow_replacement": True}, tmp_path) == []
    refused = plans.plan(spec, code=2)  # without allow_replacement the tool refuses it too
    assert codes(evaluate(opa, refused, NO_CEILING, tmp_path)) == {"replacement", "tool-refusal"}


def test_a_saved_plan_is_judged_as_the_printed_one(opa, plans) -> None:
    spec = plans.spec(1)
    saved = plans.directory / "saved-plan.json"
    plans.cli("plan", "-f", str(spec), "--out", str(saved))
    assert json.loads(saved.read_text())["plan"]["cluster_name"] == CLUSTER
    assert evaluate(opa, saved) == evaluate(opa, plans.plan(spec))


def test_input_that_is_not_a_plan_is_denied(opa, plans) -> None:
    [violation] = evaluate(opa, plans.cli("status", CLUSTER, "--json"))
    assert violation["code"] == "not-a-plan"


def test_a_google_cloud_plan_is_judged_by_the_same_rules(opa, plans, tmp_path) -> None:
    spec = json.loads((REPO / "examples" / "gcp-training-cluster" / "cluster.json").read_text())
    plans.cli("gcp", "apply", "-f", str(plans.write(spec)), "--yes")  # node pool a4: 2 nodes

    def pool_plan(nodes: int) -> str:
        spec["node_pools"][1]["scaling_spec"] = {"min_node_count": nodes, "max_node_count": nodes}
        return plans.cli("gcp", "plan", "-f", str(plans.write(spec)), "--json")

    assert evaluate(opa, pool_plan(1)) == []  # half the pool: at the share, allowed
    assert codes(evaluate(opa, pool_plan(0))) == {"scale-in-share"}
    [violation] = evaluate(opa, pool_plan(6))  # no list price for a4-highgpu-8g: unknown is not safe
    assert violation["code"] == "cost-unknown" and "a4-highgpu-8g" in violation["message"]
    assert evaluate(opa, pool_plan(6), NO_CEILING, tmp_path) == []


def test_the_rules_know_the_plan_format_the_tool_writes(opa) -> None:
    from pulumi_hyperpod.plans.model import PLAN_FORMAT

    done = subprocess.run(
        [opa, "eval", "--format", "raw", "-d", str(REGO), "data.hyperpod.plan.known_formats"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert PLAN_FORMAT in json.loads(done.stdout), "a new plan format: check policies/rego against it, then list it in known_formats"
