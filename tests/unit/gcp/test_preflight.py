"""Google Cloud's preflight in the pipeline's shared slot (gcp/preflight.py), on the simulator's
Compute Engine (sim/gcp/compute.py): the machine type offered in the zone, the named reservation,
the regional quotas — refused before any call, with the rule and the pool named."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.core import cloud
from pulumi_hyperpod.core.contract import ApplyOptions
from pulumi_hyperpod.gcp.client import GcpApiError
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.gcp.spec.names import gpu_quota_metric
from pulumi_hyperpod.gcp.spec import ClusterSpec
from pulumi_hyperpod.plans.policy import Policy
from tests.support.cli import use_fake_world

from tests.support.gcp import EXAMPLE, a4, compute_settings

GCP = cloud.get("gcp")
RESERVATION = "projects/my-project/zones/us-central1-a/reservations/a4-reservation"


def _prepared(client, doc, policy=None):
    return cloud.prepare(GCP, client, ClusterSpec.from_document(doc), policy or Policy())


def test_a_create_that_fits_is_checked_and_says_so(client, doc):
    doc["node_pools"][1]["provisioning_model"] = "ON_DEMAND"  # the a4 pool on quota, not a reservation
    a4(doc)["machine_spec"].pop("reservation_affinity")
    the_plan = _prepared(client, doc).plan
    section = the_plan.preflight
    assert section.skipped is None and section.verdict == "ok" and not the_plan.refused
    checks = {c.quota_name: c for c in section.quotas.checks}
    # 1 × n2-standard-8 (8 vCPUs) + 2 × a4-highgpu-8g (224 vCPUs, 8 × B200 each): the machine types' own shapes
    assert checks["CPUS"].adds == 8 + 2 * 224 and checks["NVIDIA_B200_GPUS"].adds == 16
    assert checks["N2_CPUS"].adds == 8 and checks["CPUS"].status == "ok"


def test_over_a_regional_gpu_quota_is_refused_naming_the_metric_and_the_pool(sim, client, doc):
    a4(doc)["machine_spec"].pop("reservation_affinity")
    a4(doc)["provisioning_model"] = "ON_DEMAND"
    with compute_settings(sim) as compute:
        compute.set_quota("us-central1", "NVIDIA_B200_GPUS", 8)
    the_plan = _prepared(client, doc).plan
    [refusal] = the_plan.refusals
    assert refusal.rule == "gcp-quota" and refusal.group == "a4"
    assert "NVIDIA_B200_GPUS in us-central1: 0 in use + 16 for a4 = 16, above the quota of 8" in refusal.reason
    assert the_plan.steps == () and the_plan.preflight.verdict == "refused"


def test_usage_counts_the_clusters_already_there(sim, client, doc):
    """A second cluster's GPUs are counted on top of the first one's usage."""
    a4(doc)["machine_spec"].pop("reservation_affinity")
    a4(doc)["provisioning_model"] = "SPOT"
    with compute_settings(sim) as compute:
        compute.set_quota("us-central1", "PREEMPTIBLE_NVIDIA_B200_GPUS", 24)
    cloud.execute(GCP, client, _prepared(client, doc), ApplyOptions())
    second = json.loads(json.dumps(doc).replace("llmtrain", "second"))
    check = {c.quota_name: c for c in _prepared(client, second).plan.preflight.quotas.checks}["PREEMPTIBLE_NVIDIA_B200_GPUS"]
    assert (check.in_use, check.adds, check.after, check.status) == (16, 16, 32, "over")


def test_a_machine_type_the_zone_does_not_offer_is_refused(sim, client, doc):
    with compute_settings(sim) as compute:
        compute.withdraw("us-central1-a", "a4-highgpu-8g")
    the_plan = _prepared(client, doc).plan
    assert [(r.rule, r.group) for r in the_plan.refusals] == [("gcp-machine-type", "a4")]
    assert "zone us-central1-a does not offer machine type a4-highgpu-8g" in the_plan.refusals[0].reason


def test_a_named_reservation_that_does_not_exist_is_refused_and_one_that_does_passes(sim, client, doc):
    with compute_settings(sim) as compute:
        compute.add_reservation("projects/my-project/zones/us-central1-a/reservations/other", "a4-highgpu-8g", 2)
    [refusal] = _prepared(client, doc).plan.refusals
    assert refusal.rule == "gcp-reservation" and RESERVATION in refusal.reason
    with compute_settings(sim) as compute:
        compute.add_reservation(RESERVATION, "a4-highgpu-8g", 2)
    the_plan = _prepared(client, doc).plan
    assert not the_plan.refused
    # nodes drawn from a reservation use its capacity, not the quota: only the login pool is counted
    assert {c.quota_name: c.adds for c in the_plan.preflight.quotas.checks} == {"CPUS": 8, "N2_CPUS": 8}


def test_a_plan_that_adds_nothing_reads_nothing(sim, client, doc):
    cloud.execute(GCP, client, _prepared(client, doc), ApplyOptions())
    doc["display_name"] = "renamed"
    section = _prepared(client, doc).plan.preflight
    assert section.quotas.status == "not-needed" and section.verdict == "ok"


def test_quotas_that_cannot_be_read_are_a_warning_not_an_ok(client, doc, monkeypatch):
    def denied(project, region):
        raise GcpApiError(f"GET projects/{project}/regions/{region}", 403, "PERMISSION_DENIED", "compute.regions.get denied")

    monkeypatch.setattr(client, "get_region", denied)
    section = _prepared(client, doc).plan.preflight
    assert section.quotas.status == "unreadable" and section.verdict == "warnings"
    assert any("regional quotas in us-central1 not checked" in w for w in section.warnings)


@pytest.mark.parametrize(
    ("accelerator", "spot", "metric"),
    [
        ("nvidia-h100-80gb", False, "NVIDIA_H100_GPUS"),
        ("nvidia-h100-mega-80gb", False, "NVIDIA_H100_MEGA_GPUS"),
        ("nvidia-b200", True, "PREEMPTIBLE_NVIDIA_B200_GPUS"),
        ("nvidia-l4", False, "NVIDIA_L4_GPUS"),
        ("nvidia-h200-141gb", False, "NVIDIA_H200_GPUS"),
    ],
)
def test_gpu_quota_metric_names(accelerator, spot, metric):
    assert gpu_quota_metric(accelerator, spot) == metric


def test_hyperpod_plan_of_a_gcp_cluster_is_refused_with_exit_2_when_the_zone_lacks_the_type(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    sim = GcpSimulator.open_default()
    with compute_settings(sim) as compute:
        compute.withdraw("us-central1-a", "n2-standard-8")
    result = CliRunner().invoke(main, ["--backend", "fake", "plan", "-f", str(EXAMPLE)])
    assert result.exit_code == 2, result.output
    assert "gcp-machine-type" in result.output and "n2-standard-8" in result.output


@pytest.mark.parametrize(
    "login, gpu, count",
    [("n2-standard-4", "a4-highgpu-8g", 2), ("n2-highmem-16", "a4x-highgpu-4g", 18), ("n2-standard-8", "a3-ultragpu-8g", 2)],
)
def test_every_machine_type_google_lists_for_training_clusters_is_offered_and_sized(client, doc, login, gpu, count):
    """Google's own sample's n2-standard-4 and the A4X type are in the supported list
    (training-clusters "Compute resources"): the simulator's Compute Engine knows their shapes."""
    doc["node_pools"][0]["machine_spec"]["machine_type"] = login
    a4(doc)["machine_spec"] = {"machine_type": gpu}
    a4(doc)["provisioning_model"] = "ON_DEMAND"
    a4(doc)["scaling_spec"] = {"min_node_count": count, "max_node_count": count}
    the_plan = _prepared(client, doc).plan
    assert not the_plan.refused, [r.reason for r in the_plan.refusals]
    assert the_plan.preflight.verdict == "ok", the_plan.preflight.warnings
    checks = {c.quota_name: c for c in the_plan.preflight.quotas.checks}
    assert checks["N2_CPUS"].adds == int(login.rsplit("-", 1)[1])


def test_a_machine_type_google_does_not_list_for_training_clusters_is_refused_before_any_call(doc):
    from pulumi_hyperpod.core.errors import InputError

    a4(doc)["machine_spec"]["machine_type"] = "c2-standard-60"
    with pytest.raises(InputError) as caught:
        ClusterSpec.from_document(doc)
    line = " ".join(caught.value.lines())
    assert "node_pools[1].machine_spec.machine_type" in line and "c2-standard-60" in line and "a4x-highgpu-4g" in line


def test_a_machine_type_the_simulators_catalog_does_not_hold_is_unknown_not_withdrawn():
    from pulumi_hyperpod.sim.gcp.compute import Compute
    from pulumi_hyperpod.sim.gcp.errors import RpcError

    compute = Compute({})
    with pytest.raises(RpcError) as caught:
        compute.machine_type("my-project", "us-central1-a", "z9-futuristic-8g")
    assert caught.value.status != "NOT_FOUND" and "does not hold" in str(caught.value)
    with pytest.raises(RpcError) as missing:
        compute.machine_type("my-project", "us-central1-a", "not a type")
    assert missing.value.status == "NOT_FOUND"
