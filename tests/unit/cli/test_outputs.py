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
    from tests.support.gcp import EXAMPLE

    use_fake_world(monkeypatch, tmp_path)
    shutil.copy(EXAMPLE, tmp_path / "gcp-cluster.json")
    before = (tmp_path / "gcp-cluster.json").read_text()

    result = CliRunner().invoke(main, ["--backend", "fake", "gcp", "plan", "-f", "gcp-cluster.json", "--out", "gcp-cluster.json"])

    assert result.exit_code == 1 and "is the input file" in result.output, result.output
    assert (tmp_path / "gcp-cluster.json").read_text() == before


# ---- issue 36 item 9: every output of every command, against every input, the worlds and the clock ----
import re
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable

import click

from pulumi_hyperpod.cli.outputs import OutputPath
from tests.support.paths import EXAMPLES

SLURM_EXAMPLE = EXAMPLES / "slurm-training-cluster"
OUTPUT_NAMES = {"--out", "--output", "-o", "--save", "--dest", "--to", "--write"}
OUTPUT_HELP = re.compile(r"\b(write|writes|save|saves|draw|draws)\b", re.IGNORECASE)


def click_commands() -> list[tuple[str, click.Command]]:
    """Every command of `hyperpod`, by its path ("gcp plan")."""
    found: list[tuple[str, click.Command]] = []

    def walk(command: click.Command, path: list[str], ctx: click.Context) -> None:
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                assert sub is not None
                walk(sub, [*path, name], click.Context(sub, parent=ctx, info_name=name))
        else:
            found.append((" ".join(path), command))

    walk(main, [], click.Context(main, info_name="hyperpod"))
    return found


@dataclass(frozen=True)
class Recipe:
    """How to run a command writing its output at `{out}`, which of its inputs it reads, and the output
    value that makes it write over a given file."""

    args: tuple[str, ...]
    inputs: tuple[str, ...]  # files under the test directory, given to the command
    aim: Callable[[Path], Path] = field(default=lambda path: path)


def _bundle_folder(path: Path) -> Path:
    """`slurm render --out DIR` writes DIR/cluster.json and DIR/lifecycle/*: the DIR that covers `path`."""
    return path.parent.parent if path.parent.name == "lifecycle" else path.parent


RECIPES: dict[tuple[str, str], Recipe] = {
    ("plan", "out_file"): Recipe(
        ("plan", "-f", "spec.json", "--observed", "snapshot.json", "--policy", "policy.json", "--out", "{out}"),
        ("spec.json", "snapshot.json", "policy.json"),
    ),
    ("gcp plan", "out_file"): Recipe(
        ("gcp", "plan", "-f", "gcp.json", "--policy", "policy.json", "--out", "{out}"), ("gcp.json", "policy.json")
    ),
    ("timeline", "out_file"): Recipe(("timeline", "leo-stg-hyperpod-cluster", "--out", "{out}"), ()),
    ("fleet plan", "out_file"): Recipe(
        ("fleet", "plan", "fleet.yaml", "--policy", "fleet.rego", "--out", "{out}"), ("fleet.yaml", "fleet.rego")
    ),
    ("slurm render", "out_dir"): Recipe(
        ("slurm", "render", "-f", "specs/cluster.json", "--slurm", "slurm/lifecycle/slurm.json", "--out", "{out}"),
        ("specs/cluster.json", "slurm/lifecycle/slurm.json"),
        _bundle_folder,
    ),
}


def test_every_output_option_is_declared_and_has_a_recipe():
    """An option that writes a file is an OutputPath (so outputs.py checks it) with a recipe here (so it
    is tried below against every input): a new one fails this test until it is both."""
    outputs = set()
    for path, command in click_commands():
        for param in command.params:
            looks = bool(OUTPUT_NAMES & set(param.opts)) or bool(OUTPUT_HELP.search(getattr(param, "help", None) or ""))
            if isinstance(param.type, OutputPath) or looks:
                assert isinstance(param.type, OutputPath), f"{path} {param.opts}: declare it OutputPath (cli/outputs.py)"
                outputs.add((path, param.name))
            elif any(word in (param.name or "") for word in ("file", "path", "dir", "snapshot", "lifecycle", "kubeconfig")) and not (
                param.name or ""
            ).endswith("_uri"):  # an s3:// address is not a local file
                assert isinstance(param.type, click.Path), f"{path} {param.opts}: a file it reads is a click.Path (outputs.py reads them)"
    assert outputs == set(RECIPES)


