"""The workload view: read through any runner, matched by private DNS name, with a JSON form."""

from __future__ import annotations

import datetime as dt
import json

from pulumi_hyperpod import pipeline
from pulumi_hyperpod.workload.model import WorkloadView
from pulumi_hyperpod.workload.slurm import SlurmWorkload
from tests.core.factories import EPOCH, observed_from, slurm_spec


def _state():
    state = observed_from(slurm_spec(workers=2))
    summaries = [{**s, "PrivateDnsHostname": f"ip-10-0-0-{k}.us-west-2.compute.internal"} for k, s in enumerate(state.node_summaries)]
    return type(state).from_api(dict(state.describe), summaries)


def _runner(command):
    if command[0] == "squeue":
        return json.dumps(
            {
                "jobs": [
                    {
                        "job_id": 5,
                        "user_name": "alice",
                        "name": "t",
                        "job_state": "RUNNING",
                        "nodes": "ip-10-0-0-[2-3]",
                        "end_time": int(EPOCH.timestamp()) + 3600,
                    }
                ]
            }
        )
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
    assert set(by_name) == {"ip-10-0-0-2", "ip-10-0-0-3"} and view.unmatched == ("login-1",)
    assert all(w.describe() == "job 5 (alice) ends ≤ 01:00" for w in by_name.values())
    prepared = pipeline.prepare(None, slurm_spec(workers=1), observed=state, workload=source, skip_preflight="test")
    assert "Slurm nodes no HyperPod node matches (not weighed): login-1" in prepared.plan.notes


def test_the_view_round_trips_through_its_json_form() -> None:
    view = SlurmWorkload(runner=_runner, clock=lambda: EPOCH + dt.timedelta(seconds=7)).read(_state())
    again = WorkloadView.from_dict(json.loads(json.dumps(view.to_dict())))
    assert again == view and again.node(view.nodes[0].instance_id) == view.nodes[0]
