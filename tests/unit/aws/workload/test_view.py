"""The workload view: read through any runner, matched by private DNS name, with a JSON form."""

from __future__ import annotations

import datetime as dt
import json

from pulumi_hyperpod import pipeline
from pulumi_hyperpod.aws.workload.model import WorkloadView
from pulumi_hyperpod.aws.workload.slurm import SlurmWorkload
from tests.support.factories import EPOCH, observed_from, slurm_spec


def _state():
    state = observed_from(slurm_spec(workers=2))
    summaries = [{**s, "PrivateDnsHostname": f"ip-10-0-0-{k}.us-west-2.compute.internal"} for k, s in enumerate(state.node_summaries)]
    return type(state).from_api(dict(state.describe), summaries)


def _squeue(job_id: int, name: str, hours: int) -> str:
    """`squeue --json` with alice's one running job on ip-10-0-0-2 and -3, ending `hours` after EPOCH."""
    job = {"job_id": job_id, "user_name": "alice", "name": name, "job_state": "RUNNING", "nodes": "ip-10-0-0-[2-3]"}
    return json.dumps({"jobs": [{**job, "end_time": int(EPOCH.timestamp()) + hours * 3600}]})


def _runner(command):
    if command[0] == "squeue":
        return _squeue(5, "t", 1)
    return json.dumps(
        {
            "nodes": [
                {"name": n, "state": "allocated" if n in ("ip-10-0-0-2", "ip-10-0-0-3") else "idle", "state_flags": [], "reason": ""}
                for n in ("ip-10-0-0-2", "ip-10-0-0-3", "login-1")
            ]
        }
    )


def test_a_job_on_two_nodes_shows_on_both_and_an_unmatched_slurm_node_is_noted() -> None:
    state = _state()
    source = SlurmWorkload(runner=_runner, clock=lambda: EPOCH)
    view = source.read(state)
    by_name = {w.name: w for w in view.nodes}
    assert set(by_name) == {"ip-10-0-0-0", "ip-10-0-0-1", "ip-10-0-0-2", "ip-10-0-0-3"} and view.unmatched == ("login-1",)
    assert all(by_name[n].describe(EPOCH) == "job 5 (alice) ends ≤ 01:00" for n in ("ip-10-0-0-2", "ip-10-0-0-3"))
    assert by_name["ip-10-0-0-0"].idle and by_name["ip-10-0-0-1"].idle  # squeue names no job on them
    prepared = pipeline.prepare(None, slurm_spec(workers=1), observed=state, workload=source, skip_preflight="test")
    assert "Slurm nodes no HyperPod node matches (not weighed): login-1" in prepared.plan.notes


def test_the_view_round_trips_through_its_json_form() -> None:
    view = SlurmWorkload(runner=_runner, clock=lambda: EPOCH + dt.timedelta(seconds=7)).read(_state())
    again = WorkloadView.from_dict(json.loads(json.dumps(view.to_dict())))
    assert again == view and again.node(view.nodes[0].instance_id) == view.nodes[0]


def _squeue_only(command):
    if command[0] == "squeue":
        return _squeue(9, "long", 24)
    return json.dumps({"nodes": []})  # sinfo lists nothing: squeue alone says which nodes work


def test_a_node_that_a_complete_squeue_shows_without_a_job_is_idle_not_unknown() -> None:
    state = _state()
    view = SlurmWorkload(runner=_squeue_only, clock=lambda: EPOCH).read(state)
    hosts = {s["InstanceId"]: s["PrivateDnsHostname"].split(".")[0] for s in state.node_summaries}
    idle = [i for i, host in hosts.items() if host not in ("ip-10-0-0-2", "ip-10-0-0-3")]
    assert idle, "the factory's cluster has nodes without a job"
    for instance in idle:
        work = view.node(instance)
        assert work is not None and work.idle, f"{instance} ({hosts[instance]}) is covered by squeue and runs no job"
        assert not work.listed, "idle by squeue's word, not a node Slurm lists (where slurmd runs is sinfo's to say)"
    assert all(view.node(i).listed for i, host in hosts.items() if host in ("ip-10-0-0-2", "ip-10-0-0-3"))
    # a scale-in by workload removes the idle nodes, never the 24-hour job's nodes while one is idle
    prepared = pipeline.prepare(
        None, slurm_spec(workers=1), observed=state, workload=SlurmWorkload(runner=_squeue_only, clock=lambda: EPOCH), skip_preflight="test"
    )
    for victim in prepared.plan.victims:
        assert "workload unknown" not in victim.reason


def test_a_job_that_ends_on_another_day_shows_its_date() -> None:
    from pulumi_hyperpod.aws.workload.model import Job, NodeWorkload

    later = EPOCH + dt.timedelta(hours=30)
    work = NodeWorkload("i-0", "n0", jobs=(Job("7", "bob", end_time=later),))
    assert work.describe(EPOCH) == f"job 7 (bob) ends ≤ {later:%Y-%m-%d %H:%M}"
    assert work.describe(later - dt.timedelta(hours=1)) == f"job 7 (bob) ends ≤ {later:%H:%M}"
    assert work.describe() == f"job 7 (bob) ends ≤ {later:%Y-%m-%d %H:%M}", "with no today to compare with, the date is shown"
