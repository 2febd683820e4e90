"""examples/gcp-training-cluster under the real Pulumi engine, on the simulator: one flow.

up (create, waits for RUNNING) → an empty preview → config change (a4 2 → 4, PreemptMode) whose
preview prints one PATCH with its mask and the per-key change, and `up` applies it → an immutable
change refused at check → destroy.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from pulumi_hyperpod.gcp.client import connect
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.gcp.observe import observe
from .conftest import (
    STACK,
    EngineProject,
    decoded_providers,
    engine_env,
    repo_venv,
)
from tests.support.paths import EXAMPLES

pytestmark = pytest.mark.engine

EXAMPLE = EXAMPLES / "gcp-training-cluster"
NAME = "projects/my-project/locations/us-central1/modelDevelopmentClusters/llmtrain"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> EngineProject:
    if shutil.which("pulumi") is None:
        pytest.skip("no `pulumi` CLI on PATH: run scripts/install, then `source scripts/env.sh`")
    base = tmp_path_factory.mktemp("gcp-engine")
    root = base / "project"
    root.mkdir()
    manifest = yaml.safe_load((EXAMPLE / "Pulumi.yaml").read_text())
    manifest["runtime"]["options"]["virtualenv"] = str(repo_venv())
    (root / "Pulumi.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    for name in ("__main__.py", "cluster.json"):
        shutil.copy(EXAMPLE / name, root / name)
    return EngineProject(root=root, env=engine_env(base))


@pytest.fixture(scope="module")
def world(project):
    path = Path(project.env["HYPERPOD_FAKE_STATE"]).with_name("gcp-fake.sqlite")
    return lambda: observe(connect("fake", simulator=GcpSimulator(path), poll_seconds=0), NAME)


def provider_lines(output: str) -> str:
    return "\n".join(dict.fromkeys(line[line.find("[hyperpod ") :] for line in output.splitlines() if "[hyperpod " in line))


def test_1_up_creates_the_cluster(project, world):
    project.run("stack", "init", STACK)
    up = project.run("up", "--yes")
    assert "CreateModelDevelopmentCluster" in provider_lines(up.output), up.describe()
    state = world()
    assert state.state == "RUNNING" and {p.id: p.running for p in state.pools} == {"login": 1, "a4": 2}
    outputs = json.loads(project.run("stack", "output", "--json").stdout)
    assert outputs["state"] == "RUNNING" and outputs["nodeCount"] == 3 and outputs["name"] == NAME
    export = project.export()
    for blob in [*decoded_providers(export), json.dumps(export).encode()]:  # no session or credential kept
        assert b"AuthorizedSession" not in blob and b"Credentials" not in blob and b"access_token" not in blob
    again = project.run("preview", "--expect-no-changes", check=False)
    assert again.returncode == 0, "preview right after `up` is not empty\n" + again.describe()


def test_2_preview_shows_one_patch_and_up_applies_it(project, world):
    project.config_set("a4Nodes", "4")
    project.config_set("preemptMode", "CANCEL")
    preview = project.run("preview")
    lines = provider_lines(preview.output)
    assert "PatchModelDevelopmentCluster" in lines and "CreateModelDevelopmentCluster" not in lines, preview.describe()
    assert "update mask: node_pools," in lines and "orchestrator_spec.slurm_spec.config" in lines, preview.describe()
    assert "PreemptMode: REQUEUE → CANCEL" in lines, preview.describe()
    assert world().pool("a4").target == 2, "a preview changed the cluster"
    project.run("up", "--yes", "--skip-preview")
    state = world()
    assert state.state == "RUNNING" and state.pool("a4").running == 4
    assert state.slurm["config"]["PreemptMode"] == "CANCEL"
    assert project.run("preview", "--expect-no-changes", check=False).returncode == 0


def test_3_an_immutable_change_is_refused_before_anything_runs(project, world):
    spec_path = project.root / "cluster.json"
    original = spec_path.read_text()
    doc = json.loads(original)
    doc["network"]["network"] = "projects/my-project/global/networks/other"
    spec_path.write_text(json.dumps(doc))
    try:
        preview = project.run("preview", check=False)
    finally:
        spec_path.write_text(original)
    assert preview.returncode != 0 and "replaces the cluster" in preview.output, preview.describe()
    # issue 31: the field's path, both values whole, the example's own knob — and not the whole spec
    failure = next(line for line in preview.output.splitlines() if "replaces the cluster" in line)
    assert "spec.network.network" in failure and "pulumi config set allowReplacement true" in failure
    assert "projects/my-project/global/networks/training-net → projects/my-project/global/networks/other" in failure
    assert "node_pools" not in failure and "prolog" not in failure
    assert world().body["network"]["network"].endswith("/training-net")


def test_4_destroy_deletes_the_cluster(project, world):
    down = project.run("destroy", "--yes")
    assert "DeleteModelDevelopmentCluster" in provider_lines(down.output), down.describe()
    assert world() is None
