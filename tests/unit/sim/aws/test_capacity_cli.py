"""`hyperpod fake capacity TYPE COUNT|unlimited`: a capacity shortage in the persistent world, set
from the command line (examples/slurm-continuous-mincount's story), and lifted again."""

from __future__ import annotations

from click.testing import CliRunner

from pulumi_hyperpod.cli.app import main as hyperpod
from pulumi_hyperpod.sim.aws import Simulator
from tests.support.sim_helpers import seed000_request


def _run(*args: str):
    return CliRunner().invoke(hyperpod, ["--backend", "fake", *args], catch_exceptions=False)


def _worker_counts(sim: Simulator) -> tuple[int, int]:
    group = next(
        g
        for g in sim.client().describe_cluster(ClusterName="my-training-cluster")["InstanceGroups"]
        if g["InstanceGroupName"] == "worker-gpu-a"
    )
    return group["CurrentCount"], group["TargetCount"]


def test_a_shortage_keeps_continuous_nodes_retrying_until_lifted(tmp_path, monkeypatch):
    path = tmp_path / "fake.sqlite"
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(path))
    sim = Simulator(path, scenario={"speed": 0})
    result = _run("fake", "capacity", "ml.p5.48xlarge", "8")
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "ml.p5.48xlarge in every zone: 8 free"

    sim.client().create_cluster(**seed000_request(workers=16, MinInstanceCount=8))
    sim.advance(3600)
    assert _worker_counts(sim) == (8, 16)  # 8 arrive, 8 are retried

    assert _run("fake", "capacity", "ml.p5.48xlarge", "unlimited").output.strip() == "ml.p5.48xlarge in every zone: unlimited"
    sim.advance(3600)
    assert _worker_counts(sim) == (16, 16)


def test_bad_type_or_count_is_a_usage_error_and_changes_nothing(tmp_path, monkeypatch):
    path = tmp_path / "fake.sqlite"
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(path))
    for args, wanted in (
        (("ml.p5.huge", "8"), "is not a HyperPod instance type"),
        (("ml.p5.48xlarge", "eight"), "is not a whole number >= 0 or `unlimited`"),
        (("ml.p5.48xlarge", "2.5"), "is not a whole number"),
    ):
        result = CliRunner().invoke(hyperpod, ["--backend", "fake", "fake", "capacity", *args])
        assert result.exit_code == 1 and wanted in result.output, result.output
    assert not path.exists()
