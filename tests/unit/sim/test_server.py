"""`hyperpod fake serve`'s endpoint (pulumi_hyperpod/sim/server.py) in this process, on a free port:
botocore clients with `endpoint_url` (SageMaker, Service Quotas, S3), Google's REST through
`requests`, and the `hyperpod` CLI with `--endpoint-url` all see the one world the in-process
simulator holds; requests are routed by their SigV4 scope, or their X-Amz-Target when unsigned."""

from __future__ import annotations

import json
import threading

import pytest
import requests
from botocore.exceptions import ClientError
from click.testing import CliRunner
from requests.structures import CaseInsensitiveDict

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.gcp.client import GcpClient
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.sim.server import SimulatorServer, Worlds, aws_route
from tests.support.cli import SPECS

GCP_EXAMPLE = SPECS.parent / "gcp-training-cluster" / "cluster.json"


@pytest.fixture
def served(monkeypatch):
    """(url, HyperPod simulator, GCP simulator): an endpoint on 127.0.0.1 over in-memory worlds."""
    for name, value in (
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_PROFILE", ""),
        ("AWS_CONFIG_FILE", "/dev/null"),
        ("AWS_SHARED_CREDENTIALS_FILE", "/dev/null"),
    ):
        monkeypatch.setenv(name, value) if value else monkeypatch.delenv(name, raising=False)
    hyperpod, gcp = Simulator(seed=5), GcpSimulator()
    server = SimulatorServer(("127.0.0.1", 0), Worlds(hyperpod, gcp))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.url, hyperpod, gcp
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def over_http(url: str, service: str = "sagemaker"):
    return connect(backend="aws", region="us-west-2", service=service, endpoint_url=url, max_attempts=1)


def test_a_cluster_created_over_http_is_the_one_the_in_process_simulator_holds(served):
    url, sim, _gcp = served
    client = over_http(url)
    request = json.loads((SPECS / "seed004-initial.json").read_text())
    arn = client.create_cluster(**request)["ClusterArn"]
    in_process = connect(backend="fake", simulator=sim)
    assert in_process.describe_cluster(ClusterName="leo-stg-hyperpod-cluster")["ClusterArn"] == arn
    sim.advance(1800)
    groups = {g["InstanceGroupName"]: g["CurrentCount"] for g in client.describe_cluster(ClusterName=arn)["InstanceGroups"]}
    assert groups == {"leo-stg-head-ig": 1, "leo-stg-compute-ig": 1}
    assert [c["ClusterName"] for c in client.list_clusters()["ClusterSummaries"]] == ["leo-stg-hyperpod-cluster"]


def test_service_errors_arrive_as_the_clients_own_exceptions(served):
    client = over_http(served[0])
    with pytest.raises(ClientError) as raised:
        client.describe_cluster(ClusterName="nothing-here")
    assert raised.value.response["Error"]["Code"] == "ResourceNotFound"
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_service_quotas_and_s3_answer_on_the_same_endpoint(served):
    url, _sim, _gcp = served
    quotas = over_http(url, "service-quotas").list_aws_default_service_quotas(ServiceCode="sagemaker")["Quotas"]
    assert any("cluster usage" in quota["QuotaName"] for quota in quotas)
    s3 = over_http(url, "s3")
    s3.create_bucket(Bucket="bundles-d29", CreateBucketConfiguration={"LocationConstraint": "us-west-2"})
    s3.put_object(Bucket="bundles-d29", Key="src/provisioning_parameters.json", Body=b'{"version": "1.0.0"}')
    assert s3.get_object(Bucket="bundles-d29", Key="src/provisioning_parameters.json")["Body"].read() == b'{"version": "1.0.0"}'
    assert s3.head_object(Bucket="bundles-d29", Key="src/provisioning_parameters.json")["ContentLength"] == 20
    listed = s3.list_objects_v2(Bucket="bundles-d29", Prefix="src/")["Contents"]
    assert [item["Key"] for item in listed] == ["src/provisioning_parameters.json"]


