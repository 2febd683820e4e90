"""Every example program (and the demo stack) runs under the mocks and declares valid clusters."""

from __future__ import annotations

import json
import os
import runpy
from pathlib import Path

import pulumi
import pytest
import yaml
from pulumi.runtime.mocks import MockMonitor

from .conftest import CLUSTER_TYPE, HyperPodMocks, registered
from tests.support.paths import REPO

ROOT = REPO
# Python programs that declare HyperPod clusters (examples/gcp-training-cluster: tests/gcp; yaml-cluster: tests/engine)
PROGRAMS = [ROOT, *sorted(p for p in (ROOT / "examples").iterdir() if (p / "__main__.py").exists() and p.name != "gcp-training-cluster")]
EXPECTED_CLUSTERS = {"platform-two-clusters": 2}  # the others declare one


def stack_config(folder: Path, project: str) -> dict[str, str]:
    """The config an example's README gives its dev stack (`stack.example.yaml`, copied to the
    git-ignored Pulumi.dev.yaml), as the language host passes it (objects JSON-encoded)."""
    path = folder / "stack.example.yaml"
    values = (yaml.safe_load(path.read_text()) or {}).get("config", {}) if path.exists() else {}
    return {
        key if ":" in key else f"{project}:{key}": value if isinstance(value, str) else json.dumps(value) for key, value in values.items()
    }


@pytest.mark.parametrize("folder", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_program_declares_valid_clusters(folder, monkeypatch):
    project = yaml.safe_load((folder / "Pulumi.yaml").read_text())["name"]
    mocks = HyperPodMocks()
    monitor = MockMonitor(mocks)
    mocks.monitor = monitor
    pulumi.runtime.set_mocks(mocks, project=project, stack="dev", preview=False, monitor=monitor)
    pulumi.runtime.set_all_config(stack_config(folder, project), [])
    monkeypatch.chdir(folder)

    @pulumi.runtime.test
    def program():
        runpy.run_path(str(folder / "__main__.py"), run_name="__main__")

    try:
        program()
    finally:
        pulumi.runtime.set_all_config({}, [])
    assert mocks.checks, "the program declared no cluster"
    for result in mocks.checks:
        assert not result.failures, [(f.property, f.reason) for f in result.failures]
        assert result.inputs["backend"] == "fake"  # examples run offline by default
    assert len(registered(mocks)[CLUSTER_TYPE]) == EXPECTED_CLUSTERS.get(folder.name, 1)
    assert os.getcwd() == str(folder)
