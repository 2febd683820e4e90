"""The HTTP layer: botocore's own retries, error parsing, unsimulated operations, credentials, calls."""

from __future__ import annotations

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.sim.aws.simulator import DUMMY_ACCESS_KEY
from pulumi_hyperpod.sim.aws.wire import NotSimulatedError
from tests.support.sim_helpers import eks_request, group

ONE_SHOT = Config(retries={"mode": "standard", "max_attempts": 1})


def test_throttling_is_retried_by_botocore_standard_mode(retry_sleeps):
    sim = Simulator(seed=3, scenario={"faults": {"throttle_rate": 0.4}})
    client = connect(backend="fake", simulator=sim)  # standard retry mode, 8 attempts
    answers = [client.list_clusters() for _ in range(20)]
    retried = [a["ResponseMetadata"]["RetryAttempts"] for a in answers]
    assert sum(retried) > 0 and len(sim.calls) == 20 + sum(retried), "every attempt reached the simulator"
    assert len(retry_sleeps) == sum(retried) and all(0 <= s <= 20 for s in retry_sleeps), "botocore's backoff"


def test_throttling_surfaces_as_client_error_when_retries_run_out():
    sim = Simulator(seed=1, scenario={"faults": {"throttle_rate": 1.0}})
    with pytest.raises(ClientError) as error:
        sim.client(config=ONE_SHOT).list_clusters()
    assert error.value.response["Error"] == {"Code": "ThrottlingException", "Message": "Rate exceeded"}
    assert error.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_server_errors_are_500_or_503_and_retried(retry_sleeps):
    sim = Simulator(seed=5, scenario={"faults": {"server_error_rate": 1.0}})
    statuses = set()
    for _ in range(6):
        with pytest.raises(ClientError) as error:
            sim.client(config=ONE_SHOT).list_clusters()
        statuses.add((error.value.response["ResponseMetadata"]["HTTPStatusCode"], error.value.response["Error"]["Code"]))
    assert statuses == {(500, "InternalFailure"), (503, "ServiceUnavailable")}
    flaky = Simulator(seed=5, scenario={"faults": {"server_error_rate": 0.5}})
    client = connect(backend="fake", simulator=flaky)
    assert all(client.list_clusters()["ClusterSummaries"] == [] for _ in range(10))
    assert len(flaky.calls) > 10


def test_unsimulated_operation_and_services_answer_clearly(sim):
    with pytest.raises(ClientError) as error:
        sim.client().list_training_jobs()
    assert error.value.response["Error"]["Code"] == "UnknownOperationException"
    assert "ListTrainingJobs is not simulated" in error.value.response["Error"]["Message"]
    with pytest.raises(ClientError) as error:
        sim.client(service="logs").describe_log_groups()
    assert "does not simulate the logs service" in error.value.response["Error"]["Message"]
    with pytest.raises(NotSimulatedError, match="does not simulate the ec2 service"):
        sim.client(service="ec2").describe_instances()


def test_clients_use_fixed_dummy_credentials_never_the_environment(sim, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAREALKEYSHOULDNOTBEUSED")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "real-secret")
    monkeypatch.setenv("AWS_PROFILE", "no-such-profile-anywhere")
    client = sim.client()
    assert client._request_signer._credentials.access_key == DUMMY_ACCESS_KEY
    assert client.list_clusters()["ClusterSummaries"] == []


def test_attach_answers_an_existing_client_and_calls_are_recorded(sim):
    session = boto3.session.Session(aws_access_key_id="x", aws_secret_access_key="y", region_name="us-east-1")
    client = sim.attach(session.client("sagemaker"))
    client.create_cluster(**eks_request("attached", [group("a", 1)]))
    answer = client.describe_cluster(ClusterName="attached")
    assert answer["ClusterArn"].startswith("arn:aws:sagemaker:us-east-1:")
    assert answer["ResponseMetadata"]["RequestId"]
    assert [op for op, _ in sim.calls] == ["CreateCluster", "DescribeCluster"]
    assert sim.calls[1][1] == {"ClusterName": "attached"}
    sim.reset_calls()
    assert sim.calls == []


def test_virtual_clock_starts_at_the_fixed_epoch_and_moves_only_with_advance(sim):
    start = sim.now()
    assert start.isoformat() == "2026-01-01T00:00:00+00:00"
    sim.client().list_clusters()
    assert sim.now() == start
    assert sim.advance(90).isoformat() == "2026-01-01T00:01:30+00:00"
