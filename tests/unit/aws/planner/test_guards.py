"""Guards and service-fidelity rules of the planner (issue 12): protected nodes in every step,
busy-group scale-in, InstanceType and Continuous changes, the nine node statuses, Slurm roles."""

from __future__ import annotations

import json

import pytest

from pulumi_hyperpod import ClusterSpec, ClusterState, Policy
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.plans import plan_text
from pulumi_hyperpod.aws.planner import victims as victim_rules
from pulumi_hyperpod.aws.servicemodel import shape

from tests.support.factories import group, node_id, observed_from, slurm_spec
from tests.support.factories import ROLES, legacy_slurm


def ops(p) -> list[str]:
    return [s.operation for s in p.steps]


def rules(p) -> list[str]:
    return [r.rule for r in p.refusals]


def with_group_status(state: ClusterState, name: str, status: str) -> ClusterState:
    described = dict(state.describe)
    described["InstanceGroups"] = [dict(g, Status=status) if g["InstanceGroupName"] == name else g for g in described["InstanceGroups"]]
    return ClusterState.from_api(described, list(state.node_summaries))


def with_statuses(state: ClusterState, statuses: dict[str, str]) -> ClusterState:
    summaries = [
        dict(s, InstanceStatus={"Status": statuses.get(s.get("InstanceId") or s["NodeLogicalId"], s["InstanceStatus"]["Status"])})
        for s in state.node_summaries
    ]
    return ClusterState.from_api(dict(state.describe), summaries)


# ---- 6: a protected node is never removed by any step -----------------------------------------------
def test_removing_or_renaming_a_group_with_a_protected_node_is_refused():
    extra = [group("old-workers", 2, "Compute", "old")]
    observed = observed_from(slurm_spec(workers=2, extra_groups=extra))
    protected = node_id(3, 1)  # old-workers' second node
    for desired in (slurm_spec(workers=2), slurm_spec(workers=2, extra_groups=[group("new-workers", 2, "Compute", "old")])):
        p = plan(desired, observed, Policy(protected_node_ids={protected}))
        assert rules(p) == ["protected-node"] and p.refusals[0].group == "old-workers"
        assert protected in p.refusals[0].reason and ops(p) == []
        assert "InstanceGroupsToDelete" in plan(desired, observed).steps[0].request  # unprotected: the group goes


def test_deleting_or_replacing_a_cluster_with_a_protected_node_is_refused():
    observed = observed_from(slurm_spec(workers=2))
    guard = Policy(protected_node_ids={node_id(2, 0)}, allow_replacement=True)
    assert rules(plan(None, observed, guard)) == ["protected-node"]
    api = slurm_spec(workers=2).to_api()
    api["VpcConfig"] = {"SecurityGroupIds": ["sg-99999999"], "Subnets": ["subnet-12345678"]}
    replace = plan(ClusterSpec.from_dict(api), observed, guard)
    assert replace.action == "replace" and rules(replace) == ["protected-node"] and ops(replace) == []


def test_a_count_the_service_lowers_is_refused_when_the_group_holds_a_protected_node():
    observed = with_group_status(observed_from(slurm_spec(workers=4)), "worker-gpu-a", "Updating")
    p = plan(slurm_spec(workers=2), observed, Policy(protected_node_ids={node_id(2, 3)}))
    assert rules(p) == ["protected-node"] and "the service chooses" in p.refusals[0].reason


# ---- 12: a refused plan lists no calls --------------------------------------------------------------
def test_a_refused_plan_lists_no_calls_in_the_table_or_the_json():
    p = plan(slurm_spec(workers=2, login=False), observed_from(slurm_spec(workers=2)))  # the Login group goes
    assert p.refused and p.steps == () and p.calls() == {}
    data = json.loads(p.to_json())
    assert data["calls"] == {} and data["steps"] == []
    text = plan_text(p)
    assert "API calls" not in text and "UpdateCluster" not in text and "nothing will be changed" in text


# ---- 13: scale-in of a Creating/Updating group -------------------------------------------------------
@pytest.mark.parametrize("status", ["Creating", "Updating"])
def test_scale_in_of_a_busy_group_lowers_the_count_through_update_cluster(status):
    observed = with_group_status(observed_from(slurm_spec(workers=6)), "worker-gpu-a", status)
    p = plan(slurm_spec(workers=4), observed)
    assert ops(p) == ["UpdateCluster"] and p.victims == ()
    [entry] = p.steps[0].request["InstanceGroups"]
    assert entry["InstanceGroupName"] == "worker-gpu-a" and entry["InstanceCount"] == 4
    assert f"the group is {status}" in p.steps[0].reasons[-1]
    assert ops(plan(slurm_spec(workers=4), observed_from(slurm_spec(workers=6)))) == ["BatchDeleteClusterNodes"]


# ---- 14 and 15: what UpdateCluster cannot change -------------------------------------------------------
def test_changing_the_instance_type_of_a_group_is_refused_with_advice():
    observed = observed_from(slurm_spec(workers=2))
    api = slurm_spec(workers=2).to_api()
    api["InstanceGroups"][2]["InstanceType"] = "ml.p4d.24xlarge"
    p = plan(ClusterSpec.from_dict(api), observed)
    assert rules(p) == ["immutable-group-field"] and ops(p) == []
    reason = p.refusals[0].reason
    assert "InstanceType ml.p5.48xlarge → ml.p4d.24xlarge" in reason and "add a group with a new name" in reason


