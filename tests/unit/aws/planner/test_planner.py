"""The pure planner: scenario cases from the seeds, and properties over random clusters."""

from __future__ import annotations

import dataclasses
import math
import os

from hypothesis import HealthCheck, given, settings, strategies as st

from pulumi_hyperpod import ClusterSpec, Plan, Policy
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.aws.planner.basis import Expectation
from pulumi_hyperpod.aws.planner.premise import stale_reasons
from pulumi_hyperpod.aws.planner import api_limits

from tests.support.effects import apply_effect
from tests.support.factories import group, node_id, observed_from, slurm_spec

LIMITS = api_limits()
PROFILE = int(os.environ.get("HYPERPOD_HYPOTHESIS_EXAMPLES", "150"))


def ops(p: Plan) -> list[str]:
    return [s.operation for s in p.steps]


# ---- scenarios ----------------------------------------------------------------------------------


def test_no_cluster_is_one_create_call():
    p = plan(slurm_spec(workers=16), None)
    assert ops(p) == ["CreateCluster"]
    assert p.steps[0].request == slurm_spec(workers=16).to_api("CreateCluster")
    assert "16" in p.steps[0].reasons[0] or "18 nodes" in p.steps[0].reasons[0]


def test_seed_004_scale_out_1_to_3_is_one_step():
    legacy = slurm_spec(workers=3, continuous=False)
    p = plan(legacy, observed_from(slurm_spec(workers=1, continuous=False)))
    assert ops(p) == ["UpdateCluster"]
    (entry,) = p.steps[0].request["InstanceGroups"]
    assert entry["InstanceGroupName"] == "worker-gpu-a" and entry["InstanceCount"] == 3
    assert "worker-gpu-a 1 → 3: +2 nodes" in p.steps[0].reasons


def test_continuous_scale_out_uses_batch_add_with_the_increment():
    p = plan(slurm_spec(workers=32), observed_from(slurm_spec(workers=16)))
    assert ops(p) == ["BatchAddClusterNodes"]
    assert p.steps[0].request["NodesToAdd"] == [{"InstanceGroupName": "worker-gpu-a", "IncrementTargetCountBy": 16}]
    assert p.steps[0].reasons == ("worker-gpu-a 16 → 32: +16 nodes",)


def test_scale_in_names_unhealthy_then_newest():
    observed = observed_from(slurm_spec(workers=3), statuses={node_id(2, 0): "Failure"})
    p = plan(slurm_spec(workers=1), observed)
    assert ops(p) == ["BatchDeleteClusterNodes"]
    assert [v.node_id for v in p.victims] == [node_id(2, 0), node_id(2, 2)]
    assert "unhealthy" in p.victims[0].reason and "newest" in p.victims[1].reason


def test_never_launched_nodes_go_before_running_ones_by_logical_id():
    observed = observed_from(slurm_spec(workers=2), pending={"worker-gpu-a": 2})
    p = plan(slurm_spec(workers=1), observed)
    # target 4 → 1: both never-launched nodes, then the newest running one
    assert p.steps[0].request == {
        "ClusterName": "my-training-cluster",
        "NodeLogicalIds": ["worker-gpu-a-p0000", "worker-gpu-a-p0001"],
        "NodeIds": [node_id(2, 1)],
    }
    assert sorted(v.logical for v in p.victims) == [False, True, True]


def test_nodes_not_running_yet_are_not_drift():
    observed = observed_from(slurm_spec(workers=4), counts={"worker-gpu-a": 1}, pending={"worker-gpu-a": 3})
    p = plan(slurm_spec(workers=4), observed)
    assert p.empty
    assert "worker-gpu-a: 1/4 running, 3 not running yet (not drift)" in p.notes  # no shortage reported: no capacity named


def test_protected_nodes_are_kept():
    observed = observed_from(slurm_spec(workers=3))
    keep = {node_id(2, 2), node_id(2, 1)}
    p = plan(slurm_spec(workers=2), observed, Policy(protected_node_ids=frozenset(keep)))
    assert [v.node_id for v in p.victims] == [node_id(2, 0)]  # the newest two are protected


def test_not_enough_unprotected_nodes_is_refused():
    observed = observed_from(slurm_spec(workers=3))
    p = plan(slurm_spec(workers=0), observed, Policy(protected_node_ids=frozenset({node_id(2, 0)})))
    assert p.refused and p.refusals[0].rule == "not-enough-removable"


def test_controller_and_login_scale_in_are_refused():
    observed = observed_from(slurm_spec(workers=2))
    spec = ClusterSpec.from_dict(
        {
            **slurm_spec(workers=2).to_api(),
            "InstanceGroups": [
                g if g["InstanceGroupName"] != "login-group" else {**g, "InstanceCount": 0}
                for g in slurm_spec(workers=2).to_api()["InstanceGroups"]
            ],
        }
    )
    p = plan(spec, observed)
    assert [r.rule for r in p.refusals] == ["login-scale-in"]
    assert plan(spec, observed, Policy(allow_login_scale_in=True)).victims[0].group == "login-group"


