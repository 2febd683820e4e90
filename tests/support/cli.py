"""The `hyperpod` CLI on a persistent simulator world in a temp dir, as several suites drive it."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from tests.support.paths import SPECS

# the calls that change a cluster: a refused or stale plan must make none of them
MUTATING = ("CreateCluster", "UpdateCluster", "BatchAddClusterNodes", "BatchDeleteClusterNodes", "DeleteCluster")


def use_fake_world(monkeypatch, directory: Path) -> Path:
    """Point the CLI (and `Simulator.open_default()`) at a fresh SQLite world under `directory`,
    polling fast, with `directory` as the working directory. Returns the world's path."""
    state = directory / "fake.sqlite"
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(state))
    monkeypatch.setenv("HYPERPOD_POLL_SECONDS", "0.05")
    monkeypatch.chdir(directory)
    return state


def hyperpod(*args: str, code: int = 0) -> str:
    """`hyperpod --backend fake ARGS`; asserts the exit code and returns the output."""
    result = CliRunner().invoke(main, ["--backend", "fake", *args], catch_exceptions=False)
    assert result.exit_code == code, f"exit {result.exit_code}:\n{result.output}"
    return result.output


def seed004_world(monkeypatch, directory: Path) -> Path:
    """A persistent simulated world in `directory` holding seed 004's cluster, created and running."""
    use_fake_world(monkeypatch, directory)
    hyperpod("apply", "-f", str(SPECS / "seed004-initial.json"), "--yes", "--wait", "Target", "--timeout", "600")
    return directory


def slurm_workload_world(monkeypatch, directory: Path) -> Path:
    """A persistent world in `directory` holding the workload demo's Slurm cluster (4 workers), with
    alice's 3-hour job on its first worker and bob's 20-minute one on its second."""
    use_fake_world(monkeypatch, directory)
    hyperpod("apply", "-f", str(SPECS / "workload-slurm-4.json"), "--yes", "--wait", "Target")
    hyperpod("fake", "workload", "submit", "workload-demo", "--node", "workers:1", "--runs", "3h", "--user", "alice")
    hyperpod("fake", "workload", "submit", "workload-demo", "--node", "workers:2", "--runs", "20m", "--user", "bob")
    return directory
