"""A compute quota and a scheduler configuration planned and applied through the simulator (aws/governance):
created, changed in one member, deleted, each re-plan empty; the premise read again before the call; what
a change does to running work said where the model documents it; a Slurm cluster refused."""

from __future__ import annotations

import copy

import pytest

from pulumi_hyperpod.aws import governance
from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.core.contract import ApplyOptions, PlanStale
from pulumi_hyperpod.sim.aws import Simulator
from tests.support.sim_helpers import eks_request, group, seed000_request

QUOTA = {
    "Name": "team-a",
    "ClusterArn": "ml",
    "ComputeQuotaConfig": {
        "ComputeQuotaResources": [{"InstanceType": "ml.g5.8xlarge", "Count": 2}],
        "ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": 50},
        "PreemptTeamTasks": "LowerPriority",
    },
    "ComputeQuotaTarget": {"TeamName": "team-a", "FairShareWeight": 10},
    "Tags": [{"Key": "team", "Value": "a"}],
}
POLICY = {
    "Name": "policy",
    "ClusterArn": "ml",
    "SchedulerConfig": {"PriorityClasses": [{"Name": "training", "Weight": 50}], "FairShare": "Enabled"},
}


@pytest.fixture
def world():
    sim = Simulator(seed=3, scenario={"speed": 0})
    client = connect(backend="fake", simulator=sim, region="us-west-2")
    client.create_cluster(**eks_request("ml", [group("workers", 4, "ml.g5.8xlarge")]))
    sim.advance(1200)
    return sim, client


def _apply(sim, client, document, delete=False):
    plan = governance.prepare(client, governance.from_dict(document), delete=delete)
    governance.execute(client, plan, ApplyOptions(poll_seconds=5), sleep=sim.advance)
    return plan


def test_a_quota_is_created_changed_in_one_member_and_deleted_each_re_plan_empty(world):
    sim, client = world
    created = _apply(sim, client, QUOTA)
    assert (created.action, [s.operation for s in created.steps]) == ("create", ["CreateComputeQuota"])
    assert created.steps[0].request["ClusterArn"].startswith("arn:aws:sagemaker:us-west-2:")  # the name resolved
    again = governance.prepare(client, governance.from_dict(QUOTA))
    assert again.empty and again.action == "none"
    assert any("Tags are set when the resource is created" in note for note in again.notes)

    changed = copy.deepcopy(QUOTA)
    changed["ComputeQuotaTarget"]["FairShareWeight"] = 20
    update = _apply(sim, client, changed)
    (step,) = update.steps
    assert step.operation == "UpdateComputeQuota" and step.kind == "update-resource"
    assert set(step.request) == {"ComputeQuotaId", "TargetVersion", "ComputeQuotaTarget"} and step.request["TargetVersion"] == 1
    assert step.codes == ("changed:ComputeQuotaTarget",)  # a weight: nothing preempted
    assert governance.prepare(client, governance.from_dict(changed)).empty

    deleted = _apply(sim, client, changed, delete=True)
    assert [s.operation for s in deleted.steps] == ["DeleteComputeQuota"] and "preempts:quota-deleted" in deleted.steps[0].codes
    assert governance.prepare(client, governance.from_dict(changed)).action == "create"
    assert governance.prepare(client, governance.from_dict(changed), delete=True).empty


def test_a_lowered_quota_a_cut_borrow_limit_and_lending_stopped_say_what_they_preempt(world):
    sim, client = world
    _apply(sim, client, QUOTA)
    lowered = copy.deepcopy(QUOTA)
    lowered["ComputeQuotaConfig"]["ComputeQuotaResources"][0]["Count"] = 1
    lowered["ComputeQuotaConfig"]["ResourceSharingConfig"]["BorrowLimit"] = 10
    (step,) = governance.prepare(client, governance.from_dict(lowered)).steps
    assert step.codes == ("changed:ComputeQuotaConfig", "preempts:quota-lowered", "preempts:borrow-limit-cut")
    assert any("Count 2 → 1" in reason and "preempted" in reason for reason in step.reasons)
    stopped = copy.deepcopy(QUOTA)
    stopped["ComputeQuotaConfig"]["ResourceSharingConfig"] = {"Strategy": "DontLend"}
    codes = governance.prepare(client, governance.from_dict(stopped)).steps[0].codes
    assert {"preempts:lending-stopped", "preempts:borrowing-stopped"} <= set(codes)


def test_a_plan_made_before_another_writer_changed_the_quota_is_stale_and_calls_nothing(world):
    sim, client = world
    _apply(sim, client, QUOTA)
    changed = copy.deepcopy(QUOTA)
    changed["ComputeQuotaTarget"]["FairShareWeight"] = 30
    plan = governance.prepare(client, governance.from_dict(changed))
    quota = plan.steps[0].request["ComputeQuotaId"]
    client.update_compute_quota(ComputeQuotaId=quota, TargetVersion=1, Description="someone else")
    sim.advance(60)
    with pytest.raises(PlanStale, match="version 2, the plan read version 1"):
        governance.execute(client, plan, ApplyOptions(poll_seconds=5), sleep=sim.advance)
    assert client.describe_compute_quota(ComputeQuotaId=quota)["ComputeQuotaVersion"] == 2


def test_the_scheduler_configuration_and_a_slurm_cluster_refused(world):
    sim, client = world
    _apply(sim, client, POLICY)
    assert governance.prepare(client, governance.from_dict(POLICY)).empty
    fewer = copy.deepcopy(POLICY)
    fewer["SchedulerConfig"]["PriorityClasses"][0]["Weight"] = 10
    assert "preempts:priorities-changed" in governance.prepare(client, governance.from_dict(fewer)).steps[0].codes
    client.create_cluster(**seed000_request("slurm", workers=1))
    refused = governance.prepare(client, governance.from_dict({**QUOTA, "ClusterArn": "slurm"}))
    assert refused.refused and refused.refusals[0].rule == "not-eks" and not refused.steps


def test_a_quota_still_being_created_plans_no_changes_when_it_matches_and_is_refused_when_it_would_change(world):
    sim, client = world
    plan = governance.prepare(client, governance.from_dict(QUOTA))
    governance.execute(client, plan, ApplyOptions(wait="none"))
    assert client.list_compute_quotas()["ComputeQuotaSummaries"][0]["Status"] == "Creating"
    assert governance.prepare(client, governance.from_dict(QUOTA)).empty
    changed = copy.deepcopy(QUOTA)
    changed["Description"] = "later"
    busy = governance.prepare(client, governance.from_dict(changed))
    assert busy.refused and busy.refusals[0].rule == "busy" and not busy.steps
    sim.advance(30)
    assert [s.operation for s in governance.prepare(client, governance.from_dict(changed)).steps] == ["UpdateComputeQuota"]
