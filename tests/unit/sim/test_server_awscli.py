"""Done-when of issue 29: the real AWS CLI (PyPI `awscli`, a test extra) against `hyperpod fake serve`
run as a user runs it — its own process on a free port of 127.0.0.1, stopping by itself — creates
seed 004's cluster, sees the scale-out that `hyperpod --endpoint-url … apply` made, deletes a node by
its id, tags the cluster and lists it; `hyperpod --backend fake` reads the same world from its file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import SPECS
from tests.support.serve import client_env, fake_serve

BIN = Path(sys.executable).parent
NAME = "leo-stg-hyperpod-cluster"
STOP_AFTER = 90  # seconds: the server ends by itself even if this test dies


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    return client_env(tmp_path)


@pytest.fixture
def endpoint(env, tmp_path):
    """`hyperpod fake serve --port 0`: its URL."""
    with fake_serve(env, tmp_path, stop_after=STOP_AFTER) as url:
        yield url


def aws(env, endpoint: str, *args: str) -> dict:
    done = subprocess.run(
        [str(BIN / "aws"), "--endpoint-url", endpoint, "--output", "json", "sagemaker", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, f"aws {' '.join(args)}: {done.stderr}"
    return json.loads(done.stdout or "{}")


def hyperpod(env, tmp_path, *args: str) -> str:
    done = subprocess.run([str(BIN / "hyperpod"), *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"hyperpod {' '.join(args)}: {done.stdout}{done.stderr}"
    return done.stdout


def counts(env, endpoint: str) -> dict[str, tuple[int, int]]:
    described = aws(env, endpoint, "describe-cluster", "--cluster-name", NAME)
    return {g["InstanceGroupName"]: (g["CurrentCount"], g["TargetCount"]) for g in described["InstanceGroups"]}


def test_the_aws_cli_and_the_tool_share_one_world_through_fake_serve(env, endpoint, tmp_path):
    assert (BIN / "aws").exists(), "the AWS CLI is a test extra: pip install -e '.[test]'"
    arn = aws(env, endpoint, "create-cluster", "--cli-input-json", f"file://{SPECS / 'seed004-initial.json'}")["ClusterArn"]
    hyperpod(env, tmp_path, "--backend", "fake", "fake", "advance", "30m")  # the same world, out of band
    assert counts(env, endpoint) == {"leo-stg-head-ig": (1, 1), "leo-stg-compute-ig": (1, 1)}

    hyperpod(
        env,
        tmp_path,
        "--endpoint-url",
        endpoint,
        "apply",
        "-f",
        str(SPECS / "seed004-scale-out.json"),
        "--yes",
        "--wait",
        "Target",
        "--timeout",
        "60",
    )
    assert counts(env, endpoint)["leo-stg-compute-ig"] == (3, 3)

    nodes = aws(env, endpoint, "list-cluster-nodes", "--cluster-name", NAME, "--instance-group-name-contains", "compute")[
        "ClusterNodeSummaries"
    ]
    victim = nodes[-1]["InstanceId"]
    assert aws(env, endpoint, "batch-delete-cluster-nodes", "--cluster-name", NAME, "--node-ids", victim) == {"Successful": [victim]}
    aws(env, endpoint, "add-tags", "--resource-arn", arn, "--tags", "Key=team,Value=ml")
    assert aws(env, endpoint, "list-tags", "--resource-arn", arn)["Tags"] == [{"Key": "team", "Value": "ml"}]

    listed = aws(env, endpoint, "list-clusters")["ClusterSummaries"]
    assert [(c["ClusterName"], c["ClusterArn"]) for c in listed] == [(NAME, arn)]
    [row] = json.loads(hyperpod(env, tmp_path, "--backend", "fake", "list", "--json"))
    assert row["arn"] == arn and row["nodes_target"] == 3  # head 1 + compute 2 after the deletion
    nodes_now = json.loads(hyperpod(env, tmp_path, "--backend", "fake", "nodes", NAME, "--json"))
    assert {n["status"] for n in nodes_now if n["instance_id"] == victim} <= {"ShuttingDown"}  # going, or gone
    assert sum(n["status"] == "Running" and n["group"] == "leo-stg-compute-ig" for n in nodes_now) == 2
