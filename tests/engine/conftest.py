"""Engine tests: the real `pulumi` CLI, run as subprocesses, on a copy of the demo project.

Each module gets its own world: a tmp copy of the root demo project (`Pulumi.yaml` with its
`virtualenv` made absolute, `__main__.py`), its own PULUMI_HOME, file backend, passphrase and
simulator world (`HYPERPOD_FAKE_STATE`, shared by the provider process and the test), and fake
AWS credentials in the environment so that the credential scan (test 7) means something.

Without a `pulumi` on PATH the tests skip with the reason (`scripts/test` sources scripts/env.sh,
which puts the engine built by scripts/install-pulumi on PATH).

The tests of a module are one flow (every `pulumi` command costs seconds): when a step fails, the
later steps of that module are skipped and name the step that failed.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.support.paths import REPO

STACK = "dev"
PASSPHRASE = "engine-tests-passphrase"

# The engine stops each plugin (language host, provider) with SIGINT and kills it only after 5 s. A
# job started in the background of a non-interactive shell inherits SIGINT ignored, and so would
# every plugin: each `pulumi` command would then wait out those 5 s (seen: an empty preview 1 s ->
# 6 s). With a handler set here, the processes started from this one get SIGINT's default again.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Fake, well-formed credentials: they must never show up in the state, the logs or any output.
FAKE_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "AKIAENGINETEST7Q2XYZ",  # AKIA + 16
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMIK7MDENGbPxRfiCYENGINETESTKY",  # 40
    "AWS_SESSION_TOKEN": "IQoJb3JpZ2luX2VjEENGINETESTSESSIONTOKENx9Zq4mV7pL2sK8dR3tY6wB1nC5hF0jG",
}
assert len(FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"]) == 20 and len(FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"]) == 40

# Environment that must not leak in from the caller (another world, another output channel, …).
_SCRUBBED = (
    "HYPERPOD_FAKE_STATE",
    "HYPERPOD_FAKE_SCENARIO",
    "HYPERPOD_PROVIDER_OUTPUT",
    "HYPERPOD_BACKEND",
    "PULUMI_BACKEND_URL",
    "PULUMI_HOME",
    "PULUMI_CONFIG_PASSPHRASE",
    "PULUMI_CONFIG_PASSPHRASE_FILE",
    "PULUMI_ACCESS_TOKEN",
    "PULUMI_PYTHON_CMD",
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
)


def repo_venv() -> Path:
    """The venv the project's programs and the dynamic provider run in: the repo's .venv (what
    scripts/install creates), else the interpreter running the tests."""
    venv = REPO / ".venv"
    return venv if (venv / "bin" / "python").exists() else Path(sys.prefix)


@dataclass
class Result:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def describe(self) -> str:
        return (
            f"$ {' '.join(self.args)}  (exit {self.returncode}, {self.seconds:.1f}s)\n"
            f"--- stdout ---\n{self.stdout}\n--- stderr ---\n{self.stderr}"
        )


@dataclass
class EngineProject:
    """A tmp copy of the demo project with its own engine home, backend and simulator world."""

    root: Path
    env: dict[str, str]
    results: list[Result] = field(default_factory=list)
    exports: list[str] = field(default_factory=list)

    @property
    def world_path(self) -> Path:
        return Path(self.env["HYPERPOD_FAKE_STATE"])

    def run(self, *args: str, check: bool = True, timeout: float = 300) -> Result:
        argv = ["pulumi", *args, "--non-interactive", "--color", "never"]
        started = time.monotonic()
        try:
            proc = subprocess.run(argv, cwd=self.root, env=self.env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as error:
            out = error.stdout.decode() if isinstance(error.stdout, bytes) else (error.stdout or "")
            err = error.stderr.decode() if isinstance(error.stderr, bytes) else (error.stderr or "")
            raise AssertionError(f"$ {' '.join(argv)} timed out after {timeout}s\n{out}\n{err}") from None
        result = Result(argv, proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started)
        self.results.append(result)
        print(f"{' '.join(argv)}: exit {result.returncode} in {result.seconds:.1f}s")
        if check and proc.returncode != 0:
            raise AssertionError("pulumi command failed\n" + result.describe())
        return result

    def config_set(self, key: str, value: str) -> None:
        self.run("config", "set", key, value)

    def install_native_plugin(self, version: str, *, reinstall: bool = False) -> None:
        """The native provider plugin (plugin/pulumi-resource-hyperpod) into this project's engine home."""
        extra = ("--reinstall",) if reinstall else ()
        self.run("plugin", "install", "resource", "hyperpod", version, "--file", str(PLUGIN_DIR / "pulumi-resource-hyperpod"), *extra)

    def export(self) -> dict[str, Any]:
        """`pulumi stack export` (kept for the credential scan)."""
        text = self.run("stack", "export").stdout
        self.exports.append(text)
        return json.loads(text)

    def write_program(self, source: str) -> None:
        (self.root / "__main__.py").write_text(source)


