"""Every step kind that takes a node down (plans/steps.py KINDS, disruption not `none`) is denied when the
node is protected, by all three judges of a plan: the tool's apply guard (aws/apply/guards.py: the plan
as stated, and each call on the cluster as observed), the shipped Rego rules (the real opa) and the
CrossGuard pack's bridge (policies/crossguard/plan_rules.py). Each plan is made by the real planner
without the protection — as when the organisation's policy protects a node the stack's does not, or a
node is protected after the plan was made. A kind added without a plan here fails the first test."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from pulumi_hyperpod import ClusterSpec, ClusterState, Policy
from pulumi_hyperpod.aws.apply import guards
from pulumi_hyperpod.aws.planner import plan as make_plan
from pulumi_hyperpod.plans import Plan
from pulumi_hyperpod.plans import steps
from pulumi_hyperpod.plans.disruption import of_step
from tests.support.factories import group as group_spec, node_id, observed_from, slurm_spec

from .conftest import evaluate

WORKERS = "worker-gpu-a"
PARAMS = {"max_scale_in_fraction": 1.0, "allow_replacement": True, "allow_cluster_deletion": True, "max_hourly_cost_increase": None}


def _busy(state: ClusterState, name: str) -> ClusterState:
    described = dict(state.describe)
    described["InstanceGroups"] = [dict(g, Status="Updating") if g["InstanceGroupName"] == name else g for g in described["InstanceGroups"]]
    return ClusterState.from_api(described, list(state.node_summaries))


def _imaged(spec: ClusterSpec, image: str) -> ClusterSpec:
    api = spec.to_api()
    for group in api["InstanceGroups"]:
        if group["InstanceGroupName"] == WORKERS:
            group["ImageId"] = image
    return ClusterSpec.from_dict(api)


# kind → (plan, the cluster it was made against, the protected node it takes down)
Case = tuple[Plan, ClusterState, str]


def _update_cluster() -> Case:  # a busy group's count lowered: the service chooses which nodes go
    observed = _busy(observed_from(slurm_spec(workers=4)), WORKERS)
    return make_plan(slurm_spec(workers=2), observed), observed, node_id(2, 0)


def _delete_cluster() -> Case:
    observed = observed_from(slurm_spec(workers=2))
    return make_plan(None, observed), observed, node_id(2, 1)


def _remove_nodes() -> Case:
    observed = observed_from(slurm_spec(workers=4))
    made = make_plan(slurm_spec(workers=3), observed)
    return made, observed, made.victims[0].node_id


def _drain() -> Case:
    observed = observed_from(slurm_spec(workers=4))
    made = make_plan(slurm_spec(workers=3), observed, Policy(drain="cordon"))
    return made, observed, made.victims[0].node_id


def _update_software() -> Case:
    observed = observed_from(_imaged(slurm_spec(workers=2), "ami-0123456789abcdef0"))
    return make_plan(_imaged(slurm_spec(workers=2), "ami-0fedcba9876543210"), observed), observed, node_id(2, 1)


def _reboot_nodes() -> Case:
    observed = observed_from(slurm_spec(workers=2))
    return make_plan(slurm_spec(workers=2), observed, Policy(reboot_node_ids={node_id(2, 0)})), observed, node_id(2, 0)


def _replace_nodes() -> Case:
    observed = observed_from(slurm_spec(workers=2))
    return make_plan(slurm_spec(workers=2), observed, Policy(replace_node_ids={node_id(2, 1)})), observed, node_id(2, 1)


def _eks_split(train: int, serve: int) -> ClusterSpec:
    groups = [group_spec(name, count, None, InstanceType="ml.p5.48xlarge") for name, count in (("train", train), ("serve", serve))]
    eks = {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/my-eks-cluster"}}
    vpc = {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-12345678"]}
    return ClusterSpec.from_dict(
        {"ClusterName": "split", "Orchestrator": eks, "VpcConfig": vpc, "InstanceGroups": groups, "NodeProvisioningMode": "Continuous"}
    )


def _move_nodes() -> Case:  # a group split on EKS + Continuous: MoveClusterNodes (aws/planner/moves.py)
    observed = observed_from(_eks_split(4, 1))
    made = make_plan(_eks_split(3, 2), observed)
    return made, observed, made.victims[0].node_id


CASES: dict[str, Callable[[], Case]] = {
    "update-cluster": _update_cluster,
    "delete-cluster": _delete_cluster,
    "remove-nodes": _remove_nodes,
    "drain": _drain,
    "update-software": _update_software,
    "reboot-nodes": _reboot_nodes,
    "replace-nodes": _replace_nodes,
    # node moves
    "move-nodes": _move_nodes,
}
DISRUPTIVE = sorted(kind for kind, row in steps.KINDS.items() if row.disruption.effect != "none")


def test_every_kind_that_takes_nodes_down_has_a_case() -> None:
    assert sorted(CASES) == DISRUPTIVE, "a step kind that takes nodes down without a case here: add one, and cover it in the guards"


def _case(kind: str) -> Case:
    made, observed, protected = CASES[kind]()
    assert not made.refused, made.refusals
    [step] = [s for s in made.steps if s.kind == kind]
    assert protected in of_step(step, made).at_risk, f"{kind}: the case's plan does not take {protected} down"
    return made, observed, protected


@pytest.mark.parametrize("kind", DISRUPTIVE)
def test_the_apply_guard_refuses_every_kind_on_a_protected_node(kind: str) -> None:
    made, observed, protected = _case(kind)
    policy = Policy(protected_node_ids={protected})
    assert guards.plan_refusals(made, Policy()) == [], "unprotected, the guard lets the plan through"
    before = {g.name: g.target_count for g in observed.groups}
    live = [
        r
        for step in made.steps
        if step.kind == kind
        for r in guards.step_refusals(step.operation, step.request, observed, policy, plan=made, targets=before)
    ]
    stated = guards.plan_refusals(made, policy)
    if kind != "drain":  # a drain is no call to the cloud: the plan as stated is where it is judged
        assert any(protected in r.reason for r in live), (kind, live)
    if kind != "update-cluster":  # a count the service fulfils is judged on the live cluster (pending launches)
        assert any(protected in r.reason for r in stated), (kind, stated)


@pytest.mark.parametrize("kind", DISRUPTIVE)
def test_the_rego_rules_and_the_pack_deny_every_kind_on_a_protected_node(kind: str, opa, plan_rules, monkeypatch, tmp_path) -> None:
    made, _, protected = _case(kind)
    text = made.to_json()
    assert "protected-node" not in {v["code"] for v in evaluate(opa, text, PARAMS, tmp_path)}
    params = {**PARAMS, "protected_node_ids": [protected]}
    denied = [v for v in evaluate(opa, text, params, tmp_path) if v["code"] == "protected-node"]
    assert denied and all(protected in v["nodes"] for v in denied), (kind, denied)
    monkeypatch.setenv("HYPERPOD_OPA", opa)
    bridge = [v for v in plan_rules.violations(text, {**plan_rules.default_params(), **params}) if v["code"] == "protected-node"]
    assert bridge == denied
    assert json.loads(text)["steps"][0]["disruption"]["effect"] in steps.EFFECTS


def test_the_rego_rules_say_a_move_moves_the_protected_node(opa, tmp_path) -> None:
    made, _, protected = _case("move-nodes")
    [denied] = [
        v for v in evaluate(opa, made.to_json(), {**PARAMS, "protected_node_ids": [protected]}, tmp_path) if v["code"] == "protected-node"
    ]
    assert f"the plan moves protected node {protected} to another group, replacing its volumes" in denied["message"]


# ---- kinds that take no node down: the cluster's extensions (issue 41) -------------------------------
def _extension_plans() -> list[Plan]:
    """A plan of each extension kind on a cluster (its extensions read: as ListClusterExtensions showed them)."""
    from dataclasses import replace

    from pulumi_hyperpod.aws.observe.state import ExtensionState

    name = "sagemaker-observability"
    installed = ExtensionState(
        name, f"arn:aws:sagemaker:us-west-2:111122223333:extension/{name}/abcde1234567/a1b2c3d4e5f6", "1.0.0", "Active"
    )

    def wanting(*extensions: dict) -> ClusterSpec:
        return ClusterSpec.from_dict({**slurm_spec(workers=2).to_api(), "Extensions": list(extensions)})

    bare, having = (
        replace(observed_from(slurm_spec(workers=2)), extensions=()),
        replace(observed_from(slurm_spec(workers=2)), extensions=(installed,)),
    )
    return [
        make_plan(wanting({"ExtensionName": name}), bare),
        make_plan(wanting({"ExtensionName": name, "ExtensionVersion": "1.2.0"}), having),
        make_plan(wanting(), having),
    ]


def test_the_extension_kinds_take_no_node_down_for_any_judge(opa, plan_rules, monkeypatch, tmp_path) -> None:
    """Their declared disruption is none (the service's documentation names no restart): every node
    protected, the guard, the Rego rules and the pack let each through."""
    plans = _extension_plans()
    assert sorted(s.kind for made in plans for s in made.steps) == ["create-extension", "delete-extension", "update-extension"]
    everything = {n.key for n in observed_from(slurm_spec(workers=2)).nodes}
    params = {**PARAMS, "protected_node_ids": sorted(everything)}
    monkeypatch.setenv("HYPERPOD_OPA", opa)
    for made in plans:
        assert guards.plan_refusals(made, Policy(protected_node_ids=everything)) == []
        text = made.to_json()
        assert json.loads(text)["steps"][0]["disruption"]["effect"] == "none"
        assert evaluate(opa, text, params, tmp_path) == []
        assert plan_rules.violations(text, {**plan_rules.default_params(), **params}) == []
