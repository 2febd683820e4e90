"""One CLI (issue 38, "front ends once"): `hyperpod plan | apply | status | delete` written once over
the Cloud interface for both clouds; `hyperpod gcp plan|apply|status|delete` are the same command
objects; each cloud's options in their own section of --help, and refused in one line for the other."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from tests.support.cli import SPECS, hyperpod, use_fake_world
from tests.support.paths import REPO


GCP_EXAMPLE = REPO / "examples" / "gcp-training-cluster" / "cluster.json"
GCP_NAME = "projects/my-project/locations/us-central1/modelDevelopmentClusters/llmtrain"
AWS_SPEC = SPECS / "seed000-create-cluster.json"
AWS_NAME = json.loads(AWS_SPEC.read_text())["ClusterName"]
FOUR = ("plan", "apply", "status", "delete")


@pytest.fixture
def gcp_spec(tmp_path, monkeypatch) -> Path:
    use_fake_world(monkeypatch, tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    path = tmp_path / "gcp-cluster.json"
    shutil.copy(GCP_EXAMPLE, path)
    return path


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["--backend", "fake", *args], catch_exceptions=False)
    return result.exit_code, result.output


@pytest.mark.parametrize("name", FOUR)
def test_the_gcp_spelling_is_the_same_command(name):
    from pulumi_hyperpod.cli import app, gcp_commands

    assert gcp_commands.gcp_group.commands[name] is app.load_command(name)


def test_no_command_module_builds_a_click_context_or_calls_another_commands_callback():
    """Forwarding by hand-built contexts (`click.Context(group, …)`, `ctx.invoke(group.callback …)`)
    is what made two implementations of one command."""
    modules = sorted((REPO / "pulumi_hyperpod" / "cli").glob("*.py"))
    assert len(modules) > 5  # the package itself, not an empty folder
    for path in modules:
        text = path.read_text()
        assert not re.search(r"click\.Context\(", text), path.name
        assert ".callback" not in text, path.name


@pytest.mark.parametrize("name", FOUR)
def test_help_lists_each_clouds_options_in_its_own_section(name):
    code, output = run(name, "--help")
    assert code == 0
    sections = re.findall(r"^((?:\S[^\n]* )?options):$", output, flags=re.MULTILINE | re.IGNORECASE)
    assert sections[0] == "Options" and "Google Cloud options" in sections
    assert "[NAME]" not in output.split("Options:", 1)[1]  # an argument is in the usage line, not an option row
    google = output.split("Google Cloud options:", 1)[1]
    assert "--project" in google and "--location" in google and "--region" not in google
    if name in ("plan", "apply"):
        hyperpod_section = output.split("HyperPod options:", 1)[1].split("Google Cloud options:", 1)[0]
        assert "--lifecycle" in hyperpod_section and "--replace" in hyperpod_section and "--project" not in hyperpod_section


def test_a_gcp_cluster_from_the_top_level_commands(gcp_spec):
    """plan, apply, status (by -f, by NAME) and delete of a Google Cloud cluster without `gcp`."""
    assert "1 × CreateModelDevelopmentCluster" in hyperpod("plan", "-f", str(gcp_spec))
    hyperpod("apply", "-f", str(gcp_spec), "--yes")
    assert json.loads(hyperpod("status", GCP_NAME, "--json"))["state"] == "RUNNING"
    assert json.loads(hyperpod("status", "-f", str(gcp_spec), "--json"))["state"] == "RUNNING"
    deleted = hyperpod("delete", "-f", str(gcp_spec), "--yes")
    assert "outcome: done" in deleted and f"cluster {GCP_NAME} deleted" in deleted
    assert json.loads(hyperpod("status", GCP_NAME, "--json", code=1)) == {"exists": False}
    code, output = run("delete", GCP_NAME, "--yes")
    assert code == 1 and output.splitlines() == [
        f"error: no cluster {GCP_NAME} (check the name, --project and --location): nothing to delete"
    ]


def test_a_saved_gcp_plan_applies_from_the_top_level(gcp_spec, tmp_path):
    saved = tmp_path / "plan.json"
    hyperpod("plan", "-f", str(gcp_spec), "--out", str(saved))
    assert "CreateModelDevelopmentCluster" in hyperpod("apply", "--plan", str(saved), "--yes")
    assert json.loads(hyperpod("gcp", "status", "--name", GCP_NAME, "--json"))["state"] == "RUNNING"


def test_a_hyperpod_cluster_status_and_delete_by_name_or_spec(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    hyperpod("apply", "-f", str(AWS_SPEC), "--yes", "--wait", "none")
    assert json.loads(hyperpod("status", "-f", str(AWS_SPEC), "--json"))["name"] == AWS_NAME
    assert json.loads(hyperpod("status", "--name", AWS_NAME, "--json"))["name"] == AWS_NAME
    hyperpod("delete", AWS_NAME, "--yes")
    code, output = run("status", AWS_NAME)
    assert code == 1 and output.splitlines() == [f"error: no cluster {AWS_NAME} in us-west-2"]


@pytest.mark.parametrize(
    "args, line",
    [
        (("plan", "-f", str(AWS_SPEC), "--project", "p"), "--project, --location and --cluster-id are for Google Cloud clusters"),
        (("status", AWS_NAME, "--location", "us-central1"), "--project, --location and --cluster-id are for Google Cloud clusters"),
        (("gcp", "plan", "-f", str(GCP_EXAMPLE), "--lifecycle", "x"), "--lifecycle and --slurm are for HyperPod clusters"),
        (("gcp", "status", GCP_NAME, "--cloud", "aws"), "--cloud aws: `hyperpod gcp status` is for gcp clusters"),
        (("apply", "-f", str(AWS_SPEC), "--wait", "Target", "--no-wait", "--yes"), "--no-wait and --wait Target: give one"),
    ],
)
def test_an_option_of_the_other_cloud_is_one_line_exit_1(tmp_path, monkeypatch, args, line):
    use_fake_world(monkeypatch, tmp_path)
    code, output = run(*args)
    assert code == 1
    assert len(output.splitlines()) == 1 and line in output, output


def test_an_environment_variable_of_the_other_cloud_refuses_nothing(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "my-project")
    assert "CreateCluster" in hyperpod("plan", "-f", str(AWS_SPEC))


def test_the_commands_are_click_commands_of_one_class():
    from pulumi_hyperpod.cli import plan_commands

    assert all(isinstance(c, plan_commands.ClusterCommand) and isinstance(c, click.Command) for c in plan_commands.COMMANDS)
