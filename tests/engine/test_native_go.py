"""examples/go-cluster under the real engine, on the simulator, through this project's Go
language host (scripts/pulumi-wrapper/cmd/pulumi-language-go) and the Go SDK in sdk/go:
`pulumi install` (go mod download) and `go vet`, `pulumi about` (the host's runtime and the
program's modules), then seed 004's walk (tests/engine/native_walk.py): preview and create 1
compute node, a scale-out preview naming 1 → 3, a scale-in preview naming the two victims, destroy.

The Go toolchain needs the module proxy it is set up for, or a module cache that already holds
github.com/pulumi/pulumi/sdk/v3 (scripts/install-pulumi's build fills it)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from . import native_walk as walk
from .conftest import REPO, EngineProject, engine_env
from .stack import World
from .stack import require_host

pytestmark = pytest.mark.engine

NAME = "scale-walkthrough-go"  # the example's ClusterName
EXAMPLE = REPO / "examples" / "go-cluster"
FILES = ["go.mod", "go.sum", "main.go"]


def go() -> str:
    found = shutil.which("go") or ("/usr/local/go/bin/go" if shutil.os.path.exists("/usr/local/go/bin/go") else None)
    if found is None:
        pytest.fail("the Go toolchain is needed for Go programs (scripts/install-pulumi needs it too)")
    return found


@pytest.fixture(scope="module")
def project(pulumi_cli: str, tmp_path_factory: pytest.TempPathFactory) -> EngineProject:
    require_host(pulumi_cli, "pulumi-language-go")
    base = tmp_path_factory.mktemp("native-go")
    root = base / "project"
    walk.copy_example(EXAMPLE, root, FILES)
    gomod = (root / "go.mod").read_text()
    gomod, replaced = re.subn(r"=> \.\./\.\./sdk/go", f"=> {REPO / 'sdk' / 'go'}", gomod)
    assert replaced == 1, "examples/go-cluster/go.mod no longer replaces the SDK with ../../sdk/go"
    (root / "go.mod").write_text(gomod)
    project = EngineProject(root=root, env=engine_env(base))
    project.env["PATH"] = f"{shutil.os.path.dirname(go())}:{project.env['PATH']}"
    project.install_native_plugin(walk.plugin_version())
    return project


@pytest.fixture(scope="module")
def world(project: EngineProject) -> World:
    return World(project)


def test_0_install_vet_and_about(project: EngineProject) -> None:
    project.run("install", timeout=600)  # the host's InstallDependencies: go mod download
    vet = subprocess.run([go(), "vet", "./..."], cwd=project.root, env=project.env, capture_output=True, text=True, timeout=600)
    assert vet.returncode == 0, f"go vet:\n{vet.stdout}{vet.stderr}"
    walk.about_names_the_runtime_and_the_sdk(project, "go", "github.com/pulumi-hyperpod/pulumi-hyperpod/sdk/go")


def test_1_preview_and_create(project: EngineProject, world: World) -> None:
    walk.preview_and_create(project, world, NAME)


def test_2_scale_out_preview_names_the_new_count(project: EngineProject, world: World) -> None:
    walk.scale_out(project, world, NAME)


def test_3_scale_in_preview_names_the_victims(project: EngineProject, world: World) -> None:
    walk.scale_in(project, world, NAME)


def test_4_destroy(project: EngineProject, world: World) -> None:
    walk.destroy(project, world)


def test_5_a_program_that_does_not_build_fails_the_update(project: EngineProject) -> None:
    """A compile error stops the preview with the compiler's message and a non-zero exit."""
    (project.root / "main.go").write_text((project.root / "main.go").read_text() + '\nvar broken int = "text"\n')
    preview = project.run("preview", check=False)
    assert preview.returncode != 0, preview.describe()
    assert "unable to build the Go program" in preview.output and "main.go" in preview.output, preview.describe()
