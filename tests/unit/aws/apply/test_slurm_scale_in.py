"""A Slurm group of 4 with jobs on two nodes, scaled to 2, on the simulator: the idle nodes go; with
drain, a scale-in that needs a busy node drains it, waits for its job, then deletes it."""

from __future__ import annotations

import datetime as dt

import pytest

from pulumi_hyperpod import pipeline
from pulumi_hyperpod.aws.apply.drain import DrainTimedOut
from pulumi_hyperpod.plans import Policy, plan_text
from pulumi_hyperpod.sim.workload.hyperpod import SimulatedSlurm, submit_job, workload_source

from tests.support.workload_clusters import running_cluster, scaled, slurm_request, workers


@pytest.fixture()
def busy_cluster():
    """4 workers; jobs on the two a state-ordered scale-in would take first (alice 2 h, bob 30 min)."""
    request = slurm_request("train", 4)
    sim, client = running_cluster(request)
    nodes = workers(client, "train")
    jobs = {
        nodes[0]["InstanceId"]: submit_job(sim, "train", nodes[0]["InstanceId"], 2 * 3600, user="alice"),
        nodes[1]["InstanceId"]: submit_job(sim, "train", nodes[1]["InstanceId"], 1800, user="bob"),
    }
    return sim, client, request, nodes, jobs


def test_the_preview_names_the_two_idle_nodes_and_says_what_runs_on_each(busy_cluster) -> None:
    sim, client, request, nodes, _jobs = busy_cluster
    prepared = pipeline.prepare(client, scaled(request, 2), workload=workload_source(sim, "train"), skip_preflight="test")
    victims = prepared.plan.victims
    assert sorted(v.node_id for v in victims) == sorted(n["InstanceId"] for n in nodes[2:])
    assert all(v.reason.startswith("idle: ") for v in victims)
    assert [s.operation for s in prepared.plan.steps] == ["BatchDeleteClusterNodes"]  # policy.drain defaults to none


def test_state_order_would_take_the_busy_newest_nodes_and_say_what_they_run(busy_cluster) -> None:
    sim, client, request, nodes, jobs = busy_cluster
    policy = Policy(scale_in_order="state")
    prepared = pipeline.prepare(client, scaled(request, 2), policy=policy, workload=workload_source(sim, "train"), skip_preflight="test")
    victims = {v.node_id: v.reason for v in prepared.plan.victims}
    assert sorted(victims) == sorted(n["InstanceId"] for n in nodes[:2])
    assert f"runs: job {jobs[nodes[1]['InstanceId']]} (bob) ends ≤" in victims[nodes[1]["InstanceId"]]


def test_without_a_workload_the_order_is_the_state_order(busy_cluster) -> None:
    _sim, client, request, nodes, _ = busy_cluster
    prepared = pipeline.prepare(client, scaled(request, 2), skip_preflight="test")
    assert sorted(v.node_id for v in prepared.plan.victims) == sorted(n["InstanceId"] for n in nodes[:2])


def test_remove_first_goes_before_idle_nodes(busy_cluster) -> None:
    sim, client, request, nodes, _jobs = busy_cluster
    chosen = nodes[1]["InstanceId"]
    prepared = pipeline.prepare(
        client,
        scaled(request, 3),
        policy=Policy(remove_first=frozenset({chosen})),
        workload=workload_source(sim, "train"),
        skip_preflight="test",
    )
    assert [v.node_id for v in prepared.plan.victims] == [chosen]
    assert prepared.plan.victims[0].reason.startswith("listed in policy.remove_first; job ")


