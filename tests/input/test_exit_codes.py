"""Issue 12, items 8 and 11: a cluster that is not there, and files and options that are wrong, are
errors (exit 1) with a clear message; exit 2 means only "refused by a guard"."""

from __future__ import annotations

import json
import os

import pytest

from tests.support.input_cli import SPECS, run


@pytest.mark.parametrize(
    "command",
    [["delete", "--yes"], ["status"], ["nodes"], ["snapshot"], ["events"], ["sinfo"], ["cost"], ["cost", "--json"]],
)
def test_a_cluster_that_does_not_exist(world, command):
    result = run(command[0], "ghost", *command[1:])
    assert result.code == 1
    assert "error: no cluster ghost in us-west-2" in result.output
    assert "No changes" not in result.output


def test_status_json_of_a_cluster_that_does_not_exist_says_so_in_json(world):
    """Both clouds' `status --json` answer `{"exists": false}` on stdout, exit 1: a script reads one
    JSON document either way (Google Cloud's answer before the CLI was one)."""
    result = run("status", "ghost", "--json")
    assert result.code == 1 and json.loads(result.output) == {"exists": False}


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda d: d, "is a directory"),
        (lambda d: d / "missing.json", "no such file"),
        (lambda d: d / "not-a-dir.json" / "spec.json", "cannot read the file"),
        (lambda d: _write(d / "empty.json", b""), "the file is empty"),
        (lambda d: _write(d / "blank.yaml", b"   \n\n"), "the file is empty"),
        (lambda d: _write(d / "binary.json", bytes(range(256))), "binary"),
        (lambda d: _write(d / "latin1.yaml", "ClusterName: caf\xe9\n".encode("latin-1")), "not UTF-8"),
        (lambda d: _write(d / "spec.txt", (SPECS / "seed004-initial.json").read_bytes()), "ends in .json, .yaml or .yml"),
        (lambda d: _write(d / "spec", (SPECS / "seed004-initial.json").read_bytes()), "ends in .json, .yaml or .yml"),
    ],
)
@pytest.mark.parametrize(
    "command",
    [["plan", "-f"], ["apply", "--yes", "-f"], ["gcp", "plan", "-f"], ["plan", "-f", str(SPECS / "seed004-initial.json"), "--slurm"]],
)
def test_spec_files_that_cannot_be_read(world, tmp_path, make, words, command):
    (tmp_path / "not-a-dir.json").write_text("{}")
    path = make(tmp_path)
    result = run(*command, str(path))
    assert result.code == 1, result.output
    assert words in result.output and str(path) in result.output, result.output
    assert len(result.lines()) == 1, result.output  # one line from the file reader, never click's usage block


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_spec_file(world, tmp_path):
    path = tmp_path / "secret.json"
    path.write_text("{}")
    path.chmod(0)
    result = run("plan", "-f", str(path))
    assert result.code == 1 and "permission denied" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["plan"],  # -f is required
        ["plan", "-f"],  # -f needs a value
        ["plan", "-f", str(SPECS / "seed004-initial.json"), "--bogus"],
        ["apply", "-f", str(SPECS / "seed004-initial.json"), "--wait", "Forever"],
        ["no-such-command"],
        ["status"],  # NAME is required
        ["events", "c", "--limit", "0"],
        ["fake", "reset"],  # without --yes
        ["fake", "no-such-subcommand"],
    ],
)
def test_usage_errors_exit_1_not_2(world, args):
    result = run(*args)
    assert result.code == 1, (args, result.code, result.output)


def test_the_global_options_too(world):
    from click.testing import CliRunner

    from pulumi_hyperpod.cli import main

    result = CliRunner().invoke(main, ["--backend", "nowhere", "status", "c"])
    assert result.exit_code == 1 and "nowhere" in result.output


def test_a_directory_for_policy_and_observed(world, tmp_path):
    spec = str(SPECS / "seed004-initial.json")
    for option in ("--policy", "--observed"):
        for path in (tmp_path, tmp_path / "missing.json"):
            result = run("plan", "-f", spec, option, str(path))
            # one line naming the file, from the file reader (not click's multi-line usage block)
            assert result.code == 1 and str(path) in result.output, result.output
            assert "Usage:" not in result.output, result.output


def _write(path, content: bytes):
    path.write_bytes(content)
    return path


def test_no_confirmation_without_a_terminal_is_exit_1(world):
    """A usage error raised inside a command (no --yes and no terminal to ask on) exits 1 too."""
    assert run("apply", "-f", str(SPECS / "seed004-initial.json"), "--yes", "--wait", "none").code == 0
    result = run("delete", "leo-stg-hyperpod-cluster")
    assert result.code == 1 and "pass --yes" in result.output
    result = run("apply", "-f", str(SPECS / "seed004-scale-out.json"))
    assert result.code == 1 and "pass --yes" in result.output
