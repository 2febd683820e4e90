"""The installable artifacts (scripts/build-artifacts) used as docs/install.md says, outside this
repository: they are built once into a temporary directory; then a scratch project in each of
Python (the dynamic provider), YAML, TypeScript and Go, in a temporary directory of its own, installs
from them only — the wheel into a fresh venv, the plugin tarball into a scratch engine home, the
npm tarball, the Go module through a file-based module proxy — and runs `pulumi preview`, `up` and
`destroy` on the simulator: the cluster is in the simulated world after `up`, gone after `destroy`.
No file of a scratch project (nor of the installed plugin) names a path of this checkout.

The files and commands run here are docs/install.md's (the first test checks that the doc holds
each of them, as written): the doc's blocks are run here, not by the docs tier.

Dependencies the artifacts do not carry come from where a user's would, through their tools'
caches: pip installs offline from the wheels the build put beside the plugin (`--find-links`,
with the index turned off here), npm prefers its cache, Go reads the module cache.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

import pulumi_hyperpod
from pulumi_hyperpod.native.schema import GO_MODULE

from .conftest import REPO, EngineProject, engine_env
from .stack import World, require_host

pytestmark = pytest.mark.engine

V = pulumi_hyperpod.__version__
INSTALL_DOC = REPO / "docs" / "install.md"
PLUGIN_TARBALL = f"pulumi-resource-hyperpod-v{V}-linux-amd64.tar.gz"

# ---- docs/install.md's files and commands, per language (the doc holds each as written) ----------
GROUPS_YAML = """      instanceGroups:
        - InstanceGroupName: controller
          InstanceType: ml.m5.xlarge
          InstanceCount: 1
          LifeCycleConfig: {SourceS3Uri: "s3://my-bucket/lifecycle/", OnCreate: on_create.sh}
          ExecutionRole: arn:aws:iam::111122223333:role/my-hyperpod-role
        - InstanceGroupName: workers
          InstanceType: ml.g5.xlarge
          InstanceCount: 1
          LifeCycleConfig: {SourceS3Uri: "s3://my-bucket/lifecycle/", OnCreate: on_create.sh}
          ExecutionRole: arn:aws:iam::111122223333:role/my-hyperpod-role"""

PYTHON_FILES = {
    "Pulumi.yaml": """name: hyperpod-python
runtime:
  name: python
  options:
    virtualenv: venv
""",
    "__main__.py": """import pulumi
from pulumi_hyperpod.provider import Cluster


def group(name, instance_type):
    return {"InstanceGroupName": name, "InstanceType": instance_type, "InstanceCount": 1,
            "LifeCycleConfig": {"SourceS3Uri": "s3://my-bucket/lifecycle/", "OnCreate": "on_create.sh"},
            "ExecutionRole": "arn:aws:iam::111122223333:role/my-hyperpod-role"}


cluster = Cluster(
    "training",
    spec={"ClusterName": "python-training", "InstanceGroups": [group("controller", "ml.m5.xlarge"), group("workers", "ml.g5.xlarge")]},
    backend="fake",  # the simulator; remove it (or "aws") for the real service
)
pulumi.export("arn", cluster.arn)
""",
}
PYTHON_COMMANDS = [
    "python3 -m venv venv",
    f'venv/bin/pip install --find-links "$DIST/wheels" "$DIST/pulumi_hyperpod-{V}-py3-none-any.whl"',
]

YAML_FILES = {
    "Pulumi.yaml": f"""name: hyperpod-yaml
runtime: yaml
config:
  hyperpod:backend: fake  # the simulator; remove it (or set aws) for the real service
resources:
  training:
    type: hyperpod:index:Cluster
    properties:
      clusterName: yaml-training
{GROUPS_YAML}
outputs:
  arn: ${{training.arn}}
