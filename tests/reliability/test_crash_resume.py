"""Crash and resume: the apply process is SIGKILLed after each of its mutating calls in turn (and in
the middle of its wait); `hyperpod apply` run again converges to the same cluster — no duplicate
node, no deletion the original plan did not name, nothing left untracked.

The world is SQLite (HYPERPOD_FAKE_STATE in tmp); the harness reads the world's call log to know
when step k has been sent. The killed process is tests/reliability/crash_driver.py (the public API,
pausing between steps so that the kill lands between step k and step k+1 deterministically).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from pulumi_hyperpod import ClusterSpec, Policy, apply, connect, observe
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.cli import main
from pulumi_hyperpod.sim.aws import Simulator, wire
from pulumi_hyperpod.aws.observe.state import GONE
from tests.support.cli import MUTATING
from tests.support.paths import REPO
from tests.support.reliability import NAME, SCENARIO, spec_dict

ROOT = REPO


# (name, continuous, initial (big, other), desired (big, other, login threads), expected operations)
PLANS = {
    # Continuous, pure counts: 110 deletions split 99 + 11, then a BatchAddClusterNodes
    "continuous": (True, (120, 2), (10, 5, 1), ["BatchDeleteClusterNodes", "BatchDeleteClusterNodes", "BatchAddClusterNodes"]),
    # all-or-nothing, a config change and a scale-out in one UpdateCluster, then 99 + 11 deletions
    "all-or-nothing": (False, (120, 2), (10, 5, 2), ["UpdateCluster", "BatchDeleteClusterNodes", "BatchDeleteClusterNodes"]),
}


@pytest.fixture(scope="module")
def built_worlds(tmp_path_factory):
    """Each plan's starting world, built once; every case starts from a copy."""
    root = tmp_path_factory.mktemp("crash-worlds")
    worlds = {}
    for name, (continuous, (big, other), desired, operations) in PLANS.items():
        path = root / f"{name}.sqlite"
        sim = Simulator(path, seed=5, scenario=SCENARIO)
        client = connect(backend="fake", simulator=sim)
        initial = ClusterSpec.from_dict(spec_dict(continuous, big, other))
        result = apply(client, plan(initial, None, Policy()), wait="Target", timeout=120, poll_seconds=0.05)
        assert result.ok, result.failures
        spec_file = root / f"{name}-desired.json"
        spec_file.write_text(json.dumps(spec_dict(continuous, desired[0], desired[1], desired[2])))
        the_plan = plan(ClusterSpec.from_file(spec_file), observe(client, NAME), Policy())
        assert [s.operation for s in the_plan.steps] == operations
        worlds[name] = (path, spec_file, the_plan, observe(client, NAME))
    return worlds


def _mutations(calls):
    return [(op, req) for op, req in calls if op in MUTATING]


