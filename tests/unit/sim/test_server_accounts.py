"""`hyperpod fake serve` for a fleet: a request acts as the account its SigV4 access key names (as in
process, sim/aws/accounts.py), and `--latency` holds each answer back (sim/server.py) without the
world's clock counting the hold as a client's waiting on it."""

from __future__ import annotations

import contextlib
import time

import boto3
import pytest
import requests
from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.sim.aws.clock import PollTracker
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.sim.clock import parse_latency
from pulumi_hyperpod.sim.server import Worlds
from tests.support.serve import served
from tests.support.sim_helpers import eks_request, group

ALICE, BOB, DEFAULT = "111111111111", "222222222222", "123456789012"


@pytest.fixture
def serve():
    """serve(latency=0.0) -> (url, the HyperPod simulator): an endpoint on 127.0.0.1 over in-memory worlds."""
    with contextlib.ExitStack() as stack:

        def start(latency: float = 0.0):
            sim = Simulator(seed=9)
            return stack.enter_context(served(Worlds(sim, GcpSimulator(), latency=latency))), sim

        yield start


def over_http(url: str, key: str, service: str = "sagemaker"):
    return boto3.client(service, region_name="us-west-2", endpoint_url=url, aws_access_key_id=key, aws_secret_access_key="not-checked")


def test_two_accounts_over_http_each_see_their_own_cluster_of_one_name(serve):
    url, sim = serve()
    alice, bob = over_http(url, ALICE), over_http(url, BOB)
    request = eks_request("a", [group("workers", 1)])
    alice_arn = alice.create_cluster(**request)["ClusterArn"]
    bob_arn = bob.create_cluster(**request)["ClusterArn"]
    assert (alice_arn.split(":")[4], bob_arn.split(":")[4]) == (ALICE, BOB)
    assert [c["ClusterArn"] for c in alice.list_clusters()["ClusterSummaries"]] == [alice_arn]
    assert [c["ClusterArn"] for c in bob.list_clusters()["ClusterSummaries"]] == [bob_arn]
    assert bob.describe_cluster(ClusterName="a")["ClusterArn"] == bob_arn
    assert sim.client().list_clusters()["ClusterSummaries"] == [], "in process, the default account has none"
    quotas = over_http(url, BOB, "service-quotas").list_service_quotas(ServiceCode="sagemaker", MaxResults=1)["Quotas"]
    assert quotas[0]["QuotaArn"].startswith(f"arn:aws:servicequotas:us-west-2:{BOB}:")


def test_an_unsigned_request_is_the_default_account(serve):
    url, sim = serve()
    sim.client().create_cluster(**eks_request("mine", [group("workers", 1)]))
    answer = requests.post(
        url, data="{}", headers={"X-Amz-Target": "SageMaker.ListClusters", "Content-Type": "application/x-amz-json-1.1"}, timeout=10
    )
    assert answer.status_code == 200
    assert [c["ClusterArn"].split(":")[4] for c in answer.json()["ClusterSummaries"]] == [DEFAULT]


def test_latency_holds_each_answer_back_at_least_that_long(serve):
    url, _sim = serve(latency=0.3)
    client = over_http(url, ALICE)
    client.list_clusters()  # the connection is open: what is measured next is the answer
    started = time.monotonic()
    client.list_clusters()
    assert time.monotonic() - started >= 0.3


@pytest.mark.parametrize(("text", "seconds"), [("150ms", 0.15), ("0.15s", 0.15), ("1s", 1.0), ("0ms", 0.0), (" 10S ", 10.0)])
def test_latency_is_given_in_milliseconds_or_seconds(text, seconds):
    assert parse_latency(text) == pytest.approx(seconds)


@pytest.mark.parametrize(("text", "says"), [("150", "like 150ms"), ("1m", "like 150ms"), ("-5ms", "like 150ms"), ("11s", "at most 10s")])
def test_a_bad_latency_is_one_error_line_before_anything_is_served(tmp_path, monkeypatch, text, says):
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(tmp_path / "fake.sqlite"))
    result = CliRunner().invoke(main, ["fake", "serve", "--port", "0", "--stop-after", "1", "--latency", text])
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: --latency {text!r}: must be") and says in lines[0], result.output
    assert not (tmp_path / "fake.sqlite").exists(), "refused before the world was opened"


def test_the_held_time_between_polls_is_not_waiting_on_the_world():
    """A waiter polling every 2 s through an endpoint holding each answer 0.5 s sees its polls 2.5 s
    apart; the world moves at speed through the 2 s it waited, not the 0.5 s on the wire."""
    held, plain = PollTracker(5.0, held=0.5), PollTracker(5.0)
    assert held.waited("describe", 100.0) == plain.waited("describe", 100.0) == 0.0
    assert held.waited("describe", 102.5) == pytest.approx(2.0)
    assert plain.waited("describe", 102.5) == pytest.approx(2.5)
