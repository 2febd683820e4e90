"""`fleet apply`: the fleet's waves rolled out in the file's order, each wave's gates checked before
the next (docs/fleet.md).

Within a wave its stacks' `pulumi up` run at most the wave's `parallelism` at once (preview.py's
pool, its per-stack function). A stack whose `up` fails, a stack left to another runner holding its
lock (locks.py: skipped, not done), or a gate that fails, stops the fleet: later waves are not started. There is no state file of our own: running it again re-runs every
wave in order — a stack already at its spec is an `up` with nothing to do (Pulumi's own
semantics), said as such — and checks every gate again, so it goes on from the first wave not done.

Ctrl-C stops launching stacks; the `up`s running are waited for (the terminal's SIGINT reaches
their engines too, which stop as `pulumi up` does on Ctrl-C); `FleetInterrupted` says which.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pulumi_hyperpod.core.contract import ApplyInterrupted
from pulumi_hyperpod.fleet.gates import FAILED, GateResult
from pulumi_hyperpod.fleet.locks import SKIPPED
from pulumi_hyperpod.fleet.preview import run_stacks
from pulumi_hyperpod.fleet.spec import Fleet, FleetStack, Gates, Wave
from pulumi_hyperpod.fleet.summary import StackPlans

ALL = "all"  # the one wave of a fleet file without waves


class FleetInterrupted(ApplyInterrupted):
    """Ctrl-C during `fleet apply`: the stacks whose `up` was running, and the waves done. Exit 130,
    as an interrupted `hyperpod apply` (core/messages.py renders it)."""

    def __init__(self, wave: str, in_flight: Sequence[str], done: Sequence[str]) -> None:
        self.in_flight = ", ".join(in_flight) or "none"
        self.done = list(done)
        running = f"the up of {', '.join(in_flight)} was running and was waited for" if in_flight else "no stack's up was running"
        waves = f"waves done: {', '.join(done)}" if done else "no wave was done"
        KeyboardInterrupt.__init__(
            self,
            f"interrupted during wave {wave}: {running}; no further stack was started; {waves}. "
            "To resume, run the same fleet apply again: stacks already at their spec have nothing to do",
        )


@dataclass(frozen=True)
class WaveOutcome:
    wave: str
    stacks: tuple[StackPlans, ...]
    gates: tuple[GateResult, ...] = ()

    @property
    def failed_stacks(self) -> list[StackPlans]:
        return [s for s in self.stacks if s.error and not s.error.startswith(SKIPPED)]

    @property
    def skipped_stacks(self) -> list[StackPlans]:
        """Stacks left to another update holding their lock (locks.py): not done, so the wave is not."""
        return [s for s in self.stacks if s.error and s.error.startswith(SKIPPED)]

    @property
    def failed_gates(self) -> list[GateResult]:
        return [g for g in self.gates if g.outcome == FAILED]

    @property
    def ok(self) -> bool:
        return not self.failed_stacks and not self.skipped_stacks and not self.failed_gates


@dataclass
class FleetOutcome:
    waves: list[WaveOutcome] = field(default_factory=list)
    not_started: list[str] = field(default_factory=list)  # waves after the one that failed

    @property
    def ok(self) -> bool:
        return all(w.ok for w in self.waves)


@dataclass(frozen=True)
class Events:
    """What the runner tells as it goes (the CLI prints a line for each)."""

    wave: Callable[[Wave], None] = lambda wave: None
    started: Callable[[FleetStack], None] = lambda stack: None
    finished: Callable[[StackPlans], None] = lambda result: None
    gate: Callable[[Wave, GateResult], None] = lambda wave, result: None


def waves_of(fleet: Fleet, parallel: int) -> list[Wave]:
    """The fleet file's waves; without any, one wave of every stack, `parallel` at once, default gates."""
    return list(fleet.waves) or [Wave(name=ALL, stacks=[s.name for s in fleet.stacks], parallelism=parallel, gates=Gates())]


def apply_fleet(
    fleet: Fleet,
    waves: Sequence[Wave],
    up: Callable[[FleetStack], StackPlans],
    gates: Callable[[Wave, Sequence[tuple[FleetStack, StackPlans]]], list[GateResult]],
    events: Events = Events(),
    stop: threading.Event | None = None,
    before: Callable[[Wave], list[GateResult]] = lambda wave: [],
) -> FleetOutcome:
    """Each wave in order: the gates checked before it starts (`before`: its policy), its stacks'
    `up` (at most its parallelism at once), then its gates over what the `up`s did; the first wave
    with a failed `up` or gate is the last one run (a gate failed before it: none of its stacks started)."""
    stop = stop or threading.Event()
    by_name = {s.name: s for s in fleet.stacks}
    outcome = FleetOutcome()
    in_flight: list[str] = []  # the stacks whose up was running when Ctrl-C came (they end after it)
    lock = threading.Lock()

    def one(stack: FleetStack) -> StackPlans:
        events.started(stack)
        try:
            result = up(stack)
        finally:
            if stop.is_set():
                with lock:
                    in_flight.append(stack.name)
        events.finished(result)
        return result

    for index, wave in enumerate(waves):
        events.wave(wave)
        first = tuple(before(wave))
        for result in first:
            events.gate(wave, result)
        if any(result.outcome == FAILED for result in first):
            outcome.waves.append(WaveOutcome(wave.name, (), first))
            outcome.not_started = [w.name for w in waves[index + 1 :]]
            break
        stacks = [by_name[name] for name in wave.stacks]
        try:
            results = run_stacks(stacks, wave.parallelism, one, stop)
        except KeyboardInterrupt:  # run_stacks started no other stack and waited for those running
            raise FleetInterrupted(wave.name, sorted(in_flight), [w.wave for w in outcome.waves]) from None
        done = tuple(r for r in results if r is not None)
        checked: tuple[GateResult, ...] = ()
        if not any(r.error for r in done):
            checked = tuple(gates(wave, [(by_name[r.stack], r) for r in done]))
            for result in checked:
                events.gate(wave, result)
        outcome.waves.append(WaveOutcome(wave.name, done, first + checked))
        if not outcome.waves[-1].ok:
            outcome.not_started = [w.name for w in waves[index + 1 :]]
            break
    return outcome


def clusters_of(result: StackPlans, previewed: StackPlans | None) -> list[str]:
    """The clusters a stack's gates read: those in its state after the `up`, then those its `up` and
    its preview showed plans of (not a deleted one), in order."""
    names = list(dict.fromkeys(result.clusters))
    for plans in (result.plans, previewed.plans if previewed else ()):
        for plan in plans:
            name = plan.get("cluster_name")
            if name and name not in names and plan.get("action") != "delete":
                names.append(str(name))
    return names
