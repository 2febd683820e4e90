"""`hyperpod fake serve --iam-policy`'s enforcement (sim/server.py with sim/iam.py), in this process on a
free port: the tool's plan, apply and delete through `--endpoint-url` under the policy `hyperpod
iam-policy` prints succeed; under that policy less one action, the call that needs it is refused as
AWS refuses it (AccessDeniedException, the action named) and nothing changes."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess

import pytest
from botocore.exceptions import ClientError
from click.testing import CliRunner

from pulumi_hyperpod.aws import iam
from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.cli import main
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.sim.iam import parse_policy
from pulumi_hyperpod.sim.server import Worlds
from tests.support.cli import SPECS
from tests.support.serve import BIN, fake_serve, served

NAME = "leo-stg-hyperpod-cluster"
ACCOUNT = "123456789012"  # the simulator's default scenario's account


@pytest.fixture
def aws_env(monkeypatch):
    for name, value in (
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_CONFIG_FILE", "/dev/null"),
        ("AWS_SHARED_CREDENTIALS_FILE", "/dev/null"),
        ("HYPERPOD_POLL_SECONDS", "0.05"),
    ):
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)


def serve(sim: Simulator, document: dict):
    """The endpoint over `sim` under `document`, in this process (a context: its URL)."""
    return served(Worlds(sim, GcpSimulator(), parse_policy(document, "policy.json")))


@pytest.fixture
def endpoint(aws_env, tmp_path):
    """Start an endpoint under a policy over a new world, a file one: its time runs while a client
    waits on it (a delete waits until the cluster is gone): (url, simulator) of each call."""
    with contextlib.ExitStack() as stack:
        worlds = iter(range(100))

        def start(document: dict) -> tuple[str, Simulator]:
            sim = Simulator(tmp_path / f"world{next(worlds)}.sqlite", seed=5)
            return stack.enter_context(serve(sim, document)), sim

        yield start


def hyperpod(url: str, *args: str):
    return CliRunner().invoke(main, ["--endpoint-url", url, "--region", "us-west-2", *args])


def without(document: dict, action: str) -> dict:
    statements = [{**s, "Action": [a for a in s["Action"] if a != action]} for s in document["Statement"]]
    return {**document, "Statement": [s for s in statements if s["Action"]]}


def targets(sim: Simulator) -> dict[str, int]:
    [cluster] = sim.overview()["clusters"]
    return {group["name"]: group["target"] for group in cluster["groups"]}


def test_plan_apply_and_delete_succeed_under_the_generated_policy(endpoint):
    role = json.loads((SPECS / "seed004-initial.json").read_text())["InstanceGroups"][0]["ExecutionRole"]
    url, sim = endpoint(iam.policy(where=iam.scope(region="us-west-2", account=ACCOUNT, roles=[role])))
    initial, scale_out = str(SPECS / "seed004-initial.json"), str(SPECS / "seed004-scale-out.json")
    planned = hyperpod(url, "plan", "-f", initial, "--detailed-exitcode")
    assert planned.exit_code == 3, planned.output
    created = hyperpod(url, "apply", "-f", initial, "--yes", "--wait", "none")
    assert created.exit_code == 0, created.output
    sim.advance(1800)
    scaled = hyperpod(url, "apply", "-f", scale_out, "--yes", "--wait", "none")
    assert scaled.exit_code == 0, scaled.output
    assert targets(sim)["leo-stg-compute-ig"] == 3
    deleted = hyperpod(url, "delete", NAME, "--yes", "--no-wait")
    assert deleted.exit_code == 0, deleted.output
    writes = [op for op, _ in sim.calls if not op.startswith(("Describe", "List", "Get"))]
    assert writes == ["CreateCluster", "UpdateCluster", "DeleteCluster"]


def test_a_policy_without_the_scale_outs_action_refuses_it_naming_the_action(endpoint):
    url, sim = endpoint(without(iam.policy(), "sagemaker:UpdateCluster"))
    assert hyperpod(url, "apply", "-f", str(SPECS / "seed004-initial.json"), "--yes", "--wait", "none").exit_code == 0
    sim.advance(1800)
    before = targets(sim)
    refused = hyperpod(url, "apply", "-f", str(SPECS / "seed004-scale-out.json"), "--yes", "--wait", "none")
    assert refused.exit_code == 1
    [line] = [line for line in refused.output.splitlines() if line.startswith("error:")]
    assert "AccessDeniedException" in line and "is not authorized to perform: sagemaker:UpdateCluster on resource: " in line
    assert "because no identity-based policy allows the sagemaker:UpdateCluster action (calls made: none)" in line
    assert targets(sim) == before  # nothing changed
    assert "UpdateCluster" not in [op for op, _ in sim.calls]  # refused at the door: the world never saw it


def test_access_denied_is_in_each_protocols_shape(endpoint):
    url, _sim = endpoint({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sagemaker:List*", "Resource": "*"}]})
    sagemaker = connect(backend="aws", region="us-west-2", endpoint_url=url, max_attempts=1)
    assert sagemaker.list_clusters()["ClusterSummaries"] == []  # a wildcard action allows it
    with pytest.raises(ClientError) as raised:
        sagemaker.describe_cluster(ClusterName=NAME)
    error = raised.value.response
    assert error["Error"]["Code"] == "AccessDeniedException" and error["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert error["ResponseMetadata"]["HTTPHeaders"]["x-amzn-errortype"] == "AccessDeniedException"
    assert error["Error"]["Message"] == (
        f"User: arn:aws:iam::{ACCOUNT}:user/simulated is not authorized to perform: sagemaker:DescribeCluster on resource: "
        f"arn:aws:sagemaker:us-west-2:{ACCOUNT}:cluster/* because no identity-based policy allows the sagemaker:DescribeCluster action"
    )
    s3 = connect(backend="aws", region="us-west-2", service="s3", endpoint_url=url, max_attempts=1)
    with pytest.raises(ClientError) as raised:
        s3.get_object(Bucket="bundles", Key="on_create.sh")
    assert raised.value.response["Error"]["Code"] == "AccessDenied"
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    assert "s3:GetObject on resource: arn:aws:s3:::bundles/on_create.sh" in raised.value.response["Error"]["Message"]


def test_an_explicit_deny_wins_and_resources_are_the_clusters_arns(endpoint):
    document = {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "All", "Effect": "Allow", "Action": ["sagemaker:*", "iam:PassRole"], "Resource": "*"},
            {"Sid": "NoDeletes", "Effect": "Deny", "Action": "sagemaker:Delete*", "Resource": "arn:aws:sagemaker:*:*:cluster/*"},
        ],
    }
    url, _sim = endpoint(document)
    client = connect(backend="aws", region="us-west-2", endpoint_url=url, max_attempts=1)
    arn = client.create_cluster(**json.loads((SPECS / "seed004-initial.json").read_text()))["ClusterArn"]
    with pytest.raises(ClientError) as raised:
        client.delete_cluster(ClusterName=NAME)  # by name: the resource is the cluster's ARN, its id in it
    message = raised.value.response["Error"]["Message"]
    assert message.endswith(f"sagemaker:DeleteCluster on resource: {arn} with an explicit deny in an identity-based policy")


def test_pass_role_is_checked_for_each_execution_role_a_create_passes(endpoint):
    url, sim = endpoint(without(iam.policy(), "iam:PassRole"))
    request = json.loads((SPECS / "seed004-initial.json").read_text())
    client = connect(backend="aws", region="us-west-2", endpoint_url=url, max_attempts=1)
    with pytest.raises(ClientError) as raised:
        client.create_cluster(**request)
    role = request["InstanceGroups"][0]["ExecutionRole"]
    assert f"is not authorized to perform: iam:PassRole on resource: {role} because" in raised.value.response["Error"]["Message"]
    assert sim.overview()["clusters"] == []


def test_fake_serve_enforces_a_policy_file_hyperpod_iam_policy_printed(tmp_path):
    """As a user runs it: `hyperpod iam-policy` for planning only, `hyperpod fake serve --iam-policy` in
    its own process, `hyperpod --endpoint-url` plans through it and is refused the apply, in one line."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "HYPERPOD_"))},
        "HYPERPOD_FAKE_STATE": str(tmp_path / "fake.sqlite"),
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    }

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(BIN / "hyperpod"), *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)

    printed = run("iam-policy", "--feature", "plan", "--feature", "preflight")
    assert printed.returncode == 0, printed.stderr
    (tmp_path / "policy.json").write_text(printed.stdout)
    with fake_serve(env, tmp_path, "--iam-policy", "policy.json") as url:
        spec = str(SPECS / "seed004-initial.json")
        planned = run("--endpoint-url", url, "--region", "us-west-2", "plan", "-f", spec, "--detailed-exitcode")
        assert planned.returncode == 3, planned.stdout + planned.stderr
        applied = run("--endpoint-url", url, "--region", "us-west-2", "apply", "-f", spec, "--yes", "--wait", "none")
        assert applied.returncode == 1
        [error] = [line for line in applied.stderr.splitlines() if line.startswith("error:")]
        assert "is not authorized to perform: sagemaker:CreateCluster on resource: arn:aws:sagemaker:us-west-2:" in error


