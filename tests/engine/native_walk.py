"""Seed 004's walk (one compute node, scale out to 3, scale in to 1, destroy) under the real
engine, for a program in any language that uses the native provider: the steps
test_native_typescript.py and test_native_go.py share. Each step asserts what the engine
printed and what the simulator's world holds afterwards."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import yaml

from .conftest import PLUGIN_DIR, STACK, EngineProject
from .stack import World, group_row, provider_lines, victims_in

CLUSTER_TYPE = "hyperpod:index:Cluster"
HEAD, COMPUTE = "leo-stg-head-ig", "leo-stg-compute-ig"


def copy_example(source: Path, dest: Path, files: list[str]) -> None:
    """The example's files, its Pulumi.yaml `plugins.providers` path made absolute (the engine
    runs this repository's plugin/pulumi-resource-hyperpod)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in files:
        shutil.copy(source / name, dest / name)
    project = yaml.safe_load((source / "Pulumi.yaml").read_text())
    for provider in (project.get("plugins") or {}).get("providers") or []:
        if provider.get("name") == "hyperpod":
            provider["path"] = str(PLUGIN_DIR)
    (dest / "Pulumi.yaml").write_text(yaml.safe_dump(project, sort_keys=False))


def resources(project: EngineProject) -> list[dict[str, Any]]:
    return [r for r in project.export()["deployment"].get("resources") or [] if r["type"] == CLUSTER_TYPE]


def preview_and_create(project: EngineProject, world: World, name: str) -> None:
    project.run("stack", "init", STACK)
    preview = project.run("preview")
    lines = provider_lines(preview.output)
    assert any(f"Plan for cluster {name}: create" in line for line in lines), preview.describe()
    assert re.search(rf"\+\s+{re.escape(CLUSTER_TYPE)}\s+leo-stg\s+create", preview.stdout), preview.describe()
    assert world.clusters() == [], "a preview created the cluster"

    project.run("up", "--yes", "--skip-preview")
    assert world.targets(name) == {HEAD: 1, COMPUTE: 1}
    outputs = json.loads(project.run("stack", "output", "--json").stdout)
    assert outputs["status"] == "InService" and outputs["nodeCount"] == 2, outputs
    assert outputs["compute"]["targetCount"] == 1, outputs
    [state] = resources(project)
    assert state["id"] == outputs["arn"] and state["inputs"]["spec"]["ClusterName"] == name
    again = project.run("preview", "--expect-no-changes", check=False)
    assert again.returncode == 0, "preview right after `up` is not empty\n" + again.describe()


def scale_out(project: EngineProject, world: World, name: str) -> None:
    project.config_set("computeCount", "3")
    preview = project.run("preview", "--diff")
    row = group_row(provider_lines(preview.output), COMPUTE)
    assert "+2" in row and re.search(r"1\s*→\s*3", row), preview.describe()
    assert re.search(r"~ InstanceCount\s*:\s*1 => 3", preview.stdout), preview.describe()
    assert world.targets(name) == {HEAD: 1, COMPUTE: 1}, "a preview scaled the cluster"

    project.run("up", "--yes", "--skip-preview")
    assert world.targets(name) == {HEAD: 1, COMPUTE: 3}
    assert len(world.wait_running(name, COMPUTE, 3)) == 3, world.nodes(name)


def scale_in(project: EngineProject, world: World, name: str) -> None:
    before = world.node_ids(name, COMPUTE)
    project.config_set("computeCount", "1")
    preview = project.run("preview", "--diff")
    lines = provider_lines(preview.output)
    row = group_row(lines, COMPUTE)
    assert "-2" in row and re.search(r"3\s*→\s*1", row), preview.describe()
    victims = victims_in(lines)
    assert len(victims) == 2 and set(victims) <= before, f"{victims}\n{preview.describe()}"
    assert all(victims.values()), f"a victim without its reason: {victims}"
    assert re.search(r"~ InstanceCount\s*:\s*3 => 1", preview.stdout), preview.describe()
    assert world.node_ids(name, COMPUTE) == before, "a preview removed nodes"

    up = project.run("up", "--yes", "--skip-preview")
    assert any("BatchDeleteClusterNodes" in line for line in provider_lines(up.output)), up.describe()
    assert before - world.node_ids(name, COMPUTE) == set(victims), "up removed other nodes than the preview named"
    assert world.targets(name) == {HEAD: 1, COMPUTE: 1}


def destroy(project: EngineProject, world: World) -> None:
    project.run("destroy", "--yes")
    assert world.clusters() == [], world.clusters()
    assert resources(project) == []


def plugin_version() -> str:
    import pulumi_hyperpod

    return pulumi_hyperpod.__version__


def about_names_the_runtime_and_the_sdk(project: EngineProject, language: str, sdk: str) -> None:
    """`pulumi about`: the host's About (language, executable, version) and GetProgramDependencies
    (the SDK, at the plugin's version)."""
    project.run("stack", "init", "about")
    about = json.loads(project.run("about", "--json").stdout)
    project.run("stack", "rm", "about", "--yes")
    runtime = about["runtime"]
    assert runtime["language"] == language and runtime["version"] and Path(runtime["executable"]).exists(), about
    assert not about.get("errors"), about["errors"]
    deps = {d["name"]: d["version"] for d in about["dependencies"] or []}
    assert deps.get(sdk, "").lstrip("v") == plugin_version(), deps
    plugins = {(p["name"], p["kind"]) for p in about["plugins"]}
    assert ("hyperpod", "resource") in plugins, about["plugins"]
