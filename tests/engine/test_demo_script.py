"""scripts/demo, the README's quick start, is safe to run again (issue 39, item 4): once the stack
holds its cluster, a run applies nothing — not even after the README's next steps changed the
stack's config (workerCount 3 applied, then 1 set and only previewed: a second run used to apply
that scale-in).

The demo runs in a copy of what it uses (scripts/demo and env.sh, the root project), the
repository's .venv linked in, so its stack (`state/`) and simulated world (`.hyperpod/`) are the
copy's own; the environment holds none of the project's variables, as a new terminal would.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pulumi_hyperpod import connect
from pulumi_hyperpod.sim.aws import Simulator
from tests.support.paths import REPO

pytestmark = pytest.mark.engine

FILES = ["scripts/demo", "scripts/env.sh", "Pulumi.yaml", "__main__.py"]
NAME = "demo-cluster"  # __main__.py's default clusterName


def demo_copy(dest: Path) -> Path:
    for name in FILES:
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, dest / name)
    (dest / ".venv").symlink_to(REPO / ".venv")
    return dest


def shell(root: Path, script: str) -> subprocess.CompletedProcess[str]:
    """`script` in a new bash at `root` with none of the project's variables (the engine and the
    venv come from .venv, as in a new terminal); its output, stdout and stderr together."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PULUMI_", "HYPERPOD_")) and k != "VIRTUAL_ENV"}
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", script],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
        check=False,
    )


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout[-6000:]}"
    return result.stdout


def workers(root: Path) -> dict[str, int]:
    client = connect(backend="fake", simulator=Simulator(path=root / ".hyperpod" / "fake.sqlite"))
    return {g["InstanceGroupName"]: g["TargetCount"] for g in client.describe_cluster(ClusterName=NAME)["InstanceGroups"]}


def updates(root: Path) -> int:
    """How many updates the stack's history holds (`pulumi up` records one, a preview none)."""
    return len(json.loads(ok(shell(root, "source scripts/env.sh && pulumi stack history --json --stack dev"))))


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (REPO / ".venv" / "pulumi-bin-dir").exists():
        pytest.skip("no engine: run scripts/install (.venv/pulumi-bin-dir)")
    return demo_copy(tmp_path_factory.mktemp("demo"))


def test_the_demo_twice_applies_once(root: Path) -> None:
    first = ok(shell(root, "bash scripts/demo"))
    assert "pulumi up on the simulator" in first and "CreateCluster" in first, first[-4000:]
    assert workers(root) == {"controller": 1, "workers": 1}
    applied = updates(root)

    again = ok(shell(root, "bash scripts/demo"))
    assert updates(root) == applied
    assert workers(root) == {"controller": 1, "workers": 1}
    assert "nothing applied" in again and "pulumi up on the simulator" not in again, again[-4000:]
    assert re.search(r"Resources:\s+\d+ unchanged", again), again[-4000:]  # the preview: nothing to change


def test_after_the_next_steps_the_demo_applies_no_scale_in(root: Path) -> None:
    ok(shell(root, "bash scripts/demo"))  # the quick start (again, after the test above)
    # the README's next steps: 3 workers applied, then 1 set and previewed only
    ok(shell(root, "source scripts/env.sh && pulumi config set workerCount 3 && pulumi up --yes"))
    ok(shell(root, "source scripts/env.sh && pulumi config set workerCount 1 && pulumi preview"))
    assert workers(root) == {"controller": 1, "workers": 3}
    applied = updates(root)

    again = ok(shell(root, "bash scripts/demo"))
    assert workers(root) == {"controller": 1, "workers": 3}
    assert updates(root) == applied
    assert "nothing applied" in again, again[-4000:]
    assert "BatchDeleteClusterNodes" in again, again[-4000:]  # the scale-in is shown, not applied
