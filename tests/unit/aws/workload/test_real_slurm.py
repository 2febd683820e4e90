"""The Slurm path against a real Slurm (Debian's slurm-wlm, installed by scripts/install): a
slurmctld and 4 slurmd on this machine named as HyperPod names the simulator's nodes, real sbatch
jobs, real `squeue --json` / `sinfo --json`, a real DRAIN. Skipped where Slurm cannot run (not root,
not installed) — except on CI, where the project's install step puts it there: a failure then."""

from __future__ import annotations

import json
import os
import time

import pytest

from pulumi_hyperpod import pipeline
from pulumi_hyperpod.plans import Policy
from pulumi_hyperpod.aws.workload.slurm import CommandRunner, SlurmWorkload, from_files
from pulumi_hyperpod.sim.workload.hyperpod import slurm_names
from tests.support.real_slurm import RealSlurm, why_not_available

from tests.support.workload_clusters import running_cluster, scaled, slurm_request, workers


@pytest.fixture(scope="module")
def hyperpod_with_slurm(tmp_path_factory):
    why = why_not_available()
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"the real Slurm tests must run on CI: {why}")
        pytest.skip(why)
    request = slurm_request("real", 4)
    sim, client = running_cluster(request)
    with sim._world() as world:
        names = sorted(slurm_names(sim._cluster(world, "real")))
    controller_and_workers = {n["InstanceId"] for n in workers(client, "real")}
    slurm = RealSlurm(tmp_path_factory.mktemp("slurm"), [name for name in names])
    slurm.start()
    try:
        yield sim, client, request, slurm, controller_and_workers
    finally:
        slurm.stop()


def _wait_running(slurm: RealSlurm, count: int) -> None:
    for _ in range(60):
        jobs = json.loads(slurm.run("squeue", "--json"))["jobs"]
        if sum(1 for j in jobs if j["job_state"] == "RUNNING") >= count:
            return
        time.sleep(0.5)
    raise AssertionError(f"jobs did not start: {slurm.run('squeue')}")


def _names_by_instance(client) -> dict[str, str]:
    state = pipeline.observe(client, "real")
    from pulumi_hyperpod.aws.workload.match import slurm_names as by_name

    return {instance: name for name, instance in by_name(state).items()}


def test_real_squeue_and_sinfo_feed_the_plan_and_a_real_drain_waits_for_a_real_job(hyperpod_with_slurm, tmp_path) -> None:
    _sim, client, request, slurm, _worker_ids = hyperpod_with_slurm
    names = _names_by_instance(client)
    nodes = workers(client, "real")
    busy = [names[n["InstanceId"]] for n in nodes[:2]]  # the two a state-ordered scale-in would take
    long_job = slurm.sbatch(busy[0], 600, time_limit_minutes=30, name="pretrain")
    short_job = slurm.sbatch(busy[1], 3, time_limit_minutes=1, name="eval")
    _wait_running(slurm, 2)
    source = SlurmWorkload(runner=CommandRunner(env={"SLURM_CONF": str(slurm.conf)}))

    # 4 → 2: the preview names the two idle nodes
    preview = pipeline.prepare(client, scaled(request, 2), workload=source, skip_preflight="test")
    assert sorted(v.node_id for v in preview.plan.victims) == sorted(n["InstanceId"] for n in nodes[2:])
    assert all(v.reason.startswith("idle: ") for v in preview.plan.victims)

    # the same view from saved files (hyperpod plan --workload FILE)
    (tmp_path / "squeue.json").write_text(slurm.run("squeue", "--json"))
    (tmp_path / "sinfo.json").write_text(slurm.run("sinfo", "--json"))
    saved = from_files([str(tmp_path / "squeue.json"), str(tmp_path / "sinfo.json")], pipeline.observe(client, "real"))
    assert {w.name for w in saved.nodes if w.jobs} == set(busy)
    assert f"job {long_job} (root) ends ≤" in saved.node(nodes[0]["InstanceId"]).describe()

    # 4 → 1 with drain: the busy node whose job ends first is drained, waited for, then deleted
    policy = Policy(drain="drain", drain_timeout=300)
    plan = pipeline.prepare(client, scaled(request, 1), policy=policy, workload=source, skip_preflight="test").plan
    assert [s.operation for s in plan.steps] == ["DrainNodes", "BatchDeleteClusterNodes"]
    assert nodes[1]["InstanceId"] in {v.node_id for v in plan.victims}
    assert nodes[0]["InstanceId"] not in {v.node_id for v in plan.victims}
    result = pipeline.execute(client, plan, policy=policy, workload=source, poll_seconds=1, sleep=time.sleep, wait="none")
    assert result.ok, result.failures
    assert any(f"job {short_job} (root)" in m for m in result.messages if m.startswith("waiting: "))
    sinfo = {n["name"]: n for n in json.loads(slurm.run("sinfo", "--json"))["nodes"]}
    assert "DRAIN" in sinfo[busy[1]]["state_flags"] and sinfo[busy[1]]["reason"].startswith("hyperpod scale-in since ")
    assert "DRAIN" not in sinfo[busy[0]]["state_flags"]
    running = {n["InstanceId"] for n in workers(client, "real") if n["InstanceStatus"]["Status"] == "Running"}
    assert running == {nodes[0]["InstanceId"]}
