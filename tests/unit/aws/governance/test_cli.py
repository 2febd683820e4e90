"""`hyperpod plan | apply | delete -f` with a task governance spec (cli/governance_commands.py over
aws/governance), on a persistent simulated world: a compute quota created, changed in one member and
deleted, each re-plan empty; the scheduler configuration too; the cluster commands' node options refused."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import hyperpod, use_fake_world
from tests.support.paths import GOVERNANCE


@pytest.fixture
def governed(monkeypatch, tmp_path):
    use_fake_world(monkeypatch, tmp_path)
    monkeypatch.setenv("COLUMNS", "400")
    hyperpod("apply", "-f", str(GOVERNANCE / "cluster.json"), "--yes", "--wait", "none")
    return tmp_path


def _plan(spec: str) -> dict:
    return json.loads(hyperpod("plan", "-f", spec, "--json"))


def test_a_quota_created_changed_and_deleted_through_the_cli_each_re_plan_empty(governed):
    quota = str(GOVERNANCE / "compute-quota.json")
    assert "CreateComputeQuota" in hyperpod("plan", "-f", quota, "--detailed-exitcode", code=3)
    assert "outcome: done; calls: CreateComputeQuota" in hyperpod("apply", "-f", quota, "--yes")
    assert _plan(quota)["empty"]
    hyperpod("plan", "-f", quota, "--detailed-exitcode")  # exit 0: no changes

    document = json.loads((GOVERNANCE / "compute-quota.json").read_text())
    document["Description"] = "changed"
    changed = governed / "changed.json"
    changed.write_text(json.dumps(document))
    (step,) = _plan(str(changed))["steps"]
    assert (step["operation"], step["kind"], step["codes"]) == ("UpdateComputeQuota", "update-resource", ["changed:Description"])
    assert step["request"]["Description"] == "changed" and step["request"]["TargetVersion"] == 1
    assert step["disruption"]["effect"] == "none"
    hyperpod("apply", "-f", str(changed), "--yes")
    assert _plan(str(changed))["empty"]

    assert "outcome: done; calls: DeleteComputeQuota" in hyperpod("delete", "-f", str(changed), "--yes")
    assert _plan(str(changed))["action"] == "create"
    assert "No changes" in hyperpod("delete", "-f", str(changed), "--yes")  # nothing to delete: no changes


def test_the_scheduler_configuration_through_the_cli(governed):
    policy = str(GOVERNANCE / "scheduler-config.json")
    hyperpod("apply", "-f", policy, "--yes")
    assert _plan(policy)["empty"]
    hyperpod("delete", "-f", policy, "--yes")


def test_cluster_options_are_refused_for_a_governance_spec(governed):
    quota = str(GOVERNANCE / "compute-quota.json")
    out = hyperpod("plan", "-f", quota, "--protect", "i-0", "--policy", "p.yaml", "--out", "p.json", code=1)
    assert "--policy, --protect: for cluster specs" in out, out
    assert not (governed / "p.json").exists()


def test_a_saved_plan_applies_while_its_version_holds_and_is_stale_after_another_writer(governed):
    quota = str(GOVERNANCE / "compute-quota.json")
    hyperpod("plan", "-f", quota, "--out", "create.json")
    assert "outcome: done; calls: CreateComputeQuota" in hyperpod("apply", "--plan", "create.json", "--yes")
    assert "stale plan" in hyperpod("apply", "--plan", "create.json", "--yes", code=1)  # acts once: it exists now

    document = json.loads((GOVERNANCE / "compute-quota.json").read_text())
    document["ComputeQuotaTarget"]["FairShareWeight"] = 30
    changed = governed / "changed.json"
    changed.write_text(json.dumps(document))
    hyperpod("plan", "-f", str(changed), "--out", "update.json")
    # another writer updates the quota (version 1 → 2) after the plan was saved
    from pulumi_hyperpod.sim.aws import Simulator

    client = Simulator.open_default().client()
    [summary] = client.list_compute_quotas()["ComputeQuotaSummaries"]
    client.update_compute_quota(ComputeQuotaId=summary["ComputeQuotaId"], TargetVersion=1, Description="someone else")
    out = hyperpod("apply", "--plan", "update.json", "--yes", code=1)
    assert "is at version 2, the plan read version 1" in out and "Nothing was changed" in out, out
    assert client.describe_compute_quota(ComputeQuotaId=summary["ComputeQuotaId"])["ComputeQuotaTarget"]["FairShareWeight"] == 10

    edited = json.loads((governed / "create.json").read_text())
    edited["plan"]["steps"] = []
    (governed / "create.json").write_text(json.dumps(edited))
    assert "integrity check failed" in hyperpod("apply", "--plan", "create.json", "--yes", code=1)


def test_status_of_a_quota_and_of_none(governed):
    quota = str(GOVERNANCE / "compute-quota.json")
    assert json.loads(hyperpod("status", "-f", quota, "--json", code=1)) == {"exists": False}
    assert "no compute quota team-a on cluster hp-governed" in hyperpod("status", "-f", quota, code=1)
    hyperpod("apply", "-f", quota, "--yes")
    assert "compute quota team-a on cluster hp-governed: Created, version 1" in hyperpod("status", "-f", quota)
    assert json.loads(hyperpod("status", "-f", quota, "--json"))["ComputeQuotaVersion"] == 1


def test_a_saved_plan_refuses_the_cluster_options_and_a_missing_cluster_is_one_line(governed):
    quota = str(GOVERNANCE / "compute-quota.json")
    hyperpod("plan", "-f", quota, "--out", "p.json")
    out = hyperpod("apply", "--plan", "p.json", "--protect", "i-0", "--yes", code=1)
    assert "--protect: for cluster specs; p.json is a task governance spec or plan" in out, out
    document = json.loads((GOVERNANCE / "compute-quota.json").read_text())
    document["ClusterArn"] = "elsewhere"
    (governed / "elsewhere.json").write_text(json.dumps(document))
    out = hyperpod("plan", "-f", "elsewhere.json", code=1)
    assert "cluster elsewhere not found in us-west-2" in out and "Traceback" not in out, out


def test_the_plan_names_the_resource_not_its_cluster(governed):
    """A quota's plan is not a plan for the cluster: its header and its last line say what it is for."""
    quota = str(GOVERNANCE / "compute-quota.json")
    created = hyperpod("plan", "-f", quota, "--detailed-exitcode", code=3)
    assert "Plan for compute quota team-a on cluster hp-governed: create" in created
    assert "Plan for cluster" not in created
    hyperpod("apply", "-f", quota, "--yes")
    assert "No changes: the compute quota team-a on cluster hp-governed matches the spec." in hyperpod("plan", "-f", quota)
