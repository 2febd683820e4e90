"""The fault loop shared by tests/reliability/test_faults.py and bench/reliability_report.py.

One scenario: a current cluster is built fault-free in an in-memory simulator, then the scenario's
faults are switched on (throttling, 500/503s, a capacity shortage for the worker type in one AZ or
all, lifecycle-script failures, a concurrent UpdateCluster that makes an all-or-nothing cluster
answer ConflictException, BatchAddClusterNodes entries refused while a group is Updating) and a user
runs plan + apply up to `rounds` times, as one would after a failure. `Outcome` holds what
happened; `check()` holds the invariants.
"""

from __future__ import annotations

import contextlib
import random
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Iterator

import botocore.retries.standard
from botocore.exceptions import BotoCoreError, ClientError

from pulumi_hyperpod import ClusterSpec, Policy, apply, connect, observe
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.aws.apply import ApplyError, PlanStale
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.aws.observe.state import GONE

ROLE = "arn:aws:iam::111122223333:role/iam-role-for-cluster"
LIFECYCLE = {"SourceS3Uri": "s3://amzn-s3-demo-bucket/lifecycle-scripts/src/", "OnCreate": "on_create.sh"}
SUBNET, ZONE = "subnet-0a1b2c3d", "us-west-2b"
WORKER_TYPE = "ml.g5.xlarge"
NAME = "fault-cluster"
TIMING = {
    "launch_seconds": 60,
    "lifecycle_seconds": 120,
    "terminate_seconds": 30,
    "retry_interval_seconds": 300,
    "min_count_timeout_seconds": 1800,
}


@dataclass(frozen=True)
class Params:
    seed: int
    continuous: bool
    login: bool
    current: tuple[int, ...]  # per worker group
    desired: tuple[int, ...]
    throttle_rate: float = 0.0
    server_error_rate: float = 0.0
    lifecycle_failure_rate: float = 0.0
    capacity: int | None = None  # free WORKER_TYPE instances once faults start (None: unlimited)
    capacity_zone: bool = False  # the shortage is in the subnet's AZ only (else every AZ)
    conflict: bool = False  # a concurrent UpdateCluster is running when the user applies
    rounds: int = 4

    @property
    def faults(self) -> int:
        return sum(
            [self.throttle_rate > 0, self.server_error_rate > 0, self.lifecycle_failure_rate > 0, self.capacity is not None, self.conflict]
        )


def random_params(rng: random.Random, seed: int) -> Params:
    groups = rng.randint(1, 2)
    return Params(
        seed=seed,
        continuous=rng.random() < 0.6,
        login=rng.random() < 0.3,
        current=tuple(rng.randint(0, 5) for _ in range(groups)),
        desired=tuple(rng.randint(0, 7) for _ in range(groups)),
        throttle_rate=rng.choice([0, 0, 0.1, 0.3]),
        server_error_rate=rng.choice([0, 0, 0.1, 0.2]),
        lifecycle_failure_rate=rng.choice([0, 0, 0.2, 0.5]),
        capacity=rng.choice([None, None, 0, 2, 5]),
        capacity_zone=rng.random() < 0.5,
        conflict=rng.random() < 0.3,
    )


def spec_for(p: Params, counts: tuple[int, ...]) -> ClusterSpec:
    def group(name: str, count: int, node_type: str, instance_type: str = "ml.m5.xlarge") -> dict:
        return {
            "InstanceGroupName": name,
            "InstanceType": instance_type,
            "InstanceCount": count,
            "LifeCycleConfig": dict(LIFECYCLE),
            "ExecutionRole": ROLE,
            "SlurmConfig": {"NodeType": node_type},
        }

    groups = [group("controller", 1, "Controller")]
    if p.login:
        groups.append(group("login", 1, "Login"))
    groups += [group(f"workers-{i}", n, "Compute", WORKER_TYPE) for i, n in enumerate(counts)]
    data: dict[str, Any] = {
        "ClusterName": NAME,
        "Orchestrator": {"Slurm": {}},
        "InstanceGroups": groups,
        "VpcConfig": {"SecurityGroupIds": ["sg-12345678"], "Subnets": [SUBNET]},
    }
    if p.continuous:
        data["NodeProvisioningMode"] = "Continuous"
    return ClusterSpec.from_dict(data)


