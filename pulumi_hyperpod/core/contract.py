"""The apply contract, the same for every cloud (docs/DESIGN.md, "The apply contract").

- One family of exceptions. `PlanRefused`: a guard said no (exit 2), nothing was called.
  `PlanStale`: the cluster moved since the plan was made (exit 1: make the plan again), nothing was
  called; it is NOT a kind of PlanRefused, on either cloud (a stale plan is an error to re-plan,
  not a guard's verdict). `PlanInvalid`: a plan whose steps do not fit it (hand-edited, corrupt),
  checked before any call. `ApplyError`: a call failed for good, `done` names the calls already
  made; `ConcurrentChange` is the ApplyError of another writer moving the cluster mid-apply;
  `ApplyInterrupted` the ApplyError of a SIGINT (what was sent, what was in flight; exit 130).
- One `ApplyResult`: the cluster, the outcome (`OUTCOMES`), the observed state after, the calls.
- One `wait` vocabulary (`WAITS`) and one `ApplyOptions` instead of keywords forwarded through
  every layer.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.plans.model import Plan

# What apply waits for once its calls are accepted. AWS maps each to a botocore waiter
# (apply/waiters.py); GCP waits on the long-running operation for every value but "none" (the
# operation ends when the cluster is RUNNING with its pools at their counts).
WAITS: tuple[str, ...] = ("none", "InService", "MinCount", "Target")

# done: every step's effect observed (plans/steps.py's `completion` of its kind), waited for as asked |
# started: calls accepted, not waited for (wait "none"), none refused | partial: some of the plan's
# effect was observed, not all of it (a node the service refused to delete, a group it did not grow,
# a rollout rolled back; `failures` names each) | failed: calls were made and none of their effect was
# observed | waiting: the deadline came while the service waits for capacity | timeout | unreachable
OUTCOMES: tuple[str, ...] = ("done", "started", "partial", "failed", "waiting", "timeout", "unreachable")


class PlanRefused(Exception):
    """The plan has refusals (a guard said no): nothing was called. Exit 2."""

    def __init__(self, plan: Plan, detail: str | None = None) -> None:
        self.plan = plan
        lines = [f"[{r.rule}] {r.reason}" for r in plan.refusals]
        super().__init__(detail or "the plan is refused by policy:\n  " + "\n  ".join(lines))


class PlanStale(Exception):
    """The cluster changed since the plan was made, in what the plan depends on. Nothing was called;
    make the plan again. Exit 1."""

    def __init__(self, plan: Plan, changes: Sequence[str], hint: str = "") -> None:
        self.plan, self.changes = plan, list(changes)
        super().__init__(
            f"cluster {plan.cluster_name} changed since the plan was made: "
            + "; ".join(self.changes)
            + f". Nothing was changed{hint}; make the plan again"
        )


class PlanInvalid(ValueError):
    """The plan's steps do not fit the plan (another cluster, a call its action does not make): a
    hand-edited or corrupt plan. Checked before any call."""


class ApplyError(Exception):
    """A call failed in a way retries cannot fix; `done` says which calls had already been made."""

    def __init__(self, message: str, done: list[str]) -> None:
        super().__init__(message)
        self.done = done


class ApplyInterrupted(KeyboardInterrupt):
    """SIGINT (Ctrl-C) stopped apply. `done`: the calls the service accepted — it carries them out
    whether anyone waits or not; `in_flight`: what apply was doing when the signal came (a call being
    sent may or may not have reached the service), with its preposition ("while sending …", "during
    step 2/3 (…)"). The front ends say both and how to resume, and exit `EXIT_INTERRUPTED`. A
    KeyboardInterrupt, not an ApplyError: a program that retries a failed apply must not retry a Ctrl-C."""

    def __init__(self, name: str, done: list[str], in_flight: str) -> None:
        self.in_flight = in_flight
        self.done = done
        sent = f"{len(done)} call(s) were sent and accepted ({', '.join(done)})" if done else "no call was accepted"
        super().__init__(
            f"interrupted {in_flight}: {sent}; the service carries out what it accepted. To resume, "
            f"run the same apply again with -f SPEC (it reads cluster {name} as it is now and does only what is "
            "left, waiting as asked), or make the plan again (`plan`) to see what is left; a saved plan "
            "(--plan) no longer matches the cluster once a call was accepted"
        )


# The exit status of an apply that SIGINT stopped: 128 + SIGINT, as a shell reports it.
EXIT_INTERRUPTED = 130


class ConcurrentChange(ApplyError):
    """Another writer moved the cluster while this plan was being applied: apply stopped."""

    def __init__(self, name: str, changes: list[str], done: list[str]) -> None:
        self.changes = changes
        already = f" after {len(done)} call(s) of this plan ({', '.join(done)})" if done else "; no call of this plan was made"
        super().__init__(
            f"cluster {name} was changed by another writer: "
            + "; ".join(changes)
            + f". Stopped{already}; look at the cluster, then plan again",
            done,
        )


@dataclass
class ApplyResult:
    """What became of a plan. `state`: the cloud's observed cluster after the calls (None: deleted,
    or not read)."""

    cluster_name: str
    outcome: str = "done"  # one of OUTCOMES
    state: Any = None
    calls: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.outcome in ("done", "started") and not self.failures


def settled_outcome(waited: str, short: int, landed: bool) -> str:
    """The outcome once each step's completion was checked: `waited` is what the wait made of the run,
    `short` how many steps' effects were not observed, `landed` whether any of the plan's effect was.
    A wait that fell short (waiting, timeout, unreachable) says so already and stays."""
    if not short or waited not in ("done", "started"):
        return waited
    return "partial" if landed else "failed"


@dataclass(frozen=True)
class ApplyOptions:
    """How to apply: what to wait for, for how long, how often to poll, whom to tell.

    `check_fresh`: observe first and raise PlanStale, calling nothing, when the cluster moved since
    the plan was made. `progress` receives each message (a cloud's Progress or a string)."""

    wait: str = "InService"
    timeout: float = 1800.0
    poll_seconds: float | None = None
    check_fresh: bool = True
    progress: Callable[[Any], Any] | None = None

    def __post_init__(self) -> None:
        if self.wait not in WAITS:
            raise ValueError(f"wait must be one of {', '.join(WAITS)}; got {self.wait!r}")
        if not (isinstance(self.timeout, (int, float)) and self.timeout > 0 and math.isfinite(self.timeout)):
            raise ValueError(f"timeout must be more than 0 seconds (and finite); got {self.timeout!r}")

    @property
    def waits(self) -> bool:
        return self.wait != "none"