def test_an_existing_cluster_cannot_be_switched_to_continuous():
    observed = observed_from(slurm_spec(workers=2, continuous=False))
    p = plan(slurm_spec(workers=2, continuous=True), observed)
    assert p.action == "replace" and rules(p) == ["replacement"] and ops(p) == []
    assert "cannot be switched to NodeProvisioningMode Continuous" in p.replacements[0]
    allowed = plan(slurm_spec(workers=2, continuous=True), observed, Policy(allow_replacement=True))
    assert ops(allowed) == ["DeleteCluster", "CreateCluster"]


# ---- 16: the nine node statuses ----------------------------------------------------------------------
def test_the_victim_order_covers_every_status_of_the_model():
    assert victim_rules.STATUSES == set(shape("ClusterInstanceStatus").enum)
    assert len(victim_rules.STATUSES) == 9


def test_victims_by_status_tier_then_newest_and_transitional_nodes_are_never_named():
    statuses = [
        "Running",
        "Failure",
        "Pending",
        "ShuttingDown",
        "SystemUpdating",
        "DeepHealthCheckInProgress",
        "NotFound",
        "DetachInProgress",
        "AttachInProgress",
    ]
    observed = with_statuses(observed_from(slurm_spec(workers=9)), {node_id(2, k): s for k, s in enumerate(statuses)})
    chosen = {n: victim_rules.choose(observed.nodes_of("worker-gpu-a"), n) for n in range(10)}
    named = [v.status for v in chosen[9]]
    # unhealthy (newest first), then never launched, then in health checks, then running
    assert named == ["NotFound", "Failure", "Pending", "DeepHealthCheckInProgress", "Running"]
    for gone in ("ShuttingDown", "DetachInProgress", "AttachInProgress", "SystemUpdating"):
        assert gone not in named
    # five can go; removing more waits for the service to finish with the others, and says so
    p = plan(slurm_spec(workers=1), observed)
    assert rules(p) == ["not-enough-removable"]
    assert "AttachInProgress" in p.refusals[0].reason and "plan again when they settle" in p.refusals[0].reason
    assert not plan(slurm_spec(workers=4), observed).refused


def test_an_unknown_status_from_a_newer_service_is_never_named():
    observed = with_statuses(observed_from(slurm_spec(workers=2)), {node_id(2, 1): "Hibernating"})
    p = plan(slurm_spec(workers=1), observed)
    assert [v.node_id for v in p.victims] == [node_id(2, 0)]


# ---- 12.7: Slurm roles --------------------------------------------------------------------------------
@pytest.mark.parametrize("change", [{"controller": 0}, {"login": 0}, {"workers": 0}])
def test_a_legacy_slurm_cluster_is_not_emptied_while_its_roles_are_unknown(change):
    observed = observed_from(legacy_slurm(2))
    counts = dict(change)
    desired = legacy_slurm(counts.pop("workers", 2), **counts)
    p = plan(desired, observed)
    assert rules(p) == ["slurm-roles-unknown"] and ops(p) == []
    assert "SlurmConfig.NodeType" in p.refusals[0].reason and "--lifecycle" in p.refusals[0].reason
    assert not plan(legacy_slurm(1), observed).refused, "a scale-in that leaves nodes is not the guard's business"


def test_deleting_a_group_of_a_legacy_cluster_is_refused_while_roles_are_unknown():
    observed = observed_from(legacy_slurm(2))
    desired = ClusterSpec.from_dict({"ClusterName": "legacy", "InstanceGroups": legacy_slurm(2).to_api()["InstanceGroups"][:2]})
    assert rules(plan(desired, observed)) == ["slurm-roles-unknown"]
    assert rules(plan(desired, observed, roles=ROLES)) == [], "a Compute group may go once the roles are known"


def test_with_roles_known_the_controller_and_login_guards_apply_as_for_slurm_config():
    observed = observed_from(legacy_slurm(2))
    assert rules(plan(legacy_slurm(2, controller=0), observed, roles=ROLES)) == ["controller-scale-in"]
    assert rules(plan(legacy_slurm(2, login=0), observed, roles=ROLES)) == ["login-scale-in"]
    emptied = plan(legacy_slurm(0), observed, roles=ROLES)
    assert not emptied.refused and ops(emptied) == ["BatchDeleteClusterNodes"]
    without_controller = ClusterSpec.from_dict({"ClusterName": "legacy", "InstanceGroups": legacy_slurm(2).to_api()["InstanceGroups"][1:]})
    assert rules(plan(without_controller, observed, roles=ROLES)) == ["controller-group"]
    assert {g.group: g.node_type for g in plan(legacy_slurm(2), observed, roles=ROLES).groups} == ROLES


def test_eks_clusters_have_no_slurm_roles_to_guard():
    api = legacy_slurm(2).to_api()
    api["Orchestrator"] = {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/eks"}}
    api["InstanceGroups"] = [g for g in api["InstanceGroups"] if g["InstanceGroupName"] == "worker-group-1"]
    desired = ClusterSpec.from_dict(api)
    observed = observed_from(desired)
    emptied = ClusterSpec.from_dict({**api, "InstanceGroups": [dict(api["InstanceGroups"][0], InstanceCount=0)]})
    assert not plan(emptied, observed).refused
