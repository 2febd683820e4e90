"""The core install works without the optional extras (pyproject.toml; docs/install.md): in fresh
processes where kubernetes, google-auth, pulumi-aws and cairosvg cannot be imported, a Slurm
cluster is planned and applied through the CLI on the simulator, the dynamic provider's module and
the components load and declare the demo cluster, and a path that needs an extra (an EKS workload
read, a Google Cloud plan, a component declaring an AWS role) fails with the one line naming the
extra to install."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fresh import DECLARE_DEMO
from tests.support.paths import EXAMPLES, REPO, SPECS

BLOCKED = ("kubernetes", "google.auth", "pulumi_aws", "cairosvg")

# Installed first in the fresh process: any import of a blocked module fails as if it were not installed.
BLOCKER = f"""
import importlib.abc, sys
BLOCKED = {BLOCKED!r}
class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, NotInstalled())
for loaded in [m for m in sys.modules if any(m == b or m.startswith(b + ".") for b in BLOCKED)]:
    del sys.modules[loaded]
"""

# `hyperpod ARGS` as its console script runs it, under the blocker
HYPERPOD = BLOCKER + "from pulumi_hyperpod.cli import main\nsys.argv = ['hyperpod', *sys.argv[1:]]\nmain()\n"


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    scrubbed = ("HYPERPOD_FAKE_SCENARIO", "AWS_PROFILE", "AWS_DEFAULT_PROFILE")
    base = {k: v for k, v in os.environ.items() if k not in scrubbed}
    return base | {
        "PYTHONPATH": os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH")))),
        "HYPERPOD_FAKE_STATE": str(tmp_path / "fake.sqlite"),
        "HYPERPOD_BACKEND": "fake",
        "AWS_REGION": "us-west-2",
    }


def hyperpod(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", HYPERPOD, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


def test_the_blocker_blocks(env: dict[str, str], tmp_path: Path) -> None:
    """The processes below really run without the extras (these are installed in the test venv)."""
    code = BLOCKER + "import kubernetes\n"
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "ModuleNotFoundError: No module named 'kubernetes'" in proc.stderr, proc.stderr


def test_a_slurm_cluster_is_planned_and_applied_without_the_extras(env: dict[str, str], tmp_path: Path) -> None:
    spec = str(SPECS / "seed004-initial.json")
    plan = hyperpod(env, tmp_path, "plan", "-f", spec, "--json")
    assert plan.returncode == 0, plan.stderr
    assert [step["operation"] for step in json.loads(plan.stdout)["steps"]] == ["CreateCluster"]
    apply = hyperpod(env, tmp_path, "apply", "-f", spec, "--yes", "--wait", "none")
    assert apply.returncode == 0, apply.stderr
    listed = hyperpod(env, tmp_path, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [(c["name"], c["nodes_target"]) for c in json.loads(listed.stdout)] == [("leo-stg-hyperpod-cluster", 2)]


def test_the_dynamic_provider_and_the_components_load_and_declare_without_the_extras(env: dict[str, str], tmp_path: Path) -> None:
    code = (
        BLOCKER
        + "import pulumi_hyperpod.provider, pulumi_hyperpod.native.server\n"
        + DECLARE_DEMO
        + "print(json.dumps(mocks.registered))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "hyperpod:index:SlurmCluster" in json.loads(proc.stdout.splitlines()[-1]), proc.stdout


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    assert proc.returncode == 1 and len(lines) == 1, f"exit {proc.returncode}\n{proc.stdout}{proc.stderr}"
    return lines[0]


def test_an_eks_workload_read_names_the_eks_extra(env: dict[str, str], tmp_path: Path) -> None:
    spec = str(SPECS / "workload-eks-0.json")
    assert hyperpod(env, tmp_path, "apply", "-f", spec, "--yes", "--wait", "none").returncode == 0
    line = one_line(hyperpod(env, tmp_path, "plan", "-f", spec, "--read-workload"))
    assert line == "error: EKS workloads need the 'eks' extra: pip install 'pulumi-hyperpod[eks]'"


def test_a_google_cloud_plan_names_the_gcp_extra(env: dict[str, str], tmp_path: Path) -> None:
    line = one_line(hyperpod(env, tmp_path, "gcp", "plan", "-f", str(EXAMPLES / "gcp-training-cluster" / "cluster.json")))
    assert line == "error: Google Cloud training clusters need the 'gcp' extra: pip install 'pulumi-hyperpod[gcp]'"


def test_a_component_that_declares_an_aws_role_names_the_components_extra(env: dict[str, str], tmp_path: Path) -> None:
    """The demo cluster without an execution role: the component declares one with pulumi-aws."""
    role = 'execution_role_arn="arn:aws:iam::111122223333:role/demo-hyperpod-execution",'
    assert role in DECLARE_DEMO
    code = BLOCKER + DECLARE_DEMO.replace(role, "")
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    expected = "The components' supporting AWS resources need the 'components' extra: pip install 'pulumi-hyperpod[components]'"
    assert expected in proc.stderr, proc.stderr[-3000:]
