"""`hyperpod plan|apply` with a workload, and `hyperpod fake workload`, on a persistent simulator."""

from __future__ import annotations

import json

import pytest

from pulumi_hyperpod.sim.aws.simulator import Simulator
from pulumi_hyperpod.sim.workload.hyperpod import SimulatedSlurm
from tests.support.cli import SPECS, hyperpod, slurm_workload_world


@pytest.fixture()
def slurm_world(monkeypatch, tmp_path):
    return slurm_workload_world(monkeypatch, tmp_path)


def test_saved_squeue_and_sinfo_files_plan_offline_against_a_snapshot(slurm_world) -> None:
    runner = SimulatedSlurm(Simulator.open_default(), "workload-demo")
    (slurm_world / "squeue.json").write_text(runner(["squeue", "--json"]))
    (slurm_world / "sinfo.json").write_text(runner(["sinfo", "--json"]))
    (slurm_world / "snap.json").write_text(hyperpod("snapshot", "workload-demo"))
    out = hyperpod(
        "plan",
        "-f",
        str(SPECS / "workload-slurm-2.json"),
        "--observed",
        "snap.json",
        "--workload",
        "squeue.json",
        "--workload",
        "sinfo.json",
        "--json",
    )
    the_plan = json.loads(out)
    reasons = [v["reason"] for step in the_plan["steps"] for v in step["victims"]]
    assert reasons == ["idle: idle nodes go first", "idle: idle nodes go first"]


def test_a_workload_file_that_is_not_slurm_output_is_one_line_and_exit_1(slurm_world) -> None:
    (slurm_world / "bad.json").write_text('{"hello": 1}')
    out = hyperpod("plan", "-f", str(SPECS / "workload-slurm-2.json"), "--workload", "bad.json", code=1)
    assert "bad.json: not the --json output of squeue, sinfo or scontrol show nodes" in out
    assert len([line for line in out.splitlines() if line.strip()]) == 1


def test_files_and_a_live_source_together_are_refused(slurm_world) -> None:
    (slurm_world / "squeue.json").write_text('{"jobs": []}')
    out = hyperpod("plan", "-f", str(SPECS / "workload-slurm-2.json"), "--workload", "squeue.json", "--read-workload", code=1)
    assert "not both" in out


def test_apply_with_drain_drains_waits_for_the_job_and_deletes(slurm_world) -> None:
    out = hyperpod(
        "apply",
        "-f",
        str(SPECS / "workload-slurm-1.json"),
        "--read-workload",
        "--policy",
        str(SPECS.parent / "policies" / "workload-drain.yaml"),
        "--yes",
        "--wait",
        "none",
    )
    assert "waiting: " in out and "job 4122 (bob)" in out and "removing 3 node(s)" in out
    shown = hyperpod("fake", "workload", "show", "workload-demo", "--json")
    assert [row["what"].split()[1] for row in json.loads(shown)] == ["4121"]  # alice's job is still running


def test_a_node_that_is_not_there_is_one_line_and_exit_1(slurm_world) -> None:
    out = hyperpod("fake", "workload", "submit", "workload-demo", "--node", "workers:9", "--runs", "1h", code=1)
    assert "group workers of cluster workload-demo has 4 running node(s)" in out


def test_a_saved_drain_plan_is_applied_exactly_with_the_workload_given_at_apply(slurm_world) -> None:
    hyperpod(
        "plan",
        "-f",
        str(SPECS / "workload-slurm-1.json"),
        "--read-workload",
        "--policy",
        str(SPECS.parent / "policies" / "workload-drain.yaml"),
        "--out",
        "p.json",
    )
    saved = json.loads((slurm_world / "p.json").read_text())
    assert [s["operation"] for s in saved["plan"]["steps"]] == ["DrainNodes", "BatchDeleteClusterNodes"]
    out = hyperpod("apply", "--plan", "p.json", "--yes", "--wait", "none", code=1)  # no source to drain through
    assert "no workload source was given" in out
    out = hyperpod("apply", "--plan", "p.json", "--read-workload", "--yes", "--wait", "none")
    assert "removing 3 node(s)" in out