""",
}
PLUGIN_COMMAND = f'pulumi plugin install resource hyperpod {V} --file "$DIST/{PLUGIN_TARBALL}"'
YAML_COMMANDS = [PLUGIN_COMMAND]

TYPESCRIPT_FILES = {
    "Pulumi.yaml": """name: hyperpod-typescript
runtime: nodejs
config:
  hyperpod:backend: fake
""",
    "index.ts": """import * as hyperpod from "@pulumi-hyperpod/hyperpod";

const group = (name: string, instanceType: string) => ({
    InstanceGroupName: name, InstanceType: instanceType, InstanceCount: 1,
    LifeCycleConfig: { SourceS3Uri: "s3://my-bucket/lifecycle/", OnCreate: "on_create.sh" },
    ExecutionRole: "arn:aws:iam::111122223333:role/my-hyperpod-role",
});

const cluster = new hyperpod.Cluster("training", {
    clusterName: "typescript-training",
    instanceGroups: [group("controller", "ml.m5.xlarge"), group("workers", "ml.g5.xlarge")],
});
export const arn = cluster.arn;
""",
}
TYPESCRIPT_COMMANDS = [
    PLUGIN_COMMAND,
    f'npm install "$DIST/pulumi-hyperpod-hyperpod-{V}.tgz" @pulumi/pulumi@^3.274.0 typescript@^5 @types/node@^20',
]

GO_FILES = {
    "Pulumi.yaml": """name: hyperpod-go
runtime: go
config:
  hyperpod:backend: fake
""",
    "main.go": f"""package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"{GO_MODULE}/hyperpod"
)

func group(name, instanceType string) pulumi.Input {{
	return pulumi.Any(map[string]any{{
		"InstanceGroupName": name, "InstanceType": instanceType, "InstanceCount": 1,
		"LifeCycleConfig": map[string]any{{"SourceS3Uri": "s3://my-bucket/lifecycle/", "OnCreate": "on_create.sh"}},
		"ExecutionRole":   "arn:aws:iam::111122223333:role/my-hyperpod-role",
	}})
}}

func main() {{
	pulumi.Run(func(ctx *pulumi.Context) error {{
		cluster, err := hyperpod.NewCluster(ctx, "training", &hyperpod.ClusterArgs{{
			ClusterName:    pulumi.String("go-training"),
			InstanceGroups: pulumi.Array{{group("controller", "ml.m5.xlarge"), group("workers", "ml.g5.xlarge")}},
		}})
		if err != nil {{
			return err
		}}
		ctx.Export("arn", cluster.Arn)
		return nil
	}})
}}
""",
}
GO_COMMANDS = [
    PLUGIN_COMMAND,
    f'export GOPROXY="file://$DIST/go-proxy,$(go env GOPROXY)" GONOSUMDB={GO_MODULE}',
    "go mod init hyperpod-go",
    f"go get {GO_MODULE}@v{V} github.com/pulumi/pulumi/sdk/v3@v3.274.1",
    "go mod tidy",
]

# every language then runs these in its project
PULUMI_COMMANDS = ["pulumi stack init dev", "pulumi preview", "pulumi up --yes", "pulumi destroy --yes"]


# ---- the artifacts, and the scratch projects -------------------------------------------------------
@dataclass
class Scratch:
    """The shared engine home (the plugin installed once, as a user installs it), backend and world."""

    base: Path
    dist: Path
    env: dict[str, str]

    def project(self, name: str, files: dict[str, str]) -> EngineProject:
        """A project directory with `files`, and a simulated world of its own (a user's project has
        its own, .hyperpod/ in it; here beside it, so the test reads it as the providers write it)."""
        root = self.base / name
        root.mkdir()
        for file, text in files.items():
            (root / file).write_text(text)
        world = self.base / f"{name}-world"
        world.mkdir()
        return EngineProject(root=root, env={**self.env, "HYPERPOD_FAKE_STATE": str(world / "fake.sqlite")})

    def shell(self, project: EngineProject, commands: list[str], timeout: float = 600) -> None:
        """The doc's commands, in one bash in the project directory (an `export` carries on)."""
        script = "\n".join(commands)
        started = time.monotonic()
        proc = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", script],
            cwd=project.root,
            env=project.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        print(f"{script!r}: exit {proc.returncode} in {time.monotonic() - started:.1f}s")
        assert proc.returncode == 0, f"$ {script}\n--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"


