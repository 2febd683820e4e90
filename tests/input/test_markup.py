"""Issue 12, item 1: no user-supplied string is ever read as rich markup. `[/x]` would end in a
MarkupError traceback; `[bold]` or `[a-zA-Z0-9]` would silently vanish from the message."""

from __future__ import annotations

import json

import pytest

from tests.support.input_cli import SPECS, run

PATTERN = "[a-zA-Z0-9](-*[a-zA-Z0-9])*"  # ClusterName's pattern in the service model


def _spec(tmp_path, name="spec.json", **changes):
    data = json.loads((SPECS / "seed004-initial.json").read_text())
    data.update(changes)
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path, data


@pytest.mark.parametrize("command", ["plan", "apply"])
def test_a_missing_file_whose_name_looks_like_markup(world, command):
    result = run(command, "-f", "nope[/x].json", "--yes") if command == "apply" else run(command, "-f", "nope[/x].json")
    assert result.code == 1
    assert "nope[/x].json: no such file" in result.output


@pytest.mark.parametrize("name", ["a[/bogus]", "[bold red]x", "[link=http://example.com]x"])
def test_cluster_name_and_the_pattern_print_intact(world, tmp_path, name):
    path, _ = _spec(tmp_path, ClusterName=name)
    result = run("plan", "-f", str(path))
    assert result.code == 1
    assert f"ClusterName: {name!r} does not match the pattern {PATTERN}" in result.output


def test_group_name_tag_and_unknown_key_print_intact(world, tmp_path):
    data = json.loads((SPECS / "seed004-initial.json").read_text())
    data["InstanceGroups"][1]["InstanceGroupName"] = "g[/bogus]"
    data["Tags"] = [{"Key": "team[/x]", "Value": "ml"}]
    data["[/unknown]"] = 1
    (tmp_path / "spec.json").write_text(json.dumps(data))
    output = run("plan", "-f", str(tmp_path / "spec.json")).output
    assert "InstanceGroups[1].InstanceGroupName: 'g[/bogus]' does not match the pattern" in output
    assert "Tags[0].Key: 'team[/x]' does not match the pattern ([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)" in output
    assert "[/unknown]: is not a known field" in output


def test_a_policy_file_with_markup_in_a_key(world, tmp_path):
    path, _ = _spec(tmp_path)
    (tmp_path / "policy.yaml").write_text("'[/bogus]': 1\n")
    result = run("plan", "-f", str(path), "--policy", str(tmp_path / "policy.yaml"))
    assert result.code == 1
    assert "policy.yaml: [/bogus]: is not a known field" in result.output


@pytest.mark.parametrize("command", [["status"], ["nodes"], ["snapshot"], ["delete", "--yes"], ["events"], ["sinfo"], ["cost"]])
def test_every_name_argument(world, command):
    result = run(command[0], "a[/b]", *command[1:])
    assert result.code == 1
    name_or_arn = (
        "((arn:aws[a-z\\-]*:sagemaker:[a-z0-9\\-]*:[0-9]{12}:cluster/[a-z0-9]{12})|"
        "([a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}))"
    )  # DescribeCluster's ClusterName: a name or an ARN
    assert result.lines() == [f"error: NAME: 'a[/b]' does not match the pattern {name_or_arn}"], result.output


def test_a_service_error_message_is_printed_as_sent(world, tmp_path, monkeypatch):
    """A ClientError's message is the service's text: printed exactly, brackets included."""
    from botocore.exceptions import ClientError

    from pulumi_hyperpod.aws.cloud import AwsCloud

    def failing(self, client, name):
        raise ClientError({"Error": {"Code": "ValidationException", "Message": "bad [/thing] here [bold]x"}}, "DescribeCluster")

    monkeypatch.setattr(AwsCloud, "read", failing)  # the seam `hyperpod status` reads through
    result = run("status", "my-cluster")
    assert result.code == 1
    assert "DescribeCluster: ValidationException: bad [/thing] here [bold]x" in result.output


def test_a_failure_message_in_the_status_table(world, monkeypatch):
    """Text the service returns (a FailureMessage) goes into tables as it is."""
    from pulumi_hyperpod.aws.cloud import AwsCloud
    from pulumi_hyperpod.aws.observe import ClusterState

    state = ClusterState.from_api(
        {
            "ClusterName": "c",
            "ClusterArn": "arn:aws:sagemaker:us-west-2:1:cluster/c",
            "ClusterStatus": "Failed",
            "FailureMessage": "quota [/x] exceeded",
            "InstanceGroups": [],
        },
        [],
    )
    monkeypatch.setattr(AwsCloud, "read", lambda self, client, name: state)
    result = run("status", "c")
    assert result.code == 0, result.output
    assert "quota [/x] exceeded" in result.output


def test_a_prices_file_path_in_the_cost_caption(world, tmp_path, monkeypatch):
    assert run("apply", "-f", str(SPECS / "seed004-initial.json"), "--yes", "--wait", "none").code == 0
    (tmp_path / "p[").mkdir()
    prices = tmp_path / "p[" / "x]prices.yaml"  # the path holds `[/x]`
    prices.write_text("{}\n")
    monkeypatch.setenv("HYPERPOD_PRICES", str(prices))
    result = run("cost", "leo-stg-hyperpod-cluster")
    assert result.code == 0, result.output
    assert "p[/x]prices.yaml" in result.output.replace("\n", "")
