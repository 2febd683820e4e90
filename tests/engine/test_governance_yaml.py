"""Task governance through the native provider under the real engine, from Pulumi YAML: a
`hyperpod:index:ComputeQuota` created, changed in one member (a config value), destroyed; after each
`up`, `pulumi preview` shows no changes (native/governance.py)."""

from __future__ import annotations

import json

import pytest
import yaml

from pulumi_hyperpod.sim.aws import Simulator
from tests.support.paths import GOVERNANCE
from tests.support.sim_helpers import eks_request, group

from .conftest import PLUGIN_DIR, STACK, EngineProject, engine_env, require_yaml_host

pytestmark = pytest.mark.engine


def _project(root, spec: dict) -> None:
    spec = {**spec, "ComputeQuotaTarget": {**spec["ComputeQuotaTarget"], "FairShareWeight": "${weight}"}}
    program = {
        "name": "governance-yaml",
        "runtime": "yaml",
        "plugins": {"providers": [{"name": "hyperpod", "path": str(PLUGIN_DIR)}]},
        "config": {"hyperpod:backend": "fake", "weight": {"type": "integer", "default": 10}},
        "resources": {"teamA": {"type": "hyperpod:index:ComputeQuota", "properties": {"spec": spec}}},
        "outputs": {"version": "${teamA.version}", "resourceId": "${teamA.resourceId}"},
    }
    root.mkdir(parents=True, exist_ok=True)
    (root / "Pulumi.yaml").write_text(yaml.safe_dump(program, sort_keys=False))


@pytest.fixture(scope="module")
def project(pulumi_cli: str, tmp_path_factory: pytest.TempPathFactory) -> EngineProject:
    require_yaml_host(pulumi_cli)
    base = tmp_path_factory.mktemp("governance-yaml")
    spec = json.loads((GOVERNANCE / "compute-quota.json").read_text())
    spec["ClusterArn"] = "ml"
    _project(base / "project", spec)
    return EngineProject(root=base / "project", env=engine_env(base))


def _outputs(project: EngineProject) -> dict:
    return json.loads(project.run("stack", "output", "--json").stdout)


def test_a_quota_created_changed_and_destroyed_from_yaml_each_re_preview_empty(project: EngineProject) -> None:
    world = Simulator(project.world_path, seed=0)
    world.client().create_cluster(**eks_request("ml", [group("workers", 2, "ml.g5.8xlarge")]))
    world.advance(1200)
    project.run("stack", "init", STACK)

    up = project.run("up", "--yes")
    assert "+ 2 created" in up.output and "CreateComputeQuota" in up.output, up.describe()
    assert _outputs(project)["version"] == 1
    project.run("preview", "--expect-no-changes")

    project.config_set("weight", "20")
    preview = project.run("preview", "--diff")
    assert "~ 1 to update" in preview.output, preview.describe()
    up = project.run("up", "--yes")
    assert "~ 1 updated" in up.output and "UpdateComputeQuota" in up.output, up.describe()
    outputs = _outputs(project)
    assert outputs["version"] == 2
    described = Simulator(project.world_path).client().describe_compute_quota(ComputeQuotaId=outputs["resourceId"])
    assert described["ComputeQuotaTarget"]["FairShareWeight"] == 20
    project.run("preview", "--expect-no-changes")

    destroy = project.run("destroy", "--yes")
    assert "- 2 deleted" in destroy.output, destroy.describe()
    assert Simulator(project.world_path).client().list_compute_quotas()["ComputeQuotaSummaries"] == []
