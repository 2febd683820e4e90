"""Moving a Python stack from the dynamic `Cluster` to the native `hyperpod:index:Cluster` without
touching the clusters (docs/native-provider.md, "Migration"), under the real engine: one flow.

Two clusters made by the dynamic provider; `alpha` moves by an alias of the old type (one
`pulumi up`, which only rewrites the state), `beta` by `pulumi state delete` and the `import_`
resource option. No API call changes either cluster; the next preview is empty; the native
provider then deletes both. The plugin comes from the engine's plugin cache here
(`pulumi plugin install resource hyperpod … --file plugin/pulumi-resource-hyperpod`).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import pulumi_hyperpod

from .conftest import STACK, EngineProject, copy_demo_project, engine_env, with_spec_helpers
from .stack import World, provider_lines

pytestmark = pytest.mark.engine

DYNAMIC_TYPE = "pulumi-python:dynamic/hyperpod:Cluster"
NATIVE_TYPE = "hyperpod:index:Cluster"

PROGRAM = """
import os
import pulumi
from pulumi_hyperpod.provider import Cluster
from pulumi_hyperpod.native.resource import NativeCluster

@@SPEC_HELPERS@@

STAGE = "{stage}"
if STAGE == "dynamic":
    alpha = Cluster("alpha", spec=spec("migrate-alpha", 2), policy={"max_scale_in_fraction": 0.5})
    beta = Cluster("beta", spec=spec("migrate-beta", 1))
else:
    # alpha: the same name, the old type as an alias; beta: imported by its ARN (after `pulumi state delete`)
    alpha = NativeCluster("alpha", spec=spec("migrate-alpha", 2), policy={"max_scale_in_fraction": 0.5},
                          opts=pulumi.ResourceOptions(aliases=[pulumi.Alias(type_="{dynamic_type}")]))
    beta = NativeCluster("beta", spec=spec("migrate-beta", 1),
                         opts=pulumi.ResourceOptions(import_="{beta_arn}" or None))
pulumi.export("alpha", alpha.arn)
pulumi.export("betaWorkers", beta.groups["workers"])
# the same snake_case outputs on both classes
pulumi.export("alphaOutputs", {"node_count": alpha.node_count, "target_count": alpha.target_count,
                               "pending_count": alpha.pending_count, "cluster_name": alpha.cluster_name,
                               "status": alpha.status, "continuous": alpha.continuous,
                               "orchestrator": alpha.orchestrator, "location": alpha.location,
                               "policy": alpha.policy})
"""


@pytest.fixture(scope="module")
def project(pulumi_cli: str, tmp_path_factory: pytest.TempPathFactory) -> EngineProject:
    base = tmp_path_factory.mktemp("native-migration")
    copy_demo_project(base / "project")
    return EngineProject(root=base / "project", env=engine_env(base))


@pytest.fixture(scope="module")
def world(project: EngineProject) -> World:
    return World(project)


def write(project: EngineProject, stage: str, beta_arn: str = "") -> None:
    program = with_spec_helpers(PROGRAM).replace("{stage}", stage).replace("{dynamic_type}", DYNAMIC_TYPE).replace("{beta_arn}", beta_arn)
    project.write_program(program)


def clusters(world: World) -> dict[str, Any]:
    """Name → (ARN, target counts, every node id): what must not change."""
    return {
        c["ClusterName"]: (c["ClusterArn"], world.targets(c["ClusterName"]), sorted(n["InstanceId"] for n in world.nodes(c["ClusterName"])))
        for c in world.clusters()
    }


def types(project: EngineProject) -> dict[str, str]:
    return {
        r["urn"].rsplit("::", 1)[-1]: r["type"]
        for r in project.export()["deployment"]["resources"]
        if r["type"] in (DYNAMIC_TYPE, NATIVE_TYPE)
    }


def test_migration_from_the_dynamic_to_the_native_cluster(project: EngineProject, world: World) -> None:
    project.install_native_plugin(pulumi_hyperpod.__version__, reinstall=True)
    project.run("stack", "init", STACK)
    # Both providers read the backend from the stack config; an import reads only there (it has the id alone).
    project.config_set("hyperpod:backend", "fake")
    write(project, "dynamic")
    project.run("up", "--yes", "--skip-preview")
    before = clusters(world)
    assert set(before) == {"migrate-alpha", "migrate-beta"}
    assert types(project) == {"alpha": DYNAMIC_TYPE, "beta": DYNAMIC_TYPE}
    beta_arn = before["migrate-beta"][0]

    beta_urn = next(r["urn"] for r in project.export()["deployment"]["resources"] if r["urn"].endswith("::beta"))
    project.run("state", "delete", beta_urn, "--yes")
    assert clusters(world) == before, "`pulumi state delete` touched the cluster"

    write(project, "native", beta_arn)
    preview = project.run("preview")
    said = "\n".join(provider_lines(preview.output))
    assert "state written by the dynamic provider" in said, preview.describe()
    up = project.run("up", "--yes", "--skip-preview")
    assert "import" in up.stdout and "updated" in up.stdout, up.describe()
    assert clusters(world) == before, "the migration changed a cluster"
    assert types(project) == {"alpha": NATIVE_TYPE, "beta": NATIVE_TYPE}
    export = project.export()
    native = [r for r in export["deployment"]["resources"] if r["type"] == NATIVE_TYPE]
    assert all("__provider" not in r["outputs"] and "clusterName" in r["outputs"] for r in native), json.dumps(native)[:3000]
    outputs = json.loads(project.run("stack", "output", "--json").stdout)
    assert outputs["alpha"] == before["migrate-alpha"][0] and outputs["betaWorkers"]["target_count"] == 1, outputs
    assert outputs["alphaOutputs"] == {
        "node_count": 3,
        "target_count": 3,
        "pending_count": 0,
        "cluster_name": "migrate-alpha",
        "status": "InService",
        "continuous": False,
        "orchestrator": "Slurm",
        "location": {"backend": "fake", "region": "us-west-2"},
        "policy": {"max_scale_in_fraction": 0.5},
    }, outputs

    empty = project.run("preview", "--expect-no-changes", check=False)
    assert empty.returncode == 0, "the preview after the migration is not empty\n" + empty.describe()

    project.run("destroy", "--yes")
    assert world.clusters() == [], world.clusters()
