"""examples/typescript-cluster under the real engine, on the simulator, through this project's
Node.js language host (scripts/pulumi-wrapper/cmd/pulumi-language-nodejs) and the TypeScript SDK
in sdk/nodejs: `pulumi install` (npm) and `tsc --noEmit`, `pulumi about` (the host's runtime and
the program's dependencies), then seed 004's walk (tests/engine/native_walk.py): preview and
create 1 compute node, a scale-out preview naming 1 → 3, a scale-in preview naming the two
victims, a TypeScript policy pack (the host's RunPlugin), destroy.

npm needs the registry it is set up for (no internet otherwise); its own cache makes a repeat
install take seconds."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from . import native_walk as walk
from .conftest import REPO, EngineProject, engine_env
from .stack import World, require_host

pytestmark = pytest.mark.engine

NAME = "scale-walkthrough-ts"  # the example's ClusterName
EXAMPLE = REPO / "examples" / "typescript-cluster"
FILES = ["package.json", ".npmrc", "tsconfig.json", "index.ts"]


@pytest.fixture(scope="module")
def project(pulumi_cli: str, tmp_path_factory: pytest.TempPathFactory) -> EngineProject:
    require_host(pulumi_cli, "pulumi-language-nodejs")
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.fail("node and npm are needed for TypeScript programs (Node.js 20 or later)")
    base = tmp_path_factory.mktemp("native-typescript")
    root = base / "project"
    walk.copy_example(EXAMPLE, root, FILES)
    manifest = json.loads((root / "package.json").read_text())
    manifest["dependencies"]["@pulumi-hyperpod/hyperpod"] = f"file:{REPO / 'sdk' / 'nodejs' / 'bin'}"
    (root / "package.json").write_text(json.dumps(manifest, indent=4))
    project = EngineProject(root=root, env=engine_env(base))
    # what scripts/install does: the plugin in the engine's plugin cache (`pulumi install` checks it)
    project.install_native_plugin(walk.plugin_version())
    return project


@pytest.fixture(scope="module")
def world(project: EngineProject) -> World:
    return World(project)


def test_0_install_typecheck_and_about(project: EngineProject) -> None:
    project.run("install", timeout=600)  # the host's InstallDependencies: npm install
    installed = json.loads((project.root / "node_modules" / "@pulumi-hyperpod" / "hyperpod" / "package.json").read_text())
    assert installed["version"] == walk.plugin_version() and installed["pulumi"]["name"] == "hyperpod"
    assert not (project.root / "node_modules" / "@pulumi-hyperpod" / "hyperpod").is_symlink(), "the SDK is linked, not installed"

    tsc = subprocess.run(
        [str(project.root / "node_modules" / ".bin" / "tsc"), "--noEmit", "-p", "."],
        cwd=project.root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert tsc.returncode == 0, f"tsc --noEmit:\n{tsc.stdout}{tsc.stderr}"

    walk.about_names_the_runtime_and_the_sdk(project, "nodejs", "@pulumi-hyperpod/hyperpod")


def test_1_preview_and_create(project: EngineProject, world: World) -> None:
    walk.preview_and_create(project, world, NAME)


def test_2_scale_out_preview_names_the_new_count(project: EngineProject, world: World) -> None:
    walk.scale_out(project, world, NAME)


def test_3_scale_in_preview_names_the_victims(project: EngineProject, world: World) -> None:
    walk.scale_in(project, world, NAME)


POLICY_PACK = {
    "PulumiPolicy.yaml": "runtime: nodejs\ndescription: hyperpod cluster policies\n",
    "package.json": json.dumps(
        {
            "name": "hyperpod-policies",
            "version": "0.1.0",
            "private": True,
            "main": "index.ts",
            "dependencies": {"@pulumi/policy": "^1.21.0", "@pulumi/pulumi": "^3.274.0"},
        }
    ),
    "index.ts": """import { PolicyPack } from "@pulumi/policy";

new PolicyPack("hyperpod-policies", {
    policies: [{
        name: "at-most-two-per-group",
        description: "No instance group above 2 instances.",
        enforcementLevel: "mandatory",
        validateResource: (args, reportViolation) => {
            if (args.type !== "hyperpod:index:Cluster") { return; }
            for (const group of args.props.spec?.InstanceGroups ?? []) {
                if (group.InstanceCount > 2) {
                    reportViolation(`group ${group.InstanceGroupName} asks for ${group.InstanceCount} instances`);
                }
            }
        },
    }],
});
""",
}


def test_4_a_typescript_policy_pack_runs(project: EngineProject) -> None:
    """`pulumi preview --policy-pack DIR` with a TypeScript pack: the host's RunPlugin runs it with
    the SDK's run-policy-pack; it passes the declared cluster, and refuses 3 compute nodes."""
    pack = project.root.parent / "policy-pack"
    pack.mkdir()
    for name, text in POLICY_PACK.items():
        (pack / name).write_text(text)
    npm = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--prefer-offline"], cwd=pack, capture_output=True, text=True, timeout=600
    )
    assert npm.returncode == 0, npm.stdout + npm.stderr

    passed = project.run("preview", "--policy-pack", str(pack))
    assert "hyperpod-policies@v0.1.0" in passed.stdout and "at-most-two-per-group" not in passed.stdout, passed.describe()
    project.config_set("computeCount", "3")
    try:
        refused = project.run("preview", "--policy-pack", str(pack), check=False)
    finally:
        project.config_set("computeCount", "1")
    assert refused.returncode != 0, refused.describe()
    assert "[mandatory]  at-most-two-per-group" in refused.stdout, refused.describe()
    assert "group leo-stg-compute-ig asks for 3 instances" in refused.stdout, refused.describe()


def test_5_destroy(project: EngineProject, world: World) -> None:
    walk.destroy(project, world)


def test_6_a_failing_program_fails_the_update(project: EngineProject) -> None:
    """A TypeScript type error stops the preview with the compiler's message and a non-zero exit."""
    (project.root / "index.ts").write_text((project.root / "index.ts").read_text() + "\nconst broken: number = 'text';\n")
    preview = project.run("preview", check=False)
    assert preview.returncode != 0, preview.describe()
    assert "TS2322" in preview.output or "not assignable" in preview.output, preview.describe()


def test_7_a_program_without_its_sdk_installed_is_refused_with_the_fix(project: EngineProject) -> None:
    """No node_modules: the preview fails before running anything, naming the directory and `npm install`."""
    bare = project.root.parent / "not-installed"
    walk.copy_example(EXAMPLE, bare, FILES)
    other = EngineProject(root=bare, env=project.env)
    other.run("stack", "init", "bare")
    preview = other.run("preview", check=False)
    assert preview.returncode != 0, preview.describe()
    assert f"the Pulumi Node.js SDK (@pulumi/pulumi) is not installed for {bare}" in preview.output, preview.describe()
    assert "run `npm install`" in preview.output, preview.describe()
