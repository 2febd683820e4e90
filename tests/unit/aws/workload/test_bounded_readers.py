"""Issue 36, items 11 and 12: bounded readers. A Slurm hostlist is counted before it is expanded; every
time user data carries is range-checked by one reader (core/timestamps.py) into one
`error: FILE: FIELD: …` line — in --workload files, snapshots, saved plans, the Kubernetes API's
answers, and the time filters sent to the simulator (a ValidationException, 400, never a 500)."""

from __future__ import annotations

import copy
import json
import time
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.core.timestamps import TimestampError, read_time
from pulumi_hyperpod.slurm.hostlist import HostlistError, expand
from tests.support.paths import BADINPUT, SPECS

EXPECTED: dict[str, list[str]] = json.loads((BADINPUT / "expected-workload.json").read_text())
SPEC = SPECS / "seed004-scale-in.json"
SNAPSHOT = BADINPUT / "base-snapshot.json"


# ---- hostlists ------------------------------------------------------------------------------------
def test_a_hostlist_is_counted_before_it_is_expanded():
    tracemalloc.start()
    started = time.monotonic()
    with pytest.raises(HostlistError, match="names 1,000,000 nodes; at most 100,000"):
        expand("ip-[0-999]-[0-99]-[0-9]")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 1_000_000 and time.monotonic() - started < 0.5  # not one name was built


@pytest.mark.parametrize(
    "hostlist, rule",
    [
        ("ip-[0-9999]-[0-9999]-[0-9]", "names 1,000,000,000 nodes"),  # was a MemoryError
        ("ip-[0-" + "9" * 5000 + "]", "more than 18 digits"),  # was Python's 4,300-digit ValueError
        ("n[" + ",".join(["0-99999"] * 50) + "]", "names 5,000,000 nodes"),
        (",".join(["n[0-99999]"] * 50), "names 5,000,000 nodes"),
    ],
)
def test_every_way_to_name_too_many_nodes_is_refused(hostlist, rule):
    with pytest.raises(HostlistError, match=rule):
        expand(hostlist)


def test_hostlists_still_expand_as_scontrol_does():
    assert expand("ip-10-1-17-[1-3,7]") == ["ip-10-1-17-1", "ip-10-1-17-2", "ip-10-1-17-3", "ip-10-1-17-7"]
    assert expand("gpu[01-02]-[a,b]") == ["gpu01-a", "gpu01-b", "gpu02-a", "gpu02-b"]
    assert expand("n1,n2,n1") == ["n1", "n2"]
    assert len(expand("n[1-100000]")) == 100_000  # the bound itself is allowed


# ---- the one timestamp reader ---------------------------------------------------------------------
@pytest.mark.parametrize("value", [1e20, "1e20", -1, float("inf"), float("nan"), 10**400, "99999-01-01", "yesterday", True, None, []])
def test_a_time_out_of_range_or_not_a_time_is_one_rule(value):
    with pytest.raises(TimestampError) as refused:
        read_time(value)
    assert "\n" not in str(refused.value) and ("must be a time from" in str(refused.value) or "timestamp" in str(refused.value))


@pytest.mark.parametrize("value", [1767225600, 1767225600.5, "2026-01-01T00:00:00Z", "2026-01-01T01:00:00+01:00", "1767225600"])
def test_real_times_are_read_as_utc(value):
    assert read_time(value).isoformat().startswith("2026-01-01T00:00:00")


# ---- the corpus of --workload files ---------------------------------------------------------------
def test_the_workload_corpus_is_complete():
    assert sorted(p.name for p in (BADINPUT / "corpus-workload").iterdir()) == sorted(EXPECTED), "re-run make_corpus.py"


@pytest.fixture
def world(tmp_path, monkeypatch):
    from pulumi_hyperpod.sim.aws import Simulator

    state = tmp_path / "fake.sqlite"
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(state))
    return Simulator(state)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_bad_workload_file_is_one_line_naming_the_file_and_the_field(world, name):
    path, rule = EXPECTED[name]
    file = BADINPUT / "corpus-workload" / name
    started = time.monotonic()
    result = CliRunner().invoke(main, ["--backend", "fake", "plan", "-f", str(SPEC), "--observed", str(SNAPSHOT), "--workload", str(file)])
    assert time.monotonic() - started < 5
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and (result.exception is None or isinstance(result.exception, SystemExit)), result.output
    assert result.output.splitlines() == [line for line in result.output.splitlines() if line.startswith(f"error: {file}: {path}: ")], (
        result.output
    )
    assert len(result.output.splitlines()) == 1 and rule in result.output, result.output
    assert world.calls == []


