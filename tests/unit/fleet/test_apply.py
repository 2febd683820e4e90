"""The wave runner of `fleet apply` (pulumi_hyperpod/fleet/apply.py) over `up`s and gates stood in
for: the waves' order, each wave's parallelism bound, the stop at the first failed up or gate, a
re-run that runs every wave again (no-ops shown as such) and Ctrl-C that stops launching stacks.
The engine itself: tests/engine/test_fleet_apply.py."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from pulumi_hyperpod.core.contract import ApplyInterrupted
from pulumi_hyperpod.core.messages import render
from pulumi_hyperpod.fleet.apply import ALL, Events, FleetInterrupted, apply_fleet, clusters_of, waves_of
from pulumi_hyperpod.fleet.gates import FAILED, PASSED, GateResult
from pulumi_hyperpod.fleet.spec import parse_fleet
from pulumi_hyperpod.fleet.summary import StackPlans


def fleet_of(waves, **extra):
    names = [name for wave in waves for name in wave[1]]
    return parse_fleet(
        {
            "stacks": [{"name": n, "project": "p", "stack": n, "region": "us-west-2"} for n in names],
            "waves": [{"name": w, "stacks": list(s), "parallelism": p} for w, s, p in waves],
            **extra,
        },
        "fleet.yaml",
    )


class Recorder:
    """An `up` that records its calls and how many ran at once; its results from `changes`/`errors`."""

    def __init__(self, changes=None, errors=None, hold=None):
        self.calls, self.running, self.most, self.lock = [], 0, 0, threading.Lock()
        self.changes, self.errors, self.hold = changes or {}, errors or {}, hold

    def __call__(self, stack):
        with self.lock:
            self.calls.append(stack.name)
            self.running += 1
            self.most = max(self.most, self.running)
        if self.hold:
            self.hold(stack)
        with self.lock:
            self.running -= 1
        return StackPlans(
            stack.name,
            None,
            stack.region,
            plans=({"cluster_name": f"{stack.name}-cluster", "action": "update"},),
            error=self.errors.get(stack.name),
            changes=self.changes.get(stack.name, {}),
        )


def passing(wave, done):
    return [GateResult("in_service", stack.name, f"{stack.name}-cluster", PASSED) for stack, _ in done]


def test_waves_run_in_the_files_order_each_at_most_its_parallelism():
    fleet = fleet_of([("canary", "a", 1), ("rest", "bcde", 2)])
    barrier = threading.Barrier(2, timeout=5)
    up = Recorder(hold=lambda stack: barrier.wait() if stack.name in "bcde" else None)  # rest: two at once, or this times out
    gated = []
    outcome = apply_fleet(fleet, waves_of(fleet, 4), up, lambda wave, done: gated.append(wave.name) or passing(wave, done))
    assert outcome.ok and [w.wave for w in outcome.waves] == ["canary", "rest"]
    assert up.calls[0] == "a" and sorted(up.calls[1:]) == list("bcde")
    assert up.most == 2
    assert gated == ["canary", "rest"], "each wave's gates after its ups"
    assert [s.stack for s in outcome.waves[1].stacks] == list("bcde"), "results in the wave's order"


def test_a_failed_gate_stops_the_fleet_naming_wave_gate_and_cluster():
    fleet = fleet_of([("one", "a", 1), ("two", "b", 1), ("three", "c", 1)])
    up = Recorder()

    def gates(wave, done):
        outcome = FAILED if wave.name == "two" else PASSED
        return [GateResult("no_failed_nodes", s.name, f"{s.name}-cluster", outcome, "node i-1 (workers) is Failure") for s, _ in done]

    seen = []
    outcome = apply_fleet(fleet, waves_of(fleet, 4), up, gates, Events(gate=lambda wave, result: seen.append((wave.name, result.outcome))))
    assert up.calls == ["a", "b"], "wave three is never started"
    assert not outcome.ok and outcome.not_started == ["three"]
    (failed,) = outcome.waves[-1].failed_gates
    assert (outcome.waves[-1].wave, failed.gate, failed.cluster) == ("two", "no_failed_nodes", "b-cluster")
    assert seen == [("one", PASSED), ("two", FAILED)]


def test_a_failed_up_stops_the_fleet_and_its_wave_is_not_gated():
    fleet = fleet_of([("one", "ab", 2), ("two", "c", 1)])
    up = Recorder(errors={"a": "the engine said no"})
    gated = []
    outcome = apply_fleet(fleet, waves_of(fleet, 4), up, lambda wave, done: gated.append(wave.name) or [])
    assert sorted(up.calls) == ["a", "b"] and gated == []
    assert [s.stack for s in outcome.waves[0].failed_stacks] == ["a"] and outcome.not_started == ["two"]


def test_a_rerun_runs_every_wave_again_and_shows_the_no_ops():
    """Resuming is re-running: a stack at its spec is an up with nothing to do; no wave is skipped."""
    fleet = fleet_of([("one", "a", 1), ("two", "b", 1)])
    up = Recorder(changes={"b": {"update": 1}})  # a was applied by the run that stopped; b was not
    finished = []
    outcome = apply_fleet(fleet, waves_of(fleet, 4), up, passing, Events(finished=lambda r: finished.append((r.stack, dict(r.changes)))))
    assert outcome.ok and up.calls == ["a", "b"]
    assert finished == [("a", {}), ("b", {"update": 1})]


def test_a_fleet_without_waves_is_one_wave_of_every_stack():
    fleet = parse_fleet({"stacks": [{"name": n, "project": "p", "stack": n, "region": "us-west-2"} for n in "ab"]}, "f")
    (wave,) = waves_of(fleet, 3)
    assert (wave.name, wave.stacks, wave.parallelism, wave.gates.in_service) == (ALL, ["a", "b"], 3, True)


def test_ctrl_c_stops_launching_stacks_waits_for_the_running_and_says_which():
    fleet = fleet_of([("one", "abc", 1), ("two", "d", 1)])
    stop = threading.Event()

    def hold(stack):
        if stack.name == "a":
            os.kill(os.getpid(), signal.SIGINT)  # as a terminal's Ctrl-C: the main thread's KeyboardInterrupt
            assert stop.wait(5), "the runner stops launching"

    up = Recorder(hold=hold)
    with pytest.raises(FleetInterrupted) as raised:
        apply_fleet(fleet, waves_of(fleet, 4), up, passing, stop=stop)
    assert up.calls == ["a"], "b, c and wave two are never started"
    assert raised.value.in_flight == "a", str(raised.value)
    assert isinstance(raised.value, ApplyInterrupted)
    rendered = render(raised.value)
    assert rendered.exit_code == 130 and rendered.label == "interrupted"
    assert "during wave one: the up of a was running and was waited for" in rendered.lines[0]


def test_the_clusters_gated_are_those_the_up_and_the_preview_showed_not_a_deleted_one():
    up = StackPlans("a", None, "us-west-2", plans=({"cluster_name": "x", "action": "update"}, {"cluster_name": "gone", "action": "delete"}))
    previewed = StackPlans("a", None, "us-west-2", plans=({"cluster_name": "x"}, {"cluster_name": "y", "action": "none"}))
    assert clusters_of(up, previewed) == ["x", "y"]
    assert clusters_of(up, None) == ["x"]
    no_op = StackPlans("a", None, "us-west-2", clusters=("z",))  # an up with nothing to do shows no plan: its state names it
    assert clusters_of(no_op, previewed) == ["z", "x", "y"]


def test_a_stack_skipped_on_its_lock_is_not_done_and_stops_the_fleet():
    fleet = fleet_of([("one", ["a", "b"], 2), ("two", ["c"], 1)])
    up = Recorder(errors={"b": "skipped: the stack is locked, held by root@vm (pid 7); left to that update (--on-locked skip)"})
    gated = []
    outcome = apply_fleet(fleet, waves_of(fleet, 1), up, lambda wave, done: gated.append(wave.name) or [])
    (wave,) = outcome.waves
    assert [s.stack for s in wave.skipped_stacks] == ["b"] and wave.failed_stacks == []
    assert not outcome.ok and outcome.not_started == ["two"] and gated == [], "the wave is not done: no gate, no later wave"