def _kill_after(world: Path, spec_file: Path, start_calls: int, point: int | str, env: dict) -> list:
    """Run the driver; SIGKILL it once mutating call `point` is logged (or once it polls its wait)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.reliability.crash_driver", str(spec_file), "0.4"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    sim = Simulator(world)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            calls = sim.calls[start_calls:]
            sent = _mutations(calls)
            if point == "wait":
                last = max((i for i, (op, _) in enumerate(calls) if op in MUTATING), default=None)
                if last is not None and len(sent) >= 3 and any(op == "DescribeCluster" for op, _ in calls[last + 1 :]):
                    break
            elif len(sent) >= point:
                break
            if process.poll() is not None:
                pytest.fail(f"the driver ended before the kill point {point}: {process.stdout.read().decode()}")
            time.sleep(0.005)
        else:
            pytest.fail(f"kill point {point} not reached in time")
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
    assert process.returncode == -signal.SIGKILL
    return sim.calls[start_calls:]


CASES = [(plan_name, point) for plan_name in PLANS for point in (1, 2, 3, "wait")]


@pytest.mark.parametrize("plan_name,point", CASES, ids=[f"{p}-after-{k}" for p, k in CASES])
def test_sigkill_then_rerun_converges(built_worlds, tmp_path, monkeypatch, plan_name, point):
    source, spec_file, original_plan, before = built_worlds[plan_name]
    world = tmp_path / "fake.sqlite"
    shutil.copy(source, world)
    for suffix in ("-wal", "-shm"):
        if Path(f"{source}{suffix}").exists():
            shutil.copy(f"{source}{suffix}", f"{world}{suffix}")
    env = {**os.environ, "HYPERPOD_FAKE_STATE": str(world), "PYTHONPATH": str(ROOT)}
    start = len(Simulator(world).calls)

    killed_calls = _kill_after(world, spec_file, start, point, env)
    sent = _mutations(killed_calls)
    expected_ops = [s.operation for s in original_plan.steps]
    if point != "wait":
        assert [op for op, _ in sent] == expected_ops[:point], "the kill did not land between steps"

    # the user runs the command again (and again, if it says so) until it converges. The nodes named in deletions
    # the service answered (each node of a request is in its Successful or Failed lists) are counted from its
    # answers: a rerun that reaches BatchDeleteClusterNodes while the cluster is still Updating (all-or-nothing) is
    # refused as a whole, waits for InService and sends the same request again.
    accepted = [i for op, r in sent if op == "BatchDeleteClusterNodes" for i in (r.get("NodeIds") or []) + (r.get("NodeLogicalIds") or [])]

    def accepted_deletions(operation: str, body: dict, service: str = "sagemaker") -> None:
        if operation == "BatchDeleteClusterNodes":
            accepted.extend([*(body.get("Successful") or []), *(body.get("SuccessfulNodeLogicalIds") or [])])
            accepted.extend(
                [*(f["NodeId"] for f in body.get("Failed") or []), *(f["NodeLogicalId"] for f in body.get("FailedNodeLogicalIds") or [])]
            )

    monkeypatch.setattr(wire, "OBSERVERS", [*wire.OBSERVERS, accepted_deletions])
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(world))
    monkeypatch.setenv("HYPERPOD_POLL_SECONDS", "0.05")
    for _ in range(3):
        result = CliRunner().invoke(
            main, ["--backend", "fake", "apply", "-f", str(spec_file), "--yes", "--wait", "Target", "--timeout", "120"]
        )
        assert "Traceback" not in result.output
        if result.exit_code == 0:
            break
    assert result.exit_code == 0, result.output

    sim = Simulator(world)
    client = connect(backend="fake", simulator=sim)
    after = observe(client, NAME)
    desired = ClusterSpec.from_file(spec_file).to_api()
    for group in desired["InstanceGroups"]:
        have = after.group(group["InstanceGroupName"])
        live = [n for n in after.nodes_of(have.name) if n.status not in GONE]
        assert have.target_count == have.current_count == group["InstanceCount"] == len(live), have
    # nothing untracked: the next plan is empty
    assert plan(ClusterSpec.from_file(spec_file), after, Policy()).empty

    calls = sim.calls[start:]
    deleted = [i for op, r in calls if op == "BatchDeleteClusterNodes" for i in (r.get("NodeIds") or []) + (r.get("NodeLogicalIds") or [])]
    victims = {v.node_id for v in original_plan.victims}
    assert len(accepted) == len(set(accepted)), "a node was asked to be deleted twice"
    assert set(accepted) == set(deleted), "a deletion the service refused was not sent again"
    assert set(deleted) <= victims, f"deleted nodes the plan did not name: {set(deleted) - victims}"
    controller = {n.instance_id for n in before.nodes_of("controller")}
    assert not controller & set(deleted)
    # no node that was kept disappeared, and no node was added twice
    kept = {n.instance_id for n in before.nodes if n.instance_id not in victims}
    assert kept <= {n.instance_id for n in after.nodes if n.status not in GONE}
    adds = [(r["ClientToken"], e) for op, r in calls if op == "BatchAddClusterNodes" for e in r["NodesToAdd"]]
    by_token: dict = {}
    for token, entry in adds:
        by_token.setdefault(token, []).append(entry["IncrementTargetCountBy"])
    # one increment per distinct token; together they equal the planned growth
    grown = {g.group: g.delta for g in original_plan.groups if g.action == "grow"}
    if adds:
        assert sum(v[0] for v in by_token.values()) == sum(grown.values())