def test_controller_group_cannot_be_removed():
    legacy = slurm_spec(workers=2, continuous=False)
    api = legacy.to_api()
    observed = observed_from(legacy)
    api["InstanceGroups"][0]["InstanceGroupName"] = "controller-2"  # a new controller group replacing the old
    p = plan(ClusterSpec.from_dict(api), observed)
    assert [(r.rule, r.group) for r in p.refusals] == [("controller-group", "controller-group")]


def test_scale_in_fraction_guard():
    observed = observed_from(slurm_spec(workers=10))
    p = plan(slurm_spec(workers=2), observed, Policy(max_scale_in_fraction=0.5))
    assert p.refused and "80%" in p.refusals[0].reason


def test_reordering_groups_and_keys_is_no_change():
    spec = slurm_spec(workers=3)
    api = spec.to_api()
    api["InstanceGroups"] = list(reversed([dict(reversed(list(g.items()))) for g in api["InstanceGroups"]]))
    assert plan(ClusterSpec.from_dict(api), observed_from(spec)).empty


def test_config_change_and_scale_out_fold_into_one_update():
    spec = slurm_spec(workers=5)
    api = spec.to_api()
    api["InstanceGroups"][2]["LifeCycleConfig"] = {"SourceS3Uri": "s3://amzn-s3-demo-bucket/v2/", "OnCreate": "on_create.sh"}
    p = plan(ClusterSpec.from_dict(api), observed_from(slurm_spec(workers=2)))
    assert ops(p) == ["UpdateCluster"]
    (entry,) = p.steps[0].request["InstanceGroups"]
    assert entry["InstanceCount"] == 5 and entry["LifeCycleConfig"]["SourceS3Uri"].endswith("/v2/")
    assert p.groups[2].config_changes == ("LifeCycleConfig",)


def test_new_and_removed_groups_in_one_update():
    spec = slurm_spec(workers=2, extra_groups=[group("worker-cpu", 4, "Compute", "cpu")])
    observed = observed_from(slurm_spec(workers=2, extra_groups=[group("old-workers", 2, "Compute", "old")]))
    p = plan(spec, observed)
    assert ops(p) == ["UpdateCluster"]
    assert p.steps[0].request["InstanceGroupsToDelete"] == ["old-workers"]
    assert [g["InstanceGroupName"] for g in p.steps[0].request["InstanceGroups"]] == ["worker-cpu"]


def test_immutable_changes_are_replacement():
    spec = slurm_spec(workers=2)
    api = spec.to_api()
    api["VpcConfig"] = {"SecurityGroupIds": ["sg-99999999"], "Subnets": ["subnet-12345678"]}
    p = plan(ClusterSpec.from_dict(api), observed_from(spec))
    assert p.action == "replace" and ops(p) == []  # refused: no call is listed
    assert p.refused and "VpcConfig" in p.replacements[0]
    allowed = plan(ClusterSpec.from_dict(api), observed_from(spec), Policy(allow_replacement=True))
    assert not allowed.refused and ops(allowed) == ["DeleteCluster", "CreateCluster"]
    legacy = ClusterSpec.from_dict(
        {k: v for k, v in spec.to_api().items() if k != "NodeProvisioningMode"}
        | {"InstanceGroups": [{k: v for k, v in g.items()} for g in spec.to_api()["InstanceGroups"]]}
    )
    assert "Continuous" in plan(legacy, observed_from(spec)).replacements[0]


def test_vpc_left_out_of_the_spec_keeps_what_is_there():
    spec = ClusterSpec.from_dict({k: v for k, v in slurm_spec(workers=2).to_api().items() if k != "VpcConfig"})
    assert plan(spec, observed_from(slurm_spec(workers=2))).empty


def test_min_count_change_is_an_update_before_the_scale_in():
    spec = slurm_spec(workers=2)
    api = spec.to_api()
    api["InstanceGroups"][2]["MinInstanceCount"] = 1
    observed = observed_from(slurm_spec(workers=6), mins={"worker-gpu-a": 5})
    p = plan(ClusterSpec.from_dict(api), observed)
    assert ops(p) == ["UpdateCluster", "BatchDeleteClusterNodes"]
    assert p.steps[0].request["InstanceGroups"][0]["MinInstanceCount"] == 1
    assert p.steps[0].request["InstanceGroups"][0]["InstanceCount"] == 6  # the count moves in the delete step


def test_large_scale_in_is_split_at_99_nodes():
    p = plan(slurm_spec(workers=0), observed_from(slurm_spec(workers=250)))
    assert ops(p) == ["BatchDeleteClusterNodes"] * 3
    assert [len(s.request["NodeIds"]) for s in p.steps] == [99, 99, 52]


