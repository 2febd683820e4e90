"""Slurm's --json outputs and hostlists, read as Slurm writes them (22.05 from the real Slurm on this
machine, saved; 23.02+'s shapes as its data_parser documents them)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from pulumi_hyperpod.aws.workload import slurm_json
from pulumi_hyperpod.slurm.hostlist import HostlistError, expand

DATA = Path(__file__).with_name("data")


@pytest.mark.parametrize(
    "hostlist, names",
    [
        ("ip-10-1-17-[1-3,7]", ["ip-10-1-17-1", "ip-10-1-17-2", "ip-10-1-17-3", "ip-10-1-17-7"]),
        ("gpu[01-02]-[a,b]", ["gpu01-a", "gpu01-b", "gpu02-a", "gpu02-b"]),
        ("n1,n2,n[3-4]", ["n1", "n2", "n3", "n4"]),
        ("ip-10-1-17-2", ["ip-10-1-17-2"]),
        ("", []),
        ("n[1-2],n2", ["n1", "n2"]),
    ],
)
def test_hostlists_expand_as_scontrol_show_hostnames(hostlist, names) -> None:
    assert expand(hostlist) == names


@pytest.mark.parametrize("bad", ["n[1-", "n]1[", "n[3-1]", "n[1-x]", "n[0-999999999]"])
def test_a_broken_hostlist_is_refused_with_its_text(bad) -> None:
    with pytest.raises(HostlistError, match="hostlist"):
        expand(bad)


@given(st.text("abcxyz-", min_size=1, max_size=6), st.lists(st.integers(0, 300), min_size=1, max_size=20, unique=True), st.integers(1, 4))
def test_ranges_written_in_any_order_expand_to_exactly_their_numbers(prefix, numbers, width) -> None:
    body = ",".join(str(n).zfill(width) for n in numbers)
    names = expand(f"{prefix}[{body}]")
    assert names == [f"{prefix}{str(n).zfill(width)}" for n in numbers]


def test_real_squeue_22_05_gives_running_jobs_with_their_end_and_nodes() -> None:
    jobs = slurm_json.jobs(json.loads((DATA / "squeue-22.05.json").read_text()))
    assert [(j.job_id, j.user, j.nodes, j.state) for j in jobs] == [
        ("1", "root", ("ip-10-1-17-2",), "RUNNING"),
        ("2", "root", ("ip-10-1-17-3",), "RUNNING"),
    ]
    assert jobs[0].end_time == dt.datetime.fromtimestamp(1796128224, dt.timezone.utc)


def test_real_sinfo_22_05_gives_the_drain_flag_and_reason() -> None:
    nodes = {n.name: n for n in slurm_json.nodes(json.loads((DATA / "sinfo-22.05.json").read_text()))}
    assert nodes["ip-10-1-17-3"].drained and nodes["ip-10-1-17-3"].reason == "hyperpod scale-in"
    assert not nodes["ip-10-1-17-1"].drained and nodes["ip-10-1-17-1"].state == "idle"


def test_squeue_23_shapes_numbers_as_objects_and_states_as_lists() -> None:
    document = {
        "jobs": [
            {
                "job_id": 7,
                "user_name": "alice",
                "name": "train",
                "job_state": ["RUNNING"],
                "nodes": "ip-1-[1-2]",
                "end_time": {"set": True, "infinite": False, "number": 1800000000},
                "time_limit": {"set": True, "infinite": False, "number": 60},
            },
            {
                "job_id": 8,
                "user_name": "bob",
                "name": "forever",
                "job_state": ["RUNNING"],
                "nodes": "ip-1-3",
                "end_time": {"set": True, "infinite": False, "number": 1800000000},
                "time_limit": {"set": False, "infinite": True, "number": 0},
            },
            {"job_id": 9, "user_name": "carol", "job_state": ["PENDING"], "nodes": ""},
            {"job_id": 10, "user_name": "dan", "job_state": ["COMPLETED"], "nodes": "ip-1-4"},
        ]
    }
    jobs = slurm_json.jobs(document)
    assert [(j.job_id, j.nodes) for j in jobs] == [("7", ("ip-1-1", "ip-1-2")), ("8", ("ip-1-3",))]
    assert jobs[0].end_time is not None and jobs[1].end_time is None  # an unlimited job has no end


def test_sinfo_23_groups_nodes_by_state() -> None:
    document = {
        "sinfo": [
            {
                "nodes": {"nodes": ["a", "b"]},
                "node": {"state": ["IDLE", "DRAIN"]},
                "reason": {"description": "hyperpod scale-in since 2026-12-01T10:00:00Z", "time": 1},
            },
            {"nodes": {"nodes": ["c"]}, "node": {"state": ["ALLOCATED"]}, "reason": {"description": ""}},
        ]
    }
    nodes = {n.name: n for n in slurm_json.nodes(document)}
    assert nodes["a"].drained and nodes["b"].drained and not nodes["c"].drained and nodes["c"].state == "allocated"


@pytest.mark.parametrize(
    "document, message",
    [
        ({"x": 1}, "not the --json output"),
        ([], "not the --json output"),
    ],
)
def test_what_is_not_a_slurm_output_is_said_so(document, message) -> None:
    with pytest.raises(slurm_json.SlurmOutputError, match=message):
        slurm_json.kind_of(document)


def test_a_job_without_an_id_or_with_a_bad_hostlist_names_its_index() -> None:
    with pytest.raises(slurm_json.SlurmOutputError, match=r"jobs\[0\]\.nodes"):
        slurm_json.jobs({"jobs": [{"job_id": 1, "job_state": "RUNNING", "nodes": "n[1-"}]})
    with pytest.raises(slurm_json.SlurmOutputError, match=r"jobs\[0\] has no job_id"):
        slurm_json.jobs({"jobs": [{"job_state": "RUNNING", "nodes": "n1"}]})
