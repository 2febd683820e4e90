"""One Pulumi YAML program, two clouds (examples/yaml-two-clouds): seed 004's HyperPod cluster and
seed 002's Google Cloud training cluster through the native provider under the real engine, on the
simulators — preview shows both plans, up creates both, the next preview is empty, destroy removes
both."""

from __future__ import annotations

import json

import pytest
import yaml

from pulumi_hyperpod.gcp.client import connect as gcp_connect
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.gcp.observe import observe

from .conftest import PLUGIN_DIR, REPO, STACK, EngineProject, engine_env, require_yaml_host
from .stack import World, provider_lines

pytestmark = pytest.mark.engine

EXAMPLE = REPO / "examples" / "yaml-two-clouds"
GCP_NAME = "projects/my-project/locations/us-central1/modelDevelopmentClusters/llmtrain"


@pytest.fixture(scope="module")
def project(pulumi_cli: str, tmp_path_factory: pytest.TempPathFactory) -> EngineProject:
    require_yaml_host(pulumi_cli)
    base = tmp_path_factory.mktemp("two-clouds")
    root = base / "project"
    root.mkdir()
    program = yaml.safe_load((EXAMPLE / "Pulumi.yaml").read_text())
    program["plugins"]["providers"][0]["path"] = str(PLUGIN_DIR)
    for resource in program["resources"].values():  # the spec files, where the copy can find them
        resource["properties"]["specFile"] = str((EXAMPLE / resource["properties"]["specFile"]).resolve())
    (root / "Pulumi.yaml").write_text(yaml.safe_dump(program, sort_keys=False))
    env = engine_env(base)
    env["HYPERPOD_GCP_FAKE_STATE"] = str(base / "world" / "gcp.sqlite")
    return EngineProject(root=root, env=env)


def test_both_clouds_preview_up_and_destroy(project: EngineProject) -> None:
    project.run("stack", "init", STACK)
    preview = project.run("preview")
    lines = "\n".join(provider_lines(preview.output))
    assert "CreateCluster" in lines and "CreateModelDevelopmentCluster" in lines, preview.describe()

    up = project.run("up", "--yes", "--skip-preview", timeout=600)
    # the create's preflight, in the shared slot (a preview of a create reads nothing, on either cloud)
    assert "Regional quotas in us-central1" in "\n".join(provider_lines(up.output)), up.describe()
    outputs = json.loads(project.run("stack", "output", "--json").stdout)
    assert outputs["hyperpodStatus"] == "InService" and outputs["gcpState"] == "RUNNING", outputs
    assert outputs["gcpNodes"] == 3
    hyperpod = World(project)
    assert [c["ClusterName"] for c in hyperpod.clusters()] == ["leo-stg-hyperpod-cluster"]
    gcp = gcp_connect("fake", simulator=GcpSimulator(project.env["HYPERPOD_GCP_FAKE_STATE"]), poll_seconds=0)
    assert observe(gcp, GCP_NAME).state == "RUNNING"
    state = [r for r in project.export()["deployment"]["resources"] if r["type"].startswith("hyperpod:index:")]
    assert {r["type"] for r in state} == {"hyperpod:index:Cluster", "hyperpod:index:GcpTrainingCluster"}
    assert all("__provider" not in r.get("outputs", {}) for r in state), "nothing is pickled into the state"

    again = project.run("preview", "--expect-no-changes", check=False)
    assert again.returncode == 0, "preview right after `up` is not empty\n" + again.describe()

    project.run("destroy", "--yes", "--skip-preview", timeout=600)
    assert observe(gcp, GCP_NAME) is None