def test_a_drain_that_needs_a_busy_node_drains_it_waits_for_its_job_then_deletes_it(busy_cluster) -> None:
    sim, client, request, nodes, jobs = busy_cluster
    source = workload_source(sim, "train")
    policy = Policy(drain="drain", drain_timeout=3 * 3600)
    prepared = pipeline.prepare(client, scaled(request, 1), policy=policy, workload=source, skip_preflight="test")
    the_plan = prepared.plan
    assert [s.operation for s in the_plan.steps] == ["DrainNodes", "BatchDeleteClusterNodes"]
    assert the_plan.calls() == {"BatchDeleteClusterNodes": 1}  # the drain is no API call
    drain = the_plan.steps[0]
    bob = nodes[1]["InstanceId"]
    assert {n["NodeId"] for n in drain.request["Nodes"]} == {nodes[2]["InstanceId"], nodes[3]["InstanceId"], bob}
    assert 1700 <= drain.request["ExpectedWaitSeconds"] <= 1800  # bob's job: 30 minutes
    text = plan_text(the_plan, width=200)
    assert "DrainNodes" in text and "expected wait 30 min" in text

    result = pipeline.execute(client, the_plan, policy=policy, workload=source, poll_seconds=60, sleep=sim.advance)
    assert result.ok, result.failures
    drained_at = next(i for i, m in enumerate(result.messages) if m.startswith("drained ip-"))
    waited = [m for m in result.messages if m.startswith("waiting: ") and f"job {jobs[bob]} (bob)" in m]
    removing = next(i for i, m in enumerate(result.messages) if m.startswith("removing "))
    assert waited and drained_at < removing
    left = {n["InstanceId"] for n in workers(client, "train") if n["InstanceStatus"]["Status"] == "Running"}
    assert left == {nodes[0]["InstanceId"]}  # alice's 2-hour job is the one kept
    drains = [c for c in source.runner.commands if c[0] == "scontrol"]
    assert len(drains) == 1 and "state=DRAIN" in drains[0] and drains[0][-1].startswith("reason=hyperpod scale-in since ")


def test_at_the_deadline_apply_stops_names_the_nodes_and_deletes_nothing(busy_cluster) -> None:
    sim, client, request, _nodes, _jobs = busy_cluster
    source = workload_source(sim, "train")
    policy = Policy(drain="drain", drain_timeout=600)
    prepared = pipeline.prepare(client, scaled(request, 1), policy=policy, workload=source, skip_preflight="test")
    with pytest.raises(DrainTimedOut) as stopped:
        pipeline.execute(client, prepared.plan, policy=policy, workload=source, poll_seconds=60, sleep=sim.advance)
    assert "nothing was deleted" in str(stopped.value) and "BatchDeleteClusterNodes" not in stopped.value.done
    assert len(stopped.value.nodes) == 3
    assert all(n["InstanceStatus"]["Status"] == "Running" for n in workers(client, "train"))
    view = source.read(pipeline.observe(client, "train"))
    assert sum(1 for w in view.nodes if w.ours) == 3  # left drained


def test_a_re_run_after_a_stop_resumes_the_same_drain_with_the_same_deadline(busy_cluster) -> None:
    sim, client, request, nodes, _jobs = busy_cluster
    source = workload_source(sim, "train")
    short = Policy(drain="drain", drain_timeout=600)
    # the plan wants one node; make it drain a busy one: remove_first names bob's node
    bob = nodes[1]["InstanceId"]
    first = pipeline.prepare(
        client,
        scaled(request, 3),
        policy=short.model_copy(update={"remove_first": frozenset({bob})}),
        workload=source,
        skip_preflight="test",
    )
    with pytest.raises(DrainTimedOut):
        pipeline.execute(client, first.plan, policy=short, workload=source, poll_seconds=60, sleep=sim.advance)
    # planned again without remove_first: the node already drained for the scale-in goes first again
    longer = Policy(drain="drain", drain_timeout=3600)
    again = pipeline.prepare(client, scaled(request, 3), policy=longer, workload=source, skip_preflight="test")
    assert [v.node_id for v in again.plan.victims] == [bob]
    assert "drained already for a scale-in" in again.plan.victims[0].reason
    result = pipeline.execute(client, again.plan, policy=longer, workload=source, poll_seconds=60, sleep=sim.advance)
    assert result.ok and any(m.startswith("resuming the drain that started") for m in result.messages)
    assert sum(1 for c in source.runner.commands if c[0] == "scontrol") == 1  # drained once, not again


def test_a_drain_plan_applied_without_a_workload_source_refuses_before_any_call(busy_cluster) -> None:
    sim, client, request, _nodes, _jobs = busy_cluster
    policy = Policy(drain="cordon")
    prepared = pipeline.prepare(client, scaled(request, 2), policy=policy, workload=workload_source(sim, "train"), skip_preflight="test")
    sim.reset_calls()
    from pulumi_hyperpod import ApplyError

    with pytest.raises(ApplyError, match="no workload source was given"):
        pipeline.execute(client, prepared.plan, policy=policy, poll_seconds=60, sleep=sim.advance)
    assert not [op for op, _ in sim.calls if op.startswith(("Batch", "Update"))]


