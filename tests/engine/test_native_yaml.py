"""The native provider under the real engine, from Pulumi YAML (examples/yaml-cluster), on the
simulator: one flow, step by step.

preview (the creation plan in the engine's log) → up → scale out → a scale-in preview naming the
nodes, with the per-field diff, and `up` removing exactly those → out-of-band change, `refresh` →
`pulumi import` and the `import` resource option bring existing clusters under a second stack,
whose next preview is empty → destroy → the TypeScript and Go SDKs generate from the schema.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import (
    PLUGIN_DIR,
    REPO,
    STACK,
    EngineProject,
    copy_yaml_project,
    engine_env,
    require_yaml_host,
)
from .stack import World, group_row, provider_lines, victims_in

pytestmark = pytest.mark.engine

EXAMPLE = REPO / "examples" / "yaml-cluster"
CLUSTER_TYPE = "hyperpod:index:Cluster"
NAME = "yaml-training"


@pytest.fixture(scope="module")
def yaml_project(pulumi_cli: str, tmp_path_factory: pytest.TempPathFactory) -> EngineProject:
    require_yaml_host(pulumi_cli)
    base = tmp_path_factory.mktemp("native-yaml")
    copy_yaml_project(EXAMPLE, base / "project")
    return EngineProject(root=base / "project", env=engine_env(base))


@pytest.fixture(scope="module")
def world(yaml_project: EngineProject) -> World:
    return World(yaml_project)


@pytest.fixture(scope="module")
def flow() -> dict[str, Any]:
    return {}


def resources(project: EngineProject) -> list[dict[str, Any]]:
    return [r for r in project.export()["deployment"].get("resources") or [] if r["type"] == CLUSTER_TYPE]


# ---- 1. preview and create -------------------------------------------------------------------
def test_1_preview_shows_the_creation_plan_and_up_creates(yaml_project: EngineProject, world: World, flow: dict[str, Any]) -> None:
    project = yaml_project
    project.run("stack", "init", STACK)
    preview = project.run("preview")
    lines = provider_lines(preview.output)
    assert any(f"Plan for cluster {NAME}: create" in line for line in lines), preview.describe()
    assert any("CreateCluster" in line for line in lines), preview.describe()
    assert re.search(rf"\+\s+{re.escape(CLUSTER_TYPE)}\s+training\s+create", preview.stdout), preview.describe()
    assert world.clusters() == [], "a preview created the cluster"

    up = project.run("up", "--yes", "--skip-preview")
    assert any("InService reached" in line for line in provider_lines(up.output)), up.describe()
    [cluster] = world.clusters()
    flow["arn"] = cluster["ClusterArn"]
    assert world.targets(NAME) == {"controller": 1, "workers": 1}
    outputs = json.loads(project.run("stack", "output", "--json").stdout)
    assert outputs["arn"] == flow["arn"] and outputs["status"] == "InService"
    assert outputs["workers"]["targetCount"] == 1, outputs

    [state] = resources(project)
    assert state["id"] == flow["arn"] and "__provider" not in state["outputs"], "nothing is pickled into the state"
    assert state["inputs"]["spec"]["ClusterName"] == NAME
    again = project.run("preview", "--expect-no-changes", check=False)
    assert again.returncode == 0, "preview right after `up` is not empty\n" + again.describe()


# ---- 2. scale out, then a scale-in preview naming the nodes ------------------------------------
def test_2_scale_in_preview_names_the_nodes_and_up_removes_them(yaml_project: EngineProject, world: World) -> None:
    project = yaml_project
    project.config_set("workerCount", "3")
    project.run("up", "--yes", "--skip-preview")
    assert world.targets(NAME) == {"controller": 1, "workers": 3}
    workers = world.wait_running(NAME, "workers", 3)
    assert len(workers) == 3, world.nodes(NAME)

    project.config_set("workerCount", "1")
    preview = project.run("preview", "--diff")
    lines = provider_lines(preview.output)
    row = group_row(lines, "workers")
    assert "-2" in row and re.search(r"3\s*→\s*1", row), preview.describe()
    victims = victims_in(lines)
    assert len(victims) == 2 and set(victims) <= workers, f"{victims}\n{preview.describe()}"
    assert all(victims.values()), victims
    # the per-field diff: the one count that changed, an update (not a replacement)
    assert re.search(r"~ InstanceCount\s*:\s*3 => 1", preview.stdout), preview.describe()
    assert re.search(rf"~\s+{re.escape(CLUSTER_TYPE)}:\s+\(update\)", preview.stdout), preview.describe()
    assert world.node_ids(NAME, "workers") == workers, "a preview removed nodes"

    up = project.run("up", "--yes", "--skip-preview")
    assert any("BatchDeleteClusterNodes" in line for line in provider_lines(up.output)), up.describe()
    assert workers - world.node_ids(NAME, "workers") == set(victims)
    assert world.targets(NAME) == {"controller": 1, "workers": 1}


# ---- 3. refresh ------------------------------------------------------------------------------
def test_3_refresh_shows_an_out_of_band_change(yaml_project: EngineProject, world: World) -> None:
    project = yaml_project
    world.client.update_cluster(
        ClusterName=NAME,
        InstanceGroups=[
            {k: v for k, v in g.items() if k in ("InstanceGroupName", "InstanceType", "LifeCycleConfig", "ExecutionRole", "SlurmConfig")}
            | {"InstanceCount": 2 if g["InstanceGroupName"] == "workers" else 1}
            for g in world.describe(NAME)["InstanceGroups"]
        ],
    )
    assert world.targets(NAME)["workers"] == 2
    refresh = project.run("refresh", "--yes")
    assert re.search(rf"~\s+{re.escape(CLUSTER_TYPE)}\s+training\s+updated", refresh.stdout), refresh.describe()
    [state] = resources(project)
    assert state["outputs"]["groups"]["workers"]["targetCount"] == 2, state["outputs"]
    counts = {g["InstanceGroupName"]: g["InstanceCount"] for g in state["inputs"]["spec"]["InstanceGroups"]}
    assert counts == {"controller": 1, "workers": 2}

    preview = project.run("preview")  # the program still says 1: the plan takes the extra node back
    assert "-1" in group_row(provider_lines(preview.output), "workers"), preview.describe()


# ---- 4. import -------------------------------------------------------------------------------
IMPORT_PROGRAM = {
    "name": "hyperpod-yaml-import",
    "runtime": "yaml",
    "plugins": {"providers": [{"name": "hyperpod", "path": str(PLUGIN_DIR)}]},
    "config": {"hyperpod:backend": "fake"},
    "resources": {},
}


def _spec(name: str, workers: int) -> dict[str, Any]:
    program = json.loads(json.dumps(__import__("yaml").safe_load((EXAMPLE / "Pulumi.yaml").read_text())))
    props = program["resources"]["training"]["properties"]
    groups = props["instanceGroups"]
    groups[1]["InstanceCount"] = workers
    return {"ClusterName": name, "InstanceGroups": groups, "VpcConfig": props["vpcConfig"]}


def test_4_import_brings_existing_clusters_under_a_stack(yaml_project: EngineProject, world: World, flow: dict[str, Any]) -> None:
    """`pulumi import TYPE NAME ARN`, and `options.import` in the program: the next preview is empty."""
    by_cli = world.client.create_cluster(**_spec("yaml-imported", 2))["ClusterArn"]
    by_option = world.client.create_cluster(**_spec("yaml-adopted", 1))["ClusterArn"]
    before = {name: (world.describe(name)["ClusterArn"], world.targets(name)) for name in ("yaml-imported", "yaml-adopted")}

    root = yaml_project.root.parent / "import-project"
    root.mkdir()
    program = dict(IMPORT_PROGRAM)
    (root / "Pulumi.yaml").write_text(json.dumps(program))
    other = EngineProject(root=root, env=yaml_project.env)
    flow["import_project"] = other
    other.run("stack", "init", STACK)
    imported = other.run("import", CLUSTER_TYPE, "imported", by_cli, "--yes", "--protect=false")
    assert re.search(r"=\s+" + re.escape(CLUSTER_TYPE) + r"\s+imported\s+imported", imported.stdout), imported.describe()
    assert "ClusterName: yaml-imported" in imported.stdout, "the generated YAML shows the imported spec\n" + imported.describe()

    def declared(spec: dict[str, Any]) -> dict[str, Any]:
        return {"clusterName": spec["ClusterName"], "instanceGroups": spec["InstanceGroups"], "vpcConfig": spec["VpcConfig"]}

    program["resources"] = {
        "imported": {"type": CLUSTER_TYPE, "properties": declared(_spec("yaml-imported", 2))},
        "adopted": {"type": CLUSTER_TYPE, "properties": declared(_spec("yaml-adopted", 1)), "options": {"import": by_option}},
    }
    (root / "Pulumi.yaml").write_text(json.dumps(program))
    up = other.run("up", "--yes")
    assert re.search(r"=\s+" + re.escape(CLUSTER_TYPE) + r"\s+adopted\s+imported", up.stdout), up.describe()
    empty = other.run("preview", "--expect-no-changes", check=False)
    assert empty.returncode == 0, "the preview after the imports is not empty\n" + empty.describe()
    after = {name: (world.describe(name)["ClusterArn"], world.targets(name)) for name in ("yaml-imported", "yaml-adopted")}
    assert after == before, "importing changed a cluster"
    assert {r["id"] for r in resources(other)} == {by_cli, by_option}


# ---- 5. destroy ------------------------------------------------------------------------------
def test_5_destroy_deletes_the_clusters(yaml_project: EngineProject, world: World, flow: dict[str, Any]) -> None:
    flow["import_project"].run("destroy", "--yes")
    yaml_project.run("destroy", "--yes")
    assert world.clusters() == [], world.clusters()
    assert resources(yaml_project) == []


# ---- 6. SDKs ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("language", "expected"), [("nodejs", "cluster.ts"), ("go", "hyperpod/cluster.go")])
def test_6_sdks_generate_from_the_schema(yaml_project: EngineProject, language: str, expected: str) -> None:
    out = yaml_project.root.parent / f"sdk-{language}"
    started = time.monotonic()
    yaml_project.run(
        "package", "gen-sdk", str(REPO / "pulumi_hyperpod" / "native" / "schema.json"), "--language", language, "--out", str(out)
    )
    generated = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert any(p.endswith(expected) for p in generated), generated
    source = next(p for p in out.rglob(Path(expected).name))
    text = source.read_text()
    assert "hyperpod:index:Cluster" in text and "nodeCount" in text.replace("NodeCount", "nodeCount"), text[:2000]
    print(f"gen-sdk {language}: {len(generated)} files in {time.monotonic() - started:.1f}s")


# ---- 7. no credentials -----------------------------------------------------------------------
def test_7_no_credentials_in_state_or_output(yaml_project: EngineProject, flow: dict[str, Any]) -> None:
    """The provider process had the (fake) AWS credentials in its environment: none reached the
    state (exports), the commands' output or the files under the test's engine home and backend."""
    from .stack import _hits

    projects = [yaml_project, flow["import_project"]]
    problems = [f"{' '.join(r.args)}: {h}" for p in projects for r in p.results for h in _hits(r.output)]
    problems += [f"stack export: {h}" for p in projects for text in p.exports for h in _hits(text)]
    assert any(p.exports for p in projects), "no state was scanned"
    base: Path = yaml_project.root.parent
    for path in sorted(p for p in base.rglob("*") if p.is_file() and "sdk-" not in str(p)):
        problems += [f"{path.relative_to(base)}: {h}" for h in _hits(path.read_bytes().decode("latin-1"))]
    assert not problems, "credential-like strings found:\n" + "\n".join(problems[:40])
