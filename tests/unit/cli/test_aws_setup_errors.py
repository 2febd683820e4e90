"""`hyperpod plan` on AWS with no region or no credentials set up (issue 39): one line naming how to
set what is missing (core/messages.py's table, the CLI's hint), never botocore's bare "You must
specify a region." or "Unable to locate credentials"; exit 1."""

from __future__ import annotations

from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.core.messages import NO_AWS_CREDENTIALS, NO_AWS_REGION
from tests.support.aws_env import no_aws_config
from tests.support.paths import SPECS

SPEC = str(SPECS / "seed000-create-cluster.json")


def plan(*options: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, [*options, "plan", "-f", SPEC], catch_exceptions=False)
    return result.exit_code, result.stderr


def test_plan_without_backend_or_region_names_where_to_set_the_region(monkeypatch, tmp_path):
    no_aws_config(monkeypatch, tmp_path)
    code, err = plan()
    assert (code, err) == (1, f"error: {NO_AWS_REGION.text('cli')}\n")
    assert "--region" in err and "AWS_REGION" in err and "AWS_DEFAULT_REGION" in err and "profile's config" in err


def test_plan_without_credentials_says_so_in_one_line(monkeypatch, tmp_path):
    no_aws_config(monkeypatch, tmp_path)
    code, err = plan("--region", "us-west-2")
    assert (code, err) == (1, f"error: {NO_AWS_CREDENTIALS.text('cli')}\n")
