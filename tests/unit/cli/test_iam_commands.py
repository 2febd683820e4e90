"""`hyperpod iam-policy` (cli/iam_commands.py): the policy aws/iam.py derives, printed as JSON with no
credentials and no call; its scoping options' one-line errors; and `hyperpod fake serve --iam-policy`
refusing a policy file it will not enforce, in one line, before it listens."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.aws import iam
from pulumi_hyperpod.cli import main


@pytest.fixture
def no_credentials(monkeypatch, tmp_path):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


def test_it_prints_the_derived_policy_without_credentials(no_credentials):
    printed = CliRunner().invoke(main, ["iam-policy"])
    assert printed.exit_code == 0, printed.output
    assert json.loads(printed.output) == iam.policy()
    assert printed.output.startswith('{\n  "Version": "2012-10-17",')  # Version first, as policies are written


def test_features_and_scope_narrow_it(no_credentials):
    printed = CliRunner().invoke(
        main, ["iam-policy", "--feature", "events", "--feature", "drains", "--region", "eu-west-1", "--account", "111122223333"]
    )
    assert printed.exit_code == 0, printed.output
    statements = json.loads(printed.output)["Statement"]
    assert [(s["Sid"], s["Resource"]) for s in statements] == [
        ("EventsClusters", "arn:aws:sagemaker:eu-west-1:111122223333:cluster/*"),
        ("DrainsEksClusters", "arn:aws:eks:eu-west-1:111122223333:cluster/*"),
    ]


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--cluster", "leo-stg-hyperpod-cluster"], "error: --cluster: 'leo-stg-hyperpod-cluster' is neither a cluster's ARN nor its id"),
        (["--account", "1234"], "error: --account: '1234' is not an AWS account id (12 digits)"),
        (["--region", "us-west-99x"], "error: --region: 'us-west-99x' is not an AWS region"),
    ],
)
def test_a_bad_option_is_one_line_and_exit_1(no_credentials, args, line):
    printed = CliRunner().invoke(main, ["iam-policy", *args])
    assert printed.exit_code == 1
    assert printed.output.splitlines()[0].startswith(line) and len(printed.output.splitlines()) == 1


def test_fake_serve_refuses_a_policy_it_will_not_enforce_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(tmp_path / "fake.sqlite"))
    policy = tmp_path / "policy.json"
    policy.write_text(
        json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*", "Condition": {"Bool": {}}}]})
    )
    served = CliRunner().invoke(main, ["fake", "serve", "--port", "0", "--stop-after", "5", "--iam-policy", str(policy)])
    assert served.exit_code == 1
    assert (
        served.output
        == f"error: {policy}: Statement[0].Condition: conditions are not evaluated here: test a policy with conditions on AWS (IAM's policy simulator)\n"
    )
    assert not (tmp_path / "fake.sqlite").exists()  # refused before any world was opened
