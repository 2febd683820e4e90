"""Two applies racing on one cluster, interleaved deterministically: the second apply runs, whole,
at the k-th API call of the first (before that call is sent). Every k from 0 to the first apply's
last call, both orders (which target runs outside), both provisioning modes.

Each trial reports who won, whether the loser stopped cleanly (PlanStale or ConcurrentChange, a
message naming the change, nothing reported done), and how many nodes were lost (removed without
a plan naming them). Used by tests/reliability/test_concurrency.py and bench/reliability_report.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pulumi_hyperpod import ClusterSpec, Policy, apply, connect, observe
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.aws.apply import ApplyError, ConcurrentChange, PlanStale
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.aws.observe.state import GONE

from tests.support.reliability import NAME, spec_dict

TARGETS = (4, 20)  # the reproduction: two applies, targets 4 and 20, from 2
START = 2
SCALE_IN = (10, (8, 6))  # and the same race the other way: from 10, targets 8 and 6 (victims named)


@dataclass
class Trial:
    continuous: bool
    outer_target: int
    point: int
    targets: tuple[int, int] = TARGETS
    calls_seen: int = 0  # API calls the outer apply made (the trial covered points up to this)
    winners: list[int] = field(default_factory=list)  # targets whose apply reported done
    clean_refusals: int = 0
    messages: list[str] = field(default_factory=list)
    final_target: int | None = None
    nodes_lost: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _run(client, the_plan, sim, trial: Trial, target: int) -> None:
    try:
        result = apply(
            client, the_plan, wait="none", timeout=3600, poll_seconds=60, sleep=sim.advance, monotonic=lambda: sim.now().timestamp()
        )
    except (PlanStale, ConcurrentChange) as error:
        trial.clean_refusals += 1
        trial.messages.append(str(error))
        if not any(word in str(error) for word in ("TargetCount", "is now", "vanished", "appeared")):
            trial.problems.append(f"target {target}: the refusal does not name the change: {error}")
        return
    except ApplyError as error:
        trial.problems.append(f"target {target}: failed without naming another writer: {error}")
        return
    if result.ok:
        trial.winners.append(target)
    elif any("another writer" in f for f in result.failures):
        # its calls landed, then the other's: not reported done, and the change is named
        trial.clean_refusals += 1
        trial.messages.append("; ".join(result.failures))
    else:
        trial.messages.append("; ".join(result.failures))
        trial.problems.append(f"target {target}: neither done nor a clean stop: {result.failures}")


def run_trial(
    continuous: bool, outer_target: int, point: int, seed: int = 7, start: int = START, targets: tuple[int, int] = TARGETS
) -> Trial:
    trial = Trial(continuous, outer_target, point, targets)
    sim = Simulator(seed=seed, scenario={"timing": {"launch_seconds": 10, "lifecycle_seconds": 20}})
    setup = connect(backend="fake", simulator=sim)
    created = apply(
        setup,
        plan(ClusterSpec.from_dict(spec_dict(continuous, start, 1)), None),
        wait="Target",
        timeout=4 * 3600,  # the login group's deep health check alone takes about 2 hours
        poll_seconds=60,
        sleep=sim.advance,
        monotonic=lambda: sim.now().timestamp(),
    )
    assert created.ok, created.failures
    before = {n.key for n in observe(setup, NAME).nodes}
    inner_target = targets[1] if outer_target == targets[0] else targets[0]
    outer_client = connect(backend="fake", simulator=sim)
    inner_client = connect(backend="fake", simulator=sim)
    state = observe(setup, NAME)  # both plans are made from the same cluster
    outer_plan = plan(ClusterSpec.from_dict(spec_dict(continuous, outer_target, 1)), state, Policy())
    inner_plan = plan(ClusterSpec.from_dict(spec_dict(continuous, inner_target, 1)), state, Policy())
    named = {v.node_id for p in (outer_plan, inner_plan) for v in p.victims}
    calls_before = len(sim.calls)

    def maybe_interleave(**_) -> None:
        if trial.calls_seen == point:
            _run(inner_client, inner_plan, sim, trial, inner_target)
        trial.calls_seen += 1

    outer_client.meta.events.register("before-call.sagemaker.*", maybe_interleave)
    _run(outer_client, outer_plan, sim, trial, outer_target)
    if trial.calls_seen <= point:  # the outer apply ended before the point: the inner runs after it
        _run(inner_client, inner_plan, sim, trial, inner_target)
    _judge(trial, sim, setup, before, calls_before, named)
    return trial


def _judge(trial: Trial, sim: Simulator, client, before: set[str], start: int, named: set[str]) -> None:
    sim.advance(3 * 3600)  # let provisioning finish
    state = observe(client, NAME)
    big = state.group("big")
    trial.final_target = big.target_count
    deleted = {
        i
        for op, request in sim.calls[start:]
        if op == "BatchDeleteClusterNodes"
        for i in (request.get("NodeIds") or []) + (request.get("NodeLogicalIds") or [])
    }
    live = {n.key for n in state.nodes if n.status not in GONE}
    # lost: gone without a request naming it, or named though neither plan chose it
    trial.nodes_lost = len((before - live) - deleted) + len(deleted - named)
    if len(trial.winners) + trial.clean_refusals != 2:
        trial.problems.append(f"{len(trial.winners)} done + {trial.clean_refusals} clean stops, expected 2 outcomes")
    if len(trial.winners) != 1:
        trial.problems.append(f"winners {trial.winners}: expected exactly one")
    elif trial.final_target != trial.winners[0] and trial.targets == TARGETS:
        # (a scale-in race may end on the loser's target: BatchDeleteClusterNodes takes no token, so
        # one request can still land after the winner reported; the victim order nests the two
        # plans' victims, so only named nodes go and the cluster is on one of the two targets)
        trial.problems.append(f"reported done for target {trial.winners[0]} but the cluster is at {trial.final_target}")
    if trial.final_target not in trial.targets:
        trial.problems.append(f"landed on neither target: {trial.final_target}")
    if trial.nodes_lost:
        trial.problems.append(f"{trial.nodes_lost} node(s) lost")


def all_trials(seed: int = 7) -> list[Trial]:
    """Every interleaving point of both orders in both modes, scaling out (2 → 4 | 20) and in (10 → 8 | 6)."""
    trials = []
    for start, targets in ((START, TARGETS), SCALE_IN):
        for continuous in (True, False):
            trials += _every_point(continuous, start, targets, seed)
    return trials


def _every_point(continuous: bool, start: int, targets: tuple[int, int], seed: int) -> list[Trial]:
    trials = []
    for outer in targets:
        point = 0
        while True:
            trial = run_trial(continuous, outer, point, seed, start, targets)
            trials.append(trial)
            if trial.calls_seen <= point:  # past the outer apply's last call: every point covered
                break
            point += 1
    return trials


def summary(trials: list[Trial]) -> dict[str, int]:
    return {
        "trials": len(trials),
        "winners": sum(len(t.winners) for t in trials),
        "clean refusals": sum(t.clean_refusals for t in trials),
        "nodes lost": sum(t.nodes_lost for t in trials),
        "problems": sum(len(t.problems) for t in trials),
    }
