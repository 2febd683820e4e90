"""The governance specs are the AWS CLI's `--cli-input-json` documents: the real AWS CLI creates the
example compute quota and scheduler configuration from them against `hyperpod fake serve`, and
`hyperpod plan -f` of the same files then has no changes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import GOVERNANCE
from tests.support.serve import client_env, fake_serve

BIN = Path(sys.executable).parent


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    return client_env(tmp_path)


def _run(env, *argv: str, cwd: Path | None = None) -> str:
    done = subprocess.run(list(argv), env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{' '.join(argv)}: {done.stdout}{done.stderr}"
    return done.stdout


def test_the_aws_cli_creates_from_the_specs_and_the_plan_of_them_is_empty(env, tmp_path):
    assert (BIN / "aws").exists(), "the AWS CLI is a test extra: pip install -e '.[test]'"
    with fake_serve(env, tmp_path, stop_after=90) as endpoint:
        aws = (str(BIN / "aws"), "--endpoint-url", endpoint, "--output", "json", "sagemaker")
        hyperpod = (str(BIN / "hyperpod"), "--endpoint-url", endpoint)
        arn = json.loads(_run(env, *aws, "create-cluster", "--cli-input-json", f"file://{GOVERNANCE / 'cluster.json'}"))["ClusterArn"]
        for name, create in (("compute-quota.json", "create-compute-quota"), ("scheduler-config.json", "create-cluster-scheduler-config")):
            document = json.loads((GOVERNANCE / name).read_text())
            document["ClusterArn"] = arn  # the service takes the ARN; the spec may also name the cluster
            spec = tmp_path / name
            spec.write_text(json.dumps(document))
            _run(env, *aws, create, "--cli-input-json", f"file://{spec}")
            _run(env, *hyperpod, "plan", "-f", str(spec), "--detailed-exitcode", cwd=tmp_path)  # exit 0: no changes
            _run(env, *hyperpod, "plan", "-f", str(GOVERNANCE / name), "--detailed-exitcode", cwd=tmp_path)  # by the cluster's name too
        [quota] = json.loads(_run(env, *aws, "list-compute-quotas", "--cluster-arn", arn))["ComputeQuotaSummaries"]
        assert quota["Name"] == "team-a"