@dataclass
class Outcome:
    params: Params
    converged: bool = False
    reported: list[str] = field(default_factory=list)  # what the last run said it could not do
    claimed_success: bool = False
    final_targets: dict[str, int] = field(default_factory=dict)
    final_current: dict[str, int] = field(default_factory=dict)
    desired: dict[str, int] = field(default_factory=dict)
    planned_victims: set[str] = field(default_factory=set)
    rechosen: int = 0
    deleted: list[str] = field(default_factory=list)
    controller_ids: set[str] = field(default_factory=set)
    initial_nodes: set[str] = field(default_factory=set)
    lost: set[str] = field(default_factory=set)
    overshoot: list[str] = field(default_factory=list)
    add_requests: int = 0
    add_tokens: int = 0
    unplanned: set[str] = field(default_factory=set)
    lowered: dict[str, int] = field(default_factory=dict)  # group → nodes a plan let the service choose (busy-group scale-in)
    capacity_pending: dict[str, int] = field(default_factory=dict)
    retries: int = 0  # ConflictException waits and BatchAdd entries refused while a group was busy


@contextlib.contextmanager
def no_real_backoff() -> Iterator[None]:
    """botocore's standard retry mode sleeps for real between attempts; virtual time needs none."""
    original = botocore.retries.standard.ExponentialBackoff.delay_amount
    botocore.retries.standard.ExponentialBackoff.delay_amount = lambda self, context: 0.0
    try:
        yield
    finally:
        botocore.retries.standard.ExponentialBackoff.delay_amount = original


class VirtualTime:
    def __init__(self, sim: Simulator):
        self.sim, self.t = sim, 0.0

    def sleep(self, seconds: float) -> None:
        self.t += max(seconds, 0.0)
        self.sim.advance(max(seconds, 0.0))

    def monotonic(self) -> float:
        return self.t


def _live(state) -> set[str]:
    return {n.instance_id for n in state.nodes if n.instance_id and n.status not in GONE}


def run(p: Params) -> Outcome:
    with no_real_backoff():
        return _run(p)


def _run(p: Params) -> Outcome:
    sim = Simulator(seed=p.seed, scenario={"timing": TIMING, "subnets": {SUBNET: ZONE}})
    clock = VirtualTime(sim)
    out = Outcome(p)
    current, desired = spec_for(p, p.current), spec_for(p, p.desired)
    out.desired = {g["InstanceGroupName"]: g["InstanceCount"] for g in desired.to_api()["InstanceGroups"]}

    # the current cluster, fault-free
    setup = connect(backend="fake", simulator=sim)
    first = apply(
        setup,
        plan(current, observe(setup, NAME), Policy()),
        wait="Target",
        timeout=4 * 3600,
        poll_seconds=60,
        sleep=clock.sleep,
        monotonic=clock.monotonic,
    )
    assert first.ok, first.failures
    start = observe(setup, NAME)
    out.initial_nodes = _live(start)

    scenario = sim.scenario
    _faults_on(p, sim, current, setup)

    calls_before = len(sim.calls)
    result = None
    for _ in range(p.rounds):
        client = connect(backend="fake", simulator=sim)  # a user's re-run: a fresh process, a fresh client
        state = None
        try:
            state = observe(client, NAME)
            if state is not None:
                for group in state.groups:
                    if group.node_type == "Controller":
                        out.controller_ids |= {n.instance_id for n in state.nodes_of(group.name) if n.instance_id}
            the_plan = plan(desired, state, Policy())
            out.planned_victims |= {v.node_id for v in the_plan.victims}
            _count_lowerings(out, the_plan, state)
            result = apply(client, the_plan, wait="Target", timeout=2 * 3600, poll_seconds=60, sleep=clock.sleep, monotonic=clock.monotonic)
            out.rechosen += sum("choosing again" in m for m in result.messages)
            out.retries += sum(("cluster busy" in m) or ("retrying when InService" in m) for m in result.messages)
            round_report = list(result.failures) + ([f"outcome {result.outcome}"] if result.outcome != "done" else [])
        except (ApplyError, PlanStale, ClientError, BotoCoreError) as error:
            result = None
            round_report = [f"{type(error).__name__}: {error}"]
        out.reported += round_report
        after = observe(setup_client(sim), NAME)
        _note_overshoot(out, p, state, after)
        targets_reached = all(after.group(n) is not None and after.group(n).target_count == c for n, c in out.desired.items())
        if result is not None and targets_reached and (result.ok or result.outcome == "waiting"):
            out.converged = True
            if result.calls:  # an empty plan (someone else already set these targets) waits for nothing
                out.capacity_pending = {g.name: g.pending for g in after.groups if g.pending}
            break
    out.claimed_success = result is not None and result.ok
    scenario.faults.throttle_rate = scenario.faults.server_error_rate = 0.0
    final = observe(setup_client(sim), NAME)
    out.final_targets = {g.name: g.target_count for g in final.groups}
    out.final_current = {g.name: g.current_count for g in final.groups}
    _tally_calls(out, sim.calls[calls_before:])
    out.unplanned = set(out.deleted) - out.planned_victims
    out.lost = _lost(out, start, final)
    return out