def copy_demo_project(dest: Path) -> None:
    """`Pulumi.yaml` (virtualenv made absolute, the project's own backend URL dropped: the
    environment names the tests' backend) and `__main__.py`. No Pulumi.<stack>.yaml: its
    encryption salt belongs to another passphrase; the stack is created fresh."""
    dest.mkdir(parents=True, exist_ok=True)
    project = yaml.safe_load((REPO / "Pulumi.yaml").read_text())
    runtime = project.get("runtime")
    if isinstance(runtime, str):
        runtime = {"name": runtime}
    runtime = dict(runtime or {"name": "python"})
    options = dict(runtime.get("options") or {})
    options["virtualenv"] = str(repo_venv())
    runtime["options"] = options
    project["runtime"] = runtime
    project.pop("backend", None)
    (dest / "Pulumi.yaml").write_text(yaml.safe_dump(project, sort_keys=False))
    shutil.copy(REPO / "__main__.py", dest / "__main__.py")


def engine_env(base: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
    home, backend = base / "pulumi-home", base / "pulumi-state"
    home.mkdir(parents=True, exist_ok=True)
    backend.mkdir(parents=True, exist_ok=True)
    env.update(
        PULUMI_HOME=str(home),
        PULUMI_BACKEND_URL=f"file://{backend}",
        PULUMI_CONFIG_PASSPHRASE=PASSPHRASE,
        PULUMI_SKIP_UPDATE_CHECK="true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION="true",
        HYPERPOD_FAKE_STATE=str(base / "world" / "fake.sqlite"),
        AWS_REGION="us-west-2",
        AWS_DEFAULT_REGION="us-west-2",
        AWS_CONFIG_FILE=os.devnull,
        AWS_SHARED_CREDENTIALS_FILE=os.devnull,
        **FAKE_CREDENTIALS,
    )
    (base / "world").mkdir(parents=True, exist_ok=True)
    return env


@pytest.fixture(scope="module")
def pulumi_cli() -> str:
    path = shutil.which("pulumi")
    if path is None:
        reason = "no `pulumi` CLI on PATH: run scripts/install, then `source scripts/env.sh` (scripts/test does)"
        print(reason)
        pytest.skip(reason)
    return path


@pytest.fixture(scope="module")
def project(pulumi_cli: str, tmp_path_factory: pytest.TempPathFactory) -> EngineProject:
    base = tmp_path_factory.mktemp("engine")
    root = base / "project"
    copy_demo_project(root)
    return EngineProject(root=root, env=engine_env(base))


def decoded_providers(export: dict[str, Any]) -> list[bytes]:
    """The pickled dynamic providers in a state (`__provider`, base64): a credential inside would
    not show in the export's text, only here."""
    found = []
    for resource in export.get("deployment", {}).get("resources", []) or []:
        for bag in (resource.get("inputs") or {}, resource.get("outputs") or {}):
            value = bag.get("__provider")
            if isinstance(value, str):
                try:
                    found.append(base64.b64decode(value))
                except ValueError:
                    found.append(value.encode())
    return found


# ---- one flow per module: a failed step skips the steps after it ------------------------------
_FAILED: dict[str, str] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if report.failed and item.get_closest_marker("engine") and call.when in ("setup", "call"):
        _FAILED.setdefault(str(item.path), item.name)


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("engine") and str(item.path) in _FAILED:
        pytest.skip(f"an earlier step of this flow failed: {_FAILED[str(item.path)]}")


# ---- the native provider (hyperpod:index:Cluster) ------------------------------------------------
PLUGIN_DIR = REPO / "plugin"

# `group` and `spec` for test programs: a Slurm cluster of a controller and `workers` compute nodes
SPEC_HELPERS = """def group(name, count, node_type):
    return {"InstanceGroupName": name, "InstanceType": "ml.m5.xlarge", "InstanceCount": count,
            "LifeCycleConfig": {"SourceS3Uri": "s3://sagemaker-demo-lifecycle/lifecycle-scripts/src/", "OnCreate": "on_create.sh"},
            "ExecutionRole": "arn:aws:iam::111122223333:role/demo-hyperpod-execution", "SlurmConfig": {"NodeType": node_type}}

def spec(name, workers):
    return {"ClusterName": name, "InstanceGroups": [group("controller", 1, "Controller"), group("workers", workers, "Compute")],
            "VpcConfig": {"SecurityGroupIds": ["sg-0123456789abcdef0"], "Subnets": ["subnet-0123456789abcdef0"]}}
"""


def with_spec_helpers(program: str) -> str:
    return program.replace("@@SPEC_HELPERS@@\n", SPEC_HELPERS)


def copy_yaml_project(source: Path, dest: Path) -> None:
    """A YAML project (`examples/yaml-cluster`) with its `plugins.providers` path made absolute:
    the engine runs this repository's `plugin/pulumi-resource-hyperpod`."""
    dest.mkdir(parents=True, exist_ok=True)
    project = yaml.safe_load((source / "Pulumi.yaml").read_text())
    for plugin in (project.get("plugins") or {}).get("providers") or []:
        if plugin.get("name") == "hyperpod":
            plugin["path"] = str(PLUGIN_DIR)
    (dest / "Pulumi.yaml").write_text(yaml.safe_dump(project, sort_keys=False))


def require_yaml_host(pulumi: str) -> None:
    """The YAML language host scripts/install-pulumi builds beside `pulumi`: missing means the
    install is incomplete, which is a failure, not a reason to skip."""
    host = Path(pulumi).resolve().parent / "pulumi-language-yaml"
    if not host.exists() and shutil.which("pulumi-language-yaml") is None:
        pytest.fail(f"no pulumi-language-yaml beside {pulumi}: run scripts/install (scripts/install-pulumi builds it)")