def checkout_paths() -> set[str]:
    """This checkout, as the tests see it and as the file system resolves it, and the venv it runs in."""
    paths = {str(REPO), str(REPO.resolve())}
    venv = REPO / ".venv"
    if venv.exists():
        paths |= {str(venv.resolve()), str(venv.resolve().parent)}
    return paths


def outside_the_checkout(env: dict[str, str]) -> dict[str, str]:
    """The environment without this checkout: no PYTHONPATH or VIRTUAL_ENV into it, its venv off PATH."""
    inside = checkout_paths()
    env = {k: v for k, v in env.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PULUMI_HYPERPOD_PYTHON")}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if not any(p == c or p.startswith(c + "/") for c in inside))
    return env


@pytest.fixture(scope="module")
def scratch(pulumi_cli: str, tmp_path_factory: pytest.TempPathFactory) -> Scratch:
    if importlib.util.find_spec("build") is None:
        pytest.fail("scripts/build-artifacts needs `build` (the test extra): re-run scripts/install")
    for host in ("pulumi-language-yaml", "pulumi-language-nodejs", "pulumi-language-go"):
        require_host(pulumi_cli, host)
    base = tmp_path_factory.mktemp("artifacts")
    assert not any(str(base).startswith(p) for p in checkout_paths()), f"{base} is inside the checkout"
    dist = base / "dist"
    started = time.monotonic()
    proc = subprocess.run(
        ["bash", str(REPO / "scripts" / "build-artifacts"), str(dist)],
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, f"scripts/build-artifacts:\n{proc.stdout}{proc.stderr}"
    print(f"scripts/build-artifacts: {time.monotonic() - started:.1f}s")
    env = outside_the_checkout(engine_env(base))
    env.update(
        DIST=str(dist),
        PIP_NO_INDEX="1",  # offline: every wheel comes from $DIST/wheels (the doc's --find-links)
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIP_NO_COMPILE="1",  # a module compiles when first imported: the venv installs in half the time
        npm_config_prefer_offline="true",
        npm_config_audit="false",
        npm_config_fund="false",
    )
    go = shutil.which("go") or "/usr/local/go/bin/go"
    # `python3` is the Python the wheels were built for (the one running the tests, outside its venv)
    env["PATH"] = os.pathsep.join([str(Path(sys.base_prefix) / "bin"), env["PATH"], os.path.dirname(go)])
    return Scratch(base, dist, env)


def test_the_build_wrote_every_artifact(scratch: Scratch) -> None:
    dist = scratch.dist
    for name in (
        f"pulumi_hyperpod-{V}-py3-none-any.whl",
        f"pulumi_hyperpod-{V}.tar.gz",
        PLUGIN_TARBALL,
        f"pulumi-hyperpod-hyperpod-{V}.tgz",
    ):
        assert (dist / name).is_file(), sorted(p.name for p in dist.iterdir())
    versions = dist / "go-proxy" / GO_MODULE / "@v"
    assert (versions / "list").read_text() == f"v{V}\n"
    assert {p.name for p in versions.iterdir()} == {"list", f"v{V}.info", f"v{V}.mod", f"v{V}.zip"}
    listing = subprocess.run(["tar", "-tzf", str(dist / PLUGIN_TARBALL)], capture_output=True, text=True, check=True).stdout.split()
    assert {"pulumi-resource-hyperpod", "python-version"} <= set(listing)
    assert f"wheels/pulumi_hyperpod-{V}-py3-none-any.whl" in listing


def up_and_destroy(project: EngineProject, cluster: str) -> None:
    """preview, up (the cluster is in the world), destroy (it is gone)."""
    world = World(project)
    project.run("stack", "init", "dev")
    preview = project.run("preview")
    assert f"Plan for cluster {cluster}: create" in preview.output, preview.describe()
    assert cluster not in [c["ClusterName"] for c in world.clusters()], "a preview created the cluster"
    project.run("up", "--yes")
    assert world.describe(cluster)["ClusterStatus"] in ("Creating", "InService")
    assert project.run("stack", "output", "arn").stdout.strip() == world.describe(cluster)["ClusterArn"]
    project.run("destroy", "--yes")
    assert cluster not in [c["ClusterName"] for c in world.clusters()], world.clusters()


def test_python_dynamic_provider_from_the_wheel(scratch: Scratch) -> None:
    project = scratch.project("python", PYTHON_FILES)
    scratch.shell(project, PYTHON_COMMANDS)
    up_and_destroy(project, "python-training")


def test_yaml_with_the_plugin_tarball(scratch: Scratch) -> None:
    project = scratch.project("yaml", YAML_FILES)
    scratch.shell(project, YAML_COMMANDS)
    up_and_destroy(project, "yaml-training")
    plugin = Path(scratch.env["PULUMI_HOME"]) / "plugins" / f"resource-hyperpod-v{V}"
    assert (plugin / "venv" / ".installed").is_file(), "the plugin made no environment of its own"


def test_typescript_with_the_npm_tarball(scratch: Scratch) -> None:
    project = scratch.project("typescript", TYPESCRIPT_FILES)
    scratch.shell(project, TYPESCRIPT_COMMANDS)
    installed = project.root / "node_modules" / "@pulumi-hyperpod" / "hyperpod"
    assert installed.is_dir() and not installed.is_symlink(), "the SDK is linked, not installed"
    up_and_destroy(project, "typescript-training")


def test_go_through_a_module_proxy(scratch: Scratch) -> None:
    project = scratch.project("go", GO_FILES)
    scratch.shell(project, GO_COMMANDS)
    gomod = (project.root / "go.mod").read_text()
    assert f"{GO_MODULE} v{V}" in gomod and "replace" not in gomod, gomod
    up_and_destroy(project, "go-training")


def test_no_scratch_file_names_the_checkout(scratch: Scratch) -> None:
    """What the installs wrote (venvs, node_modules, go.mod, the plugin's own venv): nothing points back here."""
    needles = [p.encode() for p in checkout_paths()]
    roots = [scratch.base / name for name in ("python", "yaml", "typescript", "go")]
    roots.append(Path(scratch.env["PULUMI_HOME"]) / "plugins")
    hits, read = [], 0
    for root in roots:
        assert root.is_dir(), f"{root}: an earlier test did not make it"
        for path in root.rglob("*"):
            if path.is_file() and not path.is_symlink() and "__pycache__" not in path.parts and path.stat().st_size < 4_000_000:
                data = path.read_bytes()
                read += 1
                hits += [f"{path}: {n.decode()}" for n in needles if n in data]
    assert not hits, "scratch files name the checkout:\n" + "\n".join(hits[:20])
    assert read > 1000, f"only {read} files read: the installs wrote less than two venvs and a node_modules hold"


def test_docs_install_holds_every_file_and_command_run_here() -> None:
    doc = INSTALL_DOC.read_text()
    missing = [
        f"{name}: {text.splitlines()[0]}…"
        for files in (PYTHON_FILES, YAML_FILES, TYPESCRIPT_FILES, GO_FILES)
        for name, text in files.items()
        if text.strip() not in doc
    ]
    commands = {*PYTHON_COMMANDS, *YAML_COMMANDS, *TYPESCRIPT_COMMANDS, *GO_COMMANDS, *PULUMI_COMMANDS, "bash scripts/build-artifacts"}
    missing += [command for command in sorted(commands) if command not in doc.splitlines()]
    assert not missing, "docs/install.md does not show, as written:\n" + "\n".join(missing)