def _faults_on(p: Params, sim: Simulator, current, setup) -> None:
    """The faults of `p` from here on, and (p.conflict) someone else's UpdateCluster running."""
    scenario = sim.scenario
    scenario.faults.throttle_rate = p.throttle_rate
    scenario.faults.server_error_rate = p.server_error_rate
    scenario.faults.lifecycle_failure_rate = p.lifecycle_failure_rate
    if p.capacity is not None:
        sim.set_capacity(WORKER_TYPE, ZONE if p.capacity_zone else None, p.capacity)
    if p.conflict:
        # another pipeline changing the first worker group
        busy = current.to_api()
        groups = busy["InstanceGroups"]
        worker = next(g for g in groups if g["InstanceGroupName"] == "workers-0")
        worker["InstanceCount"] += 1
        with contextlib.suppress(ClientError):
            setup.update_cluster(ClusterName=NAME, InstanceGroups=groups)


def _note_overshoot(out: Outcome, p: Params, state, after) -> None:
    """A BatchAddClusterNodes never adds twice: TargetCount never goes above what was asked."""
    before_targets = {g.name: g.target_count for g in state.groups} if state is not None else {}
    for group in after.groups:
        limit = max(out.desired.get(group.name, 0), before_targets.get(group.name, 0))
        if p.conflict and group.name == "workers-0":
            limit = max(limit, p.current[0] + 1)  # the concurrent update's own count
        if group.target_count > limit:
            out.overshoot.append(f"{group.name}: TargetCount {group.target_count} > {limit}")


def _tally_calls(out: Outcome, calls) -> None:
    """The nodes deleted and the BatchAddClusterNodes requests (and their tokens) of the faulty rounds."""
    for operation, request in calls:
        if operation == "BatchDeleteClusterNodes":
            out.deleted += list(request.get("NodeIds") or []) + list(request.get("NodeLogicalIds") or [])
        elif operation == "BatchAddClusterNodes":
            out.add_requests += 1
    out.add_tokens = len({r.get("ClientToken") for o, r in calls if o == "BatchAddClusterNodes"})


def _count_lowerings(out: Outcome, the_plan, state) -> None:
    """A scale-in of a Creating/Updating group lowers its count through UpdateCluster and the service
    chooses which nodes go (issue 12, item 13): that many nodes of that group go by plan, unnamed."""
    for step in the_plan.steps:
        if step.operation != "UpdateCluster" or state is None:
            continue
        for entry in step.request.get("InstanceGroups") or ():
            have = state.group(entry["InstanceGroupName"])
            if have is not None and entry["InstanceCount"] < have.target_count and any("the service chooses" in r for r in step.reasons):
                out.lowered[have.name] = out.lowered.get(have.name, 0) + have.target_count - entry["InstanceCount"]


def _lost(out: Outcome, start, final) -> set[str]:
    """Nodes gone that no plan removed: neither named in a BatchDelete nor within a planned lowering."""
    gone = sorted(out.initial_nodes - _live(final) - set(out.deleted))
    group_of = {n.instance_id: n.group for n in start.nodes if n.instance_id}
    allowance = dict(out.lowered)
    lost = set()
    for node in gone:
        group = group_of.get(node)
        if allowance.get(group, 0) > 0:
            allowance[group] -= 1
        else:
            lost.add(node)
    return lost


def setup_client(sim: Simulator):
    return connect(backend="fake", simulator=sim)


def check(out: Outcome) -> None:
    """The invariants: every one must hold for every scenario."""
    p = out.params
    if out.claimed_success:  # never a silent success
        for name, count in out.desired.items():
            assert out.final_targets.get(name) == count, (p, out.final_targets, out.desired)
    if not out.converged:
        assert out.reported, f"neither converged nor reported: {p} {out.final_targets} {out.final_current}"
    if out.capacity_pending:  # targets set, capacity still coming: some run said so
        assert any("waiting" in r for r in out.reported), (p, out.capacity_pending, out.reported)
    assert not (set(out.deleted) & out.controller_ids), f"a controller node was deleted: {p}"
    assert len(out.unplanned) <= out.rechosen, f"deleted nodes no plan named: {out.unplanned} ({p})"
    assert not out.lost, f"nodes lost: {out.lost} ({p})"
    assert not out.overshoot, f"a scale-out added twice: {out.overshoot} ({p})"
