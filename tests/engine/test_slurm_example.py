"""The Slurm example, for real: `pulumi up` on the simulator, then `hyperpod sinfo` shows its
partitions and slurm.conf its settings; a Slurm setting changed in slurm.json is a new bundle that
the cluster's groups move to (the running controller keeps what it was built with)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pulumi_hyperpod.sim.aws import Simulator
from tests.support.slurm_examples import EXAMPLE
from tests.support.paths import REPO

pytestmark = pytest.mark.engine


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    if shutil.which("pulumi") is None:
        pytest.skip("no `pulumi` CLI on PATH: run scripts/install, then `source scripts/env.sh`")
    base = tmp_path_factory.mktemp("slurm-engine")
    root = base / "project"
    shutil.copytree(EXAMPLE, root)
    venv = REPO / ".venv" if (REPO / ".venv" / "bin" / "python").exists() else Path(sys.prefix)
    text = (root / "Pulumi.yaml").read_text().replace("../../.venv", str(venv))
    (root / "Pulumi.yaml").write_text(text)
    (base / "home").mkdir()
    (base / "state").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PULUMI_", "HYPERPOD_FAKE", "AWS_PROFILE"))}
    env.update(
        PULUMI_HOME=str(base / "home"),
        PULUMI_BACKEND_URL=f"file://{base / 'state'}",
        PULUMI_CONFIG_PASSPHRASE="x",
        PULUMI_SKIP_UPDATE_CHECK="true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION="true",
        HYPERPOD_FAKE_STATE=str(base / "fake.sqlite"),
        PYTHONPATH=str(REPO),
        AWS_REGION="us-west-2",
    )
    run(root, env, "stack", "init", "dev")
    return root, env


def run(root: Path, env: dict, *args: str) -> str:
    result = subprocess.run(
        ["pulumi", *args, "--non-interactive"], cwd=root, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def hyperpod(env: dict, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", "from pulumi_hyperpod.cli import main; main()", "--backend", "fake", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_pulumi_up_runs_the_example_and_sinfo_shows_its_partition(project):
    root, env = project
    run(root, env, "up", "--yes", "--skip-preview")
    outputs = json.loads(run(root, env, "stack", "output", "--json"))
    assert outputs["status"] == "InService"
    assert outputs["lifecycleS3Uri"].startswith("s3://sagemaker-hyperpod-a4-training/slurm-bundles/")
    sinfo = hyperpod(env, "sinfo", "a4-training")
    assert "a4*" in sinfo
    conf = Simulator(env["HYPERPOD_FAKE_STATE"]).slurm_conf("a4-training")
    assert "PreemptMode=REQUEUE" in conf and "Include /opt/slurm/etc/slurm-spec.conf" in conf


def test_a_changed_setting_is_a_new_bundle_and_the_running_controller_keeps_its_own(project):
    root, env = project
    before = json.loads(run(root, env, "stack", "output", "--json"))["lifecycleS3Uri"]
    slurm = json.loads((root / "slurm.json").read_text())
    slurm["config"]["PreemptMode"] = "CANCEL"
    (root / "slurm.json").write_text(json.dumps(slurm, indent=2))
    run(root, env, "up", "--yes", "--skip-preview")
    after = json.loads(run(root, env, "stack", "output", "--json"))["lifecycleS3Uri"]
    assert after != before
    sim = Simulator(env["HYPERPOD_FAKE_STATE"])
    assert "PreemptMode=REQUEUE" in sim.slurm_conf("a4-training")  # built with the first bundle
    groups = {n["InstanceGroupName"] for n in sim.node_build_configs("a4-training")}
    assert groups == {"controller", "login", "a4"}
    run(root, env, "destroy", "--yes", "--skip-preview")
