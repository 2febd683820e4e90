"""`hyperpod plan --out` writes only where asked: a regular file or a new path, never a device, a
FIFO, a directory or a symlink (refused, left as it was), never one of the command's input files;
said in one line before any call."""

from __future__ import annotations

import os
import shutil

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from tests.support.cli import SPECS, hyperpod, use_fake_world


@pytest.fixture
def world(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    shutil.copy(SPECS / "seed004-initial.json", tmp_path / "spec.json")
    hyperpod("apply", "-f", "spec.json", "--yes", "--wait", "none")
    return tmp_path


def plan_out(*args: str):
    return CliRunner().invoke(main, ["--backend", "fake", "plan", "-f", "spec.json", *args])


def test_the_spec_itself_is_never_the_output(world):
    before = (world / "spec.json").read_text()

    result = plan_out("--out", "spec.json")

    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1].startswith("error: spec.json: the plan cannot be saved (is the input file")
    assert (world / "spec.json").read_text() == before


@pytest.mark.parametrize("option", ["--policy", "--observed"])
def test_no_other_input_is_the_output_either(world, option):
    if option == "--policy":
        (world / "input.json").write_text("{}")
    else:
        (world / "input.json").write_text(hyperpod("snapshot", "leo-stg-hyperpod-cluster"))
    before = (world / "input.json").read_text()

    result = plan_out(option, "input.json", "--out", "./input.json")

    assert result.exit_code == 1 and "is the input file" in result.output, result.output
    assert (world / "input.json").read_text() == before


def test_a_fifo_is_refused_at_once(world):
    os.mkfifo(world / "pipe")

    result = plan_out("--out", "pipe")

    assert result.exit_code == 1 and "named pipe" in result.output
    assert (world / "pipe").is_fifo()


def test_a_symlink_is_refused_and_what_it_points_at_untouched(world):
    (world / "elsewhere").write_text("keep me")
    (world / "p.json").symlink_to(world / "elsewhere")

    result = plan_out("--out", "p.json")

    assert result.exit_code == 1 and "symbolic link" in result.output
    assert (world / "p.json").is_symlink() and (world / "elsewhere").read_text() == "keep me"


def test_gcp_plan_out_never_overwrites_its_spec(tmp_path, monkeypatch):
    from tests.gcp.conftest import EXAMPLE

    use_fake_world(monkeypatch, tmp_path)
    shutil.copy(EXAMPLE, tmp_path / "gcp-cluster.json")
    before = (tmp_path / "gcp-cluster.json").read_text()

    result = CliRunner().invoke(main, ["--backend", "fake", "gcp", "plan", "-f", "gcp-cluster.json", "--out", "gcp-cluster.json"])

    assert result.exit_code == 1 and "is the input file" in result.output, result.output
    assert (tmp_path / "gcp-cluster.json").read_text() == before