def test_google_rest_reaches_the_gcp_world(served):
    url, _sim, gcp = served
    body = json.loads(GCP_EXAMPLE.read_text())
    name = body.pop("name")
    parent, _, cluster_id = name.rpartition("/modelDevelopmentClusters/")
    created = requests.post(
        f"{url}/v1beta1/{parent}/modelDevelopmentClusters", params={"modelDevelopmentClusterId": cluster_id}, json=body, timeout=10
    )
    assert created.status_code == 200, created.text
    got = requests.get(f"{url}/v1beta1/{name}", timeout=10)
    assert got.status_code == 200 and got.json()["name"] == name
    with gcp.world() as world:
        assert world.get(name)["name"] == name
    missing = requests.get(f"{url}/v1beta1/{parent}/modelDevelopmentClusters/none", timeout=10)
    assert missing.status_code == 404 and missing.json()["error"]["status"] == "NOT_FOUND"
    over_rest = GcpClient(requests.Session(), endpoint=url, poll_seconds=0)  # the tool's own REST client
    assert [c["name"] for c in over_rest.list_clusters(parent)] == [name]


@pytest.mark.parametrize(
    "headers, route",
    [
        (
            {"Authorization": "AWS4-HMAC-SHA256 Credential=AK/20261201/eu-west-1/sagemaker/aws4_request, SignedHeaders=host"},
            ("sagemaker", "eu-west-1"),
        ),
        (
            {"Authorization": "AWS4-HMAC-SHA256 Credential=AK/20261201/us-east-1/servicequotas/aws4_request"},
            ("service-quotas", "us-east-1"),
        ),
        ({"Authorization": "AWS4-HMAC-SHA256 Credential=AK/20261201/us-west-2/s3/aws4_request"}, ("s3", "us-west-2")),
        ({"X-Amz-Target": "SageMaker.ListClusters"}, ("sagemaker", "us-west-2")),
        ({}, ("s3", "us-west-2")),
    ],
)
def test_requests_are_routed_by_their_signing_scope_or_their_target(headers, route):
    assert aws_route(CaseInsensitiveDict(headers)) == route


def test_an_unknown_operation_is_a_json_error_not_a_dropped_connection(served):
    answer = requests.post(
        served[0],
        data="{}",
        timeout=10,
        headers={"X-Amz-Target": "SageMaker.CreateTrainingJob", "Content-Type": "application/x-amz-json-1.1"},
    )
    assert answer.status_code == 400
    assert "not simulated" in answer.json()["message"]


def test_the_cli_plans_and_applies_through_endpoint_url(served, monkeypatch):
    url, sim, _gcp = served
    monkeypatch.setenv("HYPERPOD_POLL_SECONDS", "0.05")
    runner = CliRunner()
    spec = str(SPECS / "seed004-initial.json")
    first = runner.invoke(main, ["--endpoint-url", url, "--region", "us-west-2", "plan", "-f", spec, "--detailed-exitcode"])
    assert first.exit_code == 3, first.output
    applied = runner.invoke(main, ["--endpoint-url", url, "--region", "us-west-2", "apply", "-f", spec, "--yes", "--wait", "none"])
    assert applied.exit_code == 0, applied.output
    assert [op for op, _ in sim.calls if not op.startswith(("Describe", "List", "Get"))] == ["CreateCluster"]
    both = runner.invoke(main, ["--backend", "fake", "--endpoint-url", url, "list"])
    assert both.exit_code == 1 and "one or the other" in both.output


def test_botocores_service_endpoint_variable_reaches_the_endpoint_too(served, monkeypatch):
    url, sim, _gcp = served
    monkeypatch.setenv("AWS_ENDPOINT_URL_SAGEMAKER", url)
    client = connect(backend="aws", region="us-west-2", max_attempts=1)
    assert client.meta.endpoint_url == url
    assert client.list_clusters()["ClusterSummaries"] == []
    assert ("ListClusters", {}) in [(op, params) for op, params in sim.calls]
