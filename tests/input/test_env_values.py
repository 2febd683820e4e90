"""Environment values are inputs too: a bad HYPERPOD_FAKE_STATE / HYPERPOD_GCP_FAKE_STATE (a
directory, /dev/null, a file that is not a database), HYPERPOD_MAX_ATTEMPTS, HYPERPOD_POLL_SECONDS,
HYPERPOD_FAKE_SCENARIO, the GCP simulator's tick and capacity, or AWS_REGION is one error line
naming the variable, exit 1, no traceback, nothing deleted."""

from __future__ import annotations

import shutil

import pytest

from tests.support.input_cli import SPECS, run

NAME = "my-training-cluster"


def _one_error_naming(result, variable: str) -> str:
    assert result.code == 1, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and variable in errors[0], result.output
    return errors[0]


def _bad_state(tmp_path, kind: str) -> str:
    if kind == "directory":
        return str(tmp_path)
    if kind == "dev-null":
        return "/dev/null"
    (tmp_path / "notes.txt").write_text("my notes, not a database\n")
    return str(tmp_path / "notes.txt")


@pytest.mark.parametrize("kind", ["directory", "dev-null", "not-a-database"])
def test_a_bad_fake_state_names_the_variable(world, tmp_path, monkeypatch, kind):
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", _bad_state(tmp_path, kind))

    _one_error_naming(run("status", NAME), "HYPERPOD_FAKE_STATE")


def test_fake_reset_never_deletes_a_file_that_is_not_a_world(world, tmp_path, monkeypatch):
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", _bad_state(tmp_path, "not-a-database"))

    _one_error_naming(run("fake", "reset", "--yes"), "HYPERPOD_FAKE_STATE")

    assert (tmp_path / "notes.txt").read_text() == "my notes, not a database\n"


@pytest.mark.parametrize("kind", ["directory", "dev-null", "not-a-database"])
def test_a_bad_gcp_fake_state_names_the_variable(world, tmp_path, monkeypatch, kind):
    from tests.support.gcp import EXAMPLE

    shutil.copy(EXAMPLE, tmp_path / "gcp-cluster.json")
    monkeypatch.setenv("HYPERPOD_GCP_FAKE_STATE", _bad_state(tmp_path, kind))

    _one_error_naming(run("gcp", "plan", "-f", "gcp-cluster.json"), "HYPERPOD_GCP_FAKE_STATE")


@pytest.mark.parametrize(
    "variable, value, args",
    [
        ("HYPERPOD_MAX_ATTEMPTS", "lots", ("status", NAME)),
        ("HYPERPOD_MAX_ATTEMPTS", "0", ("status", NAME)),
        ("HYPERPOD_POLL_SECONDS", "soon", ("apply", "-f", str(SPECS / "seed000-create-cluster.json"), "--yes")),
        ("HYPERPOD_POLL_SECONDS", "-1", ("apply", "-f", str(SPECS / "seed000-create-cluster.json"), "--yes")),
        ("HYPERPOD_FAKE_SCENARIO", "no-such-scenario.yaml", ("status", NAME)),
        ("AWS_REGION", "us west 2", ("status", NAME)),
    ],
)
def test_other_bad_variables_name_themselves(world, monkeypatch, variable, value, args):
    monkeypatch.setenv(variable, value)

    _one_error_naming(run(*args), variable)


@pytest.mark.parametrize(
    "variable, value",
    [
        ("HYPERPOD_GCP_FAKE_TICK", "fast"),
        ("HYPERPOD_GCP_FAKE_CAPACITY", "{a4: 2"),
        ("HYPERPOD_GCP_FAKE_CAPACITY", '{"a4-highgpu-8g": "many"}'),
    ],
)
def test_bad_gcp_simulator_variables_name_themselves(world, tmp_path, monkeypatch, variable, value):
    from tests.support.gcp import EXAMPLE

    shutil.copy(EXAMPLE, tmp_path / "gcp-cluster.json")
    monkeypatch.setenv(variable, value)

    _one_error_naming(run("gcp", "plan", "-f", "gcp-cluster.json"), variable)


def test_a_deep_scenario_file_names_the_variable(world, tmp_path, monkeypatch):
    (tmp_path / "scenario.json").write_text("[" * 50_000 + "]" * 50_000)
    monkeypatch.setenv("HYPERPOD_FAKE_SCENARIO", str(tmp_path / "scenario.json"))

    _one_error_naming(run("status", NAME), "HYPERPOD_FAKE_SCENARIO")