# ---- saved plans ----------------------------------------------------------------------------------
@pytest.fixture
def saved_plan(tmp_path, monkeypatch):
    """A saved scale-in of seed 004's cluster (three nodes → one), and a way to edit and reseal it."""
    from tests.support.cli import SPECS, hyperpod, seed004_world

    seed004_world(monkeypatch, tmp_path)
    hyperpod("apply", "-f", str(SPECS / "seed004-scale-out.json"), "--yes", "--wait", "Target", "--timeout", "600")
    path = tmp_path / "plan.json"
    hyperpod("plan", "-f", str(SPECS / "seed004-scale-in.json"), "--out", str(path))

    def resealed(edit) -> Path:
        from pulumi_hyperpod.core.planfile import digest

        data = json.loads(path.read_text())
        edit(data)
        body = {k: v for k, v in data.items() if k != "integrity"}
        edited = tmp_path / "edited.json"
        edited.write_text(json.dumps({**body, "integrity": digest(body)}))
        return edited

    return resealed


def _one_error(args, file: Path, field: str) -> str:
    result = CliRunner().invoke(main, ["--backend", "fake", *args])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and (result.exception is None or isinstance(result.exception, SystemExit)), result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and str(file) in errors[0] and field in errors[0] and "must be a time from 1970-01-01" in errors[0], (
        result.output
    )
    return errors[0]


@pytest.mark.parametrize("field", ["LaunchTime", "CreationTime"])
def test_a_saved_plans_times_out_of_range_are_one_line(saved_plan, field):
    def edit(data):
        observed = data["observed"]
        if field == "LaunchTime":
            observed["ClusterNodeSummaries"][0]["LaunchTime"] = 1e20
        else:
            observed["DescribeCluster"]["CreationTime"] = 1e20

    file = saved_plan(edit)
    _one_error(["apply", "--plan", str(file), "--yes"], file, field)


def test_a_saved_workload_views_times_out_of_range_are_one_line(saved_plan):
    def edit(data):
        data["workload"] = {
            "format": json.loads(json.dumps(_view_format())),
            "orchestrator": "Slurm",
            "observed_at": "2026-01-01T00:00:00+00:00",
            "source": "files",
            "unmatched": [],
            "nodes": [
                {
                    "instance_id": "i-1",
                    "name": "n",
                    "jobs": [{"job_id": "1", "user": "u", "name": "j", "end_time": "9999-12-31T23:59:59+00:00", "state": "RUNNING"}],
                }
            ],
        }

    file = saved_plan(edit)
    line = _one_error(["apply", "--plan", str(file), "--yes"], file, "workload.nodes[0].jobs[0].end_time")
    assert line.startswith(f"error: {file}: workload.nodes[0].jobs[0].end_time: must be a time")


def _view_format() -> str:
    from pulumi_hyperpod.aws.workload.model import VIEW_FORMAT

    return VIEW_FORMAT


# ---- the Kubernetes API's answers ------------------------------------------------------------------
@pytest.mark.parametrize(
    "pod_edit, field",
    [
        (lambda pod: pod["status"].update(startTime="2300-01-01T00:00:00Z"), "status.startTime"),
        (lambda pod: pod["spec"].update(activeDeadlineSeconds=10**20), "spec.activeDeadlineSeconds"),
    ],
)
def test_a_pods_times_out_of_range_are_a_workload_error(pod_edit, field):
    from pulumi_hyperpod.aws.workload.eks import _end
    from pulumi_hyperpod.aws.workload.source import WorkloadError

    pod = {
        "metadata": {"namespace": "ml", "name": "train-0"},
        "spec": {"activeDeadlineSeconds": 600},
        "status": {"startTime": "2026-01-01T00:00:00Z"},
    }
    assert _end(copy.deepcopy(pod)).isoformat() == "2026-01-01T00:10:00+00:00"
    pod_edit(pod)
    with pytest.raises(WorkloadError, match=f"pod ml/train-0: .*{field.split('.')[-1]}.*must be a time from"):
        _end(pod)


# ---- the simulator's time filters ------------------------------------------------------------------
@pytest.mark.parametrize(
    "operation, params",
    [
        ("ListClusterNodes", {"ClusterName": "c", "CreationTimeAfter": 1e20}),
        ("ListClusterNodes", {"ClusterName": "c", "CreationTimeBefore": -1e15}),
        ("ListClusterEvents", {"ClusterName": "c", "EventTimeAfter": 1e20}),
        ("ListClusters", {"CreationTimeBefore": 1e20}),
        ("ListClusterOperations", {"ClusterName": "c", "CreationTimeAfter": "1e20"}),
    ],
)
def test_the_simulators_time_filters_out_of_range_are_a_validation_exception(operation, params):
    from pulumi_hyperpod.sim.aws import Simulator
    from pulumi_hyperpod.sim.aws.clock import PollTracker

    status, payload, _ = Simulator().dispatch("sagemaker", "us-west-2", operation, params, PollTracker(60.0))
    assert status == 400, payload
    assert payload["__type"].endswith("ValidationException") and "must be a time from 1970-01-01" in payload["message"], payload


def test_a_since_out_of_range_is_a_usage_error(world):
    result = CliRunner().invoke(main, ["--backend", "fake", "cost", "leo", "--since", "2300-01-01T00:00:00Z"])
    assert result.exit_code == 1 and "must be a time from 1970-01-01" in result.output, (
        result.output
    )  # a usage error (tests/input/test_exit_codes.py)
    assert "Traceback" not in result.output