@pytest.fixture
def files(tmp_path, monkeypatch):
    """Both worlds and the clock, made, under tmp/lifecycle/; the commands' input files beside them."""
    from tests.support.gcp import EXAMPLE

    worlds = tmp_path / "lifecycle"
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(worlds / "fake.sqlite"))
    monkeypatch.setenv("HYPERPOD_POLL_SECONDS", "0.05")
    monkeypatch.chdir(tmp_path)
    shutil.copy(SPECS / "seed004-initial.json", tmp_path / "spec.json")
    shutil.copy(EXAMPLE, tmp_path / "gcp.json")
    (tmp_path / "policy.json").write_text("{}\n")
    (tmp_path / "fleet.yaml").write_text("stacks:\n  - {name: a, project: ., stack: a, region: us-west-2, backend: fake}\n")
    (tmp_path / "fleet.rego").write_text("package hyperpod.fleet\n")
    (tmp_path / "specs").mkdir()
    (tmp_path / "slurm" / "lifecycle").mkdir(parents=True)
    shutil.copy(SLURM_EXAMPLE / "cluster.json", tmp_path / "specs" / "cluster.json")
    shutil.copy(SLURM_EXAMPLE / "slurm.json", tmp_path / "slurm" / "lifecycle" / "slurm.json")
    hyperpod("apply", "-f", "spec.json", "--yes", "--wait", "none")
    (tmp_path / "snapshot.json").write_text(hyperpod("snapshot", "leo-stg-hyperpod-cluster"))
    hyperpod("gcp", "plan", "-f", "gcp.json")
    return tmp_path


WORLDS = ("lifecycle/fake.sqlite", "lifecycle/gcp-fake.sqlite", "lifecycle/clock.sqlite", "lifecycle/fake.sqlite-wal")


@pytest.mark.parametrize("output", sorted(RECIPES), ids=lambda key: f"{key[0]}-{key[1]}")
def test_no_output_overwrites_an_input_or_a_world(files, output):
    recipe = RECIPES[output]
    for target in (*recipe.inputs, *WORLDS):
        path = files / target
        assert path.exists(), target
        before = path.read_bytes(), os.stat(path).st_mode
        out = str(recipe.aim(path))

        result = CliRunner().invoke(main, ["--backend", "fake", *(arg.replace("{out}", out) for arg in recipe.args)])

        errors = [line for line in result.output.splitlines() if line.startswith("error:")]
        assert result.exit_code == 1 and len(errors) == 1, (target, result.output)
        # both named: the output, and the input (a folder written whole names the first input in it)
        assert errors[0].startswith(f"error: {out}: ") and any(name in errors[0] for name in (target, *WORLDS)), errors[0]
        assert "never overwritten" in errors[0], errors[0]
        assert (path.read_bytes(), os.stat(path).st_mode) == before, target


def test_a_world_not_made_yet_is_not_written_over_either(tmp_path, monkeypatch):
    """`plan --out "$HYPERPOD_FAKE_STATE"` in a fresh directory: the plan would be saved where the
    command is about to make the world it reads."""
    use_fake_world(monkeypatch, tmp_path)
    shutil.copy(SPECS / "seed004-initial.json", tmp_path / "spec.json")

    result = plan_out("--out", str(tmp_path / "fake.sqlite"))

    assert result.exit_code == 1 and "is the HyperPod simulator's world ($HYPERPOD_FAKE_STATE)" in result.output, result.output
    assert not (tmp_path / "fake.sqlite").exists()