def test_delete_plan_and_json_round_trip():
    observed = observed_from(slurm_spec(workers=2))
    p = plan(None, observed)
    assert ops(p) == ["DeleteCluster"]
    assert Plan.from_dict(p.to_dict()) == p
    q = plan(slurm_spec(workers=1), observed_from(slurm_spec(workers=3)))
    assert Plan.from_dict(q.to_dict()) == q


def test_deleting_cluster_is_refused():
    p = plan(slurm_spec(workers=2), observed_from(slurm_spec(workers=2), status="Deleting"))
    assert p.refusals[0].rule == "cluster-deleting"


# ---- properties ---------------------------------------------------------------------------------


@st.composite
def cluster_pairs(draw):
    continuous = draw(st.booleans())
    n_workers = draw(st.integers(1, 4))
    have_counts = [draw(st.integers(0, 300)) for _ in range(n_workers)]
    want_counts = [draw(st.integers(0, 300)) for _ in range(n_workers)]
    keep_group = [draw(st.booleans()) or i == 0 for i in range(n_workers)]
    extra_new = draw(st.integers(0, 2))
    workers_have = [group(f"w{i}", have_counts[i], "Compute", f"p{i}") for i in range(n_workers)]
    workers_want = [group(f"w{i}", want_counts[i], "Compute", f"p{i}") for i in range(n_workers) if keep_group[i]]
    workers_want += [group(f"new{i}", draw(st.integers(0, 80)), "Compute", f"n{i}") for i in range(extra_new)]
    if draw(st.booleans()):
        workers_want = list(reversed(workers_want))
    base = [group("controller-group", 1, "Controller"), group("login-group", 1, "Login")]

    def spec(groups):
        data = {"ClusterName": "prop", "Orchestrator": {"Slurm": {}}, "InstanceGroups": base + groups}
        if continuous:
            data["NodeProvisioningMode"] = "Continuous"
        return ClusterSpec.from_dict(data)

    have_spec, want_spec = spec(workers_have), spec(workers_want)
    failures = {}
    for gi, count in enumerate(have_counts, start=2):
        for k in draw(st.sets(st.integers(0, max(count - 1, 0)), max_size=5)) if count else ():
            failures[node_id(gi, k)] = draw(st.sampled_from(["Failure", "Pending", "NotFound", "DeepHealthCheckInProgress"]))
    pending = {f"w{i}": draw(st.integers(0, 3)) for i in range(n_workers)} if continuous else {}
    observed = observed_from(have_spec, statuses=failures, pending=pending)
    protected = frozenset(draw(st.sets(st.sampled_from([n.key for n in observed.nodes] or ["i-00000000"]), max_size=4)))
    return want_spec, observed, Policy(protected_node_ids=protected)


def _minimum_calls(p: Plan, desired: ClusterSpec, observed) -> int:
    """The fewest calls for this change, counted independently of how the planner builds steps."""
    ids = sum(1 for v in p.victims if not v.logical)
    logical = sum(1 for v in p.victims if v.logical)
    # logical ids travel in calls of ≤ 50 identifiers (topped up with instance ids); the rest of
    # the instance ids in calls of ≤ 99
    logical_calls = math.ceil(logical / 50)
    deletes = logical_calls + math.ceil(max(ids - (logical_calls * 50 - logical), 0) / 99)
    structural = any(desired.group(g.name) is None for g in observed.groups) or any(
        observed.group(g.name) is None for g in desired.instance_groups
    )
    growth = {
        g.name: g.instance_count - observed.group(g.name).target_count
        for g in desired.instance_groups
        if observed.group(g.name) and g.instance_count > observed.group(g.name).target_count
    }
    cancels = any("cancel" in r for s in p.steps for r in s.reasons)
    if structural or cancels or (growth and not desired.continuous):
        return 1 + deletes
    # growth costs one call: one BatchAddClusterNodes when the entries fit in one, else one UpdateCluster
    return deletes + (1 if growth else 0)


