"""Google Cloud's preflight through the real REST path: the client the `gcp` backend uses (google-auth's
AuthorizedSession, the endpoints from $HYPERPOD_GCP_ENDPOINT and $HYPERPOD_GCP_COMPUTE_ENDPOINT) talks
HTTP to `hyperpod fake serve` (sim/server.py), which answers Compute Engine's machineTypes.get,
reservations.get and regions.get from the simulator's world. The answers, and so the preflight's
verdicts, are the in-process simulator's, value for value."""

from __future__ import annotations

import threading

import pytest
from google.auth.credentials import AnonymousCredentials
from google.auth.transport.requests import AuthorizedSession

from pulumi_hyperpod.core import cloud
from pulumi_hyperpod.gcp.client import COMPUTE_ENDPOINT_ENV, ENDPOINT_ENV, GcpClient, connect
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.gcp.spec import ClusterSpec
from pulumi_hyperpod.plans.policy import Policy
from pulumi_hyperpod.sim.server import SimulatorServer, Worlds

from tests.support.gcp import a4, compute_settings

GCP = cloud.get("gcp")
RESERVATION = "projects/my-project/zones/us-central1-a/reservations/a4-reservation"


@pytest.fixture
def served(tmp_path, monkeypatch):
    """(REST client of the `gcp` backend pointed at the endpoint, in-process client, the world's simulator)."""
    sim = GcpSimulator(tmp_path / "gcp-fake.sqlite")
    server = SimulatorServer(("127.0.0.1", 0), Worlds(gcp=sim))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    monkeypatch.setenv(ENDPOINT_ENV, server.url)
    monkeypatch.setenv(COMPUTE_ENDPOINT_ENV, f"{server.url}/compute/v1")
    try:
        # what connect("gcp") builds, with anonymous credentials instead of this machine's ADC
        rest = GcpClient(AuthorizedSession(AnonymousCredentials()), poll_seconds=0, backend="gcp")
        yield rest, connect("fake", simulator=sim, poll_seconds=0), sim
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _preflight(client, doc):
    the_plan = cloud.prepare(GCP, client, ClusterSpec.from_document(doc), Policy()).plan
    quotas = the_plan.preflight.quotas
    checks = sorted((c.quota_name, c.quota, c.in_use, c.adds, c.after, c.status) for c in quotas.checks)
    return the_plan.preflight.verdict, quotas.status, checks, [(r.rule, r.group, r.reason) for r in the_plan.refusals]


def test_the_compute_reads_go_over_http_to_the_served_world(served):
    rest, _local, sim = served
    with compute_settings(sim) as compute:
        compute.add_reservation(RESERVATION, "a4-highgpu-8g", 2)
    assert rest.compute_url("projects/p/regions/r").startswith("http://127.0.0.1:")
    region = rest.get_region("my-project", "us-central1")
    assert {q["metric"] for q in region["quotas"]} >= {"CPUS", "NVIDIA_B200_GPUS"}
    shape = rest.get_machine_type("my-project", "us-central1-a", "a4-highgpu-8g")
    assert shape["guestCpus"] == 224 and shape["accelerators"][0]["guestAcceleratorCount"] == 8
    with pytest.raises(Exception, match="NOT_FOUND"):
        rest.get_reservation("my-project", "us-central1-a", "none")
    assert rest.get_reservation("my-project", "us-central1-a", "a4-reservation")["specificReservation"]["count"] == "2"


def test_a_create_that_fits_gets_the_same_checks_over_rest_as_in_process(served, doc):
    rest, local, _sim = served
    a4(doc)["machine_spec"].pop("reservation_affinity")
    a4(doc)["provisioning_model"] = "ON_DEMAND"
    over_rest = _preflight(rest, doc)
    assert over_rest == _preflight(local, doc)
    verdict, status, checks, refusals = over_rest
    assert verdict == "ok" and status == "checked" and refusals == []
    assert ("NVIDIA_B200_GPUS", 16) in {(name, adds) for name, _limit, _in_use, adds, _after, _status in checks}


def test_a_quota_too_small_is_refused_over_rest(served, doc):
    rest, local, sim = served
    a4(doc)["machine_spec"].pop("reservation_affinity")
    a4(doc)["provisioning_model"] = "ON_DEMAND"
    with compute_settings(sim) as compute:
        compute.set_quota("us-central1", "NVIDIA_B200_GPUS", 8)
    verdict, _status, _checks, refusals = over_rest = _preflight(rest, doc)
    assert over_rest == _preflight(local, doc)
    assert verdict == "refused" and [(rule, group) for rule, group, _ in refusals] == [("gcp-quota", "a4")]
    assert "NVIDIA_B200_GPUS in us-central1: 0 in use + 16 for a4 = 16, above the quota of 8" in refusals[0][2]


def test_a_machine_type_the_zone_lacks_and_a_missing_reservation_are_refused_over_rest(served, doc):
    rest, local, sim = served
    with compute_settings(sim) as compute:
        compute.withdraw("us-central1-a", "n2-standard-8")
        compute.add_reservation("projects/my-project/zones/us-central1-a/reservations/other", "a4-highgpu-8g", 2)
    verdict, _status, _checks, refusals = over_rest = _preflight(rest, doc)
    assert over_rest == _preflight(local, doc)
    assert verdict == "refused"
    assert sorted((rule, group) for rule, group, _ in refusals) == [("gcp-machine-type", "login"), ("gcp-reservation", "a4")]
    assert any(RESERVATION in reason for _rule, _group, reason in refusals)
    with compute_settings(sim) as compute:
        compute.add_reservation(RESERVATION, "a4-highgpu-8g", 2)
    assert [(rule, group) for rule, group, _ in _preflight(rest, doc)[3]] == [("gcp-machine-type", "login")]
