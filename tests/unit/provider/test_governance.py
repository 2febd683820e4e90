"""The task governance provider (provider/governance.py) over an in-memory simulator: a compute quota
checked, created, changed in one member (a diff of that member only, one UpdateComputeQuota), deleted,
and each diff after an apply empty; the provider pickles without a client."""

from __future__ import annotations

import copy
import pickle

from pulumi_hyperpod.provider.governance import GovernanceProvider
from tests.support.sim_helpers import eks_request, group

QUOTA = {
    "Name": "team-a",
    "ClusterArn": "ml",
    "ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.g5.8xlarge", "Count": 2}]},
    "ComputeQuotaTarget": {"TeamName": "team-a", "FairShareWeight": 10},
}


def _eks(sim):
    client = sim.client()
    client.create_cluster(**eks_request("ml", [group("workers", 2, "ml.g5.8xlarge")]))
    sim.advance(1200)
    return client


def test_a_quota_created_changed_and_deleted_through_the_provider(sim, simulator_name):
    client = _eks(sim)
    core = GovernanceProvider("ComputeQuota", simulator=simulator_name).core()
    checked = core.check({}, {"spec": QUOTA, "backend": "fake"})
    assert checked.failures == []
    created = core.create(checked.inputs)
    assert created.id.startswith("arn:aws:sagemaker:us-west-2:") and ":compute-quota/" in created.id
    assert (created.outputs["version"], created.outputs["status"]) == (1, "Created")
    assert not core.diff(created.id, created.outputs, checked.inputs).changes  # the re-plan: empty

    changed = copy.deepcopy(QUOTA)
    changed["ComputeQuotaTarget"]["FairShareWeight"] = 20
    news = core.check(created.outputs, {"spec": changed, "backend": "fake"}).inputs
    diffed = core.diff(created.id, created.outputs, news)
    assert diffed.changes and diffed.replaces == []
    outputs = core.update(created.id, created.outputs, news)
    assert (outputs["version"], outputs["status"]) == (2, "Updated")
    assert client.describe_compute_quota(ComputeQuotaId=outputs["resource_id"])["ComputeQuotaTarget"]["FairShareWeight"] == 20
    assert not core.diff(created.id, outputs, news).changes

    renamed = core.check(outputs, {"spec": {**changed, "Name": "team-b"}, "backend": "fake"}).inputs
    assert core.diff(created.id, outputs, renamed).replaces == ["spec.Name"]

    core.delete(created.id, outputs)
    assert client.list_compute_quotas()["ComputeQuotaSummaries"] == []
    assert core.read(created.id, outputs).id == ""


def test_check_names_the_member_and_the_rule_and_the_wrong_kind_of_spec(sim, simulator_name):
    core = GovernanceProvider("ComputeQuota", simulator=simulator_name).core()
    bad = copy.deepcopy(QUOTA)
    bad["ComputeQuotaTarget"]["FairShareWeight"] = 101
    assert core.check({}, {"spec": bad}).failures == [("spec.ComputeQuotaTarget.FairShareWeight", "must be at most 100; got 101")]
    policy = {"Name": "p", "ClusterArn": "ml", "SchedulerConfig": {"FairShare": "Enabled"}}
    assert core.check({}, {"spec": policy}).failures == [("spec", "is a scheduler configuration spec; this resource is a ComputeQuota")]
    assert core.check({}, {"spec": QUOTA, "adopt": True}).failures[0][0] == "adopt"


def test_the_provider_pickles_with_names_only():
    provider = GovernanceProvider("ClusterSchedulerConfig", simulator="w")
    again = pickle.loads(pickle.dumps(provider))
    assert (again.noun, again.simulator) == ("ClusterSchedulerConfig", "w") and set(vars(again)) == {"noun", "simulator", "defaults"}