def test_the_simulated_slurm_answers_like_slurm_22_05(busy_cluster) -> None:
    sim, _client, _request, _nodes, jobs = busy_cluster
    runner = SimulatedSlurm(sim, "train")
    import json

    queue = json.loads(runner(["squeue", "--json"]))
    assert queue["meta"]["Slurm"]["release"] == "22.05.8"
    assert {str(j["job_id"]) for j in queue["jobs"]} == set(jobs.values())
    assert all(j["job_state"] == "RUNNING" and j["end_time"] > j["start_time"] for j in queue["jobs"])
    with pytest.raises(Exception, match="reason"):
        runner(["scontrol", "update", f"nodename={json.loads(runner(['sinfo', '--json']))['nodes'][0]['name']}", "state=DRAIN"])


def test_cordon_marks_the_nodes_drained_and_deletes_at_once_without_waiting(busy_cluster) -> None:
    sim, client, request, nodes, _jobs = busy_cluster
    source = workload_source(sim, "train")
    policy = Policy(drain="cordon", remove_first=frozenset({nodes[1]["InstanceId"]}))
    prepared = pipeline.prepare(client, scaled(request, 3), policy=policy, workload=source, skip_preflight="test")
    assert prepared.plan.steps[0].request["ExpectedWaitSeconds"] == 0
    before = sim.now()
    result = pipeline.execute(client, prepared.plan, policy=policy, workload=source, poll_seconds=60, sleep=sim.advance, wait="none")
    assert result.ok and not any(m.startswith("waiting: ") for m in result.messages)
    assert (sim.now() - before).total_seconds() < 60  # no wait for bob's 30-minute job
    assert next(c[-2:] for c in source.runner.commands if c[0] == "scontrol")[0] == "state=DRAIN"


def test_a_crash_mid_drain_resumes_on_the_next_run_and_keeps_the_first_deadline(busy_cluster) -> None:
    sim, client, request, nodes, _jobs = busy_cluster
    source = workload_source(sim, "train")
    bob = nodes[1]["InstanceId"]
    policy = Policy(drain="drain", drain_timeout=2400, remove_first=frozenset({bob}))
    prepared = pipeline.prepare(client, scaled(request, 3), policy=policy, workload=source, skip_preflight="test")

    class Crash(Exception):
        pass

    def crash_after_ten_minutes(seconds: float) -> None:
        sim.advance(seconds)
        if sim.now() >= started + dt.timedelta(minutes=10):
            raise Crash()

    started = sim.now()
    with pytest.raises(Crash):
        pipeline.execute(client, prepared.plan, policy=policy, workload=source, poll_seconds=60, sleep=crash_after_ten_minutes)
    assert all(n["InstanceStatus"]["Status"] == "Running" for n in workers(client, "train"))  # nothing deleted yet
    again = pipeline.prepare(
        client, scaled(request, 3), policy=policy.model_copy(update={"remove_first": frozenset()}), workload=source, skip_preflight="test"
    )
    assert [v.node_id for v in again.plan.victims] == [bob]
    assert 1150 <= again.plan.steps[0].request["ExpectedWaitSeconds"] <= 1200  # 20 of bob's 30 minutes are left
    result = pipeline.execute(client, again.plan, policy=policy, workload=source, poll_seconds=60, sleep=sim.advance)
    assert result.ok and any("resuming the drain that started" in m for m in result.messages)
    assert bob not in {n["InstanceId"] for n in workers(client, "train") if n["InstanceStatus"]["Status"] == "Running"}


def test_the_deadline_of_a_resumed_drain_is_counted_from_the_first_run(busy_cluster) -> None:
    sim, client, request, nodes, _jobs = busy_cluster
    source = workload_source(sim, "train")
    bob = nodes[1]["InstanceId"]
    policy = Policy(drain="drain", drain_timeout=1500, remove_first=frozenset({bob}))  # 25 min < bob's 30
    prepared = pipeline.prepare(client, scaled(request, 3), policy=policy, workload=source, skip_preflight="test")
    started = sim.now()

    def stop_after_ten_minutes(seconds: float) -> None:
        sim.advance(seconds)
        if sim.now() >= started + dt.timedelta(minutes=10):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        pipeline.execute(client, prepared.plan, policy=policy, workload=source, poll_seconds=60, sleep=stop_after_ten_minutes)
    again = pipeline.prepare(client, scaled(request, 3), policy=policy, workload=source, skip_preflight="test")
    with pytest.raises(DrainTimedOut) as stopped:
        pipeline.execute(client, again.plan, policy=policy, workload=source, poll_seconds=60, sleep=sim.advance)
    deadline = (started.replace(microsecond=0) + dt.timedelta(seconds=1500)).strftime("%Y-%m-%d %H:%M:%SZ")
    assert f"drain deadline {deadline} passed" in str(stopped.value)
    assert sim.now() < started + dt.timedelta(minutes=27)  # not 10 + 25 minutes
