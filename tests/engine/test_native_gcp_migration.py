"""Moving a Python stack from the dynamic `GcpTrainingCluster` to the native
`hyperpod:index:GcpTrainingCluster` without touching the clusters (docs/native-provider.md,
"Migration"), the same two ways as for `Cluster` (test_native_migration.py), under the real engine
on the Google Cloud simulator: `alpha` moves by an alias of the old type (one `pulumi up`, which only
rewrites the state), `beta` by `pulumi state delete` and the `import_` resource option. No call
changes either cluster; the next preview is empty; the native provider then deletes both.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import pulumi_hyperpod
from pulumi_hyperpod.gcp.client import connect
from pulumi_hyperpod.sim.gcp import GcpSimulator

from .conftest import REPO, STACK, EngineProject, copy_demo_project, engine_env
from .stack import provider_lines

pytestmark = pytest.mark.engine

DYNAMIC_TYPE = "pulumi-python:dynamic/hyperpod:GcpTrainingCluster"
NATIVE_TYPE = "hyperpod:index:GcpTrainingCluster"
EXAMPLE = REPO / "examples" / "gcp-training-cluster" / "cluster.json"
PARENT = "projects/my-project/locations/us-central1/modelDevelopmentClusters"

PROGRAM = """
import json
import pulumi
from pulumi_hyperpod.provider.gcp import GcpTrainingCluster
from pulumi_hyperpod.native.gcp_resource import NativeGcpTrainingCluster

BASE = json.loads(open("{example}").read())

def spec(cluster_id):
    return {**BASE, "name": "{parent}/" + cluster_id}

STAGE = "{stage}"
if STAGE == "dynamic":
    alpha = GcpTrainingCluster("alpha", spec=spec("migalpha"), backend="fake", policy={"max_scale_in_fraction": 0.5})
    beta = GcpTrainingCluster("beta", spec=spec("migbeta"), backend="fake")
else:
    # alpha: the same name, the old type as an alias; beta: imported by its name (after `pulumi state delete`)
    alpha = NativeGcpTrainingCluster("alpha", spec=spec("migalpha"), backend="fake", policy={"max_scale_in_fraction": 0.5},
                                     opts=pulumi.ResourceOptions(aliases=[pulumi.Alias(type_="{dynamic_type}")]))
    beta = NativeGcpTrainingCluster("beta", spec=spec("migbeta"), backend="fake",
                                    opts=pulumi.ResourceOptions(import_="{beta_id}" or None))
pulumi.export("alpha", {"name": alpha.name, "state": alpha.state, "node_count": alpha.node_count})
pulumi.export("betaPools", beta.pools)
"""


@pytest.fixture(scope="module")
def project(pulumi_cli: str, tmp_path_factory: pytest.TempPathFactory) -> EngineProject:
    base = tmp_path_factory.mktemp("native-gcp-migration")
    copy_demo_project(base / "project")
    env = engine_env(base)
    env["HYPERPOD_GCP_FAKE_STATE"] = str(base / "world" / "gcp-fake.sqlite")
    return EngineProject(root=base / "project", env=env)


def write(project: EngineProject, stage: str, beta_id: str = "") -> None:
    program = (
        PROGRAM.replace("{stage}", stage)
        .replace("{example}", str(EXAMPLE))
        .replace("{parent}", PARENT)
        .replace("{dynamic_type}", DYNAMIC_TYPE)
        .replace("{beta_id}", beta_id)
    )
    project.write_program(program)


def clusters(project: EngineProject) -> dict[str, Any]:
    """Name → (state, create time, etag, node names): what must not change."""
    client = connect("fake", simulator=GcpSimulator(project.env["HYPERPOD_GCP_FAKE_STATE"]), poll_seconds=0)
    found = {}
    for cluster in client.list_clusters(PARENT.rsplit("/", 1)[0]):
        status = cluster.get("clusterStatus", {})
        nodes = sorted(n["instanceName"] for n in status.get("nodesStatus", []))
        found[cluster["name"].rsplit("/", 1)[-1]] = (status.get("state"), cluster.get("createTime"), cluster.get("etag"), nodes)
    return found


def types(project: EngineProject) -> dict[str, str]:
    return {
        r["urn"].rsplit("::", 1)[-1]: r["type"]
        for r in project.export()["deployment"]["resources"]
        if r["type"] in (DYNAMIC_TYPE, NATIVE_TYPE)
    }


def test_migration_from_the_dynamic_to_the_native_gcp_cluster(project: EngineProject) -> None:
    project.install_native_plugin(pulumi_hyperpod.__version__, reinstall=True)
    project.run("stack", "init", STACK)
    # An import reads where the provider configuration says (it has the id alone).
    project.config_set("hyperpod:backend", "fake")
    write(project, "dynamic")
    project.run("up", "--yes", "--skip-preview", timeout=600)
    before = clusters(project)
    assert set(before) == {"migalpha", "migbeta"} and all(c[0] == "RUNNING" for c in before.values()), before
    assert types(project) == {"alpha": DYNAMIC_TYPE, "beta": DYNAMIC_TYPE}

    beta_urn = next(r["urn"] for r in project.export()["deployment"]["resources"] if r["urn"].endswith("::beta"))
    project.run("state", "delete", beta_urn, "--yes")
    assert clusters(project) == before, "`pulumi state delete` touched the cluster"

    write(project, "native", f"{PARENT}/migbeta")
    preview = project.run("preview")
    said = "\n".join(provider_lines(preview.output))
    assert "state written by the dynamic provider" in said, preview.describe()
    up = project.run("up", "--yes", "--skip-preview", timeout=600)
    assert "import" in up.stdout and "updated" in up.stdout, up.describe()
    assert clusters(project) == before, "the migration changed a cluster"
    assert types(project) == {"alpha": NATIVE_TYPE, "beta": NATIVE_TYPE}
    native = [r for r in project.export()["deployment"]["resources"] if r["type"] == NATIVE_TYPE]
    assert all("__provider" not in r["outputs"] and "nodeCount" in r["outputs"] for r in native), json.dumps(native)[:3000]
    outputs = json.loads(project.run("stack", "output", "--json").stdout)
    assert outputs["alpha"] == {"name": f"{PARENT}/migalpha", "state": "RUNNING", "node_count": 3}, outputs
    assert set(outputs["betaPools"]) == {"login", "a4"}, outputs

    empty = project.run("preview", "--expect-no-changes", check=False)
    assert empty.returncode == 0, "the preview after the migration is not empty\n" + empty.describe()

    project.run("destroy", "--yes", "--skip-preview", timeout=600)
    assert clusters(project) == {}
