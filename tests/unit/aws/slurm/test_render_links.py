"""Issue 24 item 10: `slurm render` never writes through a symbolic link already in its output
folder and never chmods anything outside it; `--base` refuses a link out of the base folder (its
content would be uploaded in the bundle) and keeps links that stay inside, folders included."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import main

from tests.support.slurm_examples import example_cluster, example_slurm


@pytest.fixture
def specs(tmp_path):
    (tmp_path / "cluster.json").write_text(json.dumps(example_cluster()))
    (tmp_path / "slurm.json").write_text(json.dumps(example_slurm()))
    return tmp_path


def render(specs, out, *extra) -> tuple[int, str]:
    result = CliRunner().invoke(
        main, ["slurm", "render", "-f", str(specs / "cluster.json"), "--slurm", str(specs / "slurm.json"), "--out", str(out), *extra]
    )
    return result.exit_code, result.output


@pytest.mark.parametrize("link", ["on_create.sh", "slurm_spec_hook.py", "prolog.d"])
def test_a_link_in_the_output_folder_is_refused_and_its_target_untouched(specs, tmp_path, link):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    victim = elsewhere / "precious"
    victim.write_text("keep me\n")
    victim.chmod(0o600)
    bundle = tmp_path / "out" / "lifecycle"
    bundle.mkdir(parents=True)
    os.symlink(victim if link != "prolog.d" else elsewhere, bundle / link)
    code, output = render(specs, tmp_path / "out")
    assert code == 1 and "symbolic link" in output, output
    assert victim.read_text() == "keep me\n" and (victim.stat().st_mode & 0o777) == 0o600
    assert sorted(p.name for p in elsewhere.iterdir()) == ["precious"]


def test_the_lifecycle_folder_itself_as_a_link_is_refused(specs, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "out").mkdir()
    os.symlink(elsewhere, tmp_path / "out" / "lifecycle")
    code, output = render(specs, tmp_path / "out")
    assert code == 1 and "symbolic link" in output
    assert list(elsewhere.iterdir()) == []


def test_rendering_again_into_its_own_folder_works_and_sets_modes(specs, tmp_path):
    assert render(specs, tmp_path / "out")[0] == 0
    assert render(specs, tmp_path / "out")[0] == 0
    hook = tmp_path / "out" / "lifecycle" / "on_create.sh"
    assert hook.stat().st_mode & 0o777 == 0o755
    assert (tmp_path / "out" / "lifecycle" / "slurm-spec.json").stat().st_mode & 0o777 == 0o644


def base_folder(tmp_path):
    base = tmp_path / "base"
    (base / "utils").mkdir(parents=True)
    (base / "on_create.sh").write_text("#!/bin/bash\necho base\n")
    (base / "utils" / "setup.sh").write_text("echo setup\n")
    return base


def test_a_base_link_out_of_the_folder_is_refused(specs, tmp_path):
    base = base_folder(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("credentials\n")
    os.symlink(secret, base / "utils" / "config.txt")
    code, output = render(specs, tmp_path / "out", "--base", str(base))
    assert code == 1 and "outside the base folder" in output.replace("\n", "")
    assert not (tmp_path / "out" / "lifecycle").exists()


def test_a_base_folder_link_out_is_refused_not_dropped(specs, tmp_path):
    base = base_folder(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.sh").write_text("echo x\n")
    os.symlink(outside, base / "more")
    code, output = render(specs, tmp_path / "out", "--base", str(base))
    assert code == 1 and "outside the base folder" in output.replace("\n", "")


def test_base_links_inside_the_folder_are_followed_folders_included(specs, tmp_path):
    base = base_folder(tmp_path)
    os.symlink(base / "utils" / "setup.sh", base / "setup-link.sh")
    os.symlink(base / "utils", base / "tools")
    code, output = render(specs, tmp_path / "out", "--base", str(base), "--json")
    assert code == 0, output
    files = json.loads(output)["files"]
    assert {"setup-link.sh", "tools/setup.sh", "utils/setup.sh", "on_create_base.sh"} <= set(files)
    assert (tmp_path / "out" / "lifecycle" / "tools" / "setup.sh").read_text() == "echo setup\n"
    assert not (tmp_path / "out" / "lifecycle" / "tools").is_symlink()


def test_a_base_link_loop_is_refused(specs, tmp_path):
    base = base_folder(tmp_path)
    os.symlink(base / "utils", base / "utils" / "again")
    code, output = render(specs, tmp_path / "out", "--base", str(base))
    assert code == 1 and "loop" in output