def test_the_policy_is_checked_as_the_requests_own_account(aws_env, tmp_path):
    """Two accounts hold a cluster of one name (a 12-digit access key id is its account): a Deny on
    the first one's ARN does not stop the second account's delete of its own, and the refusal of
    the first names the caller's own account."""
    import boto3

    sim = Simulator(tmp_path / "world.sqlite", seed=5)
    allow = {"Effect": "Allow", "Action": ["sagemaker:*", "iam:PassRole"], "Resource": "*"}
    request = json.loads((SPECS / "seed004-initial.json").read_text())

    def under(statements: list[dict], calls):
        with serve(sim, {"Version": "2012-10-17", "Statement": statements}) as url:
            return calls(
                lambda account: boto3.client(
                    "sagemaker", region_name="us-west-2", endpoint_url=url, aws_access_key_id=account, aws_secret_access_key="x"
                )
            )

    first = under([allow], lambda client: [client(a).create_cluster(**request)["ClusterArn"] for a in ("111111111111", "222222222222")])[0]

    def deletes(client):
        client("222222222222").delete_cluster(ClusterName=NAME)  # its own cluster, not the denied ARN
        with pytest.raises(ClientError) as raised:
            client("111111111111").delete_cluster(ClusterName=NAME)
        return raised.value.response["Error"]["Message"]

    message = under([allow, {"Effect": "Deny", "Action": "sagemaker:DeleteCluster", "Resource": first}], deletes)
    assert message.startswith("User: arn:aws:iam::111111111111:user/simulated is not authorized to perform: sagemaker:DeleteCluster")
    assert message.endswith(f"on resource: {first} with an explicit deny in an identity-based policy")
