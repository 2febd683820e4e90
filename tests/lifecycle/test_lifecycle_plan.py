"""Software rollouts and node repair as planned steps, on the simulator behind a real client.

Scenarios from issue 26: an EKS cluster moved to a new ImageId previews UpdateClusterSoftware in batches
naming the nodes, applies, and re-plans empty; a Slurm cluster is patched all at once; a failed worker
is replaced; the controller is not; guards refuse what they must."""

from __future__ import annotations

import copy
import re

import pytest

from pulumi_hyperpod import pipeline
from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.aws.details import READER
from pulumi_hyperpod.aws.planner.details import is_canary
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.aws.observe import observe
from pulumi_hyperpod.plans import Plan, Policy
from tests.support.lifecycle_eks import NEW, OLD, VPC, _group, _prepare, _up, eks

BY_THREE = {"RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 3}}, "WaitIntervalInSeconds": 60}


def slurm(image=OLD, login=False):
    groups = [_group("controller", 1, "Controller", image)] + ([_group("login", 1, "Login", image)] if login else [])
    return {
        "ClusterName": "slurm",
        "NodeProvisioningMode": "Continuous",
        "VpcConfig": VPC,
        "Orchestrator": {"Slurm": {}},
        "InstanceGroups": [*groups, _group("workers", 4, "Compute", image)],
    }


@pytest.fixture
def world():
    sim = Simulator(seed=11)
    return sim, connect(backend="fake", simulator=sim, region="us-west-2")


def _apply(world, the_plan, policy=None):
    sim, client = world
    return pipeline.execute(
        client, the_plan, policy=policy, timeout=8 * 3600, poll_seconds=30, sleep=sim.advance, monotonic=lambda: sim.now().timestamp()
    )


def test_an_eks_cluster_moved_to_a_new_image_previews_batches_naming_the_nodes_applies_and_replans_empty(world):
    _up(world, eks())
    policy = Policy(software_deployment=BY_THREE)
    prepared = _prepare(world, eks(image=NEW), policy)
    [step] = prepared.plan.steps
    assert step.operation == "UpdateClusterSoftware"
    assert step.request == {
        "ClusterName": "eks8",
        "ImageId": NEW,
        "InstanceGroups": [{"InstanceGroupName": "workers"}],
        "DeploymentConfig": BY_THREE,
    }
    state = observe(world[1], "eks8")
    oldest_first = [n.instance_id for n in sorted(state.nodes, key=lambda n: (n.launch_time, n.instance_id))]
    assert [len(b) for b in step.batches] == [3, 3, 2]
    assert [i for batch in step.batches for i in batch] == oldest_first
    assert any(r.startswith("batch 1: " + oldest_first[0]) for r in step.reasons)

    result = _apply(world, prepared.plan, policy)

    assert result.ok and result.calls == ["UpdateClusterSoftware"]
    assert _prepare(world, eks(image=NEW), policy).plan.empty


def test_the_service_patches_the_batches_the_plan_showed_in_that_order(world):
    sim, client = world
    _up(world, eks())
    [step] = _prepare(world, eks(image=NEW), Policy(software_deployment=BY_THREE)).plan.steps
    client.update_cluster_software(**step.request)
    seen = []
    for _ in range(12):
        sim.advance(300)
        updating = tuple(sorted(n.instance_id for n in observe(client, "eks8").nodes if n.status == "SystemUpdating"))
        if updating and updating not in seen:
            seen.append(updating)
    assert seen == [tuple(sorted(b)) for b in step.batches]


def test_a_slurm_cluster_previews_all_nodes_at_once_without_deployment_config(world):
    _up(world, slurm())
    [step] = _prepare(world, slurm(image=NEW), Policy(software_deployment=BY_THREE, allow_controller_disruption=True)).plan.steps
    assert "DeploymentConfig" not in step.request
    assert len(step.batches) == 1 and len(step.batches[0]) == 5
    assert any(r.startswith("all nodes at once: 5 node(s)") and "the controller" in r for r in step.reasons)
    assert any("Slurm: no rolling batches" in r for r in step.reasons)


def test_a_slurm_rollout_taking_login_nodes_down_is_refused_unless_the_policy_allows_it(world):
    _up(world, slurm(login=True))
    refused = _prepare(world, slurm(image=NEW, login=True), Policy(allow_controller_disruption=True)).plan
    assert [r.rule for r in refused.refusals] == ["login-disruption"] and refused.steps == ()
    allowed = _prepare(world, slurm(image=NEW, login=True), Policy(allow_login_disruption=True, allow_controller_disruption=True)).plan
    assert [s.operation for s in allowed.steps] == ["UpdateClusterSoftware"]


def test_rollout_guards_protected_nodes_and_the_share_of_a_group_down_at_once(world):
    _up(world, eks())
    node = observe(world[1], "eks8").nodes[0].instance_id
    protected = _prepare(world, eks(image=NEW), Policy(protected_node_ids=frozenset({node}))).plan
    assert [r.rule for r in protected.refusals] == ["protected-node"] and node in protected.refusals[0].reason
    too_many = _prepare(world, eks(image=NEW), Policy(software_deployment=BY_THREE, max_unavailable_fraction=0.25)).plan
    assert [r.rule for r in too_many.refusals] == ["max-unavailable-fraction"]
    assert _prepare(world, eks(image=NEW), Policy(software_deployment=BY_THREE, max_unavailable_fraction=0.4)).plan.steps


def test_the_deployment_config_comes_from_the_groups_scheduled_update_config_when_the_policy_has_none(world):
    scheduled = {
        "ScheduleExpression": "cron(0 3 ? * SUN *)",
        "DeploymentConfig": {"RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "CAPACITY_PERCENTAGE", "Value": 25}}},
    }
    _up(world, eks(ScheduledUpdateConfig=scheduled))
    [step] = _prepare(world, eks(image=NEW, ScheduledUpdateConfig=scheduled)).plan.steps
    assert step.request["DeploymentConfig"] == scheduled["DeploymentConfig"]
    assert [len(b) for b in step.batches] == [2, 2, 2, 2]


def test_an_image_change_with_a_count_change_keeps_the_running_image_in_update_cluster(world):
    _up(world, eks())
    steps = _prepare(world, eks(count=9, image=NEW, MinInstanceCount=1)).plan.steps
    assert [s.operation for s in steps] == ["UpdateCluster", "UpdateClusterSoftware"]
    assert steps[0].request["InstanceGroups"][0]["ImageId"] == OLD  # the rollout, not UpdateCluster, moves it
    assert steps[1].request["ImageId"] == NEW


def test_a_rollback_alarm_during_the_rollout_is_a_failure_of_the_apply(world):
    sim, client = world
    _up(world, eks(count=4))
    policy = Policy(software_deployment={**BY_THREE, "AutoRollbackConfiguration": [{"AlarmName": "gpu-health"}]})
    the_plan = _prepare(world, eks(count=4, image=NEW), policy).plan
    fired = []

    def sleep(seconds):
        sim.advance(seconds)
        if not fired and sim.now().timestamp() > start + 600:
            fired.append(sim.fire_alarm("eks8", "gpu-health"))

    start = sim.now().timestamp()
    result = pipeline.execute(
        client, the_plan, policy=policy, timeout=8 * 3600, poll_seconds=30, sleep=sleep, monotonic=lambda: sim.now().timestamp()
    )
    assert fired == [True]
    # the service's own verdict, and its event saying why
    assert any("SoftwareUpdateStatus RollbackComplete" in f and "rolled back: alarm gpu-health" in f for f in result.failures)


def _fail_a_worker(world, name="slurm", group="workers"):
    sim, client = world
    worker = next(n.instance_id for n in observe(client, name).nodes if n.group == group)
    sim.fail_node(name, worker, retryable=False)
    return worker


def test_replacing_a_failed_worker_previews_and_applies_batch_replace_with_a_new_instance(world):
    _up(world, slurm())
    worker = _fail_a_worker(world)
    policy = Policy(replace_node_ids=frozenset({worker}))
    prepared = _prepare(world, slurm(), policy)
    [step] = prepared.plan.steps
    assert step.operation == "BatchReplaceClusterNodes" and step.request["NodeIds"] == [worker]
    assert any("volumes (root and secondary) are destroyed" in r for r in step.reasons)
    saved = Plan.from_dict(prepared.plan.to_dict())
    result = _apply(world, saved, policy)
    assert result.ok and result.calls == ["BatchReplaceClusterNodes"]
    workers = [n for n in observe(world[1], "slurm").nodes if n.group == "workers"]
    assert worker not in {n.instance_id for n in workers} and {n.status for n in workers} == {"Running"}


def test_replacing_the_slurm_controller_is_refused_naming_the_rule(world):
    _up(world, slurm())
    controller = next(n.instance_id for n in observe(world[1], "slurm").nodes if n.group == "controller")
    refused = _prepare(world, slurm(), Policy(replace_node_ids=frozenset({controller}))).plan
    assert [r.rule for r in refused.refusals] == ["controller-replace"]
    assert "cannot be replaced" in refused.refusals[0].reason and refused.steps == ()


def test_a_replacement_of_more_nodes_than_one_call_takes_is_split_at_the_models_limit(world):
    _up(world, eks(count=30))
    ids = frozenset(n.instance_id for n in observe(world[1], "eks8").nodes)
    steps = _prepare(world, eks(count=30), Policy(replace_node_ids=ids)).plan.steps
    assert [len(s.request["NodeIds"]) for s in steps] == [25, 5]
    assert sorted(i for s in steps for i in s.request["NodeIds"]) == sorted(ids)


def test_an_unknown_node_or_a_reboot_of_more_than_the_allowed_share_is_refused(world):
    _up(world, eks(count=4))
    assert [r.rule for r in _prepare(world, eks(count=4), Policy(reboot_node_ids=frozenset({"i-0000000000000dead"}))).plan.refusals] == [
        "unknown-node"
    ]
    ids = frozenset(n.instance_id for n in observe(world[1], "eks8").nodes[:3])
    refused = _prepare(world, eks(count=4), Policy(reboot_node_ids=ids, max_unavailable_fraction=0.5)).plan
    assert [r.rule for r in refused.refusals] == ["max-unavailable-fraction"]


def test_failed_nodes_are_deleted_replaced_or_left_as_the_policy_says(world):
    _up(world, slurm())
    worker = _fail_a_worker(world)
    smaller = copy.deepcopy(slurm())
    smaller["InstanceGroups"][-1]["InstanceCount"] = 3
    deleted = _prepare(world, smaller).plan
    assert [v.node_id for v in deleted.victims] == [worker]
    replaced = _prepare(world, slurm(), Policy(failed_nodes="replace")).plan
    assert [(s.operation, s.request["NodeIds"]) for s in replaced.steps] == [("BatchReplaceClusterNodes", [worker])]
    left = _prepare(world, smaller, Policy(failed_nodes="leave")).plan
    assert worker not in [v.node_id for v in left.victims] and len(left.victims) == 1
    assert any("left as they are" in note and worker in note for note in left.notes)


def test_a_saved_repair_plan_is_stale_once_the_node_it_names_was_replaced(world):
    _up(world, slurm())
    worker = _fail_a_worker(world)
    policy = Policy(replace_node_ids=frozenset({worker}))
    the_plan = _prepare(world, slurm(), policy).plan
    _apply(world, the_plan, policy)
    from pulumi_hyperpod.aws.apply import PlanStale

    with pytest.raises(PlanStale, match=f"{worker}"):
        _apply(world, the_plan, policy)


def test_a_deployment_config_in_the_policy_is_checked_against_the_model():
    with pytest.raises(ValueError, match=re.escape("MaximumBatchSize.Type: must be one of INSTANCE_COUNT, CAPACITY_PERCENTAGE")):
        Policy(software_deployment={"RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "NODES", "Value": 2}}})


def test_cli_replace_of_a_failed_worker_applies_and_replace_of_the_controller_exits_2(tmp_path, monkeypatch):
    import json

    from tests.support.cli import SPECS, hyperpod, use_fake_world

    use_fake_world(monkeypatch, tmp_path)
    spec = str(SPECS / "slurm-rollout.json")
    hyperpod("apply", "-f", spec, "--yes", "--wait", "Target", "--timeout", "120")
    nodes = json.loads(hyperpod("nodes", "slurm-rollout", "--json"))
    worker = next(n["instance_id"] for n in nodes if n["group"] == "workers")
    controller = next(n["instance_id"] for n in nodes if n["group"] == "controller")
    hyperpod("fake", "fail-node", "slurm-rollout", worker)
    preview = json.loads(hyperpod("plan", "-f", spec, "--replace", worker, "--json"))
    assert [(s["operation"], s["request"]["NodeIds"]) for s in preview["steps"]] == [("BatchReplaceClusterNodes", [worker])]
    hyperpod("plan", "-f", spec, "--replace", worker, "--out", "replace.json")
    assert "calls: BatchReplaceClusterNodes" in hyperpod("apply", "--plan", "replace.json", "--yes", "--timeout", "120")
    refused = hyperpod("plan", "-f", spec, "--replace", controller, code=2)
    assert "controller-replace" in refused and "cannot be replaced" in refused


def test_cli_health_check_follows_the_operation_to_done_and_exits_1_when_a_node_fails(tmp_path, monkeypatch):
    import json

    from tests.support.cli import SPECS, hyperpod, use_fake_world

    use_fake_world(monkeypatch, tmp_path)
    hyperpod("apply", "-f", str(SPECS / "eks-rollout.json"), "--yes", "--wait", "Target", "--timeout", "120")
    result = json.loads(hyperpod("health-check", "eks-rollout", "--group", "gpu-workers", "--json"))
    assert result["status"] == "Done" and len(result["nodes"]) == 8 and result["failed"] == []
    Simulator.open_default().set_fault_rate("deep_health_check_failure_rate", 1.0)  # every check from now on fails
    one = sorted(result["nodes"])[0]
    failed = json.loads(hyperpod("health-check", "eks-rollout", "--nodes", one, "--json", code=1))
    assert failed["failed"] == [one] and "Deep health check failed" in failed["messages"][one]
    assert "no such instance group" in hyperpod("health-check", "eks-rollout", "--group", "nope", code=1)


def test_a_canary_scale_out_adds_k_nodes_first_and_the_rest_once_they_pass(world):
    _up(world, eks(count=2))
    policy = Policy(canary_nodes=2)
    the_plan = _prepare(world, eks(count=10), policy).plan
    assert [(s.operation, is_canary(s), s.request["NodesToAdd"][0]["IncrementTargetCountBy"]) for s in the_plan.steps] == [
        ("BatchAddClusterNodes", True, 2),
        ("BatchAddClusterNodes", False, 6),
    ]
    result = _apply(world, Plan.from_dict(the_plan.to_dict(), READER), policy)
    assert result.ok and any(m.startswith("canary passed") for m in result.messages)
    assert observe(world[1], "eks8").group("workers").target_count == 10


def test_a_failing_canary_stops_the_scale_out_keeps_its_nodes_and_shows_the_lifecycle_event(world):
    from pulumi_hyperpod.aws.apply import ApplyError

    sim, client = world
    _up(world, eks(count=2))
    sim.set_fault_rate("lifecycle_failure_rate", 1.0)
    policy = Policy(canary_nodes=2)
    with pytest.raises(
        ApplyError,
        match=r"canary node i-[0-9a-f]+ \(workers\) failed: Lifecycle script on_create.sh failed.*"
        r"event: Instance lifecycle script execution .* has Failed",
    ):
        _apply(world, _prepare(world, eks(count=10), policy).plan, policy)
    assert observe(client, "eks8").group("workers").target_count == 4  # the canary's capacity is kept, the rest not asked for
    assert [op for op, _ in sim.calls if op == "BatchAddClusterNodes"] == ["BatchAddClusterNodes"]


def test_a_new_release_is_a_note_not_a_rollout_for_a_spec_that_pins_no_release(world):
    """Issue 37, item 8: an unpinned spec asks for nothing; the new release is said, with ImageVersionStatus."""
    sim, client = world
    latest = eks()
    del latest["InstanceGroups"][0]["ImageId"]  # no ImageId, no ImageReleaseVersion
    _up(world, latest)
    assert _prepare(world, latest).plan.empty
    sim.publish_image_release("2026.12.1")
    the_plan = _prepare(world, latest).plan
    assert the_plan.steps == () and the_plan.refusals == ()
    assert any("workers: a newer HyperPod AMI release is out (ImageVersionStatus UpdateAvailable" in n for n in the_plan.notes)
    pinned = copy.deepcopy(latest)
    pinned["InstanceGroups"][0]["ImageReleaseVersion"] = "2026.12.1"  # asked for: a rollout
    [step] = _prepare(world, pinned).plan.steps
    assert step.request == {"ClusterName": "eks8", "InstanceGroups": [{"InstanceGroupName": "workers", "ImageReleaseVersion": "2026.12.1"}]}
    assert _apply(world, _prepare(world, pinned).plan).ok
    assert observe(client, "eks8").group("workers").described["ImageVersionStatus"] == "UpToDate"
    assert _prepare(world, pinned).plan.empty


def test_a_slurm_rollout_that_takes_the_controller_down_needs_explicit_consent(world):
    """Issue 37, item 8: all-at-once on Slurm takes the controller down with the rest."""
    _up(world, slurm())
    refused = _prepare(world, slurm(image=NEW)).plan
    assert [r.rule for r in refused.refusals] == ["controller-disruption"] and refused.steps == ()
    assert "policy.allow_controller_disruption" in refused.refusals[0].reason and "controller" in refused.refusals[0].reason
    allowed = _prepare(world, slurm(image=NEW), Policy(allow_controller_disruption=True)).plan
    assert [s.operation for s in allowed.steps] == ["UpdateClusterSoftware"]


def test_apply_refuses_a_controller_rollout_without_consent_in_its_own_policy(world):
    from pulumi_hyperpod.aws.apply import PlanRefused

    sim, _client = world
    _up(world, slurm())
    the_plan = _prepare(world, slurm(image=NEW), Policy(allow_controller_disruption=True)).plan
    with pytest.raises(PlanRefused, match=r"controller-disruption|allow_controller_disruption"):
        _apply(world, the_plan, Policy())
    assert [op for op, _ in sim.calls if op == "UpdateClusterSoftware"] == []
    assert _apply(world, the_plan, Policy(allow_controller_disruption=True)).ok


def test_a_slurm_rollout_over_groups_of_unknown_role_needs_the_same_consent(world):
    def legacy(image):  # no SlurmConfig and no lifecycle bundle stating the roles: either group could be the controller
        return {
            "ClusterName": "legacy",
            "VpcConfig": VPC,
            "InstanceGroups": [_group("head", 1, image=image), _group("workers", 2, image=image)],
        }

    _up(world, legacy(OLD))
    refused = _prepare(world, legacy(NEW)).plan
    assert "controller-disruption" in [r.rule for r in refused.refusals]
    assert "whose Slurm role is not known" in next(r.reason for r in refused.refusals if r.rule == "controller-disruption")


def test_a_rollout_of_workers_only_needs_no_controller_consent(world):
    _up(world, slurm())
    workers_only = slurm()
    workers_only["InstanceGroups"][-1]["ImageId"] = NEW
    [step] = _prepare(world, workers_only).plan.steps
    assert step.request["InstanceGroups"] == [{"InstanceGroupName": "workers"}]


def test_image_id_default_after_a_custom_ami_converges(world):
    """Issue 37, item 7: "default" is the HyperPod public AMI; the rollout moves the group there and the re-plan is empty."""
    sim, client = world
    _up(world, eks(count=4))
    sim.publish_image_release("2026.12.1")
    back = eks(count=4, image="default")
    the_plan = _prepare(world, back).plan
    [step] = the_plan.steps
    assert step.request["ImageId"] == "default"
    result = _apply(world, the_plan)
    assert result.ok, result.failures
    group = observe(client, "eks8").group("workers").described
    assert "CurrentImageId" not in group and group["SoftwareUpdateStatus"] == "Succeeded"
    assert _prepare(world, back).plan.empty


def test_applys_progress_shows_the_rollouts_status_and_nodes_on_the_new_image(world):
    sim, client = world
    _up(world, eks(count=4))
    policy = Policy(software_deployment={"RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 2}}})
    seen: list[str] = []
    result = pipeline.execute(
        client,
        _prepare(world, eks(count=4, image=NEW), policy).plan,
        policy=policy,
        timeout=8 * 3600,
        poll_seconds=300,
        progress=lambda p: seen.append(str(p)),
        sleep=sim.advance,
        monotonic=lambda: sim.now().timestamp(),
    )
    assert result.ok
    waits = [line for line in seen if line.startswith("waiting for SoftwareUpdateEnded")]
    assert any(": workers InProgress 0/4" in line for line in waits) and any(": workers InProgress 2/4" in line for line in waits)


def test_image_id_default_rolls_a_patched_custom_ami_group_off_its_ami(world):
    """A custom-AMI group the service patched reports a release beside its AMI: still not on the public AMI."""
    sim, client = world
    patched = {"AutoPatchConfig": {"PatchingStrategy": "WhenIdle"}}
    _up(world, eks(count=2, **patched))
    sim.publish_image_release("2026.12.1")
    sim.advance(86400 + 3600)  # automatic patching: a day after the release
    group = observe(client, "eks8").group("workers").described
    assert (group["CurrentImageId"], group["CurrentImageReleaseVersion"]) == (OLD, "2026.12.1")
    [step] = _prepare(world, eks(count=2, image="default", **patched)).plan.steps
    assert step.request["ImageId"] == "default"


def test_apply_waits_on_the_services_software_update_status():
    """Issue 37, item 7: the wait ends when the groups' SoftwareUpdateStatus does, not when the cluster looks settled."""
    from pulumi_hyperpod.aws.apply.waiters import software_update_waiter

    waiter = software_update_waiter(["workers"])

    def state(cluster, *groups):
        response = {"ClusterStatus": cluster, "InstanceGroups": [{"InstanceGroupName": n, "SoftwareUpdateStatus": s} for n, s in groups]}
        return next((a.state for a in waiter.acceptors if a.matcher_func(response)), "retry")

    assert state("InService", ("workers", "InProgress")) == "retry"  # the cluster looks settled; the update is not
    assert state("InService", ("workers", "RollbackInProgress")) == "retry"
    assert state("InService", ("workers", "Succeeded"), ("other", "InProgress")) == "success"  # only the groups it names
    assert state("InService", ("workers", "RollbackComplete")) == "success"  # ended: apply reports how
    assert state("SystemUpdating", ("workers", "Succeeded")) == "retry"
    assert state("Failed", ("workers", "InProgress")) == "failure"


def test_a_rollout_already_running_is_not_planned_a_second_time(world):
    sim, client = world
    _up(world, eks())
    [step] = _prepare(world, eks(image=NEW)).plan.steps
    client.update_cluster_software(**step.request)
    sim.advance(10)
    during = _prepare(world, eks(image=NEW)).plan
    assert during.steps == () and any("a software update is running" in note for note in during.notes)


def test_apply_names_the_services_scaling_operation_and_reports_how_it_ended(world):
    _up(world, eks(count=2))
    sim, client = world
    result = pipeline.execute(
        client,
        _prepare(world, eks(count=5)).plan,
        wait="Target",
        timeout=8 * 3600,
        poll_seconds=30,
        sleep=sim.advance,
        monotonic=lambda: sim.now().timestamp(),
    )
    assert result.ok and result.calls == ["BatchAddClusterNodes"]
    started = [m for m in result.messages if m.startswith("BatchAddClusterNodes: service operation ")]
    ended = [m for m in result.messages if m.startswith("service operation ")]
    assert len(started) == 1 and started[0].endswith("(InProgress)")
    assert len(ended) == 1 and ended[0].endswith(": Done; workers 2 → 5 (Done)")


def test_a_call_the_service_records_no_operation_for_names_none(world):
    """Issue 37, item 14: an UpdateCluster that moves no count (a label) starts no Scaling operation,
    and apply's progress named the previous one (the scale-out's) as this call's."""
    _up(world, eks(count=2))
    sim, _client = world
    scaled = _apply(world, _prepare(world, eks(count=3)).plan)
    assert any(m.startswith("BatchAddClusterNodes: service operation ") for m in scaled.messages)
    sim.advance(3600)
    labelled = _apply(world, _prepare(world, eks(count=3, KubernetesConfig={"Labels": {"team": "ml"}})).plan)
    assert labelled.ok and labelled.calls == ["UpdateCluster"]
    assert not [m for m in labelled.messages if "service operation" in m], labelled.messages


def test_a_saved_repair_step_edited_to_name_another_node_is_never_run(world):
    import dataclasses

    from pulumi_hyperpod.aws.apply import ApplyError

    _up(world, slurm())
    worker = _fail_a_worker(world)
    policy = Policy(replace_node_ids=frozenset({worker}))
    the_plan = _prepare(world, slurm(), policy).plan
    [step] = the_plan.steps
    edited = dataclasses.replace(the_plan, steps=(dataclasses.replace(step, request={**step.request, "NodeIds": ["i-0123456789abcdef0"]}),))
    with pytest.raises(ApplyError, match="names node\\(s\\) i-0123456789abcdef0 the plan was not made against"):
        _apply(world, edited, policy)
    assert [op for op, _ in world[0].calls if op == "BatchReplaceClusterNodes"] == []