@settings(max_examples=PROFILE, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(cluster_pairs())
def test_plan_properties(pair):
    desired, observed, policy = pair
    first = plan(desired, observed, policy)
    assert plan(desired, observed, policy) == first, "plan() must be deterministic"
    controllers = {n.key for n in observed.nodes if n.group == "controller-group"}
    for victim in first.victims:
        assert victim.node_id not in controllers, "a Controller node was named"
        assert victim.node_id not in policy.protected_node_ids, "a protected node was named"
    for step in first.steps:
        ids, logical = step.request.get("NodeIds", []), step.request.get("NodeLogicalIds", [])
        assert len(ids) <= 99 and len(logical) <= 50
        assert not logical or len(ids) + len(logical) <= 50, "the API allows 50 identifiers in all when logical ids are given"
        adds = step.request.get("NodesToAdd", [])
        assert len(adds) <= 5 and sum(e["IncrementTargetCountBy"] for e in adds) <= 50, "≤ 5 groups and ≤ 50 nodes per BatchAdd"
    if first.refused:
        assert first.steps == () and first.calls() == {}, "a refused plan lists no calls"
        assert all(r.rule in ("not-enough-removable", "protected-node") for r in first.refusals), first.refusals
        for refusal in first.refusals:
            if refusal.rule == "protected-node":  # only a group deletion removes nodes without naming them
                assert desired.group(refusal.group) is None
                assert any(n.key in policy.protected_node_ids for n in observed.nodes_of(refusal.group))
        return
    assert len(first.steps) == _minimum_calls(first, desired, observed)
    assert stale_reasons(first, observed) == [], "a plan is fresh against what it was made from"
    after = apply_effect(observed, first)
    # what apply checks before each call tracks the plan's own effect: no other writer is seen
    expected = Expectation.from_basis(first.basis)
    for done, step in enumerate(first.steps, 1):
        expected.after(step, {}, [(v.group, v.node_id) for v in step.victims])
        partway = apply_effect(observed, dataclasses.replace(first, steps=first.steps[:done]))
        assert expected.moved(partway) == [], (done, expected.moved(partway))
    for g in desired.instance_groups:
        assert after.group(g.name).target_count == g.instance_count, f"{g.name} did not reach its target"
    assert {g.name for g in after.groups} == {g.name for g in desired.instance_groups}
    again = plan(desired, after, policy)
    assert again.steps == (), f"re-planning after the effect is not empty: {[s.operation for s in again.steps]}"


def test_a_group_already_being_deleted_is_not_deleted_again():
    spec = slurm_spec(workers=2)
    observed = observed_from(slurm_spec(workers=2, extra_groups=[group("old-workers", 2, "Compute", "old")]))
    described = dict(observed.describe)
    described["InstanceGroups"] = [
        dict(g, Status="Deleting") if g["InstanceGroupName"] == "old-workers" else g for g in described["InstanceGroups"]
    ]
    deleting = type(observed).from_api(described, list(observed.node_summaries))
    p = plan(spec, deleting)
    assert p.steps == () and "old-workers: already being deleted" in p.notes
    assert (
        plan(slurm_spec(workers=2, extra_groups=[group("old-workers", 2, "Compute", "old")]), deleting).refusals[0].rule == "group-deleting"
    )


def test_documented_limits_split_the_batches():
    """The API reference: BatchAdd ≤ 5 groups and ≤ 50 nodes per call; BatchDelete ≤ 99 ids, and
    ≤ 50 identifiers in all when logical ids are named."""
    from pulumi_hyperpod.aws.planner.rules import pack_adds, pack_deletes
    from pulumi_hyperpod.plans import Victim

    calls = pack_adds([("a", 30), ("b", 30), ("c", 5)], LIMITS)
    assert [[(e["InstanceGroupName"], e["IncrementTargetCountBy"]) for e in c] for c in calls] == [
        [("a", 30), ("b", 20)],
        [("b", 10), ("c", 5)],
    ]
    ids = [Victim("g", f"i-{n:017x}", False, "Running", "") for n in range(120)]
    logical = [Victim("g", f"g-{n}", True, "Pending", "") for n in range(60)]
    packed = pack_deletes(ids, logical, LIMITS, 99)
    assert [(len(i), len(lg)) for i, lg in packed] == [(0, 50), (40, 10), (80, 0)]


def test_a_big_continuous_scale_out_is_one_update_not_many_adds():
    p = plan(slurm_spec(workers=64), observed_from(slurm_spec(workers=2)))
    assert ops(p) == ["UpdateCluster"]  # +62 would take two BatchAdd calls
    assert ops(plan(slurm_spec(workers=52), observed_from(slurm_spec(workers=2)))) == ["BatchAddClusterNodes"]


def test_the_not_running_note_names_capacity_only_for_nodes_the_service_says_wait_for_it():
    import dataclasses

    observed = observed_from(slurm_spec(workers=4), counts={"worker-gpu-a": 1}, pending={"worker-gpu-a": 3})
    short = "We currently do not have sufficient capacity to launch new ml.p5.48xlarge instances. Please try again."
    nodes = [n for n in observed.nodes if n.instance_id or n.logical_id != "worker-gpu-a-p0000"]
    nodes.append(next(dataclasses.replace(n, message=short) for n in observed.nodes if n.logical_id == "worker-gpu-a-p0000"))
    p = plan(slurm_spec(workers=4), dataclasses.replace(observed, nodes=tuple(nodes)))
    assert "worker-gpu-a: 1/4 running, 3 not running yet, 1 of them waiting for capacity (not drift)" in p.notes
